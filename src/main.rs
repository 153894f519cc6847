//! `zoneguard`: the admission webhook (`serve`), the offline checker (`check`) and the
//! certificate helper (`certs`).

use clap::{Parser, Subcommand};
use std::process::ExitCode;

mod check;

use zoneguard::{certs, serve};

/// mimalloc: an admission allocates many small, short-lived strings and maps; glibc's malloc
/// was a fifth of the server's CPU under load (see docs/performance-log.md, 2026-12-02).
#[global_allocator]
static ALLOCATOR: zoneguard::allocator::Allocator = zoneguard::allocator::Allocator;

#[derive(Debug, Parser)]
#[command(
    name = "zoneguard",
    version,
    about = "Guards external-dns hostnames and IRSA trust policies at admission time"
)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Debug, Subcommand)]
enum Command {
    /// Run the validating and mutating admission webhook.
    Serve(serve::Args),
    /// Run the same admission offline on manifests (for CI pipelines).
    Check(check::Args),
    /// Write a CA and a serving certificate for the webhook Service (or, with --ca-cert and
    /// --ca-key, a serving certificate signed by a kept CA).
    Certs(certs::Args),
}

fn main() -> ExitCode {
    let cli = match Cli::try_parse() {
        Ok(cli) => cli,
        Err(e) => return usage_error(&e),
    };
    serve::tls::install_default_provider();
    match cli.command {
        Command::Serve(args) => serve::run(args),
        Command::Check(args) => check::run(args),
        Command::Certs(args) => certs::run(args),
    }
}

/// clap's error, as `Cli::parse` would give it (help and version included); under `check
/// --output json` also the JSON report of it on stdout.
fn usage_error(e: &clap::Error) -> ExitCode {
    let json = e.use_stderr() && check::usage::wants_json(&std::env::args_os().collect::<Vec<_>>());
    if json {
        check::usage::print_json(&e.render().to_string());
    }
    // Prints on stderr (help and version on stdout) as `Cli::parse` does.
    let _ = e.print();
    ExitCode::from(u8::try_from(e.exit_code()).unwrap_or(2))
}
