//! Rule-set scale (no criterion: one measurement per size, the large sizes take seconds).
//!
//! For a base rule set of 100 domain filters, 2 delegated namespaces and 10 trust policies
//! (plus 3 inject rules), grown 1x, 10x, 100x and 1000x (= 100 000 filters, 2 000 namespaces,
//! 10 000 trust policies), it prints: the rules text size; `RuleSet::parse` time (best of
//! a few runs); heap bytes the parsed `RuleSet` keeps and the heap peak while parsing (a
//! counting global allocator); the cost of one `validate` of a 3-host Ingress and of a
//! ServiceAccount, which should not grow with the rules; and the time to judge an edit of a
//! small rule ConfigMap while the generated rules are another rule ConfigMap, which reads them.
//!
//!     cargo bench -p zoneguard-core --bench rules_scale
//!     ZONEGUARD_SCALE="1 10 100" cargo bench -p zoneguard-core --bench rules_scale
//!
//! The rules are the ones `bench/gen-rules.sh` writes (scripts/scale.sh measures the same sizes
//! through the server: load, reload, RSS).

use std::alloc::{GlobalAlloc, Layout, System};
use std::hint::black_box;
use std::process::Command;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use serde_json::{json, Value};
use zoneguard_core::admission::{self, Operation, Request};
use zoneguard_core::rules::{RuleSet, RuleSource};
use zoneguard_core::tree::Node;

struct Counting;

static LIVE: AtomicUsize = AtomicUsize::new(0);
static PEAK: AtomicUsize = AtomicUsize::new(0);

// SAFETY: forwards to the system allocator; only counts bytes.
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        let p = unsafe { System.alloc(layout) };
        if !p.is_null() {
            let now = LIVE.fetch_add(layout.size(), Ordering::Relaxed) + layout.size();
            PEAK.fetch_max(now, Ordering::Relaxed);
        }
        p
    }
    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        unsafe { System.dealloc(ptr, layout) };
        LIVE.fetch_sub(layout.size(), Ordering::Relaxed);
    }
    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        let p = unsafe { System.realloc(ptr, layout, new_size) };
        if !p.is_null() {
            if new_size >= layout.size() {
                let now = LIVE.fetch_add(new_size - layout.size(), Ordering::Relaxed)
                    + (new_size - layout.size());
                PEAK.fetch_max(now, Ordering::Relaxed);
            } else {
                LIVE.fetch_sub(layout.size() - new_size, Ordering::Relaxed);
            }
        }
        p
    }
}

#[global_allocator]
static ALLOCATOR: Counting = Counting;

/// What `bench/gen-rules.sh FILTERS NAMESPACES POLICIES 3` writes (it needs bash and awk).
fn rules_text(filters: usize, namespaces: usize, policies: usize) -> String {
    let script = concat!(env!("CARGO_MANIFEST_DIR"), "/../../bench/gen-rules.sh");
    let sizes = [filters, namespaces, policies, 3].map(|n| n.to_string());
    let out = Command::new(script)
        .args(&sizes)
        .output()
        .expect("bench/gen-rules.sh runs");
    assert!(out.status.success(), "bench/gen-rules.sh failed");
    String::from_utf8(out.stdout).expect("UTF-8 rules")
}

/// ns per call of `f`, over about `budget`.
fn per_call(budget: Duration, mut f: impl FnMut()) -> f64 {
    let mut n = 0u64;
    let start = Instant::now();
    while start.elapsed() < budget {
        for _ in 0..100 {
            f();
        }
        n += 100;
    }
    start.elapsed().as_nanos() as f64 / n as f64
}

/// A request to write `object`, of version v1.
fn request<'a>(
    operation: Operation,
    group: &'a str,
    kind: &'a str,
    namespace: &'a str,
    name: &'a str,
    object: &'a Node<'a>,
) -> Request<'a> {
    Request {
        operation,
        group,
        version: "v1",
        kind,
        namespace,
        name,
        object: Some(object),
        old_object: None,
        sub_resource: None,
    }
}

