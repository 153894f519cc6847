//! The log's way out: the per-request admission lines gathered into batches, every other line
//! written at once.
//!
//! Under load the webhook logs a line for every request with a violation. Written one by one,
//! each of those lines was a `write(2)` of its own: with the log going to a file, the lines cost
//! ~6 % of the requests a second at saturation, and writing them in batches won back ~4 % in the
//! release build, 0.4–1.6 % in the profile-guided one (the performance log's fourteenth round).
//! An admission line (target
//! [`ADMISSION_TARGET`], level INFO or below) is appended to a buffer instead, which is written
//! out:
//! - when it holds [`BATCH_BYTES`];
//! - before any other line, so lines keep their order (start-up, reloads, warnings and errors
//!   are written at once);
//! - every [`FLUSH_EVERY`], by a task on the server's runtime ([`Flush::every`]);
//! - when the [`Flush`] guard drops, as `zoneguard serve` exits.
//!
//! An admission line therefore reaches stderr at most [`FLUSH_EVERY`] after it was logged. Only a
//! process killed without a chance to exit (SIGKILL, the OOM killer) loses the admission lines
//! of that last interval; klog, the Kubernetes components' logger, buffers its lines for up to
//! 5 s the same way.

use std::future::Future;
use std::io::{self, Write};
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};
use std::time::Duration;
use tracing::{Level, Metadata};
use tracing_subscriber::fmt::MakeWriter;

/// The target of the per-request admission line (`routes::Webhook::record`).
pub const ADMISSION_TARGET: &str = "zoneguard::admission";

/// The buffer is written out once it holds this much (~50 admission lines).
pub const BATCH_BYTES: usize = 16 * 1024;

/// The longest an admission line waits in the buffer.
pub const FLUSH_EVERY: Duration = Duration::from_millis(100);

/// A [`MakeWriter`] over `W` (stderr in the server) that batches the admission lines.
pub struct Batched<W> {
    shared: Arc<Mutex<Pending<W>>>,
}

impl<W> Clone for Batched<W> {
    fn clone(&self) -> Self {
        Self {
            shared: self.shared.clone(),
        }
    }
}

/// The lines not yet written, and where they go.
struct Pending<W> {
    lines: Vec<u8>,
    out: W,
}

impl<W: Write> Pending<W> {
    /// Writes the buffered lines. They are dropped even when the write fails: a sink that
    /// refuses them would otherwise grow the buffer without end.
    fn write_out(&mut self) -> io::Result<()> {
        if self.lines.is_empty() {
            return Ok(());
        }
        let result = self
            .out
            .write_all(&self.lines)
            .and_then(|()| self.out.flush());
        self.lines.clear();
        result
    }
}

impl<W: Write> Batched<W> {
    /// Batches the admission lines written to `out`.
    pub fn new(out: W) -> Self {
        Self {
            shared: Arc::new(Mutex::new(Pending {
                lines: Vec::with_capacity(BATCH_BYTES + 1024),
                out,
            })),
        }
    }

    fn lock(&self) -> MutexGuard<'_, Pending<W>> {
        self.shared.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// Writes the buffered lines now.
    pub fn flush(&self) -> io::Result<()> {
        self.lock().write_out()
    }

    /// A guard that writes the buffered lines when it drops.
    pub fn flush_on_drop(&self) -> Flush<W> {
        Flush(self.clone())
    }
}

/// Writes the buffered lines when dropped (held by `zoneguard serve` until it exits).
#[must_use = "the buffered lines are written when the guard drops"]
pub struct Flush<W: Write>(Batched<W>);

impl<W: Write + Send + 'static> Flush<W> {
    /// Writes the buffered lines every `every`, for as long as the runtime runs it: a timer on
    /// the server's runtime, not a thread of its own.
    pub fn every(&self, every: Duration) -> impl Future<Output = ()> + Send + use<W> {
        let batched = self.0.clone();
        async move {
            let mut ticks = tokio::time::interval(every);
            ticks.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
            loop {
                ticks.tick().await;
                // Nothing to tell the error to but the stream that failed.
                let _ = batched.flush();
            }
        }
    }
}

