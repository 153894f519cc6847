//! The object of a review as the checks read it: decoded into a `Value` without `status` and
//! `metadata.managedFields`, which no check reads. The API server sends both with every object,
//! and `managedFields` (one entry per field manager, listing every field it set) is often
//! larger than the rest of the object.

use serde::de::value::SeqAccessDeserializer;
use serde::de::{self, DeserializeSeed, Deserializer, IgnoredAny, MapAccess, SeqAccess, Visitor};
use serde::Deserialize;
use serde_json::{Map, Value};
use std::fmt;

/// Top-level fields left out of the object.
const SKIPPED: &[&str] = &["status"];
/// `metadata` fields left out of the object.
const SKIPPED_IN_METADATA: &[&str] = &["managedFields"];

/// `#[serde(deserialize_with)]` for `object` and `oldObject`: `null` or absent is `None`; an
/// object loses the skipped fields; any other JSON value is kept as it is.
pub fn deserialize<'de, D: Deserializer<'de>>(deserializer: D) -> Result<Option<Value>, D::Error> {
    deserializer.deserialize_option(Optional)
}

struct Optional;

impl<'de> Visitor<'de> for Optional {
    type Value = Option<Value>;

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
        Pruned::OBJECT.deserialize(deserializer).map(Some)
    }
}

/// A JSON value whose object form leaves out `skip`, and prunes `metadata` in turn when
/// `metadata` is set.
#[derive(Clone, Copy)]
struct Pruned {
    skip: &'static [&'static str],
    metadata: bool,
}

impl Pruned {
    const OBJECT: Pruned = Pruned {
        skip: SKIPPED,
        metadata: true,
    };
    const METADATA: Pruned = Pruned {
        skip: SKIPPED_IN_METADATA,
        metadata: false,
    };
}

impl<'de> DeserializeSeed<'de> for Pruned {
    type Value = Value;

    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<Value, D::Error> {
        deserializer.deserialize_any(self)
    }
}

impl<'de> Visitor<'de> for Pruned {
    type Value = Value;

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("any JSON value")
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Value, A::Error> {
        let mut out = Map::new();
        while let Some(key) = map.next_key::<String>()? {
            if self.skip.contains(&key.as_str()) {
                map.next_value::<IgnoredAny>()?;
            } else if self.metadata && key == "metadata" {
                out.insert(key, map.next_value_seed(Pruned::METADATA)?);
            } else {
                out.insert(key, map.next_value::<Value>()?);
            }
        }
        Ok(Value::Object(out))
    }

    // Everything else is decoded exactly as `Value` decodes it.
    fn visit_seq<A: SeqAccess<'de>>(self, seq: A) -> Result<Value, A::Error> {
        Value::deserialize(SeqAccessDeserializer::new(seq))
    }

    fn visit_bool<E: de::Error>(self, v: bool) -> Result<Value, E> {
        Ok(Value::Bool(v))
    }

    fn visit_i64<E: de::Error>(self, v: i64) -> Result<Value, E> {
        Ok(Value::from(v))
    }

    fn visit_u64<E: de::Error>(self, v: u64) -> Result<Value, E> {
        Ok(Value::from(v))
    }

    fn visit_f64<E: de::Error>(self, v: f64) -> Result<Value, E> {
        Ok(Value::from(v))
    }

    fn visit_str<E: de::Error>(self, v: &str) -> Result<Value, E> {
        Ok(Value::String(v.to_owned()))
    }

    fn visit_string<E: de::Error>(self, v: String) -> Result<Value, E> {
        Ok(Value::String(v))
    }

    fn visit_unit<E: de::Error>(self) -> Result<Value, E> {
        Ok(Value::Null)
    }

    fn visit_none<E: de::Error>(self) -> Result<Value, E> {
        Ok(Value::Null)
    }

    fn visit_some<D: Deserializer<'de>>(self, deserializer: D) -> Result<Value, D::Error> {
        deserializer.deserialize_any(self)
    }
}

/// `value`'s JSON text decoded as a review's `object` is.
#[cfg(test)]
fn pruned(value: &Value) -> Option<Value> {
    let text = serde_json::to_string(value).expect("serializes");
    let mut de = serde_json::Deserializer::from_str(&text);
    deserialize(&mut de).expect("any JSON value decodes")
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;
    use serde_json::json;

    /// The object with the skipped fields removed by hand.
    fn without_skipped(value: &Value) -> Value {
        let mut value = value.clone();
        if let Some(object) = value.as_object_mut() {
            object.remove("status");
            if let Some(meta) = object.get_mut("metadata").and_then(Value::as_object_mut) {
                meta.remove("managedFields");
            }
        }
        value
    }

    #[test]
    fn status_and_managed_fields_are_left_out_and_nothing_else() {
        let object = json!({
            "apiVersion": "v1", "kind": "Service",
            "metadata": {"name": "a", "annotations": {"status": "kept"},
                         "managedFields": [{"manager": "kubectl", "fieldsV1": {"f:spec": {}}}]},
            "spec": {"type": "LoadBalancer", "status": "kept", "managedFields": "kept"},
            "status": {"loadBalancer": {}},
        });
        assert_eq!(pruned(&object), Some(without_skipped(&object)));
        assert_eq!(pruned(&Value::Null), None);
        let odd = json!({"metadata": "not an object", "status": 1});
        assert_eq!(pruned(&odd), Some(json!({"metadata": "not an object"})));
    }

    fn any_json() -> impl Strategy<Value = Value> {
        let leaf = prop_oneof![
            Just(Value::Null),
            any::<bool>().prop_map(Value::Bool),
            any::<i64>().prop_map(Value::from),
            any::<f64>().prop_map(Value::from),
            prop_oneof![
                Just("status".to_string()),
                Just("metadata".into()),
                Just("managedFields".into()),
                ".{0,8}"
            ]
            .prop_map(Value::String),
        ];
        leaf.prop_recursive(4, 48, 6, |inner| {
            let key = prop_oneof![
                Just("status".to_string()),
                Just("metadata".to_string()),
                Just("managedFields".to_string()),
                "[a-z]{0,6}",
            ];
            prop_oneof![
                prop::collection::vec(inner.clone(), 0..4).prop_map(Value::Array),
                prop::collection::btree_map(key, inner, 0..5)
                    .prop_map(|m| Value::Object(m.into_iter().collect())),
            ]
        })
    }

    proptest! {
        #[test]
        fn any_value_decodes_as_value_does_less_the_skipped_fields(value in any_json()) {
            // Against `Value` decoded from the same text (serde_json may round a float's last
            // digit when it parses it, the same way on both paths).
            let text = serde_json::to_string(&value).expect("serializes");
            let reference: Value = serde_json::from_str(&text).expect("decodes");
            let want = (!reference.is_null()).then(|| without_skipped(&reference));
            prop_assert_eq!(pruned(&value), want);
        }
    }
}
