//! µs per admission, body in → answer out, for each kind, through the server's own wire
//! module: `review::parse` (the AdmissionReview JSON), the core's `validate` or `mutate`, then
//! `review::respond` serialized as the handler does (base64 JSONPatch included). Same allocator
//! as the server. The request bodies are the ones scripts/bench.sh sends (bench/reviews/), the
//! rules those it generates (50 domain filters, 20 delegated namespaces, 200 trust policies,
//! 3 inject rules).

use std::hint::black_box;
use std::time::Duration;

use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion};
use zoneguard::serve::review::{self, Review};
use zoneguard_core::admission::{self, Decision};
use zoneguard_core::rules::RuleSet;

#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

/// Lines of violations in a denial, as `zoneguard serve` defaults.
const MAX_LINES: usize = 5;

const ISSUER: &str = "oidc.eks.eu-west-1.amazonaws.com/id/B3NCHB3NCHB3NCHB3NCHB3NCHB3NCH01";
const ACCOUNT: &str = "111122223333";

/// The rules `bench/gen-rules.sh 50 20 200 3` writes.
fn rules() -> RuleSet {
    let mut t =
        String::from("annotationPrefix: external-dns.alpha.kubernetes.io/\ndomainFilters:\n");
    for i in 0..50 {
        t.push_str(&format!("  - zone{i}.example.com\n"));
    }
    t.push_str("excludeDomains:\n");
    for i in (0..50).step_by(10) {
        t.push_str(&format!("  - internal.zone{i}.example.com\n"));
    }
    t.push_str("namespaces:\n");
    for j in 0..20 {
        t.push_str(&format!(
            "  team-{j}: {{ domainFilters: [team-{j}.zone{j}.example.com] }}\n"
        ));
    }
    t.push_str(concat!(
        "inject:\n",
        "  - kinds: [Service]\n    serviceTypes: [LoadBalancer]\n    namespaces: [team-1]\n",
        "    annotations:\n",
        "      external-dns.alpha.kubernetes.io/hostname: \"{name}.team-1.zone1.example.com\"\n",
        "      external-dns.alpha.kubernetes.io/ttl: \"60\"\n",
        "  - kinds: [Ingress]\n    annotations:\n      external-dns.alpha.kubernetes.io/ttl: \"300\"\n",
        "  - kinds: [Service, Ingress]\n    namespaces: [team-0, team-1]\n",
        "    annotations:\n      example.com/owner: \"{namespace}\"\n",
    ));
    t.push_str(&format!(
        "irsa:\n  issuer: {ISSUER}\n  accounts: [\"{ACCOUNT}\"]\n  unknownRole: warn\n  trustPolicies:\n"
    ));
    for k in 0..200 {
        let (op, sub) = if k % 4 == 3 {
            ("StringLike", format!("system:serviceaccount:ns-{k}:app-*"))
        } else {
            (
                "StringEquals",
                format!("system:serviceaccount:ns-{k}:app-{k}"),
            )
        };
        let policy = serde_json::json!({"Version": "2012-10-17", "Statement": [{
            "Effect": "Allow",
            "Principal": {"Federated": format!("arn:aws:iam::{ACCOUNT}:oidc-provider/{ISSUER}")},
            "Action": "sts:AssumeRoleWithWebIdentity",
            "Condition": {op: {format!("{ISSUER}:sub"): sub, format!("{ISSUER}:aud"): "sts.amazonaws.com"}}
        }]});
        t.push_str(&format!(
            "    arn:aws:iam::{ACCOUNT}:role/app-{k}: {policy}\n"
        ));
    }
    t.push_str("enforcement: deny\nexemptNamespaces: [kube-system]\n");
    RuleSet::parse("rules.yaml", &t).expect("generated rules parse")
}

fn decode(body: &[u8]) -> Review {
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
    let answer = review::respond(review, decision, MAX_LINES);
    serde_json::to_vec(&answer).expect("answer serializes")
}

fn round_trip(rules: &RuleSet, body: &[u8], mutate: bool) -> Vec<u8> {
    let review = decode(body);
    let decision = decide(rules, &review, mutate);
    encode(&review, &decision)
}

/// (label, body, mutate?, what the answer must contain).
const CASES: [(&str, &str, bool, &str); 7] = [
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
    for (label, body, mutate, want) in CASES {
        let answer = String::from_utf8(round_trip(&rules, body.as_bytes(), mutate)).expect("UTF-8");
        assert!(answer.contains(want), "{label}: {answer}");
        group.bench_with_input(
            BenchmarkId::new("decode-decide-encode", label),
            body,
            |b, body| b.iter(|| round_trip(&rules, black_box(body.as_bytes()), mutate)),
        );
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
    group.finish();
}

criterion_group!(benches, admission_roundtrip);
criterion_main!(benches);
