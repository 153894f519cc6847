//! The patch plan: annotations that inject rules add when an object lacks them.

use crate::annotation;
use crate::rules::{InjectRule, RuleSet};
use crate::source;
use crate::tree::{Node, Object};
use json_patch::jsonptr::PointerBuf;
use json_patch::{AddOperation, PatchOperation};
use serde::Serialize;
use serde_json::{json, Map, Value};
use std::borrow::Cow;

pub mod condition;

/// One annotation to add, and the rule that asks for it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Injection {
    /// Index of the rule in the combined `inject` list ([`RuleSet::inject_rule_name`] names
    /// it by its source and its index there).
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
        if let Some(inner) = placeholder.strip_prefix('{') {
            return Err(format!("{template:?} uses {{{{{inner}}}}}; a placeholder takes single braces: {{name}} or {{namespace}}"));
        }
        if placeholder != "name" && placeholder != "namespace" {
            return Err(format!("{template:?} uses {{{placeholder}}}; the placeholders are {{name}} and {{namespace}}"));
        }
        rest = &after[close + 1..];
    }
    Ok(())
}

/// `template` with `{name}` and `{namespace}` filled in, in one pass (a filled-in value is never
/// read as a placeholder).
pub(crate) fn render(template: &str, name: &str, namespace: &str) -> String {
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

fn applies(rule: &InjectRule, kind: &str, namespace: &str, object: &Node<'_>) -> bool {
    let kind_ok = if rule.kinds.is_empty() {
        crate::rules::INJECT_KINDS.contains(&kind)
    } else {
        rule.kinds.iter().any(|k| k == kind)
    };
    let ns_ok = rule.namespaces.is_empty() || rule.namespaces.iter().any(|n| n == namespace);
    let type_ok = kind != "Service" || rule.service_types.is_empty() || {
        let ty = crate::source::service_type(object);
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
    object: &Node<'_>,
) -> Vec<Injection> {
    let mut out: Vec<Injection> = Vec::new();
    for_missing(rules, kind, namespace, object, |rule, key, template| {
        let added = out.iter().any(|i| i.key == key);
        let waits_for_name = name.is_empty() && template.contains("{name}");
        if !added && !waits_for_name {
            out.push(Injection {
                rule,
                key: key.to_string(),
                value: render(template, name, namespace),
            });
        }
    });
    out
}

/// The annotations [`plan`] leaves out of an object with no name yet (only `generateName`),
/// as (rule index, key): those whose template uses `{name}`, missing from the object.
pub fn waiting_for_name<'r>(
    rules: &'r RuleSet,
    kind: &str,
    namespace: &str,
    object: &Node<'_>,
) -> Vec<(usize, &'r str)> {
    let mut out: Vec<(usize, &str)> = Vec::new();
    for_missing(rules, kind, namespace, object, |rule, key, template| {
        if template.contains("{name}") && !out.iter().any(|(_, k)| *k == key) {
            out.push((rule, key));
        }
    });
    out
}

/// Calls `visit` with each (rule index, key, template) of the inject rules that apply to
/// `object`, in rule order, whose key the object does not have. (A callback, not an iterator:
/// this is on every `/mutate` request, and the nested loops cost less than a `flat_map`.)
fn for_missing<'r>(
    rules: &'r RuleSet,
    kind: &str,
    namespace: &str,
    object: &Node<'_>,
    mut visit: impl FnMut(usize, &'r str, &'r str),
) {
    let existing = annotation::map(object);
    for rule in rules
        .inject
        .iter()
        .filter(|r| applies(r, kind, namespace, object))
    {
        for (key, template) in &rule.annotations {
            if !existing.is_some_and(|a| a.contains_key(key)) {
                visit(rule.index, key, template);
            }
        }
    }
}

