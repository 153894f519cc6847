//! Finds where keys stand in YAML or JSON text, for error messages: the line of a key path,
//! and the first key a mapping repeats. The same walk over the parser's events is the pre-walk
//! every YAML reader runs before serde_yaml_ng: it refuses, fast, what would make the parser
//! proper slow (deep nesting) or the values it builds huge (aliases).

use super::path::{KeyPath, Seg};
use saphyr_parser::{Event, Parser, ScalarStyle, ScanError, Span};
use std::borrow::Cow;
use std::collections::hash_map::Entry;
use std::collections::{HashMap, HashSet};
use std::ops::ControlFlow;

/// Where a mapping is: before a key, inside a complex (non-scalar) key, or at a key's value.
enum Slot {
    Key,
    ComplexKey,
    /// The value of this key (`None` for a complex or aliased key).
    Value(Option<String>),
}

enum Frame {
    Map {
        slot: Slot,
        /// Each scalar key read so far and its line.
        seen: HashMap<String, usize>,
    },
    Seq {
        index: usize,
    },
}

/// What the walk reports.
enum Step {
    /// A scalar key; `first` is the line where its mapping already had it. A merge key (a
    /// plain `<<`) is never a repeat: a mapping may merge more than once.
    Key {
        line: usize,
        first: Option<usize>,
        merge: bool,
    },
    /// A mapping or sequence starts.
    Node { line: usize },
    /// A scalar item of a sequence, for its line alone.
    Item { line: usize },
    /// An alias; `repeated` is what every alias of the text so far repeats (see [`Expansion`]).
    Alias { line: usize, repeated: u64 },
}

/// How a walk ended.
enum Walked {
    /// At the end of a document.
    DocumentEnd,
    /// At the end of the text.
    StreamEnd,
    /// The visitor stopped it.
    Stopped,
    /// At a syntax error (the parser proper reports it to the user).
    Error(ScanError),
}

/// What a node costs each time an alias repeats it, beyond its scalars' bytes: about what one
/// value takes in memory once read (a `serde_json::Value`, its map entry or string header).
pub const NODE_BYTES: u64 = 64;

/// The least the aliases of a text may repeat (see [`alias_budget`]).
pub const MIN_ALIAS_BYTES: u64 = 16 << 20;

/// What the aliases of `text` may repeat in all, counted as `Expansion` counts: as much as
/// the text itself, and at least [`MIN_ALIAS_BYTES`]. An alias costs the parser nothing; the
/// values it builds are copies, so this bounds the memory a text takes once read to about
/// twice what a text of its size without aliases takes (and 16 MiB for a small one, such as a
/// rule ConfigMap: far more than anchors for repeated settings need, far less than the
/// webhook pod's memory).
pub fn alias_budget(text: &str) -> u64 {
    (text.len() as u64).max(MIN_ALIAS_BYTES)
}

/// The bytes aliases repeat: each anchored node's size (its scalars' bytes and [`NODE_BYTES`]
/// for each node in it, aliases inside it expanded), summed over every alias that names it.
/// serde_yaml_ng's own bound counts alias references, not their size, so one 1 MiB scalar
/// named 8 000 times passes it.
#[derive(Default)]
struct Expansion {
    /// Each anchored node's size, by anchor id (the parser's ids are unique in a whole text,
    /// and an anchor defined again gets a new one).
    anchored: HashMap<usize, u64>,
    /// The size so far and the anchor id (0: none) of each open mapping or sequence.
    open: Vec<(u64, usize)>,
    /// What every alias so far repeats.
    repeated: u64,
}

impl Expansion {
    fn start(&mut self, anchor: usize) {
        self.open.push((NODE_BYTES, anchor));
    }

    fn end(&mut self) {
        if let Some((size, anchor)) = self.open.pop() {
            self.node(size, anchor);
        }
    }

    fn scalar(&mut self, len: usize, anchor: usize) {
        self.node(NODE_BYTES.saturating_add(len as u64), anchor);
    }

    /// An alias of the node anchored as `id` (one still open, which names itself, counts 0:
    /// the parser proper refuses it); returns what every alias so far repeats.
    fn alias(&mut self, id: usize) -> u64 {
        let size = self.anchored.get(&id).copied().unwrap_or(0);
        self.repeated = self.repeated.saturating_add(size);
        self.node(size, 0);
        self.repeated
    }

