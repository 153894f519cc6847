//! The object of a review as the checks read it: decoded into a tree (`zoneguard_core::tree`)
//! that holds only the fields the checks read (`zoneguard_core::fields::READ`), its strings
//! borrowed from the request body when they have no escapes. The rest (`status`,
//! `metadata.managedFields`, the value of kubectl's last-applied-configuration annotation, an
//! Ingress's `spec.rules[].http`, a Service's ports...) is skipped over without building values
//! for it.

use serde::de::{self, DeserializeSeed, Deserializer, IgnoredAny, MapAccess, SeqAccess, Visitor};
use serde::Deserialize;
use serde_json::Number;
use std::borrow::Cow;
use std::fmt;
use zoneguard_core::fields::{Fields, READ};
use zoneguard_core::tree::{Node, Object};

/// `#[serde(deserialize_with)]` for `object` and `oldObject`: `null` or absent is `None`; any
/// other JSON value is kept with the fields the checks read.
pub fn deserialize<'de, D: Deserializer<'de>>(
    deserializer: D,
) -> Result<Option<Node<'de>>, D::Error> {
    deserializer.deserialize_option(Optional)
}

struct Optional;

impl<'de> Visitor<'de> for Optional {
    type Value = Option<Node<'de>>;

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("a Kubernetes object or null")
    }

    fn visit_none<E: de::Error>(self) -> Result<Self::Value, E> {
        Ok(None)
    }

    fn visit_unit<E: de::Error>(self) -> Result<Self::Value, E> {
        Ok(None)
    }

    fn visit_some<D: Deserializer<'de>>(self, deserializer: D) -> Result<Self::Value, D::Error> {
        Pruned(&READ).deserialize(deserializer).map(Some)
    }
}

/// A JSON value decoded with what `Fields` reads of it (what `Fields::prune` keeps of a
/// `Value`, without building what is left out first).
#[derive(Clone, Copy)]
struct Pruned(&'static Fields);

impl<'de> DeserializeSeed<'de> for Pruned {
    type Value = Node<'de>;

    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<Node<'de>, D::Error> {
        match self.0 {
            Fields::Unread => IgnoredAny::deserialize(deserializer).map(|_| Node::Null),
            Fields::Whole | Fields::Only(_) | Fields::AllBut(_) => {
                deserializer.deserialize_any(self)
            }
        }
    }
}

impl<'de> Visitor<'de> for Pruned {
    type Value = Node<'de>;

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("any JSON value")
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Node<'de>, A::Error> {
        let mut members = Vec::new();
        while let Some(key) = map.next_key_seed(KEY)? {
            match self.0.below(&key) {
                Some(fields) => members.push((key, map.next_value_seed(Pruned(fields))?)),
                None => {
                    map.next_value::<IgnoredAny>()?;
                }
            }
        }
        Ok(Node::Object(Object::new(members)))
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Node<'de>, A::Error> {
        let mut items = Vec::with_capacity(seq.size_hint().unwrap_or(0));
        while let Some(item) = seq.next_element_seed(self)? {
            items.push(item);
        }
        Ok(Node::Array(items))
    }

    // Everything else is decoded as `Value` decodes it, strings borrowed when they can be.
    fn visit_bool<E: de::Error>(self, v: bool) -> Result<Node<'de>, E> {
        Ok(Node::Bool(v))
    }

    fn visit_i64<E: de::Error>(self, v: i64) -> Result<Node<'de>, E> {
        Ok(Node::Number(v.into()))
    }

    fn visit_u64<E: de::Error>(self, v: u64) -> Result<Node<'de>, E> {
        Ok(Node::Number(v.into()))
    }

    fn visit_f64<E: de::Error>(self, v: f64) -> Result<Node<'de>, E> {
        Ok(Number::from_f64(v).map_or(Node::Null, Node::Number))
    }

    fn visit_borrowed_str<E: de::Error>(self, v: &'de str) -> Result<Node<'de>, E> {
        Ok(Node::String(Cow::Borrowed(v)))
    }

    fn visit_str<E: de::Error>(self, v: &str) -> Result<Node<'de>, E> {
        Ok(Node::String(Cow::Owned(v.to_owned())))
    }

    fn visit_string<E: de::Error>(self, v: String) -> Result<Node<'de>, E> {
        Ok(Node::String(Cow::Owned(v)))
    }

    fn visit_unit<E: de::Error>(self) -> Result<Node<'de>, E> {
        Ok(Node::Null)
    }

    fn visit_none<E: de::Error>(self) -> Result<Node<'de>, E> {
        Ok(Node::Null)
    }

    fn visit_some<D: Deserializer<'de>>(self, deserializer: D) -> Result<Node<'de>, D::Error> {
        deserializer.deserialize_any(self)
    }
}

