//! Prometheus metrics. Every label value comes from a closed set: endpoint, a fixed list of
//! kinds (else `other`), operation, verdict, reason code, HTTP status class.

use prometheus_client::encoding::EncodeLabelSet;
use prometheus_client::metrics::counter::Counter;
use prometheus_client::metrics::family::Family;
use prometheus_client::metrics::gauge::Gauge;
use prometheus_client::metrics::histogram::Histogram;
use prometheus_client::registry::Registry;
use std::sync::atomic::AtomicU64;
use std::sync::OnceLock;
use std::time::{SystemTime, UNIX_EPOCH};
use zoneguard_core::verdict::Reason;

/// Kinds that get their own label value; anything else is `other`.
pub const KINDS: [&str; 13] = [
    "Ingress",
    "Service",
    "Gateway",
    "ListenerSet",
    "HTTPRoute",
    "GRPCRoute",
    "TLSRoute",
    "TCPRoute",
    "UDPRoute",
    "DNSEndpoint",
    "ServiceAccount",
    "ConfigMap",
    "other",
];

pub const ENDPOINTS: [&str; 2] = ["validate", "mutate"];

pub const OPERATIONS: [&str; 5] = ["CREATE", "UPDATE", "DELETE", "CONNECT", "other"];

/// Where `value` is in `labels` (a closed set ending in `other`), else the `other` slot.
fn position(labels: &[&str], value: &str) -> usize {
    let other = labels.len() - 1;
    labels[..other]
        .iter()
        .position(|l| *l == value)
        .unwrap_or(other)
}

/// What happened to an admission request, the `verdict` label.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Verdict {
    Allowed,
    Denied,
    Warned,
    Audited,
    Skipped,
}

impl Verdict {
    pub const ALL: [Verdict; 5] = [
        Verdict::Allowed,
        Verdict::Denied,
        Verdict::Warned,
        Verdict::Audited,
        Verdict::Skipped,
    ];

    pub fn as_str(self) -> &'static str {
        match self {
            Verdict::Allowed => "allowed",
            Verdict::Denied => "denied",
            Verdict::Warned => "warned",
            Verdict::Audited => "audited",
            Verdict::Skipped => "skipped",
        }
    }
}

/// One admission request's labels, as positions in [`ENDPOINTS`], [`KINDS`] and
/// [`OPERATIONS`] (always in range: built only by [`RequestKey::new`]): counting a request by
/// them hashes nothing.
#[derive(Debug, Clone, Copy)]
pub struct RequestKey {
    endpoint: usize,
    kind: usize,
    operation: usize,
    verdict: Verdict,
}

impl RequestKey {
    /// `endpoint` is a position in [`ENDPOINTS`]; an unknown kind or operation is `other`.
    pub fn new(endpoint: usize, kind: &str, operation: &str, verdict: Verdict) -> Self {
        RequestKey {
            endpoint: endpoint.min(ENDPOINTS.len() - 1),
            kind: position(&KINDS, kind),
            operation: position(&OPERATIONS, operation),
            verdict,
        }
    }

    const SLOTS: usize = ENDPOINTS.len() * KINDS.len() * OPERATIONS.len() * Verdict::ALL.len();

    fn slot(self) -> usize {
        let kinds = self.endpoint * KINDS.len() + self.kind;
        let operations = kinds * OPERATIONS.len() + self.operation;
        operations * Verdict::ALL.len() + self.verdict as usize
    }

    fn labels(self) -> RequestLabels {
        RequestLabels {
            endpoint: ENDPOINTS[self.endpoint],
            kind: KINDS[self.kind],
            operation: OPERATIONS[self.operation],
            verdict: self.verdict.as_str(),
        }
    }
}

pub fn status_label(code: u16) -> &'static str {
    match code {
        400 => "400",
        404 => "404",
        405 => "405",
        408 => "408",
        413 => "413",
        500 => "500",
        503 => "503",
        _ => "other",
    }
}

#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
pub struct RequestLabels {
    pub endpoint: &'static str,
    pub kind: &'static str,
    pub operation: &'static str,
    pub verdict: &'static str,
}

#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
pub struct ViolationLabels {
    pub endpoint: &'static str,
    pub reason: &'static str,
}

#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
pub struct EndpointLabels {
    pub endpoint: &'static str,
}

#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
pub struct RejectLabels {
    pub endpoint: &'static str,
    pub code: &'static str,
}

#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
pub struct SourceLabels {
    pub source: &'static str,
}

#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
pub struct ResultLabels {
    pub result: &'static str,
}

type HistogramFamily = Family<EndpointLabels, Histogram, fn() -> Histogram>;

fn latency_histogram() -> Histogram {
    Histogram::new([
        0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0,
    ])
}

