//! `zoneguard check`: the webhook's admission, offline, on manifests.

mod ingress_api;
mod ingress_class;
mod input_error;
mod input_warning;
mod kinds;
mod live;
mod manifest;
mod origin;
mod report;
mod rule_files;
pub mod usage;

use input_error::{Input, InputError};
use input_warning::InputWarning;
use manifest::Object;
use report::{Checked, Outcome, Skipped};
use serde_json::Value;
use std::process::ExitCode;
use zoneguard_core::admission::{self, Decision, Operation, Request};
use zoneguard_core::irsa::Facts;
use zoneguard_core::mutation;
use zoneguard_core::rules::{RuleSet, RuleSource, RulesError};
use zoneguard_core::source::{self, Kind, SkippedBy};
use zoneguard_core::tree::Node;
use zoneguard_core::verdict::{Reason, Warning};
use zoneguard_core::yaml::KeyPath;

#[derive(Debug, clap::Args)]
#[command(
    after_help = "Exit status: 0 every object admitted, 1 at least one denied, 2 unusable \
input (rules or manifests, or no object found in them) or command line. With --output json, \
stdout is one JSON document whatever the outcome, unusable input and a refused command line \
included (its errors under \"errors\")."
)]
pub struct Args {
    /// Rules file (YAML or JSON): one rules document, or rule ConfigMaps (labelled
    /// zoneguard.io/rules="true", key rules.yaml) as the cluster holds them; repeat to combine
    /// several, as rule ConfigMaps combine; a comma separates files here and in ZONEGUARD_RULES.
    #[arg(
        long = "rules",
        value_name = "FILE",
        required = true,
        env = "ZONEGUARD_RULES",
        value_delimiter = ',',
        value_parser = rules_path
    )]
    rules: Vec<String>,
    /// Namespace for objects without metadata.namespace.
    #[arg(
        long,
        value_name = "NS",
        default_value = "default",
        env = "ZONEGUARD_NAMESPACE",
        value_parser = namespace_name
    )]
    namespace: String,
    /// Output format.
    #[arg(long, value_enum, default_value_t = report::Format::Text, env = "ZONEGUARD_OUTPUT")]
    output: report::Format,
    /// Manifest files or directories (walked for *.yaml, *.yml and *.json files); `-` reads
    /// stdin.
    #[arg(value_name = "PATH", required = true)]
    paths: Vec<String>,
    /// Check ServiceAccounts against live IAM (the SDK's default credential chain), as the
    /// webhook does with `irsa.source: iam`.
    #[arg(long, env = "ZONEGUARD_CHECK_IAM")]
    iam: bool,
    #[command(flatten)]
    aws: zoneguard::iam::AwsArgs,
    /// The cluster's default IngressClass: given to an Ingress that names no class before it is
    /// checked, as the API server does (matters when the rules set sources.ingressClassNames).
    #[arg(long, value_name = "NAME", env = "ZONEGUARD_DEFAULT_INGRESS_CLASS")]
    default_ingress_class: Option<String>,
}

/// A `--rules` file name: an empty one (`--rules a.yaml,`) is a usage error that says so, not a
/// file that cannot be read.
fn rules_path(text: &str) -> Result<String, String> {
    if text.is_empty() {
        Err("an empty file name (a comma with nothing after it, or before it?)".to_string())
    } else {
        Ok(text.to_string())
    }
}

/// A namespace name as the API server accepts one (an RFC 1123 label): an empty or malformed
/// `--namespace` is a usage error, not a namespace objects are checked in.
fn namespace_name(text: &str) -> Result<String, String> {
    if zoneguard_core::k8s_name::is_dns1123_label(text) {
        Ok(text.to_string())
    } else {
        Err(format!("{text:?} is not a namespace name: lower-case letters, digits and '-', at most 63, starting and ending with a letter or digit"))
    }
}

