//! The match condition of the mutating webhook: a CEL expression, over the admission request
//! the API server is about to send, that is true when some inject rule may add an annotation.
//!
//! With it in the MutatingWebhookConfiguration's `matchConditions`, the API server calls
//! `/mutate` only for objects an inject rule selects (kind, Service type, namespace) and that
//! lack one of its annotations; every other create or update skips the webhook's round trip.
//! The expression is a superset of [`super::plan`]: it may send an object the plan then leaves
//! alone (a template with `{name}` on an object not yet named, a namespace the rules exempt),
//! never the other way round. Every field it reads is guarded with `has()`, so it does not fail
//! on an object: an evaluation error would leave the call to the webhook's failure policy (with
//! the shipped `Ignore`, the object would get no annotations).

use crate::rules::InjectRule;
use crate::source::DEFAULT_SERVICE_TYPE;

/// The name the condition has in the webhook's `matchConditions`.
pub const NAME: &str = "zoneguard-inject-rules";

/// The longest expression written; a longer one (some 300 short inject rules or more) is
/// `true` instead, which sends every object, so that the configuration stays small (the API
/// server accepts more: the end-to-end suite has it evaluate a condition near this cap).
pub const MAX_LEN: usize = 64 * 1024;

/// The condition for `rules` (the combined `inject` list): `false` when there is none, `true`
/// when it would be longer than [`MAX_LEN`].
pub fn expression(rules: &[InjectRule]) -> String {
    if rules.is_empty() {
        return "false".to_string();
    }
    let alternatives: Vec<String> = rules.iter().map(rule).collect();
    let joined = alternatives.join(" || ");
    if joined.len() > MAX_LEN {
        return "true".to_string();
    }
    joined
}

/// One rule: its selectors, and some annotation of it missing. A rule without kinds has no
/// kind test: the webhook receives only the kinds zoneguard injects into
/// ([`INJECT_KINDS`](crate::rules::INJECT_KINDS)).
fn rule(rule: &InjectRule) -> String {
    let mut parts = Vec::new();
    if !rule.kinds.is_empty() {
        parts.push(format!("request.kind.kind in {}", list(&rule.kinds)));
    }
    if !rule.namespaces.is_empty() {
        parts.push(format!("request.namespace in {}", list(&rule.namespaces)));
    }
    if !rule.service_types.is_empty() {
        parts.push(format!(
            "(request.kind.kind != \"Service\" || ((has(object.spec) && has(object.spec.type)) ? object.spec.type : {}) in {})",
            literal(DEFAULT_SERVICE_TYPE),
            list(&rule.service_types)
        ));
    }
    let keys: Vec<&String> = rule.annotations.keys().collect();
    parts.push(format!(
        "!(has(object.metadata) && has(object.metadata.annotations) && {}.all(k, k in object.metadata.annotations))",
        list(&keys)
    ));
    format!("({})", parts.join(" && "))
}

/// A CEL list of string literals.
fn list<S: AsRef<str>>(items: &[S]) -> String {
    let literals: Vec<String> = items.iter().map(|s| literal(s.as_ref())).collect();
    format!("[{}]", literals.join(", "))
}

/// A CEL string literal: double-quoted, with `\`, `"` and control characters escaped.
fn literal(text: &str) -> String {
    let mut out = String::with_capacity(text.len() + 2);
    out.push('"');
    for c in text.chars() {
        match c {
            '\\' => out.push_str("\\\\"),
            '"' => out.push_str("\\\""),
            c if c.is_control() => out.push_str(&format!("\\u{:04x}", c as u32)),
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::BTreeMap;

    fn inject(kinds: &[&str], types: &[&str], namespaces: &[&str], keys: &[&str]) -> InjectRule {
        let own = |v: &[&str]| v.iter().map(|s| s.to_string()).collect();
        InjectRule {
            index: 0,
            kinds: own(kinds),
            service_types: own(types),
            namespaces: own(namespaces),
            annotations: keys
                .iter()
                .map(|k| (k.to_string(), "v".to_string()))
                .collect::<BTreeMap<_, _>>(),
            origin: None,
        }
    }

    #[test]
    fn no_inject_rule_sends_nothing() {
        assert_eq!(expression(&[]), "false");
    }

    #[test]
    fn a_rule_becomes_its_selectors_and_a_missing_annotation() {
        let r = inject(
            &["Service"],
            &["LoadBalancer"],
            &["team-1"],
            &["a.io/x", "a.io/y"],
        );
        assert_eq!(
            expression(&[r]),
            "(request.kind.kind in [\"Service\"] && request.namespace in [\"team-1\"] && \
             (request.kind.kind != \"Service\" || ((has(object.spec) && has(object.spec.type)) ? object.spec.type : \"ClusterIP\") in [\"LoadBalancer\"]) && \
             !(has(object.metadata) && has(object.metadata.annotations) && [\"a.io/x\", \"a.io/y\"].all(k, k in object.metadata.annotations)))"
        );
    }

    #[test]
    fn a_rule_without_kinds_or_namespaces_tests_only_its_annotations() {
        let e = expression(&[inject(&[], &[], &[], &["a.io/x"])]);
        assert_eq!(
            e,
            "(!(has(object.metadata) && has(object.metadata.annotations) && [\"a.io/x\"].all(k, k in object.metadata.annotations)))"
        );
    }

    #[test]
    fn an_expression_longer_than_the_cap_sends_every_object() {
        let key = format!("a.io/{}", "x".repeat(60));
        let rules: Vec<InjectRule> = (0..MAX_LEN / 100)
            .map(|_| inject(&["Service"], &[], &[], &[&key]))
            .collect();
        assert_eq!(expression(&rules), "true");
        assert_ne!(expression(&rules[..10]), "true");
    }

    #[test]
    fn several_rules_are_alternatives() {
        let e = expression(&[
            inject(&["Ingress"], &[], &[], &["a.io/x"]),
            inject(&["HTTPRoute"], &[], &[], &["a.io/y"]),
        ]);
        assert_eq!(e.matches(") || (").count(), 1, "{e}");
    }

    #[test]
    fn string_literals_escape_what_cel_would_read_otherwise() {
        assert_eq!(literal("a.io/x"), "\"a.io/x\"");
        assert_eq!(literal("q\"b\\s\n"), "\"q\\\"b\\\\s\\u000a\"");
    }
}
