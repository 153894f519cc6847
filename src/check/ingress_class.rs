//! The cluster's default IngressClass, which `zoneguard check` gives an Ingress offline as the
//! API server's DefaultIngressClass admission plugin does before the webhooks see it.

use serde_json::Value;
use zoneguard_core::rules::RuleSet;
use zoneguard_core::source::{self, Kind, INGRESS_CLASS_ANNOTATION};
use zoneguard_core::tree::Node;

/// Whether the API server would give `ingress` the default class: it has no
/// `spec.ingressClassName` (not even an empty one) and no `kubernetes.io/ingress.class`
/// annotation.
pub fn unclassed(ingress: &Value) -> bool {
    let spec_class = ingress.pointer("/spec/ingressClassName");
    let annotation = ingress
        .pointer("/metadata/annotations")
        .and_then(|a| a.get(INGRESS_CLASS_ANNOTATION));
    spec_class.is_none_or(Value::is_null) && annotation.is_none()
}

/// `ingress` with `spec.ingressClassName` set to `class`, when the API server would default it.
pub fn defaulted(ingress: &Value, class: &str) -> Option<Value> {
    if !unclassed(ingress) {
        return None;
    }
    let mut out = ingress.clone();
    let root = out.as_object_mut()?;
    let spec = root
        .entry("spec")
        .or_insert_with(|| Value::Object(Default::default()));
    if spec.is_null() {
        *spec = Value::Object(Default::default());
    }
    spec.as_object_mut()?
        .insert("ingressClassName".into(), class.into());
    Some(out)
}

/// The hostnames external-dns would publish for `ingress`, which names no class, were it of the
/// first class the rules read: what its class filter kept from being checked.
pub fn hostnames(rules: &RuleSet, namespace: &str, ingress: &Value) -> Vec<String> {
    let Some(class) = rules.sources.ingress_class_names.first() else {
        return Vec::new();
    };
    let Some(classed) = defaulted(ingress, class) else {
        return Vec::new();
    };
    let tree = Node::from(&classed);
    let mut names: Vec<String> = Vec::new();
    for c in source::extract(rules, Kind::Ingress, namespace, &tree).candidates {
        if !names.contains(&c.name) {
            names.push(c.name);
        }
    }
    names
}

/// The most hostnames [`unknown_default_warning`] lists.
const LISTED: usize = 5;

/// The warning for an Ingress that names no class while the rules read only `classes`: as
/// written, external-dns's class filter skips it, so its hostnames `names` were not checked.
pub fn unknown_default_warning(classes: &[String], names: &[String]) -> String {
    let them = match names.len() {
        0 => "it was not checked".to_string(),
        n if n <= LISTED => format!("its hostnames were not checked ({})", names.join(", ")),
        n => format!(
            "its hostnames were not checked ({} and {} more)",
            names[..LISTED].join(", "),
            n - LISTED
        ),
    };
    let object = if names.is_empty() { "it" } else { "them" };
    format!("this Ingress names no ingress class and external-dns reads only the classes of sources.ingressClassNames ({}), so as written it is skipped and {them}; the cluster fills in its default IngressClass, if it has one, before zoneguard's webhook sees the Ingress: pass --default-ingress-class NAME to check {object} as the cluster will", classes.join(", "))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn the_warning_lists_the_unchecked_hostnames_up_to_five() {
        let classes = ["public".to_string()];
        let names: Vec<String> = (1..=7).map(|i| format!("h{i}.example.com")).collect();
        let table = [
            (0, "so as written it is skipped and it was not checked; ", "check it as"),
            (
                1,
                "its hostnames were not checked (h1.example.com); ",
                "check them as",
            ),
            (
                7,
                "not checked (h1.example.com, h2.example.com, h3.example.com, h4.example.com, h5.example.com and 2 more); ",
                "check them as",
            ),
        ];
        for (n, listed, fix) in table {
            let warning = unknown_default_warning(&classes, &names[..n]);
            assert!(
                warning.starts_with("this Ingress names no ingress class and external-dns reads only the classes of sources.ingressClassNames (public)"),
                "{warning}"
            );
            assert!(warning.contains(listed), "{n}: {warning}");
            assert!(
                warning.ends_with(&format!(
                    "pass --default-ingress-class NAME to {fix} the cluster will"
                )),
                "{n}: {warning}"
            );
        }
    }

    #[test]
    fn only_an_ingress_without_a_class_of_either_kind_is_defaulted() {
        let cases = [
            ("no class", json!({"spec": {"rules": []}}), Some("public")),
            (
                "no spec",
                json!({"metadata": {"name": "a"}}),
                Some("public"),
            ),
            ("a null spec", json!({"spec": null}), Some("public")),
            (
                "a null class",
                json!({"spec": {"ingressClassName": null}}),
                Some("public"),
            ),
            ("a class", json!({"spec": {"ingressClassName": "x"}}), None),
            (
                "an empty class",
                json!({"spec": {"ingressClassName": ""}}),
                None,
            ),
            (
                "the annotation",
                json!({"metadata": {"annotations": {"kubernetes.io/ingress.class": "x"}}}),
                None,
            ),
        ];
        for (what, ingress, want) in cases {
            let got = defaulted(&ingress, "public");
            let class = got
                .as_ref()
                .and_then(|v| v.pointer("/spec/ingressClassName"))
                .and_then(Value::as_str);
            assert_eq!(class, want, "{what}");
            assert_eq!(unclassed(&ingress), want.is_some(), "{what}");
        }
    }
}
