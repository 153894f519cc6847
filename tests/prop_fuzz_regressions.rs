//! Replays the fuzz corpus kept in the repository (fuzz/seeds/<target>/ and the inputs the
//! fuzzers found, fuzz/regressions/<target>/) through the same checks the fuzz targets make
//! (fuzz/checks.rs), so every input a fuzzer once tripped on stays a test in `cargo test`.

use crate::checks;
use std::path::Path;

fn replay(target: &str, check: fn(&[u8])) {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("fuzz");
    let mut count = 0;
    for dir in ["seeds", "regressions"] {
        let Ok(entries) = std::fs::read_dir(root.join(dir).join(target)) else {
            continue;
        };
        let mut paths: Vec<_> = entries.filter_map(|e| e.ok().map(|e| e.path())).collect();
        paths.sort();
        for path in paths.into_iter().filter(|p| p.is_file()) {
            let data = std::fs::read(&path).expect("readable input");
            let outcome = std::panic::catch_unwind(|| check(&data));
            assert!(outcome.is_ok(), "{target}: {} panicked", path.display());
            count += 1;
        }
    }
    assert!(
        count > 0,
        "no inputs for {target} under fuzz/seeds or fuzz/regressions"
    );
}

#[test]
fn review_decode_inputs_give_answers_or_errors() {
    replay("review_decode", checks::review_decode);
}

#[test]
fn rules_parse_inputs_give_rules_or_errors() {
    replay("rules_parse", checks::rules_parse);
}

#[test]
fn hostname_match_inputs_never_panic() {
    replay("hostname_match", checks::hostname_match);
}

#[test]
fn selector_match_inputs_give_selectors_or_errors() {
    replay("selector_match", checks::selector_match);
}

#[test]
fn trust_eval_inputs_give_verdicts_or_errors() {
    replay("trust_eval", checks::trust_eval);
}

#[test]
fn fqdn_template_inputs_give_names_or_errors() {
    replay("fqdn_template", checks::fqdn_template);
}
