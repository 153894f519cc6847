//! The webhook decodes only the fields of an object that the checks read
//! (`zoneguard_core::fields::READ`). Every review fixture, under several rule sets, must get the
//! same decision from those fields as from the whole object: a check that starts reading a field
//! `READ` leaves out fails here.

use std::path::{Path, PathBuf};
use std::process::Command;

use serde_json::Value;
use zoneguard::serve::review::{self, Review};
use zoneguard_core::admission::{self, Decision};
use zoneguard_core::rules::RuleSet;
use zoneguard_core::tree::Node;

fn root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

fn review_files() -> Vec<PathBuf> {
    let mut files = Vec::new();
    for dir in ["tests/fixtures/reviews", "bench/reviews"] {
        for entry in std::fs::read_dir(root().join(dir)).expect("fixture directory") {
            let path = entry.expect("directory entry").path();
            if path.extension().is_some_and(|e| e == "json")
                && !path.to_string_lossy().contains(".expected.")
            {
                files.push(path);
            }
        }
    }
    files.sort();
    files
}

fn rule_sets() -> Vec<(String, RuleSet)> {
    let mut sets = Vec::new();
    for file in ["tests/fixtures/reviews/rules.yaml", "examples/rules.yaml"] {
        let text = std::fs::read_to_string(root().join(file)).expect("rules file");
        sets.push((
            file.to_string(),
            RuleSet::parse(file, &text).expect("rules parse"),
        ));
    }
    let out = Command::new(root().join("bench/gen-rules.sh"))
        .args(["50", "20", "200", "3"])
        .output()
        .expect("bench/gen-rules.sh runs");
    assert!(out.status.success(), "bench/gen-rules.sh failed");
    let text = String::from_utf8(out.stdout).expect("UTF-8 rules");
    sets.push((
        "bench rules".into(),
        RuleSet::parse("bench", &text).expect("bench rules parse"),
    ));
    sets.push((
        "rules that read some ingress classes and Service types".into(),
        RuleSet::parse("classes", CLASS_AND_TYPE_RULES).expect("rules parse"),
    ));
    sets.push((
        "rules that read only some labels and annotations".into(),
        RuleSet::parse("selectors", SELECTOR_RULES).expect("rules parse"),
    ));
    for (gateway, name) in [
        ("public", "a route's Gateway"),
        ("internal", "another Gateway"),
    ] {
        let text = format!("domainFilters: [example.com]\nsources: {{gatewayName: {gateway}, gatewayNamespace: gateways}}\n");
        sets.push((
            format!("rules that publish routes only through {name}"),
            RuleSet::parse("gateway", &text).expect("rules parse"),
        ));
    }
    sets.push((
        "rules with an fqdn template over the metadata and the spec".into(),
        RuleSet::parse("template", TEMPLATE_RULES).expect("rules parse"),
    ));
    sets.push((
        "rules about kubectl's annotation".into(),
        RuleSet::parse("last-applied", LAST_APPLIED_RULES).expect("rules parse"),
    ));
    sets
}

/// Rules that come as near as they can to reading kubectl's last-applied-configuration
/// annotation, whose value is not decoded: external-dns annotations under kubectl's prefix,
/// and an inject rule for that very key (which must see that it is there and leave it).
const LAST_APPLIED_RULES: &str = r#"
annotationPrefix: kubectl.kubernetes.io/
domainFilters: [zone1.example.com, example.com]
inject:
  - annotations:
      kubectl.kubernetes.io/last-applied-configuration: "none"
      kubectl.kubernetes.io/hostname: "{name}.zone1.example.com"
"#;

/// Rules under which an object's Ingress class or Service type decides whether it is checked.
const CLASS_AND_TYPE_RULES: &str = r#"
domainFilters: [example.com]
sources: {ingressClassNames: [nginx], serviceTypeFilter: [LoadBalancer, NodePort]}
"#;

