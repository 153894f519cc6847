//! The object of a review as the checks read it: decoded into a `Value` that holds only the
//! fields the checks read (`zoneguard_core::fields::READ`). The rest (`status`,
//! `metadata.managedFields`, the value of kubectl's last-applied-configuration annotation, an
//! Ingress's `spec.rules[].http`, a Service's ports...) is skipped over without building values
//! for it.

use serde::de::{self, DeserializeSeed, Deserializer, IgnoredAny, MapAccess, SeqAccess, Visitor};
use serde::Deserialize;
use serde_json::{Map, Value};
use std::borrow::Cow;
use std::fmt;
use zoneguard_core::fields::{Fields, READ};

/// `#[serde(deserialize_with)]` for `object` and `oldObject`: `null` or absent is `None`; any
/// other JSON value is kept with the fields the checks read.
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
        Pruned(&READ).deserialize(deserializer).map(Some)
    }
}

/// A JSON value decoded with what `Fields` reads of it (`Fields::prune`, without building
/// what is left out first).
#[derive(Clone, Copy)]
struct Pruned(&'static Fields);

impl<'de> DeserializeSeed<'de> for Pruned {
    type Value = Value;

    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<Value, D::Error> {
        match self.0 {
            Fields::Whole => Value::deserialize(deserializer),
            Fields::Unread => IgnoredAny::deserialize(deserializer).map(|_| Value::Null),
            Fields::Only(_) | Fields::AllBut(_) => deserializer.deserialize_any(self),
        }
    }
}

impl<'de> Visitor<'de> for Pruned {
    type Value = Value;

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("any JSON value")
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Value, A::Error> {
        let mut out = Map::new();
        while let Some(key) = map.next_key_seed(KEY)? {
            match self.0.below(&key) {
                Some(fields) => {
                    out.insert(key.into_owned(), map.next_value_seed(Pruned(fields))?);
                }
                None => {
                    map.next_value::<IgnoredAny>()?;
                }
            }
        }
        Ok(Value::Object(out))
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Value, A::Error> {
        let mut items = Vec::with_capacity(seq.size_hint().unwrap_or(0));
        while let Some(item) = seq.next_element_seed(self)? {
            items.push(item);
        }
        Ok(Value::Array(items))
    }

    // Everything else is decoded exactly as `Value` decodes it.
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

    #[test]
    fn an_object_keeps_the_read_fields_and_nothing_else() {
        let object = json!({
            "apiVersion": "v1", "kind": "Service",
            "metadata": {"name": "a", "annotations": {"status": "kept",
                            "kubectl.kubernetes.io/last-applied-configuration": "{\"a\":[1]}"},
                         "managedFields": [{"manager": "kubectl", "fieldsV1": {"f:spec": {}}}]},
            "spec": {"type": "LoadBalancer", "ports": [{"port": 80}], "status": "dropped"},
            "status": {"loadBalancer": {}},
        });
        let want = json!({
            "apiVersion": "v1", "kind": "Service",
            "metadata": {"name": "a", "annotations": {"status": "kept",
                            "kubectl.kubernetes.io/last-applied-configuration": null}},
            "spec": {"type": "LoadBalancer"},
        });
        assert_eq!(pruned(&object), Some(want));
        assert_eq!(pruned(&Value::Null), None);
        let odd = json!({"metadata": "not an object", "status": 1});
        assert_eq!(pruned(&odd), Some(json!({"metadata": "not an object"})));
    }

    #[test]
    fn a_key_written_with_escapes_is_read_as_its_text() {
        let text = r#"{"sp\u0065c": {"type": "LoadBalancer", "p\u006frts": []}, "x\"y": 1}"#;
        let mut de = serde_json::Deserializer::from_str(text);
        let got = deserialize(&mut de).expect("decodes");
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
