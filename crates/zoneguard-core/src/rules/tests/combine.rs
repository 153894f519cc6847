//! Several rule sources combined: lists unite, settings must agree, and a conflict names both sources.

use super::*;

#[test]
fn several_sources_union_their_lists() {
    let a = (
        "ConfigMap zoneguard/a",
        "domainFilters: [a.com]\nnamespaces: {team-a: {domainFilters: [team-a.a.com]}}\n",
    );
    let b = (
        "ConfigMap zoneguard/b",
        "domainFilters: [b.com, a.com]\nnamespaces: {team-a: {domainFilters: [team-a.b.com]}}\n",
    );
    let rules = named_sources(&[a, b]).unwrap_or_else(|e| panic!("{e:?}"));
    assert_eq!(rules.cluster.spec().include, ["a.com", "b.com"]);
    assert!(rules.namespaces["team-a"].matches("x.team-a.b.com"));
    let c = (
        "ConfigMap zoneguard/c",
        "sources: {ingressClassNames: [public], serviceTypeFilter: [LoadBalancer]}\n",
    );
    let d = (
        "ConfigMap zoneguard/d",
        "sources: {ingressClassNames: [edge, public], serviceTypeFilter: [NodePort]}\n",
    );
    let rules = named_sources(&[c, d]).unwrap_or_else(|e| panic!("{e:?}"));
    assert_eq!(rules.sources.ingress_class_names, ["public", "edge"]);
    assert_eq!(rules.sources.service_types, ["LoadBalancer", "NodePort"]);
}

#[test]
fn two_sources_with_different_selectors_or_templates_are_a_conflict() {
    // (the setting in one source, the other's, the key)
    let table = [
        (
            "sources: {labelFilter: team=web}\n",
            "sources:\n  labelFilter: team=db\n",
            "sources.labelFilter",
        ),
        (
            "sources: {fqdnTemplate: '{{.Name}}.example.com'}\n",
            "sources:\n  fqdnTemplate: '{{.Name}}.example.org'\n",
            "sources.fqdnTemplate",
        ),
    ];
    for (first, other, key) in table {
        let a = ("ConfigMap zoneguard/a", first);
        let same = ("ConfigMap zoneguard/same", first);
        let b = ("ConfigMap zoneguard/b", other);
        assert!(named_sources(&[a, same]).is_ok(), "{key}");
        let errors = named_sources(&[a, b]).err().unwrap_or_default();
        assert_eq!(errors.len(), 1, "{errors:?}");
        let e = &errors[0];
        assert_eq!(
            (e.source_name.as_str(), e.line, e.key.as_str()),
            ("ConfigMap zoneguard/b", 2, key)
        );
        assert!(e.message.contains("ConfigMap zoneguard/a"), "{e}");
    }
}

#[test]
fn two_sources_that_disagree_on_a_setting_are_a_conflict_naming_both() {
    let a = ("ConfigMap zoneguard/a", "enforcement: deny\n");
    let b = (
        "ConfigMap zoneguard/b",
        "domainFilters: [x.com]\nenforcement: warn\n",
    );
    let errors = named_sources(&[a, b]).err().unwrap_or_default();
    assert_eq!(errors.len(), 1);
    let e = &errors[0];
    assert_eq!(
        (e.source_name.as_str(), e.line, e.key.as_str()),
        ("ConfigMap zoneguard/b", 2, "enforcement")
    );
    assert!(e.message.contains("ConfigMap zoneguard/a"), "{e}");
}

