//! Where an object's text lies in its file: kept so that an error or a violation naming one of
//! the object's fields can give that field's line, found only when one is reported.

use std::ops::Range;
use std::sync::{Arc, OnceLock};
use zoneguard_core::yaml::{self, KeyPath};

/// A file's text, shared by the objects read from it.
#[derive(Debug, Default)]
pub struct FileText {
    /// As the YAML reader read it (byte order marks dropped, lines kept).
    text: String,
    /// Where each YAML document starts: its line (1-based) and that line's first byte. Found
    /// once, at the first line asked for, so that each object is then located in its own
    /// document's text rather than by reading the file from its start.
    starts: OnceLock<Vec<(usize, usize)>>,
}

impl FileText {
    pub fn new(text: &str) -> Arc<Self> {
        Arc::new(FileText {
            text: text.to_owned(),
            starts: OnceLock::new(),
        })
    }

    fn starts(&self) -> &[(usize, usize)] {
        self.starts.get_or_init(|| {
            let bytes = self.text.as_bytes();
            let (mut line, mut byte) = (1, 0);
            let mut starts = Vec::new();
            for want in yaml::document_lines(&self.text) {
                while line < want {
                    let Some(newline) = bytes[byte..].iter().position(|b| *b == b'\n') else {
                        return starts;
                    };
                    byte += newline + 1;
                    line += 1;
                }
                starts.push((line, byte));
            }
            starts
        })
    }
}

/// The text an object was read from, and where the object is in it.
#[derive(Debug, Clone, Default)]
pub struct Origin {
    file: Arc<FileText>,
    /// A stream of JSON objects' document at these bytes; `None` for YAML.
    span: Option<Range<usize>>,
    /// The object's document in the file, 1-based.
    document: usize,
}

impl Origin {
    /// The `document`-th document of the YAML stream `file`.
    pub fn yaml(file: Arc<FileText>, document: usize) -> Self {
        Origin {
            file,
            span: None,
            document,
        }
    }

    /// The JSON object at `span` of `file`.
    pub fn json(file: Arc<FileText>, span: Range<usize>) -> Self {
        Origin {
            file,
            span: Some(span),
            document: 1,
        }
    }

    /// The 1-based line of `field` of the object at `items` (`items[i]` of a `List`, as many
    /// as the lists nest; none for a document's own object), or of the nearest enclosing
    /// field the text has; `None` when the text cannot be read that far.
    pub fn line(&self, items: &[usize], field: &KeyPath) -> Option<usize> {
        self.lines(items, std::slice::from_ref(field))[0]
    }

    /// [`Origin::line`] for each of `fields`, in one reading of the object's text.
    pub fn lines(&self, items: &[usize], fields: &[KeyPath]) -> Vec<Option<usize>> {
        let text = &self.file.text;
        // The stream to read, the document in it, and the lines of the file before it.
        let (stream, document, before) = match &self.span {
            Some(span) => {
                let before = text
                    .get(..span.start)
                    .map_or(0, |t| t.matches('\n').count());
                (text.get(span.clone()), 1, before)
            }
            None => match self.file.starts().get(self.document.wrapping_sub(1)) {
                Some(&(line, byte)) => (text.get(byte..), 1, line - 1),
                None => (Some(text.as_str()), self.document, 0),
            },
        };
        let Some(stream) = stream else {
            return vec![None; fields.len()];
        };
        let mut prefix = KeyPath::root();
        for i in items {
            prefix = prefix.key("items").index(*i);
        }
        let paths: Vec<KeyPath> = fields
            .iter()
            .map(|field| KeyPath(prefix.0.iter().chain(&field.0).cloned().collect()))
            .collect();
        yaml::lines_in_stream(stream, document, &paths)
            .into_iter()
            .map(|line| (line > 0).then_some(before + line))
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn field(dotted: &str) -> KeyPath {
        KeyPath::parse_dotted(dotted)
    }

    #[test]
    fn a_field_is_found_in_its_document_and_list_item() {
        let text = FileText::new(
            "kind: A\n---\nkind: List\nitems:\n- kind: B\n- kind: C\n  spec:\n    rules: 5\n",
        );
        let origin = Origin::yaml(text, 2);
        let cases: &[(&[usize], &str, Option<usize>)] = &[
            (&[1], "spec.rules", Some(8)),
            (&[1], "", Some(6)),
            (&[0], "spec.rules", Some(5)),
            (&[], "items", Some(4)),
            (&[], "", Some(3)),
        ];
        for (items, dotted, want) in cases {
            assert_eq!(
                origin.line(items, &field(dotted)),
                *want,
                "{items:?} {dotted}"
            );
        }
    }

    #[test]
    fn documents_are_found_from_their_own_lines_after_comments_and_separators() {
        let text = FileText::new("# head\n---\na: 1\n--- # two\n\nb:\n  c: 2\n---\nd: [\n");
        let cases: &[(usize, &str, Option<usize>)] = &[
            (1, "a", Some(3)),
            (2, "b.c", Some(7)),
            (2, "", Some(6)),
            (3, "d", Some(9)),
            (4, "a", None),
        ];
        for (document, dotted, want) in cases {
            let origin = Origin::yaml(text.clone(), *document);
            assert_eq!(
                origin.line(&[], &field(dotted)),
                *want,
                "{document} {dotted}"
            );
        }
    }

    #[test]
    fn a_json_object_is_found_on_the_lines_of_its_file() {
        let text = "{\"kind\": \"A\"}\n{\n \"kind\": \"B\",\n \"spec\": 5\n}\n";
        let start = text.find('}').expect("first") + 1;
        let origin = Origin::json(FileText::new(text), start..text.len());
        assert_eq!(origin.line(&[], &field("spec")), Some(4));
        assert_eq!(origin.line(&[], &field("")), Some(2));
    }

    #[test]
    fn an_object_without_its_text_has_no_line() {
        assert_eq!(Origin::default().line(&[], &field("spec")), None);
    }
}
