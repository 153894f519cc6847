//! Reads Kubernetes objects from files, directories and stdin (multi-document YAML, JSON, `List`).

use serde::de::IgnoredAny;
use serde::Deserialize;
use serde_json::Value;
use std::borrow::Cow;
use std::fmt;
use std::io::Read;
use std::path::{Path, PathBuf};
use zoneguard_core::yaml;

/// The UTF-8 byte order mark some Windows editors begin a file with; kubectl ignores it.
const BOM: &[u8] = b"\xEF\xBB\xBF";

/// Largest input file read (a guard against reading a disk image by mistake).
const MAX_FILE_BYTES: u64 = zoneguard::text_file::MAX_BYTES;

use super::input_error::io_words;
pub use super::input_error::InputError;
use super::origin::{FileText, Origin};
use zoneguard_core::yaml::KeyPath;

/// One object, the file it came from and where in it.
#[derive(Debug, Clone)]
pub struct Object {
    pub file: String,
    pub value: Value,
    pub at: Place,
    /// Its text, for the line of a field an error names.
    pub origin: Origin,
}

impl Object {
    /// The line of `field` in this object's text (or of the nearest enclosing field there).
    pub fn line_of(&self, field: &KeyPath) -> Option<usize> {
        self.origin.line(&self.at.items, field)
    }

    /// [`Object::line_of`] for each of `fields`, in one reading of the object's text.
    pub fn lines_of(&self, fields: &[KeyPath]) -> Vec<Option<usize>> {
        self.origin.lines(&self.at.items, fields)
    }
}

/// Where an object is in its file: the document (1-based) and, in a `List`, the item.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Place {
    pub document: usize,
    /// `items[N]` of a `List`, as many as the lists nest (a `List` in a `List`).
    pub items: Vec<usize>,
}

impl fmt::Display for Place {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "document {}", self.document)?;
        for i in &self.items {
            write!(f, ", items[{i}]")?;
        }
        Ok(())
    }
}

impl Place {
    /// `error` placed here.
    pub fn on(&self, mut error: InputError) -> InputError {
        error.document = Some(self.document);
        error.item = self.items.last().copied();
        error
    }
}

fn error(file: &str, line: Option<usize>, message: impl Into<String>) -> InputError {
    InputError::manifest(file, line, message)
}

/// Every object under `path` (`-` = stdin); directories are walked in name order, without
/// their hidden entries.
pub fn read_path(path: &str, out: &mut Vec<Object>, errors: &mut Vec<InputError>) {
    if path == "-" {
        let mut bytes = Vec::new();
        match std::io::stdin()
            .take(MAX_FILE_BYTES + 1)
            .read_to_end(&mut bytes)
        {
            Ok(_) => read_bytes("-", &bytes, out, errors),
            Err(e) => errors.push(error(
                "-",
                None,
                format!("cannot read stdin: {}", io_words(&e)),
            )),
        }
        return;
    }
    let p = Path::new(path);
    if p.is_dir() {
        for file in walk(p, errors) {
            read_file(&file, out, errors);
        }
    } else {
        read_file(p, out, errors);
    }
}

fn walk(dir: &Path, errors: &mut Vec<InputError>) -> Vec<PathBuf> {
    let mut files = Vec::new();
    let entries = match std::fs::read_dir(dir) {
        Ok(e) => e,
        Err(e) => {
            errors.push(error(
                &dir.display().to_string(),
                None,
                format!("cannot read directory: {}", io_words(&e)),
            ));
            return files;
        }
    };
    let mut paths: Vec<PathBuf> = entries.filter_map(|e| e.ok().map(|e| e.path())).collect();
    paths.sort();
    // Hidden entries (`.git`, `.github`'s workflows, an editor's files) hold no manifests; a
    // hidden file or directory named on the command line is still read.
    paths.retain(|p| {
        !p.file_name()
            .is_some_and(|n| n.as_encoded_bytes().starts_with(b"."))
    });
    for path in paths {
        if path.is_dir() {
            // A linked directory is not entered (as kubectl's -R): a link to `.` or a parent
            // would otherwise be walked again and again.
            if !is_symlink(&path) {
                files.extend(walk(&path, errors));
            }
        } else if matches!(
            path.extension().and_then(|e| e.to_str()),
            Some("yaml" | "yml" | "json")
        ) {
            if is_special(&path) {
                // Reading a pipe would wait for a writer for ever.
                let message = "not a regular file (a pipe, a socket or a device): not read";
                errors.push(error(
                    &path.display().to_string(),
                    None,
                    message.to_string(),
                ));
            } else {
                files.push(path);
            }
        }
    }
    files
}

