//! `zoneguard certs` (under construction).

use std::process::ExitCode;

#[derive(Debug, clap::Args)]
pub struct Args {}

pub fn run(_args: Args) -> ExitCode {
    eprintln!("zoneguard certs: not built yet");
    ExitCode::from(2)
}