pub fn run(args: Args) -> ExitCode {
    let (rules, warnings) = load_rules(&args.rules);
    let rules = match rules {
        Ok(r) => r,
        Err(errors) => return unusable(args.output, errors, &warnings),
    };
    let (mut objects, mut errors) = (Vec::new(), Vec::new());
    for path in &args.paths {
        manifest::read_path(path, &mut objects, &mut errors);
    }
    if objects.is_empty() && errors.is_empty() {
        errors.push(no_objects(&args.paths));
    }
    let live = match args
        .iam
        .then(|| live::LiveIam::start(&args.aws))
        .transpose()
    {
        Ok(live) => live,
        Err(e) => {
            let source = Some("--iam".to_string());
            return unusable(
                args.output,
                vec![InputError::new(Input::Iam, source, None, format!("{e:#}"))],
                &warnings,
            );
        }
    };
    let outcome = check_objects(
        &rules,
        &args.namespace,
        args.default_ingress_class.as_deref(),
        &objects,
        &mut errors,
        live.as_ref(),
    );
    let inputs = report::Inputs {
        errors: &errors,
        warnings: &warnings,
    };
    report::print(args.output, Some(rules.enforcement), &outcome, inputs);
    if !errors.is_empty() {
        ExitCode::from(2)
    } else if outcome.results.iter().any(|r| !r.decision.allowed) {
        ExitCode::from(1)
    } else {
        ExitCode::SUCCESS
    }
}

/// Exit 2 before any object is checked: the errors (and the warnings) on stderr, and in JSON
/// mode a report with them and nothing checked.
fn unusable(
    format: report::Format,
    errors: Vec<InputError>,
    warnings: &[InputWarning],
) -> ExitCode {
    let inputs = report::Inputs {
        errors: &errors,
        warnings,
    };
    report::print(format, None, &report::Outcome::default(), inputs);
    ExitCode::from(2)
}

/// The error when the inputs held no object at all (as `kubectl apply` refuses "no objects
/// passed to apply"): a directory without manifests, or empty files, pass nothing silently.
fn no_objects(paths: &[String]) -> InputError {
    let shown: Vec<&str> = paths
        .iter()
        .map(|p| if p == "-" { "stdin" } else { p.as_str() })
        .collect();
    let dirs = paths.iter().any(|p| std::path::Path::new(p).is_dir());
    let searched = if dirs {
        " (a directory is searched for *.yaml, *.yml and *.json files)"
    } else {
        ""
    };
    let message = format!("no objects found in {}{searched}", shown.join(", "));
    InputError::new(Input::Manifests, None, None, message)
}

/// The rules of every `--rules` file combined, or what keeps them from use; and, either way,
/// the warnings about the files. A file that gives no rules does not keep the others' errors
/// from being reported.
fn load_rules(paths: &[String]) -> (Result<RuleSet, Vec<InputError>>, Vec<InputWarning>) {
    let rule_files::RuleTexts {
        texts,
        warnings,
        errors,
    } = rule_files::read_all(paths);
    let mut warnings = warnings;
    let rules = combine(&texts, errors).inspect(|rules| {
        let of_rules = rules.warnings.iter().map(|w| rules_warning(w, &texts));
        warnings.extend(of_rules);
    });
    (rules, warnings)
}

/// The rules of the documents `texts`, or every error in them beside `errors`, the files' own.
fn combine(
    texts: &[rule_files::RuleText],
    mut errors: Vec<InputError>,
) -> Result<RuleSet, Vec<InputError>> {
    let sources: Vec<RuleSource<'_>> = texts
        .iter()
        .map(|t| RuleSource {
            name: &t.name,
            text: &t.text,
        })
        .collect();
    match RuleSet::from_sources(&sources) {
        Ok(rules) if errors.is_empty() => Ok(rules),
        Ok(_) => Err(errors),
        Err(errs) => {
            errors.extend(errs.into_iter().map(|e| rules_error(e, texts)));
            Err(errors)
        }
    }
}

