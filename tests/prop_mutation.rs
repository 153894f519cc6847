//! Property tests of the mutating webhook's patch over random inject rules, templates,
//! objects and existing annotations:
//!
//! - the patch applies cleanly (RFC 6902, applied here with the `json-patch` crate, not the core's
//!   own helper);
//! - mutation is idempotent: mutating the patched object yields no patch, and applying the same
//!   patch a second time changes nothing (patch twice = patch once);
//! - it never overwrites: every annotation the object had keeps its value, nothing outside
//!   `metadata.annotations` changes, and each added annotation is the first applicable rule's
//!   rendered template.

use proptest::prelude::*;
use serde_json::{json, Map, Value};
use std::collections::BTreeMap;
use zoneguard_core::admission::{self, Operation, Request};
use zoneguard_core::mutation::AddOp;
use zoneguard_core::rules::{InjectRule, RuleSet};
use zoneguard_core::tree::Node;

/// Annotation keys: a few shared ones (so rules and objects collide), and keys with `/` and `~`
/// to exercise JSON Pointer escaping.
fn key() -> impl Strategy<Value = String> {
    prop_oneof![
        Just("external-dns.alpha.kubernetes.io/ttl".to_owned()),
        Just("example.com/owner".to_owned()),
        Just("example.com/team".to_owned()),
        Just("a~b/c~1d".to_owned()),
        Just("plain".to_owned()),
        "[a-z]{1,4}(\\.[a-z]{1,3})?/[a-z~/]{1,5}",
    ]
}

/// Templates: literal text and the two placeholders.
fn template() -> impl Strategy<Value = String> {
    prop::collection::vec(
        prop_oneof![
            Just("{name}".to_owned()),
            Just("{namespace}".to_owned()),
            "[a-z0-9.~/-]{0,6}",
        ],
        0..4,
    )
    .prop_map(|parts| parts.concat())
}

const KINDS: [&str; 4] = ["Service", "Ingress", "HTTPRoute", "Gateway"];
const TYPES: [&str; 4] = ["ClusterIP", "LoadBalancer", "NodePort", "ExternalName"];
const NAMESPACES: [&str; 3] = ["team-a", "team-b", "default"];

fn inject_rule() -> impl Strategy<Value = InjectRule> {
    (
        prop::sample::subsequence(KINDS.to_vec(), 0..=2),
        prop::sample::subsequence(TYPES.to_vec(), 0..=2),
        prop::sample::subsequence(NAMESPACES.to_vec(), 0..=2),
        prop::collection::btree_map(key(), template(), 1..4),
    )
        .prop_map(|(kinds, types, namespaces, annotations)| InjectRule {
            index: 0,
            kinds: kinds.into_iter().map(str::to_owned).collect(),
            service_types: types.into_iter().map(str::to_owned).collect(),
            namespaces: namespaces.into_iter().map(str::to_owned).collect(),
            annotations,
            origin: None,
        })
}

fn rule_set() -> impl Strategy<Value = RuleSet> {
    prop::collection::vec(inject_rule(), 0..4).prop_map(|mut inject| {
        for (i, rule) in inject.iter_mut().enumerate() {
            rule.index = i;
        }
        let mut rules = RuleSet::parse("rules.yaml", "{}").expect("empty rules parse");
        rules.inject = inject;
        rules
    })
}

/// How `metadata.annotations` looks before the mutation.
#[derive(Debug, Clone)]
enum Annotations {
    NoMetadata,
    NoAnnotationsKey,
    Null,
    Map(BTreeMap<String, String>),
}

#[derive(Debug, Clone)]
struct Object {
    kind: &'static str,
    namespace: &'static str,
    /// `None`: only `generateName` (the name is not known yet).
    name: Option<String>,
    service_type: Option<&'static str>,
    annotations: Annotations,
}

fn object() -> impl Strategy<Value = Object> {
    (
        prop::sample::select(KINDS.to_vec()),
        prop::sample::select(NAMESPACES.to_vec()),
        prop::option::weighted(0.85, "[a-z][a-z0-9-]{0,8}"),
        prop::option::of(prop::sample::select(TYPES.to_vec())),
        prop_oneof![
            1 => Just(Annotations::NoMetadata),
            1 => Just(Annotations::NoAnnotationsKey),
            1 => Just(Annotations::Null),
            5 => prop::collection::btree_map(key(), "[a-z0-9.-]{0,8}", 0..4).prop_map(Annotations::Map),
        ],
    )
        .prop_map(
            |(kind, namespace, name, service_type, annotations)| Object {
                kind,
                namespace,
                name,
                service_type,
                annotations,
            },
        )
}

