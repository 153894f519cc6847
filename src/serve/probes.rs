//! The plain-HTTP probe port: `/healthz`, `/readyz`, `/metrics`.

use super::metrics::Metrics;
use super::rules_store::RulesStore;
use axum::extract::State;
use axum::http::{header, StatusCode};
use axum::response::IntoResponse;
use axum::routing::get;
use axum::Router;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

/// What `/readyz` needs: rules loaded, the TLS listener up, and not shutting down.
pub struct Readiness {
    pub rules: Arc<RulesStore>,
    pub tls_up: AtomicBool,
    pub shutting_down: AtomicBool,
}

impl Readiness {
    pub fn new(rules: Arc<RulesStore>) -> Self {
        Readiness {
            rules,
            tls_up: AtomicBool::new(false),
            shutting_down: AtomicBool::new(false),
        }
    }

    /// `Ok(generation)` when ready, else what is missing.
    pub fn check(&self) -> Result<u64, Vec<&'static str>> {
        let mut missing = Vec::new();
        let generation = self.rules.generation();
        if generation == 0 {
            missing.push("no valid rule set loaded");
        }
        if !self.tls_up.load(Ordering::SeqCst) {
            missing.push("TLS listener not up");
        }
        if self.shutting_down.load(Ordering::SeqCst) {
            missing.push("shutting down");
        }
        if missing.is_empty() {
            Ok(generation)
        } else {
            Err(missing)
        }
    }
}

#[derive(Clone)]
struct Probes {
    readiness: Arc<Readiness>,
    metrics: Arc<Metrics>,
}

pub fn router(readiness: Arc<Readiness>, metrics: Arc<Metrics>) -> Router {
    Router::new()
        .route("/healthz", get(|| async { "ok\n" }))
        .route("/readyz", get(readyz))
        .route("/metrics", get(metrics_text))
        .with_state(Probes { readiness, metrics })
}

async fn readyz(State(p): State<Probes>) -> impl IntoResponse {
    let mut readiness = p.readiness.check();
    let not_after = p.metrics.cert_not_after.get();
    if not_after > 0 && not_after < super::tls::unix_now() {
        const EXPIRED: &str = "the serving certificate has expired";
        match &mut readiness {
            Ok(_) => readiness = Err(vec![EXPIRED]),
            Err(missing) => missing.push(EXPIRED),
        }
    }
    match readiness {
        Ok(generation) => (
            StatusCode::OK,
            format!("ready (rules generation {generation})\n"),
        ),
        Err(missing) => (
            StatusCode::SERVICE_UNAVAILABLE,
            format!("not ready: {}\n", missing.join(", ")),
        ),
    }
}

async fn metrics_text(State(p): State<Probes>) -> impl IntoResponse {
    (
        [(
            header::CONTENT_TYPE,
            "application/openmetrics-text; version=1.0.0; charset=utf-8",
        )],
        p.metrics.encode(),
    )
}