fn validate_cost(rules: &RuleSet, group: &str, kind: &str, ns: &str, object: &Value) -> f64 {
    let name = object
        .pointer("/metadata/name")
        .and_then(Value::as_str)
        .unwrap_or("");
    let object = Node::from(object);
    let request = request(Operation::Create, group, kind, ns, name, &object);
    let decision = admission::validate(rules, &request);
    assert!(decision.allowed, "{kind}: {:?}", decision.violations);
    per_call(Duration::from_millis(500), || {
        black_box(admission::validate(black_box(rules), black_box(&request)));
    })
}

/// Best time, over `runs`, to judge an edit of a small rule ConfigMap beside `other`, the text
/// of another rule ConfigMap: what the `rules.zoneguard.io` webhook spends on such an edit.
fn rule_configmap_edit(rules: &RuleSet, other: &str, runs: usize) -> Duration {
    let cm = json!({"metadata": {"name": "edit", "labels": {"zoneguard.io/rules": "true"}},
        "data": {"rules.yaml": "exemptNamespaces: [kube-system]\n"}});
    let object = Node::from(&cm);
    let request = request(
        Operation::Update,
        "",
        "ConfigMap",
        "zoneguard",
        "edit",
        &object,
    );
    let others = [RuleSource {
        name: "ConfigMap zoneguard/generated",
        text: other,
    }];
    (0..runs)
        .map(|_| {
            let start = Instant::now();
            let decision = admission::validate_with_rule_sources(rules, &request, &others);
            let took = start.elapsed();
            assert!(decision.allowed, "{:?}", decision.violations);
            took
        })
        .min()
        .unwrap_or_default()
}

fn main() {
    // `cargo bench` passes --bench; nothing else is read from the command line.
    let sizes: Vec<usize> = std::env::var("ZONEGUARD_SCALE")
        .unwrap_or_else(|_| "1 10 100 1000".to_owned())
        .split_whitespace()
        .filter_map(|s| s.parse().ok())
        .collect();
    let ingress = json!({"metadata": {"name": "web", "namespace": "team-1"}, "spec": {"rules": [
        {"host": "www.team-1.zone1.example.com"}, {"host": "api.team-1.zone1.example.com"},
        {"host": "static.team-1.zone1.example.com"}]}});
    let sa = json!({"metadata": {"name": "app-7", "namespace": "ns-7", "annotations": {
        "eks.amazonaws.com/role-arn": "arn:aws:iam::111122223333:role/app-7"}}});
    println!(
        "{:>6} {:>8} {:>6} {:>7} {:>9} | {:>10} {:>12} {:>12} | {:>14} {:>14} | {:>11}",
        "size",
        "filters",
        "ns",
        "roles",
        "text MiB",
        "parse ms",
        "kept MiB",
        "peak MiB",
        "ingress ns",
        "SA ns",
        "CM edit ms"
    );
    for m in sizes {
        let (f, n, p) = (100 * m, 2 * m, 10 * m);
        let text = rules_text(f, n, p);
        let runs = if m >= 100 { 1 } else { 5 };
        let mut best = Duration::MAX;
        let (mut kept, mut peak) = (0, 0);
        let mut rules = None;
        for _ in 0..runs {
            drop(rules.take());
            let before = LIVE.load(Ordering::Relaxed);
            PEAK.store(before, Ordering::Relaxed);
            let start = Instant::now();
            let parsed = RuleSet::parse("rules.yaml", &text).expect("generated rules parse");
            best = best.min(start.elapsed());
            kept = LIVE.load(Ordering::Relaxed) - before;
            peak = PEAK.load(Ordering::Relaxed) - before;
            rules = Some(parsed);
        }
        let rules = rules.expect("parsed");
        let mib = |b: usize| b as f64 / 1_048_576.0;
        println!(
            "{:>5}x {:>8} {:>6} {:>7} {:>9.1} | {:>10.1} {:>12.1} {:>12.1} | {:>14.0} {:>14.0} | {:>11.1}",
            m,
            f,
            n,
            p,
            mib(text.len()),
            best.as_secs_f64() * 1000.0,
            mib(kept),
            mib(peak),
            validate_cost(&rules, "networking.k8s.io", "Ingress", "team-1", &ingress),
            validate_cost(&rules, "", "ServiceAccount", "ns-7", &sa),
            rule_configmap_edit(&rules, &text, runs.max(3)).as_secs_f64() * 1000.0,
        );
    }
}
