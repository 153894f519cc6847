//! Checks made as a document compiles: regex and template budgets, trust policies, selectors and TXT registry settings.

use super::*;

#[test]
fn an_fqdn_template_that_builds_past_the_budget_on_any_object_is_refused_with_the_rules() {
    // The audit's rules: 577 bytes that loaded, then aborted the process on the first Service.
    let a = "a".repeat(60);
    let text = format!(
        "domainFilters: [example.com]\nsources:\n  fqdnTemplate: '{{{{$s := \"{a}\"}}}}{{{{$x := replace \"a\" \"{a}\" $s}}}}{{{{$y := replace \"a\" \"{a}\" $x}}}}{{{{$z := replace \"a\" \"{a}\" $y}}}}{{{{$w := replace \"a\" \"{a}\" $z}}}}{{{{$v := replace \"a\" \"{a}\" $w}}}}x.example.com'\n"
    );
    assert_eq!(text.len(), 577);
    let e = one_error(&text);
    assert_eq!((e.key.as_str(), e.line), ("sources.fqdnTemplate", 3), "{e}");
    let want = "passes a bound of zoneguard's (run on an object of kind Ingress with only a name and a namespace: execution error: replace: the template would read and build more than 8 MiB (8388608 bytes)";
    assert!(e.message.contains(want), "{e}");
    assert!(
        e.message
            .ends_with("so zoneguard would refuse every object it names"),
        "{e}"
    );
    let fine =
        "sources: {fqdnTemplate: '{{replace \"-\" \".\" .Name | printf \"%s.example.com\"}}'}\n";
    assert!(RuleSet::parse("r", fine).is_ok());
}

/// Rules that give each namespace of `suffixes` a Unicode hostname pattern (~20 MiB compiled)
/// ending in `.<suffix>`.
fn unicode_patterns(suffixes: &[&str]) -> String {
    suffixes.iter().enumerate().fold("namespaces:\n".to_string(), |text, (i, suffix)| {
        text + &format!(
            "  n{i}: {{regexDomainFilter: '^[\\pL\\pN-]{{1,63}}(\\.[\\pL\\pN-]{{1,63}}){{0,5}}\\.{suffix}$'}}\n"
        )
    })
}

#[test]
fn a_rule_set_whose_regexes_pass_the_budget_is_refused_at_the_pattern_that_passes_it() {
    let e = one_error(&unicode_patterns(&["a", "b", "c"]));
    assert_eq!(
        (e.key.as_str(), e.line),
        ("namespaces.n2.regexDomainFilter", 4),
        "{e}"
    );
    let want = r#""^[\\pL\\pN-]{1,63}(\\.[\\pL\\pN-]{1,63}){0,5}\\.c$" would pass zoneguard's budget for a rule set's regexes: compiled, it takes more than the 9.0 MiB left, and the 2 patterns before it take 39.0 MiB of the 48 MiB"#;
    assert!(e.message.starts_with(want), "{e}");
}

#[test]
fn a_rule_set_whose_regexes_fit_the_budget_is_taken() {
    // Two distinct patterns fit; one pattern written for twelve namespaces is compiled once.
    for text in [
        unicode_patterns(&["a", "b"]),
        unicode_patterns(&["a"; 12]),
        format!(
            "regexDomainFilter: '\\.example\\.com$'\n{}",
            unicode_patterns(&["a", "b"])
        ),
    ] {
        let rules = RuleSet::parse("r", &text).unwrap_or_else(|e| panic!("{text}: {e:?}"));
        assert!(!rules.namespaces.is_empty(), "{text}");
    }
}

#[test]
fn a_malformed_trust_policy_is_refused_with_its_arn() {
    let text =
        "irsa:\n  trustPolicies:\n    arn:aws:iam::111122223333:role/x: '{\"Statement\": 5'\n";
    let e = one_error(text);
    assert!(e.key.contains("arn:aws:iam::111122223333:role/x"), "{e}");
    assert!(e.message.contains("not a valid trust policy"), "{e}");
}

