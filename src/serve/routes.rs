//! The webhook's HTTP surface: `POST /validate`, `POST /mutate`. [`Routes`] tells the two apart;
//! the [`Webhook`] reads the body (up to the limit), parses the review, asks the core, answers and
//! counts the request. The in-flight limit and timeout are the request guard's (`guard`), around
//! the routes, and errors map to HTTP in `error`.

use super::body_budget::BodyBudget;
use super::error::ApiError;
use super::guard::{Guard, GuardLayer};
use super::metrics::{self, Metrics, RequestKey, Verdict};
use super::review::{self, Review};
use super::rules_store::{sources_in, LoadedRules, RulesStore};
use crate::iam::Resolver;
use axum::body::Bytes;
use axum::http::{header, HeaderValue, Method, Request, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::BoxError;
use hyper::body::Body as HttpBody;
use std::convert::Infallible;
use std::fmt::Write as _;
use std::future::Future;
use std::panic::AssertUnwindSafe;
use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context, Poll};
use std::time::{Duration, Instant};
use tower::{Layer as _, Service};
use zoneguard_core::admission::{self, Decision};
use zoneguard_core::irsa::Facts;
use zoneguard_core::rules::Enforcement;

#[derive(Debug, Clone, Copy)]
pub struct RequestLimits {
    pub body_limit: usize,
    /// Request-body bytes held at once, all requests together (`body_budget`).
    pub body_budget: usize,
    pub max_in_flight: usize,
    pub request_timeout: Duration,
    /// Lines of violations in a denial message before "and N more".
    pub max_message_lines: usize,
}

pub struct Webhook {
    pub rules: Arc<RulesStore>,
    /// Live IAM facts for ServiceAccounts (`irsa.source: iam`); a no-op otherwise.
    pub resolver: Resolver,
    pub metrics: Arc<Metrics>,
    pub limits: RequestLimits,
    pub budget: BodyBudget,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Endpoint {
    Validate,
    Mutate,
}

impl Endpoint {
    pub fn label(self) -> &'static str {
        metrics::ENDPOINTS[self.index()]
    }

    /// Its position in [`metrics::ENDPOINTS`].
    pub fn index(self) -> usize {
        match self {
            Endpoint::Validate => 0,
            Endpoint::Mutate => 1,
        }
    }

    /// The endpoint served at `path`, if any.
    pub fn of_path(path: &str) -> Option<Endpoint> {
        match path {
            "/validate" => Some(Endpoint::Validate),
            "/mutate" => Some(Endpoint::Mutate),
            _ => None,
        }
    }

    /// The `endpoint` label of a request for `path`.
    pub fn from_path(path: &str) -> &'static str {
        Endpoint::of_path(path).map_or("other", Endpoint::label)
    }
}

/// The routes behind the request guard: what the HTTPS listener serves.
pub fn service(
    rules: Arc<RulesStore>,
    metrics: Arc<Metrics>,
    limits: RequestLimits,
    resolver: Resolver,
) -> Guard<Routes> {
    let guard = GuardLayer::new(
        limits.max_in_flight,
        limits.request_timeout,
        metrics.clone(),
    );
    let budget = BodyBudget::new(limits.body_budget, metrics.in_flight_body_bytes.clone());
    guard.layer(Routes(Arc::new(Webhook {
        rules,
        resolver,
        metrics,
        limits,
        budget,
    })))
}

/// The two routes, told apart by path and method. Two fixed paths need no `axum::Router`, which
/// clones and boxes a service and builds an extensions map for every request.
#[derive(Clone)]
pub struct Routes(Arc<Webhook>);

impl<B> Service<Request<B>> for Routes
where
    B: HttpBody<Data = Bytes> + Send + 'static,
    B::Error: Into<BoxError>,
{
    type Response = Response;
    type Error = Infallible;
    type Future = Pin<Box<dyn Future<Output = Result<Response, Infallible>> + Send>>;

    fn poll_ready(&mut self, _: &mut Context<'_>) -> Poll<Result<(), Infallible>> {
        Poll::Ready(Ok(()))
    }

    fn call(&mut self, request: Request<B>) -> Self::Future {
        let hook = self.0.clone();
        Box::pin(async move { Ok(hook.answer(request).await) })
    }
}

/// An AdmissionReview answer's JSON text.
struct Answer(Vec<u8>);

impl IntoResponse for Answer {
    fn into_response(self) -> Response {
        let json = HeaderValue::from_static("application/json");
        ([(header::CONTENT_TYPE, json)], self.0).into_response()
    }
}

