//! How deciding an object grows with the names it carries: `admission::validate` of an Ingress
//! with 100, 1 000 and 10 000 hosts outside the filters, as a CREATE and as an UPDATE whose old
//! object is the same (every violation then already present, so a warning). Time per host
//! should stay flat: a hostile object of 100 000 hosts (a 3 MB review) must cost ~1 000 times a
//! 100-host one, not a million times.

use std::hint::black_box;
use std::time::Duration;

use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion, Throughput};
use serde_json::json;
use zoneguard_core::admission::{self, Operation, Request};
use zoneguard_core::rules::RuleSet;
use zoneguard_core::tree::Node;

fn ingress(hosts: usize) -> serde_json::Value {
    let rules: Vec<_> = (0..hosts)
        .map(|i| json!({"host": format!("h{i}.other.com")}))
        .collect();
    json!({
        "apiVersion": "networking.k8s.io/v1",
        "kind": "Ingress",
        "metadata": {"name": "big", "namespace": "default"},
        "spec": {"rules": rules}
    })
}

fn validate(c: &mut Criterion) {
    let rules = RuleSet::parse("bench", "domainFilters: [example.com]\n").expect("rules parse");
    let mut group = c.benchmark_group("large_ingress_validate");
    for hosts in [100, 1_000, 10_000] {
        let object = ingress(hosts);
        let node = Node::from(&object);
        group.throughput(Throughput::Elements(hosts as u64));
        for (label, operation, old) in [
            ("create", Operation::Create, None),
            ("update", Operation::Update, Some(&node)),
        ] {
            let request = Request {
                operation,
                group: "networking.k8s.io",
                version: "v1",
                kind: "Ingress",
                namespace: "default",
                name: "big",
                object: Some(&node),
                old_object: old,
                sub_resource: None,
            };
            group.bench_with_input(BenchmarkId::new(label, hosts), &request, |b, r| {
                b.iter(|| black_box(admission::validate(&rules, black_box(r))))
            });
        }
    }
    group.finish();
}

criterion_group! {
    name = benches;
    config = Criterion::default()
        .warm_up_time(Duration::from_millis(500))
        .measurement_time(Duration::from_secs(2));
    targets = validate
}
criterion_main!(benches);
