//! µs per admission, body in → answer out, for each kind: decode the AdmissionReview JSON,
//! decide with the core (`validate` or `mutate`), encode the AdmissionReview answer (base64
//! JSONPatch included). The decode and encode steps mirror `src/serve/review.rs` (the server's
//! wire module, which lives in the binary crate and cannot be a dependency here); the request
//! bodies are the ones scripts/bench.sh sends (bench/reviews/), the rules those it generates
//! (50 domain filters, 20 delegated namespaces, 200 trust policies, 3 inject rules).

use std::hint::black_box;
use std::time::Duration;

use base64::Engine as _;
use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion};
use serde::{Deserialize, Serialize};
use serde_json::Value;
use zoneguard_core::admission::{self, Decision, Operation, Request};
use zoneguard_core::rules::RuleSet;

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

// ---- the wire format, as src/serve/review.rs reads and writes it ----

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct Envelope {
    #[serde(default)]
    api_version: Option<String>,
    #[serde(default)]
    kind: Option<String>,
    #[serde(default)]
    request: Option<Value>,
}

#[derive(Deserialize, Default)]
struct Gvk {
    #[serde(default)]
    group: String,
    #[serde(default)]
    version: String,
    #[serde(default)]
    kind: String,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct Review {
    uid: String,
    kind: Gvk,
    #[serde(default)]
    sub_resource: Option<String>,
    #[serde(default)]
    name: Option<String>,
    #[serde(default)]
    namespace: Option<String>,
    operation: String,
    #[serde(default)]
    object: Option<Value>,
    #[serde(default)]
    old_object: Option<Value>,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct Answer<'a> {
    api_version: &'static str,
    kind: &'static str,
    response: Response<'a>,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct Response<'a> {
    uid: &'a str,
    allowed: bool,
    #[serde(skip_serializing_if = "Option::is_none")]
    status: Option<Status>,
    #[serde(skip_serializing_if = "<[String]>::is_empty")]
    warnings: &'a [String],
    #[serde(skip_serializing_if = "Option::is_none")]
    patch_type: Option<&'static str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    patch: Option<String>,
}

#[derive(Serialize)]
struct Status {
    status: &'static str,
    code: u16,
    reason: String,
    message: String,
}

fn decode(body: &[u8]) -> Review {
    let envelope: Envelope = serde_json::from_slice(body).expect("JSON");
    assert_eq!(envelope.kind.as_deref(), Some("AdmissionReview"));
    assert_eq!(envelope.api_version.as_deref(), Some("admission.k8s.io/v1"));
    serde_json::from_value(envelope.request.expect("request")).expect("request fields")
}

fn decide(rules: &RuleSet, review: &Review, mutate: bool) -> Decision {
    let name = review.name.as_deref().unwrap_or("");
    let request = Request {
        operation: match review.operation.as_str() {
            "CREATE" => Operation::Create,
            "UPDATE" => Operation::Update,
            "DELETE" => Operation::Delete,
            _ => Operation::Connect,
        },
        group: &review.kind.group,
        version: &review.kind.version,
        kind: &review.kind.kind,
        namespace: review.namespace.as_deref().unwrap_or(""),
        name,
        object: review.object.as_ref(),
        old_object: review.old_object.as_ref(),
        sub_resource: review.sub_resource.as_deref().filter(|s| !s.is_empty()),
    };
    if mutate {
        admission::mutate(rules, &request)
    } else {
        admission::validate(rules, &request)
    }
}

fn encode(review: &Review, decision: &Decision) -> Vec<u8> {
    let status = (!decision.allowed).then(|| {
        let mut reasons: Vec<&str> = Vec::new();
        for v in &decision.violations {
            if !reasons.contains(&v.reason.as_str()) {
                reasons.push(v.reason.as_str());
            }
        }
        Status {
            status: "Failure",
            code: 403,
            reason: reasons.join(","),
            message: decision.summary(
                &review.kind.kind,
                review.namespace.as_deref().unwrap_or(""),
                review.name.as_deref().unwrap_or(""),
                5,
            ),
        }
    });
    let patch = (decision.allowed && !decision.patch.is_empty()).then(|| {
        let json = serde_json::to_vec(&decision.patch).expect("patch serializes");
        base64::engine::general_purpose::STANDARD.encode(json)
    });
    serde_json::to_vec(&Answer {
        api_version: "admission.k8s.io/v1",
        kind: "AdmissionReview",
        response: Response {
            uid: &review.uid,
            allowed: decision.allowed,
            status,
            warnings: &decision.warnings,
            patch_type: patch.as_ref().map(|_| "JSONPatch"),
            patch,
        },
    })
    .expect("answer serializes")
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
        include_str!("../../../bench/reviews/ingress-3hosts.json"),
        false,
        r#""allowed":true"#,
    ),
    (
        "ingress-denied/validate",
        include_str!("../../../bench/reviews/ingress-denied.json"),
        false,
        "hostname-not-delegated",
    ),
    (
        "ingress-3-hosts/mutate",
        include_str!("../../../bench/reviews/ingress-3hosts.json"),
        true,
        r#""patchType":"JSONPatch""#,
    ),
    (
        "service-lb/mutate",
        include_str!("../../../bench/reviews/service-lb.json"),
        true,
        r#""patchType":"JSONPatch""#,
    ),
    (
        "serviceaccount/validate",
        include_str!("../../../bench/reviews/serviceaccount.json"),
        false,
        r#""allowed":true"#,
    ),
    (
        "httproute/validate",
        include_str!("../../../bench/reviews/httproute.json"),
        false,
        r#""allowed":true"#,
    ),
    (
        "dnsendpoint/validate",
        include_str!("../../../bench/reviews/dnsendpoint.json"),
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