    fn node(&mut self, size: u64, anchor: usize) {
        if anchor != 0 {
            self.anchored.insert(anchor, size);
        }
        if let Some((parent, _)) = self.open.last_mut() {
            *parent = parent.saturating_add(size);
        }
    }
}

/// A key that a mapping repeats.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Duplicate {
    /// The repeated key's path.
    pub path: KeyPath,
    /// The line of its second occurrence (1-based).
    pub line: usize,
    /// The line of its first occurrence.
    pub first_line: usize,
}

impl Duplicate {
    /// The repeated key, quoted for a message.
    pub fn key(&self) -> String {
        match self.path.0.last() {
            Some(Seg::Key(key)) => crate::quote::ticked(key),
            _ => "this key".to_string(),
        }
    }
}

/// The 1-based line of `path` in `text`, or of its longest prefix that exists; 0 if none.
pub fn line_of(text: &str, path: &KeyPath) -> usize {
    lines_of(text, std::slice::from_ref(path))[0]
}

/// [`line_of`] for each of `paths`, in one walk of `text`: a rule set with thousands of errors
/// or warnings is located in the time of one.
pub fn lines_of(text: &str, paths: &[KeyPath]) -> Vec<usize> {
    let mut events = Parser::new_from_str(text);
    locate(&mut events, &mut Expansion::default(), paths, 1)
}

/// The 1-based line of each of `paths` in the `document`-th document (1-based) of the stream
/// `text`, or of its longest prefix there, down to the document's top node; 0 when the stream
/// has no such document, or a syntax error comes before it. One walk finds them all.
pub fn lines_in_stream(text: &str, document: usize, paths: &[KeyPath]) -> Vec<usize> {
    let mut events = Parser::new_from_str(text);
    let mut expansion = Expansion::default();
    for _ in 1..document {
        let walked = walk_events(
            &mut events,
            &mut expansion,
            |_, _| ControlFlow::Continue(()),
        );
        if !matches!(walked, Walked::DocumentEnd) {
            return vec![0; paths.len()];
        }
    }
    locate(&mut events, &mut expansion, paths, 0)
}

/// The 1-based line where each document of the stream `text` starts (its `---`, or its first
/// node), up to the first syntax error: a document's text can then be read from its own line on.
pub fn document_lines(text: &str) -> Vec<usize> {
    let mut lines = Vec::new();
    for item in Parser::new_from_str(text) {
        match item {
            Ok((Event::DocumentStart(_), span)) => lines.push(span.start.line()),
            Ok((Event::StreamEnd, _)) | Err(_) => break,
            Ok(_) => {}
        }
    }
    lines
}

/// The line of each of `paths` in the document the events stand in, or of its longest prefix
/// of at least `shortest` steps that the walk reaches (0: none).
fn locate<'a>(
    events: &mut impl Iterator<Item = Result<(Event<'a>, Span), ScanError>>,
    expansion: &mut Expansion,
    paths: &[KeyPath],
    shortest: usize,
) -> Vec<usize> {
    // Every prefix of every path, with the line where the walk first reaches it (0: not yet).
    let mut first: HashMap<&[Seg], usize> = HashMap::new();
    for path in paths {
        for len in shortest..=path.0.len() {
            first.entry(&path.0[..len]).or_insert(0);
        }
    }
    // Once every path is found whole, the rest of the document cannot change a line.
    let whole: HashSet<&[Seg]> = paths.iter().map(|p| p.0.as_slice()).collect();
    let mut missing = whole.len();
    walk_events(events, expansion, |frames, step| {
        let (Step::Key { line, .. }
        | Step::Node { line }
        | Step::Item { line }
        | Step::Alias { line, .. }) = step;
        let at = current_path(frames);
        if let Some(slot) = first.get_mut(at.as_slice()).filter(|slot| **slot == 0) {
            *slot = line;
            missing -= usize::from(whole.contains(at.as_slice()));
        }
        match missing {
            0 => ControlFlow::Break(()),
            _ => ControlFlow::Continue(()),
        }
    });
    paths
        .iter()
        .map(|path| {
            (shortest..=path.0.len())
                .rev()
                .find_map(|len| first.get(&path.0[..len]).copied().filter(|l| *l > 0))
                .unwrap_or(0)
        })
        .collect()
}