#[test]
fn a_conflict_names_the_other_source_without_the_file_both_share_and_its_line() {
    let table = [
        (
            "rules.yaml: ConfigMap zoneguard/a",
            "rules.yaml: ConfigMap zoneguard/b",
            "set to warn here and to deny in ConfigMap zoneguard/a (line 2);",
        ),
        (
            "a.yaml: ConfigMap zoneguard/a",
            "b.yaml: ConfigMap zoneguard/b",
            "set to warn here and to deny in a.yaml: ConfigMap zoneguard/a (line 2);",
        ),
        (
            "a.yaml",
            "b.yaml",
            "set to warn here and to deny in a.yaml (line 2);",
        ),
    ];
    for (first, second, needle) in table {
        let a = (first, "domainFilters: [x.com]\nenforcement: deny\n");
        let b = (second, "enforcement: warn\n");
        let errors = named_sources(&[a, b]).err().unwrap_or_default();
        assert_eq!(errors.len(), 1, "{errors:?}");
        assert!(errors[0].message.starts_with(needle), "{}", errors[0]);
        assert!(
            errors[0].message.ends_with(
                "; rule sources must agree: set it in one of them, or to the same value in both"
            ),
            "{}",
            errors[0]
        );
    }
}

#[test]
fn the_same_trust_policy_twice_is_no_conflict_but_a_different_one_is() {
    let p1 = "irsa: {trustPolicies: {'arn:aws:iam::111122223333:role/x': {Version: '2012-10-17', Statement: []}}}\n";
    let p2 = "irsa: {trustPolicies: {'arn:aws:iam::111122223333:role/x': {Version: '2008-10-17', Statement: []}}}\n";
    let same = [("a", p1), ("b", p1)];
    assert!(named_sources(&same).is_ok());
    let differ = [("a", p1), ("b", p2)];
    assert!(named_sources(&differ).is_err());
}

const POLICY: &str = r#"{"Version": "2012-10-17", "Statement": [{"Effect": "Allow", "Principal": {"Federated": "arn:aws:iam::111122223333:oidc-provider/oidc.example/id/A"}, "Action": "sts:AssumeRoleWithWebIdentity"}]}"#;

#[test]
fn sources_that_agree_once_normalised_are_no_conflict() {
    let arn = "arn:aws:iam::111122223333:role/x";
    let as_map = format!("irsa: {{trustPolicies: {{'{arn}': {POLICY}}}}}\n");
    let as_string = format!(
        "irsa: {{trustPolicies: {{'{arn}': {}}}}}\n",
        serde_json::Value::from(POLICY)
    );
    let single_action = POLICY.replace(
        "\"sts:AssumeRoleWithWebIdentity\"",
        "[\"sts:AssumeRoleWithWebIdentity\"]",
    );
    let as_list = format!("irsa: {{trustPolicies: {{'{arn}': {single_action}}}}}\n");
    // `Statement` as one object rather than a list of one.
    let statement = POLICY.replace("[{", "{").replace("}]}", "}}");
    let single_statement = format!("irsa: {{trustPolicies: {{'{arn}': {statement}}}}}\n");
    let table: [(&str, &str); 6] = [
        (
            "irsa: {issuer: oidc.example/id/A}\n",
            "irsa: {issuer: 'https://oidc.example/id/A/'}\n",
        ),
        (
            "irsa: {issuer: 'HTTPS://oidc.example/id/A'}\n",
            "irsa: {issuer: oidc.example/id/A//}\n",
        ),
        (
            "irsa: {cacheTTL: 1m, callTimeout: 1s}\n",
            "irsa: {cacheTTL: 60s, callTimeout: 1000ms}\n",
        ),
        (&as_map, &as_string),
        (&as_map, &as_list),
        (&as_map, &single_statement),
    ];
    for (a, b) in table {
        let rules = combined(a, b).unwrap_or_else(|e| panic!("{a:?} + {b:?}: {e:?}"));
        assert_eq!(
            rules.irsa.trust_policies.len(),
            usize::from(a == as_map),
            "{a:?}"
        );
    }
    let rules = combined(
        "irsa: {issuer: oidc.example/id/A}\n",
        "irsa: {issuer: 'https://oidc.example/id/A/'}\n",
    )
    .unwrap_or_else(|e| panic!("{e:?}"));
    assert_eq!(rules.irsa.issuer.as_deref(), Some("oidc.example/id/A"));
}

