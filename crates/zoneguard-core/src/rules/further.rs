//! The errors a rules document holds, past the first one serde stops at: the key at fault (for a
//! list item, the key of its list) is taken out of the document and the rest is read again, as
//! long as taking it out moves no other key and leaves no required one missing. Once what is
//! left reads, it is compiled too, so that one edit's mistakes of every kind are told at once:
//! a list where a mapping belongs beside a regex that does not compile.

use super::document::RulesDoc;
use super::lenient::Lenient;
use super::path::{KeyPath, Seg};
use super::{compile, locate, words, RuleSource, RulesError};
use serde::Deserialize;
use serde_path_to_error::Segment;
use serde_yaml_ng::Value;

/// At most this many errors are told after the first: every typo of one edit, and a bounded
/// amount of work for a document that is wrong throughout.
pub(super) const MAX_FURTHER: usize = 20;

/// The errors of `document` (what `source`'s text reads as) after `first`, which the text's own
/// reading told. None when the first fault met is not `first`: the rest would then be read out
/// of step with what was told.
pub(super) fn after(
    source: &RuleSource<'_>,
    document: Value,
    first: &RulesError,
) -> Vec<RulesError> {
    let mut errors = errors(source, document);
    match errors.first() {
        Some(met) if met.key == first.key => errors.split_off(1),
        _ => Vec::new(),
    }
}

/// Every error of reading `document` (what `source`'s text reads as) as rules, in the order
/// they are met, each at its line in the text: the first, and up to [`MAX_FURTHER`] after it.
pub(super) fn errors(source: &RuleSource<'_>, mut document: Value) -> Vec<RulesError> {
    let mut faults: Vec<Fault> = Vec::new();
    let mut reads = false;
    while faults.len() <= MAX_FURTHER {
        let Some(fault) = next_fault(&document) else {
            reads = true;
            break;
        };
        // After a key was taken out, a required key missing is no fault of the text.
        if !faults.is_empty() && fault.message.starts_with("missing field") {
            break;
        }
        let taken = fault.whole && take_out(&mut document, &holder(&fault.path));
        faults.push(fault);
        if !taken {
            break;
        }
    }
    let paths: Vec<KeyPath> = faults.iter().map(|f| f.path.clone()).collect();
    let lines = locate::lines_of(source.text, &paths);
    let compiled = match reads && !faults.is_empty() {
        true => compile_errors(source, &document, &paths),
        false => Vec::new(),
    };
    faults
        .into_iter()
        .zip(lines)
        .map(|(fault, line)| {
            let key = fault.path.to_string();
            RulesError {
                source_name: source.name.to_string(),
                line,
                message: words::in_user_words(&fault.message, &key),
                key,
            }
        })
        .chain(compiled)
        .collect()
}

/// The top-level keys compiled together: an error under one of a group may be the doing of
/// another key of that group (a TTL in `inject` is one only under its `annotationPrefix`).
/// Every other key is a group of its own.
const GROUPS: &[&[&str]] = &[
    &[
        "domainFilters",
        "excludeDomains",
        "regexDomainFilter",
        "regexDomainExclusion",
    ],
    &["annotationPrefix", "inject"],
];

/// Whether the top-level keys `a` and `b` are compiled together.
fn together(a: &str, b: &str) -> bool {
    a == b || GROUPS.iter().any(|g| g.contains(&a) && g.contains(&b))
}

/// What compiling `document` (the text once every fault's key was taken out) finds, but for
/// the errors under a key compiled together with one taken out (at `faults`): those may be
/// the doing of the key taken out, and are told once it reads.
fn compile_errors(
    source: &RuleSource<'_>,
    document: &Value,
    faults: &[KeyPath],
) -> Vec<RulesError> {
    let top = |path: &KeyPath| match path.0.first() {
        Some(Seg::Key(key)) => Some(key.clone()),
        _ => None,
    };
    // A fault at the document itself (not under a key) leaves nothing to tell apart.
    let Some(taken) = faults.iter().map(top).collect::<Option<Vec<String>>>() else {
        return Vec::new();
    };
    let Ok(doc) = Option::<RulesDoc>::deserialize(Lenient(document)) else {
        return Vec::new();
    };
    let Err(errors) = compile::compile(&doc.unwrap_or_default(), &[]) else {
        return Vec::new();
    };
    let kept = errors
        .into_iter()
        .filter(|e| top(&e.path).is_some_and(|key| taken.iter().all(|t| !together(t, &key))));
    compile::locate(kept.map(|e| (*source, e)).collect())
}

/// A fault in reading a document as rules: where, and serde's message.
struct Fault {
    path: KeyPath,
    /// False when the path stops short of the fault (under a key that is not a string).
    whole: bool,
    message: String,
}

/// The first fault in reading `document` as rules; none when it reads.
fn next_fault(document: &Value) -> Option<Fault> {
    let error = serde_path_to_error::deserialize::<_, Option<RulesDoc>>(Lenient(document)).err()?;
    let (path, whole) = key_path(error.path());
    Some(Fault {
        path,
        whole,
        message: error.into_inner().to_string(),
    })
}

/// `path` as a key path, as far as it is one; and whether it is one all along.
fn key_path(path: &serde_path_to_error::Path) -> (KeyPath, bool) {
    let mut segs = Vec::new();
    for segment in path {
        segs.push(match segment {
            Segment::Map { key } => Seg::Key(key.clone()),
            Segment::Seq { index } => Seg::Index(*index),
            Segment::Enum { .. } | Segment::Unknown => return (KeyPath(segs), false),
        });
    }
    (KeyPath(segs), true)
}

/// The key to take out for a fault at `path`: the key itself, or for a list item the key of the
/// list that holds it, since taking the item alone out would move the items after it (they
/// would then be told at the wrong index). The list's other items go unread.
fn holder(path: &KeyPath) -> KeyPath {
    let key = path.0.iter().rposition(|seg| matches!(seg, Seg::Key(_)));
    KeyPath(path.0[..key.map_or(0, |at| at + 1)].to_vec())
}

/// Takes the key at `path` out of its mapping, keeping the order of the others; false when
/// `path` does not end at a key or leads nowhere.
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
