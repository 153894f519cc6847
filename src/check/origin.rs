//! Where an object's text lies in its file: kept so that an error naming one of the object's
//! fields can give that field's line, found only when such an error is written.

use std::ops::Range;
use std::sync::Arc;
use zoneguard_core::yaml::{self, KeyPath};

/// The text an object was read from, and where the object is in it.
#[derive(Debug, Clone, Default)]
pub struct Origin {
    /// The file's text, as the YAML reader read it (byte order marks dropped, lines kept).
    text: Arc<str>,
    /// The bytes of `text` holding the object's stream: all of them for YAML, one document's
    /// for a stream of JSON objects.
    span: Range<usize>,
    /// The object's document in that stream, 1-based.
    document: usize,
}

impl Origin {
    /// The `document`-th document of the YAML stream `text`.
    pub fn yaml(text: Arc<str>, document: usize) -> Self {
        let span = 0..text.len();
        Origin {
            text,
            span,
            document,
        }
    }

    /// The JSON object at `span` of `text`.
    pub fn json(text: Arc<str>, span: Range<usize>) -> Self {
        Origin {
            text,
            span,
            document: 1,
        }
    }

    /// The 1-based line of `field` of the object at `items` (`items[i]` of a `List`, as many
    /// as the lists nest; none for a document's own object), or of the nearest enclosing
    /// field the text has; `None` when the text cannot be read that far.
    pub fn line(&self, items: &[usize], field: &KeyPath) -> Option<usize> {
        let stream = self.text.get(self.span.clone())?;
        let mut path = KeyPath::root();
        for i in items {
            path = path.key("items").index(*i);
        }
        path.0.extend(field.0.iter().cloned());
        let line = yaml::line_in_stream(stream, self.document, &path);
        let before = self.text[..self.span.start].matches('\n').count();
        (line > 0).then_some(before + line)
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
        let text: Arc<str> = Arc::from(
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
    fn a_json_object_is_found_on_the_lines_of_its_file() {
        let text = "{\"kind\": \"A\"}\n{\n \"kind\": \"B\",\n \"spec\": 5\n}\n";
        let start = text.find("\n{").expect("second") + 1;
        let origin = Origin::json(Arc::from(text), start..text.len());
        assert_eq!(origin.line(&[], &field("spec")), Some(4));
        assert_eq!(origin.line(&[], &field("")), Some(2));
    }

    #[test]
    fn an_object_without_its_text_has_no_line() {
        assert_eq!(Origin::default().line(&[], &field("spec")), None);
    }
}