impl Webhook {
    /// 404 for another path, 405 (`Allow: POST`) for another method; else the admission.
    async fn answer<B>(&self, request: Request<B>) -> Response
    where
        B: HttpBody<Data = Bytes>,
        B::Error: Into<BoxError>,
    {
        let Some(endpoint) = Endpoint::of_path(request.uri().path()) else {
            refused(request.uri().path(), StatusCode::NOT_FOUND, "no such path");
            return StatusCode::NOT_FOUND.into_response();
        };
        if request.method() != Method::POST {
            let path = request.uri().path();
            refused(path, StatusCode::METHOD_NOT_ALLOWED, request.method());
            let allow = [(header::ALLOW, HeaderValue::from_static("POST"))];
            return (StatusCode::METHOD_NOT_ALLOWED, allow).into_response();
        }
        let read = self
            .budget
            .read(request.into_body(), self.limits.body_limit);
        let (body, _charge) = match read.await {
            Ok(read) => read,
            Err(e) => return e.logged(endpoint.label()).into_response(),
        };
        if body.len() < LARGE_BODY || !on_several_threads() {
            return self
                .admit(endpoint, &body)
                .await
                .map_err(|e| e.logged(endpoint.label()))
                .into_response();
        }
        // Judging a multi-megabyte review takes a worker for up to a few hundred milliseconds:
        // the worker's other tasks are handed to another thread meanwhile.
        let runtime = tokio::runtime::Handle::current();
        tokio::task::block_in_place(|| runtime.block_on(self.admit(endpoint, &body)))
            .map_err(|e| e.logged(endpoint.label()))
            .into_response()
    }

    async fn admit(&self, endpoint: Endpoint, body: &Bytes) -> Result<Answer, ApiError> {
        let started = Instant::now();
        let review = review::parse(body)?;
        let loaded = self.rules.current().ok_or(ApiError::RulesNotLoaded)?;
        let mut decision = self.decide(endpoint, &review, &loaded, body).await?;
        decision.fit_warnings(self.limits.max_message_lines);
        let response = review::respond(&review, &decision, self.limits.max_message_lines);
        let answer = response.to_json();
        // The reason codes, as the answer's audit annotations carry them (none without one).
        let reasons = response.response.audit_annotations.as_ref();
        self.record(
            endpoint,
            &review,
            &decision,
            reasons.map_or("", |a| a.reasons.as_str()),
            started.elapsed(),
            loaded.generation,
        );
        Ok(Answer(answer))
    }

    /// The core's decision on `review`, read from `body`.
    async fn decide(
        &self,
        endpoint: Endpoint,
        review: &Review<'_>,
        loaded: &Arc<LoadedRules>,
        body: &Bytes,
    ) -> Result<Decision, ApiError> {
        let request = review.core_request();
        match endpoint {
            Endpoint::Mutate => engine(review, || admission::mutate(&loaded.rules, &request)),
            Endpoint::Validate if is_rule_configmap(&request) => {
                self.judge_rule_configmap(body.clone(), loaded.clone())
                    .await
            }
            Endpoint::Validate => {
                let facts = self.resolver.resolve(&loaded.rules, &request).await;
                engine(review, || {
                    admission::validate_full(&loaded.rules, &request, &[], &facts)
                })
            }
        }
    }

    /// A rule ConfigMap is judged together with the other rule ConfigMaps: reading them all
    /// takes tens of milliseconds, up to a second for a large rule set, so it is done on tokio's
    /// blocking pool, where it holds up no other admission. The review is read again there from
    /// the same bytes.
    async fn judge_rule_configmap(
        &self,
        body: Bytes,
        loaded: Arc<LoadedRules>,
    ) -> Result<Decision, ApiError> {
        let sources = self.rules.rule_sources();
        let judge = move || {
            let review = review::parse(&body)?;
            let request = review.core_request();
            let others = sources_in(&sources);
            engine(&review, || {
                admission::validate_full(&loaded.rules, &request, &others, &Facts::none())
            })
        };
        tokio::task::spawn_blocking(judge).await.map_err(|e| {
            tracing::error!(error = %e, "the review of a rule ConfigMap did not finish");
            ApiError::Internal
        })?
    }