/// Rules whose fqdn template names every object, from what the webhook decodes of it (and
/// from kubectl's annotation, which it does not decode, so that no name may come of it).
const TEMPLATE_RULES: &str = r#"
domainFilters: [example.com]
sources:
  combineFqdnAnnotation: true
  fqdnTemplate: >-
    {{.Name}}.{{.Namespace}}.{{.Kind | toLower}}.example.com,
    {{range $k, $v := .Labels}}{{$k}}-{{$v}}.example.org,{{end}}
    {{range .Spec.Rules}}{{.Host}}.{{end}}{{.Spec.Type}}{{range .Spec.Hostnames}}{{.}}.{{end}}x.example.net,
    {{index .Annotations "kubectl.kubernetes.io/last-applied-configuration"}}
"#;

/// Rules under which an object's labels and annotations decide whether it is checked.
const SELECTOR_RULES: &str = r#"
domainFilters: [example.com]
sources: {labelFilter: 'expose notin (internal)', annotationFilter: '!skip.example.com/dns'}
"#;

/// A rule ConfigMap (its `data` is read) with fields no check reads.
const RULES_CONFIGMAP: &str = r#"{"apiVersion":"admission.k8s.io/v1","kind":"AdmissionReview",
"request":{"uid":"u","kind":{"group":"","version":"v1","kind":"ConfigMap"},"namespace":"zoneguard",
"name":"more-rules","operation":"CREATE","object":{"apiVersion":"v1","kind":"ConfigMap",
"metadata":{"name":"more-rules","namespace":"zoneguard","labels":{"zoneguard.io/rules":"true"},
"managedFields":[{"manager":"kubectl"}]},"data":{"rules.yaml":"domainFilters: [\"bad\n"},
"binaryData":{"x":"eA=="}}}}"#;

/// The review as the webhook decodes it, and the same review with its whole objects.
fn both(body: &[u8]) -> (Review<'_>, Review<'_>) {
    let read = review::parse(body).expect("a valid AdmissionReview");
    let mut whole = review::parse(body).expect("a valid AdmissionReview");
    let value: Value = serde_json::from_slice(body).expect("JSON");
    let object = |key: &str| {
        let value = value["request"].get(key).filter(|v| !v.is_null());
        value.map(|v| Node::from(v).into_owned())
    };
    whole.object = object("object");
    whole.old_object = object("oldObject");
    (read, whole)
}

fn decide(rules: &RuleSet, review: &Review, mutate: bool) -> Decision {
    let request = review.core_request();
    if mutate {
        admission::mutate(rules, &request)
    } else {
        admission::validate(rules, &request)
    }
}

#[test]
fn every_review_fixture_gets_the_same_decision_from_the_read_fields_as_from_the_whole_object() {
    let mut bodies: Vec<(String, Vec<u8>)> = review_files()
        .into_iter()
        .map(|p| (p.display().to_string(), std::fs::read(&p).expect("fixture")))
        .collect();
    bodies.push((
        "rules ConfigMap".into(),
        RULES_CONFIGMAP.as_bytes().to_vec(),
    ));
    assert!(
        bodies.len() >= 20,
        "expected the review fixtures, found {}",
        bodies.len()
    );
    let mut compared = 0;
    let mut denied = 0;
    for (rules_name, rules) in rule_sets() {
        for (name, body) in &bodies {
            if review::parse(body).is_err() {
                continue; // a fixture of a refused review: nothing is decided
            }
            let (read, whole) = both(body);
            assert!(read.object.is_some() || whole.object.is_none(), "{name}");
            for mutate in [false, true] {
                let got = decide(&rules, &read, mutate);
                let want = decide(&rules, &whole, mutate);
                assert_eq!(
                    format!("{got:?}"),
                    format!("{want:?}"),
                    "{name} under {rules_name}, mutate: {mutate}"
                );
                compared += 1;
                denied += usize::from(!want.allowed);
            }
        }
    }
    // The comparison covers denials, not only admissions.
    assert!(
        denied >= 10,
        "only {denied} of {compared} decisions were denials"
    );
}