pub struct Metrics {
    registry: Registry,
    /// The `requests` counter of each label set by [`RequestKey::slot`], created in the family
    /// (and so exported) when it first counts.
    request_counters: Box<[OnceLock<Counter>]>,
    /// The `violations` counter of each endpoint and reason, by position in [`ENDPOINTS`] and
    /// `Reason::ALL`.
    violation_counters: Box<[Counter]>,
    /// The `duration` histogram of each endpoint.
    durations: Box<[Histogram]>,
    pub requests: Family<RequestLabels, Counter>,
    pub violations: Family<ViolationLabels, Counter>,
    pub duration: HistogramFamily,
    pub rejected: Family<RejectLabels, Counter>,
    pub in_flight: Gauge,
    pub in_flight_body_bytes: Gauge,
    pub rules_generation: Gauge,
    pub rules_reload_errors: Family<SourceLabels, Counter>,
    pub rules_last_load: Gauge<f64, AtomicU64>,
    pub rules_warnings: Gauge,
    pub cert_not_after: Gauge,
    pub cert_reloads: Family<ResultLabels, Counter>,
    pub inject_condition_updates: Family<ResultLabels, Counter>,
}

impl Default for Metrics {
    fn default() -> Self {
        Self::new()
    }
}

impl Metrics {
    /// The registry, for metrics owned by other parts (IAM lookups) to register into.
    pub fn registry_mut(&mut self) -> &mut Registry {
        &mut self.registry
    }

    pub fn new() -> Self {
        let mut m = Metrics {
            registry: Registry::with_prefix("zoneguard"),
            request_counters: (0..RequestKey::SLOTS).map(|_| OnceLock::new()).collect(),
            violation_counters: Box::default(),
            durations: Box::default(),
            requests: Family::default(),
            violations: Family::default(),
            duration: Family::new_with_constructor(latency_histogram as fn() -> Histogram),
            rejected: Family::default(),
            in_flight: Gauge::default(),
            in_flight_body_bytes: Gauge::default(),
            rules_generation: Gauge::default(),
            rules_reload_errors: Family::default(),
            rules_last_load: Gauge::default(),
            rules_warnings: Gauge::default(),
            cert_not_after: Gauge::default(),
            cert_reloads: Family::default(),
            inject_condition_updates: Family::default(),
        };
        m.register();
        m.preset();
        m
    }

    fn register(&mut self) {
        let r = &mut self.registry;
        r.register(
            "admission_requests",
            "Admission reviews answered, by endpoint, kind, operation and verdict",
            self.requests.clone(),
        );
        r.register(
            "admission_violations",
            "Violations found, by endpoint and reason code (all enforcement modes)",
            self.violations.clone(),
        );
        r.register(
            "admission_duration_seconds",
            "Time to answer one admission review",
            self.duration.clone(),
        );
        r.register(
            "http_rejected_requests",
            "Webhook requests answered with an HTTP error, by endpoint and status code",
            self.rejected.clone(),
        );
        r.register(
            "admission_in_flight_requests",
            "Webhook requests being handled now",
            self.in_flight.clone(),
        );
        r.register(
            "admission_in_flight_body_bytes",
            "Request-body bytes held by the requests being handled now (at most --max-in-flight-body-bytes)",
            self.in_flight_body_bytes.clone(),
        );
        r.register(
            "rules_generation",
            "Generation of the rule set in force (0 = none loaded yet)",
            self.rules_generation.clone(),
        );
        r.register(
            "rules_reload_errors",
            "Rule loads refused (unreadable or invalid), by source",
            self.rules_reload_errors.clone(),
        );
        r.register(
            "rules_last_load_timestamp_seconds",
            "Unix time of the last successful rule load",
            self.rules_last_load.clone(),
        );
        r.register(
            "rules_warnings",
            "Warnings about the rule set in force: settings that are valid but cannot do what they look meant to (zoneguard check lists them)",
            self.rules_warnings.clone(),
        );
        r.register(
            "tls_certificate_not_after_timestamp_seconds",
            "Unix time at which the serving certificate expires",
            self.cert_not_after.clone(),
        );
        r.register(
            "tls_certificate_reloads",
            "Serving certificate reloads, by result",
            self.cert_reloads.clone(),
        );
        r.register(
            "inject_condition_updates",
            "Updates of the mutating webhook's inject-rules match condition, by result (updated, refused, error)",
            self.inject_condition_updates.clone(),
        );
    }

    /// Create the fixed label sets up front so dashboards see zeros, not gaps.
    fn preset(&mut self) {
        // Endpoint by endpoint, each reason in `Reason::ALL` order: the layout `count_violation`
        // indexes.
        let mut violations = Vec::new();
        let mut durations = Vec::new();
        for endpoint in ENDPOINTS {
            for reason in Reason::ALL {
                let labels = ViolationLabels {
                    endpoint,
                    reason: reason.as_str(),
                };
                violations.push(self.violations.get_or_create(&labels).clone());
            }
            let labels = EndpointLabels { endpoint };
            durations.push(self.duration.get_or_create(&labels).clone());
        }
        self.violation_counters = violations.into();
        self.durations = durations.into();
        for source in ["file", "configmap"] {
            drop(
                self.rules_reload_errors
                    .get_or_create(&SourceLabels { source }),
            );
        }
        for result in ["success", "error"] {
            drop(self.cert_reloads.get_or_create(&ResultLabels { result }));
        }
        for result in ["updated", "refused", "error"] {
            drop(
                self.inject_condition_updates
                    .get_or_create(&ResultLabels { result }),
            );
        }
    }

