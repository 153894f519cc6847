//! Reading one rules document: its shapes, its YAML hazards (bombs, nesting, repeated keys, a second document) and merge keys.

use super::*;

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
    let rules = RuleSet::parse("r", include_str!("../../../../../examples/rules.yaml"))
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
fn a_byte_order_mark_before_the_document_is_not_part_of_it() {
    let rules = RuleSet::parse("r", "\u{feff}domainFilters: [example.com]\n").expect("rules");
    assert!(rules.cluster.matches_normalized("a.example.com"));
    let e = one_error("\u{feff}domainFilters: [example.com]\nbogus: 1\n");
    assert_eq!((e.line, e.key.as_str()), (2, "bogus"), "{e:?}");
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
    // Percent-encoded, as IAM returns it: the same text, the same refusal.
    let encoded: String = policy.bytes().map(|b| format!("%{b:02X}")).collect();
    let text =
        format!("irsa:\n  trustPolicies:\n    arn:aws:iam::111122223333:role/x: '{encoded}'\n");
    let e = one_error(&text);
    assert!(
        e.message
            .contains("repeats the key `Effect` (at Statement[0].Effect"),
        "{e:?}"
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
fn a_null_item_in_a_list_of_strings_is_refused_not_read_as_the_text_null() {
    let table = [
        ("domainFilters: [example.com, null]\n", 1, "domainFilters"),
        ("domainFilters:\n  - example.com\n  -\n", 2, "domainFilters"),
        ("exemptNamespaces: [~]\n", 1, "exemptNamespaces"),
        (
            "namespaces:\n  team-a: {domainFilters: [~]}\n",
            2,
            "namespaces.team-a.domainFilters",
        ),
    ];
    for (text, line, key) in table {
        let e = one_error(text);
        assert_eq!((e.line, e.key.as_str()), (line, key), "{text:?}: {e:?}");
        assert!(e.message.contains("must be a string, not null"), "{e:?}");
    }
    let rules = RuleSet::parse("r", "domainFilters: ~\nexemptNamespaces:\n").expect("rules");
    assert!(rules.cluster.matches_normalized("anything.example.org"));
}