impl Object {
    fn group(&self) -> &'static str {
        match self.kind {
            "Ingress" => "networking.k8s.io",
            "HTTPRoute" | "Gateway" => "gateway.networking.k8s.io",
            _ => "",
        }
    }

    fn to_json(&self) -> Value {
        let mut object = json!({"apiVersion": "v1", "kind": self.kind, "spec": {}});
        if let (Some(ty), "Service") = (self.service_type, self.kind) {
            object["spec"]["type"] = json!(ty);
        }
        if matches!(self.annotations, Annotations::NoMetadata) {
            return object;
        }
        let mut meta = Map::new();
        match &self.name {
            Some(name) => meta.insert("name".into(), json!(name)),
            None => meta.insert("generateName".into(), json!("gen-")),
        };
        meta.insert("namespace".into(), json!(self.namespace));
        match &self.annotations {
            Annotations::Null => {
                meta.insert("annotations".into(), Value::Null);
            }
            Annotations::Map(map) => {
                meta.insert("annotations".into(), json!(map));
            }
            Annotations::NoMetadata | Annotations::NoAnnotationsKey => {}
        }
        object["metadata"] = Value::Object(meta);
        object
    }
}

fn mutate(rules: &RuleSet, o: &Object, object: &Value) -> admission::Decision {
    let object = Node::from(object);
    let request = Request {
        operation: Operation::Create,
        group: o.group(),
        version: "v1",
        kind: o.kind,
        namespace: o.namespace,
        name: o.name.as_deref().unwrap_or(""),
        object: Some(&object),
        old_object: None,
        sub_resource: None,
    };
    admission::mutate(rules, &request)
}

fn apply(object: &Value, patch: &[AddOp]) -> Value {
    let ops: json_patch::Patch =
        serde_json::from_value(serde_json::to_value(patch).expect("serializes"))
            .expect("the patch is RFC 6902");
    let mut out = object.clone();
    json_patch::patch(&mut out, &ops).expect("the patch applies");
    out
}

fn annotations(object: &Value) -> Map<String, Value> {
    object
        .pointer("/metadata/annotations")
        .and_then(Value::as_object)
        .cloned()
        .unwrap_or_default()
}

/// The object without `metadata.annotations` (and without a `metadata` left empty by that).
fn without_annotations(object: &Value) -> Value {
    let mut out = object.clone();
    if let Some(meta) = out.get_mut("metadata").and_then(Value::as_object_mut) {
        meta.remove("annotations");
        if meta.is_empty() {
            out.as_object_mut().expect("an object").remove("metadata");
        }
    }
    out
}

/// What the first applicable rule would add for `key` (README, "Decisions").
fn expected_value(rules: &RuleSet, o: &Object, key: &str) -> Option<String> {
    let name = o.name.as_deref().unwrap_or("");
    rules
        .inject
        .iter()
        .filter(|r| r.kinds.is_empty() || r.kinds.iter().any(|k| k == o.kind))
        .filter(|r| r.namespaces.is_empty() || r.namespaces.iter().any(|n| n == o.namespace))
        .filter(|r| {
            o.kind != "Service"
                || r.service_types.is_empty()
                || r.service_types
                    .iter()
                    .any(|t| t == o.service_type.unwrap_or("ClusterIP"))
        })
        .filter_map(|r| r.annotations.get(key))
        .find(|t| !(name.is_empty() && t.contains("{name}")))
        .map(|t| {
            t.replace("{name}", name)
                .replace("{namespace}", o.namespace)
        })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(1024))]

    #[test]
    fn mutation_is_idempotent_and_never_overwrites(rules in rule_set(), o in object()) {
        let before = o.to_json();
        let first = mutate(&rules, &o, &before);
        let after = apply(&before, &first.patch);

        // patch twice = patch once: the mutated object needs nothing more, and the same
        // patch applied again changes nothing.
        let second = mutate(&rules, &o, &after);
        prop_assert!(second.patch.is_empty(), "second patch {:?} after {:?}", second.patch, first.patch);
        prop_assert_eq!(&apply(&after, &first.patch), &after);

        // Never overwrites, never touches anything but annotations.
        let (old, new) = (annotations(&before), annotations(&after));
        for (key, value) in &old {
            prop_assert_eq!(new.get(key), Some(value), "annotation {} changed", key);
        }
        prop_assert_eq!(without_annotations(&before), without_annotations(&after));

        // Every added annotation is the first applicable rule's rendered template.
        for (key, value) in new.iter().filter(|(k, _)| !old.contains_key(*k)) {
            let want = expected_value(&rules, &o, key);
            prop_assert_eq!(value.as_str(), want.as_deref(), "annotation {}", key);
        }
        // And every annotation some applicable rule asks for is there, unless the rules
        // themselves refuse its value: that is never written, and the inject rule is blamed.
        let name_known = o.name.is_some();
        let blamed = |key: &str| {
            let field = zoneguard_core::annotation::field(key);
            first.violations.iter().any(|v| v.field.starts_with(&field) && v.message().contains("the inject rule"))
        };
        for rule in &rules.inject {
            for key in rule.annotations.keys().filter(|k| !blamed(k)) {
                if let Some(want) = expected_value(&rules, &o, key) {
                    let have = new.get(key).and_then(Value::as_str);
                    prop_assert!(have.is_some(), "{key} missing (name known: {name_known}), want {want:?}");
                }
            }
        }
    }
}
