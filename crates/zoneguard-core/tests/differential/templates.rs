//! zoneguard's `--fqdn-template` against external-dns's own template engine
//! (`source/template`, run on the object decoded into its typed client-go or Gateway API
//! struct): which templates each refuses, and the names each makes of each object, or whether
//! it fails on it.

use super::{ask_reference, build_reference, decoded, seed, Rng, SHOWN};
use serde::{Deserialize, Serialize};
use serde_json::{json, Value};
use zoneguard_core::template::FqdnTemplate;
use zoneguard_core::tree::Node;

/// Template × object cases per run.
const CASES: usize = 3000;

/// Template pieces: what fqdn templates are made of in the wild, and some that fail on an
/// object (a missing label piped into a function) or do not parse.
const PIECES: [&str; 38] = [
    "{{.Name}}",
    "{{.Namespace}}",
    "{{.ObjectMeta.Name}}",
    "{{.Labels.team}}",
    r#"{{index .Labels "team"}}"#,
    r#"{{index .Annotations "dns/name"}}"#,
    "{{.Kind | toLower}}",
    "{{.Kind}}",
    "{{.APIVersion}}",
    r#"{{trimPrefix "web-" .Name}}"#,
    r#"{{trimSuffix "-svc" .Name}}"#,
    r#"{{replace "-" "." .Name}}"#,
    r#"{{if hasKey .Labels "team"}}{{.Labels.team}}{{else}}shared{{end}}"#,
    r#"{{if contains .Name "api"}}api{{else}}www{{end}}"#,
    r#"{{if isSource "service"}}svc{{else if isSource "ingress"}}ing{{else}}route{{end}}"#,
    "{{len .Labels}}",
    r#"{{printf "%s-%s" .Name .Namespace}}"#,
    r#"{{printf "%05d-%-4s-%x-%q" 42 .Name .Name .Kind}}"#,
    r#"{{printf "%[2]s.%[1]s.%d" .Name .Namespace}}"#,
    r#"{{print .Name 1 2 "x" (len .Labels)}}"#,
    r#"{{println .Name .Namespace | trim}}"#,
    r#"{{html .Name}}{{js .Name}}{{urlquery .Name}}"#,
    r#"{{slice .Name 1}}"#,
    "{{with .Labels.env}}{{.}}{{else}}none{{end}}",
    "{{range $k, $v := .Labels}}{{$k}}-{{$v}}.{{end}}x",
    r#"{{range $n := (index .Annotations "names" | fromJson)}}{{$n}}.example.com,{{end}}"#,
    "{{.Labels.team | toLower}}",
    r#"{{trim (index .Annotations "dns/name")}}"#,
    r#"{{if eq .Namespace "default"}}www{{else}}{{.Namespace}}{{end}}"#,
    r#"{{if and (hasKey .Labels "env") (eq .Labels.env "prod")}}prod{{end}}"#,
    "{{.Name | toLower | trim}}",
    r#"{{if isIPv4 .Name}}ip{{end}}{{if isIPv6 "::1"}}v6{{end}}"#,
    r#"{{isSource "nosuch"}}"#,
    "{{.Name",
    "{{nosuchfunc .Name}}",
    "{{end}}",
    "{{$undeclared}}",
    "{{else}}",
];

#[derive(Serialize)]
struct Case {
    templates: Vec<String>,
    kind: &'static str,
    object: Value,
}

/// The reference's answer.
#[derive(Deserialize, Debug, PartialEq)]
#[serde(rename_all = "camelCase")]
struct Answer {
    names: Option<Vec<String>>,
    error: Option<String>,
    parse_error: Option<String>,
}

#[test]
fn zoneguard_runs_fqdn_templates_exactly_as_external_dns_does() {
    let reference = build_reference();
    let mut rng = Rng(seed() ^ 0x7465_6d70_6c74);
    let cases: Vec<Case> = (0..CASES).map(|_| random_case(&mut rng)).collect();
    let answers: Vec<Answer> = decoded(&ask_reference(&reference, &["template"], &cases));
    let (mut named, mut failed) = (0, 0);
    let disagreements: Vec<String> = cases
        .iter()
        .zip(answers)
        .filter_map(|(case, go)| {
            named += usize::from(go.names.as_ref().is_some_and(|n| !n.is_empty()));
            failed += usize::from(go.error.is_some());
            let ours = ours(case);
            let agree = match (&go, &ours) {
                (Answer { names: Some(g), .. }, Ok(Some(Ok(z)))) => g == z,
                (Answer { error: Some(_), .. }, Ok(Some(Err(_)))) => true,
                (
                    Answer {
                        parse_error: Some(_),
                        ..
                    },
                    Err(_),
                ) => true,
                _ => false,
            };
            (!agree).then(|| {
                format!(
                    "{:?} on {} {}: external-dns {go:?}, zoneguard {ours:?}",
                    case.templates, case.kind, case.object
                )
            })
        })
        .collect();
    assert!(
        disagreements.is_empty(),
        "{} of {CASES} template cases disagree:\n{}",
        disagreements.len(),
        disagreements[..disagreements.len().min(SHOWN)].join("\n")
    );
    eprintln!("{CASES} template cases agree: {named} made names, {failed} failed on their object");
    // The cases exercise both outcomes.
    assert!(named > CASES / 2, "only {named} cases made names");
    assert!(
        failed > CASES / 50,
        "only {failed} cases failed on their object"
    );
}