/// What makes a rules text unusable before its fields are read.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Flaw {
    /// A key that its mapping repeats.
    Duplicate(Duplicate),
    /// A mapping or sequence nested deeper than the bound ([`MAX_DEPTH`] for rules), at this
    /// line: the YAML parser proper takes minutes over a megabyte of `[[[…`, and no rules
    /// document nests like that.
    TooDeep { line: usize },
    /// The alias at this line takes what the text's aliases repeat past `bound` bytes
    /// ([`alias_budget`]): a "billion laughs", or one big node named many times.
    Aliases { line: usize, bound: u64 },
    /// A second document with content (after `---`), starting at this line: a rules file or
    /// ConfigMap key holds one document. An empty one (a trailing `---`, perhaps
    /// with comments) is no flaw.
    SecondDocument { line: usize },
}

/// What a pre-walk found: the first flaw, the 1-based document it is in, and whether a merge
/// key (a plain `<<`) came before it.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Survey {
    pub flaw: Option<Flaw>,
    /// The document of the flaw (0 when there is none).
    pub document: usize,
    pub merges: bool,
}

/// The bounds a pre-walk holds a text to.
struct Bounds {
    depth: usize,
    aliases: u64,
}

impl Bounds {
    fn of(text: &str, depth: usize) -> Self {
        Bounds {
            depth,
            aliases: alias_budget(text),
        }
    }

    /// The flaw `step` (inside `frames`) is, noting a merge key in `merges`.
    fn judge(&self, frames: &[Frame], step: Step, merges: &mut bool) -> Option<Flaw> {
        match step {
            Step::Key {
                line,
                first: Some(first_line),
                ..
            } => Some(Flaw::Duplicate(Duplicate {
                path: KeyPath(current_path(frames)),
                line,
                first_line,
            })),
            Step::Key { merge, .. } => {
                *merges |= merge;
                None
            }
            Step::Node { line } if frames.len() >= self.depth => Some(Flaw::TooDeep { line }),
            Step::Alias { line, repeated } if repeated > self.aliases => Some(Flaw::Aliases {
                line,
                bound: self.aliases,
            }),
            Step::Node { .. } | Step::Item { .. } | Step::Alias { .. } => None,
        }
    }
}

/// The deepest nesting a rules document may have (a trust policy's condition values, the
/// deepest part of one, sit at depth 8).
pub const MAX_DEPTH: usize = 64;

/// The first flaw of `text`: a key that its mapping already has (YAML and JSON alike: every
/// map of a rules document is keyed by strings, so `a`, `'a'` and `"a"` are one key), nesting
/// deeper than [`MAX_DEPTH`], aliases past [`alias_budget`], or a second document with
/// content.
pub fn first_flaw(text: &str) -> Option<Flaw> {
    survey_rules(text).flaw
}

/// [`first_flaw`], and whether the first document uses merge keys.
pub fn survey_rules(text: &str) -> Survey {
    let bounds = Bounds::of(text, MAX_DEPTH);
    let mut events = Parser::new_from_str(text);
    let mut found = None;
    let mut merges = false;
    let walked = walk_events(&mut events, &mut Expansion::default(), |frames, step| {
        found = bounds.judge(frames, step, &mut merges);
        stop_at(&found)
    });
    let flaw = match walked {
        Walked::Error(e) => too_deep(&e),
        Walked::Stopped => found,
        Walked::DocumentEnd | Walked::StreamEnd => {
            later_document(&mut events).map(|line| Flaw::SecondDocument { line })
        }
    };
    Survey {
        document: usize::from(flaw.is_some()),
        flaw,
        merges,
    }
}

/// The first flaw among every document of `text` (a file of Kubernetes objects): a repeated
/// key, nesting deeper than `depth`, or aliases past [`alias_budget`] (counted over the whole
/// text). A syntax error is left to the parser proper, unless it is the scanner's own depth
/// bound.
pub fn survey_stream(text: &str, depth: usize) -> Survey {
    let bounds = Bounds::of(text, depth);
    let mut events = Parser::new_from_str(text);
    let mut expansion = Expansion::default();
    let mut survey = Survey::default();
    for document in 1.. {
        let mut found = None;
        let walked = walk_events(&mut events, &mut expansion, |frames, step| {
            found = bounds.judge(frames, step, &mut survey.merges);
            stop_at(&found)
        });
        let flaw = match walked {
            Walked::DocumentEnd => continue,
            Walked::StreamEnd => None,
            Walked::Stopped => found,
            Walked::Error(e) => too_deep(&e),
        };
        if flaw.is_some() {
            survey.document = document;
        }
        survey.flaw = flaw;
        break;
    }
    survey
}