/// A warning of the rules' text as check reports it: placed as [`rules_error`] places an error.
fn rules_warning(w: &RulesError, texts: &[rule_files::RuleText]) -> InputWarning {
    InputWarning::from(rules_error(w.clone(), texts))
}

/// A rules error as check reports it: its source split into the file and the rule ConfigMap.
fn rules_error(e: RulesError, texts: &[rule_files::RuleText]) -> InputError {
    let text = texts.iter().find(|t| t.name == e.source_name);
    let mut out = InputError::rules(
        text.map_or(e.source_name.as_str(), |t| t.file.as_str()),
        e.message,
    );
    out.config_map = text.and_then(|t| t.config_map.clone());
    out.line = Some(e.line).filter(|l| *l > 0);
    out.key = Some(e.key);
    out
}

/// Checks every object, in input order; `default_ns` is the namespace of objects without one,
/// `default_class` the cluster's default IngressClass.
fn check_objects(
    rules: &RuleSet,
    default_ns: &str,
    default_class: Option<&str>,
    objects: &[Object],
    errors: &mut Vec<InputError>,
    live: Option<&live::LiveIam>,
) -> Outcome {
    let mut outcome = Outcome::default();
    for object in objects {
        let meta = Meta::of(object, default_ns);
        if let Err((field, e)) = metadata_is_usable(&object.value) {
            errors.push(object_error(object, &meta, &field, e));
            continue;
        }
        // The checks read the object as a tree: built once, and only for the kinds checked and
        // the ConfigMaps that may hold rules.
        let kind = Kind::of(&meta.group, &meta.kind);
        let ingress = kind == Some(Kind::Ingress);
        let defaulted = default_class
            .filter(|_| ingress)
            .and_then(|class| ingress_class::defaulted(&object.value, class));
        let value = defaulted.as_ref().unwrap_or(&object.value);
        let known = kind.is_some();
        let may_hold_rules = meta.group.is_empty() && meta.kind == "ConfigMap";
        let tree = (known || may_hold_rules)
            .then(|| Node::from(value))
            .filter(|tree| known || admission::is_rules_configmap(tree));
        let Some(tree) = tree else {
            outcome.skipped.push(skipped(object, meta));
            continue;
        };
        if let Some(problem) = kind.and_then(|kind| source::shape::problem(kind, &tree)) {
            errors.push(object_error(object, &meta, &problem.path, problem.message));
            continue;
        }
        let mut decision = admit(rules, &meta, value, &tree, live);
        if ingress {
            warn_of_ingress_api(rules, &meta, value, &mut decision);
        }
        let (line, violation_lines) = lines(object, &decision);
        outcome.results.push(Checked {
            line,
            violation_lines,
            file: object.file.clone(),
            api_version: meta.api_version.clone(),
            kind: meta.kind.clone(),
            namespace: meta.namespace.clone(),
            name: meta.shown_name().to_owned(),
            decision,
        });
    }
    outcome
}

/// The line where `object` starts, and that of each of its `decision`'s violations (the field
/// it names, or the nearest enclosing field the text has), found in one reading.
fn lines(object: &Object, decision: &Decision) -> (Option<usize>, Vec<Option<usize>>) {
    let fields: Vec<KeyPath> = std::iter::once(KeyPath::root())
        .chain(
            decision
                .violations
                .iter()
                .map(|v| KeyPath::parse_shown(&v.field)),
        )
        .collect();
    let mut lines = object.lines_of(&fields).into_iter();
    (lines.next().flatten(), lines.collect())
}

/// An object of a kind zoneguard does not check, with a warning when its kind looks like a
/// misspelt one that it does.
fn skipped(object: &Object, meta: Meta) -> Skipped {
    Skipped {
        file: object.file.clone(),
        name: meta.shown_name().to_owned(),
        warnings: kinds::misspelt(&meta.group, &meta.kind)
            .into_iter()
            .map(Warning::from)
            .collect(),
        kind: meta.kind,
    }
}