/// A pipe, socket or device (through links); a file that cannot be looked at is not, and
/// reading it tells why.
fn is_special(path: &Path) -> bool {
    path.metadata()
        .is_ok_and(|m| !m.file_type().is_file() && !m.file_type().is_dir())
}

fn is_symlink(path: &Path) -> bool {
    path.symlink_metadata()
        .is_ok_and(|m| m.file_type().is_symlink())
}

fn read_file(path: &Path, out: &mut Vec<Object>, errors: &mut Vec<InputError>) {
    let name = path.display().to_string();
    let read = std::fs::File::open(path).and_then(|f| {
        let mut bytes = Vec::new();
        f.take(MAX_FILE_BYTES + 1)
            .read_to_end(&mut bytes)
            .map(|_| bytes)
    });
    match read {
        Ok(bytes) => read_bytes(&name, &bytes, out, errors),
        Err(e) => errors.push(error(&name, None, format!("cannot read: {}", io_words(&e)))),
    }
}

/// Parses one file's bytes (or stdin's) into objects; one leading byte order mark is dropped,
/// and one at the start of each later YAML document.
pub fn read_bytes(file: &str, bytes: &[u8], out: &mut Vec<Object>, errors: &mut Vec<InputError>) {
    let bytes = bytes.strip_prefix(BOM).unwrap_or(bytes);
    if bytes.len() as u64 > MAX_FILE_BYTES {
        errors.push(error(
            file,
            None,
            format!("larger than {} MiB", MAX_FILE_BYTES >> 20),
        ));
        return;
    }
    let text = match std::str::from_utf8(bytes) {
        Ok(t) => t,
        Err(e) => {
            let line = bytes[..e.valid_up_to()]
                .iter()
                .filter(|b| **b == b'\n')
                .count()
                + 1;
            errors.push(error(
                file,
                Some(line),
                "not UTF-8 text (is this a binary file?)",
            ));
            return;
        }
    };
    if let Some(documents) = json_stream(text) {
        read_json_stream(file, text, documents, out, errors);
        return;
    }
    let text = &*without_document_boms(text);
    let shared = FileText::new(text);
    // Before the parser proper: it keeps the last of a repeated key, takes minutes over deep
    // nesting, and builds every copy aliases make.
    let survey = yaml::survey_stream(text, yaml::MANIFEST_MAX_DEPTH);
    if let Some(flaw) = &survey.flaw {
        errors.push(flaw_error(file, survey.document, flaw));
        return;
    }
    for (i, doc) in serde_yaml_ng::Deserializer::from_str(text).enumerate() {
        let place = Place {
            document: i + 1,
            items: Vec::new(),
        };
        match document_value(doc, survey.merges) {
            Ok(value) => {
                let origin = Origin::yaml(shared.clone(), place.document);
                push_object(file, place, value, &origin, out, errors);
            }
            Err(e) => {
                errors.push(place.on(error(
                    file,
                    e.line,
                    format!("not valid YAML or JSON ({place}): {}", e.message),
                )));
                return;
            }
        }
    }
}

/// `text` without the byte order mark that starts a document after a `---` line, as when files
/// each saved with one are joined: kubectl splits a stream at those lines and reads each document
/// alone, ignoring its mark, where libyaml would count the mark as a column and misread the
/// document. Only the lines change, not their number, so the errors' line numbers hold.
fn without_document_boms(text: &str) -> Cow<'_, str> {
    const MARK: char = '\u{feff}';
    if !text.contains(MARK) {
        return Cow::Borrowed(text);
    }
    let mut out = String::with_capacity(text.len());
    let mut after_separator = false;
    for line in text.split_inclusive('\n') {
        let line = match after_separator {
            true => line.strip_prefix(MARK).unwrap_or(line),
            false => line,
        };
        out.push_str(line);
        after_separator = is_separator(line);
    }
    Cow::Owned(out)
}

