//! ns per trust-policy decision: `evaluate_web_identity` on policies an EKS cluster
//! really has (StringEquals on sub and aud, StringLike on sub, a policy with several statements
//! and a Deny), for an identity that is admitted, one that misses (the nearest-miss explanation
//! is part of the cost) and one with an undecidable condition; then `irsa::check` on a whole
//! ServiceAccount with 200 and 10 000 trust policies in the rules (the lookup must stay flat).

use std::hint::black_box;
use std::time::Duration;

use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion};
use serde_json::json;
use zoneguard_core::arn::RoleArn;
use zoneguard_core::irsa;
use zoneguard_core::rules::RuleSet;
use zoneguard_core::tree::Node;
use zoneguard_core::trust::{evaluate_web_identity, TrustPolicy, TrustVerdict, WebIdentity};

const ISSUER: &str = "oidc.eks.eu-west-1.amazonaws.com/id/B3NCHB3NCHB3NCHB3NCHB3NCHB3NCH01";
const ACCOUNT: &str = "111122223333";

fn statement(op: &str, sub: &str) -> serde_json::Value {
    json!({
        "Effect": "Allow",
        "Principal": {"Federated": format!("arn:aws:iam::{ACCOUNT}:oidc-provider/{ISSUER}")},
        "Action": "sts:AssumeRoleWithWebIdentity",
        "Condition": {op: {format!("{ISSUER}:sub"): sub, format!("{ISSUER}:aud"): "sts.amazonaws.com"}}
    })
}

/// (label, policy document).
fn policies() -> Vec<(&'static str, serde_json::Value)> {
    let many: Vec<serde_json::Value> = (0..9)
        .map(|i| statement("StringEquals", &format!("system:serviceaccount:other-{i}:app")))
        .chain([
            json!({
                "Effect": "Deny",
                "Principal": "*",
                "Action": "sts:*",
                "Condition": {"StringLike": {format!("{ISSUER}:sub"): "system:serviceaccount:kube-system:*"}}
            }),
            statement("StringLike", "system:serviceaccount:shop:*"),
        ])
        .collect();
    vec![
        (
            "string-equals",
            json!({"Version": "2012-10-17", "Statement": [statement("StringEquals", "system:serviceaccount:shop:api")]}),
        ),
        (
            "string-like",
            json!({"Version": "2012-10-17", "Statement": statement("StringLike", "system:serviceaccount:shop:*")}),
        ),
        (
            "11-statements-with-deny",
            json!({"Version": "2012-10-17", "Statement": many}),
        ),
        (
            "source-ip-unverifiable",
            json!({"Version": "2012-10-17", "Statement": [{
                "Effect": "Allow",
                "Principal": {"Federated": format!("arn:aws:iam::{ACCOUNT}:oidc-provider/{ISSUER}")},
                "Action": "sts:AssumeRoleWithWebIdentity",
                "Condition": {
                    "StringEquals": {format!("{ISSUER}:sub"): "system:serviceaccount:shop:api"},
                    "IpAddress": {"aws:SourceIp": "10.0.0.0/8"}
                }
            }]}),
        ),
    ]
}

fn trust_eval(c: &mut Criterion) {
    let mut group = c.benchmark_group("trust_eval");
    group
        .measurement_time(Duration::from_secs(2))
        .warm_up_time(Duration::from_millis(500))
        .sample_size(50);
    let role = RoleArn::parse(&format!("arn:aws:iam::{ACCOUNT}:role/api")).expect("role ARN");
    for (label, document) in policies() {
        let policy = TrustPolicy::from_value(&document).expect("policy parses");
        for (who_label, namespace) in [("admitted", "shop"), ("nearest-miss", "payments")] {
            let who = WebIdentity {
                role: &role,
                issuer: ISSUER,
                namespace,
                service_account: "api",
                audience: "sts.amazonaws.com",
            };
            let verdict = evaluate_web_identity(&policy, &who);
            if label == "source-ip-unverifiable" {
                if who_label == "nearest-miss" {
                    continue;
                }
                assert!(
                    matches!(verdict, TrustVerdict::Unverifiable(_)),
                    "{label}: {verdict:?}"
                );
            } else {
                assert_eq!(
                    matches!(verdict, TrustVerdict::Allowed),
                    who_label == "admitted",
                    "{label} {who_label}: {verdict:?}"
                );
            }
            group.bench_function(BenchmarkId::new(label, who_label), |b| {
                b.iter(|| evaluate_web_identity(black_box(&policy), black_box(&who)))
            });
        }
        group.bench_function(BenchmarkId::new("parse", label), |b| {
            b.iter(|| TrustPolicy::from_value(black_box(&document)))
        });
    }
    group.finish();
}

/// Rules with `n` trust policies (as scripts/bench.sh's generator writes them).
fn rules_with_policies(n: usize) -> RuleSet {
    let mut text =
        format!("irsa:\n  issuer: {ISSUER}\n  accounts: [\"{ACCOUNT}\"]\n  trustPolicies:\n");
    for k in 0..n {
        let policy = json!({"Version": "2012-10-17", "Statement": [statement("StringEquals", &format!("system:serviceaccount:ns-{k}:app-{k}"))]});
        text.push_str(&format!(
            "    arn:aws:iam::{ACCOUNT}:role/app-{k}: {policy}\n"
        ));
    }
    RuleSet::parse("rules.yaml", &text).expect("generated rules parse")
}

fn service_account_check(c: &mut Criterion) {
    let mut group = c.benchmark_group("irsa_check");
    group
        .measurement_time(Duration::from_secs(2))
        .warm_up_time(Duration::from_millis(500))
        .sample_size(50);
    for n in [200usize, 10_000] {
        let rules = rules_with_policies(n);
        let k = n / 2;
        let sa = json!({
            "apiVersion": "v1",
            "kind": "ServiceAccount",
            "metadata": {
                "name": format!("app-{k}"),
                "namespace": format!("ns-{k}"),
                "annotations": {"eks.amazonaws.com/role-arn": format!("arn:aws:iam::{ACCOUNT}:role/app-{k}")}
            }
        });
        let sa = Node::from(&sa);
        let (namespace, name) = (format!("ns-{k}"), format!("app-{k}"));
        let findings = irsa::check(&rules, &namespace, &name, &sa);
        assert!(findings.violations.is_empty(), "{:?}", findings.violations);
        group.bench_with_input(BenchmarkId::new("admitted", n), &sa, |b, sa| {
            b.iter(|| {
                irsa::check(
                    &rules,
                    black_box(&namespace),
                    black_box(&name),
                    black_box(sa),
                )
            })
        });
        let denied = irsa::check(&rules, "ns-0", &name, &sa);
        assert!(!denied.violations.is_empty());
        group.bench_with_input(BenchmarkId::new("denied", n), &sa, |b, sa| {
            b.iter(|| irsa::check(&rules, black_box("ns-0"), black_box(&name), black_box(sa)))
        });
    }
    group.finish();
}

criterion_group!(benches, trust_eval, service_account_check);
criterion_main!(benches);
