//! `zoneguard check` (under construction).

use std::process::ExitCode;

#[derive(Debug, clap::Args)]
pub struct Args {}

pub fn run(_args: Args) -> ExitCode {
    eprintln!("zoneguard check: not built yet");
    ExitCode::from(2)
}