/// A line that separates YAML documents as kubectl splits them: `---`, then nothing but
/// blanks or a comment.
fn is_separator(line: &str) -> bool {
    line.strip_prefix("---")
        .map(str::trim)
        .is_some_and(|rest| rest.is_empty() || rest.starts_with('#'))
}

/// A stream of several JSON objects (`{…}{…}`, or one a line), which kubectl applies and YAML
/// cannot read: kubectl reads input that starts with `{` as JSON. Each object with the end of
/// its text in `text`. Anything else, a single JSON document included, is left to the YAML
/// reader, as kubectl (1.33 and later) falls back to YAML for `{`-led text JSON cannot read (a
/// trailing comma, a comment).
fn json_stream(text: &str) -> Option<Vec<(Value, usize)>> {
    if !text.trim_start().starts_with('{') {
        return None;
    }
    // A single JSON document, the common case, is counted without building it: the YAML
    // reader reads it afterwards.
    let mut values = serde_json::Deserializer::from_str(text).into_iter::<IgnoredAny>();
    if values.next()?.is_err() || values.next().is_none_or(|second| second.is_err()) {
        return None;
    }
    let mut stream = serde_json::Deserializer::from_str(text).into_iter::<Value>();
    let mut documents = Vec::new();
    while let Some(value) = stream.next() {
        let value = value.ok().filter(Value::is_object)?;
        documents.push((value, stream.byte_offset()));
    }
    (documents.len() > 1).then_some(documents)
}

/// The objects of a JSON stream, each first surveyed as the YAML documents are (a repeated
/// key, which JSON's reader would pass over keeping the last, is unusable input at its line).
fn read_json_stream(
    file: &str,
    text: &str,
    documents: Vec<(Value, usize)>,
    out: &mut Vec<Object>,
    errors: &mut Vec<InputError>,
) {
    let shared = FileText::new(text);
    let mut start = 0;
    for (i, (value, end)) in documents.into_iter().enumerate() {
        // Padded with the lines before it, so the survey's line numbers are the file's.
        let before = text[..start].matches('\n').count();
        let padded = "\n".repeat(before) + &text[start..end];
        let survey = yaml::survey_stream(&padded, yaml::MANIFEST_MAX_DEPTH);
        if let Some(flaw) = &survey.flaw {
            errors.push(flaw_error(file, i + 1, flaw));
            return;
        }
        let place = Place {
            document: i + 1,
            items: Vec::new(),
        };
        let origin = Origin::json(shared.clone(), start..end);
        push_object(file, place, value, &origin, out, errors);
        start = end;
    }
}

/// Why one document could not be read, and where.
struct DocumentError {
    line: Option<usize>,
    message: String,
}

/// One document as JSON; with `merges`, its merge keys (`<<`) applied as kubectl applies them.
fn document_value(
    doc: serde_yaml_ng::Deserializer<'_>,
    merges: bool,
) -> Result<Value, DocumentError> {
    if !merges {
        return Value::deserialize(doc).map_err(|e| yaml_error(&e));
    }
    let value = serde_yaml_ng::Value::deserialize(doc).map_err(|e| yaml_error(&e))?;
    let merged = yaml::apply_merges(value).map_err(|e| DocumentError {
        line: None,
        message: e.to_string(),
    })?;
    Value::deserialize(merged).map_err(|e| yaml_error(&e))
}

fn yaml_error(e: &serde_yaml_ng::Error) -> DocumentError {
    let message = e.to_string();
    DocumentError {
        line: e.location().map(|l| l.line()),
        message: message
            .split(" at line ")
            .next()
            .unwrap_or(&message)
            .to_string(),
    }
}

