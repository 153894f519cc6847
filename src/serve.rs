//! `zoneguard serve`: the HTTPS admission webhook (validating and mutating).
//!
//! Layout: [`args`] (flags) → [`server`] (wiring, [`start`], [`ServerHandle`]) → [`listener`]
//! (TLS + HTTP/1.1 + HTTP/2 connections) → `guard` (in-flight limit, timeout, error counts) →
//! [`routes`] (handlers, body limit) → [`review`]
//! (AdmissionReview ↔ core). Certificates live in [`tls`], rules in [`rules_store`], file watching
//! in [`watch`], probes in [`probes`], metrics in [`metrics`], HTTP error mapping in [`error`].

pub mod args;
pub mod body_budget;
pub mod error;
mod guard;
mod json_text;
pub mod listener;
pub mod logging;
pub mod metrics;
mod object;
pub mod probes;
pub mod review;
#[cfg(test)]
mod review_props;
pub mod routes;
pub mod rules_store;
pub mod server;
pub mod tls;
pub mod watch;

pub use args::Args;
pub use server::{start, Config, ServerHandle, StartError};

use std::process::ExitCode;

/// Entry point of `zoneguard serve`: exit 0 after a clean shutdown, 1 when the server failed,
/// 2 for unusable flags or files.
pub fn run(args: Args) -> ExitCode {
    let logs = logging::init(args.log_format, &args.log_level);
    let mut builder = tokio::runtime::Builder::new_multi_thread();
    match worker_threads_from_env() {
        Ok(Some(n)) => _ = builder.worker_threads(n),
        Ok(None) => {}
        Err(why) => {
            tracing::error!(error = %why, "zoneguard serve cannot start");
            return ExitCode::from(2);
        }
    }
    let runtime = match builder.enable_all().build() {
        Ok(rt) => rt,
        Err(e) => {
            tracing::error!(error = %e, "cannot start the async runtime");
            return ExitCode::from(1);
        }
    };
    runtime.spawn(logs.every(logging::FLUSH_EVERY));
    let code = runtime.block_on(serve_until_signal(args));
    runtime.shutdown_timeout(std::time::Duration::from_millis(200));
    code
}

/// The name of the environment variable that sets the runtime's worker threads (default: the
/// CPUs the process may use, its CPU limit included).
const WORKER_THREADS: &str = "TOKIO_WORKER_THREADS";

/// The worker threads [`WORKER_THREADS`] asks for (`None` when it is unset). zoneguard reads it
/// and hands the count to the runtime builder, which then does not read it: tokio's own reading
/// panics on a value that is not a positive whole number, where this names it.
fn worker_threads_from_env() -> Result<Option<usize>, String> {
    match std::env::var(WORKER_THREADS) {
        Err(std::env::VarError::NotPresent) => Ok(None),
        Ok(text) => match text.parse::<usize>() {
            Ok(n) if n > 0 => Ok(Some(n)),
            _ => Err(format!(
                "{WORKER_THREADS}={text:?} is not a positive whole number of runtime worker threads; unset it or set e.g. 2"
            )),
        },
        Err(std::env::VarError::NotUnicode(text)) => Err(format!(
            "{WORKER_THREADS}={text:?} is not valid UTF-8; unset it or set a positive whole number"
        )),
    }
}

async fn serve_until_signal(args: Args) -> ExitCode {
    let (delay, grace) = (args.tuning.shutdown_delay, args.tuning.grace_period);
    let handle = match start(args.config()).await {
        Ok(handle) => handle,
        Err(e) => {
            tracing::error!(error = %e, "zoneguard serve cannot start");
            return ExitCode::from(2);
        }
    };
    let signal = wait_for_signal().await;
    tracing::info!(
        signal,
        grace_secs = grace.as_secs_f64(),
        "shutting down: draining requests in flight"
    );
    if handle.shutdown(delay, grace).await {
        tracing::info!("all connections drained; exiting");
    }
    ExitCode::SUCCESS
}

async fn wait_for_signal() -> &'static str {
    #[cfg(unix)]
    {
        use tokio::signal::unix::{signal, SignalKind};
        if let Ok(mut term) = signal(SignalKind::terminate()) {
            return tokio::select! {
                _ = term.recv() => "SIGTERM",
                _ = tokio::signal::ctrl_c() => "SIGINT",
            };
        }
    }
    let _ = tokio::signal::ctrl_c().await;
    "SIGINT"
}
