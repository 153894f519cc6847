//! The rule sources a `--rules` file holds: one rules document, or the rule ConfigMaps among
//! Kubernetes objects (a GitOps repository's manifests, `kubectl get configmaps -o yaml`).

use super::input_error::{io_words, InputError};
use super::input_warning::InputWarning;
use super::manifest::{self, Object};
use serde_json::Value;
use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;
use zoneguard_core::admission::{is_rules_configmap, rules_text, RULES_KEY, RULES_LABEL};
use zoneguard_core::rules;
use zoneguard_core::tree::Node;

/// One rules document: its name in messages, and its text.
#[derive(Debug, PartialEq, Eq)]
pub struct RuleText {
    /// `file`, or `file: ConfigMap ns/name`.
    pub name: String,
    pub text: String,
    /// The file it was read from.
    pub file: String,
    /// The rule ConfigMap it is the `rules.yaml` of (`ns/name`).
    pub config_map: Option<String>,
}

/// What the `--rules` files gave: their rules documents, warnings about ConfigMaps that look
/// meant as rules but that `zoneguard serve` would not read, and errors naming the file and the
/// ConfigMap at fault (the documents read are still given, so that their own errors are
/// reported in the same run).
#[derive(Debug, Default)]
pub struct RuleTexts {
    pub texts: Vec<RuleText>,
    pub warnings: Vec<InputWarning>,
    pub errors: Vec<InputError>,
}

/// Reads every `--rules` file: rules documents in the order given, then the rule ConfigMaps in
/// the order `zoneguard serve` combines them (by `ConfigMap ns/name`, whatever file or
/// document they are in), so that the first of several inject rules for one key is the same
/// one here as in the cluster.
pub fn read_all(paths: &[String]) -> RuleTexts {
    let mut out = RuleTexts::default();
    // Where each ConfigMap was read (the cluster holds one object of a name), and the rule
    // ConfigMaps' rules by the name the server sorts them on.
    let mut seen: BTreeMap<String, String> = BTreeMap::new();
    let mut configmaps: BTreeMap<String, RuleText> = BTreeMap::new();
    let mut namespaces: BTreeSet<String> = BTreeSet::new();
    for path in paths {
        let text = match zoneguard::text_file::read(Path::new(path)) {
            Ok(text) => text,
            Err(zoneguard::text_file::ReadError::Io(e)) => {
                let why = format!("cannot read: {}", io_words(&e));
                out.errors.push(InputError::rules(path, why));
                continue;
            }
            Err(e) => {
                out.errors.push(InputError::rules(path, e.to_string()));
                continue;
            }
        };
        if let Some(why) = rules::empty_file_problem(&text) {
            out.errors.push(InputError::rules(path, why.to_string()));
            continue;
        }
        if !rules::is_kubernetes_object(&text) {
            out.texts.push(RuleText {
                name: path.clone(),
                text,
                file: path.clone(),
                config_map: None,
            });
            continue;
        }
        let (mut objects, mut unusable) = (Vec::new(), Vec::new());
        manifest::read_bytes(path, text.as_bytes(), &mut objects, &mut unusable);
        out.errors.extend(unusable.iter().cloned().map(|mut e| {
            e.input = super::input_error::Input::Rules;
            e
        }));
        let errors_before = out.errors.len();
        let mut found = 0;
        for cm in objects.iter().filter_map(ConfigMap::of) {
            let shown = cm.shown();
            if let Some(first) = seen.insert(shown.clone(), path.clone()) {
                out.errors.push(InputError::rules(path, format!("{shown} is also in {first}: a cluster holds one ConfigMap of a name, so keep one of them")));
            } else if let Some(text) = cm.read_into(path, &mut out) {
                configmaps.insert(shown, text);
                namespaces.insert(cm.namespace.clone());
                found += 1;
            }
        }
        if found == 0 && out.errors.len() == errors_before && unusable.is_empty() {
            out.errors.push(InputError::rules(path, format!("holds Kubernetes objects but no ConfigMap labelled {RULES_LABEL}: \"true\"; a rules file is one rules document, or rule ConfigMaps as the cluster holds them")));
        }
    }
    if namespaces.len() > 1 {
        let listed: Vec<&str> = namespaces.iter().map(String::as_str).collect();
        out.warnings.push(InputWarning::overall(format!("rule ConfigMaps from {} namespaces ({}) are combined here, while zoneguard serve reads those of one namespace (--rules-namespace); give check the ConfigMaps of that one alone to judge as the cluster does", listed.len(), listed.join(", "))));
    }
    out.texts.extend(configmaps.into_values());
    out
}