/// A string borrowed from the JSON text when it has no escapes (an object key that is skipped
/// costs no allocation); `.0` says what was expected, for the error.
#[derive(Clone, Copy)]
pub(super) struct Borrowed(pub &'static str);

/// What an object key is read with.
const KEY: Borrowed = Borrowed("an object key");

impl<'de> DeserializeSeed<'de> for Borrowed {
    type Value = Cow<'de, str>;

    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<Self::Value, D::Error> {
        deserializer.deserialize_str(self)
    }
}

impl<'de> Visitor<'de> for Borrowed {
    type Value = Cow<'de, str>;

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str(self.0)
    }

    fn visit_borrowed_str<E: de::Error>(self, v: &'de str) -> Result<Self::Value, E> {
        Ok(Cow::Borrowed(v))
    }

    fn visit_str<E: de::Error>(self, v: &str) -> Result<Self::Value, E> {
        Ok(Cow::Owned(v.to_owned()))
    }

    fn visit_string<E: de::Error>(self, v: String) -> Result<Self::Value, E> {
        Ok(Cow::Owned(v))
    }
}

/// `value`'s JSON text decoded as a review's `object` is (as a `Value`, to compare).
#[cfg(test)]
fn pruned(value: &serde_json::Value) -> Option<serde_json::Value> {
    let text = serde_json::to_string(value).expect("serializes");
    let mut de = serde_json::Deserializer::from_str(&text);
    let tree = deserialize(&mut de).expect("any JSON value decodes");
    tree.as_ref().map(Node::to_value)
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;
    use serde_json::{json, Value};

    #[test]
    fn an_object_keeps_the_read_fields_and_nothing_else() {
        let object = json!({
            "apiVersion": "v1", "kind": "Service",
            "metadata": {"name": "a", "annotations": {"status": "kept",
                            "kubectl.kubernetes.io/last-applied-configuration": "{\"a\":[1]}"},
                         "managedFields": [{"manager": "kubectl", "fieldsV1": {"f:spec": {}}}]},
            "spec": {"type": "LoadBalancer", "ports": [{"port": 80, "protocol": "TCP"}],
                     "selector": {"app": "a"}, "status": "dropped"},
            "status": {"loadBalancer": {}},
        });
        let want = json!({
            "apiVersion": "v1", "kind": "Service",
            "metadata": {"name": "a", "annotations": {"status": "kept",
                            "kubectl.kubernetes.io/last-applied-configuration": null}},
            "spec": {"type": "LoadBalancer", "ports": [{"protocol": "TCP"}]},
        });
        assert_eq!(pruned(&object), Some(want));
        assert_eq!(pruned(&Value::Null), None);
        let odd = json!({"metadata": "not an object", "status": 1});
        assert_eq!(pruned(&odd), Some(json!({"metadata": "not an object"})));
    }

    #[test]
    fn a_key_written_with_escapes_is_read_as_its_text() {
        let text = r#"{"sp\u0065c": {"type": "LoadBalancer", "s\u0065lector": {}}, "x\"y": 1}"#;
        let mut de = serde_json::Deserializer::from_str(text);
        let got = deserialize(&mut de)
            .expect("decodes")
            .map(|tree| tree.to_value());
        assert_eq!(got, Some(json!({"spec": {"type": "LoadBalancer"}})));
    }

    proptest! {
        #[test]
        fn any_value_decodes_as_its_read_fields(value in super::super::review_props::any_json()) {
            // Against `Value` decoded from the same text (serde_json may round a float's last
            // digit when it parses it, the same way on both paths).
            let text = serde_json::to_string(&value).expect("serializes");
            let reference: Value = serde_json::from_str(&text).expect("decodes");
            let want = (!reference.is_null()).then(|| READ.prune(&reference));
            prop_assert_eq!(pruned(&value), want);
        }
    }
}