/// What only check, which sees no IngressClass objects and no API server, says of an Ingress:
/// that one without a class falls to a default it cannot see, and that its API version is gone.
fn warn_of_ingress_api(rules: &RuleSet, meta: &Meta, value: &Value, decision: &mut Decision) {
    let classes = &rules.sources.ingress_class_names;
    if !classes.is_empty() && ingress_class::unclassed(value) {
        let names = ingress_class::hostnames(rules, &meta.namespace, value);
        let warning = ingress_class::unknown_default_warning(classes, &names);
        // It says what the core's skip warning says, and what to do about it.
        if decision.skipped == Some(SkippedBy::IngressClass) {
            decision
                .warnings
                .retain(|w| w.reason != Some(Reason::ExternalDnsSkips));
        }
        decision.warnings.push(Warning::new(warning));
    }
    let removed = ingress_api::removed_version_warning(&meta.api_version);
    decision.warnings.extend(removed.map(Warning::new));
}

/// What is wrong with `object` as an input error naming it as the results do (`Kind ns/name`),
/// after its place in the file (`document 3, items[1]`), as the reader's errors are, on the
/// line of `field`, the field at fault.
fn object_error(object: &Object, meta: &Meta, field: &KeyPath, problem: String) -> InputError {
    let shown = format!("{} {}", meta.kind, meta.shown_at());
    let mut e = object.at.on(InputError::manifest(
        &object.file,
        object.line_of(field),
        format!("{}: {shown}: {problem}", object.at),
    ));
    e.object = Some(shown);
    e
}

/// Identity of one object.
struct Meta {
    api_version: String,
    group: String,
    version: String,
    kind: String,
    namespace: String,
    /// `metadata.name`: empty for an object with only `generateName`, whose name the API
    /// server makes after the mutating webhooks (so no `{name}` template is filled).
    name: String,
    generate_name: String,
}

impl Meta {
    /// The name to show in the report: `metadata.name`, else the `generateName` prefix.
    fn shown_name(&self) -> &str {
        if self.name.is_empty() {
            &self.generate_name
        } else {
            &self.name
        }
    }

    /// `ns/name` as the report shows it (`ns/(unnamed)` for an object with neither name).
    fn shown_at(&self) -> String {
        let name = self.shown_name();
        let name = if name.is_empty() { "(unnamed)" } else { name };
        format!("{}/{name}", self.namespace)
    }

    fn of(object: &Object, default_ns: &str) -> Self {
        let v = &object.value;
        let api_version = v["apiVersion"].as_str().unwrap_or_default().to_string();
        let (group, version) = api_version
            .rsplit_once('/')
            .map_or((String::new(), api_version.clone()), |(g, v)| {
                (g.to_string(), v.to_string())
            });
        let text = |p: &str| v.pointer(p).and_then(Value::as_str).map(str::to_string);
        Meta {
            kind: v["kind"].as_str().unwrap_or_default().to_string(),
            // An empty namespace is no namespace, as kubectl reads it.
            namespace: text("/metadata/namespace")
                .filter(|ns| !ns.is_empty())
                .unwrap_or_else(|| default_ns.to_string()),
            name: text("/metadata/name").unwrap_or_default(),
            generate_name: text("/metadata/generateName").unwrap_or_default(),
            api_version,
            group,
            version,
        }
    }
}

/// The metadata zoneguard reads has the shape the API server's schema requires: a mapping,
/// whose `name`, `namespace` and `generateName` are strings and whose annotations are strings
/// (`null` counts as absent); else the field at fault, and what is wrong with it.
fn metadata_is_usable(object: &Value) -> Result<(), (KeyPath, String)> {
    let metadata = KeyPath::root().key("metadata");
    match object.get("metadata") {
        None | Some(Value::Null | Value::Object(_)) => {}
        Some(other) => {
            return Err((
                metadata,
                format!(
                    "metadata is {}, not a mapping; Kubernetes would refuse the object",
                    shown(other)
                ),
            ))
        }
    }
    for field in ["name", "namespace", "generateName"] {
        match object.pointer(&format!("/metadata/{field}")) {
            None | Some(Value::Null | Value::String(_)) => {}
            Some(other) => return Err((metadata.key(field), format!("metadata.{field} is {}, not a string; Kubernetes would refuse the object (quote it)", shown(other)))),
        }
    }
    annotations_are_strings(object)
}