/// One operation of the JSON Patch (RFC 6902) a mutation answers with: zoneguard only adds.
/// It serializes as `{"op":"add","path":…,"value":…}`; [`apply`] applies it with `json_patch`.
/// (`json_patch::PatchOperation` holds its path as a parsed pointer, and building one costs
/// several times what building the path does, on every admitted mutation.)
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(tag = "op", rename = "add")]
pub struct AddOp {
    /// A JSON Pointer (RFC 6901).
    pub path: String,
    pub value: Value,
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
pub fn to_patch(object: &Node<'_>, injections: &[Injection]) -> Vec<AddOp> {
    if injections.is_empty() {
        return Vec::new();
    }
    if annotation::map(object).is_some() {
        return injections
            .iter()
            .map(|i| AddOp {
                path: annotation_pointer(&i.key),
                value: Value::String(i.value.clone()),
            })
            .collect();
    }
    let map: Map<String, Value> = injections
        .iter()
        .map(|i| (i.key.clone(), Value::String(i.value.clone())))
        .collect();
    if object.get("metadata").is_some_and(Node::is_object) {
        vec![AddOp {
            path: "/metadata/annotations".into(),
            value: Value::Object(map),
        }]
    } else {
        vec![AddOp {
            path: "/metadata".into(),
            value: json!({"annotations": map}),
        }]
    }
}

/// The object's annotations with the injections added, in an object that holds nothing else
/// but the `spec` fields of [`source::PUBLISHING_SPEC_FIELDS`], and its labels when
/// external-dns reads them ([`SourceFlags::reads_labels`](crate::rules::SourceFlags::reads_labels)):
/// all the rules read to judge an injected value (its hostname, TTL or source annotation),
/// whether external-dns reads the object (its label and annotation filters, Ingress class or
/// Service type) and whether a Service publishes it. Without those
/// every Service would read as ClusterIP, and judging its hostname would write a warning.
pub fn annotations_after<'a>(
    rules: &RuleSet,
    object: &Node<'a>,
    injections: &'a [Injection],
) -> Node<'a> {
    let mut annotations = annotation::map(object).cloned().unwrap_or_default();
    for i in injections {
        let value = Node::String(Cow::Borrowed(&i.value));
        annotations.insert(Cow::Borrowed(&i.key), value);
    }
    let mapping = |members| Node::Object(Object::new(members));
    let mut metadata = vec![(Cow::Borrowed("annotations"), Node::Object(annotations))];
    let labels = crate::path::at(object, &["metadata", "labels"]);
    if let Some(labels) = labels.filter(|_| rules.sources.reads_labels()) {
        metadata.push((Cow::Borrowed("labels"), labels.clone()));
    }
    let spec = object.get("spec");
    let mut publishing: Vec<_> = source::PUBLISHING_SPEC_FIELDS
        .into_iter()
        .filter_map(|key| Some((Cow::Borrowed(key), spec?.get(key)?.clone())))
        .collect();
    // A NodePort Service's SRV names are made of its name and ports: an injected hostname's
    // SRV names are then judged as the rule's too.
    let node_port = spec.and_then(|s| s.get("type")).and_then(Node::as_str) == Some("NodePort");
    if let Some(ports) = spec.and_then(|s| s.get("ports")).filter(|_| node_port) {
        publishing.push((Cow::Borrowed("ports"), ports.clone()));
        if let Some(name) = crate::path::at(object, &["metadata", "name"]) {
            metadata.push((Cow::Borrowed("name"), name.clone()));
        }
    }
    let mut members = vec![(Cow::Borrowed("metadata"), mapping(metadata))];
    if !publishing.is_empty() {
        members.push((Cow::Borrowed("spec"), mapping(publishing)));
    }
    mapping(members)
}

