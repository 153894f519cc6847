//! `zoneguard check` output: text for CI logs, JSON for tools.

use std::borrow::Cow;

use super::input_error::{Input, InputError};
use super::input_warning::InputWarning;
use serde::Serialize;
use serde_json::Value;
use zoneguard_core::admission::Decision;
use zoneguard_core::mutation::AddOp;
use zoneguard_core::rules::Enforcement;
use zoneguard_core::verdict::{Admitted, Reason, Warning};

#[derive(Debug, Clone, Copy, clap::ValueEnum)]
pub enum Format {
    Text,
    Json,
}

pub struct Checked {
    /// Where the object starts in its file, where known.
    pub line: Option<usize>,
    /// The line of each of the decision's violations, in their order, where known.
    pub violation_lines: Vec<Option<usize>>,
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
    /// A kind that looks like a misspelt checked kind.
    pub warnings: Vec<Warning>,
}

#[derive(Default)]
pub struct Outcome {
    pub results: Vec<Checked>,
    pub skipped: Vec<Skipped>,
}

/// What the report says of the inputs themselves: what kept some from use, and warnings about
/// the rules files.
#[derive(Clone, Copy)]
pub struct Inputs<'a> {
    pub errors: &'a [InputError],
    pub warnings: &'a [InputWarning],
}

/// Prints the report: warnings and errors on stderr for humans; in JSON mode one document on
/// stdout whatever happened, both included; in text mode the results (none when the rules are
/// unusable, `enforcement` `None`).
pub fn print(format: Format, enforcement: Option<Enforcement>, outcome: &Outcome, inputs: Inputs) {
    for w in inputs.warnings {
        eprintln!("zoneguard check: rules: warning: {w}");
    }
    for e in inputs.errors {
        match e.input {
            Input::Rules => eprintln!("zoneguard check: rules: {e}"),
            Input::Manifests | Input::Iam => eprintln!("zoneguard check: {e}"),
            // clap has printed it in its own words.
            Input::Arguments => {}
        }
    }
    match format {
        Format::Json => print_json(enforcement, outcome, inputs),
        Format::Text if enforcement.is_some() => to_stdout(&to_text(outcome)),
        Format::Text => {}
    }
}

/// The JSON report alone, on stdout.
pub fn print_json(enforcement: Option<Enforcement>, outcome: &Outcome, inputs: Inputs) {
    let report = to_json(enforcement, outcome, inputs);
    let mut text = serde_json::to_string_pretty(&report).unwrap_or_default();
    text.push('\n');
    to_stdout(&text);
}

/// Writes `text` to stdout. A reader that stopped reading (`| head`) is not an error: the rest
/// is dropped, as `kubectl` and the shell's tools drop it. Another failure (a full disk) is told
/// on stderr; the exit status stays the verdict's.
fn to_stdout(text: &str) {
    use std::io::Write;
    let mut out = std::io::stdout().lock();
    match out.write_all(text.as_bytes()).and_then(|()| out.flush()) {
        Err(e) if e.kind() != std::io::ErrorKind::BrokenPipe => {
            eprintln!("zoneguard check: cannot write the report to stdout: {e}");
        }
        _ => {}
    }
}

/// The JSON report, as the README's `--output json` example shows it.
#[derive(Serialize)]
pub struct Report<'a> {
    /// The rules' enforcement mode; `null` when the rules are unusable.
    enforcement: Option<&'static str>,
    results: Vec<ResultJson<'a>>,
    skipped: Vec<SkippedJson<'a>>,
    errors: &'a [InputError],
    /// Warnings about the rules files (a ConfigMap with rules but not the label, rule
    /// ConfigMaps of several namespaces) and the rules' own (a filter that matches nothing),
    /// which the results' own warnings do not hold.
    warnings: &'a [InputWarning],
    summary: Summary,
}

#[derive(Serialize)]
struct Summary {
    checked: usize,
    admitted: usize,
    denied: usize,
    skipped: usize,
    errors: usize,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct ResultJson<'a> {
    file: &'a str,
    #[serde(skip_serializing_if = "Option::is_none")]
    line: Option<usize>,
    api_version: &'a str,
    kind: &'a str,
    namespace: &'a str,
    name: &'a str,
    allowed: bool,
    violations: Vec<ViolationJson<'a>>,
    /// The warnings' messages, as SPEC §6 gives them: a list of strings.
    warnings: Vec<Cow<'a, str>>,
    patch: &'a [AddOp],
    /// The same warnings, in the same order, each with its reason code where it has one.
    warning_details: Vec<WarningJson<'a>>,
}

