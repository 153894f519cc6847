//! The JSON log line: one object per event, `timestamp`, `level`, `target`, then the event's
//! fields in the order they were given, each written straight into the line. Records of the `log`
//! crate (rustls logs through it) carry their own target and level, as tracing-subscriber's
//! formatters show them.
//!
//! tracing-subscriber's own JSON format first collects every field into a map of
//! `serde_json::Value`s (an allocation and a map insert per field) and then serializes the map;
//! for the admission log line that was as much CPU as deciding the request. This writes the
//! same keys and values without the map.

use std::fmt::{self, Write as _};
use tracing::field::{Field, Visit};
use tracing::{Event, Subscriber};
use tracing_log::NormalizeEvent as _;
use tracing_subscriber::fmt::format::Writer;
use tracing_subscriber::fmt::{FmtContext, FormatEvent, FormatFields};
use tracing_subscriber::registry::LookupSpan;

/// The event format of `--log-format json`.
pub struct JsonLine;

impl<S, N> FormatEvent<S, N> for JsonLine
where
    S: Subscriber + for<'a> LookupSpan<'a>,
    N: for<'a> FormatFields<'a> + 'static,
{
    fn format_event(
        &self,
        _ctx: &FmtContext<'_, S, N>,
        mut writer: Writer<'_>,
        event: &Event<'_>,
    ) -> fmt::Result {
        let normalized = event.normalized_metadata();
        let meta = normalized.as_ref().unwrap_or_else(|| event.metadata());
        // RFC 3339 in UTC with microseconds, as tracing-subscriber's `SystemTime` writes it, in
        // a seventh of its instructions (humantime writes the digits itself, in one call).
        let now = humantime::format_rfc3339_micros(std::time::SystemTime::now());
        write!(
            writer,
            "{{\"timestamp\":\"{now}\",\"level\":\"{}\",\"target\":",
            meta.level()
        )?;
        write_str(&mut writer, meta.target())?;
        let mut fields = Fields {
            out: &mut writer,
            result: Ok(()),
        };
        event.record(&mut fields);
        fields.result?;
        writer.write_str("}\n")
    }
}

/// Writes each field as `,"name":value`; the first error stops the rest. The `log.*` fields of
/// a `log` record are left out (its target and level are the line's), and a raw identifier's
/// `r#` is dropped.
struct Fields<'a, W> {
    out: &'a mut W,
    result: fmt::Result,
}

impl<W: fmt::Write> Fields<'_, W> {
    fn field(&mut self, field: &Field, value: impl FnOnce(&mut W) -> fmt::Result) {
        let name = field.name();
        if self.result.is_ok() && !name.starts_with("log.") {
            let name = name.strip_prefix("r#").unwrap_or(name);
            self.result = self
                .out
                .write_str(",\"")
                .and_then(|()| Escaped(&mut *self.out).write_str(name))
                .and_then(|()| self.out.write_str("\":"))
                .and_then(|()| value(self.out));
        }
    }
}

impl<W: fmt::Write> Visit for Fields<'_, W> {
    fn record_str(&mut self, field: &Field, value: &str) {
        self.field(field, |out| write_str(out, value));
    }

    fn record_bool(&mut self, field: &Field, value: bool) {
        self.field(field, |out| {
            out.write_str(if value { "true" } else { "false" })
        });
    }

    fn record_i64(&mut self, field: &Field, value: i64) {
        self.field(field, |out| write!(out, "{value}"));
    }

    fn record_u64(&mut self, field: &Field, value: u64) {
        self.field(field, |out| write!(out, "{value}"));
    }

    /// JSON has no NaN or infinity: those are written as strings, as serde_json's `Value` can't
    /// hold them either.
    fn record_f64(&mut self, field: &Field, value: f64) {
        if value.is_finite() {
            self.field(field, |out| write!(out, "{value}"));
        } else {
            self.field(field, |out| write!(out, "\"{value}\""));
        }
    }

    fn record_debug(&mut self, field: &Field, value: &dyn fmt::Debug) {
        self.field(field, |out| {
            out.write_char('"')?;
            write!(Escaped(out), "{value:?}")?;
            out.write_char('"')
        });
    }
}

/// `text` as a JSON string, quotes included.
fn write_str<W: fmt::Write + ?Sized>(out: &mut W, text: &str) -> fmt::Result {
    out.write_char('"')?;
    Escaped(out).write_str(text)?;
    out.write_char('"')
}

/// A `fmt::Write` that escapes what goes through it for the inside of a JSON string.
struct Escaped<'a, W: ?Sized>(&'a mut W);

