//! Reads Kubernetes objects from files, directories and stdin (multi-document YAML, JSON, `List`).

use serde::Deserialize;
use serde_json::Value;
use std::fmt;
use std::io::Read;
use std::path::{Path, PathBuf};

/// The UTF-8 byte order mark some Windows editors begin a file with; kubectl ignores it.
const BOM: &[u8] = b"\xEF\xBB\xBF";

/// Largest input file read (a guard against reading a disk image by mistake).
const MAX_FILE_BYTES: u64 = 64 * 1024 * 1024;

/// One object and the file it came from.
#[derive(Debug, Clone)]
pub struct Object {
    pub file: String,
    pub value: Value,
}

/// Input zoneguard cannot use; names the file and, where known, the line.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct InputError {
    pub file: String,
    pub line: Option<usize>,
    pub message: String,
}

impl fmt::Display for InputError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.line {
            Some(line) => write!(f, "{}:{}: {}", self.file, line, self.message),
            None => write!(f, "{}: {}", self.file, self.message),
        }
    }
}

fn error(file: &str, line: Option<usize>, message: impl Into<String>) -> InputError {
    InputError {
        file: file.to_string(),
        line,
        message: message.into(),
    }
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
            Err(e) => errors.push(error("-", None, format!("cannot read stdin: {e}"))),
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
                format!("cannot read directory: {e}"),
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
            files.push(path);
        }
    }
    files
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
        Err(e) => errors.push(error(&name, None, format!("cannot read: {e}"))),
    }
}

/// Parses one file's bytes (or stdin's) into objects; one leading byte order mark is dropped.
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
    for (i, doc) in serde_yaml_ng::Deserializer::from_str(text).enumerate() {
        match Value::deserialize(doc) {
            Ok(value) => push_object(file, &format!("document {}", i + 1), value, out, errors),
            Err(e) => {
                let line = e.location().map(|l| l.line());
                let message = e.to_string();
                let message = message
                    .split(" at line ")
                    .next()
                    .unwrap_or(&message)
                    .to_string();
                errors.push(error(
                    file,
                    line,
                    format!("not valid YAML or JSON (document {}): {message}", i + 1),
                ));
                return;
            }
        }
    }
}

/// Adds the object `value`, read at `place` of `file` ("document 2", "document 2, items[3]"),
/// or each item of a `…List`.
fn push_object(
    file: &str,
    place: &str,
    value: Value,
    out: &mut Vec<Object>,
    errors: &mut Vec<InputError>,
) {
    match value {
        Value::Null => {}
        Value::Object(mut map) => {
            let kind = map.get("kind").and_then(Value::as_str).unwrap_or_default();
            let list = kind.ends_with("List") && map.get("items").is_some_and(Value::is_array);
            let object = !kind.is_empty() && map.get("apiVersion").is_some_and(Value::is_string);
            if list {
                if let Some(Value::Array(items)) = map.remove("items") {
                    for (i, item) in items.into_iter().enumerate() {
                        push_object(file, &format!("{place}, items[{i}]"), item, out, errors);
                    }
                }
            } else if object {
                out.push(Object {
                    file: file.to_string(),
                    value: Value::Object(map),
                });
            } else {
                errors.push(error(file, None, format!("{place} is not a Kubernetes object: it needs string apiVersion and kind fields")));
            }
        }
        _ => errors.push(error(
            file,
            None,
            format!("{place} is not a Kubernetes object (a mapping with apiVersion and kind)"),
        )),
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
