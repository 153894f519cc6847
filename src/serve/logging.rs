//! Logs: JSON on stderr when it is not a terminal, human text when it is; the per-request
//! admission lines go out in batches ([`batch`]).

mod batch;
mod json_line;

use super::args::LogFormat;
use batch::Batched;
pub use batch::{Flush, ADMISSION_TARGET, FLUSH_EVERY};
use json_line::JsonLine;
use std::io::{IsTerminal as _, Stderr};
use tracing_subscriber::EnvFilter;

/// Sets up logging. The returned guard writes the lines still waiting when it drops, so
/// `zoneguard serve` holds it until it exits, and runs its [`Flush::every`] task on its runtime.
pub fn init(format: LogFormat, level: &str) -> Flush<Stderr> {
    let filter = EnvFilter::try_new(level).unwrap_or_else(|_| EnvFilter::new("info"));
    let json = match format {
        LogFormat::Json => true,
        LogFormat::Text => false,
        LogFormat::Auto => !std::io::stderr().is_terminal(),
    };
    let sink = Batched::new(std::io::stderr());
    let builder = tracing_subscriber::fmt()
        .with_env_filter(filter)
        .with_writer(sink.clone());
    let result = if json {
        builder.event_format(JsonLine).try_init()
    } else {
        builder.try_init()
    };
    if let Err(e) = result {
        eprintln!("zoneguard: logging already initialised: {e}");
    }
    sink.flush_on_drop()
}