#[test]
fn a_trust_policy_error_in_a_mapping_is_on_the_line_of_the_key_at_fault() {
    let arn = "arn:aws:iam::111122223333:role/app";
    let policy = |body: &str| format!("irsa:\n  trustPolicies:\n    {arn}:\n{body}");
    let statement = "      Statement:\n        - Effect: Allow\n          Principal: {Federated: x}\n          Action: sts:AssumeRoleWithWebIdentity\n";
    let table = [
        (
            policy(&format!("{statement}          Condition:\n            StringEqual: {{k: v}}\n")),
            9,
            "Statement[0].Condition.StringEqual: unknown condition operator `StringEqual`; did you mean `StringEquals`?",
        ),
        (
            policy("      Statment: []\n"),
            4,
            "`Statment`: unknown key",
        ),
        (
            policy("      Statement:\n        - Effect: allow\n"),
            5,
            "Statement[0].Effect: expected \"Allow\" or \"Deny\"",
        ),
        // Written as JSON text, the policy's own line.
        (
            format!("irsa:\n  trustPolicies:\n    {arn}: '{{\"Statment\": []}}'\n"),
            3,
            "`Statment`: unknown key",
        ),
    ];
    for (text, line, needle) in table {
        let e = one_error(&text);
        assert_eq!(e.key, format!("irsa.trustPolicies[\"{arn}\"]"), "{text}");
        assert_eq!(e.line, line, "{text}\n{e}");
        assert!(e.message.contains(needle), "{text}\n{e}");
    }
}

#[test]
fn a_trust_policy_error_at_a_key_holding_spaces_or_dots_is_on_that_keys_line() {
    let arn = "arn:aws:iam::111122223333:role/app";
    let text = format!("irsa:\n  trustPolicies:\n    {arn}:\n      Statement:\n        Effect: Allow\n        Action: sts:AssumeRoleWithWebIdentity\n        Principal:\n          Fed x.y: x\n");
    let e = one_error(&text);
    assert_eq!(e.line, 8, "{text}\n{e}");
    assert!(
        e.message
            .contains("Statement.Principal.Fed x.y: unknown key"),
        "{e}"
    );
}

#[test]
fn selector_filters_compile_and_an_empty_one_selects_everything() {
    let rules = RuleSet::parse(
        "r",
        "sources: {labelFilter: 'env in (prod)', annotationFilter: '', gatewayLabelFilter: ' '}\n",
    )
    .unwrap_or_else(|e| panic!("{e:?}"));
    let label = rules.sources.label_filter.expect("a label filter");
    assert_eq!(label.text(), "env in (prod)");
    assert!(label.matches(|_| Some("prod")));
    assert!(rules.sources.annotation_filter.is_none());
    assert!(rules.sources.gateway_label_filter.is_none());
    // An empty namespace is every namespace, as for external-dns.
    let rules = RuleSet::parse("r", "sources: {namespace: '', gatewayNamespace: gw}\n")
        .unwrap_or_else(|e| panic!("{e:?}"));
    assert_eq!(rules.sources.namespace, None);
    assert_eq!(rules.sources.gateway_namespace.as_deref(), Some("gw"));
}

#[test]
fn an_fqdn_template_compiles_with_its_combine_flag() {
    let text = "sources: {fqdnTemplate: '{{.Name}}.example.com', combineFqdnAnnotation: true}\n";
    let rules = RuleSet::parse("r", text).unwrap_or_else(|e| panic!("{e:?}"));
    let template = rules.sources.fqdn_template.as_ref().expect("a template");
    assert_eq!(template.text(), "{{.Name}}.example.com");
    assert!(rules.sources.combine_fqdn_annotation);
    let blank =
        RuleSet::parse("r", "sources: {fqdnTemplate: ' '}\n").unwrap_or_else(|e| panic!("{e:?}"));
    assert!(blank.sources.fqdn_template.is_none());
}

#[test]
fn the_txt_registry_affixes_are_lower_cased_as_external_dns_keeps_them() {
    let text = "registry: {txtPrefix: \"%{RECORD_TYPE}-Own.\", txtSuffix: \"-TXT\", txtWildcardReplacement: \"İ\"}\n";
    let rules = RuleSet::parse("r", text).unwrap_or_else(|e| panic!("{e:?}"));
    assert_eq!(rules.registry.prefix, "%{record_type}-own.");
    assert_eq!(rules.registry.suffix, "-txt");
    assert_eq!(rules.registry.wildcard_replacement, "i");
    // The placeholder read, a 50-octet label's TXT label is "cname-" + 50 octets: it fits
    // (taken literally, "%{RECORD_TYPE}-cname-" + 50 would be 71).
    let rules = RuleSet::parse("r", "registry: {txtPrefix: \"%{RECORD_TYPE}-\"}\n")
        .unwrap_or_else(|e| panic!("{e:?}"));
    let name = format!("{}.example.com", "a".repeat(50));
    assert_eq!(
        crate::hostname::txt_problem(&name, &rules.registry),
        None,
        "{name}"
    );
}
