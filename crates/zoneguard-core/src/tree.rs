//! The JSON tree the checks read an object from. Its strings borrow from the text the webhook
//! decoded (or from the `serde_json::Value` `zoneguard check` read), so a review's object costs
//! a few vectors, not a map node and an owned string per field. It reads as `serde_json::Value`
//! does: an object's keys are sorted and the last of a repeated key wins.

use serde_json::{Map, Number, Value};
use std::borrow::Cow;

/// One JSON value.
#[derive(Debug, Clone, PartialEq)]
pub enum Node<'a> {
    Null,
    Bool(bool),
    Number(Number),
    String(Cow<'a, str>),
    Array(Vec<Node<'a>>),
    Object(Object<'a>),
}

/// A JSON object: its members sorted by key, each key once.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Object<'a>(Vec<(Cow<'a, str>, Node<'a>)>);

impl<'a> Node<'a> {
    /// Gives back the room its arrays and objects hold beyond their items: a vector grown one
    /// push at a time holds up to twice what it uses, and a tree of 100 000 one-member objects
    /// (an Ingress's `spec.rules`) four times, 90 MB for what fits in 20.
    pub fn compact(&mut self) {
        match self {
            Node::Array(items) => {
                items.shrink_to_fit();
                items.iter_mut().for_each(Node::compact);
            }
            Node::Object(object) => {
                object.0.shrink_to_fit();
                object.0.iter_mut().for_each(|(_, value)| value.compact());
            }
            Node::Null | Node::Bool(_) | Node::Number(_) | Node::String(_) => {}
        }
    }

    /// The member `key` of an object.
    pub fn get(&self, key: &str) -> Option<&Node<'a>> {
        self.as_object()?.get(key)
    }

    pub fn as_str(&self) -> Option<&str> {
        match self {
            Node::String(text) => Some(text),
            _ => None,
        }
    }

    pub fn as_array(&self) -> Option<&[Node<'a>]> {
        match self {
            Node::Array(items) => Some(items),
            _ => None,
        }
    }

    pub fn as_object(&self) -> Option<&Object<'a>> {
        match self {
            Node::Object(object) => Some(object),
            _ => None,
        }
    }

    pub fn is_object(&self) -> bool {
        matches!(self, Node::Object(_))
    }

    /// The same tree, borrowing nothing.
    pub fn into_owned(self) -> Node<'static> {
        match self {
            Node::Null => Node::Null,
            Node::Bool(b) => Node::Bool(b),
            Node::Number(n) => Node::Number(n),
            Node::String(s) => Node::String(Cow::Owned(s.into_owned())),
            Node::Array(items) => Node::Array(items.into_iter().map(Node::into_owned).collect()),
            Node::Object(Object(members)) => Node::Object(Object(
                members
                    .into_iter()
                    .map(|(k, v)| (Cow::Owned(k.into_owned()), v.into_owned()))
                    .collect(),
            )),
        }
    }

    /// The same value as a `serde_json::Value` (owned).
    pub fn to_value(&self) -> Value {
        match self {
            Node::Null => Value::Null,
            Node::Bool(b) => Value::Bool(*b),
            Node::Number(n) => Value::Number(n.clone()),
            Node::String(s) => Value::String(s.to_string()),
            Node::Array(items) => Value::Array(items.iter().map(Node::to_value).collect()),
            Node::Object(object) => Value::Object(
                object
                    .iter()
                    .map(|(k, v)| (k.to_string(), v.to_value()))
                    .collect::<Map<_, _>>(),
            ),
        }
    }
}

impl<'a> From<&'a Value> for Node<'a> {
    fn from(value: &'a Value) -> Self {
        match value {
            Value::Null => Node::Null,
            Value::Bool(b) => Node::Bool(*b),
            Value::Number(n) => Node::Number(n.clone()),
            Value::String(s) => Node::String(Cow::Borrowed(s)),
            Value::Array(items) => Node::Array(items.iter().map(Node::from).collect()),
            Value::Object(map) => Node::Object(Object::new(
                map.iter()
                    .map(|(k, v)| (Cow::Borrowed(k.as_str()), Node::from(v)))
                    .collect(),
            )),
        }
    }
}

