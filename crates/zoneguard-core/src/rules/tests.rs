//! Table-driven tests of parsing, checking and combining rules documents.

use super::*;

fn errors_of(text: &str) -> Vec<RulesError> {
    RuleSet::parse("rules.yaml", text).err().unwrap_or_default()
}

fn one_error(text: &str) -> RulesError {
    let errors = errors_of(text);
    assert_eq!(
        errors.len(),
        1,
        "expected one error for {text:?}, got {errors:?}"
    );
    errors.into_iter().next().unwrap_or_else(|| unreachable!())
}

#[test]
fn an_empty_document_is_a_valid_rule_set_that_filters_nothing() {
    for text in ["", "---\n", "{}", "# only a comment\n"] {
        let rules = RuleSet::parse("r", text).unwrap_or_else(|e| panic!("{text:?}: {e:?}"));
        assert!(rules.cluster.matches("anything.example.org"));
        assert_eq!(rules.enforcement, Enforcement::Deny);
    }
}

#[test]
fn the_reference_shape_of_the_spec_parses() {
    let rules = RuleSet::parse("r", include_str!("../../../../examples/rules.yaml"))
        .unwrap_or_else(|e| panic!("{e:?}"));
    assert!(rules.cluster.matches("shop.example.com"));
    assert!(!rules.cluster.matches("shop.internal.example.com"));
    assert!(rules.namespaces.contains_key("team-a"));
    assert_eq!(rules.inject.len(), 1);
    assert_eq!(rules.irsa.trust_policies.len(), 1);
}

#[test]
fn json_documents_parse_like_yaml() {
    let rules = RuleSet::parse(
        "r.json",
        r#"{"domainFilters": ["example.com"], "enforcement": "warn"}"#,
    )
    .unwrap_or_else(|e| panic!("{e:?}"));
    assert_eq!(rules.enforcement, Enforcement::Warn);
}

#[test]
fn errors_name_the_key_and_the_line() {
    let table: [(&str, &str, usize, &str); 20] = [
        (
            "domainFilters: [a.com]\nfoo: 1\n",
            "foo",
            2,
            "unknown key `foo`; write one of annotationPrefix, domainFilters,",
        ),
        (
            "irsa:\n  issuer: x\n  bogus: 1\n",
            "irsa.bogus",
            3,
            "unknown key `bogus`; write one of issuer, audience,"
        ),
        (
            "domainFilters: a.com\n",
            "domainFilters",
            1,
            "must be a list, not the string \"a.com\"; write domainFilters: [a.com]",
        ),
        (
            "regexDomainFilter: '(unclosed'\n",
            "regexDomainFilter",
            1,
            "not a valid regular expression",
        ),
        (
            "namespaces:\n  team-a:\n    regexDomainExclusion: '['\n",
            r#"namespaces.team-a.regexDomainExclusion"#,
            3,
            "regular expression",
        ),
        (
            "irsa:\n  trustPolicies:\n    arn:aws:iam::1:role/x: {}\n",
            r#"irsa.trustPolicies["arn:aws:iam::1:role/x"]"#,
            3,
            "not a role ARN",
        ),
        (
            "irsa:\n  accounts: [12345]\n",
            "irsa.accounts[0]",
            2,
            "12 digits",
        ),
        (
            "enforcement: block\n",
            "enforcement",
            1,
            "\"block\" is not a valid enforcement; write one of deny, warn, audit",
        ),
        (
            "sources:\n  ingressClassNames: [public, 'a b']\n",
            "sources.ingressClassNames[1]",
            2,
            "publishes no Ingress at all",
        ),
        (
            "sources:\n  serviceTypeFilter:\n    - LoadBalancer\n    - ''\n",
            "sources.serviceTypeFilter[1]",
            4,
            "leave the list empty to read every type",
        ),
        (
            "sources: {serviceTypeFilter: [loadbalancer]}\n",
            "sources.serviceTypeFilter[0]",
            1,
            "use one of ClusterIP, NodePort, LoadBalancer, ExternalName",
        ),
        (
            "sources:\n  labelFilter: 'env in (prod'\n",
            "sources.labelFilter",
            2,
            "\"env in (prod\" is not a selector external-dns accepts (found 'end of string', expected ',' or ')'); with it external-dns refuses to start",
        ),
        (
            "sources: {annotationFilter: 'team!=db'}\n",
            "sources.annotationFilter",
            1,
            "write team notin (db)",
        ),
        (
            "sources: {gatewayLabelFilter: 'shard>2'}\n",
            "sources.gatewayLabelFilter",
            1,
            "only by --label-filter",
        ),
        (
            "sources:\n  ingressClassNames: [public]\n  annotationFilter: kubernetes.io/ingress.class=public\n",
            "sources.annotationFilter",
            3,
            "external-dns refuses to start with both",
        ),
        (
            "sources: {annotationFilter: '!kubectl.kubernetes.io/last-applied-configuration'}\n",
            "sources.annotationFilter",
            1,
            "removes from Ingresses, Services and routes before it filters them",
        ),
        (
            "sources: {compatibility: kops}\n",
            "sources.compatibility",
            1,
            "use one of mate, molecule, kops-dns-controller, or leave it empty",
        ),
        (
            "sources:\n  gatewayNamespace: Gateways\n",
            "sources.gatewayNamespace",
            2,
            "is not a namespace name",
        ),
        (
            "sources:\n  fqdnTemplate: '{{.Name}}.{{nosuch .Namespace}}.example.com'\n",
            "sources.fqdnTemplate",
            2,
            r#"is not a Go template external-dns accepts (function "nosuch" not defined)"#,
        ),
        (
            "sources: {fqdnTemplate: '{{.Name'}\n",
            "sources.fqdnTemplate",
            1,
            "unclosed action",
        ),
    ];
    for (text, key, line, needle) in table {
        let e = one_error(text);
        assert_eq!((e.key.as_str(), e.line), (key, line), "{text:?}: {e}");
        assert!(e.message.contains(needle), "{text:?}: {e}");
    }
}

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
fn inject_rules_are_checked() {
    let table = [
        (
            "inject:\n- kinds: [Deployment]\n  annotations: {a/b: c}\n",
            "inject[0].kinds[0]",
        ),
        (
            "inject:\n- serviceTypes: [Balancer]\n  annotations: {a/b: c}\n",
            "inject[0].serviceTypes[0]",
        ),
        (
            "inject:\n- annotations: {a/b: '{cluster}.example.com'}\n",
            r#"inject[0].annotations["a/b"]"#,
        ),
        (
            "inject:\n- annotations: {'bad key!': x}\n",
            r#"inject[0].annotations["bad key!"]"#,
        ),
        ("inject:\n- kinds: [Service]\n", "inject[0].annotations"),
    ];
    for (text, key) in table {
        assert_eq!(one_error(text).key, key, "{text}");
    }
}

#[test]
fn an_annotation_prefix_must_be_a_dns_subdomain_ending_in_a_slash() {
    for good in ["dns.example.io/", "external-dns.alpha.kubernetes.io/", "a/"] {
        let text = format!("annotationPrefix: {good}\n");
        assert!(errors_of(&text).is_empty(), "{good}");
    }
    for bad in [
        "dns.example.io",
        "/",
        "Dns.io/",
        "-a.io/",
        "a..io/",
        "a/b/",
        "'a io/'",
    ] {
        let e = one_error(&format!("annotationPrefix: {bad}\n"));
        assert_eq!(e.key, "annotationPrefix", "{bad}");
        assert!(
            e.message.contains("is not an annotation prefix"),
            "{bad}: {e}"
        );
    }
}

#[test]
fn a_yaml_bomb_is_refused_not_expanded() {
    let mut text = String::from("a0: &a0 [x, x, x, x, x, x, x, x, x, x]\n");
    for i in 1..10 {
        let p = i - 1;
        text.push_str(&format!(
            "a{i}: &a{i} [*a{p}, *a{p}, *a{p}, *a{p}, *a{p}, *a{p}, *a{p}, *a{p}, *a{p}, *a{p}]\n"
        ));
    }
    text.push_str("domainFilters: *a9\n");
    assert!(!errors_of(&text).is_empty());
}

#[test]
fn one_big_anchor_named_many_times_is_refused_at_the_alias_that_crosses_the_bound() {
    // serde_yaml_ng's own bound counts the aliases (8 000 pass it), not the 8 GB they repeat;
    // a trust policy takes any value, so nothing else stops it.
    let text = format!(
        "irsa:\n  trustPolicies:\n    big: &b \"{}\"\n    arn:aws:iam::111122223333:role/a:\n      refs: [{}]\n",
        "a".repeat(1 << 20),
        vec!["*b"; 8_000].join(", ")
    );
    let e = one_error(&text);
    assert_eq!((e.line, e.key.as_str()), (5, "(document)"), "{e:?}");
    assert!(
        e.message
            .contains("aliases (*name) repeat more than 16 MiB"),
        "{e:?}"
    );
}