type Outcome = Result<Option<Result<Vec<String>, String>>, String>;

fn ours(case: &Case) -> Outcome {
    let template = FqdnTemplate::parse(&case.templates).map_err(|e| e.to_string())?;
    Ok(template.map(|t| t.names(case.kind, "", &Node::from(&case.object))))
}

/// A piece that reads the spec of one kind only (on another, Go fails to find the field,
/// where zoneguard finds no value; and Go refuses a named string type such as a Service's
/// `spec.type` as a string function's argument, where zoneguard takes it: see the README).
fn spec_piece(kind: &str) -> &'static str {
    match kind {
        "Ingress" => "{{range .Spec.Rules}}{{.Host}},{{end}}",
        "Service" => {
            r#"{{if eq .Spec.Type "LoadBalancer"}}lb{{else}}{{.Spec.Type}}{{end}}.{{len .Spec.Ports}}"#
        }
        _ => "{{range $i, $h := .Spec.Hostnames}}{{$i}}.{{$h}},{{end}}",
    }
}

fn random_case(rng: &mut Rng) -> Case {
    let kind = rng.pick(&["Ingress", "Service", "HTTPRoute"]);
    let mut templates: Vec<String> = (0..1 + rng.below(2))
        .map(|_| random_template(rng))
        .collect();
    if rng.chance(20) {
        templates.push(format!("{}.example.com", spec_piece(kind)));
    }
    Case {
        templates,
        kind,
        object: random_object(rng, kind),
    }
}

fn random_template(rng: &mut Rng) -> String {
    let mut out = String::new();
    for i in 0..1 + rng.below(3) {
        if i > 0 {
            out.push_str(rng.pick(&[".", "-", ",", ", "]));
        }
        // The pieces that fail or do not parse come up less often.
        let piece = if rng.chance(85) {
            PIECES[rng.below(PIECES.len() - 6)]
        } else {
            PIECES[PIECES.len() - 6 + rng.below(6)]
        };
        out.push_str(piece);
    }
    out.push_str(rng.pick(&[".example.com", ".example.com.", " ", ""]));
    out
}

fn random_object(rng: &mut Rng, kind: &str) -> Value {
    let name = rng.pick(&["web", "api-svc", "web-api", "Web", "10.0.0.1"]);
    let mut metadata = json!({"name": name});
    if rng.chance(70) {
        metadata["namespace"] = json!(rng.pick(&["default", "team-a"]));
    }
    let mut labels = serde_json::Map::new();
    if rng.chance(50) {
        labels.insert("team".into(), json!(rng.pick(&["a", "Web", ""])));
    }
    if rng.chance(40) {
        labels.insert("env".into(), json!(rng.pick(&["prod", "dev"])));
    }
    if !labels.is_empty() || rng.chance(30) {
        metadata["labels"] = Value::Object(labels);
    }
    let mut annotations = serde_json::Map::new();
    if rng.chance(40) {
        annotations.insert("dns/name".into(), json!(rng.pick(&[" n1 ", "n2"])));
    }
    if rng.chance(40) {
        let names = rng.pick(&[r#"["a","b"]"#, "[]", "not json", r#"{"k":"v"}"#]);
        annotations.insert("names".into(), json!(names));
    }
    if !annotations.is_empty() {
        metadata["annotations"] = Value::Object(annotations);
    }
    let spec = match kind {
        "Ingress" => json!({"rules": [{"host": "h.example.com"}]}),
        "Service" => {
            json!({"type": rng.pick(&["LoadBalancer", "ClusterIP"]), "ports": [{"port": 80}]})
        }
        _ => json!({"hostnames": ["r.example.com"]}),
    };
    json!({"metadata": metadata, "spec": spec})
}