impl<W: Write> Drop for Flush<W> {
    fn drop(&mut self) {
        let _ = self.0.flush();
    }
}

/// Whether a line of this event may wait in the buffer.
fn batchable(meta: &Metadata<'_>) -> bool {
    meta.target() == ADMISSION_TARGET && *meta.level() >= Level::INFO
}

/// One event's writer: the formatting layer writes the whole line through it in one call.
pub struct Line<'a, W> {
    batched: &'a Batched<W>,
    batch: bool,
}

impl<W: Write> Write for Line<'_, W> {
    fn write(&mut self, bytes: &[u8]) -> io::Result<usize> {
        let mut pending = self.batched.lock();
        if self.batch {
            pending.lines.extend_from_slice(bytes);
            if pending.lines.len() >= BATCH_BYTES {
                pending.write_out()?;
            }
        } else {
            // The waiting lines first, so the order holds; this line is written even when they
            // could not be.
            let waiting = pending.write_out();
            pending.out.write_all(bytes)?;
            pending.out.flush()?;
            waiting?;
        }
        Ok(bytes.len())
    }

    fn flush(&mut self) -> io::Result<()> {
        if self.batch {
            return Ok(());
        }
        self.batched.flush()
    }
}

impl<'a, W: Write + 'a> MakeWriter<'a> for Batched<W> {
    type Writer = Line<'a, W>;

    fn make_writer(&'a self) -> Self::Writer {
        Line {
            batched: self,
            batch: false,
        }
    }

    fn make_writer_for(&'a self, meta: &Metadata<'_>) -> Self::Writer {
        Line {
            batched: self,
            batch: batchable(meta),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::Instant;

    /// A stream that keeps what is written to it, and counts the writes.
    #[derive(Clone, Default)]
    struct Recorded(Arc<Mutex<(Vec<u8>, usize)>>);

    impl Recorded {
        fn text(&self) -> String {
            String::from_utf8(self.0.lock().unwrap().0.clone()).unwrap()
        }

        fn writes(&self) -> usize {
            self.0.lock().unwrap().1
        }
    }

    impl Write for Recorded {
        fn write(&mut self, bytes: &[u8]) -> io::Result<usize> {
            let mut inner = self.0.lock().unwrap();
            inner.0.extend_from_slice(bytes);
            inner.1 += 1;
            Ok(bytes.len())
        }

        fn flush(&mut self) -> io::Result<()> {
            Ok(())
        }
    }

    /// A stream that refuses every write.
    struct Broken;

    impl Write for Broken {
        fn write(&mut self, _: &[u8]) -> io::Result<usize> {
            Err(io::Error::new(io::ErrorKind::BrokenPipe, "closed"))
        }

        fn flush(&mut self) -> io::Result<()> {
            Ok(())
        }
    }

    /// A batched sink over a recorded stream.
    fn sink() -> (Batched<Recorded>, Recorded) {
        let out = Recorded::default();
        (Batched::new(out.clone()), out)
    }

    fn write_line(sink: &Batched<Recorded>, batch: bool, text: &str) {
        let mut line = Line {
            batched: sink,
            batch,
        };
        line.write_all(text.as_bytes()).unwrap();
    }

    #[test]
    fn an_admission_line_waits_and_any_other_line_writes_it_out_first() {
        let (sink, out) = sink();
        write_line(&sink, true, "denied 1\n");
        write_line(&sink, true, "denied 2\n");
        assert_eq!(out.text(), "");
        write_line(&sink, false, "rules reloaded\n");
        assert_eq!(out.text(), "denied 1\ndenied 2\nrules reloaded\n");
        assert_eq!(
            out.writes(),
            2,
            "the two waiting lines went out in one write"
        );
    }

    #[test]
    fn a_full_batch_is_written_at_once() {
        let (sink, out) = sink();
        let line = format!("{}\n", "x".repeat(999));
        for _ in 0..BATCH_BYTES / line.len() {
            write_line(&sink, true, &line);
        }
        assert_eq!(out.writes(), 0);
        write_line(&sink, true, &line);
        assert_eq!(out.writes(), 1);
        assert_eq!(
            out.text().len(),
            (BATCH_BYTES / line.len() + 1) * line.len()
        );
    }

    #[test]
    fn the_guard_writes_what_is_left_when_it_drops() {
        let (sink, out) = sink();
        let guard = sink.flush_on_drop();
        write_line(&sink, true, "last\n");
        assert_eq!(out.text(), "");
        drop(guard);
        assert_eq!(out.text(), "last\n");
    }

    /// A stream that refuses its first write and keeps the rest.
    struct FailsOnce(Recorded, bool);

    impl Write for FailsOnce {
        fn write(&mut self, bytes: &[u8]) -> io::Result<usize> {
            if std::mem::replace(&mut self.1, false) {
                return Err(io::Error::other("full"));
            }
            self.0.write(bytes)
        }

        fn flush(&mut self) -> io::Result<()> {
            Ok(())
        }
    }

    #[test]
    fn a_line_is_written_even_when_the_waiting_ones_could_not_be() {
        let out = Recorded::default();
        let sink = Batched::new(FailsOnce(out.clone(), true));
        Line {
            batched: &sink,
            batch: true,
        }
        .write_all(b"denied\n")
        .unwrap();
        let mut error = Line {
            batched: &sink,
            batch: false,
        };
        assert!(
            error.write_all(b"reload failed\n").is_err(),
            "the lost batch is reported"
        );
        assert_eq!(out.text(), "reload failed\n");
    }

    #[tokio::test]
    async fn the_periodic_task_writes_waiting_lines_within_its_interval() {
        let (sink, out) = sink();
        let guard = sink.flush_on_drop();
        let task = tokio::spawn(guard.every(Duration::from_millis(10)));
        write_line(&sink, true, "denied\n");
        let deadline = Instant::now() + Duration::from_secs(10);
        while out.text().is_empty() && Instant::now() < deadline {
            tokio::time::sleep(Duration::from_millis(5)).await;
        }
        assert_eq!(out.text(), "denied\n");
        task.abort();
    }

    #[test]
    fn lines_a_stream_refuses_are_dropped_not_kept_without_end() {
        let sink = Batched::new(Broken);
        let mut line = Line {
            batched: &sink,
            batch: true,
        };
        line.write_all(&[b'x'; BATCH_BYTES]).unwrap_err();
        assert!(sink.lock().lines.is_empty());
        let mut other = Line {
            batched: &sink,
            batch: false,
        };
        assert!(other.write_all(b"error\n").is_err());
    }

    #[test]
    fn only_admission_lines_at_info_or_below_wait() {
        let (sink, out) = sink();
        let subscriber = tracing_subscriber::fmt()
            .with_max_level(Level::TRACE)
            .with_ansi(false)
            .without_time()
            .with_writer(sink.clone())
            .finish();
        tracing::subscriber::with_default(subscriber, || {
            tracing::debug!(target: ADMISSION_TARGET, "allowed");
            tracing::info!(target: ADMISSION_TARGET, "denied");
            assert_eq!(out.text(), "", "admission lines at DEBUG and INFO wait");
            tracing::warn!(target: ADMISSION_TARGET, "odd");
            let lines: Vec<String> = out.text().lines().map(str::to_owned).collect();
            assert_eq!(
                lines.len(),
                3,
                "a WARN line is written at once, after the waiting ones: {lines:?}"
            );
            assert!(
                lines[0].ends_with("allowed")
                    && lines[1].ends_with("denied")
                    && lines[2].ends_with("odd"),
                "{lines:?}"
            );
            tracing::info!(target: "zoneguard::serve::rules_store", "rule set loaded");
            assert!(
                out.text().ends_with("rule set loaded\n"),
                "another target's INFO line is written at once"
            );
        });
    }
}
