//! Decisions for whole objects: hostnames, annotations, IRSA, modes, UPDATE, mutation; one file
//! per topic, and the helpers they share.

use super::*;
use crate::verdict::Reason;
use serde_json::{json, Value};

mod hostnames;
mod mutation;
mod outcome;
mod rules_configmap;
mod srv;

const RULES: &str = r#"
domainFilters: [example.com]
excludeDomains: [internal.example.com]
namespaces:
  team-a: { domainFilters: [team-a.example.com] }
inject:
  - kinds: [Service]
    serviceTypes: [LoadBalancer]
    annotations:
      external-dns.alpha.kubernetes.io/hostname: "{name}.{namespace}.example.com"
      external-dns.alpha.kubernetes.io/ttl: "60"
"#;

/// The warnings' texts, as kubectl shows them.
fn warning_texts(d: &Decision) -> Vec<String> {
    d.warnings.iter().map(Warning::to_string).collect()
}

fn rules(text: &str) -> RuleSet {
    RuleSet::parse("test", text).unwrap_or_else(|e| panic!("{e:?}"))
}

fn req<'a>(
    op: Operation,
    group: &'a str,
    kind: &'a str,
    ns: &'a str,
    object: &'a Node<'a>,
    old: Option<&'a Node<'a>>,
) -> Request<'a> {
    let name = crate::path::at(object, &["metadata", "name"])
        .and_then(Node::as_str)
        .unwrap_or("");
    Request {
        operation: op,
        group,
        version: "v1",
        kind,
        namespace: ns,
        name,
        object: Some(object),
        old_object: old,
        sub_resource: None,
    }
}

/// The tree the checks read `object` as.
fn tree(object: &Value) -> Node<'_> {
    Node::from(object)
}

fn ingress(hosts: &[&str], annotations: Value) -> Value {
    let rules: Vec<Value> = hosts.iter().map(|h| json!({"host": h})).collect();
    json!({"apiVersion": "networking.k8s.io/v1", "kind": "Ingress", "metadata": {"name": "web", "annotations": annotations}, "spec": {"rules": rules}})
}

fn reasons(d: &Decision) -> Vec<(String, Reason)> {
    d.violations
        .iter()
        .map(|v| (v.field.clone(), v.reason))
        .collect()
}

fn validate_ingress(rules_text: &str, ns: &str, object: &Value) -> Decision {
    validate(
        &rules(rules_text),
        &req(
            Operation::Create,
            "networking.k8s.io",
            "Ingress",
            ns,
            &tree(object),
            None,
        ),
    )
}

fn lb_service(annotations: Option<Value>) -> Value {
    let mut svc = json!({"apiVersion": "v1", "kind": "Service", "metadata": {"name": "api"}, "spec": {"type": "LoadBalancer"}});
    if let Some(a) = annotations {
        svc["metadata"]["annotations"] = a;
    }
    svc
}

/// The decision's patch as the JSON the API server receives.
fn patch_json(d: &Decision) -> Value {
    serde_json::to_value(&d.patch).unwrap_or_default()
}

/// The test rules with an inject rule whose hostname the domain filters refuse.
fn refusing_inject_rules() -> String {
    RULES.replace(
        "{name}.{namespace}.example.com",
        "{name}.{namespace}.other.org",
    )
}

/// /mutate for an UPDATE of a Service in `default` that leaves it as it was.
fn update_service(rules: &RuleSet, service: &Node<'_>) -> Decision {
    mutate(
        rules,
        &req(
            Operation::Update,
            "",
            "Service",
            "default",
            service,
            Some(service),
        ),
    )
}

/// Whether /mutate admits an Ingress of `web.example.com` once `sources` is in the rules and
/// an inject rule adds the hostname `web.other.org`, for each `(path, value, allowed)`: the
/// Ingress with `value` at `path` (e.g. its class), and whether it should be admitted. A
/// refused name is never injected.
fn injected_hostname_verdicts(sources: &str, cases: &[(&[&str], serde_json::Value, bool)]) {
    let rules = rules(&format!(
        "domainFilters: [example.com]\nsources: {sources}\ninject:\n  - kinds: [Ingress]\n    annotations: {{external-dns.alpha.kubernetes.io/hostname: '{{name}}.other.org'}}\n"
    ));
    for (path, value, allowed) in cases {
        let mut object = ingress(&["web.example.com"], json!({}));
        object[path[0]][path[1]] = value.clone();
        let object = tree(&object);
        let request = req(
            Operation::Create,
            "networking.k8s.io",
            "Ingress",
            "default",
            &object,
            None,
        );
        let d = mutate(&rules, &request);
        assert_eq!(d.allowed, *allowed, "{value}: {:?}", d.violations);
        assert_eq!(
            d.patch.len(),
            usize::from(*allowed),
            "{value}: injected when admitted"
        );
    }
}

/// Mutating a LoadBalancer Service with `annotations` in namespace `pay` under `rules_text` is
/// refused for the injected annotation `external-dns.alpha.kubernetes.io/<name>` alone, blamed
/// on its inject rule, with `needle` in the message.
fn assert_blamed_injection(rules_text: &str, annotations: Option<Value>, name: &str, needle: &str) {
    let svc = lb_service(annotations);
    let d = mutate(
        &rules(rules_text),
        &req(Operation::Create, "", "Service", "pay", &tree(&svc), None),
    );
    let field = format!("metadata.annotations[\"external-dns.alpha.kubernetes.io/{name}\"]");
    assert_eq!(reasons(&d), vec![(field, Reason::AnnotationInvalid)]);
    let message = &d.violations[0].message();
    assert!(
        message.contains("inject[0] of test") && message.contains(needle),
        "{message}"
    );
}

fn validate_kind(rules_text: &str, group: &str, kind: &str, ns: &str, object: &Value) -> Decision {
    validate(
        &rules(rules_text),
        &req(Operation::Create, group, kind, ns, &tree(object), None),
    )
}

/// A review writing rule ConfigMap `zoneguard/<name>` with `rules_yaml`, judged under `rules`
/// with the other rule sources in force.
fn review_rules_configmap(
    rules: &RuleSet,
    op: Operation,
    name: &str,
    rules_yaml: &str,
    others: &[RuleSource<'_>],
) -> Decision {
    let cm = json!({"metadata": {"name": name, "labels": {"zoneguard.io/rules": "true"}}, "data": {"rules.yaml": rules_yaml}});
    validate_with_rule_sources(
        rules,
        &req(op, "", "ConfigMap", "zoneguard", &tree(&cm), None),
        others,
    )
}

fn node_port_service(name: &str, annotations: Value, ports: Value) -> Value {
    json!({"apiVersion": "v1", "kind": "Service", "metadata": {"name": name, "annotations": annotations},
           "spec": {"type": "NodePort", "ports": ports}})
}

/// `(field, value, reason)` of each violation.
fn verdicts(d: &Decision) -> Vec<(String, String, Reason)> {
    d.violations
        .iter()
        .map(|v| (v.field.clone(), v.value.clone(), v.reason))
        .collect()
}

const HOSTNAME_0: &str = r#"metadata.annotations["external-dns.alpha.kubernetes.io/hostname"][0]"#;