/// A warning: its message, and its reason code where it has one (`role-unverifiable`,
/// `role-unknown`, `external-dns-skips`).
#[derive(Serialize)]
struct WarningJson<'a> {
    #[serde(skip_serializing_if = "Option::is_none")]
    reason: Option<&'static str>,
    message: Cow<'a, str>,
}

#[derive(Serialize)]
struct ViolationJson<'a> {
    field: &'a str,
    /// The line of the field, or of the nearest enclosing field the file has.
    #[serde(skip_serializing_if = "Option::is_none")]
    line: Option<usize>,
    value: &'a str,
    reason: &'static str,
    message: String,
}

#[derive(Serialize)]
struct SkippedJson<'a> {
    file: &'a str,
    kind: &'a str,
    name: &'a str,
    #[serde(skip_serializing_if = "<[_]>::is_empty")]
    warnings: Vec<Cow<'a, str>>,
}

/// The JSON of the warnings but for warn mode's copies of the violations, which the report
/// leaves out: the violations are listed, and `enforcement` says they were admitted.
fn warnings_json(warnings: &[Warning]) -> impl Iterator<Item = WarningJson<'_>> {
    warnings
        .iter()
        .filter(|w| w.admitted != Some(Admitted::WarnMode))
        .map(|w| WarningJson {
            reason: w.reason.map(Reason::as_str),
            message: w.message(),
        })
}

pub fn to_json<'a>(
    enforcement: Option<Enforcement>,
    outcome: &'a Outcome,
    inputs: Inputs<'a>,
) -> Report<'a> {
    let Inputs { errors, warnings } = inputs;
    let results = outcome.results.iter().map(|r| {
        let d = &r.decision;
        let warning_details: Vec<WarningJson> = warnings_json(&d.warnings).collect();
        ResultJson {
            file: &r.file,
            line: r.line,
            api_version: &r.api_version,
            kind: &r.kind,
            namespace: &r.namespace,
            name: &r.name,
            allowed: d.allowed,
            violations: d
                .violations
                .iter()
                .enumerate()
                .map(|(i, v)| ViolationJson {
                    field: &v.field,
                    line: r.violation_lines.get(i).copied().flatten(),
                    value: &v.value,
                    reason: v.reason.as_str(),
                    message: v.message(),
                })
                .collect(),
            warnings: warning_details.iter().map(|w| w.message.clone()).collect(),
            patch: &d.patch,
            warning_details,
        }
    });
    let skipped = outcome.skipped.iter().map(|s| SkippedJson {
        file: &s.file,
        kind: &s.kind,
        name: &s.name,
        warnings: warnings_json(&s.warnings).map(|w| w.message).collect(),
    });
    let denied = outcome.denied();
    Report {
        enforcement: enforcement.map(Enforcement::as_str),
        results: results.collect(),
        skipped: skipped.collect(),
        errors,
        warnings,
        summary: Summary {
            checked: outcome.results.len(),
            admitted: outcome.results.len() - denied,
            denied,
            skipped: outcome.skipped.len(),
            errors: errors.len(),
        },
    }
}

impl Outcome {
    /// How many objects were denied.
    fn denied(&self) -> usize {
        self.results.iter().filter(|r| !r.decision.allowed).count()
    }
}

pub fn to_text(outcome: &Outcome) -> String {
    let mut out = String::new();
    for r in &outcome.results {
        let audited = r.decision.enforcement == Enforcement::Audit;
        let verdict = match (r.decision.allowed, r.decision.violations.is_empty()) {
            (false, _) => "DENIED",
            (true, false) if audited => "admitted (audit mode: would be denied)",
            (true, _) => "admitted",
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
        for (i, v) in violations.iter().enumerate() {
            let message = v.message().replace('\n', "\n      ");
            let line = r.violation_lines.get(i).copied().flatten();
            let at = line.map(|l| format!("line {l}: ")).unwrap_or_default();
            out.push_str(&format!("  - {at}{message} [{}]\n", v.reason));
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
        for w in &s.warnings {
            out.push_str(&format!("  warning: {w}\n"));
        }
    }
    let denied = outcome.denied();
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