/// What the pre-walk found, as an error at its line.
fn flaw_error(file: &str, document: usize, flaw: &yaml::Flaw) -> InputError {
    let (line, message) = match flaw {
        yaml::Flaw::Duplicate(d) => (
            d.line,
            format!(
                "duplicate key {} (at {}), already set on line {}: kubectl refuses it, and a YAML parser would keep only the last; write each key once",
                d.key(),
                d.path,
                d.first_line
            ),
        ),
        yaml::Flaw::TooDeep { line } => (
            *line,
            format!(
                "nested more than {} levels deep; no Kubernetes object nests like that",
                yaml::MANIFEST_MAX_DEPTH
            ),
        ),
        yaml::Flaw::Aliases { line, bound } => (*line, yaml::aliases_message(*bound)),
        yaml::Flaw::SecondDocument { line } => (*line, "a second document".to_string()),
    };
    let mut e = error(file, Some(line), format!("document {document}: {message}"));
    e.document = Some(document);
    e
}

/// Adds the object `value`, read at `place` of `file` (`document 2`, `document 2, items[3]`),
/// or each item of a `…List`.
fn push_object(
    file: &str,
    place: Place,
    value: Value,
    origin: &Origin,
    out: &mut Vec<Object>,
    errors: &mut Vec<InputError>,
) {
    // The line of `field` of the object at `place`, for its errors.
    let line = |field: &str| origin.line(&place.items, &KeyPath::parse_dotted(field));
    match value {
        Value::Null => {}
        Value::Object(mut map) => {
            let kind = map.get("kind").and_then(Value::as_str).unwrap_or_default();
            let items = map.get("items").filter(|_| kind.ends_with("List"));
            let object = !kind.is_empty() && map.get("apiVersion").is_some_and(Value::is_string);
            if let Some(items) = items.filter(|items| !items.is_array() && !items.is_null()) {
                let what = described(items);
                let a = article(kind);
                errors.push(place.on(error(file, line("items"), format!("{place}: the items of {a} {kind} are {what}, not a list; kubectl would refuse it"))));
            } else if items.is_some() {
                if let Some(Value::Array(items)) = map.remove("items") {
                    for (i, item) in items.into_iter().enumerate() {
                        let mut at = place.clone();
                        at.items.push(i);
                        push_object(file, at, item, origin, out, errors);
                    }
                }
            } else if kind == "List" && !map.contains_key("items") {
                // A `List` with no items holds no object, as with `items: []`.
            } else if object {
                out.push(Object {
                    file: file.to_string(),
                    value: Value::Object(map),
                    at: place,
                    origin: origin.clone(),
                });
            } else {
                errors.push(place.on(error(file, line(""), format!("{place} is not a Kubernetes object: it needs string apiVersion and kind fields"))));
            }
        }
        _ => errors.push(place.on(error(
            file,
            line(""),
            format!("{place} is not a Kubernetes object (a mapping with apiVersion and kind)"),
        ))),
    }
}

/// "an" before a word that begins with a vowel letter (`an IngressList`), else "a".
fn article(word: &str) -> &'static str {
    match word.chars().next().map(|c| c.to_ascii_lowercase()) {
        Some('a' | 'e' | 'i' | 'o' | 'u') => "an",
        _ => "a",
    }
}

