//! ns per `DomainFilter::matches` call at 10, 1 000 and 100 000 filters, for a name
//! that matches and one that does not. The cost should not grow with the filter count.

use std::hint::black_box;
use std::time::Duration;

use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion};
use zoneguard_core::filter::{DomainFilter, FilterSpec};

/// Filter counts to measure.
const SIZES: [usize; 3] = [10, 1_000, 100_000];

/// `n` include filters (a quarter with a leading dot) and `n / 10` exclusions.
fn spec(n: usize) -> FilterSpec {
    FilterSpec {
        include: (0..n)
            .map(|i| {
                let dot = if i % 4 == 0 { "." } else { "" };
                format!("{dot}team-{i}.example.com")
            })
            .collect(),
        exclude: (0..n / 10)
            .map(|i| format!("internal.team-{i}.example.com"))
            .collect(),
        ..FilterSpec::default()
    }
}

/// Names to match against a filter of `n` items: (label, name).
fn names(n: usize) -> [(&'static str, String); 3] {
    let last = n - 1 - usize::from((n - 1).is_multiple_of(4));
    [
        ("match", format!("api.svc.team-{last}.example.com")),
        ("miss", "api.svc.team-x.example.org".to_owned()),
        (
            "match-upper-dot",
            format!("API.SVC.TEAM-{last}.EXAMPLE.COM."),
        ),
    ]
}

fn domain_match(c: &mut Criterion) {
    let mut group = c.benchmark_group("domain_match");
    group
        .measurement_time(Duration::from_secs(2))
        .warm_up_time(Duration::from_millis(500))
        .sample_size(50);
    for n in SIZES {
        let filter = DomainFilter::new(&spec(n)).expect("plain filters compile");
        for (label, name) in names(n) {
            assert_eq!(filter.matches(&name), label != "miss", "{label} at {n}");
            group.bench_with_input(BenchmarkId::new(label, n), &name, |b, name| {
                b.iter(|| filter.matches(black_box(name)))
            });
        }
    }
    group.finish();
}

criterion_group!(benches, domain_match);
criterion_main!(benches);
