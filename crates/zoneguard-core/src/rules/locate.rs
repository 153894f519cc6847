//! Finds the line where a key path stands in YAML or JSON text, for error messages.

use super::path::{KeyPath, Seg};
use saphyr_parser::{Event, Parser};

enum Frame {
    Map {
        key: Option<String>,
        expecting_key: bool,
    },
    Seq {
        index: usize,
    },
}

/// The 1-based line of `path` in `text`, or of its longest prefix that exists; 0 if none.
pub fn line_of(text: &str, path: &KeyPath) -> usize {
    let mut best = 0;
    let mut best_len = 0;
    let mut frames: Vec<Frame> = Vec::new();
    for item in Parser::new_from_str(text) {
        let Ok((event, span)) = item else { break };
        let line = span.start.line();
        match event {
            Event::Scalar(value, ..) => {
                if let Some(Frame::Map {
                    key,
                    expecting_key: expecting @ true,
                }) = frames.last_mut()
                {
                    *key = Some(value.into_owned());
                    *expecting = false;
                    note(&frames, path, line, &mut best, &mut best_len);
                } else {
                    advance(&mut frames);
                }
            }
            Event::MappingStart(..) | Event::SequenceStart(..) => {
                note(&frames, path, line, &mut best, &mut best_len);
                frames.push(match event {
                    Event::MappingStart(..) => Frame::Map {
                        key: None,
                        expecting_key: true,
                    },
                    _ => Frame::Seq { index: 0 },
                });
            }
            Event::MappingEnd | Event::SequenceEnd => {
                frames.pop();
                advance(&mut frames);
            }
            Event::Alias(_) => advance(&mut frames),
            Event::DocumentEnd => break,
            _ => {}
        }
    }
    best
}

/// Records `line` when the current node's path is a longer prefix of `target` than seen so far.
fn note(frames: &[Frame], target: &KeyPath, line: usize, best: &mut usize, best_len: &mut usize) {
    let segs = current_path(frames);
    if segs.is_empty() || segs.len() <= *best_len || segs.len() > target.0.len() {
        return;
    }
    if target.0[..segs.len()] == segs[..] {
        *best = line;
        *best_len = segs.len();
    }
}

fn current_path(frames: &[Frame]) -> Vec<Seg> {
    let mut segs = Vec::with_capacity(frames.len());
    for frame in frames {
        match frame {
            Frame::Map {
                key: Some(k),
                expecting_key: false,
            } => segs.push(Seg::Key(k.clone())),
            Frame::Map { .. } => break,
            Frame::Seq { index } => segs.push(Seg::Index(*index)),
        }
    }
    segs
}

fn advance(frames: &mut [Frame]) {
    match frames.last_mut() {
        Some(Frame::Map { key, expecting_key }) => {
            *key = None;
            *expecting_key = true;
        }
        Some(Frame::Seq { index }) => *index += 1,
        None => {}
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const DOC: &str = "domainFilters: [example.com]\nirsa:\n  issuer: x\n  trustPolicies:\n    arn:aws:iam::111122223333:role/a:\n      Version: '2012-10-17'\ninject:\n  - kinds: [Service]\n  - kinds: [Ingress]\n    annotations: {}\n";

    #[test]
    fn a_nested_key_is_found_on_its_own_line() {
        let p = KeyPath::root()
            .key("irsa")
            .key("trustPolicies")
            .key("arn:aws:iam::111122223333:role/a");
        assert_eq!(line_of(DOC, &p), 5);
    }

    #[test]
    fn a_list_item_is_found_by_index() {
        assert_eq!(
            line_of(
                DOC,
                &KeyPath::root().key("inject").index(1).key("annotations")
            ),
            10
        );
        assert_eq!(line_of(DOC, &KeyPath::root().key("inject").index(1)), 9);
    }

    #[test]
    fn a_missing_key_falls_back_to_its_deepest_existing_parent() {
        assert_eq!(line_of(DOC, &KeyPath::root().key("irsa").key("nope")), 2);
        assert_eq!(line_of("{}", &KeyPath::root().key("x")), 0);
    }

    #[test]
    fn json_documents_are_located_too() {
        let json = "{\n  \"irsa\": {\n    \"issuer\": \"x\"\n  }\n}";
        assert_eq!(line_of(json, &KeyPath::root().key("irsa").key("issuer")), 3);
    }
}