fn stop_at(found: &Option<Flaw>) -> ControlFlow<()> {
    match found {
        Some(_) => ControlFlow::Break(()),
        None => ControlFlow::Continue(()),
    }
}

/// The scanner looks ahead over `[[[…`: at its own bound (255 levels) it fails before the walk
/// sees the nodes. Any other syntax error the parser proper reports.
fn too_deep(e: &ScanError) -> Option<Flaw> {
    (e.info() == "recursion limit exceeded").then(|| Flaw::TooDeep {
        line: e.marker().line(),
    })
}

/// Whether the first document of `text` with a node in it is a Kubernetes object (a mapping
/// with `apiVersion` and `kind` at its top, such as a ConfigMap or a `List`) rather than a rules
/// document, which has neither key. Empty documents before it (`---` and a comment, as `helm
/// template` writes for a template that renders nothing) are passed over.
pub fn is_kubernetes_object(text: &str) -> bool {
    let mut events = Parser::new_from_str(text);
    let mut expansion = Expansion::default();
    loop {
        let (mut api_version, mut kind, mut content) = (false, false, false);
        let walked = walk_events(&mut events, &mut expansion, |frames, step| {
            content |= matches!(step, Step::Node { .. });
            if let (
                Step::Key { .. },
                [Frame::Map {
                    slot: Slot::Value(Some(key)),
                    ..
                }],
            ) = (step, frames)
            {
                api_version |= key == "apiVersion";
                kind |= key == "kind";
            }
            if api_version && kind {
                ControlFlow::Break(())
            } else {
                ControlFlow::Continue(())
            }
        });
        match walked {
            Walked::DocumentEnd if !content => continue,
            _ => return api_version && kind,
        }
    }
}

/// The line where a document with content starts, among the documents after the first.
/// A syntax error there counts as content (the parser proper reads the first document only).
fn later_document<'a>(
    events: &mut impl Iterator<Item = Result<(Event<'a>, Span), ScanError>>,
) -> Option<usize> {
    // The line of the later document being read.
    let mut open: Option<usize> = None;
    for item in events {
        let (event, span) = match item {
            Ok(item) => item,
            Err(e) => return open.or(Some(e.marker().line())),
        };
        match event {
            Event::DocumentStart(_) => open = Some(span.start.line()),
            Event::DocumentEnd => open = None,
            // What an empty document holds: nothing written (not `''` nor `~`), no tag or anchor.
            Event::Scalar(value, ScalarStyle::Plain, 0, None) if value.is_empty() => {}
            Event::StreamEnd => return None,
            _ => return open.or(Some(span.start.line())),
        }
    }
    None
}

/// Walks the events from where they stand to the end of the document they are in (or of the
/// text), telling `visit` of every key, alias and nested node with the frames around it, and
/// leaving the later events unread; stops at the first syntax error (the parser proper reports
/// it to the user). `expansion` counts aliases across documents.
fn walk_events<'a>(
    events: &mut impl Iterator<Item = Result<(Event<'a>, Span), ScanError>>,
    expansion: &mut Expansion,
    mut visit: impl FnMut(&[Frame], Step) -> ControlFlow<()>,
) -> Walked {
    let mut frames: Vec<Frame> = Vec::new();
    for item in events {
        let (event, span) = match item {
            Ok(item) => item,
            Err(e) => return Walked::Error(e),
        };
        let line = span.start.line();
        let step = match event {
            Event::Scalar(value, style, anchor, _) => {
                expansion.scalar(value.len(), anchor);
                scalar_step(&mut frames, value, style, line)
            }
            Event::MappingStart(anchor, _) | Event::SequenceStart(anchor, _) => {
                expansion.start(anchor);
                if visit(&frames, Step::Node { line }).is_break() {
                    return Walked::Stopped;
                }
                open(&mut frames, matches!(event, Event::MappingStart(..)));
                None
            }
            Event::MappingEnd | Event::SequenceEnd => {
                expansion.end();
                frames.pop();
                advance(&mut frames);
                None
            }
            Event::Alias(id) => {
                let repeated = expansion.alias(id);
                advance(&mut frames);
                Some(Step::Alias { line, repeated })
            }
            Event::DocumentEnd => return Walked::DocumentEnd,
            Event::StreamEnd => return Walked::StreamEnd,
            _ => None,
        };
        if let Some(step) = step {
            let item = matches!(step, Step::Item { .. });
            if visit(&frames, step).is_break() {
                return Walked::Stopped;
            }
            if item {
                advance(&mut frames);
            }
        }
    }
    Walked::StreamEnd
}

