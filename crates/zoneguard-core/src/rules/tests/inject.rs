//! Inject rules: what they may set, and the checks that refuse a value no object could be admitted with.

use super::*;

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
fn each_inject_rule_remembers_its_source_and_its_index_there() {
    let a = (
        "ConfigMap zoneguard/zoneguard-rules-base",
        "inject:\n- annotations: {a.io/x: '1'}\n",
    );
    let b = (
        "ConfigMap zoneguard/zoneguard-rules-platform",
        "inject:\n- annotations: {b.io/x: '1'}\n- annotations: {b.io/y: '1'}\n",
    );
    let rules = named_sources(&[a, b]).unwrap_or_else(|e| panic!("{e:?}"));
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
    let alone = named_sources(&[b]).unwrap_or_else(|e| panic!("{e:?}"));
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
    let prefix = (
        "ConfigMap zoneguard/prefix",
        "annotationPrefix: dns.example.io/\n",
    );
    let injects = ("ConfigMap zoneguard/inject", "inject:\n  - annotations: {a.io/x: '1'}\n  - kinds: [Service]\n    annotations:\n      dns.example.io/ttl: '0'\n");
    let before = (
        "ConfigMap zoneguard/before",
        "inject:\n  - annotations: {b.io/x: '1'}\n",
    );
    let errors = named_sources(&[before, prefix, injects])
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