impl<'a> Object<'a> {
    /// An object of `members` in the order the text wrote them: sorted by key, and of a key
    /// written twice the last value kept, as `serde_json::Map` keeps it.
    pub fn new(mut members: Vec<(Cow<'a, str>, Node<'a>)>) -> Self {
        if !members.is_sorted_by(|a, b| a.0 < b.0) {
            members.sort_by(|a, b| a.0.cmp(&b.0));
            members.dedup_by(|later, kept| {
                let same = later.0 == kept.0;
                if same {
                    std::mem::swap(later, kept);
                }
                same
            });
        }
        Self(members)
    }

    pub fn get(&self, key: &str) -> Option<&Node<'a>> {
        let at = self.0.binary_search_by(|(k, _)| (**k).cmp(key)).ok()?;
        Some(&self.0[at].1)
    }

    pub fn contains_key(&self, key: &str) -> bool {
        self.get(key).is_some()
    }

    /// Sets `key` to `value`, in its place among the keys.
    pub fn insert(&mut self, key: Cow<'a, str>, value: Node<'a>) {
        match self.0.binary_search_by(|(k, _)| k.cmp(&key)) {
            Ok(at) => self.0[at].1 = value,
            Err(at) => self.0.insert(at, (key, value)),
        }
    }

    /// The members, by key.
    pub fn iter(&self) -> impl Iterator<Item = (&str, &Node<'a>)> {
        self.0.iter().map(|(k, v)| (&**k, v))
    }

    pub fn keys(&self) -> impl Iterator<Item = &str> {
        self.0.iter().map(|(k, _)| &**k)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn member(key: &'static str, value: i64) -> (Cow<'static, str>, Node<'static>) {
        (Cow::Borrowed(key), Node::Number(value.into()))
    }

    #[test]
    fn an_object_is_read_as_serde_json_reads_it() {
        // (members as written, what serde_json's Map holds for the same text)
        let table = [
            (vec![], json!({})),
            (
                vec![member("b", 1), member("a", 2)],
                json!({"a": 2, "b": 1}),
            ),
            (
                vec![member("k", 1), member("a", 2), member("k", 3)],
                json!({"a": 2, "k": 3}),
            ),
            (
                vec![
                    member("k", 1),
                    member("k", 2),
                    member("k", 3),
                    member("j", 0),
                ],
                json!({"j": 0, "k": 3}),
            ),
            (
                vec![member("a", 1), member("b", 2)],
                json!({"a": 1, "b": 2}),
            ),
        ];
        for (members, want) in table {
            let object = Node::Object(Object::new(members.clone()));
            assert_eq!(object.to_value(), want, "{members:?}");
            for (key, value) in want.as_object().unwrap() {
                assert_eq!(object.get(key).map(Node::to_value).as_ref(), Some(value));
            }
            assert_eq!(object.get("missing"), None);
        }
    }

    #[test]
    fn a_value_converts_to_a_tree_and_back_unchanged() {
        let value = json!({"metadata": {"name": "web", "annotations": {"z": "1", "a": "2"}},
                           "spec": {"rules": [{"host": "a.example.com"}, null, true, 1.5, -3]}});
        let node = Node::from(&value);
        assert_eq!(node.to_value(), value);
        assert_eq!(node.clone().into_owned(), node);
        let annotations = node.get("metadata").and_then(|m| m.get("annotations"));
        let keys: Vec<_> = annotations
            .and_then(Node::as_object)
            .unwrap()
            .keys()
            .collect();
        assert_eq!(keys, ["a", "z"]);
        assert_eq!(
            node.get("spec")
                .and_then(|s| s.get("rules"))
                .map(|r| r.as_array().unwrap().len()),
            Some(5)
        );
        assert_eq!(
            node.get("metadata")
                .and_then(|m| m.get("name"))
                .and_then(Node::as_str),
            Some("web")
        );
        assert_eq!(node.get("spec").and_then(Node::as_str), None);
        assert_eq!(Node::Null.get("spec"), None);
    }

    #[test]
    fn an_inserted_member_takes_its_place_or_replaces_the_old_value() {
        let mut object = Object::new(vec![member("b", 1), member("d", 2)]);
        object.insert(Cow::Borrowed("c"), Node::Bool(true));
        object.insert(Cow::Borrowed("a"), Node::Null);
        object.insert(Cow::Borrowed("d"), Node::Bool(false));
        let keys: Vec<_> = object.keys().collect();
        assert_eq!(keys, ["a", "b", "c", "d"]);
        assert_eq!(object.get("d"), Some(&Node::Bool(false)));
        assert!(object.contains_key("c") && !object.contains_key("e"));
    }
}