/// What the scalar `value` at `line` is where it stands: a key of the innermost mapping
/// (noted in its frame), an item of a sequence (told for its line, and passed once told), or
/// a value (passed, untold).
fn scalar_step(
    frames: &mut [Frame],
    value: Cow<str>,
    style: ScalarStyle,
    line: usize,
) -> Option<Step> {
    match frames.last_mut() {
        Some(Frame::Map {
            slot: slot @ Slot::Key,
            seen,
        }) => {
            let key = value.into_owned();
            let merge = style == ScalarStyle::Plain && key == "<<";
            let first = match seen.entry(key.clone()) {
                _ if merge => None,
                Entry::Occupied(e) => Some(*e.get()),
                Entry::Vacant(e) => {
                    e.insert(line);
                    None
                }
            };
            *slot = Slot::Value(Some(key));
            Some(Step::Key { line, first, merge })
        }
        Some(Frame::Seq { .. }) => Some(Step::Item { line }),
        _ => {
            advance(frames);
            None
        }
    }
}

/// A mapping (or, with `mapping` false, a sequence) opens in the innermost frame: where a key
/// stands, it is a complex key.
fn open(frames: &mut Vec<Frame>, mapping: bool) {
    if let Some(Frame::Map {
        slot: slot @ Slot::Key,
        ..
    }) = frames.last_mut()
    {
        *slot = Slot::ComplexKey;
    }
    frames.push(if mapping {
        Frame::Map {
            slot: Slot::Key,
            seen: HashMap::new(),
        }
    } else {
        Frame::Seq { index: 0 }
    });
}

fn current_path(frames: &[Frame]) -> Vec<Seg> {
    let mut segs = Vec::with_capacity(frames.len());
    for frame in frames {
        match frame {
            Frame::Map {
                slot: Slot::Value(Some(k)),
                ..
            } => segs.push(Seg::Key(k.clone())),
            Frame::Map { .. } => break,
            Frame::Seq { index } => segs.push(Seg::Index(*index)),
        }
    }
    segs
}

