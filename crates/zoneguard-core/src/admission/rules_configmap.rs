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
    // Other ConfigMaps that are broken on their own are their own problem, not this edit's.
    let mut sources: Vec<RuleSource<'_>> = others
        .iter()
        .copied()
        .filter(|s| s.name != me && RuleSet::parse(s.name, s.text).is_ok())
        .collect();
    sources.push(RuleSource { name: &me, text });
    if let Err(errors) = RuleSet::from_sources(&sources) {
        decision.allowed = false;
        decision.violations = errors
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