/// A value as a message shows it: scalars as written, collections by their kind.
fn shown(value: &Value) -> String {
    match value {
        Value::Array(_) => "a list".to_string(),
        Value::Object(_) => "a mapping".to_string(),
        other => other.to_string(),
    }
}

fn annotations_are_strings(object: &Value) -> Result<(), (KeyPath, String)> {
    let Some(annotations) = object.pointer("/metadata/annotations") else {
        return Ok(());
    };
    let field = KeyPath::root().key("metadata").key("annotations");
    let Some(map) = annotations.as_object() else {
        return if annotations.is_null() {
            Ok(())
        } else {
            Err((
                field,
                "metadata.annotations must be a mapping of strings".into(),
            ))
        };
    };
    match map.iter().find(|(_, v)| !v.is_string()) {
        Some((k, v)) => Err((field.key(k), format!("metadata.annotations[{k:?}] is {v}, not a string; Kubernetes refuses non-string annotation values (quote it)"))),
        None => Ok(()),
    }
}

/// Mutation first, then validation of the mutated object, as the API server runs the webhooks.
/// `tree` is `object` as the checks read it.
fn admit(
    rules: &RuleSet,
    meta: &Meta,
    object: &Value,
    tree: &Node<'_>,
    live: Option<&live::LiveIam>,
) -> admission::Decision {
    let mut req = Request {
        operation: Operation::Create,
        group: &meta.group,
        version: &meta.version,
        kind: &meta.kind,
        namespace: &meta.namespace,
        name: &meta.name,
        object: Some(tree),
        old_object: None,
        sub_resource: None,
    };
    let mutated = admission::mutate(rules, &req);
    // Without a patch the object validated is the one read (no copy, no second tree).
    let (patched_value, patched_tree);
    let patched = if mutated.patch.is_empty() {
        tree
    } else {
        patched_value = mutation::apply(object, &mutated.patch).unwrap_or_else(|_| object.clone());
        patched_tree = Node::from(&patched_value);
        &patched_tree
    };
    req.object = Some(patched);
    let facts = live.map_or_else(Facts::none, |l| {
        let kind = (meta.group.as_str(), meta.kind.as_str());
        l.facts(rules, kind, (&meta.namespace, &meta.name), patched)
    });
    let validated = admission::validate_with(rules, &req, &facts);
    merge(mutated, validated)
}

