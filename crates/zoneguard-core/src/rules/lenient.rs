//! A YAML value read as rules the way its text would be read: a scalar where a string is wanted
//! is that string, as the text reader takes a plain scalar's text. Without it `ttl: 60` or
//! `accounts: [111122223333]` read from the text but not from the value, which a document with
//! merge keys, and the reading again for the errors after the first, are read from.

use serde::de::value::{MapDeserializer, SeqDeserializer};
use serde::de::{self, IntoDeserializer, Visitor};
use serde_yaml_ng::{Error, Value};

/// `value`, read leniently: strings from scalars, and so throughout its lists and mappings.
/// A number is its shortest text (`0x10` in the document reads as "16", not as the text reader's
/// "0x10"), an empty value is the empty string; enums and tagged values read as `&Value` does.
#[derive(Clone, Copy)]
pub(super) struct Lenient<'a>(pub(super) &'a Value);

impl<'de> Lenient<'de> {
    /// The string a scalar stands for where a string is wanted.
    fn text(self) -> Option<String> {
        match self.0 {
            Value::Null => Some(String::new()),
            Value::Bool(b) => Some(b.to_string()),
            Value::Number(n) => Some(n.to_string()),
            _ => None,
        }
    }

    /// Hands `visitor` the items of `items`, each read leniently.
    fn visit_seq<V: Visitor<'de>>(items: &'de [Value], visitor: V) -> Result<V::Value, Error> {
        let mut seq = SeqDeserializer::new(items.iter().map(Lenient));
        let read = visitor.visit_seq(&mut seq)?;
        seq.end()?;
        Ok(read)
    }

    /// Hands `visitor` the entries of `map`, keys and values read leniently.
    fn visit_map<V: Visitor<'de>>(
        map: &'de serde_yaml_ng::Mapping,
        visitor: V,
    ) -> Result<V::Value, Error> {
        let mut entries = MapDeserializer::new(map.iter().map(|(k, v)| (Lenient(k), Lenient(v))));
        let read = visitor.visit_map(&mut entries)?;
        entries.end()?;
        Ok(read)
    }
}

impl<'de> IntoDeserializer<'de, Error> for Lenient<'de> {
    type Deserializer = Self;

    fn into_deserializer(self) -> Self {
        self
    }
}

/// The scalar kinds, read as `&Value` reads them.
macro_rules! as_value_does {
    ($($method:ident),*) => {$(
        fn $method<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Error> {
            self.0.$method(visitor)
        }
    )*};
}

