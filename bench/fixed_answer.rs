//! The floor of zoneguard's own HTTP stack, for `scripts/bench.sh`: the same TLS listener
//! (rustls, hyper HTTP/1.1 + HTTP/2) and the same dispatch on path and method, reading the body
//! of every `POST /validate` and `POST /mutate` and answering it with one fixed AdmissionReview
//! response, as the nginx baseline does. No review
//! is decoded and no rule is looked at: what zoneguard costs above this is the admission work;
//! what this costs above nginx is the stack.
//!
//! It takes `zoneguard serve`'s own flags and builds its listener from the same `Config`, so the
//! certificate, listen address and connection timeouts are those a `zoneguard serve` with the
//! same flags would use (flags about rules, probes and requests are accepted and unused; a rules
//! source is required, as `serve` requires one):
//!
//!   cargo run --release --example fixed_answer -- --listen <addr> --tls-cert <crt> --tls-key <key> --rules <file>
//!
//! (`scripts/bench.sh` builds and starts it beside zoneguard and nginx.)

use axum::http::{header, Method, Request, StatusCode};
use axum::response::{IntoResponse, Response};
use http_body_util::BodyExt as _;
use hyper::body::Incoming;
use std::convert::Infallible;
use std::sync::Arc;
use tokio_rustls::TlsAcceptor;
use tokio_util::sync::CancellationToken;
use tokio_util::task::TaskTracker;
use zoneguard::serve::listener::HttpsServer;
use zoneguard::serve::routes::Endpoint;
use zoneguard::serve::tls::{self, CertStore};

/// zoneguard's own allocator, as `zoneguard serve` runs with: the floor is its stack, allocations
/// included.
#[global_allocator]
static ALLOCATOR: zoneguard::allocator::Allocator = zoneguard::allocator::Allocator;

const ANSWER: &str = r#"{"apiVersion":"admission.k8s.io/v1","kind":"AdmissionReview","response":{"uid":"5e1f0000-0000-4000-8000-000000000001","allowed":true}}"#;

/// As zoneguard's routes answer, without the admission: 404 for another path, 405 for another
/// method, else the body read whole and the fixed answer.
async fn answer(request: Request<Incoming>) -> Result<Response, Infallible> {
    if Endpoint::of_path(request.uri().path()).is_none() {
        return Ok(StatusCode::NOT_FOUND.into_response());
    }
    if request.method() != Method::POST {
        return Ok(StatusCode::METHOD_NOT_ALLOWED.into_response());
    }
    if request.into_body().collect().await.is_err() {
        return Ok(StatusCode::BAD_REQUEST.into_response());
    }
    Ok(([(header::CONTENT_TYPE, "application/json")], ANSWER).into_response())
}

/// `zoneguard serve`'s flags.
#[derive(clap::Parser)]
struct Cli {
    #[command(flatten)]
    serve: zoneguard::serve::Args,
}

#[tokio::main]
async fn main() -> anyhow::Result<()> {
    let config = <Cli as clap::Parser>::parse().serve.config();
    let certs = CertStore::load(&config.tls)?;
    let tls = tls::server_config(Arc::new(certs))?;
    let server = HttpsServer {
        listener: tokio::net::TcpListener::bind(config.listen).await?,
        acceptor: TlsAcceptor::from(Arc::new(tls)),
        service: tower::service_fn(answer),
        limits: config.connections,
        shutdown: CancellationToken::new(),
        connections: TaskTracker::new(),
    };
    // Stop on Ctrl-C / SIGINT (as `scripts/instructions.sh` stops it, so callgrind writes its profile).
    let stop = server.shutdown.clone();
    tokio::spawn(async move {
        let _ = tokio::signal::ctrl_c().await;
        stop.cancel();
    });
    server.run().await;
    Ok(())
}
