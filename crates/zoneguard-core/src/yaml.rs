//! What every YAML reader (manifests in `zoneguard check`, rules files, rule ConfigMaps and
//! the webhook that guards them) runs around serde_yaml_ng: a pre-walk over the parser's events
//! that refuses, fast, nesting past a bound, aliases that would repeat too many bytes, and
//! repeated keys; merge keys (`<<`) applied as kubectl applies them; and the line of a key
//! path in one document of a stream, for the errors that name a field.

pub use crate::rules::locate::{
    alias_budget, document_lines, lines_in_stream, survey_stream, Duplicate, Flaw, Survey,
    MAX_DEPTH, MIN_ALIAS_BYTES, NODE_BYTES,
};
pub use crate::rules::path::KeyPath;
use serde_yaml_ng::{Mapping, Value};
use std::fmt;
use thiserror::Error;

/// How deep a Kubernetes object may nest: serde_yaml_ng refuses deeper ones anyway (its own
/// bound is 128), only after minutes over a megabyte of `[[[…`; the pre-walk refuses them at
/// once.
pub const MANIFEST_MAX_DEPTH: usize = 128;

/// Why a text whose aliases repeat more than `bound` bytes is refused (the line is the
/// alias that crossed it).
pub fn aliases_message(bound: u64) -> String {
    format!(
        "its aliases (*name) repeat more than {} MiB of what their anchors (&name) hold, a bound that keeps reading it from taking gigabytes; write the repeated parts out, or repeat less",
        bound >> 20
    )
}

/// A merge key that cannot be applied, or a mapping key JSON has no form for.
#[derive(Debug, Error, Clone, PartialEq, Eq)]
#[error("{at}: {problem}")]
pub struct MergeError {
    /// Where, e.g. `spec.<<[1]` (`(document)` at the top).
    pub at: String,
    pub problem: String,
}

impl MergeError {
    fn new(problem: impl Into<String>) -> Self {
        MergeError {
            at: String::new(),
            problem: problem.into(),
        }
    }

    /// The error, one level further out: `seg` is the key or index it was found under.
    fn under(mut self, seg: Seg<'_>) -> Self {
        self.at = match (seg, self.at.is_empty()) {
            (Seg::Key(key), true) => key.to_string(),
            (Seg::Key(key), false) if self.at.starts_with('[') => format!("{key}{}", self.at),
            (Seg::Key(key), false) => format!("{key}.{}", self.at),
            (Seg::Index(i), true) => format!("[{i}]"),
            (Seg::Index(i), false) if self.at.starts_with('[') => format!("[{i}]{}", self.at),
            (Seg::Index(i), false) => format!("[{i}].{}", self.at),
        };
        self
    }

    fn at_top(mut self) -> Self {
        if self.at.is_empty() {
            self.at = "(document)".to_string();
        }
        self
    }
}

#[derive(Clone, Copy)]
enum Seg<'a> {
    Key(&'a str),
    Index(usize),
}

/// `value` with its merge keys applied as go-yaml v2 applies them (kubectl reads manifests
/// with it, through sigs.k8s.io/yaml): a mapping's entries are set in the order written, a
/// later one replacing an earlier one of the same key; `<<: {…}` (or `<<: *anchor`) sets the
/// merged mapping's entries there, its own merges applied first; `<<: [a, b]` sets b's, then
/// a's, so that the earlier wins. A merge of anything but mappings is an error, as it is for
/// kubectl. Scalar keys become strings (`80` → `"80"`), as they do in JSON; a key that is a
/// mapping or a list is an error. serde_yaml_ng cannot tell `<<` from a quoted `"<<"`: both
/// are merged (no Kubernetes field or rules key is named `<<`).
pub fn apply_merges(value: Value) -> Result<Value, MergeError> {
    merged(value).map_err(MergeError::at_top)
}

fn merged(value: Value) -> Result<Value, MergeError> {
    Ok(match value {
        Value::Mapping(map) => Value::Mapping(mapping(map)?),
        Value::Sequence(items) => Value::Sequence(
            items
                .into_iter()
                .enumerate()
                .map(|(i, item)| merged(item).map_err(|e| e.under(Seg::Index(i))))
                .collect::<Result<_, _>>()?,
        ),
        Value::Tagged(mut tagged) => {
            tagged.value = merged(tagged.value)?;
            Value::Tagged(tagged)
        }
        scalar => scalar,
    })
}

fn mapping(map: Mapping) -> Result<Mapping, MergeError> {
    let mut out = Mapping::with_capacity(map.len());
    for (key, value) in map {
        let key = key_text(key)?;
        if key == "<<" {
            let entries = merge_sources(value).map_err(|e| e.under(Seg::Key("<<")))?;
            for (k, v) in entries {
                out.insert(k, v);
            }
        } else {
            let value = merged(value).map_err(|e| e.under(Seg::Key(&key)))?;
            out.insert(Value::String(key), value);
        }
    }
    Ok(out)
}