/// `object` with the patch applied.
pub fn apply(object: &Value, patch: &[AddOp]) -> Result<Value, String> {
    let ops = patch
        .iter()
        .map(|op| {
            let path = PointerBuf::parse(op.path.as_str()).map_err(|e| e.to_string())?;
            let value = op.value.clone();
            Ok(PatchOperation::Add(AddOperation { path, value }))
        })
        .collect::<Result<Vec<_>, String>>()?;
    let mut out = object.clone();
    json_patch::patch(&mut out, &ops).map_err(|e| e.to_string())?;
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_template_names_only_the_two_placeholders_in_single_braces() {
        let table = [
            ("{name}.{namespace}.example.com", None),
            ("plain", None),
            (
                "{bogus}.example.com",
                Some("uses {bogus}; the placeholders are {name} and {namespace}"),
            ),
            ("{name.example.com", Some("has a '{' without a closing '}'")),
            (
                "{{name}}.example.com",
                Some("uses {{name}}; a placeholder takes single braces"),
            ),
        ];
        for (template, want) in table {
            let got = check_template(template).err();
            match (got, want) {
                (None, None) => {}
                (Some(got), Some(want)) => assert!(got.contains(want), "{template}: {got}"),
                (got, _) => panic!("{template}: {got:?}, want {want:?}"),
            }
        }
    }

    #[test]
    fn the_object_after_injection_holds_its_annotations_and_publishing_fields() {
        let rules = RuleSet::parse("r", "").expect("rules");
        let labelled = RuleSet::parse("r", "sources: {labelFilter: a}").expect("rules");
        let service = json!({"metadata": {"name": "a", "annotations": {"team": "x"}},
                             "spec": {"type": "LoadBalancer", "clusterIP": "10.0.0.1"}});
        let object = Node::from(&service);
        let injections = [Injection {
            rule: 0,
            key: "external-dns.alpha.kubernetes.io/ttl".into(),
            value: "60".into(),
        }];
        let after = annotations_after(&rules, &object, &injections);
        let want = json!({"metadata": {"annotations": {"team": "x", "external-dns.alpha.kubernetes.io/ttl": "60"}},
                          "spec": {"type": "LoadBalancer", "clusterIP": "10.0.0.1"}});
        assert_eq!(after.to_value(), want);
        // An Ingress keeps its class: external-dns may read only some classes.
        let ingress =
            json!({"metadata": {"name": "i"}, "spec": {"ingressClassName": "public", "rules": []}});
        let want = json!({"metadata": {"annotations": {"external-dns.alpha.kubernetes.io/ttl": "60"}},
                          "spec": {"ingressClassName": "public"}});
        assert_eq!(
            annotations_after(&rules, &Node::from(&ingress), &injections).to_value(),
            want
        );
        let route = json!({"metadata": {"name": "r"}, "spec": {"hostnames": ["a.example.com"]}});
        let route = Node::from(&route);
        let want =
            json!({"metadata": {"annotations": {"external-dns.alpha.kubernetes.io/ttl": "60"}}});
        assert_eq!(
            annotations_after(&rules, &route, &injections).to_value(),
            want
        );
        // A NodePort Service keeps its name and ports: its SRV names are made of them.
        let node_port = json!({"metadata": {"name": "web", "labels": {"a": "b"}},
                               "spec": {"type": "NodePort", "ports": [{"port": 80}], "selector": {}}});
        // Its labels stay too when external-dns reads only some labels (sources.labelFilter).
        let want = json!({"metadata": {"name": "web", "labels": {"a": "b"},
                                       "annotations": {"external-dns.alpha.kubernetes.io/ttl": "60"}},
                          "spec": {"type": "NodePort", "ports": [{"port": 80}]}});
        let after = annotations_after(&labelled, &Node::from(&node_port), &injections);
        assert_eq!(after.to_value(), want);
        let after = annotations_after(&rules, &Node::from(&node_port), &injections);
        let mut unlabelled = want;
        unlabelled["metadata"]
            .as_object_mut()
            .map(|m| m.remove("labels"));
        assert_eq!(after.to_value(), unlabelled);
    }

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
    fn an_add_operation_is_written_as_rfc_6902_and_applied_by_json_patch() {
        let op = AddOp {
            path: "/metadata/annotations/a~1b".into(),
            value: json!("v"),
        };
        let wire = serde_json::to_value(&op).unwrap_or_default();
        assert_eq!(
            wire,
            json!({"op": "add", "path": "/metadata/annotations/a~1b", "value": "v"})
        );
        let parsed: json_patch::PatchOperation = serde_json::from_value(wire).unwrap();
        assert_eq!(parsed.path().as_str(), op.path);
        let object = json!({"metadata": {"annotations": {}}});
        let want = json!({"metadata": {"annotations": {"a/b": "v"}}});
        assert_eq!(apply(&object, &[op]), Ok(want));
    }

    #[test]
    fn applying_a_malformed_or_impossible_operation_is_an_error() {
        let object = json!({"metadata": {}});
        for path in ["metadata", "/metadata/a~2", "/spec/x"] {
            let op = AddOp {
                path: path.into(),
                value: json!(1),
            };
            assert!(apply(&object, &[op]).is_err(), "{path}");
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