/// A node of the innermost frame ended: a mapping's key (its value follows) or value (a
/// key follows), or a sequence's item.
fn advance(frames: &mut [Frame]) {
    match frames.last_mut() {
        Some(Frame::Map { slot, .. }) => {
            *slot = match slot {
                Slot::Key | Slot::ComplexKey => Slot::Value(None),
                Slot::Value(_) => Slot::Key,
            };
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
    fn many_paths_are_located_in_one_walk_as_each_alone() {
        let root = KeyPath::root();
        let paths = [
            root.key("irsa")
                .key("trustPolicies")
                .key("arn:aws:iam::111122223333:role/a"),
            root.key("inject").index(1).key("annotations"),
            root.key("domainFilters").index(0),
            root.key("irsa").key("nope"),
            root.key("absent"),
            root.key("inject").index(1),
        ];
        let each: Vec<usize> = paths.iter().map(|p| line_of(DOC, p)).collect();
        assert_eq!(each, [5, 10, 1, 2, 0, 9]);
        assert_eq!(lines_of(DOC, &paths), each);
    }

    #[test]
    fn only_a_document_with_api_version_and_kind_at_its_top_is_a_kubernetes_object() {
        let deep = "[".repeat(10_000);
        let cases: &[(&str, &str, bool)] = &[
            (
                "a ConfigMap",
                "apiVersion: v1\nkind: ConfigMap\ndata: {rules.yaml: '{}'}\n",
                true,
            ),
            (
                "a List in JSON",
                r#"{"kind": "List", "apiVersion": "v1", "items": []}"#,
                true,
            ),
            (
                "the first of several objects",
                "apiVersion: v1\nkind: ConfigMap\n---\nx: 1\n",
                true,
            ),
            ("a rules document", DOC, false),
            ("an empty text", "", false),
            (
                "kind without apiVersion",
                "kind: ConfigMap\ndata: {}\n",
                false,
            ),
            (
                "the keys nested, not at the top",
                "inject:\n  - apiVersion: v1\n    kind: Service\n",
                false,
            ),
            (
                "a rules document, then an object",
                "domainFilters: []\n---\napiVersion: v1\nkind: List\n",
                false,
            ),
            ("a sequence", "- apiVersion: v1\n  kind: ConfigMap\n", false),
            ("nesting past the parser's bound", deep.as_str(), false),
            (
                "both keys, then a syntax error",
                "apiVersion: v1\nkind: [\n",
                true,
            ),
            (
                "a syntax error before kind",
                "apiVersion: v1\n: [\nkind: List\n",
                false,
            ),
            (
                "empty documents first, as helm template writes them",
                "---\n# Source: chart/templates/empty.yaml\n---\napiVersion: v1\nkind: ConfigMap\n",
                true,
            ),
            (
                "an empty document, then a rules document",
                "---\n---\ndomainFilters: []\n",
                false,
            ),
        ];
        for (what, text, want) in cases {
            assert_eq!(is_kubernetes_object(text), *want, "{what}");
        }
    }

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
    fn a_path_is_located_in_the_document_of_a_stream_it_names() {
        let stream = "---\n# empty\n---\napiVersion: v1\nkind: List\nitems:\n- kind: Ingress\n  spec:\n    rules: {}\n---\n{\"kind\": \"Service\",\n \"spec\": 5}\n";
        let root = KeyPath::root();
        let cases: &[(&str, usize, KeyPath, usize)] = &[
            ("a document's top", 2, root.clone(), 4),
            (
                "a key in an item",
                2,
                root.key("items").index(0).key("spec").key("rules"),
                9,
            ),
            ("an item", 2, root.key("items").index(0), 7),
            (
                "a missing key, at its parent",
                2,
                root.key("items").index(0).key("nope"),
                7,
            ),
            (
                "an index past the items, at the list",
                2,
                root.key("items").index(3),
                6,
            ),
            ("a key of a JSON document", 3, root.key("spec"), 12),
            ("a missing key, at the top", 3, root.key("metadata"), 11),
            ("an empty document", 1, root.key("spec"), 0),
            ("past the last document", 4, root.clone(), 0),
        ];
        for (what, document, path, want) in cases {
            let found = lines_in_stream(stream, *document, std::slice::from_ref(path));
            assert_eq!(found, [*want], "{what}");
        }
    }

    #[test]
    fn each_document_of_a_stream_starts_on_its_own_line() {
        let cases: &[(&str, &[usize])] = &[
            ("a: 1\n---\nb: 2\n--- # c\n\nc: 3\n", &[1, 2, 4]),
            ("# a comment\n---\na: 1\n", &[2]),
            ("", &[]),
            ("a: [\n---\nb: 1\n", &[1]),
        ];
        for (text, want) in cases {
            assert_eq!(document_lines(text), *want, "{text:?}");
        }
    }

    #[test]
    fn a_syntax_error_before_the_document_named_locates_nothing() {
        let stream = "a: [\n---\nb: 1\n";
        assert_eq!(lines_in_stream(stream, 2, &[KeyPath::root().key("b")]), [0]);
    }

    #[test]
    fn json_documents_are_located_too() {
        let json = "{\n  \"irsa\": {\n    \"issuer\": \"x\"\n  }\n}";
        assert_eq!(line_of(json, &KeyPath::root().key("irsa").key("issuer")), 3);
    }

    /// A duplicate's key path, its line and the line of the first occurrence.
    type Found<'a> = Option<(&'a str, usize, usize)>;

    fn first_duplicate(text: &str) -> Option<Duplicate> {
        match first_flaw(text)? {
            Flaw::Duplicate(d) => Some(d),
            Flaw::TooDeep { .. } | Flaw::SecondDocument { .. } | Flaw::Aliases { .. } => None,
        }
    }

    #[test]
    fn nesting_deeper_than_the_bound_is_a_flaw_at_its_line() {
        let deep = format!("a:\n{}", "[".repeat(200_000));
        assert_eq!(first_flaw(&deep), Some(Flaw::TooDeep { line: 2 }));
        let within = format!("{}{}", "[".repeat(MAX_DEPTH - 1), "]".repeat(MAX_DEPTH - 1));
        assert_eq!(first_flaw(&within), None);
        let block: String = (0..MAX_DEPTH + 1)
            .map(|i| format!("{}k{i}:\n", "  ".repeat(i)))
            .collect();
        assert!(matches!(first_flaw(&block), Some(Flaw::TooDeep { .. })));
    }

    /// `big: &b "<len bytes>"` then `refs: [*b, …]` `refs` times.
    fn one_big_anchor(len: usize, refs: usize) -> String {
        format!(
            "big: &b \"{}\"\nrefs: [{}]\n",
            "a".repeat(len),
            vec!["*b"; refs].join(", ")
        )
    }

    /// Nine aliases of the level below, `levels` times: 9^levels copies of `x`.
    fn billion_laughs(levels: usize) -> String {
        let mut text = String::from("l0: &l0 [x, x, x, x, x, x, x, x, x]\n");
        for i in 1..=levels {
            let refs = vec![format!("*l{}", i - 1); 9].join(", ");
            text.push_str(&format!("l{i}: &l{i} [{refs}]\n"));
        }
        text
    }

    #[test]
    fn aliases_are_bounded_by_the_bytes_they_repeat_not_by_their_count() {
        let mib = 1 << 20;
        let table: [(&str, String, Option<usize>); 6] = [
            ("a few small aliases", one_big_anchor(10, 100), None),
            (
                "a 1 MiB scalar named 15 times",
                one_big_anchor(mib, 15),
                None,
            ),
            (
                "a 1 MiB scalar named 17 times",
                one_big_anchor(mib, 17),
                Some(2),
            ),
            (
                "a 1 MiB scalar named 8 000 times",
                one_big_anchor(mib, 8_000),
                Some(2),
            ),
            ("a billion laughs", billion_laughs(12), Some(6)),
            ("laughs within the bound", billion_laughs(4), None),
        ];
        for (what, text, line) in table {
            let found = match first_flaw(&text) {
                Some(Flaw::Aliases { line, bound }) => {
                    assert_eq!(bound, MIN_ALIAS_BYTES, "{what}");
                    Some(line)
                }
                other => {
                    assert_eq!(other, None, "{what}");
                    None
                }
            };
            assert_eq!(found, line, "{what}");
        }
    }

    #[test]
    fn the_alias_bound_grows_with_the_text_past_its_floor() {
        let small = "a: 1\n";
        let large = "#".repeat(20 << 20);
        assert_eq!(alias_budget(small), MIN_ALIAS_BYTES);
        assert_eq!(alias_budget(&large), 20 << 20);
    }

    /// A case of a stream survey: what it is, the text, its flaw and document, whether it merges.
    type StreamCase = (&'static str, String, Option<(usize, Flaw)>, bool);

    #[test]
    fn a_stream_is_surveyed_document_by_document() {
        let bomb = one_big_anchor(1 << 20, 20);
        let table: [StreamCase; 6] = [
            ("clean documents", "a: 1\n---\nb: 2\n".into(), None, false),
            (
                "a repeat in the second",
                "a: 1\n---\nb: 2\nb: 3\n".into(),
                Some((
                    2,
                    Flaw::Duplicate(Duplicate {
                        path: KeyPath::root().key("b"),
                        line: 4,
                        first_line: 3,
                    }),
                )),
                false,
            ),
            (
                "deep nesting in the third",
                format!("a: 1\n---\n---\nspec: {}", "[".repeat(1_000_000)),
                Some((3, Flaw::TooDeep { line: 4 })),
                false,
            ),
            (
                "nesting within the bound",
                format!("spec: {}{}\n", "[".repeat(100), "]".repeat(100)),
                None,
                false,
            ),
            (
                "aliases in the second",
                format!("a: 1\n---\n{bomb}"),
                Some((
                    2,
                    Flaw::Aliases {
                        line: 4,
                        bound: MIN_ALIAS_BYTES,
                    },
                )),
                false,
            ),
            (
                "merge keys, each mapping's own",
                "a: {<<: {x: 1}, <<: {y: 1}}\n---\nb: {'<<': 1}\n".into(),
                None,
                true,
            ),
        ];
        for (what, text, flaw, merges) in table {
            let survey = survey_stream(&text, 128);
            let found = survey.flaw.map(|f| (survey.document, f));
            assert_eq!((found, survey.merges), (flaw, merges), "{what}");
        }
    }

    #[test]
    fn only_a_key_its_own_mapping_repeats_is_a_duplicate() {
        let table: [(&str, Found); 9] = [
            ("a: 1\nb: 2\n", None),
            ("a: 1\nb: 2\na: 3\n", Some(("a", 3, 1))),
            ("a: {x: 1}\nb: {x: 1}\n", None),
            ("a: [{x: 1}, {x: 1, x: 2}]\n", Some(("a[1].x", 1, 1))),
            ("a: 1\n'a': 2\n", Some(("a", 2, 1))),
            ("{\"a\": 1, \"\\u0061\": 2}", Some(("a", 1, 1))),
            ("? [k]\n: v\n? [k]\n: v\n", None),
            ("x: &x 1\n*x : v\n*x : v\n", None),
            ("a: 1\n---\na: 2\n", None),
        ];
        for (text, expected) in table {
            let found = first_duplicate(text);
            let found = found
                .as_ref()
                .map(|d| (d.path.to_string(), d.line, d.first_line));
            let expected = expected.map(|(p, l, f)| (p.to_string(), l, f));
            assert_eq!(found, expected, "{text:?}");
        }
    }

    #[test]
    fn only_a_later_document_with_content_is_a_flaw_at_its_first_line() {
        let table: [(&str, Option<usize>); 9] = [
            ("a: 1\n", None),
            ("---\na: 1\n", None),
            ("a: 1\n---\n", None),
            ("a: 1\n---\n# only a comment\n...\n", None),
            ("a: 1\n---\nb: 2\n", Some(2)),
            ("a: 1\n---\n\n---\n- b\n", Some(4)),
            ("a: 1\n--- ''\n", Some(2)),
            ("a: 1\n...\n]\n", Some(3)),
            ("a: 1\nb: [\n---\nc: 2\n", None),
        ];
        for (text, line) in table {
            let found = match first_flaw(text) {
                Some(Flaw::SecondDocument { line }) => Some(line),
                _ => None,
            };
            assert_eq!(found, line, "{text:?}");
        }
    }

    mod never_panics {
        use super::*;
        use proptest::prelude::*;

        proptest! {
            #[test]
            fn a_mapping_has_a_duplicate_exactly_when_a_key_repeats(keys in proptest::collection::vec("[abc]{1,2}", 0..12)) {
                let text: String = keys.iter().map(|k| format!("{k}: v\n")).collect();
                let repeat = (0..keys.len()).find(|&i| keys[..i].contains(&keys[i]));
                let found = first_duplicate(&text);
                prop_assert_eq!(found.as_ref().map(|d| d.line), repeat.map(|i| i + 1));
                if let (Some(d), Some(i)) = (found, repeat) {
                    prop_assert_eq!(d.path, KeyPath::root().key(&keys[i]));
                }
            }

            #[test]
            fn arbitrary_text_gives_a_duplicate_or_none(text in "[a-z:\\[\\]{}?*&\\-\\n ,'\"]{0,120}") {
                let _ = first_duplicate(&text);
            }

            #[test]
            fn a_document_is_an_object_exactly_when_both_keys_stand_at_its_top(
                keys in proptest::collection::vec(prop_oneof!["apiVersion", "kind", "data", "spec"], 0..5),
                nested in any::<bool>(),
            ) {
                let indent = if nested { "  " } else { "" };
                let head = if nested { "outer:\n" } else { "" };
                let body: String = keys.iter().map(|k| format!("{indent}{k}: v\n")).collect();
                let text = format!("{head}{body}");
                let top = |k: &str| !nested && keys.iter().any(|x| x == k);
                prop_assert_eq!(is_kubernetes_object(&text), top("apiVersion") && top("kind"), "{}", text);
            }

            #[test]
            fn arbitrary_text_is_an_object_or_not_without_a_panic(text in "(apiVersion|kind|[a-z:\\[\\]{}?*&\\-\\n ,'\"]){0,60}") {
                let _ = is_kubernetes_object(&text);
            }
        }
    }
}