#[test]
fn sources_that_differ_once_normalised_are_a_conflict() {
    let arn = "arn:aws:iam::111122223333:role/x";
    let other = POLICY.replace("id/A", "id/B");
    let as_map = format!("irsa: {{trustPolicies: {{'{arn}': {POLICY}}}}}\n");
    let other_as_string = format!(
        "irsa: {{trustPolicies: {{'{arn}': {}}}}}\n",
        serde_json::Value::from(other.as_str())
    );
    let table: [(&str, &str, &str); 4] = [
        (
            "irsa: {issuer: oidc.example/id/A}\n",
            "irsa: {issuer: 'https://oidc.example/id/a/'}\n",
            "irsa.issuer",
        ),
        (
            "irsa: {issuer: oidc.example/id/A}\n",
            "irsa: {issuer: 'oidc.example/id/A/x'}\n",
            "irsa.issuer",
        ),
        (
            "irsa: {cacheTTL: 1m}\n",
            "irsa: {cacheTTL: 61s}\n",
            "irsa.cacheTTL",
        ),
        (
            &as_map,
            &other_as_string,
            r#"irsa.trustPolicies["arn:aws:iam::111122223333:role/x"]"#,
        ),
    ];
    for (a, b, key) in table {
        let errors = combined(a, b).err().unwrap_or_default();
        assert_eq!(errors.len(), 1, "{a:?} + {b:?}: {errors:?}");
        assert_eq!(errors[0].key, key);
    }
}

#[test]
fn conflicts_show_the_values_as_rules_write_them() {
    let arn = "arn:aws:iam::111122223333:role/x";
    let policy = |statements: &str| {
        format!("irsa: {{trustPolicies: {{'{arn}': {{Version: '2012-10-17', Statement: [{statements}]}}}}}}\n")
    };
    let (p1, p2) = (
        policy("{Effect: Allow, Principal: '*', Action: 'sts:*'}"),
        policy("{Effect: Deny, Principal: '*', Action: 'sts:*'}"),
    );
    let as_string = format!(
        "irsa: {{trustPolicies: {{'{arn}': {}}}}}\n",
        serde_json::Value::from(
            r#"{"Version":"2012-10-17","Statement":[{"Effect":"Deny","Principal":"*","Action":"sts:*"}]}"#
        )
    );
    let table: [(&str, &str, &str); 6] = [
        (
            "enforcement: deny\n",
            "enforcement: warn\n",
            "set to warn here and to deny in a.yaml (line 1);",
        ),
        (
            "irsa: {unknownRole: allow, source: iam}\n",
            "irsa: {unknownRole: deny, source: iam}\n",
            "set to deny here and to allow in a.yaml (line 1);",
        ),
        (
            "irsa: {source: iam}\n",
            "irsa: {source: static}\n",
            "set to static here and to iam in a.yaml (line 1);",
        ),
        (
            "sources: {publishInternalServices: true}\n",
            "sources: {publishInternalServices: false}\n",
            "set to false here and to true in a.yaml (line 1);",
        ),
        (
            "irsa: {audience: 'a\"b'}\n",
            "irsa: {audience: sts}\n",
            r#"set to "sts" here and to "a\"b" in a.yaml (line 1);"#,
        ),
        (
            &p1,
            &as_string,
            r#"set to {"Statement":[{"Action":"sts:*","Effect":"Deny","Principal":"*"}],"Version":"201… here and to {"Statement":[{"Action":"sts:*","Effect":"Allow","Principal":"*"}],"Version":"20… in a.yaml (line 1);"#,
        ),
    ];
    for (a, b, needle) in table {
        let errors = combined(a, b).err().unwrap_or_default();
        assert_eq!(errors.len(), 1, "{a:?} + {b:?}: {errors:?}");
        assert!(
            errors[0].message.contains(needle),
            "{needle}\n{}",
            errors[0]
        );
    }
    let errors = combined(&p1, &p2).err().unwrap_or_default();
    assert!(
        errors[0].message.contains(r#""Effect":"Deny""#),
        "{errors:?}"
    );
}