/// A value's kind, for a message.
fn described(value: &Value) -> &'static str {
    match value {
        Value::Null => "null",
        Value::Bool(_) | Value::Number(_) | Value::String(_) => "a scalar",
        Value::Array(_) => "a list",
        Value::Object(_) => "a mapping",
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn read(text: &str) -> (Vec<Object>, Vec<InputError>) {
        let (mut out, mut errors) = (Vec::new(), Vec::new());
        read_bytes("t.yaml", text.as_bytes(), &mut out, &mut errors);
        (out, errors)
    }

    #[test]
    fn multi_document_yaml_and_lists_yield_every_object() {
        let (objects, errors) = read("apiVersion: v1\nkind: Service\nmetadata: {name: a}\n---\n---\napiVersion: v1\nkind: List\nitems:\n- {apiVersion: v1, kind: Service, metadata: {name: b}}\n- {apiVersion: v1, kind: ServiceAccount, metadata: {name: c}}\n");
        assert!(errors.is_empty(), "{errors:?}");
        let names: Vec<_> = objects
            .iter()
            .map(|o| o.value["metadata"]["name"].as_str().unwrap_or(""))
            .collect();
        assert_eq!(names, ["a", "b", "c"]);
    }

    #[test]
    fn a_bad_item_of_a_list_is_named_by_its_document_and_index() {
        let (objects, errors) = read("apiVersion: v1\nkind: Service\nmetadata: {name: a}\n---\napiVersion: v1\nkind: List\nitems:\n- {apiVersion: v1, kind: Service, metadata: {name: b}}\n- x\n- {metadata: {name: z}}\n");
        assert_eq!(objects.len(), 2);
        let messages: Vec<_> = errors.iter().map(|e| e.message.as_str()).collect();
        assert_eq!(
            messages,
            [
                "document 2, items[1] is not a Kubernetes object (a mapping with apiVersion and kind)",
                "document 2, items[2] is not a Kubernetes object: it needs string apiVersion and kind fields",
            ]
        );
    }

    #[test]
    fn broken_yaml_names_the_file_and_line() {
        let (_, errors) = read("apiVersion: v1\nkind: Service\nmetadata: {name: [\n");
        assert_eq!(errors.len(), 1);
        assert!(
            errors[0].to_string().starts_with("t.yaml:"),
            "{}",
            errors[0]
        );
        assert!(errors[0].line.is_some());
    }

    #[test]
    fn binary_garbage_is_an_error_not_a_panic() {
        let (mut out, mut errors) = (Vec::new(), Vec::new());
        read_bytes("g.bin", &[0xff, 0xfe, 0, 1, 2], &mut out, &mut errors);
        assert_eq!(errors.len(), 1);
        assert!(errors[0].message.contains("UTF-8"));
    }

    #[test]
    fn exponential_yaml_aliases_are_refused() {
        let mut text = String::from("a: &a [x, x, x, x, x, x, x, x, x]\n");
        for i in 0..12 {
            let prev = if i == 0 {
                "a".to_string()
            } else {
                format!("a{}", i - 1)
            };
            text.push_str(&format!("a{i}: &a{i} [*{prev}, *{prev}, *{prev}, *{prev}, *{prev}, *{prev}, *{prev}, *{prev}, *{prev}]\n"));
        }
        let (_, errors) = read(&text);
        assert_eq!(errors.len(), 1, "a billion-laughs document must be refused");
    }

    #[test]
    fn what_would_make_the_parser_slow_or_huge_is_refused_at_its_document_and_line() {
        let head = "apiVersion: v1\nkind: Service\nmetadata: {name: a}\n";
        let big = format!(
            "{head}big: &b \"{}\"\nrefs: [{}]\n",
            "a".repeat(1 << 20),
            vec!["*b"; 8_000].join(", ")
        );
        let table: [(&str, String, usize, &str); 4] = [
            (
                "one 1 MiB anchor named 8 000 times",
                format!("{head}---\n{big}"),
                9,
                "document 2: its aliases (*name) repeat more than 16 MiB",
            ),
            (
                "a million levels of nesting",
                format!("{head}spec: {}", "[".repeat(1_000_000)),
                4,
                "document 1: nested more than 128 levels deep",
            ),
            (
                "deep nesting in block style",
                (0..130)
                    .map(|i| format!("{}k{i}:\n", "  ".repeat(i)))
                    .collect(),
                129,
                "document 1: nested more than 128 levels deep",
            ),
            (
                "a repeated key",
                format!("{head}spec:\n  type: ClusterIP\n  type: LoadBalancer\n"),
                6,
                "document 1: duplicate key `type` (at spec.type), already set on line 5",
            ),
        ];
        for (what, text, line, message) in table {
            let (objects, errors) = read(&text);
            assert!(objects.is_empty(), "{what}");
            assert_eq!(errors.len(), 1, "{what}: {errors:?}");
            assert_eq!(errors[0].line, Some(line), "{what}: {errors:?}");
            assert!(errors[0].message.starts_with(message), "{what}: {errors:?}");
        }
    }

    #[test]
    fn merge_keys_are_applied_as_kubectl_applies_them() {
        let text = "apiVersion: networking.k8s.io/v1\nkind: Ingress\nmetadata: {name: a}\nspec: {<<: {rules: [{host: shop.other.org}]}}\n---\napiVersion: v1\nkind: Service\nmetadata: &m {name: b}\nspec: {<<: [{type: LoadBalancer}, {type: ClusterIP}]}\n";
        let (objects, errors) = read(text);
        assert!(errors.is_empty(), "{errors:?}");
        let got: Vec<&Value> = objects.iter().map(|o| &o.value["spec"]).collect();
        assert_eq!(
            got,
            [
                &serde_json::json!({"rules": [{"host": "shop.other.org"}]}),
                &serde_json::json!({"type": "LoadBalancer"}),
            ]
        );
        let (_, errors) = read("apiVersion: v1\nkind: Service\nspec: {<<: [x]}\n");
        assert_eq!(errors.len(), 1, "{errors:?}");
        assert_eq!(errors[0].message, "not valid YAML or JSON (document 1): spec.<<[0]: a merge key (<<) takes a mapping, an alias of one, or a list of them, not a scalar");
    }

    #[test]
    fn the_items_of_a_list_must_be_a_list() {
        let table: [(&str, usize, Option<&str>); 5] = [
            ("items: []", 0, None),
            ("", 0, None),
            ("items: ~", 0, None),
            (
                "items: {a: 1}",
                0,
                Some("document 1: the items of a List are a mapping, not a list; kubectl would refuse it"),
            ),
            ("items: x", 0, Some("document 1: the items of a List are a scalar, not a list; kubectl would refuse it")),
        ];
        for (items, objects, message) in table {
            let (got, errors) = read(&format!("apiVersion: v1\nkind: List\n{items}\n"));
            let errors: Vec<&str> = errors.iter().map(|e| e.message.as_str()).collect();
            assert_eq!(
                (got.len(), errors),
                (objects, Vec::from_iter(message)),
                "{items}"
            );
        }
    }

    #[test]
    fn a_list_kind_is_named_with_the_article_its_first_letter_takes() {
        for (kind, a) in [("IngressList", "an"), ("ServiceList", "a"), ("List", "a")] {
            let (_, errors) = read(&format!("apiVersion: v1\nkind: {kind}\nitems: x\n"));
            let want = format!("document 1: the items of {a} {kind} are a scalar");
            assert!(errors[0].message.starts_with(&want), "{errors:?}");
        }
    }

    #[test]
    fn an_error_in_a_list_names_its_document_and_item() {
        let (_, errors) = read("apiVersion: v1\nkind: Service\n---\napiVersion: v1\nkind: List\nitems: [{apiVersion: v1, kind: List, items: [x]}]\n");
        let at: Vec<_> = errors.iter().map(|e| (e.document, e.item)).collect();
        assert_eq!(at, [(Some(2), Some(0))], "{errors:?}");
        assert!(errors[0]
            .message
            .starts_with("document 2, items[0], items[0] is not"));
    }

    #[test]
    fn a_stream_of_json_objects_is_read_as_kubectl_reads_it() {
        let svc = |name: &str| {
            format!(r#"{{"apiVersion":"v1","kind":"Service","metadata":{{"name":"{name}"}}}}"#)
        };
        let table = [
            (format!("{}{}", svc("a"), svc("b")), vec!["a", "b"]),
            (format!("{}\n{}\n", svc("a"), svc("b")), vec!["a", "b"]),
            (format!("  {}", svc("a")), vec!["a"]),
            // Not JSON: YAML reads a trailing comma in a flow mapping, as kubectl 1.33+ does.
            (
                r#"{"apiVersion":"v1","kind":"Service","metadata":{"name":"a"},}"#.to_string(),
                vec!["a"],
            ),
        ];
        for (text, names) in table {
            let (objects, errors) = read(&text);
            assert!(errors.is_empty(), "{text}: {errors:?}");
            let got: Vec<&str> = objects
                .iter()
                .map(|o| o.value["metadata"]["name"].as_str().unwrap_or(""))
                .collect();
            assert_eq!(got, names, "{text}");
        }
        // A key repeated in the stream's second object is refused at its line.
        let text = format!("{}\n{{\"kind\":\"Service\",\n\"kind\":\"Pod\"}}", svc("a"));
        let (_, errors) = read(&text);
        let shown: Vec<String> = errors.iter().map(ToString::to_string).collect();
        assert_eq!(errors.len(), 1, "{shown:?}");
        assert!(
            shown[0].contains(":3:") && shown[0].contains("document 2: duplicate key `kind`"),
            "{shown:?}"
        );
    }

    #[test]
    fn one_leading_byte_order_mark_is_ignored() {
        let bom = "\u{feff}";
        let yaml = "apiVersion: v1\nkind: Service\nmetadata: {name: a}\n";
        let table: &[(String, usize, bool)] = &[
            (format!("{bom}{yaml}"), 1, false),
            (format!("{bom}---\n{yaml}---\n{yaml}"), 2, false),
            (format!("{bom}{{\"apiVersion\": \"v1\", \"kind\": \"Service\"}}"), 1, false),
            (
                format!("{bom}apiVersion: v1\nkind: List\nitems:\n- {{apiVersion: v1, kind: Service}}\n"),
                1,
                false,
            ),
            (bom.to_string(), 0, false),
            (yaml.to_string(), 1, false),
            // Only one mark is dropped: a second is content.
            (format!("{bom}{bom}{yaml}"), 0, true),
        ];
        for (text, objects, refused) in table {
            let (got, errs) = read(text);
            assert_eq!(
                (got.len(), !errs.is_empty()),
                (*objects, *refused),
                "{text:?}: {errs:?}"
            );
        }
    }

    #[test]
    fn a_byte_order_mark_that_starts_a_later_document_is_ignored_as_kubectl_ignores_it() {
        let bom = "\u{feff}";
        let svc = "apiVersion: v1\nkind: Service\nmetadata: {name: a}\n";
        let bad = "apiVersion: v1\nkind: Service\nkind: Pod\n";
        let table: &[(String, usize, Option<&str>)] = &[
            (format!("{svc}---\n{bom}{svc}"), 2, None),
            (
                format!("{bom}{svc}---   # next\n{bom}{svc}---\n{bom}{svc}"),
                3,
                None,
            ),
            // Not after a separator: content, as kubectl's reader takes it.
            (format!("{svc}---\n# c\n{bom}{svc}"), 1, Some("document 2")),
            // The error's line is the line of the file.
            (
                format!("{svc}---\n{bom}{bad}"),
                0,
                Some(":7: document 2: duplicate key `kind`"),
            ),
        ];
        for (text, objects, error) in table {
            let (got, errs) = read(text);
            let shown: Vec<String> = errs.iter().map(ToString::to_string).collect();
            assert_eq!(got.len(), *objects, "{text:?}: {shown:?}");
            match error {
                None => assert!(shown.is_empty(), "{text:?}: {shown:?}"),
                Some(want) => assert!(
                    shown.iter().any(|e| e.contains(want)),
                    "{text:?}: {shown:?}"
                ),
            }
        }
    }

    #[test]
    fn scalars_and_objects_without_kind_are_not_objects() {
        assert_eq!(read("hello\n").1.len(), 1);
        assert_eq!(read("metadata: {name: x}\n").1.len(), 1);
    }

    mod never_panics {
        use super::*;
        use proptest::prelude::*;

        proptest! {
            #[test]
            fn arbitrary_bytes_give_objects_or_errors(bytes in proptest::collection::vec(any::<u8>(), 0..1024)) {
                let (mut out, mut errors) = (Vec::new(), Vec::new());
                read_bytes("fuzz", &bytes, &mut out, &mut errors);
            }

            #[test]
            fn yaml_shaped_text_gives_objects_or_errors(text in r"(apiVersion: v1\nkind: [A-Za-z]{0,8}\n|metadata: \{[a-z: ,]{0,20}\}\n|---\n|items: \[[a-z{}, ]{0,20}\]\n|[ -~]{0,20}\n){0,8}") {
                let (mut out, mut errors) = (Vec::new(), Vec::new());
                read_bytes("fuzz", text.as_bytes(), &mut out, &mut errors);
            }
        }
    }
}
