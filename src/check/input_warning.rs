//! A warning about an input `zoneguard check` still uses (a rules file's ConfigMaps): what stderr
//! says of it and what the JSON report's top-level `warnings` holds.

use super::input_error::InputError;
use serde::Serialize;
use std::fmt;

/// Something in the inputs that is used, or passed over, other than as the cluster would: a
/// ConfigMap with rules but not the label, rule ConfigMaps of several namespaces, a rules setting
/// that does not do what it looks meant to (the rules' own warnings, at their line and key).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct InputWarning {
    /// The text, after the file when there is one.
    pub message: String,
    /// The file it is about; `None` for a warning about several files together.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub source: Option<String>,
    /// The rule ConfigMap in `source` (`ns/name`) whose `rules.yaml` holds what it is about.
    #[serde(rename = "configMap", skip_serializing_if = "Option::is_none")]
    pub config_map: Option<String>,
    /// The 1-based line in `source` (or the ConfigMap's `rules.yaml`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub line: Option<usize>,
    /// The rules key path it is about.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub key: Option<String>,
}

impl InputWarning {
    /// A warning about the file `source`.
    pub fn in_file(source: &str, message: impl Into<String>) -> Self {
        Self {
            source: Some(source.to_string()),
            ..Self::overall(message)
        }
    }

    /// A warning about the inputs together.
    pub fn overall(message: impl Into<String>) -> Self {
        Self {
            message: message.into(),
            source: None,
            config_map: None,
            line: None,
            key: None,
        }
    }
}

/// An error's place and message as a warning (a rules warning is placed as a rules error).
impl From<InputError> for InputWarning {
    fn from(e: InputError) -> Self {
        Self {
            message: e.message,
            source: e.source,
            config_map: e.config_map,
            line: e.line,
            key: e.key,
        }
    }
}

/// As stderr shows it, after `zoneguard check: rules: warning: `: as an error of the same
/// place is shown (`file[: ConfigMap ns/name][:line]: [key: ]message`).
impl fmt::Display for InputWarning {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let place = super::input_error::Place {
            source: self.source.as_deref(),
            config_map: self.config_map.as_deref(),
            line: self.line,
            key: self.key.as_deref(),
        };
        write!(f, "{place}")?;
        f.write_str(&self.message)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn stderr_names_the_file_when_there_is_one_and_json_leaves_out_a_missing_one() {
        let table = [
            (
                InputWarning::in_file("r.yaml", "odd"),
                "r.yaml: odd",
                r#"{"message":"odd","source":"r.yaml"}"#,
            ),
            (InputWarning::overall("odd"), "odd", r#"{"message":"odd"}"#),
            (
                InputWarning {
                    config_map: Some("zoneguard/rules".into()),
                    line: Some(3),
                    key: Some("domainFilters[1]".into()),
                    ..InputWarning::in_file("cm.yaml", "odd")
                },
                "cm.yaml: ConfigMap zoneguard/rules:3: domainFilters[1]: odd",
                r#"{"message":"odd","source":"cm.yaml","configMap":"zoneguard/rules","line":3,"key":"domainFilters[1]"}"#,
            ),
        ];
        for (warning, text, json) in table {
            assert_eq!(warning.to_string(), text);
            assert_eq!(serde_json::to_string(&warning).expect("json"), json);
        }
    }
}
