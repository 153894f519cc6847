//! ns per object named by an fqdn template (`sources.fqdnTemplate`): `FqdnTemplate::names` on an
//! Ingress with labels and annotations, for the template most clusters write (name and
//! namespace), one with external-dns's functions and a conditional, and one that ranges over the
//! labels; then `source::extract` of the same Ingress with and without the template in the rules
//! (what a template adds to deciding an object), and `admission::mutate` of that Ingress with an
//! inject rule, with and without the template (the re-judge of injected annotations reads no
//! template name, so the two should cost alike).

use std::hint::black_box;
use std::time::Duration;

use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion};
use serde_json::json;
use zoneguard_core::admission::{self, Operation, Request};
use zoneguard_core::rules::RuleSet;
use zoneguard_core::source::{extract, Kind};
use zoneguard_core::template::FqdnTemplate;
use zoneguard_core::tree::Node;

const TEMPLATES: [(&str, &str); 3] = [
    (
        "name-namespace",
        "{{.Name}}.{{.Namespace}}.apps.example.com",
    ),
    (
        "functions",
        r#"{{if hasKey .Labels "team"}}{{.Labels.team | toLower}}{{else}}shared{{end}}-{{trimSuffix "-web" .Name}}.{{.Namespace}}.example.com"#,
    ),
    (
        "range-labels",
        "{{range $k, $v := .Labels}}{{$k}}-{{$v}}.{{$.Namespace}}.example.com,{{end}}",
    ),
];

fn ingress() -> serde_json::Value {
    json!({
        "apiVersion": "networking.k8s.io/v1",
        "kind": "Ingress",
        "metadata": {
            "name": "shop-web",
            "namespace": "shop",
            "labels": {"team": "Payments", "app": "web", "tier": "frontend"},
            "annotations": {"owner": "payments@example.com", "kubectl.kubernetes.io/last-applied-configuration": "{}"}
        },
        "spec": {"ingressClassName": "public", "defaultBackend": {"service": {"name": "web", "port": {"number": 80}}}}
    })
}

fn names(c: &mut Criterion) {
    let object = ingress();
    let node = Node::from(&object);
    let mut group = c.benchmark_group("fqdn_template_names");
    for (label, text) in TEMPLATES {
        let template = FqdnTemplate::parse(&[text.to_string()])
            .expect("template parses")
            .expect("not blank");
        group.bench_with_input(BenchmarkId::from_parameter(label), &template, |b, t| {
            b.iter(|| black_box(t.names("Ingress", "shop", black_box(&node))))
        });
    }
    group.finish();
}

/// The rules `domainFilters: [example.com]` and `extra`, without and with the first template.
fn with_and_without_template(extra: &str) -> [(&'static str, RuleSet); 2] {
    let parse = |text: String| RuleSet::parse("bench", &text).expect("rules parse");
    let plain = format!("domainFilters: [example.com]\n{extra}");
    let templated = format!(
        "domainFilters: [example.com]\nsources: {{fqdnTemplate: '{}'}}\n{extra}",
        TEMPLATES[0].1
    );
    [
        ("no-template", parse(plain)),
        ("name-namespace-template", parse(templated)),
    ]
}

fn extract_with_and_without(c: &mut Criterion) {
    let object = ingress();
    let node = Node::from(&object);
    let mut group = c.benchmark_group("extract_ingress");
    for (label, rules) in with_and_without_template("") {
        group.bench_with_input(BenchmarkId::from_parameter(label), &rules, |b, r| {
            b.iter(|| black_box(extract(r, Kind::Ingress, "shop", black_box(&node))))
        });
    }
    group.finish();
}

fn mutate_with_and_without(c: &mut Criterion) {
    let object = ingress();
    let node = Node::from(&object);
    let request = Request {
        operation: Operation::Create,
        group: "networking.k8s.io",
        version: "v1",
        kind: "Ingress",
        namespace: "shop",
        name: "shop-web",
        object: Some(&node),
        old_object: None,
        sub_resource: None,
    };
    let mut group = c.benchmark_group("mutate_ingress");
    let inject =
        "inject: [{kinds: [Ingress], annotations: {external-dns.alpha.kubernetes.io/ttl: '60'}}]\n";
    for (label, rules) in with_and_without_template(inject) {
        assert_eq!(
            admission::mutate(&rules, &request).patch.len(),
            1,
            "{label}"
        );
        group.bench_with_input(BenchmarkId::from_parameter(label), &rules, |b, r| {
            b.iter(|| black_box(admission::mutate(r, black_box(&request))))
        });
    }
    group.finish();
}

criterion_group! {
    name = benches;
    config = Criterion::default().measurement_time(Duration::from_secs(3)).warm_up_time(Duration::from_secs(1));
    targets = names, extract_with_and_without, mutate_with_and_without
}
criterion_main!(benches);
