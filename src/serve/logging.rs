//! Logs: JSON on stderr when it is not a terminal, human text when it is; the per-request
//! admission lines go out in batches (module `batch`). Text is coloured only on a terminal.

mod batch;
mod json_line;

use super::args::LogFormat;
use batch::Batched;
pub use batch::{Flush, ADMISSION_TARGET, FLUSH_EVERY};
use json_line::JsonLine;
use std::io::{IsTerminal as _, Stderr};
use tracing_subscriber::EnvFilter;

/// How log lines are written.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Style {
    Json,
    /// Human text, with ANSI colours or without.
    Text {
        colour: bool,
    },
}

/// The style for `format` when stderr `is_terminal`: colours only on a terminal, and not when
/// `NO_COLOR` is set to something (`no_color`, <https://no-color.org/>), so a file or a pipe never
/// holds escape codes.
fn style(format: LogFormat, is_terminal: bool, no_color: bool) -> Style {
    let text = Style::Text {
        colour: is_terminal && !no_color,
    };
    match format {
        LogFormat::Json => Style::Json,
        LogFormat::Text => text,
        LogFormat::Auto if is_terminal => text,
        LogFormat::Auto => Style::Json,
    }
}

/// Sets up logging. The returned guard writes the lines still waiting when it drops, so
/// `zoneguard serve` holds it until it exits, and runs its [`Flush::every`] task on its runtime.
pub fn init(format: LogFormat, level: &str) -> Flush<Stderr> {
    let filter = EnvFilter::try_new(level).unwrap_or_else(|_| EnvFilter::new("info"));
    let no_color = std::env::var_os("NO_COLOR").is_some_and(|v| !v.is_empty());
    let style = style(format, std::io::stderr().is_terminal(), no_color);
    let sink = Batched::new(std::io::stderr());
    let builder = tracing_subscriber::fmt()
        .with_env_filter(filter)
        .with_ansi(style == Style::Text { colour: true })
        .with_writer(sink.clone());
    let result = if style == Style::Json {
        builder.event_format(JsonLine).try_init()
    } else {
        builder.try_init()
    };
    if let Err(e) = result {
        eprintln!("zoneguard: logging already initialised: {e}");
    }
    sink.flush_on_drop()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn text_is_coloured_only_on_a_terminal_without_no_color() {
        let text = |colour| Style::Text { colour };
        let table = [
            // format, stderr is a terminal, NO_COLOR set, style
            (LogFormat::Text, true, false, text(true)),
            (LogFormat::Text, true, true, text(false)),
            (LogFormat::Text, false, false, text(false)),
            (LogFormat::Text, false, true, text(false)),
            (LogFormat::Auto, true, false, text(true)),
            (LogFormat::Auto, true, true, text(false)),
            (LogFormat::Auto, false, false, Style::Json),
            (LogFormat::Auto, false, true, Style::Json),
            (LogFormat::Json, true, false, Style::Json),
            (LogFormat::Json, false, false, Style::Json),
        ];
        for (format, is_terminal, no_color, want) in table {
            assert_eq!(
                style(format, is_terminal, no_color),
                want,
                "{format:?}, terminal {is_terminal}, NO_COLOR {no_color}"
            );
        }
    }
}