#[test]
fn merge_keys_apply_in_rules_as_in_manifests() {
    let text = "namespaces:\n  team-a: &base\n    domainFilters: [a.example.com]\n  team-b:\n    <<: *base\n    excludeDomains: [x.a.example.com]\n";
    let rules = RuleSet::parse("rules.yaml", text).unwrap_or_else(|e| panic!("{e:?}"));
    let team_b = &rules.namespaces["team-b"];
    assert!(team_b.matches("y.a.example.com"));
    assert!(!team_b.matches("x.a.example.com"));
}

#[test]
fn a_merged_document_errors_at_the_mapping_that_merges() {
    let table: &[(&str, usize, &str, &str)] = &[
        (
            "base: &b {domainFilters: [a.com]}\nnamespaces: {a: {<<: *b}}\n",
            1,
            "base",
            "unknown key `base`",
        ),
        (
            "namespaces:\n  team-b:\n    <<: {domainFilters: 7}\n",
            2,
            "namespaces.team-b.domainFilters",
            "",
        ),
        (
            "namespaces:\n  team-b:\n    <<: [1]\n",
            2,
            "namespaces.team-b.<<[0]",
            "a merge key (<<) takes a mapping",
        ),
    ];
    for (text, line, key, message) in table {
        let e = one_error(text);
        assert_eq!((e.line, e.key.as_str()), (*line, *key), "{text}: {e:?}");
        assert!(e.message.contains(message), "{text}: {e:?}");
    }
}

#[test]
fn a_megabyte_of_nesting_is_refused_at_once_naming_its_line() {
    // The YAML parser proper would take minutes over it.
    let text = format!("domainFilters:\n  - {}", "[".repeat(1 << 20));
    let e = one_error(&text);
    assert_eq!((e.line, e.key.as_str()), (2, "(document)"), "{e:?}");
    assert!(e.message.contains("nested more than 64 levels"), "{e:?}");
}