fn merge(mutated: admission::Decision, validated: admission::Decision) -> admission::Decision {
    let mut out = validated;
    out.allowed &= mutated.allowed;
    out.patch = mutated.patch;
    for v in mutated.violations.into_iter().rev() {
        out.violations
            .retain(|x| !(x.field == v.field && x.value == v.value));
        out.violations.insert(0, v);
    }
    for w in mutated.warnings {
        if !out.warnings.iter().any(|x| x.message() == w.message()) {
            out.warnings.push(w);
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn metadata_of_the_wrong_shape_is_unusable_and_names_the_field() {
        // The object, then the field at fault as a key path and the message's start.
        let table: &[(&str, Option<(&str, &str)>)] = &[
            (r#"{}"#, None),
            (r#"{"metadata": null}"#, None),
            (r#"{"metadata": {"name": "a", "namespace": null}}"#, None),
            (
                r#"{"metadata": "x"}"#,
                Some(("metadata", r#"metadata is "x", not a mapping"#)),
            ),
            (
                r#"{"metadata": [1]}"#,
                Some(("metadata", "metadata is a list, not a mapping")),
            ),
            (
                r#"{"metadata": {"name": 7}}"#,
                Some(("metadata.name", "metadata.name is 7, not a string")),
            ),
            (
                r#"{"metadata": {"namespace": true}}"#,
                Some((
                    "metadata.namespace",
                    "metadata.namespace is true, not a string",
                )),
            ),
            (
                r#"{"metadata": {"generateName": {"a": 1}}}"#,
                Some((
                    "metadata.generateName",
                    "metadata.generateName is a mapping, not a string",
                )),
            ),
            (
                r#"{"metadata": {"annotations": {"a/b": 1}}}"#,
                Some((
                    r#"metadata.annotations["a/b"]"#,
                    r#"metadata.annotations["a/b"] is 1, not a string"#,
                )),
            ),
            (
                r#"{"metadata": {"annotations": 5}}"#,
                Some((
                    "metadata.annotations",
                    "metadata.annotations must be a mapping of strings",
                )),
            ),
        ];
        for (json, want) in table {
            let value: Value = serde_json::from_str(json).expect("json");
            let got = metadata_is_usable(&value).err();
            match (got, want) {
                (None, None) => {}
                (Some((field, got)), Some((want_field, want))) => {
                    assert_eq!(field.to_string(), *want_field, "{json}");
                    assert!(got.starts_with(want), "{json}: {got}");
                }
                (got, want) => panic!("{json}: got {got:?}, want {want:?}"),
            }
        }
    }

    /// The errors `check` gives the objects of `text`, each as `line: message`.
    fn object_errors(text: &str) -> Vec<String> {
        let mut objects = Vec::new();
        let mut errors = Vec::new();
        manifest::read_bytes("t.yaml", text.as_bytes(), &mut objects, &mut errors);
        let rules = RuleSet::parse("rules.yaml", "domainFilters: [example.com]\n").expect("rules");
        check_objects(&rules, "default", None, &objects, &mut errors, None);
        errors
            .iter()
            .map(|e| format!("{:?}: {}", e.line, e.message))
            .collect()
    }

    #[test]
    fn an_object_error_is_on_the_line_of_the_field_at_fault() {
        let yaml = "apiVersion: v1\nkind: List\nitems:\n- apiVersion: networking.k8s.io/v1\n  kind: Ingress\n  metadata: {name: a}\n  spec:\n    tls:\n    - hosts: a.example.com\n---\napiVersion: v1\nkind: Service\nmetadata:\n  name: s\n  annotations:\n    team: 5\n";
        let json = "{\"apiVersion\": \"v1\", \"kind\": \"ConfigMap\"}\n{\"apiVersion\": \"v1\",\n \"kind\": \"Service\",\n \"metadata\": {\"name\": 7}}\n";
        let cases: &[(&str, &str, &str)] = &[
            (
                "a field in a List's item",
                yaml,
                "Some(9): document 1, items[0]: Ingress default/a: spec.tls[0].hosts is",
            ),
            (
                "an annotation's value",
                yaml,
                "Some(16): document 2: Service default/s: metadata.annotations[\"team\"] is 5",
            ),
            (
                "a field in the second object of a JSON stream",
                json,
                "Some(4): document 2: Service default/(unnamed): metadata.name is 7",
            ),
        ];
        for (what, text, want) in cases {
            let errors = object_errors(text);
            assert!(
                errors.iter().any(|e| e.starts_with(want)),
                "{what}: {errors:#?}"
            );
        }
    }

    #[test]
    fn an_empty_namespace_is_the_default_one() {
        let table = [
            (r#"{"metadata": {"namespace": ""}}"#, "team-a"),
            (r#"{"metadata": {}}"#, "team-a"),
            (r#"{"metadata": {"namespace": "b"}}"#, "b"),
        ];
        for (json, want) in table {
            let object = Object {
                file: "t.yaml".to_string(),
                value: serde_json::from_str(json).expect("json"),
                at: manifest::Place::default(),
                origin: Default::default(),
            };
            assert_eq!(Meta::of(&object, "team-a").namespace, want, "{json}");
        }
    }
}
