//! The mutating webhook's match condition, evaluated by a CEL interpreter, is true exactly when
//! the patch plan injects something, over random inject rules and objects.

use proptest::prelude::*;
use serde_json::{json, Map, Value};
use zoneguard_core::mutation::{self, condition};
use zoneguard_core::rules::RuleSet;
use zoneguard_core::tree::Node;

const KINDS: [&str; 4] = ["Ingress", "Service", "HTTPRoute", "Gateway"];
const TYPES: [&str; 3] = ["ClusterIP", "LoadBalancer", "NodePort"];
const NAMESPACES: [&str; 3] = ["team-a", "team-b", "team-c"];
const KEYS: [&str; 3] = ["x.example.com/a", "x.example.com/b", "y.example.com/c"];

/// Picks the items of `pool` whose bit is set in `mask`.
fn pick(pool: &[&'static str], mask: u8) -> Vec<&'static str> {
    pool.iter()
        .enumerate()
        .filter(|(i, _)| mask & (1 << i) != 0)
        .map(|(_, s)| *s)
        .collect()
}

#[derive(Debug, Clone)]
struct Rule {
    kinds: u8,
    types: u8,
    namespaces: u8,
    keys: u8,
}

fn rule() -> impl Strategy<Value = Rule> {
    (0u8..16, 0u8..8, 0u8..8, 1u8..8).prop_map(|(kinds, types, namespaces, keys)| Rule {
        kinds,
        types,
        namespaces,
        keys,
    })
}

fn rules_yaml(rules: &[Rule]) -> String {
    let mut out = String::from("inject:\n");
    if rules.is_empty() {
        return "inject: []\n".to_string();
    }
    for r in rules {
        out += &format!("  - kinds: {:?}\n", pick(&KINDS[..3], r.kinds));
        out += &format!("    serviceTypes: {:?}\n", pick(&TYPES, r.types));
        out += &format!(
            "    namespaces: {:?}\n",
            pick(&NAMESPACES[..2], r.namespaces)
        );
        out += "    annotations:\n";
        for key in pick(&KEYS, r.keys) {
            out += &format!("      {key}: \"v\"\n");
        }
    }
    out
}

fn object(kind: &str, service_type: Option<&str>, keys: u8, other: bool) -> Value {
    let mut annotations: Map<String, Value> = pick(&KEYS, keys)
        .into_iter()
        .map(|k| (k.to_string(), json!("set")))
        .collect();
    if other {
        annotations.insert("other.io/z".into(), json!("1"));
    }
    let mut metadata = json!({"name": "web"});
    if keys != 0 || other {
        metadata["annotations"] = Value::Object(annotations);
    }
    let mut spec = json!({});
    if let Some(t) = service_type {
        spec["type"] = json!(t);
    }
    json!({"kind": kind, "metadata": metadata, "spec": spec})
}

fn evaluate(expression: &str, kind: &str, namespace: &str, object: &Value) -> bool {
    let program = cel::Program::compile(expression).expect("the condition compiles");
    let mut context = cel::Context::default();
    let request = json!({"kind": {"kind": kind}, "namespace": namespace});
    context.add_variable("request", request).expect("request");
    context
        .add_variable("object", object.clone())
        .expect("object");
    match program.execute(&context) {
        Ok(cel::Value::Bool(b)) => b,
        other => panic!("{expression} on {object}: {other:?}"),
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(512))]

    #[test]
    fn the_condition_is_true_exactly_when_the_plan_injects(
        rules in proptest::collection::vec(rule(), 0..4),
        kind in 0usize..4,
        namespace in 0usize..3,
        service_type in proptest::option::of(0usize..3),
        keys in 0u8..8,
        other in any::<bool>(),
    ) {
        let text = rules_yaml(&rules);
        let set = RuleSet::parse("rules.yaml", &text).unwrap_or_else(|e| panic!("{text}: {e:?}"));
        let (kind, namespace) = (KINDS[kind], NAMESPACES[namespace]);
        let value = object(kind, service_type.map(|t| TYPES[t]), keys, other);
        let planned = !mutation::plan(&set, kind, namespace, "web", &Node::from(&value)).is_empty();
        let expression = condition::expression(&set.inject);
        prop_assert_eq!(evaluate(&expression, kind, namespace, &value), planned, "{}\n{}", expression, value);
    }
}

#[test]
fn an_object_without_metadata_or_spec_does_not_make_the_condition_fail() {
    let set = RuleSet::parse(
        "rules.yaml",
        "inject:\n  - kinds: [Service]\n    serviceTypes: [LoadBalancer]\n    annotations:\n      x.example.com/a: v\n",
    )
    .expect("rules");
    let expression = condition::expression(&set.inject);
    assert!(!evaluate(&expression, "Service", "team-a", &json!({})));
    assert!(evaluate(
        &expression,
        "Service",
        "team-a",
        &json!({"spec": {"type": "LoadBalancer"}})
    ));
}