#[test]
fn several_sources_union_their_lists() {
    let a = RuleSource {
        name: "ConfigMap zoneguard/a",
        text: "domainFilters: [a.com]\nnamespaces: {team-a: {domainFilters: [team-a.a.com]}}\n",
    };
    let b = RuleSource {
        name: "ConfigMap zoneguard/b",
        text:
            "domainFilters: [b.com, a.com]\nnamespaces: {team-a: {domainFilters: [team-a.b.com]}}\n",
    };
    let rules = RuleSet::from_sources(&[a, b]).unwrap_or_else(|e| panic!("{e:?}"));
    assert_eq!(rules.cluster.spec().include, ["a.com", "b.com"]);
    assert!(rules.namespaces["team-a"].matches("x.team-a.b.com"));
    let c = RuleSource {
        name: "ConfigMap zoneguard/c",
        text: "sources: {ingressClassNames: [public], serviceTypeFilter: [LoadBalancer]}\n",
    };
    let d = RuleSource {
        name: "ConfigMap zoneguard/d",
        text: "sources: {ingressClassNames: [edge, public], serviceTypeFilter: [NodePort]}\n",
    };
    let rules = RuleSet::from_sources(&[c, d]).unwrap_or_else(|e| panic!("{e:?}"));
    assert_eq!(rules.sources.ingress_class_names, ["public", "edge"]);
    assert_eq!(rules.sources.service_types, ["LoadBalancer", "NodePort"]);
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
        let a = RuleSource {
            name: "ConfigMap zoneguard/a",
            text: first,
        };
        let same = RuleSource {
            name: "ConfigMap zoneguard/same",
            text: first,
        };
        let b = RuleSource {
            name: "ConfigMap zoneguard/b",
            text: other,
        };
        assert!(RuleSet::from_sources(&[a, same]).is_ok(), "{key}");
        let errors = RuleSet::from_sources(&[a, b]).err().unwrap_or_default();
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
fn two_sources_that_disagree_on_a_setting_are_a_conflict_naming_both() {
    let a = RuleSource {
        name: "ConfigMap zoneguard/a",
        text: "enforcement: deny\n",
    };
    let b = RuleSource {
        name: "ConfigMap zoneguard/b",
        text: "domainFilters: [x.com]\nenforcement: warn\n",
    };
    let errors = RuleSet::from_sources(&[a, b]).err().unwrap_or_default();
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
        let a = RuleSource {
            name: first,
            text: "domainFilters: [x.com]\nenforcement: deny\n",
        };
        let b = RuleSource {
            name: second,
            text: "enforcement: warn\n",
        };
        let errors = RuleSet::from_sources(&[a, b]).err().unwrap_or_default();
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
    let same = [
        RuleSource {
            name: "a",
            text: p1,
        },
        RuleSource {
            name: "b",
            text: p1,
        },
    ];
    assert!(RuleSet::from_sources(&same).is_ok());
    let differ = [
        RuleSource {
            name: "a",
            text: p1,
        },
        RuleSource {
            name: "b",
            text: p2,
        },
    ];
    assert!(RuleSet::from_sources(&differ).is_err());
}

mod never_panics {
    use super::*;
    use proptest::prelude::*;

    proptest! {
        #[test]
        fn arbitrary_bytes_give_rules_or_errors(bytes in proptest::collection::vec(any::<u8>(), 0..512)) {
            let text = String::from_utf8_lossy(&bytes);
            let _ = RuleSet::parse("fuzz", &text);
        }

        #[test]
        fn arbitrary_yaml_like_text_gives_rules_or_errors(text in "[a-zA-Z:\\[\\]{}\\-\\n ,'\"*&!|>.0-9]{0,200}") {
            let _ = RuleSet::parse("fuzz", &text);
        }
    }
}

const IAM_RULES: &str = r#"
irsa:
  source: iam
  checkProvider: true
  cacheTTL: 2m
  negativeCacheTTL: 10s
  callTimeout: 800ms
  accountReaders:
    "444455556666": arn:aws:iam::444455556666:role/zoneguard-reader
  chains:
    - serviceAccount: external-dns/external-dns
      assumes: arn:aws:iam::444455556666:role/external-dns-route53
"#;

#[test]
fn iam_mode_keys_compile() {
    let rules = RuleSet::parse("r", IAM_RULES).unwrap_or_else(|e| panic!("{e:?}"));
    let irsa = &rules.irsa;
    assert_eq!(irsa.source, IrsaSource::Iam);
    assert!(irsa.check_provider);
    assert_eq!(irsa.cache_ttl, Duration::from_secs(120));
    assert_eq!(irsa.negative_cache_ttl, Duration::from_secs(10));
    assert_eq!(irsa.call_timeout, Duration::from_millis(800));
    assert_eq!(
        irsa.account_readers["444455556666"].to_string(),
        "arn:aws:iam::444455556666:role/zoneguard-reader"
    );
    let chains: Vec<&Chain> = irsa.chains_of("external-dns", "external-dns").collect();
    assert_eq!(chains.len(), 1);
    assert_eq!(chains[0].assumes.name, "external-dns-route53");
    assert_eq!(irsa.chains_of("external-dns", "other").count(), 0);
}

#[test]
fn iam_mode_defaults() {
    let rules = RuleSet::parse("r", "").unwrap_or_else(|e| panic!("{e:?}"));
    let irsa = &rules.irsa;
    assert_eq!(irsa.source, IrsaSource::Static);
    assert!(!irsa.check_provider);
    assert_eq!(irsa.cache_ttl, Duration::from_secs(300));
    assert_eq!(irsa.negative_cache_ttl, Duration::from_secs(30));
    assert_eq!(irsa.call_timeout, Duration::from_secs(1));
    assert!(irsa.account_readers.is_empty() && irsa.chains.is_empty());
}

#[test]
fn iam_mode_errors_name_the_key_and_the_line() {
    let table: [(&str, &str, usize, &str); 10] = [
        (
            "irsa:\n  source: live\n",
            "irsa.source",
            2,
            "\"live\" is not a valid source; write one of static, iam",
        ),
        (
            "irsa:\n  accountReaders:\n    \"12\": arn:aws:iam::111122223333:role/r\n",
            "irsa.accountReaders.12",
            3,
            "not an AWS account id",
        ),
        (
            "irsa:\n  accountReaders:\n    \"111122223333\": arn:aws:iam::444455556666:role/r\n",
            "irsa.accountReaders.111122223333",
            3,
            "is in account 444455556666, not 111122223333",
        ),
        (
            "irsa:\n  accountReaders:\n    \"111122223333\": role/r\n",
            "irsa.accountReaders.111122223333",
            3,
            "is not a role ARN",
        ),
        (
            "irsa:\n  chains:\n    - serviceAccount: external-dns\n      assumes: arn:aws:iam::111122223333:role/r\n",
            "irsa.chains[0].serviceAccount",
            3,
            "write \"<namespace>/<name>\"",
        ),
        (
            "irsa:\n  chains:\n    - serviceAccount: a/b\n      assumes: r\n",
            "irsa.chains[0].assumes",
            4,
            "is not a role ARN",
        ),
        ("irsa:\n  cacheTTL: 5\n", "irsa.cacheTTL", 2, "is not a duration"),
        (
            "irsa:\n  callTimeout: 1m\n",
            "irsa.callTimeout",
            2,
            "longer than the maximum 10s",
        ),
        ("irsa:\n  callTimeout: 0s\n", "irsa.callTimeout", 2, "longer than 0s"),
        (
            "irsa:\n  issuer: http://oidc.example/id/A\n",
            "irsa.issuer",
            2,
            "is an https URL (IAM refuses any other scheme), not http://",
        ),
    ];
    for (text, key, line, message) in table {
        let e = one_error(text);
        assert_eq!((e.key.as_str(), e.line), (key, line), "{text:?}: {e}");
        assert!(e.message.contains(message), "{text:?}: {e}");
    }
    let e = one_error("irsa:\n  chains:\n    - serviceAccount: a/b\n      assume: x\n");
    assert!(
        e.message
            .starts_with("unknown key `assume`; did you mean `assumes`?"),
        "{e}"
    );
}

#[test]
fn iam_mode_keys_combine_lists_union_scalars_and_readers_agree() {
    let chain = |sa: &str| {
        format!("irsa: {{chains: [{{serviceAccount: {sa}, assumes: 'arn:aws:iam::111122223333:role/t'}}]}}\n")
    };
    let (a, b) = (chain("a/x"), chain("b/y"));
    let both = [
        RuleSource {
            name: "a",
            text: &a,
        },
        RuleSource {
            name: "b",
            text: &b,
        },
        RuleSource {
            name: "c",
            text: &a,
        },
    ];
    let rules = RuleSet::from_sources(&both).unwrap_or_else(|e| panic!("{e:?}"));
    assert_eq!(rules.irsa.chains.len(), 2);
    let reader = |arn: &str| format!("irsa: {{accountReaders: {{'111122223333': '{arn}'}}}}\n");
    let (r1, r2) = (
        reader("arn:aws:iam::111122223333:role/r1"),
        reader("arn:aws:iam::111122223333:role/r2"),
    );
    let same = [
        RuleSource {
            name: "a",
            text: &r1,
        },
        RuleSource {
            name: "b",
            text: &r1,
        },
    ];
    assert!(RuleSet::from_sources(&same).is_ok());
    let differ = [
        RuleSource {
            name: "a",
            text: &r1,
        },
        RuleSource {
            name: "b",
            text: &r2,
        },
    ];
    let errors = RuleSet::from_sources(&differ).err().unwrap_or_default();
    assert_eq!(errors.len(), 1, "{errors:?}");
    assert_eq!(errors[0].key, "irsa.accountReaders.111122223333");
    let scalars = [
        RuleSource {
            name: "a",
            text: "irsa: {source: iam, cacheTTL: 1m}\n",
        },
        RuleSource {
            name: "b",
            text: "irsa: {source: static, cacheTTL: 1m}\n",
        },
    ];
    let errors = RuleSet::from_sources(&scalars).err().unwrap_or_default();
    assert_eq!(errors.len(), 1, "{errors:?}");
    assert_eq!(errors[0].key, "irsa.source");
}

#[test]
fn a_key_repeated_in_any_mapping_is_an_error_naming_the_second_line() {
    let arn = "arn:aws:iam::111122223333:role/x";
    let policy = "{Version: '2012-10-17', Statement: [{Effect: Allow, Principal: '*', Action: 'sts:AssumeRoleWithWebIdentity'}]}";
    let table: [(String, String, usize, usize); 10] = [
        (
            "namespaces:\n  team-a: {domainFilters: [a.com]}\n  team-b: {}\n  team-a: {domainFilters: [b.com]}\n".into(),
            "namespaces.team-a".into(),
            4,
            2,
        ),
        (
            format!("irsa:\n  trustPolicies:\n    {arn}: {policy}\n    {arn}: {policy}\n"),
            format!("irsa.trustPolicies[{arn:?}]"),
            4,
            3,
        ),
        (
            "irsa:\n  accountReaders:\n    '111122223333': arn:aws:iam::111122223333:role/r1\n    \"111122223333\": arn:aws:iam::111122223333:role/r2\n".into(),
            "irsa.accountReaders.111122223333".into(),
            4,
            3,
        ),
        (
            "inject:\n- kinds: [Service]\n  annotations:\n    a/b: x\n    a/b: y\n".into(),
            r#"inject[0].annotations["a/b"]"#.into(),
            5,
            4,
        ),
        (
            "inject:\n- annotations: {a/b: x}\n- annotations: {c/d: x, c/d: y}\n".into(),
            r#"inject[1].annotations["c/d"]"#.into(),
            3,
            3,
        ),
        (
            format!("irsa:\n  trustPolicies:\n    {arn}:\n      Version: '2012-10-17'\n      Statement: []\n      Statement: [{{Effect: Allow, Principal: '*', Action: 'sts:*'}}]\n"),
            format!("irsa.trustPolicies[{arn:?}].Statement"),
            6,
            5,
        ),
        (
            "enforcement: deny\ndomainFilters: [a.com]\nenforcement: warn\n".into(),
            "enforcement".into(),
            3,
            1,
        ),
        (
            "irsa:\n  issuer: a\n  audience: b\n  issuer: c\n".into(),
            "irsa.issuer".into(),
            4,
            2,
        ),
        (
            "{\n  \"namespaces\": {\n    \"team-a\": {},\n    \"team-a\": {\"domainFilters\": [\"x.com\"]}\n  }\n}\n".into(),
            "namespaces.team-a".into(),
            4,
            3,
        ),
        (
            "sources: {publishInternalServices: true}\nsources: {ignoreIngressTLSSpec: true}\n".into(),
            "sources".into(),
            2,
            1,
        ),
    ];
    for (text, key, line, first) in table {
        let e = one_error(&text);
        assert_eq!(
            (e.key.as_str(), e.line),
            (key.as_str(), line),
            "{text:?}: {e}"
        );
        let needle = format!("already set on line {first}");
        assert!(e.message.starts_with("duplicate key `"), "{text:?}: {e}");
        assert!(e.message.contains(&needle), "{text:?}: {e}");
    }
}

#[test]
fn the_same_key_in_different_mappings_or_a_repeated_list_item_is_no_duplicate() {
    let text = "domainFilters: [a.com, a.com]\nnamespaces:\n  team-a: {domainFilters: [a.com]}\n  team-b: {domainFilters: [a.com]}\ninject:\n- annotations: {a/b: x}\n- annotations: {a/b: x}\n";
    RuleSet::parse("r", text).unwrap_or_else(|e| panic!("{e:?}"));
}

fn combined(a: &str, b: &str) -> Result<RuleSet, Vec<RulesError>> {
    named_sources(&[("a.yaml", a), ("b.yaml", b)])
}

/// Where each warning of `rules` stands: its source, line and key.
fn warned_at(rules: &RuleSet) -> Vec<(&str, usize, &str)> {
    let warnings = rules.warnings.iter();
    warnings
        .map(|w| (w.source_name.as_str(), w.line, w.key.as_str()))
        .collect()
}

/// The rule set of the sources `(name, text)`, in order.
fn named_sources(sources: &[(&str, &str)]) -> Result<RuleSet, Vec<RulesError>> {
    let sources: Vec<RuleSource> = (sources.iter())
        .map(|&(name, text)| RuleSource { name, text })
        .collect();
    RuleSet::from_sources(&sources)
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
    let table: [(&str, &str); 5] = [
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

/// Words of Rust, not of a rules document, that serde's messages would carry.
const RUST_WORDS: [&str; 6] = [
    "struct ",
    "enum ",
    "Doc",
    "unit",
    "YAML tag starting",
    "floating point",
];

#[test]
fn errors_about_a_value_of_the_wrong_shape_say_what_to_write_not_a_rust_type() {
    let table: [(&str, &str, &str); 17] = [
        ("- a\n", "(document)", "must be a mapping of rule keys (annotationPrefix, domainFilters,"),
        ("hello\n", "(document)", "must be a mapping of rule keys (annotationPrefix, domainFilters, excludeDomains, regexDomainFilter, regexDomainExclusion, sources, registry, namespaces, inject, irsa, enforcement, exemptNamespaces), not the string \"hello\""),
        ("sources: 5\n", "sources", "must be a mapping with ignoreHostnameAnnotation/ignoreIngressTLSSpec/ignoreIngressRulesSpec/publishInternalServices"),
        ("registry: [1]\n", "registry", "must be a mapping with txtPrefix/txtSuffix/txtWildcardReplacement, not a list"),
        ("namespaces: {team-a: 5}\n", "namespaces.team-a", "must be a mapping with domainFilters/excludeDomains/regexDomainFilter/regexDomainExclusion, not the number 5"),
        ("namespaces: [team-a]\n", "namespaces", "must be a mapping (key: value), not a list"),
        ("inject: [~]\n", "inject[0]", "must be a mapping with kinds/serviceTypes/namespaces/annotations, not null (no value)"),
        ("inject: [{annotations: [a]}]\n", "inject[0].annotations", "must be a mapping (key: value), not a list"),
        ("irsa: x\n", "irsa", "must be a mapping with issuer/audience/accounts/unknownRole/trustPolicies/"),
        ("irsa: {chains: [5]}\n", "irsa.chains[0]", "must be a mapping with serviceAccount and assumes, not the number 5"),
        ("enforcement: {a: 1}\n", "enforcement", "must be one of deny, warn, audit, not a mapping"),
        ("enforcement: !deny 5\n", "enforcement", "must be one of deny, warn, audit, not the string \"5\""),
        ("enforcement: !warn [1]\n", "enforcement", "must be one of deny, warn, audit, not a list"),
        ("irsa: {unknownRole: [x]}\n", "irsa.unknownRole", "must be one of deny, warn, allow, not a list"),
        ("irsa: {source: {x: 1}}\n", "irsa.source", "must be one of static, iam, not a mapping"),
        ("irsa: {trustPolicies: {'arn:aws:iam::111122223333:role/x': !t x}}\n", "irsa.trustPolicies.arn:aws:iam::111122223333:role/x", "must be any valid JSON value, not a value with a YAML tag (!…)"),
        ("irsa: {checkProvider: 1.5}\n", "irsa.checkProvider", "must be true or false, not the number 1.5"),
    ];
    for (text, key, needle) in table {
        let e = one_error(text);
        assert_eq!((e.key.as_str(), e.line), (key, 1), "{text:?}: {e}");
        assert!(e.message.contains(needle), "{text:?}: {e}");
        for word in RUST_WORDS {
            assert!(!e.message.contains(word), "{text:?} says {word:?}: {e}");
        }
        assert!(!e.message.replace("a mapping", "").contains("a map"), "{e}");
    }
}

/// The `pub struct` or `pub enum` names of `document.rs`.
fn document_types(kind: &str) -> Vec<String> {
    let lead = format!("pub {kind} ");
    include_str!("document.rs")
        .lines()
        .filter_map(|line| line.trim().strip_prefix(lead.as_str()))
        .map(|rest| rest.split([' ', '{', '<']).next().unwrap_or("").to_string())
        .collect()
}

/// What serde's "unknown …, expected one of `a`, `b`" (or "expected `a` or `b`") lists for
/// `text` read as `T`.
fn listed_by_serde<T: serde::de::DeserializeOwned + std::fmt::Debug>(text: &str) -> Vec<String> {
    let message = serde_yaml_ng::from_str::<T>(text)
        .err()
        .map(|e| e.to_string())
        .unwrap_or_default();
    let list = message.rsplit("expected ").next().unwrap_or("");
    list.split('`')
        .skip(1)
        .step_by(2)
        .map(str::to_string)
        .collect()
}

#[test]
fn every_struct_and_enum_of_a_rules_document_has_words_that_name_all_its_keys_or_values() {
    use super::document::*;
    let structs = document_types("struct");
    let mut described: Vec<String> = words::SHAPES.iter().map(|(n, _)| n.to_string()).collect();
    described.sort();
    let mut found = structs.clone();
    found.sort();
    assert_eq!(
        found, described,
        "a struct of document.rs has no words in words::SHAPES"
    );
    let unknown = "'~unknown~': 1\n";
    let keys: [(&str, Vec<String>); 7] = [
        ("RulesDoc", listed_by_serde::<RulesDoc>(unknown)),
        ("SourcesDoc", listed_by_serde::<SourcesDoc>(unknown)),
        ("RegistryDoc", listed_by_serde::<RegistryDoc>(unknown)),
        ("NamespaceDoc", listed_by_serde::<NamespaceDoc>(unknown)),
        ("InjectDoc", listed_by_serde::<InjectDoc>(unknown)),
        ("IrsaDoc", listed_by_serde::<IrsaDoc>(unknown)),
        ("ChainDoc", listed_by_serde::<ChainDoc>(unknown)),
    ];
    for (name, fields) in keys {
        let (_, words) = words::SHAPES
            .iter()
            .find(|(n, _)| *n == name)
            .copied()
            .unwrap_or_default();
        assert!(!fields.is_empty(), "{name}");
        for field in fields {
            assert!(
                words.contains(&field),
                "{name}: {field} missing from {words:?}"
            );
        }
    }
    let mut enums = document_types("enum");
    enums.sort();
    let mut chosen: Vec<String> = words::CHOICES
        .iter()
        .map(|(_, n, _)| n.to_string())
        .collect();
    chosen.sort();
    assert_eq!(
        enums, chosen,
        "an enum of document.rs has no words in words::CHOICES"
    );
    let values: [(&str, Vec<String>); 3] = [
        ("Enforcement", listed_by_serde::<Enforcement>("'~'")),
        ("UnknownRole", listed_by_serde::<UnknownRole>("'~'")),
        ("IrsaSource", listed_by_serde::<IrsaSource>("'~'")),
    ];
    for (name, variants) in values {
        let (_, _, words) = words::CHOICES
            .iter()
            .find(|(_, n, _)| *n == name)
            .copied()
            .unwrap_or_default();
        assert_eq!(words, format!("one of {}", variants.join(", ")), "{name}");
    }
}

#[test]
fn a_namespace_listed_with_no_value_has_no_filters_of_its_own() {
    let table = [
        "namespaces: {team-a: ~}\n",
        "namespaces: {team-a: }\n",
        "namespaces:\n  team-a:\n",
        "namespaces:\n  team-a: null\n",
        "{\"namespaces\": {\"team-a\": null}}",
        "namespaces: {team-a: {}}\n",
    ];
    for text in table {
        let rules = RuleSet::parse("r", text).unwrap_or_else(|e| panic!("{text:?}: {e:?}"));
        let team_a = rules.namespaces.get("team-a");
        assert!(
            team_a.is_some_and(|f| f.matches("anything.example.org")),
            "{text:?}"
        );
    }
    // Another source may give it filters: the empty entry adds none, and takes none away.
    let rules = combined(
        "namespaces: {team-a: ~}\n",
        "namespaces: {team-a: {domainFilters: [team-a.example.com]}}\n",
    )
    .unwrap_or_else(|e| panic!("{e:?}"));
    assert!(rules.namespaces["team-a"].matches("x.team-a.example.com"));
    assert!(!rules.namespaces["team-a"].matches("x.team-b.example.com"));
    // Its name is still checked.
    assert_eq!(
        one_error("namespaces: {Team_A: ~}\n").key,
        "namespaces.Team_A"
    );
}

#[test]
fn a_second_document_with_content_is_refused_at_its_line_and_an_empty_one_is_ignored() {
    let refused: [(&str, usize); 7] = [
        ("a: 1\n---\nb: 2\n", 2),
        ("domainFilters: [a.com]\n---\nfoo: 1\n", 2),
        ("---\ndomainFilters: [a.com]\n---\nenforcement: warn\n", 3),
        ("---\n---\ndomainFilters: [a.com]\n", 2),
        ("domainFilters: [a.com]\n---\n---\n# c\n---\n[\n", 5),
        ("domainFilters: [a.com]\n...\nenforcement: warn\n", 3),
        ("domainFilters: [a.com]\n--- ~\n", 2),
    ];
    for (text, line) in refused {
        let e = one_error(text);
        assert_eq!(
            (e.line, e.key.as_str()),
            (line, "(document)"),
            "{text:?}: {e}"
        );
        assert!(
            e.message.contains("a second YAML document starts here"),
            "{e}"
        );
        assert!(e.message.contains("holds one document"), "{e}");
    }
    let accepted = [
        "---\ndomainFilters: [a.com]\n",
        "domainFilters: [a.com]\n---\n",
        "domainFilters: [a.com]\n---\n# nothing more\n---\n",
        "domainFilters: [a.com]\n...\n",
        "--- # the rules\ndomainFilters: [a.com]\n...\n---\n",
    ];
    for text in accepted {
        let rules = RuleSet::parse("r", text).unwrap_or_else(|e| panic!("{text:?}: {e:?}"));
        assert_eq!(rules.cluster.spec().include, ["a.com"], "{text:?}");
    }
    // An error in the one document still names its own line, after a leading `---`.
    let e = one_error("---\ndomainFilters: [a.com]\nbogus: 1\n");
    assert_eq!((e.line, e.key.as_str()), (3, "bogus"), "{e}");
}

#[test]
fn each_inject_rule_remembers_its_source_and_its_index_there() {
    let a = RuleSource {
        name: "ConfigMap zoneguard/zoneguard-rules-base",
        text: "inject:\n- annotations: {a.io/x: '1'}\n",
    };
    let b = RuleSource {
        name: "ConfigMap zoneguard/zoneguard-rules-platform",
        text: "inject:\n- annotations: {b.io/x: '1'}\n- annotations: {b.io/y: '1'}\n",
    };
    let rules = RuleSet::from_sources(&[a, b]).unwrap_or_else(|e| panic!("{e:?}"));
    let table: [(usize, &str); 3] = [
        (0, "inject[0] of ConfigMap zoneguard/zoneguard-rules-base"),
        (
            1,
            "inject[0] of ConfigMap zoneguard/zoneguard-rules-platform",
        ),
        (
            2,
            "inject[1] of ConfigMap zoneguard/zoneguard-rules-platform",
        ),
    ];
    for (index, name) in table {
        assert_eq!(rules.inject[index].index, index);
        assert_eq!(rules.inject_rule_name(index), name);
    }
    let alone = RuleSet::from_sources(&[b]).unwrap_or_else(|e| panic!("{e:?}"));
    assert_eq!(
        alone.inject_rule_name(1),
        "inject[1] of ConfigMap zoneguard/zoneguard-rules-platform"
    );
    // A rule set built without origins still names the rule.
    assert_eq!(
        RuleSet::parse("r", "")
            .map(|r| r.inject_rule_name(3))
            .ok()
            .as_deref(),
        Some("inject[3] of the zoneguard rules")
    );
}

#[test]
fn a_fixed_inject_value_that_no_object_could_pass_with_is_refused_with_the_rules() {
    let rule = |key: &str, value: &str| {
        format!("domainFilters: [example.com]\ninject:\n  - kinds: [Service]\n    annotations:\n      {key}: {value:?}\n")
    };
    let alpha = "external-dns.alpha.kubernetes.io/";
    let new = "external-dns.kubernetes.io/";
    let table: [(String, String, &str); 11] = [
        (format!("{alpha}ttl"), "0".into(), "is not a TTL external-dns accepts (it is outside 1..2147483647 seconds)"),
        (format!("{new}ttl"), "500ms".into(), "is not a TTL external-dns accepts"),
        (format!("{alpha}ttl"), "1d".into(), "write whole seconds such as \"300\""),
        (format!("{alpha}ttl"), " 60".into(), "is not a TTL external-dns accepts"),
        (format!("{alpha}hostname"), "a_b.example.com".into(), "\"a_b.example.com\" is not a valid DNS name: its label \"a_b\""),
        (format!("{new}hostname"), "ok.example.com,-x.example.com".into(), "\"-x.example.com\" (item [1] of \"ok.example.com,-x.example.com\") is not a valid DNS name"),
        (format!("{alpha}internal-hostname"), "a..example.com".into(), "is not a valid DNS name"),
        (format!("{alpha}hostname"), "a b.example.com".into(), "contains spaces: external-dns deletes them and would publish \"ab.example.com\""),
        (format!("{new}hostname"), "*.*.example.com".into(), "is not a valid DNS name"),
        (format!("{alpha}target"), "lb.example.com,".into(), "\"lb.example.com,\" has an empty item [1] (a stray comma)"),
        (format!("{new}target"), "a.example.com,b.example.com".into(), "names 2 DNS names"),
    ];
    for (key, value, needle) in table {
        let text = rule(&key, &value);
        let e = one_error(&text);
        let path = format!("inject[0].annotations[{key:?}]");
        assert_eq!((e.key.as_str(), e.line), (path.as_str(), 5), "{text}: {e}");
        assert!(e.message.contains(needle), "{text}: {e}");
        assert!(
            e.message
                .contains("every object this rule applies to would be denied"),
            "{e}"
        );
    }
    // Templates are judged per request; so are the domain filters (another source may add
    // one); keys external-dns does not read carry anything.
    let accepted: [(String, &str); 10] = [
        (format!("{alpha}ttl"), "60"),
        (format!("{new}ttl"), "1h30m"),
        (format!("{alpha}ttl"), "{name}"),
        (format!("{alpha}hostname"), "{name}..example.com"),
        (format!("{alpha}hostname"), "outside.other.org"),
        (format!("{alpha}hostname"), "a.example.com,,b.example.com"),
        (format!("{alpha}hostname"), "*.example.com"),
        ("example.com/ttl".to_string(), "0"),
        (format!("{alpha}target"), "lb.example.com"),
        (format!("{alpha}target"), "{name}.lb.example.com,1.2.3.4"),
    ];
    for (key, value) in accepted {
        let text = rule(&key, value);
        RuleSet::parse("r", &text).unwrap_or_else(|e| panic!("{text}: {e:?}"));
    }
}

#[test]
fn a_fixed_ingress_hostname_source_external_dns_does_not_know_is_refused_for_ingresses() {
    let rule = |kinds: &str, value: &str| {
        format!("inject:\n  - {kinds}annotations:\n      external-dns.alpha.kubernetes.io/ingress-hostname-source: {value:?}\n")
    };
    for kinds in [
        "kinds: [Ingress]\n    ",
        "kinds: [Service, Ingress]\n    ",
        "",
    ] {
        let text = rule(kinds, "annotation_only");
        let e = one_error(&text);
        assert!(
            e.message
                .contains("\"annotation_only\" is not a value external-dns knows")
                && e.message
                    .contains("every object this rule applies to would be denied"),
            "{text}: {e}"
        );
    }
    // Compared lower-cased, as external-dns does; a rule that reaches no Ingress may carry it.
    for (kinds, value) in [
        ("kinds: [Ingress]\n    ", "Annotation-Only"),
        ("kinds: [Ingress]\n    ", "defined-hosts-only"),
        ("kinds: [Service]\n    ", "annotation_only"),
    ] {
        let text = rule(kinds, value);
        RuleSet::parse("r", &text).unwrap_or_else(|e| panic!("{text}: {e:?}"));
    }
}

#[test]
fn an_inject_value_over_the_api_servers_bound_on_annotations_is_refused() {
    let rule =
        |value: &str| format!("inject:\n  - annotations:\n      example.com/big: {value:?}\n");
    let e = one_error(&rule(&"x".repeat(300_000)));
    assert!(
        e.message
            .contains("takes 300015 bytes with its key, more than the 262144 bytes"),
        "{e}"
    );
    // Placeholders only add to a value: what is written besides them counts.
    let near = format!("{{name}}{}", "x".repeat(262_144 - 15 - 1));
    RuleSet::parse("r", &rule(&near)).unwrap_or_else(|e| panic!("{e:?}"));
}

#[test]
fn a_ttl_under_the_configured_prefix_is_checked_and_blamed_on_the_source_that_injects_it() {
    let custom =
        "annotationPrefix: dns.example.io/\ninject:\n  - annotations: {dns.example.io/ttl: '0'}\n";
    let e = one_error(custom);
    assert_eq!(
        (e.key.as_str(), e.line),
        (r#"inject[0].annotations["dns.example.io/ttl"]"#, 3),
        "{e}"
    );
    // The prefix comes from one source, the rule from another: the combined rules find it,
    // and the error names the source of the rule, its index and line there.
    let prefix = RuleSource {
        name: "ConfigMap zoneguard/prefix",
        text: "annotationPrefix: dns.example.io/\n",
    };
    let injects = RuleSource {
        name: "ConfigMap zoneguard/inject",
        text: "inject:\n  - annotations: {a.io/x: '1'}\n  - kinds: [Service]\n    annotations:\n      dns.example.io/ttl: '0'\n",
    };
    let before = RuleSource {
        name: "ConfigMap zoneguard/before",
        text: "inject:\n  - annotations: {b.io/x: '1'}\n",
    };
    let errors = RuleSet::from_sources(&[before, prefix, injects])
        .err()
        .unwrap_or_default();
    assert_eq!(errors.len(), 1, "{errors:?}");
    let e = &errors[0];
    assert_eq!(
        (e.source_name.as_str(), e.line, e.key.as_str()),
        (
            "ConfigMap zoneguard/inject",
            5,
            r#"inject[1].annotations["dns.example.io/ttl"]"#
        ),
        "{e}"
    );
    assert!(
        e.message.contains("is not a TTL external-dns accepts"),
        "{e}"
    );
}

#[test]
fn a_byte_order_mark_before_the_document_is_not_part_of_it() {
    let rules = RuleSet::parse("r", "\u{feff}domainFilters: [example.com]\n").expect("rules");
    assert!(rules.cluster.matches_normalized("a.example.com"));
    let e = one_error("\u{feff}domainFilters: [example.com]\nbogus: 1\n");
    assert_eq!((e.line, e.key.as_str()), (2, "bogus"), "{e:?}");
}

#[test]
fn an_inject_annotation_with_no_value_is_refused_and_a_quoted_one_is_text() {
    for value in ["~", "null", ""] {
        let text = format!("inject:\n  - annotations:\n      example.com/team: {value}\n");
        let e = one_error(&text);
        assert_eq!(
            e.key, "inject[0].annotations[\"example.com/team\"]",
            "{value:?}: {e:?}"
        );
        assert!(e.message.contains("needs a value"), "{value:?}: {e:?}");
    }
    let rules = RuleSet::parse(
        "r",
        "inject:\n  - annotations: {example.com/team: 'null'}\n",
    )
    .expect("rules");
    assert_eq!(rules.inject[0].annotations["example.com/team"], "null");
}

#[test]
fn a_key_repeated_inside_a_policy_written_as_json_text_is_refused() {
    let policy = r#"{"Version": "2012-10-17", "Statement": [{"Effect": "Allow", "Effect": "Deny", "Principal": "*", "Action": "sts:*"}]}"#;
    let text =
        format!("irsa:\n  trustPolicies:\n    arn:aws:iam::111122223333:role/x: '{policy}'\n");
    let e = one_error(&text);
    assert_eq!(
        e.key, "irsa.trustPolicies[\"arn:aws:iam::111122223333:role/x\"]",
        "{e:?}"
    );
    assert!(
        e.message
            .contains("repeats the key `Effect` (at Statement[0].Effect"),
        "{e:?}"
    );
    let once = policy.replace(r#""Effect": "Deny", "#, "");
    let text = format!("irsa:\n  trustPolicies:\n    arn:aws:iam::111122223333:role/x: '{once}'\n");
    assert!(errors_of(&text).is_empty());
}

#[test]
fn an_inject_annotation_key_must_have_the_syntax_kubernetes_gives_annotation_keys() {
    let (name63, name64) = ("n".repeat(63), "n".repeat(64));
    let table: &[(&str, bool)] = &[
        ("external-dns.alpha.kubernetes.io/ttl", true),
        ("team", true),
        ("a.io/Mixed_Case.name-1", true),
        (&name63, true),
        (&name64, false),
        ("a.io/", false),
        ("/ttl", false),
        ("a.io/-ttl", false),
        ("a.io/ttl.", false),
        ("a.io/t tl", false),
        ("A.io/ttl", false),
        // The prefix is a DNS subdomain: its labels start and end with a letter or digit.
        ("-a.io/ttl", false),
        ("a-.io/ttl", false),
        ("a..io/ttl", false),
        ("a.io/b/ttl", false),
    ];
    for (key, valid) in table {
        let text = format!("inject:\n- annotations: {{'{key}': '1'}}\n");
        let refused = errors_of(&text)
            .iter()
            .any(|e| e.message.contains("is not a valid annotation key"));
        assert_eq!(refused, !valid, "{key:?}");
    }
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

#[test]
fn a_tab_where_yaml_wants_spaces_is_named_as_the_likely_cause() {
    let table = [
        ("domainFilters: [example.com]\n\tbad: tab\n", 2, true),
        ("domainFilters:\n\t- example.com\n", 2, true),
        ("domainFilters: [example.com]\n@bad: x\n", 2, false),
    ];
    for (text, line, tab) in table {
        let e = one_error(text);
        assert_eq!(e.line, line, "{text:?}: {e}");
        assert!(
            e.message.contains("cannot start any token"),
            "{text:?}: {e}"
        );
        assert_eq!(
            e.message.ends_with(" (a tab? YAML indents with spaces)"),
            tab,
            "{text:?}: {e}"
        );
    }
}

#[test]
fn valid_rules_that_do_not_do_what_they_look_meant_to_carry_warnings_at_their_lines() {
    let policy = r#"{"Statement": []}"#;
    let text = format!("domainFilters:\n  - example.com\n  - \"*.example.org\"\nnamespaces:\n  shop:\n    excludeDomains: [\"bad domain.com\"]\nirsa:\n  trustPolicies:\n    arn:aws:iam::111122223333:role/app: '{policy}'\n");
    let rules = RuleSet::parse("r", &text).unwrap_or_else(|e| panic!("{e:?}"));
    let got: Vec<(usize, &str)> = rules
        .warnings
        .iter()
        .map(|w| (w.line, w.key.as_str()))
        .collect();
    assert_eq!(
        got,
        [
            (3, "domainFilters[1]"),
            (6, "namespaces.shop.excludeDomains[0]"),
            (8, "irsa.trustPolicies"),
        ],
        "{:?}",
        rules.warnings
    );
    assert!(
        rules.warnings[2].message.contains("irsa.issuer"),
        "{:?}",
        rules.warnings[2]
    );
}

#[test]
fn the_issuer_warning_goes_when_any_rule_source_sets_the_issuer() {
    let policies = "irsa:\n  source: iam\n";
    let issuer = "irsa:\n  issuer: https://oidc.eks.eu-west-1.amazonaws.com/id/ABC\n";
    let alone = RuleSet::parse("a", policies).unwrap_or_else(|e| panic!("{e:?}"));
    assert_eq!(alone.warnings.len(), 1, "{:?}", alone.warnings);
    assert_eq!(
        (
            alone.warnings[0].source_name.as_str(),
            alone.warnings[0].key.as_str()
        ),
        ("a", "irsa.source")
    );
    let both = named_sources(&[("a", policies), ("b", issuer)]).unwrap_or_else(|e| panic!("{e:?}"));
    assert!(both.warnings.is_empty(), "{:?}", both.warnings);
    let plain =
        RuleSet::parse("c", "domainFilters: [example.com]\n").unwrap_or_else(|e| panic!("{e:?}"));
    assert!(plain.warnings.is_empty());
}

#[test]
fn a_delegation_the_combined_cluster_filters_cannot_reach_is_warned_about_at_its_line() {
    let team = "namespaces:\n  team-a:\n    domainFilters:\n      - team-a.example.org\n      - team-a.example.com\n";
    let alone = named_sources(&[
        ("team", team),
        ("cluster", "domainFilters: [example.com]\n"),
    ])
    .unwrap_or_else(|e| panic!("{e:?}"));
    assert_eq!(
        warned_at(&alone),
        [("team", 4, "namespaces.team-a.domainFilters[0]")]
    );
    assert!(
        alone.warnings[0].message.contains(
            "every name namespace team-a asks for under it is denied as hostname-outside-filters"
        ),
        "{:?}",
        alone.warnings
    );
    // Another source adding the domain to the cluster's filters settles it.
    let both = named_sources(&[
        ("team", team),
        ("cluster", "domainFilters: [example.com, example.org]\n"),
    ])
    .unwrap_or_else(|e| panic!("{e:?}"));
    assert!(both.warnings.is_empty(), "{:?}", both.warnings);
}

#[test]
fn a_delegation_the_cluster_reaches_only_below_its_domain_is_not_warned_about() {
    // (cluster rules, delegated domain, warned)
    let table = [
        (
            "domainFilters: [api.team-a.example.com]\n",
            "team-a.example.com",
            false,
        ),
        (
            "domainFilters: [.team-a.example.com]\nexcludeDomains: [x.team-a.example.com]\n",
            "team-a.example.com",
            false,
        ),
        (
            "domainFilters: [api.team-a.example.com]\nexcludeDomains: [api.team-a.example.com]\n",
            "team-a.example.com",
            true,
        ),
        (
            "domainFilters: [example.com]\n",
            ".team-a.example.com",
            false,
        ),
        (
            "domainFilters: [example.com]\nexcludeDomains: [team-a.example.com]\n",
            ".team-a.example.com",
            true,
        ),
    ];
    for (cluster, domain, warned) in table {
        let team = format!("namespaces:\n  team-a:\n    domainFilters: [{domain:?}]\n");
        let rules = named_sources(&[("team", &team), ("cluster", cluster)])
            .unwrap_or_else(|e| panic!("{e:?}"));
        let delegation = rules
            .warnings
            .iter()
            .filter(|w| w.key == "namespaces.team-a.domainFilters[0]");
        assert_eq!(
            delegation.count(),
            usize::from(warned),
            "{cluster:?} {domain:?}: {:?}",
            rules.warnings
        );
    }
}

#[test]
fn an_inject_rule_or_a_delegation_in_an_exempt_namespace_is_warned_about_at_its_line() {
    let team = "namespaces:\n  legacy: {domainFilters: [legacy.example.com]}\n  team-a: {}\ninject:\n  - kinds: [Ingress]\n    namespaces: [team-a, legacy]\n    annotations: {a: b}\n";
    let sources = |exempt: &'static str| {
        named_sources(&[("team", team), ("platform", exempt)]).unwrap_or_else(|e| panic!("{e:?}"))
    };
    let rules = sources("exemptNamespaces: [legacy]\n");
    assert_eq!(
        warned_at(&rules),
        [
            ("team", 6, "inject[0].namespaces[1]"),
            ("team", 2, "namespaces.legacy"),
        ]
    );
    let messages: Vec<&str> = rules.warnings.iter().map(|w| w.message.as_str()).collect();
    assert!(messages[0].starts_with("namespace legacy is in exemptNamespaces, where zoneguard neither checks nor mutates anything, so this inject rule never injects there"), "{messages:?}");
    assert!(
        messages[1].contains("so its delegated filters are never used"),
        "{messages:?}"
    );
    // With nothing exempt, nothing to say.
    assert!(sources("{}").warnings.is_empty());
}

#[test]
fn an_inject_rule_limited_to_service_types_it_cannot_reach_or_external_dns_does_not_read_is_warned_about(
) {
    let text = "sources: {serviceTypeFilter: [LoadBalancer]}\ninject:\n  - kinds: [Ingress]\n    serviceTypes: [LoadBalancer]\n    annotations: {a: b}\n  - kinds: [Service]\n    serviceTypes: [LoadBalancer, NodePort]\n    annotations: {a: b}\n";
    let rules = RuleSet::parse("r", text).unwrap_or_else(|e| panic!("{e:?}"));
    let got: Vec<(usize, &str, &str)> = rules
        .warnings
        .iter()
        .map(|w| {
            (
                w.line,
                w.key.as_str(),
                w.message.split(',').next().unwrap_or(""),
            )
        })
        .collect();
    assert_eq!(
        got,
        [
            (4, "inject[0].serviceTypes", "serviceTypes limits a rule on Services only"),
            (
                7,
                "inject[1].serviceTypes[1]",
                "external-dns reads only the Service types of sources.serviceTypeFilter (LoadBalancer)"
            ),
        ]
    );
    // With no serviceTypeFilter external-dns reads every type.
    let every = text.replace("sources: {serviceTypeFilter: [LoadBalancer]}\n", "");
    let rules = RuleSet::parse("r", &every).unwrap_or_else(|e| panic!("{e:?}"));
    assert_eq!(rules.warnings.len(), 1, "{:?}", rules.warnings);
}

/// An error's line, key and the start of its message.
type Placed<'a> = (usize, &'a str, &'a str);

/// Each error's (line, key, start of its message).
fn placed(errors: &[RulesError]) -> Vec<Placed<'_>> {
    errors
        .iter()
        .map(|e| {
            (
                e.line,
                e.key.as_str(),
                e.message.split(';').next().unwrap_or(""),
            )
        })
        .collect()
}

#[test]
fn every_unknown_key_and_misshapen_value_of_a_document_is_told_at_once_each_at_its_line() {
    let text = "domainFilter: [example.com]\nirsa:\n  issuer: oidc.example/id/A\n  trustPolicy: {}\n  unknownRole: [warn]\nnamespaces:\n  team-a:\n    domainFilters: team-a.example.com\n    excludeDomain: [x.example.com]\nenforcement: block\n";
    assert_eq!(
        placed(&errors_of(text)),
        [
            (1, "domainFilter", "unknown key `domainFilter`"),
            (4, "irsa.trustPolicy", "unknown key `trustPolicy`"),
            (
                5,
                "irsa.unknownRole",
                "must be one of deny, warn, allow, not a list"
            ),
            (
                8,
                "namespaces.team-a.domainFilters",
                "must be a list, not the string \"team-a.example.com\""
            ),
            (
                9,
                "namespaces.team-a.excludeDomain",
                "unknown key `excludeDomain`"
            ),
            (10, "enforcement", "\"block\" is not a valid enforcement"),
        ]
    );
}

#[test]
fn the_errors_after_the_first_are_told_in_a_document_with_merge_keys_too() {
    let text = "inject:\n  - <<: {kinds: [Ingress]}\n    annotation: {a: b}\n    bogus: 1\n";
    assert_eq!(
        placed(&errors_of(text)),
        [
            (3, "inject[0].annotation", "unknown key `annotation`"),
            (4, "inject[0].bogus", "unknown key `bogus`"),
        ]
    );
}

#[test]
fn a_bad_list_item_takes_its_whole_list_out_and_the_keys_after_it_are_still_read() {
    let table: [(&str, &[Placed]); 3] = [
        (
            "domainFilters: [{a: 1}, b.com]\nfoo: 1\n",
            &[
                (1, "domainFilters[0]", "must be a string, not a mapping"),
                (2, "foo", "unknown key `foo`"),
            ],
        ),
        (
            // The list's later items go unread with it: 7 would not be told.
            "irsa:\n  accounts: [{a: 1}, 7]\n  unknownRole: block\nenforcement: block\n",
            &[
                (2, "irsa.accounts[0]", "must be a string, not a mapping"),
                (
                    3,
                    "irsa.unknownRole",
                    "\"block\" is not a valid unknownRole",
                ),
                (4, "enforcement", "\"block\" is not a valid enforcement"),
            ],
        ),
        (
            // An item of a list inside a list item: the inner list goes, the outer stays.
            "inject:\n  - kinds: [[Service]]\n    bogus: 1\n",
            &[
                (2, "inject[0].kinds[0]", "must be a string, not a list"),
                (3, "inject[0].bogus", "unknown key `bogus`"),
            ],
        ),
    ];
    for (text, expected) in table {
        assert_eq!(placed(&errors_of(text)), expected, "{text}");
    }
}

#[test]
fn a_scalar_where_a_string_is_wanted_is_no_error_after_the_first_nor_with_merge_keys() {
    // Read from the text, `60` and `111122223333` are strings; the reading again for the
    // errors after the first, and a document with merge keys, read the same.
    let scalars = "irsa:\n  accounts: [111122223333]\ninject:\n  - kinds: [Service]\n    annotations: {external-dns.alpha.kubernetes.io/ttl: 60}\n";
    assert_eq!(
        placed(&errors_of(&format!(
            "bogus: 1\n{scalars}enforcement: block\n"
        ))),
        [
            (1, "bogus", "unknown key `bogus`"),
            (7, "enforcement", "\"block\" is not a valid enforcement"),
        ]
    );
    let plain = RuleSet::parse("r", scalars).unwrap_or_else(|e| panic!("{e:?}"));
    let merged = scalars.replace("  - kinds: [Service]", "  - <<: {kinds: [Service]}");
    let merged = RuleSet::parse("r", &merged).unwrap_or_else(|e| panic!("{e:?}"));
    assert_eq!(merged.inject[0].annotations, plain.inject[0].annotations);
    assert_eq!(merged.irsa.accounts, plain.irsa.accounts);
    assert_eq!(
        plain.irsa.accounts.first().map(String::as_str),
        Some("111122223333")
    );
}

#[test]
fn the_reading_stops_where_taking_the_fault_out_would_move_or_invent_another() {
    let table = [
        // A required key out: "missing field" would blame the text for what was taken out.
        "irsa:\n  chains:\n    - serviceAccount: [a]\n      assumes: arn:aws:iam::111122223333:role/x\n",
        // A YAML syntax error: the text is no document to read again.
        "domainFilters: [a.com\nfoo: 1\n",
    ];
    for text in table {
        let errors = errors_of(text);
        assert_eq!(errors.len(), 1, "{text}: {errors:?}");
    }
}

#[test]
fn a_document_wrong_throughout_is_told_its_first_errors_and_no_more() {
    let text: String = (0..100).map(|i| format!("bogus{i}: 1\n")).collect();
    let errors = errors_of(&text);
    assert_eq!(errors.len(), 1 + further::MAX_FURTHER);
    assert_eq!(errors[0].key, "bogus0");
    assert_eq!(errors[20].key, "bogus20");
    assert_eq!(errors[20].line, 21);
}

#[test]
fn warnings_the_combined_rules_decide_come_kind_by_kind_each_in_the_order_of_the_sources() {
    let doc = |ns: &str| {
        format!("namespaces: {{{ns}: {{domainFilters: [{ns}.example.org]}}}}\nirsa: {{trustPolicies: {{'arn:aws:iam::111122223333:role/{ns}': {{Statement: []}}}}}}\n")
    };
    let (a, b) = (doc("a"), doc("b"));
    let rules = named_sources(&[
        ("a", &a),
        ("b", &b),
        ("cluster", "domainFilters: [example.com]\n"),
    ])
    .unwrap_or_else(|e| panic!("{e:?}"));
    let got: Vec<(&str, &str)> = rules
        .warnings
        .iter()
        .map(|w| (w.source_name.as_str(), w.key.as_str()))
        .collect();
    assert_eq!(
        got,
        [
            ("a", "irsa.trustPolicies"),
            ("b", "irsa.trustPolicies"),
            ("a", "namespaces.a.domainFilters[0]"),
            ("b", "namespaces.b.domainFilters[0]"),
        ]
    );
}

#[test]
fn a_domain_filter_an_exclusion_beside_it_covers_whole_is_warned_about_at_its_line() {
    let team = "namespaces:\n  team-a:\n    domainFilters: [team-a.example.com, team-a.example.org]\n    excludeDomains: [example.org]\n";
    let cluster = |text: &'static str| {
        named_sources(&[("team", team), ("cluster", text)]).unwrap_or_else(|e| panic!("{e:?}"))
    };
    // The cluster's own exclusions, from another source, cover one of its filters.
    let rules = cluster("domainFilters:\n  - example.com\n  - shop.example.net\n  - example.org\nexcludeDomains: [example.net]\n");
    assert_eq!(
        warned_at(&rules),
        [
            ("team", 3, "namespaces.team-a.domainFilters[1]"),
            ("cluster", 3, "domainFilters[1]"),
        ]
    );
    assert!(rules.warnings[1].message.starts_with("\"shop.example.net\" admits no name: excludeDomains holds \"example.net\", which covers every name under it"), "{:?}", rules.warnings);
    assert!(rules.warnings[0].message.starts_with("\"team-a.example.org\" admits no name: namespaces.team-a.excludeDomains holds \"example.org\""), "{:?}", rules.warnings);
    // An exclusion under a filter, or a regex filter (the plain lists are then ignored, which
    // is a warning of its own), leaves nothing to say about what covers the cluster's filters.
    for text in [
        "domainFilters: [example.com, example.org]\nexcludeDomains: [internal.example.com]\n",
        "domainFilters: [example.com, example.org, example.net]\nexcludeDomains: [example.net]\nregexDomainFilter: 'example'\n",
    ] {
        let rules = cluster(text);
        let keys: Vec<&str> = (rules.warnings.iter())
            .filter(|w| !w.message.starts_with("ignored: "))
            .map(|w| w.key.as_str())
            .filter(|k| !k.starts_with("namespaces"))
            .collect();
        assert!(keys.is_empty(), "{text}: {keys:?}");
    }
}

/// A warning that a plain list is ignored: its source, line and key, and the regex it blames.
type Ignored<'a> = (&'a str, usize, &'a str, &'a str);

/// Rule sources `(name, text)`, and the warnings of ignored lists their rule set gives.
type IgnoredCase<'a> = (&'a [(&'a str, &'a str)], &'a [Ignored<'a>]);

