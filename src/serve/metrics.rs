//! Prometheus metrics. Every label value comes from a closed set: endpoint, a fixed list of
//! kinds (else `other`), operation, verdict, reason code, HTTP status class.

use prometheus_client::encoding::EncodeLabelSet;
use prometheus_client::metrics::counter::Counter;
use prometheus_client::metrics::family::Family;
use prometheus_client::metrics::gauge::Gauge;
use prometheus_client::metrics::histogram::Histogram;
use prometheus_client::registry::Registry;
use std::sync::atomic::AtomicU64;
use std::time::{SystemTime, UNIX_EPOCH};
use zoneguard_core::verdict::Reason;

/// Kinds that get their own label value; anything else is `other`.
pub const KINDS: [&str; 12] = [
    "Ingress",
    "Service",
    "Gateway",
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

pub fn kind_label(kind: &str) -> &'static str {
    KINDS
        .iter()
        .copied()
        .find(|k| *k == kind)
        .unwrap_or("other")
}

pub fn operation_label(op: &str) -> &'static str {
    match op {
        "CREATE" => "CREATE",
        "UPDATE" => "UPDATE",
        "DELETE" => "DELETE",
        "CONNECT" => "CONNECT",
        _ => "other",
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
    pub requests: Family<RequestLabels, Counter>,
    pub violations: Family<ViolationLabels, Counter>,
    pub duration: HistogramFamily,
    pub rejected: Family<RejectLabels, Counter>,
    pub in_flight: Gauge,
    pub rules_generation: Gauge,
    pub rules_reload_errors: Family<SourceLabels, Counter>,
    pub rules_last_load: Gauge<f64, AtomicU64>,
    pub cert_not_after: Gauge,
    pub cert_reloads: Family<ResultLabels, Counter>,
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
            requests: Family::default(),
            violations: Family::default(),
            duration: Family::new_with_constructor(latency_histogram as fn() -> Histogram),
            rejected: Family::default(),
            in_flight: Gauge::default(),
            rules_generation: Gauge::default(),
            rules_reload_errors: Family::default(),
            rules_last_load: Gauge::default(),
            cert_not_after: Gauge::default(),
            cert_reloads: Family::default(),
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
            "tls_certificate_not_after_timestamp_seconds",
            "Unix time at which the serving certificate expires",
            self.cert_not_after.clone(),
        );
        r.register(
            "tls_certificate_reloads",
            "Serving certificate reloads, by result",
            self.cert_reloads.clone(),
        );
    }

    /// Create the fixed label sets up front so dashboards see zeros, not gaps.
    fn preset(&self) {
        for endpoint in ["validate", "mutate"] {
            for reason in Reason::ALL {
                drop(self.violations.get_or_create(&ViolationLabels {
                    endpoint,
                    reason: reason.as_str(),
                }));
            }
            drop(self.duration.get_or_create(&EndpointLabels { endpoint }));
        }
        for source in ["file", "configmap"] {
            drop(
                self.rules_reload_errors
                    .get_or_create(&SourceLabels { source }),
            );
        }
        for result in ["success", "error"] {
            drop(self.cert_reloads.get_or_create(&ResultLabels { result }));
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

    pub fn rules_loaded(&self, generation: u64, at: SystemTime) {
        self.rules_generation
            .set(i64::try_from(generation).unwrap_or(i64::MAX));
        self.rules_last_load.set(unix_seconds(at));
    }
}

pub fn unix_seconds(at: SystemTime) -> f64 {
    at.duration_since(UNIX_EPOCH)
        .map(|d| d.as_secs_f64())
        .unwrap_or(0.0)
}
