//! zoneguard guards its own rule ConfigMaps: a broken edit is refused at apply time.

use super::{Decision, Request};
use crate::rules::{RuleSet, RuleSource};
use crate::tree::Node;
use crate::verdict::{Reason, Violation};

/// The label that marks a rule ConfigMap, and its data key.
pub const RULES_LABEL: &str = "zoneguard.io/rules";
pub const RULES_KEY: &str = "rules.yaml";

pub fn is_rules_configmap(object: &Node<'_>) -> bool {
    crate::path::at(object, &["metadata", "labels"])
        .and_then(|l| l.get(RULES_LABEL))
        .and_then(Node::as_str)
        == Some("true")
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
    let Some(text) = object
        .get("data")
        .and_then(|d| d.get(RULES_KEY))
        .and_then(Node::as_str)
    else {
        decision.allowed = false;
        decision.violations.push(Violation {
            field: field.clone(),
            value: String::new(),
            reason: Reason::RulesInvalid,
            message: format!("{field} is missing: a ConfigMap labelled {RULES_LABEL}=true must carry its rules under the key {RULES_KEY}"),
        });
        return decision;
    };
    // Other ConfigMaps that are broken on their own are their own problem, not this edit's;
    // but until they are fixed the rules in force stay the last valid set, which this edit
    // is not part of yet, and the warning says so.
    let mut sources: Vec<RuleSource<'_>> = Vec::with_capacity(others.len() + 1);
    for other in others.iter().filter(|s| s.name != me) {
        match RuleSet::parse(other.name, other.text) {
            Ok(_) => sources.push(*other),
            Err(errors) => {
                let first = errors
                    .first()
                    .map_or_else(|| other.name.to_string(), |e| e.to_string());
                decision.warnings.push(not_in_force(&first));
            }
        }
    }
    sources.push(RuleSource { name: &me, text });
    let Err(errors) = RuleSet::from_sources(&sources) else {
        return decision;
    };
    // A conflict between two other ConfigMaps is theirs too.
    let (mine, theirs): (Vec<_>, Vec<_>) = errors
        .into_iter()
        .partition(|e| e.source_name == me || e.message.contains(&me));
    for e in &theirs {
        decision.warnings.push(not_in_force(&e.to_string()));
    }
    if !mine.is_empty() {
        decision.allowed = false;
        decision.violations = mine
            .into_iter()
            .map(|e| Violation {
                field: field.clone(),
                value: e.key.clone(),
                reason: Reason::RulesInvalid,
                message: format!("{field}: {e}"),
            })
            .collect();
    }
    decision
}

/// The warning for another rule source's error, which keeps this edit out of force.
fn not_in_force(error: &str) -> String {
    format!("another rule ConfigMap is invalid ({error}); until it is fixed zoneguard keeps the last valid rule set, so this edit takes effect only then")
}
