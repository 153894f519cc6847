//! Watch files through their directories and call back when one of them changes.
//!
//! Watching the directory catches both cert-manager-style in-place writes and the Kubernetes
//! volume `..data` symlink swap, which replaces the file without touching its old inode. Events
//! about other files in those directories (a log written beside the rules, an editor's swap
//! file) are ignored. A periodic re-check backs up the notifications; callers compare contents,
//! so spurious calls are cheap.

use notify::event::{AccessKind, AccessMode};
use notify::{Event, EventKind, RecursiveMode, Watcher};
use std::collections::BTreeSet;
use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;
use tokio::sync::mpsc;
use tokio::task::JoinHandle;
use tokio_util::sync::CancellationToken;

#[derive(Debug, Clone, Copy)]
pub struct WatchTiming {
    /// Quiet time after the last event before reloading (writes come in bursts).
    pub debounce: Duration,
    /// Re-check this often even without events.
    pub poll: Duration,
}

/// The directories that hold `files` (deduplicated).
fn parent_dirs(files: &[PathBuf]) -> Vec<PathBuf> {
    let dirs: BTreeSet<PathBuf> = files
        .iter()
        .map(|f| match f.parent() {
            Some(p) if !p.as_os_str().is_empty() => p.to_path_buf(),
            _ => PathBuf::from("."),
        })
        .collect();
    dirs.into_iter().collect()
}

/// The file names an event may concern: the watched files' own, and the Kubernetes atomic
/// writer's `..data`, `..data_tmp` and `..<timestamp>` entries.
struct Names(BTreeSet<OsString>);

impl Names {
    fn of(files: &[PathBuf]) -> Names {
        Names(
            files
                .iter()
                .filter_map(|f| f.file_name().map(OsString::from))
                .collect(),
        )
    }

    fn concern(&self, path: &Path) -> bool {
        path.file_name()
            .is_none_or(|name| self.0.contains(name) || name.as_encoded_bytes().starts_with(b".."))
    }
}

fn relevant(event: &Event, names: &Names) -> bool {
    let kind = match event.kind {
        EventKind::Access(AccessKind::Close(AccessMode::Write)) => true,
        EventKind::Access(_) => false,
        _ => true,
    };
    // No path: the watcher lost track (overflow, rescan), so look again.
    kind && (event.paths.is_empty() || event.paths.iter().any(|p| names.concern(p)))
}

/// Spawn a task that calls `on_change` after changes to `files` (debounced) and every `poll`.
pub fn spawn<F>(
    what: &'static str,
    files: &[PathBuf],
    timing: WatchTiming,
    shutdown: CancellationToken,
    on_change: F,
) -> Result<JoinHandle<()>, notify::Error>
where
    F: Fn() + Send + Sync + 'static,
{
    let (tx, rx) = mpsc::unbounded_channel::<()>();
    let names = Names::of(files);
    let mut watcher = notify::recommended_watcher(move |res: notify::Result<Event>| match res {
        Ok(event) if relevant(&event, &names) => {
            let _ = tx.send(());
        }
        Ok(_) => {}
        Err(e) => tracing::warn!(error = %e, "file watch error"),
    })?;
    for dir in parent_dirs(files) {
        watcher.watch(&dir, RecursiveMode::NonRecursive)?;
    }
    Ok(tokio::spawn(run(
        what, watcher, rx, timing, shutdown, on_change,
    )))
}

async fn run<F: Fn() + Send + Sync + 'static>(
    what: &'static str,
    watcher: notify::RecommendedWatcher,
    mut rx: mpsc::UnboundedReceiver<()>,
    timing: WatchTiming,
    shutdown: CancellationToken,
    on_change: F,
) {
    let _watcher = watcher; // dropping it stops the notifications
    let on_change = Arc::new(on_change);
    let mut poll = tokio::time::interval(timing.poll);
    poll.tick().await;
    loop {
        tokio::select! {
            () = shutdown.cancelled() => break,
            _ = poll.tick() => call(what, &on_change).await,
            got = rx.recv() => {
                if got.is_none() {
                    break;
                }
                debounce(&mut rx, timing.debounce).await;
                tracing::debug!(what, "change detected");
                call(what, &on_change).await;
            }
        }
    }
}

/// Calls `on_change` on the blocking pool, and waits for it: reading a large rule set takes the
/// better part of a second, which would hold up the admissions of the async worker it ran on.
/// A panic in it is logged, and the next change calls it again.
async fn call<F: Fn() + Send + Sync + 'static>(what: &'static str, on_change: &Arc<F>) {
    let on_change = on_change.clone();
    if let Err(e) = tokio::task::spawn_blocking(move || on_change()).await {
        tracing::error!(what, error = %e, "reading the changed files failed");
    }
}

/// Wait until no event has arrived for `quiet`.
async fn debounce(rx: &mut mpsc::UnboundedReceiver<()>, quiet: Duration) {
    while let Ok(Some(())) = tokio::time::timeout(quiet, rx.recv()).await {}
}

#[cfg(test)]
mod tests {
    use super::*;
    use notify::event::{CreateKind, ModifyKind, RenameMode};

    fn event(kind: EventKind, paths: &[&str]) -> Event {
        paths
            .iter()
            .fold(Event::new(kind), |e, p| e.add_path(PathBuf::from(p)))
    }

    #[test]
    fn only_events_about_the_watched_files_or_the_volume_swap_wake_the_watcher() {
        let names = Names::of(&[PathBuf::from("/etc/zg/rules.yaml")]);
        let write = EventKind::Access(AccessKind::Close(AccessMode::Write));
        let rename = EventKind::Modify(ModifyKind::Name(RenameMode::Both));
        let cases = [
            (write, vec!["/etc/zg/rules.yaml"], true),
            (write, vec!["/etc/zg/serve.log"], false),
            (
                rename,
                vec!["/etc/zg/.rules.yaml.swp", "/etc/zg/rules.yaml"],
                true,
            ),
            (rename, vec!["/etc/zg/..data_tmp", "/etc/zg/..data"], true),
            (
                EventKind::Create(CreateKind::Folder),
                vec!["/etc/zg/..2026_12_02_22_00_00.1"],
                true,
            ),
            (
                EventKind::Access(AccessKind::Read),
                vec!["/etc/zg/rules.yaml"],
                false,
            ),
            (EventKind::Other, vec![], true),
        ];
        for (kind, paths, want) in cases {
            assert_eq!(
                relevant(&event(kind, &paths), &names),
                want,
                "{kind:?} {paths:?}"
            );
        }
    }

    /// On a runtime of one thread, a callback run in place would wait forever for a task that
    /// cannot run until it returns; run on the blocking pool, it gets its message.
    #[tokio::test(flavor = "current_thread")]
    async fn a_slow_callback_does_not_hold_up_the_async_tasks() {
        let (tx, rx) = std::sync::mpsc::channel::<()>();
        let rx = std::sync::Mutex::new(rx);
        let got = Arc::new(std::sync::atomic::AtomicBool::new(false));
        let callback = {
            let got = got.clone();
            move || {
                let message = rx
                    .lock()
                    .expect("lock")
                    .recv_timeout(Duration::from_secs(10));
                got.store(message.is_ok(), std::sync::atomic::Ordering::SeqCst);
            }
        };
        let sender = tokio::spawn(async move { tx.send(()).expect("the callback waits") });
        call("test", &Arc::new(callback)).await;
        sender.await.expect("the async task ran");
        assert!(got.load(std::sync::atomic::Ordering::SeqCst));
    }
}
