//! Admission of rule ConfigMaps: a broken edit refused with the parser's message, warnings about its own text.

use super::*;

#[test]
fn a_rules_configmap_edit_is_admitted_with_warnings_about_its_own_text_alone() {
    let policies = "irsa:\n  source: iam\n";
    let base = RuleSource {
        name: "ConfigMap zoneguard/base",
        text: "domainFilters: [\"bad domain.com\"]\n",
    };
    let d = review_rules_configmap(&rules(""), Operation::Update, "rules", policies, &[base]);
    assert!(d.allowed, "{d:?}");
    let texts = warning_texts(&d);
    assert_eq!(texts.len(), 1, "{texts:?}");
    assert!(
        texts[0].starts_with(r#"data["rules.yaml"] line 2: irsa.source: irsa.issuer (this cluster's OIDC issuer URL) is not set"#),
        "{texts:?}"
    );
    // The issuer set in another rule source: nothing to warn about.
    let issuer = RuleSource {
        name: "ConfigMap zoneguard/base",
        text: "irsa:\n  issuer: https://oidc.example.com/id/A\n",
    };
    let d = review_rules_configmap(&rules(""), Operation::Update, "rules", policies, &[issuer]);
    assert!(d.allowed && d.warnings.is_empty(), "{d:?}");
}

#[test]
fn a_rules_configmap_with_a_broken_document_is_refused_with_the_parser_message() {
    let d = review_rules_configmap(
        &rules(""),
        Operation::Create,
        "rules",
        "domainFilters: [a.com]\nregexDomainFilter: '('\n",
        &[],
    );
    assert!(!d.allowed);
    assert!(
        d.violations[0]
            .message()
            .starts_with(r#"data["rules.yaml"] line 2: regexDomainFilter: "(" is not a valid"#),
        "{}",
        d.violations[0].message()
    );
    let other = RuleSource {
        name: "ConfigMap zoneguard/base",
        text: "enforcement: warn\n",
    };
    let d = review_rules_configmap(
        &rules(""),
        Operation::Update,
        "rules",
        "enforcement: deny\n",
        &[other],
    );
    assert!(!d.allowed);
    assert_eq!(
        d.violations[0].message(),
        r#"data["rules.yaml"] line 1: enforcement: set to deny here and to warn in ConfigMap zoneguard/base (line 1); rule sources must agree: set it in one of them, or to the same value in both"#
    );
    let unlabelled = json!({"metadata": {"name": "x"}, "data": {"rules.yaml": "garbage: ["}});
    assert!(
        validate(
            &rules(""),
            &req(
                Operation::Create,
                "",
                "ConfigMap",
                "zoneguard",
                &tree(&unlabelled),
                None
            )
        )
        .allowed
    );
}

#[test]
fn a_broken_rules_configmap_is_refused_even_when_its_namespace_is_exempt() {
    let exempting = rules("exemptNamespaces: [kube-system, zoneguard]\n");
    let d = review_rules_configmap(&exempting, Operation::Update, "rules", "bogus: 1\n", &[]);
    assert!(!d.allowed, "{d:?}");
    assert!(d.violations[0].message().contains("bogus"), "{d:?}");
}

#[test]
fn a_rules_configmap_without_rules_yaml_names_a_key_that_looks_meant_as_it() {
    let missing = r#"data["rules.yaml"] is missing: a ConfigMap labelled zoneguard.io/rules=true must carry its rules under the key rules.yaml"#;
    let table = [
        (
            json!({"rules.yml": "{}"}),
            " (found rules.yml; rename it to rules.yaml)",
        ),
        (
            json!({"Rules.YAML": "{}"}),
            " (found Rules.YAML; rename it to rules.yaml)",
        ),
        (
            json!({"rules": "{}"}),
            " (found rules; rename it to rules.yaml)",
        ),
        (
            json!({"rules.json": "{}"}),
            " (found rules.json; rename it to rules.yaml)",
        ),
        (json!({"policy.yaml": "{}"}), ""),
        (json!({}), ""),
    ];
    for (data, hint) in table {
        let cm = json!({"metadata": {"name": "r", "labels": {"zoneguard.io/rules": "true"}}, "data": data});
        let d = validate(
            &rules(""),
            &req(
                Operation::Create,
                "",
                "ConfigMap",
                "zoneguard",
                &tree(&cm),
                None,
            ),
        );
        assert!(!d.allowed, "{data}");
        assert_eq!(d.violations[0].reason, Reason::RulesInvalid, "{data}");
        assert_eq!(
            d.violations[0].message(),
            format!("{missing}{hint}"),
            "{data}"
        );
    }
}

#[test]
fn an_edit_is_judged_on_its_own_errors_and_warned_of_other_configmaps_errors() {
    let edit = |text: &str, others: &[RuleSource<'_>]| {
        review_rules_configmap(&rules(""), Operation::Update, "mine", text, others)
    };
    let broken = RuleSource {
        name: "ConfigMap zoneguard/broken",
        text: "bogus: 1\n",
    };
    let deny = RuleSource {
        name: "ConfigMap zoneguard/a",
        text: "enforcement: deny\n",
    };
    let warn = RuleSource {
        name: "ConfigMap zoneguard/b",
        text: "enforcement: warn\n",
    };
    // Another ConfigMap broken on its own: the edit is admitted, and told it waits for it.
    let d = edit("domainFilters: [example.com]\n", &[broken]);
    assert!(d.allowed && d.violations.is_empty(), "{d:?}");
    assert!(
        d.warnings[0]
            .message()
            .contains("ConfigMap zoneguard/broken")
            && d.warnings[0].message().contains("takes effect only then"),
        "{d:?}"
    );
    // Two others in conflict: the same.
    let d = edit("domainFilters: [example.com]\n", &[deny, warn]);
    assert!(d.allowed, "{d:?}");
    assert!(
        d.warnings
            .iter()
            .any(|w| w.message().contains("ConfigMap zoneguard/a")),
        "{d:?}"
    );
    // An edit that conflicts itself is refused, naming the other.
    let d = edit("enforcement: audit\n", &[deny]);
    assert!(!d.allowed, "{d:?}");
    assert!(
        d.violations[0].message().contains("ConfigMap zoneguard/a"),
        "{d:?}"
    );
}
