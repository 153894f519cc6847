//! The guard around each webhook request: a limit on requests in flight (503 beyond it), the
//! request timeout (408), the in-flight gauge, and the count of requests answered with an HTTP
//! error. It wraps the routes (`routes::Routes`), so it also covers reading the body and their
//! 404 and 405 answers.

use super::error::ApiError;
use super::metrics::{self, Metrics, RejectLabels};
use super::routes::Endpoint;
use axum::http::Request;
use axum::response::{IntoResponse, Response};
use std::convert::Infallible;
use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context, Poll};
use std::time::Duration;
use tokio::sync::Semaphore;
use tower::{Layer, Service};

/// What the guard enforces and where it counts.
struct Limits {
    permits: Semaphore,
    timeout: Duration,
    metrics: Arc<Metrics>,
}

#[derive(Clone)]
pub struct GuardLayer(Arc<Limits>);

impl GuardLayer {
    /// At most `max_in_flight` requests at once (at least one), each answered within `timeout`.
    pub fn new(max_in_flight: usize, timeout: Duration, metrics: Arc<Metrics>) -> Self {
        GuardLayer(Arc::new(Limits {
            permits: Semaphore::new(max_in_flight.max(1)),
            timeout,
            metrics,
        }))
    }
}

impl<S> Layer<S> for GuardLayer {
    type Service = Guard<S>;

    fn layer(&self, inner: S) -> Guard<S> {
        Guard {
            inner,
            limits: self.0.clone(),
        }
    }
}

#[derive(Clone)]
pub struct Guard<S> {
    inner: S,
    limits: Arc<Limits>,
}

impl<S, B> Service<Request<B>> for Guard<S>
where
    S: Service<Request<B>, Response = Response, Error = Infallible>,
    S::Future: Send + 'static,
{
    type Response = Response;
    type Error = Infallible;
    type Future = Pin<Box<dyn Future<Output = Result<Response, Infallible>> + Send>>;

    fn poll_ready(&mut self, cx: &mut Context<'_>) -> Poll<Result<(), Infallible>> {
        self.inner.poll_ready(cx)
    }

    fn call(&mut self, request: Request<B>) -> Self::Future {
        let endpoint = Endpoint::from_path(request.uri().path());
        // The inner service was made ready by `poll_ready`. Its future does nothing until it is
        // polled, which `guarded` does only under a permit and within the timeout.
        let answer = self.inner.call(request);
        let limits = self.limits.clone();
        Box::pin(async move { Ok(guarded(&limits, endpoint, answer).await) })
    }
}

async fn guarded<F>(limits: &Limits, endpoint: &'static str, answer: F) -> Response
where
    F: Future<Output = Result<Response, Infallible>>,
{
    let response = match limits.permits.try_acquire() {
        Err(_) => ApiError::Overloaded.logged(endpoint).into_response(),
        Ok(_permit) => {
            limits.metrics.in_flight.inc();
            let _gauge = InFlight(&limits.metrics);
            match tokio::time::timeout(limits.timeout, answer).await {
                Ok(Ok(response)) => response,
                Ok(Err(never)) => match never {},
                Err(_) => ApiError::Timeout.logged(endpoint).into_response(),
            }
        }
    };
    let status = response.status();
    if !status.is_success() {
        let code = metrics::status_label(status.as_u16());
        limits
            .metrics
            .rejected
            .get_or_create(&RejectLabels { endpoint, code })
            .inc();
    }
    response
}

struct InFlight<'a>(&'a Metrics);

impl Drop for InFlight<'_> {
    fn drop(&mut self) {
        self.0.in_flight.dec();
    }
}
