//! Metrics of the IAM lookups: cache hits and misses, IAM errors, call latency. Every label
//! value comes from a closed set. The server registers them in its registry with
//! [`IamMetrics::register`].

use prometheus_client::encoding::EncodeLabelSet;
use prometheus_client::metrics::counter::Counter;
use prometheus_client::metrics::family::Family;
use prometheus_client::metrics::histogram::Histogram;
use prometheus_client::registry::Registry;

/// What was looked up: `role`, `permissions`, `provider`, `identity`.
#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
pub struct LookupLabels {
    pub lookup: &'static str,
}

/// One IAM/STS operation (`GetRole`, …).
#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
pub struct OperationLabels {
    pub operation: &'static str,
}

/// A failed call: the operation and a closed error class (`timeout`, `throttled`,
/// `access_denied`, `not_found`, `unreachable`, `credentials`, `other`).
#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
pub struct ErrorLabels {
    pub operation: &'static str,
    pub error: &'static str,
}

type LatencyFamily = Family<OperationLabels, Histogram, fn() -> Histogram>;

fn latency_histogram() -> Histogram {
    Histogram::new([
        0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0,
    ])
}

pub const LOOKUPS: [&str; 4] = ["role", "permissions", "provider", "identity"];
pub const OPERATIONS: [&str; 8] = [
    "GetRole",
    "ListRolePolicies",
    "GetRolePolicy",
    "ListAttachedRolePolicies",
    "GetPolicy",
    "GetPolicyVersion",
    "GetOpenIDConnectProvider",
    "GetCallerIdentity",
];

/// Counters and histograms of the IAM layer; cheap to clone (shared handles).
#[derive(Clone, Debug)]
pub struct IamMetrics {
    pub cache_hits: Family<LookupLabels, Counter>,
    pub cache_misses: Family<LookupLabels, Counter>,
    pub errors: Family<ErrorLabels, Counter>,
    pub latency: LatencyFamily,
}

impl Default for IamMetrics {
    fn default() -> Self {
        Self::new()
    }
}

impl IamMetrics {
    pub fn new() -> Self {
        let m = Self {
            cache_hits: Family::default(),
            cache_misses: Family::default(),
            errors: Family::default(),
            latency: Family::new_with_constructor(latency_histogram as fn() -> Histogram),
        };
        for lookup in LOOKUPS {
            drop(m.cache_hits.get_or_create(&LookupLabels { lookup }));
            drop(m.cache_misses.get_or_create(&LookupLabels { lookup }));
        }
        for operation in OPERATIONS {
            drop(m.latency.get_or_create(&OperationLabels { operation }));
        }
        m
    }

    /// Registers every metric under `registry` (names get the registry's prefix, e.g.
    /// `zoneguard_iam_cache_hits_total`).
    pub fn register(&self, registry: &mut Registry) {
        registry.register(
            "iam_cache_hits",
            "IAM lookups answered from the cache, by lookup",
            self.cache_hits.clone(),
        );
        registry.register(
            "iam_cache_misses",
            "IAM lookups that called IAM, by lookup",
            self.cache_misses.clone(),
        );
        registry.register(
            "iam_errors",
            "IAM and STS calls that failed, by operation and error class",
            self.errors.clone(),
        );
        registry.register(
            "iam_call_duration_seconds",
            "Time of one IAM or STS call, by operation",
            self.latency.clone(),
        );
    }

    pub(crate) fn hit(&self, lookup: &'static str, hit: bool) {
        let family = if hit {
            &self.cache_hits
        } else {
            &self.cache_misses
        };
        family.get_or_create(&LookupLabels { lookup }).inc();
    }

    pub(crate) fn error(&self, operation: &'static str, error: &'static str) {
        self.errors
            .get_or_create(&ErrorLabels { operation, error })
            .inc();
    }

    pub(crate) fn observe(&self, operation: &'static str, seconds: f64) {
        self.latency
            .get_or_create(&OperationLabels { operation })
            .observe(seconds);
    }

    /// The current value of a counter, for tests and logs.
    pub fn count(&self, which: Counted, lookup_or_operation: &'static str) -> u64 {
        match which {
            Counted::Hits => self
                .cache_hits
                .get_or_create(&LookupLabels {
                    lookup: lookup_or_operation,
                })
                .get(),
            Counted::Misses => self
                .cache_misses
                .get_or_create(&LookupLabels {
                    lookup: lookup_or_operation,
                })
                .get(),
        }
    }
}

/// Which counter [`IamMetrics::count`] reads.
#[derive(Debug, Clone, Copy)]
pub enum Counted {
    Hits,
    Misses,
}