    // Kept out of line so that `scripts/instructions.sh` can count it in the LTO build.
    #[inline(never)]
    fn record(
        &self,
        endpoint: Endpoint,
        review: &Review,
        decision: &Decision,
        reasons: &str,
        took: Duration,
        generation: u64,
    ) {
        let verdict = verdict(decision);
        let key = RequestKey::new(
            endpoint.index(),
            &review.kind.kind,
            &review.operation,
            verdict,
        );
        self.metrics.count_request(key);
        for violation in decision.counted() {
            self.metrics
                .count_violation(endpoint.index(), violation.reason);
        }
        self.metrics
            .observe_duration(endpoint.index(), took.as_secs_f64());
        let endpoint = endpoint.label();
        let verdict = verdict.as_str();
        // A request with a violation (denied, warned, audited) is logged at info; the rest
        // (admitted, patched, skipped) at debug: formatting the line costs about as much CPU
        // as deciding the request, and the metrics count every request.
        let noteworthy = decision.counted().next().is_some();
        let violations = match noteworthy {
            true => violation_lines(decision, self.limits.max_message_lines),
            false => String::new(),
        };
        macro_rules! admission_event {
            ($level:expr) => {
                tracing::event!(
                    target: super::logging::ADMISSION_TARGET,
                    $level,
                    endpoint,
                    uid = review.uid.as_str(),
                    kind = review.kind.kind.as_str(),
                    namespace = review.namespace(),
                    name = review.shown_name(),
                    operation = review.operation.as_str(),
                    dry_run = review.is_dry_run(),
                    verdict,
                    reasons,
                    user = review.username().as_ref(),
                    violations = violations.as_str(),
                    patched = !decision.patch.is_empty(),
                    duration_ms = took.as_secs_f64() * 1000.0,
                    generation,
                    "admission"
                )
            };
        }
        if noteworthy {
            admission_event!(tracing::Level::INFO);
        } else {
            admission_event!(tracing::Level::DEBUG);
        }
    }
}

/// Logs a request answered with an HTTP error rather than a review: a webhook configuration
/// with a wrong path or a client that is not an API server shows here, not only in a metric.
fn refused(path: &str, status: StatusCode, why: impl std::fmt::Display) {
    tracing::warn!(path, status = status.as_u16(), error = %why, "request refused");
}

/// What the log line of a request with violations says of them: the messages of the first `max`
/// (at least one), `; `-separated, then how many more there were.
fn violation_lines(decision: &Decision, max: usize) -> String {
    let mut text = String::new();
    let mut all = decision.counted();
    for (i, violation) in all.by_ref().take(max.max(1)).enumerate() {
        if i > 0 {
            text.push_str("; ");
        }
        // Writing into a `String` cannot fail.
        let _ = write!(text, "{violation}");
    }
    let rest = all.count();
    if rest > 0 {
        let _ = write!(text, "; and {rest} more");
    }
    text
}

/// Bodies of this many bytes and more are judged off the async workers (`Webhook::answer`); the
/// reviews of ordinary objects are a few KiB.
const LARGE_BODY: usize = 256 * 1024;

/// Whether the runtime has several worker threads, so that one can be lent to a long judgement
/// (`block_in_place` is not available on a single-threaded runtime, such as the tests' own).
fn on_several_threads() -> bool {
    tokio::runtime::Handle::current().runtime_flavor() == tokio::runtime::RuntimeFlavor::MultiThread
}

/// The core's decision from `decide`; a panic in it is logged with the review's uid and kind,
/// and answered 500, never taken for a verdict.
fn engine(review: &Review<'_>, decide: impl FnOnce() -> Decision) -> Result<Decision, ApiError> {
    std::panic::catch_unwind(AssertUnwindSafe(decide)).map_err(|_| {
        tracing::error!(uid = %review.uid, kind = %review.kind.kind, "the rules engine failed on this request");
        ApiError::Internal
    })
}

/// A write of a ConfigMap labelled as zoneguard's rules: the only review that reads rule sets.
fn is_rule_configmap(request: &admission::Request<'_>) -> bool {
    request.group.is_empty()
        && request.kind == "ConfigMap"
        && request.object.is_some_and(admission::is_rules_configmap)
}

/// `denied`; `skipped` (kind/operation not checked); `warned` / `audited` (admitted with
/// violations under warn / audit enforcement); else `allowed`.
pub fn verdict(decision: &Decision) -> Verdict {
    if !decision.allowed {
        Verdict::Denied
    } else if !decision.checked {
        Verdict::Skipped
    } else if decision.counted().next().is_none() {
        Verdict::Allowed
    } else if decision.enforcement == Enforcement::Audit {
        Verdict::Audited
    } else {
        Verdict::Warned
    }
}