impl<W: fmt::Write + ?Sized> fmt::Write for Escaped<'_, W> {
    fn write_str(&mut self, text: &str) -> fmt::Result {
        let mut rest = text;
        while let Some(at) = rest
            .bytes()
            .position(|b| b < 0x20 || b == b'"' || b == b'\\')
        {
            self.0.write_str(&rest[..at])?;
            match rest.as_bytes()[at] {
                b'"' => self.0.write_str("\\\""),
                b'\\' => self.0.write_str("\\\\"),
                b'\n' => self.0.write_str("\\n"),
                b'\r' => self.0.write_str("\\r"),
                b'\t' => self.0.write_str("\\t"),
                control => write!(self.0, "\\u{control:04x}"),
            }?;
            rest = &rest[at + 1..];
        }
        self.0.write_str(rest)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;
    use serde_json::{json, Value};
    use std::io;
    use std::sync::{Arc, Mutex};

    /// The lines `emit` logs through a subscriber with this format, parsed as JSON.
    fn logged(emit: impl FnOnce()) -> Vec<Value> {
        let buffer = Arc::new(Mutex::new(Vec::new()));
        let sink = buffer.clone();
        let subscriber = tracing_subscriber::fmt()
            .with_writer(move || Sink(sink.clone()))
            .with_max_level(tracing::Level::DEBUG)
            .event_format(JsonLine)
            .finish();
        tracing::subscriber::with_default(subscriber, emit);
        let text = String::from_utf8(buffer.lock().unwrap().clone()).expect("UTF-8");
        text.lines()
            .map(|line| serde_json::from_str(line).unwrap_or_else(|e| panic!("{e}: {line}")))
            .collect()
    }

    struct Sink(Arc<Mutex<Vec<u8>>>);

    impl io::Write for Sink {
        fn write(&mut self, bytes: &[u8]) -> io::Result<usize> {
            self.0.lock().unwrap().extend_from_slice(bytes);
            Ok(bytes.len())
        }

        fn flush(&mut self) -> io::Result<()> {
            Ok(())
        }
    }

    #[test]
    fn an_event_is_one_json_object_with_its_fields_at_the_top() {
        let lines = logged(|| {
            let uid = "5e1f";
            tracing::info!(
                target: "zoneguard::admission",
                endpoint = "validate",
                uid = %uid,
                dry_run = false,
                generation = 3u64,
                offset = -2i64,
                duration_ms = 0.25,
                reasons = ?["a", "b"],
                "admission"
            );
        });
        assert_eq!(lines.len(), 1);
        let line = &lines[0];
        let timestamp = line["timestamp"].as_str().expect("a timestamp");
        assert_eq!(
            timestamp.len(),
            "2026-12-04T19:58:31.046090Z".len(),
            "RFC 3339 in UTC with microseconds: {timestamp}"
        );
        let at = humantime::parse_rfc3339(timestamp).expect("an RFC 3339 timestamp");
        let age = std::time::SystemTime::now()
            .duration_since(at)
            .expect("not in the future");
        assert!(age.as_secs() < 60, "{timestamp} is now");
        let mut rest = line.clone();
        rest.as_object_mut().unwrap().remove("timestamp");
        let want = json!({
            "level": "INFO", "target": "zoneguard::admission", "endpoint": "validate",
            "uid": "5e1f", "dry_run": false, "generation": 3, "offset": -2,
            "duration_ms": 0.25, "reasons": "[\"a\", \"b\"]", "message": "admission",
        });
        assert_eq!(rest, want);
    }

    #[test]
    fn numbers_json_cannot_hold_are_written_as_strings() {
        let lines = logged(|| tracing::warn!(nan = f64::NAN, inf = f64::INFINITY, "odd"));
        assert_eq!(lines[0]["nan"], json!("NaN"));
        assert_eq!(lines[0]["inf"], json!("inf"));
        assert_eq!(lines[0]["level"], json!("WARN"));
    }

    #[test]
    fn quotes_backslashes_and_control_characters_are_escaped() {
        let text = "a\"b\\c\nd\re\tf\u{1}g\u{1f}h é ✓";
        let lines = logged(|| tracing::error!(text, shown = %text, "{text}"));
        assert_eq!(lines[0]["text"], json!(text));
        assert_eq!(lines[0]["shown"], json!(text));
        assert_eq!(lines[0]["message"], json!(text));
    }

    #[test]
    fn a_log_crate_record_has_its_own_target_and_level_and_no_log_fields() {
        let _ = tracing_log::LogTracer::init();
        let lines = logged(|| log::warn!(target: "rustls::server", "client sent {}", "junk"));
        let line = lines.first().expect("the record was logged");
        let mut rest = line.clone();
        rest.as_object_mut().unwrap().remove("timestamp");
        let want =
            json!({"level": "WARN", "target": "rustls::server", "message": "client sent junk"});
        assert_eq!(rest, want);
    }

    #[test]
    fn a_raw_identifier_field_is_named_without_r_hash() {
        let lines = logged(|| tracing::info!(r#type = "LoadBalancer", "typed"));
        assert_eq!(lines[0]["type"], json!("LoadBalancer"));
    }

    proptest! {
        #[test]
        fn any_text_reads_back_as_itself(text in any::<String>()) {
            let lines = logged(|| tracing::info!(value = text.as_str(), debug = ?text));
            prop_assert_eq!(&lines[0]["value"], &json!(text));
            prop_assert_eq!(&lines[0]["debug"], &json!(format!("{text:?}")));
        }
    }
}
