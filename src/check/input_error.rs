//! Input `zoneguard check` cannot use (rules, manifests, `--iam`): what stderr says of it and
//! what the JSON report's `errors` holds.

use serde::Serialize;
use std::fmt;

/// Which input an error is about.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Input {
    Rules,
    Manifests,
    Iam,
    /// The command line itself (under `--output json`, a usage error clap refused).
    Arguments,
}

/// Input zoneguard cannot use; names the file and, where known, the line, and what in the file
/// (a rule ConfigMap, a rules key, a document, an item of a `List`, an object).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct InputError {
    pub input: Input,
    /// The file (`-` for stdin); `--iam`; `None` for all the manifest inputs together.
    pub source: Option<String>,
    /// The rule ConfigMap in `source` (`ns/name`), whose `rules.yaml` the line counts in.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub config_map: Option<String>,
    /// 1-based.
    pub line: Option<usize>,
    /// The rules key path, e.g. `irsa.trustPolicies["arn:…"]`, or `(document)`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub key: Option<String>,
    /// The document of a manifest file, 1-based.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub document: Option<usize>,
    /// The index of the item in a `List`, 0-based (`items[N]`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub item: Option<usize>,
    /// The object, `Kind ns/name`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub object: Option<String>,
    pub message: String,
}

impl InputError {
    /// An error about manifest `file`, at `line` where known.
    pub fn manifest(file: &str, line: Option<usize>, message: impl Into<String>) -> Self {
        Self::new(Input::Manifests, Some(file.to_string()), line, message)
    }

    /// An error about the rules file `file`.
    pub fn rules(file: &str, message: impl Into<String>) -> Self {
        Self::new(Input::Rules, Some(file.to_string()), None, message)
    }

    pub fn new(
        input: Input,
        source: Option<String>,
        line: Option<usize>,
        message: impl Into<String>,
    ) -> Self {
        Self {
            input,
            source,
            config_map: None,
            line,
            key: None,
            document: None,
            item: None,
            object: None,
            message: message.into(),
        }
    }
}

/// As stderr shows it, after `zoneguard check: ` (and `rules: ` for rules):
/// `file[: ConfigMap ns/name][:line]: [key: ]message`.
impl fmt::Display for InputError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let place = Place {
            source: self.source.as_deref(),
            config_map: self.config_map.as_deref(),
            line: self.line,
            key: self.key.as_deref(),
        };
        write!(f, "{place}{}", self.message)
    }
}

/// Where in the inputs an error or a warning is, as stderr writes it before the message:
/// `file[: ConfigMap ns/name][:line]: [key: ]`.
pub struct Place<'a> {
    pub source: Option<&'a str>,
    pub config_map: Option<&'a str>,
    pub line: Option<usize>,
    pub key: Option<&'a str>,
}

impl fmt::Display for Place<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if let Some(source) = self.source {
            f.write_str(source)?;
            if let Some(cm) = self.config_map {
                write!(f, ": ConfigMap {cm}")?;
            }
            if let Some(line) = self.line {
                write!(f, ":{line}")?;
            }
            f.write_str(": ")?;
        }
        if let Some(key) = self.key {
            write!(f, "{key}: ")?;
        }
        Ok(())
    }
}

/// An I/O error in plain words, without Rust's ` (os error N)`.
pub fn io_words(e: &std::io::Error) -> String {
    match e.kind() {
        std::io::ErrorKind::NotFound => "no such file".to_string(),
        std::io::ErrorKind::PermissionDenied => "permission denied".to_string(),
        _ => {
            let text = e.to_string();
            match text.rfind(" (os error ") {
                Some(at) if text.ends_with(')') => text[..at].to_string(),
                _ => text,
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::{Error, ErrorKind};

    #[test]
    fn io_errors_are_told_without_the_os_error_number() {
        let table = [
            (Error::from(ErrorKind::NotFound), "no such file"),
            (
                Error::from(ErrorKind::PermissionDenied),
                "permission denied",
            ),
            (Error::from_raw_os_error(21), "Is a directory"),
            (Error::other("odd"), "odd"),
        ];
        for (e, want) in table {
            assert_eq!(io_words(&e), want, "{e}");
        }
    }

    #[test]
    fn stderr_names_file_configmap_line_and_key() {
        let mut e = InputError::rules("r.yaml", "bad");
        assert_eq!(e.to_string(), "r.yaml: bad");
        e.config_map = Some("zg/a".into());
        e.line = Some(3);
        e.key = Some("(document)".into());
        assert_eq!(e.to_string(), "r.yaml: ConfigMap zg/a:3: (document): bad");
        let all = InputError::new(Input::Manifests, None, None, "no objects found in x");
        assert_eq!(all.to_string(), "no objects found in x");
    }
}