/// The entries a merge key's value sets, in the order they are set.
fn merge_sources(value: Value) -> Result<Mapping, MergeError> {
    match value {
        Value::Mapping(map) => mapping(map),
        Value::Sequence(items) => {
            let mut out = Mapping::new();
            for (i, item) in items.into_iter().enumerate().rev() {
                let Value::Mapping(map) = item else {
                    return Err(not_mergeable(&item).under(Seg::Index(i)));
                };
                for (k, v) in mapping(map).map_err(|e| e.under(Seg::Index(i)))? {
                    out.insert(k, v);
                }
            }
            Ok(out)
        }
        other => Err(not_mergeable(&other)),
    }
}

fn not_mergeable(value: &Value) -> MergeError {
    MergeError::new(format!(
        "a merge key (<<) takes a mapping, an alias of one, or a list of them, not {}",
        Described(value)
    ))
}

/// A mapping key as JSON writes it.
fn key_text(key: Value) -> Result<String, MergeError> {
    match key {
        Value::String(text) => Ok(text),
        Value::Number(n) => Ok(n.to_string()),
        Value::Bool(b) => Ok(b.to_string()),
        Value::Null => Ok("null".to_string()),
        other => Err(MergeError::new(format!(
            "a mapping key is {}; only a scalar can be a key",
            Described(&other)
        ))),
    }
}

/// A value's kind, for a message.
struct Described<'a>(&'a Value);

impl fmt::Display for Described<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.0 {
            Value::Null => f.write_str("null"),
            Value::Bool(_) | Value::Number(_) | Value::String(_) => f.write_str("a scalar"),
            Value::Sequence(_) => f.write_str("a list"),
            Value::Mapping(_) => f.write_str("a mapping"),
            Value::Tagged(t) => write!(f, "a value tagged {}", t.tag),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn merged_text(text: &str) -> Result<serde_json::Value, String> {
        let value: Value = serde_yaml_ng::from_str(text).map_err(|e| e.to_string())?;
        let value = apply_merges(value).map_err(|e| e.to_string())?;
        serde_json::to_value(&value).map_err(|e| e.to_string())
    }

    #[test]
    fn merge_keys_are_applied_as_go_yaml_v2_applies_them() {
        let table: &[(&str, &str, &str)] = &[
            ("a merged mapping", "{<<: {a: 1}, b: 2}", r#"{"a":1,"b":2}"#),
            (
                "a key written after the merge wins",
                "{<<: {a: 1}, a: 2}",
                r#"{"a":2}"#,
            ),
            (
                "a key written before the merge loses, as in go-yaml v2",
                "{a: 2, <<: {a: 1}}",
                r#"{"a":1}"#,
            ),
            (
                "in a list, the earlier mapping wins",
                "{<<: [{a: 1}, {a: 2, b: 2}]}",
                r#"{"a":1,"b":2}"#,
            ),
            (
                "an alias, whose own merges apply first",
                "base: &b {x: 1}\nmid: &m {<<: *b, y: 2}\ntop: {<<: *m, z: 3}\n",
                r#"{"base":{"x":1},"mid":{"x":1,"y":2},"top":{"x":1,"y":2,"z":3}}"#,
            ),
            (
                "nested in lists",
                "spec: {rules: [{<<: {host: a.example}}]}",
                r#"{"spec":{"rules":[{"host":"a.example"}]}}"#,
            ),
            (
                "scalar keys become strings",
                "{80: a, true: b}",
                r#"{"80":"a","true":"b"}"#,
            ),
        ];
        for (what, text, want) in table {
            let want: serde_json::Value = serde_json::from_str(want).expect("json");
            assert_eq!(merged_text(text), Ok(want), "{what}");
        }
    }

    #[test]
    fn a_merge_of_anything_but_mappings_is_an_error_naming_where() {
        let table: &[(&str, &str)] = &[
            (
                "spec: {<<: x}",
                "spec.<<: a merge key (<<) takes a mapping, an alias of one, or a list of them, not a scalar",
            ),
            (
                "a: [{<<: [{x: 1}, [y]]}]",
                "a[0].<<[1]: a merge key (<<) takes a mapping, an alias of one, or a list of them, not a list",
            ),
            (
                "{<<: ~}",
                "<<: a merge key (<<) takes a mapping, an alias of one, or a list of them, not null",
            ),
            ("{[k]: v}", "(document): a mapping key is a list; only a scalar can be a key"),
        ];
        for (text, want) in table {
            assert_eq!(merged_text(text), Err(want.to_string()), "{text}");
        }
    }
}
