//! Table-driven tests of parsing, checking and combining rules documents, one file per topic; the
//! helpers they share.

use super::*;

mod combine;
mod compile;
mod document;
mod errors;
mod iam;
mod inject;
mod lint;

fn errors_of(text: &str) -> Vec<RulesError> {
    RuleSet::parse("rules.yaml", text).err().unwrap_or_default()
}

fn one_error(text: &str) -> RulesError {
    let errors = errors_of(text);
    assert_eq!(
        errors.len(),
        1,
        "expected one error for {text:?}, got {errors:?}"
    );
    errors.into_iter().next().unwrap_or_else(|| unreachable!())
}

fn combined(a: &str, b: &str) -> Result<RuleSet, Vec<RulesError>> {
    named_sources(&[("a.yaml", a), ("b.yaml", b)])
}

/// Where each warning of `rules` stands: its source, line and key.
fn warned_at(rules: &RuleSet) -> Vec<(&str, usize, &str)> {
    let warnings = rules.warnings.iter();
    warnings
        .map(|w| (w.source_name.as_str(), w.line, w.key.as_str()))
        .collect()
}

/// The rule set of the sources `(name, text)`, in order.
fn named_sources(sources: &[(&str, &str)]) -> Result<RuleSet, Vec<RulesError>> {
    let sources: Vec<RuleSource> = (sources.iter())
        .map(|&(name, text)| RuleSource { name, text })
        .collect();
    RuleSet::from_sources(&sources)
}
