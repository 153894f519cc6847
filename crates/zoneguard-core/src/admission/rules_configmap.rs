//! zoneguard guards its own rule ConfigMaps: a broken edit is refused at apply time.

use super::{Decision, Request};
use crate::rules::{Read, RuleSet, RuleSource, RulesError};
use crate::tree::Node;
use crate::verdict::{Reason, Violation, Warning};

/// The label that marks a rule ConfigMap, and its data key.
pub const RULES_LABEL: &str = "zoneguard.io/rules";
pub const RULES_KEY: &str = "rules.yaml";

pub fn is_rules_configmap(object: &Node<'_>) -> bool {
    crate::path::at(object, &["metadata", "labels"])
        .and_then(|l| l.get(RULES_LABEL))
        .and_then(Node::as_str)
        == Some("true")
}

/// The rules a rule ConfigMap carries under [`RULES_KEY`], or the message that says the key is
/// missing.
pub fn rules_text<'n>(object: &'n Node<'_>) -> Result<&'n str, String> {
    object
        .get("data")
        .and_then(|d| d.get(RULES_KEY))
        .and_then(Node::as_str)
        .ok_or_else(|| {
            let hint = near_key(object)
                .map(|k| format!(" (found {k}; rename it to {RULES_KEY})"))
                .unwrap_or_default();
            format!("data[{RULES_KEY:?}] is missing: a ConfigMap labelled {RULES_LABEL}=true must carry its rules under the key {RULES_KEY}{hint}")
        })
}

/// A data key that differs from `rules.yaml` only in case or extension (`rules.yml`,
/// `Rules.yaml`, `rules`): most likely meant as it.
fn near_key<'n>(object: &'n Node<'_>) -> Option<&'n str> {
    let data = object.get("data")?.as_object()?;
    let stem = |k: &str| {
        let lower = k.to_ascii_lowercase();
        [".yaml", ".yml", ".json"]
            .iter()
            .find_map(|ext| lower.strip_suffix(ext).map(str::to_string))
            .unwrap_or(lower)
    };
    let want = stem(RULES_KEY);
    data.keys().find(|k| *k != RULES_KEY && stem(k) == want)
}

/// Parses the ConfigMap's rules and combines them with the other rule sources in force.
pub fn validate(req: &Request<'_>, object: &Node<'_>, others: &[RuleSource<'_>]) -> Decision {
    if !is_rules_configmap(object) {
        return Decision::admit();
    }
    let me = format!("ConfigMap {}/{}", req.namespace, req.name);
    let field = format!("data[{RULES_KEY:?}]");
    let mut decision = Decision {
        allowed: true,
        checked: true,
        ..Decision::default()
    };
    let text = match rules_text(object) {
        Ok(text) => text,
        Err(message) => {
            decision.allowed = false;
            let reason = Reason::RulesInvalid;
            decision
                .violations
                .push(Violation::whole(field, "", reason, message));
            return decision;
        }
    };
    let (mine, theirs, warnings) = errors_with_others(&me, text, others);
    decision.warnings = theirs
        .iter()
        .map(|e| Warning::new(not_in_force(e)))
        .chain(
            warnings
                .iter()
                .map(|w| Warning::new(located(&field, &me, w))),
        )
        .collect();
    if !mine.is_empty() {
        decision.allowed = false;
        decision.violations = mine
            .into_iter()
            .map(|e| {
                let message = located(&field, &me, &e);
                Violation::whole(field.clone(), e.key.clone(), Reason::RulesInvalid, message)
            })
            .collect();
    }
    decision
}

/// The errors of the rules `text` of ConfigMap `me` combined with the other rule sources in
/// force: this edit's own (its text alone, or a conflict it makes), and the others' (one broken
/// on its own, or two in conflict), which keep this edit out of force until they are fixed but
/// are not this edit's fault. When there are none of its own, the warnings about its own text
/// in the combined rules. Each source is read once: those that read alone are combined.
fn errors_with_others(
    me: &str,
    text: &str,
    others: &[RuleSource<'_>],
) -> (Vec<RulesError>, Vec<String>, Vec<RulesError>) {
    let mut theirs = Vec::new();
    let mut read = Vec::with_capacity(others.len() + 1);
    for &other in others.iter().filter(|s| s.name != me) {
        match Read::of(other, true) {
            Ok(one) => read.push(one),
            Err(errors) => theirs.push(
                errors
                    .first()
                    .map_or_else(|| other.name.to_string(), ToString::to_string),
            ),
        }
    }
    let mine = RuleSource { name: me, text };
    match Read::of(mine, !read.is_empty()) {
        Ok(one) => read.push(one),
        Err(errors) => return (errors, theirs, Vec::new()),
    }
    let errors = match RuleSet::combined(read) {
        Ok(rules) => {
            let mut warnings = rules.warnings;
            warnings.retain(|w| w.source_name == me);
            return (Vec::new(), theirs, warnings);
        }
        Err(errors) => errors,
    };
    let (mine, conflicts): (Vec<_>, Vec<_>) = errors
        .into_iter()
        .partition(|e| e.source_name == me || e.message.contains(me));
    theirs.extend(conflicts.iter().map(ToString::to_string));
    (mine, theirs, Vec::new())
}

/// An error (or a warning) of this edit's rules as its denial says it: the ConfigMap is named once, before
/// (`ConfigMap zoneguard/rules: data["rules.yaml"] line 3: regexDomainFilter: …`); an error
/// another source is charged with keeps that source's name.
fn located(field: &str, me: &str, e: &RulesError) -> String {
    match (e.source_name == me, e.line) {
        (true, 0) => format!("{field}: {}: {}", e.key, e.message),
        (true, line) => format!("{field} line {line}: {}: {}", e.key, e.message),
        (false, _) => format!("{field}: {e}"),
    }
}

/// The warning for another rule source's error, which keeps this edit out of force.
fn not_in_force(error: &str) -> String {
    format!("another rule ConfigMap is invalid ({error}); until it is fixed zoneguard keeps the last valid rule set, so this edit takes effect only then")
}
