//! `zoneguard check` output: text for CI logs, JSON for tools.

use super::manifest::InputError;
use serde::Serialize;
use serde_json::Value;
use zoneguard_core::admission::Decision;
use zoneguard_core::mutation::AddOp;
use zoneguard_core::rules::Enforcement;

#[derive(Debug, Clone, Copy, clap::ValueEnum)]
pub enum Format {
    Text,
    Json,
}

pub struct Checked {
    pub file: String,
    pub api_version: String,
    pub kind: String,
    pub namespace: String,
    pub name: String,
    pub decision: Decision,
}

pub struct Skipped {
    pub file: String,
    pub kind: String,
    pub name: String,
}

#[derive(Default)]
pub struct Outcome {
    pub results: Vec<Checked>,
    pub skipped: Vec<Skipped>,
}

pub fn print(format: Format, outcome: &Outcome, errors: &[InputError]) {
    for e in errors {
        eprintln!("zoneguard check: {e}");
    }
    match format {
        Format::Json => println!(
            "{}",
            serde_json::to_string_pretty(&to_json(outcome)).unwrap_or_default()
        ),
        Format::Text => print!("{}", to_text(outcome)),
    }
}

/// The JSON report, as the README's `--output json` example shows it.
#[derive(Serialize)]
pub struct Report<'a> {
    results: Vec<ResultJson<'a>>,
    skipped: Vec<SkippedJson<'a>>,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct ResultJson<'a> {
    file: &'a str,
    api_version: &'a str,
    kind: &'a str,
    namespace: &'a str,
    name: &'a str,
    allowed: bool,
    violations: Vec<ViolationJson<'a>>,
    warnings: &'a [String],
    patch: &'a [AddOp],
}

#[derive(Serialize)]
struct ViolationJson<'a> {
    field: &'a str,
    value: &'a str,
    reason: &'static str,
    message: &'a str,
}

#[derive(Serialize)]
struct SkippedJson<'a> {
    file: &'a str,
    kind: &'a str,
    name: &'a str,
}

pub fn to_json(outcome: &Outcome) -> Report<'_> {
    let results = outcome.results.iter().map(|r| {
        let d = &r.decision;
        ResultJson {
            file: &r.file,
            api_version: &r.api_version,
            kind: &r.kind,
            namespace: &r.namespace,
            name: &r.name,
            allowed: d.allowed,
            violations: d
                .violations
                .iter()
                .map(|v| ViolationJson {
                    field: &v.field,
                    value: &v.value,
                    reason: v.reason.as_str(),
                    message: &v.message,
                })
                .collect(),
            warnings: &d.warnings,
            patch: &d.patch,
        }
    });
    let skipped = outcome.skipped.iter().map(|s| SkippedJson {
        file: &s.file,
        kind: &s.kind,
        name: &s.name,
    });
    Report {
        results: results.collect(),
        skipped: skipped.collect(),
    }
}

pub fn to_text(outcome: &Outcome) -> String {
    let mut out = String::new();
    for r in &outcome.results {
        let verdict = if r.decision.allowed {
            "admitted"
        } else {
            "DENIED"
        };
        out.push_str(&format!(
            "{}: {} {}/{}: {verdict}\n",
            r.file,
            r.kind,
            r.namespace,
            shown(&r.name)
        ));
        // In warn mode each violation is also a warning, which says it was admitted.
        let violations = match r.decision.enforcement {
            Enforcement::Warn => &[][..],
            Enforcement::Deny | Enforcement::Audit => &r.decision.violations[..],
        };
        for v in violations {
            let message = v.message.replace('\n', "\n      ");
            out.push_str(&format!("  - {message} [{}]\n", v.reason));
        }
        for w in &r.decision.warnings {
            out.push_str(&format!("  warning: {w}\n"));
        }
        for op in &r.decision.patch {
            out.push_str(&format!("  patch: {}\n", describe_op(op)));
        }
    }
    for s in &outcome.skipped {
        out.push_str(&format!(
            "{}: {} {}: skipped (zoneguard does not check this kind)\n",
            s.file,
            s.kind,
            shown(&s.name)
        ));
    }
    let denied = outcome
        .results
        .iter()
        .filter(|r| !r.decision.allowed)
        .count();
    out.push_str(&format!(
        "{} checked: {} admitted, {denied} denied; {} skipped\n",
        outcome.results.len(),
        outcome.results.len() - denied,
        outcome.skipped.len()
    ));
    out
}

/// A name for humans: objects without one are still checked (the API server would name them).
fn shown(name: &str) -> &str {
    if name.is_empty() {
        "(unnamed)"
    } else {
        name
    }
}

fn describe_op(op: &AddOp) -> String {
    // A whole map of annotations (inside a new `metadata` when the object had none), or one.
    let map = if op.path == "/metadata" {
        op.value.get("annotations")
    } else {
        Some(&op.value)
    };
    match map.and_then(Value::as_object) {
        Some(map) => map
            .iter()
            .map(|(k, v)| format!("add annotation {k}={v}"))
            .collect::<Vec<_>>()
            .join(", "),
        None => format!(
            "add annotation {}={}",
            op.path
                .trim_start_matches("/metadata/annotations/")
                .replace("~1", "/")
                .replace("~0", "~"),
            op.value
        ),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn each_shape_of_patch_is_described_as_the_annotations_it_adds() {
        let table = [
            (
                "/metadata/annotations/a.io~1ttl~0x",
                json!("60"),
                r#"add annotation a.io/ttl~x="60""#,
            ),
            (
                "/metadata/annotations",
                json!({"a": "1", "b": "2"}),
                r#"add annotation a="1", add annotation b="2""#,
            ),
            (
                "/metadata",
                json!({"annotations": {"a": "1"}}),
                r#"add annotation a="1""#,
            ),
        ];
        for (path, value, want) in table {
            let op = AddOp {
                path: path.into(),
                value,
            };
            assert_eq!(describe_op(&op), want);
        }
    }
}