/// Where the rule set of `sources` warns that a plain list is ignored, and the regex it blames.
fn ignored_at(sources: &[(&str, &str)]) -> Vec<(String, usize, String, String)> {
    let rules = named_sources(sources).unwrap_or_else(|e| panic!("{e:?}"));
    let warnings = rules.warnings.iter();
    let ignored = warnings.filter_map(|w| {
        let blamed = w.message.strip_prefix("ignored: ")?.split(' ').next()?;
        Some((
            w.source_name.clone(),
            w.line,
            w.key.clone(),
            blamed.to_string(),
        ))
    });
    ignored.collect()
}

#[test]
fn plain_lists_beside_a_regex_of_their_scope_are_warned_ignored_wherever_the_regex_is_set() {
    let owned = |list: &[Ignored]| -> Vec<(String, usize, String, String)> {
        let row = |&(s, l, k, b): &Ignored| (s.into(), l, k.into(), b.into());
        list.iter().map(row).collect()
    };
    let table: [IgnoredCase; 6] = [
        (
            &[("a", "domainFilters: [example.com]\nexcludeDomains: [x.example.com]\nregexDomainFilter: 'example\\.org$'\n")],
            &[
                ("a", 1, "domainFilters", "regexDomainFilter"),
                ("a", 2, "excludeDomains", "regexDomainFilter"),
            ],
        ),
        (
            // An exclusion regex alone ignores them too, and admits every name it misses.
            &[("a", "domainFilters: [example.com]\nregexDomainExclusion: '^internal'\n")],
            &[("a", 1, "domainFilters", "regexDomainExclusion")],
        ),
        (
            // The regex in another source, and both regexes: the include regex is blamed.
            &[
                ("a", "domainFilters: [example.com]\n"),
                ("b", "regexDomainExclusion: '^x'\nregexDomainFilter: 'example\\.org$'\n"),
            ],
            &[("a", 1, "domainFilters", "regexDomainFilter")],
        ),
        (
            // A delegation's own regex, in another source; the cluster's lists are not its.
            &[
                ("a", "domainFilters: [example.com]\nnamespaces:\n  team-a: {domainFilters: [team-a.example.com]}\n"),
                ("b", "namespaces:\n  team-a: {regexDomainExclusion: '^x'}\n"),
            ],
            &[("a", 3, "namespaces.team-a.domainFilters", "namespaces.team-a.regexDomainExclusion")],
        ),
        (
            // An empty pattern is no regex, as for external-dns.
            &[("a", "domainFilters: [example.com]\nregexDomainFilter: ''\nregexDomainExclusion: ''\n")],
            &[],
        ),
        (
            // The cluster's regex does not make a delegation's lists ignored.
            &[("a", "regexDomainFilter: 'example\\.com$'\nnamespaces:\n  team-a: {domainFilters: [team-a.example.com]}\n")],
            &[],
        ),
    ];
    for (sources, expected) in table {
        assert_eq!(ignored_at(sources), owned(expected), "{sources:?}");
    }
}

#[test]
fn the_warning_for_an_exclusion_regex_alone_says_what_it_admits_and_names_the_other_source() {
    let first_warning = |sources: &[(&str, &str)]| {
        let rules = named_sources(sources).unwrap_or_else(|e| panic!("{e:?}"));
        rules.warnings[0].message.clone()
    };
    let message = first_warning(&[
        ("a", "domainFilters: [example.com]\n"),
        ("b", "regexDomainExclusion: '^x'\n"),
    ]);
    assert!(
        message.starts_with("ignored: regexDomainExclusion is set (in b), "),
        "{message}"
    );
    assert!(
        message
            .contains("with no regexDomainFilter every name that regex does not match is admitted"),
        "{message}"
    );
    assert!(
        message.ends_with("or use excludeDomains in place of regexDomainExclusion"),
        "{message}"
    );
    // Excluded domains would go into the exclusion regex.
    let message = first_warning(&[(
        "a",
        "excludeDomains: [x.example.com]\nregexDomainFilter: 'a'\n",
    )]);
    assert!(
        message.starts_with("ignored: regexDomainFilter is set, "),
        "{message}"
    );
    assert!(
        message.ends_with(": write these domains into regexDomainExclusion, or remove the regexes"),
        "{message}"
    );
}
