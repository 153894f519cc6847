//! The errors a rules document holds after its first. serde stops at the first, so the key at
//! fault is taken out of the document and the rest is read again, as long as each error stands
//! at a key that can be taken out without moving any other.

use super::document::RulesDoc;
use super::path::{KeyPath, Seg};
use super::{locate, words, RuleSource, RulesError};
use serde_path_to_error::Segment;
use serde_yaml_ng::Value;

/// At most this many errors are told after the first: every typo of one edit, and a bounded
/// amount of work for a document that is wrong throughout.
pub(super) const MAX_FURTHER: usize = 20;

/// The errors of `document` (what `source`'s text reads as) after `first`, in the order they
/// are met, each at its line in the text. None when the first fault met is not `first`: the
/// rest would then be read out of step with what was told.
pub(super) fn further_errors(
    source: &RuleSource<'_>,
    mut document: Value,
    first: &RulesError,
) -> Vec<RulesError> {
    match next_fault(&document) {
        Some((path, _)) if path.to_string() == first.key && take_out(&mut document, &path) => {}
        _ => return Vec::new(),
    }
    let mut faults = Vec::new();
    while faults.len() < MAX_FURTHER {
        let Some((path, message)) = next_fault(&document) else {
            break;
        };
        // A key taken out that was required is no fault of the text.
        if message.starts_with("missing field") {
            break;
        }
        let taken = take_out(&mut document, &path);
        faults.push((path, message));
        if !taken {
            break;
        }
    }
    let paths: Vec<KeyPath> = faults.iter().map(|(path, _)| path.clone()).collect();
    let lines = locate::lines_of(source.text, &paths);
    faults
        .into_iter()
        .zip(lines)
        .map(|((path, message), line)| {
            let key = path.to_string();
            RulesError {
                source_name: source.name.to_string(),
                line,
                message: words::in_user_words(&message, &key),
                key,
            }
        })
        .collect()
}

/// The first fault in reading `document` as rules: its key path and serde's message; none
/// when it reads, or when the fault stands under a key that is not a string.
fn next_fault(document: &Value) -> Option<(KeyPath, String)> {
    let error = serde_path_to_error::deserialize::<_, Option<RulesDoc>>(document).err()?;
    let path = key_path(error.path())?;
    Some((path, error.into_inner().to_string()))
}

fn key_path(path: &serde_path_to_error::Path) -> Option<KeyPath> {
    path.iter()
        .map(|segment| match segment {
            Segment::Map { key } => Some(Seg::Key(key.clone())),
            Segment::Seq { index } => Some(Seg::Index(*index)),
            Segment::Enum { .. } | Segment::Unknown => None,
        })
        .collect::<Option<Vec<_>>>()
        .map(KeyPath)
}

/// Takes the key at `path` out of its mapping; false when `path` ends at a list item (taking
/// it out would move the items after it) or leads nowhere.
fn take_out(document: &mut Value, path: &KeyPath) -> bool {
    let Some((Seg::Key(last), parents)) = path.0.split_last() else {
        return false;
    };
    let mut node = document;
    for seg in parents {
        let next = match (seg, node) {
            (Seg::Key(key), Value::Mapping(map)) => map.get_mut(key.as_str()),
            (Seg::Index(index), Value::Sequence(items)) => items.get_mut(*index),
            _ => None,
        };
        let Some(next) = next else {
            return false;
        };
        node = next;
    }
    match node {
        Value::Mapping(map) => map.shift_remove(last.as_str()).is_some(),
        _ => false,
    }
}
