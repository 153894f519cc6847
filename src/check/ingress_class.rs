//! The cluster's default IngressClass, which `zoneguard check` gives an Ingress offline as the
//! API server's DefaultIngressClass admission plugin does before the webhooks see it.

use serde_json::Value;
use zoneguard_core::source::INGRESS_CLASS_ANNOTATION;

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

/// The warning for an Ingress checked without a class while the rules read only some classes.
pub const UNKNOWN_DEFAULT_WARNING: &str = "this Ingress names no ingress class, so the cluster's default IngressClass (if it has one) is filled in before zoneguard's webhook sees it; zoneguard check does not know that class and checked the Ingress as written: pass --default-ingress-class to check it as the cluster will";

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

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
