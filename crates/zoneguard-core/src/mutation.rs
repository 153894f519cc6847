//! The patch plan (SPEC §3): annotations that inject rules add when an object lacks them.

use crate::annotation;
use crate::rules::{InjectRule, RuleSet};
use serde_json::{json, Map, Value};

/// One annotation to add, and the rule that asks for it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Injection {
    /// Index of the rule in the combined `inject` list.
    pub rule: usize,
    pub key: String,
    pub value: String,
}

/// Checks a template: only `{name}` and `{namespace}` placeholders.
pub fn check_template(template: &str) -> Result<(), String> {
    let mut rest = template;
    while let Some(open) = rest.find('{') {
        let after = &rest[open + 1..];
        let Some(close) = after.find('}') else {
            return Err(format!("{template:?} has a '{{' without a closing '}}'"));
        };
        let placeholder = &after[..close];
        if placeholder != "name" && placeholder != "namespace" {
            return Err(format!("{template:?} uses {{{placeholder}}}; the placeholders are {{name}} and {{namespace}}"));
        }
        rest = &after[close + 1..];
    }
    Ok(())
}

/// `template` with `{name}` and `{namespace}` filled in, in one pass (a filled-in value is never
/// read as a placeholder).
fn render(template: &str, name: &str, namespace: &str) -> String {
    let mut out = String::with_capacity(template.len() + name.len() + namespace.len());
    let mut rest = template;
    while let Some(open) = rest.find('{') {
        out.push_str(&rest[..open]);
        let from = &rest[open..];
        rest = if let Some(after) = from.strip_prefix("{name}") {
            out.push_str(name);
            after
        } else if let Some(after) = from.strip_prefix("{namespace}") {
            out.push_str(namespace);
            after
        } else {
            out.push('{');
            &from[1..]
        };
    }
    out.push_str(rest);
    out
}

fn applies(rule: &InjectRule, kind: &str, namespace: &str, object: &Value) -> bool {
    let kind_ok = if rule.kinds.is_empty() {
        crate::rules::INJECT_KINDS.contains(&kind)
    } else {
        rule.kinds.iter().any(|k| k == kind)
    };
    let ns_ok = rule.namespaces.is_empty() || rule.namespaces.iter().any(|n| n == namespace);
    let type_ok = kind != "Service" || rule.service_types.is_empty() || {
        let ty = crate::path::at(object, &["spec", "type"])
            .and_then(Value::as_str)
            .unwrap_or("ClusterIP");
        rule.service_types.iter().any(|t| t == ty)
    };
    kind_ok && ns_ok && type_ok
}

/// The annotations to add, in rule order; an annotation the object has, or an earlier rule
/// adds, is never touched. Templates using `{name}` are skipped while the name is unknown.
pub fn plan(
    rules: &RuleSet,
    kind: &str,
    namespace: &str,
    name: &str,
    object: &Value,
) -> Vec<Injection> {
    let existing = annotation::map(object);
    let mut out: Vec<Injection> = Vec::new();
    for rule in rules
        .inject
        .iter()
        .filter(|r| applies(r, kind, namespace, object))
    {
        for (key, template) in &rule.annotations {
            let present =
                existing.is_some_and(|a| a.contains_key(key)) || out.iter().any(|i| &i.key == key);
            if present || (name.is_empty() && template.contains("{name}")) {
                continue;
            }
            out.push(Injection {
                rule: rule.index,
                key: key.clone(),
                value: render(template, name, namespace),
            });
        }
    }
    out
}

/// Appends `token` to `out`, escaped as a JSON Pointer token (RFC 6901: `~` → `~0`, `/` → `~1`).
fn escape_into(out: &mut String, token: &str) {
    let mut rest = token;
    while let Some(at) = rest.find(['~', '/']) {
        out.push_str(&rest[..at]);
        out.push_str(if rest.as_bytes()[at] == b'~' {
            "~0"
        } else {
            "~1"
        });
        rest = &rest[at + 1..];
    }
    out.push_str(rest);
}

/// The JSON Pointer of the annotation `key`.
fn annotation_pointer(key: &str) -> String {
    const PARENT: &str = "/metadata/annotations/";
    let mut out = String::with_capacity(PARENT.len() + key.len() + 4);
    out.push_str(PARENT);
    escape_into(&mut out, key);
    out
}

/// The JSON Patch that adds `injections` to `object` (creating `metadata.annotations` if needed).
pub fn to_patch(object: &Value, injections: &[Injection]) -> Vec<Value> {
    if injections.is_empty() {
        return Vec::new();
    }
    if annotation::map(object).is_some() {
        return injections
            .iter()
            .map(|i| json!({"op": "add", "path": annotation_pointer(&i.key), "value": i.value}))
            .collect();
    }
    let map: Map<String, Value> = injections
        .iter()
        .map(|i| (i.key.clone(), Value::String(i.value.clone())))
        .collect();
    if object.get("metadata").is_some_and(Value::is_object) {
        vec![json!({"op": "add", "path": "/metadata/annotations", "value": map})]
    } else {
        vec![json!({"op": "add", "path": "/metadata", "value": {"annotations": map}})]
    }
}

/// The object's annotations with the injections added, in an object that holds nothing else:
/// all the rules read to judge an injected value (its hostname, TTL or source annotation).
pub fn annotations_after(object: &Value, injections: &[Injection]) -> Value {
    let mut annotations = annotation::map(object).cloned().unwrap_or_default();
    for i in injections {
        annotations.insert(i.key.clone(), Value::String(i.value.clone()));
    }
    json!({"metadata": {"annotations": annotations}})
}

/// `object` with the patch applied.
pub fn apply(object: &Value, patch: &[Value]) -> Result<Value, String> {
    let ops: json_patch::Patch =
        serde_json::from_value(Value::Array(patch.to_vec())).map_err(|e| e.to_string())?;
    let mut out = object.clone();
    json_patch::patch(&mut out, &ops).map_err(|e| e.to_string())?;
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_template_is_filled_in_one_pass() {
        let table = [
            (
                "{name}.apps.example.com",
                "web",
                "shop",
                "web.apps.example.com",
            ),
            (
                "{name}.{namespace}.example.com",
                "web",
                "shop",
                "web.shop.example.com",
            ),
            ("static.example.com", "web", "shop", "static.example.com"),
            ("{namespace}{name}", "a", "b", "ba"),
            ("{other} and {", "web", "shop", "{other} and {"),
            // A value that looks like a placeholder is not filled in again.
            (
                "{name}-{namespace}",
                "{namespace}",
                "shop",
                "{namespace}-shop",
            ),
            ("", "web", "shop", ""),
        ];
        for (template, name, namespace, want) in table {
            assert_eq!(render(template, name, namespace), want, "{template}");
        }
    }

    #[test]
    fn an_annotation_key_is_escaped_as_a_json_pointer_token() {
        let table = [
            (
                "external-dns.alpha.kubernetes.io/hostname",
                "external-dns.alpha.kubernetes.io~1hostname",
            ),
            ("a~b/c", "a~0b~1c"),
            ("~1", "~01"),
            ("//", "~1~1"),
            ("plain", "plain"),
            ("", ""),
        ];
        for (key, want) in table {
            assert_eq!(
                annotation_pointer(key),
                format!("/metadata/annotations/{want}"),
                "{key}"
            );
        }
    }
}