/// A ConfigMap among the objects, read as the rules webhook reads one.
struct ConfigMap<'a> {
    namespace: String,
    name: String,
    tree: Node<'a>,
}

impl<'a> ConfigMap<'a> {
    fn of(object: &'a Object) -> Option<Self> {
        let v = &object.value;
        if v["apiVersion"] != "v1" || v["kind"] != "ConfigMap" {
            return None;
        }
        let text = |p: &str| v.pointer(p).and_then(Value::as_str);
        Some(Self {
            namespace: text("/metadata/namespace").unwrap_or_default().to_string(),
            name: text("/metadata/name").unwrap_or_default().to_string(),
            tree: Node::from(v),
        })
    }

    /// `ConfigMap ns/name` as zoneguard serve names it (`ConfigMap name` with no namespace).
    fn shown(&self) -> String {
        format!("ConfigMap {}", self.at())
    }

    /// `ns/name` (`name` with no namespace).
    fn at(&self) -> String {
        if self.namespace.is_empty() {
            self.name.clone()
        } else {
            format!("{}/{}", self.namespace, self.name)
        }
    }

    /// Its rules when it is a rule ConfigMap; otherwise what is wrong with it goes into `out`.
    fn read_into(&self, path: &str, out: &mut RuleTexts) -> Option<RuleText> {
        let shown = self.shown();
        match (is_rules_configmap(&self.tree), rules_text(&self.tree)) {
            (true, Ok(text)) => {
                return Some(RuleText {
                    name: format!("{path}: {shown}"),
                    text: text.to_string(),
                    file: path.to_string(),
                    config_map: Some(self.at()),
                })
            }
            (true, Err(message)) => {
                let mut e = InputError::rules(path, message);
                e.config_map = Some(self.at());
                out.errors.push(e);
            }
            (false, Ok(_)) => out.warnings.push(InputWarning::in_file(path, format!("{shown} has data[{RULES_KEY:?}] but not the label {RULES_LABEL}: \"true\", so zoneguard serve would not read it; not used"))),
            (false, Err(_)) => {}
        }
        None
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn file(dir: &tempfile::TempDir, name: &str, text: &str) -> String {
        let path = dir.path().join(name);
        std::fs::write(&path, text).expect("write");
        path.display().to_string()
    }

    fn configmap(name: &str, labels: &str, data: &str) -> String {
        format!("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: {name}\n  namespace: zoneguard\n  labels: {{{labels}}}\ndata: {{{data}}}\n")
    }

    const LABEL: &str = "zoneguard.io/rules: \"true\"";

    /// `read`, which must have no error.
    fn ok(read: RuleTexts) -> RuleTexts {
        assert!(read.errors.is_empty(), "{:?}", read.errors);
        read
    }

    #[test]
    fn a_rules_document_is_read_as_it_is() {
        let dir = tempfile::tempdir().expect("tempdir");
        let path = file(&dir, "rules.yaml", "domainFilters: [example.com]\n");
        let read = ok(read_all(std::slice::from_ref(&path)));
        assert_eq!(
            read.texts,
            [RuleText {
                name: path.clone(),
                text: "domainFilters: [example.com]\n".into(),
                file: path,
                config_map: None,
            }]
        );
    }

    #[test]
    fn labelled_configmaps_give_their_rules_and_the_rest_is_passed_over() {
        let dir = tempfile::tempdir().expect("tempdir");
        let text = [
            configmap("a", LABEL, "rules.yaml: 'domainFilters: [a.example]'"),
            "apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: x}\n".to_string(),
            configmap("other", "app: x", "settings: y"),
            configmap("b", LABEL, "rules.yaml: 'enforcement: warn'"),
        ]
        .join("---\n");
        let path = file(&dir, "install.yaml", &text);
        let read = ok(read_all(std::slice::from_ref(&path)));
        let names: Vec<String> = read.texts.iter().map(|t| t.name.clone()).collect();
        assert_eq!(
            names,
            [
                format!("{path}: ConfigMap zoneguard/a"),
                format!("{path}: ConfigMap zoneguard/b")
            ]
        );
        assert_eq!(read.texts[1].text, "enforcement: warn");
        assert!(read.warnings.is_empty(), "{:?}", read.warnings);
    }

    #[test]
    fn rule_configmaps_come_in_the_servers_order_after_the_rules_documents() {
        // zoneguard serve combines rule ConfigMaps by name; the first inject rule for a key
        // wins, so the order decides what is injected.
        let dir = tempfile::tempdir().expect("tempdir");
        let second = [
            configmap("team-a", LABEL, "rules.yaml: 'enforcement: warn'"),
            configmap("platform", LABEL, "rules.yaml: '{}'"),
        ]
        .join("---\n");
        let paths = [
            file(&dir, "z.yaml", &configmap("zz", LABEL, "rules.yaml: '{}'")),
            file(&dir, "team.yaml", &second),
            file(&dir, "plain.yaml", "domainFilters: [example.com]\n"),
        ];
        let read = ok(read_all(&paths));
        let names: Vec<&str> = read.texts.iter().map(|t| t.name.as_str()).collect();
        assert_eq!(
            names,
            [
                paths[2].clone(),
                format!("{}: ConfigMap zoneguard/platform", paths[1]),
                format!("{}: ConfigMap zoneguard/team-a", paths[1]),
                format!("{}: ConfigMap zoneguard/zz", paths[0]),
            ]
        );
    }

    #[test]
    fn rule_configmaps_of_several_namespaces_are_combined_with_a_warning() {
        let dir = tempfile::tempdir().expect("tempdir");
        let text = [
            configmap("a", LABEL, "rules.yaml: '{}'"),
            configmap("b", LABEL, "rules.yaml: '{}'")
                .replace("namespace: zoneguard", "namespace: elsewhere"),
        ]
        .join("---\n");
        let read = ok(read_all(&[file(&dir, "r.yaml", &text)]));
        assert_eq!(read.texts.len(), 2);
        assert_eq!(read.warnings.len(), 1, "{:?}", read.warnings);
        let warning = &read.warnings[0];
        assert!(
            warning
                .message
                .starts_with("rule ConfigMaps from 2 namespaces (elsewhere, zoneguard)"),
            "{warning}"
        );
        assert_eq!(warning.source, None, "it is about the files together");
    }

    #[test]
    fn a_list_from_kubectl_get_is_read_item_by_item() {
        let dir = tempfile::tempdir().expect("tempdir");
        let list = r#"{"apiVersion": "v1", "kind": "List", "items": [
            {"apiVersion": "v1", "kind": "ConfigMap",
             "metadata": {"name": "a", "namespace": "zoneguard", "labels": {"zoneguard.io/rules": "true"}},
             "data": {"rules.yaml": "{}"}}]}"#;
        let path = file(&dir, "in-force.json", list);
        let read = ok(read_all(&[path]));
        assert_eq!(read.texts.len(), 1);
        assert_eq!(read.texts[0].text, "{}");
    }

    #[test]
    fn an_unlabelled_configmap_with_rules_is_a_warning_not_a_source() {
        let dir = tempfile::tempdir().expect("tempdir");
        let text = [
            configmap("a", LABEL, "rules.yaml: '{}'"),
            configmap("forgot", "", "rules.yaml: 'domainFilters: [x.example]'"),
        ]
        .join("---\n");
        let path = file(&dir, "r.yaml", &text);
        let read = ok(read_all(std::slice::from_ref(&path)));
        assert_eq!(read.texts.len(), 1);
        assert_eq!(read.warnings.len(), 1);
        let warning = &read.warnings[0];
        assert!(
            warning.message.starts_with("ConfigMap zoneguard/forgot")
                && warning
                    .message
                    .contains("zoneguard serve would not read it"),
            "{warning}"
        );
        assert_eq!(warning.source, Some(path));
    }

    #[test]
    fn files_that_cannot_give_rules_are_errors_naming_file_and_configmap() {
        let label_only = configmap("a", LABEL, "other: x");
        let twice = [
            configmap("a", LABEL, "rules.yaml: '{}'"),
            configmap("a", LABEL, "rules.yaml: '{}'"),
        ]
        .join("---\n");
        let no_rules = "apiVersion: v1\nkind: List\nitems: []\n".to_string();
        let not_objects = configmap("a", LABEL, "rules.yaml: '{}'") + "---\n- 1\n";
        let cases: &[(&str, &str, &[&str])] = &[
            (
                "a labelled ConfigMap without the key",
                &label_only,
                &["ConfigMap zoneguard/a", "data[\"rules.yaml\"] is missing"],
            ),
            (
                "a labelled ConfigMap whose key is rules.yml",
                &configmap("a", LABEL, "rules.yml: '{}'"),
                &[
                    "ConfigMap zoneguard/a: data[\"rules.yaml\"] is missing",
                    "(found rules.yml; rename it to rules.yaml)",
                ],
            ),
            (
                "one ConfigMap twice",
                &twice,
                &["ConfigMap zoneguard/a is also in"],
            ),
            (
                "no rule ConfigMap at all",
                &no_rules,
                &["no ConfigMap labelled zoneguard.io/rules"],
            ),
            (
                "a document that is no object",
                &not_objects,
                &["document 2 is not a Kubernetes object"],
            ),
        ];
        for (what, text, wants) in cases {
            let dir = tempfile::tempdir().expect("tempdir");
            let path = file(&dir, "r.yaml", text);
            let errors = read_all(std::slice::from_ref(&path)).errors;
            assert!(!errors.is_empty(), "{what}");
            let all: Vec<String> = errors.iter().map(ToString::to_string).collect();
            let all = all.join("\n");
            assert!(all.starts_with(&path), "{what}: {all}");
            for want in *wants {
                assert!(all.contains(want), "{what}: {all}");
            }
        }
    }

    proptest::proptest! {
        #[test]
        fn any_file_gives_rule_texts_or_errors_without_a_panic(
            text in "(apiVersion: v1\nkind: (ConfigMap|List)\n|metadata: \\{[a-z: ,\"./]{0,30}\\}\n|data: \\{[a-z.: ,'{}]{0,30}\\}\n|items: \\[[a-z{}, ]{0,20}\\]\n|---\n|[ -~]{0,20}\n){0,8}",
        ) {
            let dir = tempfile::tempdir().expect("tempdir");
            let _ = read_all(&[file(&dir, "r.yaml", &text)]);
        }
    }

    #[test]
    fn a_configmap_in_two_files_is_an_error() {
        let dir = tempfile::tempdir().expect("tempdir");
        let cm = configmap("a", LABEL, "rules.yaml: '{}'");
        let (one, two) = (file(&dir, "1.yaml", &cm), file(&dir, "2.yaml", &cm));
        let errors: Vec<String> = read_all(&[one.clone(), two.clone()])
            .errors
            .iter()
            .map(ToString::to_string)
            .collect();
        assert_eq!(
            errors,
            [format!("{two}: ConfigMap zoneguard/a is also in {one}: a cluster holds one ConfigMap of a name, so keep one of them")]
        );
    }
}