    /// Counts one admission request.
    pub fn count_request(&self, key: RequestKey) {
        if let Some(cell) = self.request_counters.get(key.slot()) {
            cell.get_or_init(|| self.requests.get_or_create(&key.labels()).clone())
                .inc();
        }
    }

    /// Counts one violation found by `endpoint` (a position in [`ENDPOINTS`]).
    pub fn count_violation(&self, endpoint: usize, reason: Reason) {
        let Some(at) = Reason::ALL.iter().position(|r| *r == reason) else {
            return;
        };
        if let Some(counter) = self
            .violation_counters
            .get(endpoint * Reason::ALL.len() + at)
        {
            counter.inc();
        }
    }

    /// Records how long `endpoint` (a position in [`ENDPOINTS`]) took to answer.
    pub fn observe_duration(&self, endpoint: usize, seconds: f64) {
        if let Some(histogram) = self.durations.get(endpoint) {
            histogram.observe(seconds);
        }
    }

    /// The OpenMetrics text exposition.
    pub fn encode(&self) -> String {
        let mut out = String::new();
        if prometheus_client::encoding::text::encode(&mut out, &self.registry).is_err() {
            out.clear();
        }
        out
    }

    /// A rule set of `generation` put in force `at`, with `warnings` warnings about it.
    pub fn rules_loaded(&self, generation: u64, at: SystemTime, warnings: usize) {
        self.rules_generation
            .set(i64::try_from(generation).unwrap_or(i64::MAX));
        self.rules_last_load.set(unix_seconds(at));
        self.rules_warnings
            .set(i64::try_from(warnings).unwrap_or(i64::MAX));
    }
}

pub fn unix_seconds(at: SystemTime) -> f64 {
    at.duration_since(UNIX_EPOCH)
        .map(|d| d.as_secs_f64())
        .unwrap_or(0.0)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_request_label_set_has_a_slot_of_its_own() {
        let mut seen = vec![false; RequestKey::SLOTS];
        for endpoint in 0..ENDPOINTS.len() {
            for kind in KINDS {
                for operation in OPERATIONS {
                    for verdict in Verdict::ALL {
                        let slot = RequestKey::new(endpoint, kind, operation, verdict).slot();
                        assert!(!seen[slot], "{endpoint} {kind} {operation} {verdict:?}");
                        seen[slot] = true;
                    }
                }
            }
        }
        assert!(seen.iter().all(|s| *s));
    }

    #[test]
    fn a_request_is_counted_under_its_labels_and_unknown_values_as_other() {
        use Verdict::{Allowed, Audited, Denied, Skipped};
        // (endpoint, kind, operation, verdict; the labels it is counted under)
        let table = [
            (
                0,
                "Ingress",
                "CREATE",
                Denied,
                ["validate", "Ingress", "CREATE"],
            ),
            (
                1,
                "Service",
                "UPDATE",
                Allowed,
                ["mutate", "Service", "UPDATE"],
            ),
            (1, "Pod", "PATCH", Skipped, ["mutate", "other", "other"]),
            (
                7,
                "ServiceAccount",
                "DELETE",
                Audited,
                ["mutate", "ServiceAccount", "DELETE"],
            ),
        ];
        let metrics = Metrics::new();
        for (endpoint, kind, operation, verdict, _) in table {
            let key = RequestKey::new(endpoint, kind, operation, verdict);
            metrics.count_request(key);
            metrics.count_request(key);
        }
        let text = metrics.encode();
        for (.., verdict, [endpoint, kind, operation]) in table {
            let verdict = verdict.as_str();
            let series = format!("zoneguard_admission_requests_total{{endpoint=\"{endpoint}\",kind=\"{kind}\",operation=\"{operation}\",verdict=\"{verdict}\"}} 2\n");
            assert!(text.contains(&series), "{series} in\n{text}");
        }
    }

    #[test]
    fn violations_and_durations_are_counted_per_endpoint() {
        let metrics = Metrics::new();
        metrics.count_violation(1, Reason::RoleNotTrusted);
        metrics.count_violation(5, Reason::RoleNotTrusted);
        metrics.observe_duration(0, 0.002);
        metrics.observe_duration(9, 0.002);
        let text = metrics.encode();
        for series in [
            r#"zoneguard_admission_violations_total{endpoint="mutate",reason="role-not-trusted"} 1"#,
            r#"zoneguard_admission_violations_total{endpoint="validate",reason="role-not-trusted"} 0"#,
            r#"zoneguard_admission_duration_seconds_count{endpoint="validate"} 1"#,
            r#"zoneguard_admission_duration_seconds_count{endpoint="mutate"} 0"#,
        ] {
            assert!(text.contains(series), "{series} in\n{text}");
        }
    }
}
