//! The floor of zoneguard's own HTTP stack, for `scripts/bench.sh`: the same TLS listener
//! (rustls, hyper HTTP/1.1 + HTTP/2, axum router, the same connection timeouts) answering every
//! `POST /validate` and `POST /mutate` with one fixed AdmissionReview response, as the nginx
//! baseline does. No review is decoded and no rule is looked at: what zoneguard costs above this
//! is the admission work; what this costs above nginx is the stack.
//!
//!   cargo run --release --example fixed_answer -- <listen> <tls.crt> <tls.key>
//!
//! (`scripts/bench.sh` builds and starts it beside zoneguard and nginx.)

use axum::body::Bytes;
use axum::http::header;
use axum::response::IntoResponse;
use axum::routing::post;
use axum::Router;
use std::time::Duration;
use tokio_rustls::TlsAcceptor;
use tokio_util::sync::CancellationToken;
use tokio_util::task::TaskTracker;
use zoneguard::serve::listener::{ConnLimits, HttpsServer};
use zoneguard::serve::tls::{self, CertStore, TlsSource};

const ANSWER: &str = r#"{"apiVersion":"admission.k8s.io/v1","kind":"AdmissionReview","response":{"uid":"5e1f0000-0000-4000-8000-000000000001","allowed":true}}"#;

async fn answer(_body: Bytes) -> impl IntoResponse {
    ([(header::CONTENT_TYPE, "application/json")], ANSWER)
}

#[tokio::main]
async fn main() -> anyhow::Result<()> {
    let mut args = std::env::args().skip(1);
    let usage = "usage: fixed_answer <listen> <tls.crt> <tls.key>";
    let listen = args.next().ok_or_else(|| anyhow::anyhow!(usage))?;
    let cert = args.next().ok_or_else(|| anyhow::anyhow!(usage))?.into();
    let key = args.next().ok_or_else(|| anyhow::anyhow!(usage))?.into();
    let certs = CertStore::load(&TlsSource::Files { cert, key })?;
    let config = tls::server_config(std::sync::Arc::new(certs))?;
    let server = HttpsServer {
        listener: tokio::net::TcpListener::bind(&listen).await?,
        acceptor: TlsAcceptor::from(std::sync::Arc::new(config)),
        router: Router::new()
            .route("/validate", post(answer))
            .route("/mutate", post(answer)),
        limits: ConnLimits {
            handshake_timeout: Duration::from_secs(10),
            header_read_timeout: Duration::from_secs(10),
            idle_timeout: Duration::from_secs(90),
        },
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
