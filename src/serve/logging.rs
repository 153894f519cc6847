//! Logs: JSON on stderr when it is not a terminal, human text when it is.

use super::args::LogFormat;
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
        builder
            .json()
            .flatten_event(true)
            .with_current_span(false)
            .try_init()
    } else {
        builder.try_init()
    };
    if let Err(e) = result {
        eprintln!("zoneguard: logging already initialised: {e}");
    }
}
