//! Logs: JSON on stderr when it is not a terminal, human text when it is.

mod json_line;

use super::args::LogFormat;
use json_line::JsonLine;
use std::io::IsTerminal as _;
use tracing_subscriber::EnvFilter;

pub fn init(format: LogFormat, level: &str) {
    let filter = EnvFilter::try_new(level).unwrap_or_else(|_| EnvFilter::new("info"));
    let json = match format {
        LogFormat::Json => true,
        LogFormat::Text => false,
        LogFormat::Auto => !std::io::stderr().is_terminal(),
    };
    let builder = tracing_subscriber::fmt()
        .with_env_filter(filter)
        .with_writer(std::io::stderr);
    let result = if json {
        builder.event_format(JsonLine).try_init()
    } else {
        builder.try_init()
    };
    if let Err(e) = result {
        eprintln!("zoneguard: logging already initialised: {e}");
    }
}
