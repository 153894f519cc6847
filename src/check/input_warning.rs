//! A warning about an input `zoneguard check` still uses (a rules file's ConfigMaps): what stderr
//! says of it and what the JSON report's top-level `warnings` holds.

use serde::Serialize;
use std::fmt;

/// Something in the inputs that is used, or passed over, other than as the cluster would: a
/// ConfigMap with rules but not the label, rule ConfigMaps of several namespaces.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct InputWarning {
    /// The text, after the file when there is one.
    pub message: String,
    /// The file it is about; `None` for a warning about several files together.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub source: Option<String>,
}

impl InputWarning {
    /// A warning about the file `source`.
    pub fn in_file(source: &str, message: impl Into<String>) -> Self {
        Self {
            message: message.into(),
            source: Some(source.to_string()),
        }
    }

    /// A warning about the inputs together.
    pub fn overall(message: impl Into<String>) -> Self {
        Self {
            message: message.into(),
            source: None,
        }
    }
}

/// As stderr shows it, after `zoneguard check: rules: warning: `: `[file: ]message`.
impl fmt::Display for InputWarning {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if let Some(source) = &self.source {
            write!(f, "{source}: ")?;
        }
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
        ];
        for (warning, text, json) in table {
            assert_eq!(warning.to_string(), text);
            assert_eq!(serde_json::to_string(&warning).expect("json"), json);
        }
    }
}
