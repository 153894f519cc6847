//! µs per admission, body in → answer out, for each kind, through the server's own wire
//! module: `review::parse` (the AdmissionReview JSON), the core's `validate` or `mutate`, then
//! `review::respond` serialized as the handler does (base64 JSONPatch included). Same allocator
//! as the server. The request bodies are the ones scripts/bench.sh sends (bench/reviews/, as a
//! real kube-apiserver sent them: bench/capture-reviews.sh), the rules those it generates with
//! bench/gen-rules.sh (50 domain filters, 20 delegated namespaces, 200 trust policies, 3 inject
//! rules).

use std::hint::black_box;
use std::process::Command;
use std::time::Duration;

use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion};
use serde::de::IgnoredAny;
use zoneguard::serve::review::{self, Review};
use zoneguard_core::admission::{self, Decision};
use zoneguard_core::rules::RuleSet;

#[global_allocator]
static ALLOCATOR: zoneguard::allocator::Allocator = zoneguard::allocator::Allocator;

/// Lines of violations in a denial, as `zoneguard serve` defaults.
const MAX_LINES: usize = 5;

/// The rules scripts/bench.sh serves: `bench/gen-rules.sh 50 20 200 3` (needs bash and awk).
fn rules() -> RuleSet {
    let script = concat!(env!("CARGO_MANIFEST_DIR"), "/bench/gen-rules.sh");
    let out = Command::new(script)
        .args(["50", "20", "200", "3"])
        .output()
        .expect("bench/gen-rules.sh runs");
    assert!(out.status.success(), "bench/gen-rules.sh failed");
    let text = String::from_utf8(out.stdout).expect("UTF-8 rules");
    RuleSet::parse("rules.yaml", &text).expect("generated rules parse")
}

fn decode(body: &[u8]) -> Review<'_> {
    review::parse(body).expect("a valid AdmissionReview")
}

fn decide(rules: &RuleSet, review: &Review, mutate: bool) -> Decision {
    let request = review.core_request();
    if mutate {
        admission::mutate(rules, &request)
    } else {
        admission::validate(rules, &request)
    }
}

fn encode(review: &Review, decision: &Decision) -> Vec<u8> {
    review::respond(review, decision, MAX_LINES).to_json()
}

/// The least any serde_json decode of `body` costs: one pass over the JSON that builds nothing.
#[inline(never)]
fn skip_json(body: &[u8]) -> IgnoredAny {
    serde_json::from_slice(body).expect("valid JSON")
}

#[inline(never)]
fn round_trip(rules: &RuleSet, body: &[u8], mutate: bool) -> Vec<u8> {
    let review = decode(body);
    let decision = decide(rules, &review, mutate);
    encode(&review, &decision)
}

/// (label, body, mutate?, what the answer must contain).
const CASES: [(&str, &str, bool, &str); 8] = [
    (
        "ingress-3-hosts/validate",
        include_str!("../bench/reviews/ingress-3hosts.json"),
        false,
        r#""allowed":true"#,
    ),
    (
        "ingress-denied/validate",
        include_str!("../bench/reviews/ingress-denied.json"),
        false,
        "hostname-not-delegated",
    ),
    (
        "ingress-3-hosts/mutate",
        include_str!("../bench/reviews/ingress-3hosts.json"),
        true,
        r#""patchType":"JSONPatch""#,
    ),
    (
        // The same Ingress labelled once it exists: an UPDATE, with the object and oldObject.
        "ingress-update/validate",
        include_str!("../bench/reviews/ingress-update.json"),
        false,
        r#""allowed":true"#,
    ),
    (
        "service-lb/mutate",
        include_str!("../bench/reviews/service-lb.json"),
        true,
        r#""patchType":"JSONPatch""#,
    ),
    (
        "serviceaccount/validate",
        include_str!("../bench/reviews/serviceaccount.json"),
        false,
        r#""allowed":true"#,
    ),
    (
        "httproute/validate",
        include_str!("../bench/reviews/httproute.json"),
        false,
        r#""allowed":true"#,
    ),
    (
        "dnsendpoint/validate",
        include_str!("../bench/reviews/dnsendpoint.json"),
        false,
        r#""allowed":true"#,
    ),
];

fn admission_roundtrip(c: &mut Criterion) {
    let rules = rules();
    let mut group = c.benchmark_group("admission_roundtrip");
    group
        .measurement_time(Duration::from_secs(2))
        .warm_up_time(Duration::from_millis(500))
        .sample_size(50);
    let mut skipped: Vec<&str> = Vec::new();
    for (label, body, mutate, want) in CASES {
        let answer = String::from_utf8(round_trip(&rules, body.as_bytes(), mutate)).expect("UTF-8");
        assert!(answer.contains(want), "{label}: {answer}");
        group.bench_with_input(
            BenchmarkId::new("decode-decide-encode", label),
            body,
            |b, body| b.iter(|| round_trip(&rules, black_box(body.as_bytes()), mutate)),
        );
        // Each body once (the Ingress's `/validate` and `/mutate` cases share one), under the
        // label of its first case.
        if !skipped.contains(&body) {
            skipped.push(body);
            group.bench_with_input(BenchmarkId::new("skip-json", label), body, |b, body| {
                b.iter(|| skip_json(black_box(body.as_bytes())))
            });
        }
    }
    // The three steps apart, for the largest body.
    let body = CASES[0].1.as_bytes();
    let review = decode(body);
    let decision = decide(&rules, &review, false);
    group.bench_function("step/decode/ingress-3-hosts", |b| {
        b.iter(|| decode(black_box(body)))
    });
    group.bench_function("step/decide/ingress-3-hosts", |b| {
        b.iter(|| decide(&rules, black_box(&review), false))
    });
    group.bench_function("step/encode/ingress-3-hosts", |b| {
        b.iter(|| encode(black_box(&review), black_box(&decision)))
    });
    // The encode of the two other kinds of answer: a denial's message, a mutation's patch.
    for (label, body, mutate, _) in [CASES[1], CASES[4]] {
        let review = decode(body.as_bytes());
        let decision = decide(&rules, &review, mutate);
        group.bench_function(BenchmarkId::new("step/encode", label), |b| {
            b.iter(|| encode(black_box(&review), black_box(&decision)))
        });
    }
    group.finish();
}

criterion_group!(benches, admission_roundtrip);
criterion_main!(benches);