impl<'de> de::Deserializer<'de> for Lenient<'de> {
    type Error = Error;

    fn deserialize_any<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Error> {
        match self.0 {
            Value::Sequence(items) => Self::visit_seq(items, visitor),
            Value::Mapping(map) => Self::visit_map(map, visitor),
            scalar => scalar.deserialize_any(visitor),
        }
    }

    fn deserialize_str<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Error> {
        match self.text() {
            Some(text) => visitor.visit_string(text),
            None => self.0.deserialize_str(visitor),
        }
    }

    fn deserialize_string<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Error> {
        self.deserialize_str(visitor)
    }

    fn deserialize_option<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Error> {
        match self.0 {
            Value::Null => visitor.visit_none(),
            _ => visitor.visit_some(self),
        }
    }

    fn deserialize_newtype_struct<V: Visitor<'de>>(
        self,
        _name: &'static str,
        visitor: V,
    ) -> Result<V::Value, Error> {
        visitor.visit_newtype_struct(self)
    }

    fn deserialize_seq<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Error> {
        match self.0 {
            Value::Sequence(items) => Self::visit_seq(items, visitor),
            other => other.deserialize_seq(visitor),
        }
    }

    fn deserialize_tuple<V: Visitor<'de>>(
        self,
        _len: usize,
        visitor: V,
    ) -> Result<V::Value, Error> {
        self.deserialize_seq(visitor)
    }

    fn deserialize_tuple_struct<V: Visitor<'de>>(
        self,
        _name: &'static str,
        _len: usize,
        visitor: V,
    ) -> Result<V::Value, Error> {
        self.deserialize_seq(visitor)
    }

    fn deserialize_map<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Error> {
        match self.0 {
            Value::Mapping(map) => Self::visit_map(map, visitor),
            other => other.deserialize_map(visitor),
        }
    }

    fn deserialize_struct<V: Visitor<'de>>(
        self,
        name: &'static str,
        fields: &'static [&'static str],
        visitor: V,
    ) -> Result<V::Value, Error> {
        match self.0 {
            Value::Mapping(map) => Self::visit_map(map, visitor),
            other => other.deserialize_struct(name, fields, visitor),
        }
    }

    fn deserialize_enum<V: Visitor<'de>>(
        self,
        name: &'static str,
        variants: &'static [&'static str],
        visitor: V,
    ) -> Result<V::Value, Error> {
        self.0.deserialize_enum(name, variants, visitor)
    }

    fn deserialize_unit_struct<V: Visitor<'de>>(
        self,
        name: &'static str,
        visitor: V,
    ) -> Result<V::Value, Error> {
        self.0.deserialize_unit_struct(name, visitor)
    }

    as_value_does!(
        deserialize_bool,
        deserialize_i8,
        deserialize_i16,
        deserialize_i32,
        deserialize_i64,
        deserialize_i128,
        deserialize_u8,
        deserialize_u16,
        deserialize_u32,
        deserialize_u64,
        deserialize_u128,
        deserialize_f32,
        deserialize_f64,
        deserialize_char,
        deserialize_bytes,
        deserialize_byte_buf,
        deserialize_unit,
        deserialize_identifier,
        deserialize_ignored_any
    );
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rules::document::RulesDoc;
    use serde::Deserialize;

    /// `text` read from its text and from its value.
    fn both_ways(text: &str) -> (Result<RulesDoc, String>, Result<RulesDoc, String>) {
        let from_text = serde_yaml_ng::from_str::<RulesDoc>(text).map_err(|e| e.to_string());
        let value: Value = serde_yaml_ng::from_str(text).expect("YAML");
        let from_value = RulesDoc::deserialize(Lenient(&value)).map_err(|e| e.to_string());
        (from_text, from_value)
    }

    #[test]
    fn a_document_reads_from_its_value_as_from_its_text() {
        let table = [
            // Scalars where strings are wanted: a number, a boolean, an empty value.
            "irsa:\n  accounts: [111122223333]\n  cacheTTL: 300\n",
            "inject:\n  - kinds: [Service]\n    annotations: {external-dns.alpha.kubernetes.io/ttl: 60, a: true, b: }\n",
            "domainFilters: [example.com, 123]\nnamespaces:\n  team-a: {domainFilters: [team-a.example.com]}\n",
            // A trust policy takes any value and keeps its numbers numbers.
            "irsa:\n  trustPolicies:\n    arn:aws:iam::111122223333:role/x: {Version: 2012-10-17, N: 5, B: [true, 1.5]}\n",
            "enforcement: warn\nirsa: {unknownRole: deny, checkProvider: true}\n",
            "domainFilters:\nexcludeDomains: ~\n",
        ];
        for text in table {
            let (from_text, from_value) = both_ways(text);
            assert!(from_text.is_ok(), "{text}: {from_text:?}");
            assert_eq!(from_value, from_text, "{text}");
        }
    }

    #[test]
    fn what_the_text_refuses_the_value_refuses() {
        let table = [
            "domainFilters: example.com\n",
            "domainFilters: [{a: 1}]\n",
            "enforcement: block\n",
            "enforcement: [deny]\n",
            "irsa: {checkProvider: maybe}\n",
            "bogus: 1\n",
            "irsa:\n  chains:\n    - serviceAccount: a/b\n",
        ];
        for text in table {
            let (from_text, from_value) = both_ways(text);
            assert!(from_text.is_err(), "{text}: {from_text:?}");
            assert!(from_value.is_err(), "{text}: {from_value:?}");
        }
    }
}
