//! How a document's errors are told: each at its key and line, in words that name what to write, and every one after the first.

use super::*;

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
    include_str!("../document.rs")
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
    use crate::rules::document::*;
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
fn an_error_shows_its_line_only_when_the_line_is_known() {
    let error = |line| RulesError {
        line,
        ..RulesError::of_document("rules.yaml", "a message")
    };
    assert_eq!(error(3).to_string(), "rules.yaml:3: (document): a message");
    assert_eq!(error(0).to_string(), "rules.yaml: (document): a message");
}

#[test]
fn once_the_rest_reads_its_compile_errors_are_told_with_the_reading_errors() {
    let text = "namespaces:\n  team-a: [5]\nregexDomainFilter: '(['\ninject:\n  - kinds: [Bogus]\n    annotations: {a: b}\n";
    let errors = errors_of(text);
    let found: Vec<(usize, &str)> = errors.iter().map(|e| (e.line, e.key.as_str())).collect();
    assert_eq!(
        found,
        [
            (2, "namespaces.team-a"),
            (3, "regexDomainFilter"),
            (5, "inject[0].kinds[0]"),
        ],
        "{errors:#?}"
    );
    assert!(errors[1]
        .message
        .contains("is not a valid regular expression"));
    assert!(errors[2]
        .message
        .contains("is not a kind zoneguard injects into"));
}

#[test]
fn a_compile_error_a_key_taken_out_may_cause_is_not_told_until_that_key_reads() {
    let table: &[(&str, &str)] = &[
        (
            // Whether an injected value is a TTL depends on the prefix.
            "annotationPrefix: [x]\ninject:\n  - kinds: [Bogus]\n    annotations: {a: b}\n",
            "annotationPrefix",
        ),
        (
            // The filters are compiled together.
            "domainFilters: {a: 1}\nregexDomainFilter: '(['\n",
            "domainFilters",
        ),
        (
            "irsa:\n  issuer: [a]\n  trustPolicies:\n    notanarn: {}\n",
            "irsa.issuer",
        ),
    ];
    for (text, only) in table {
        let errors = errors_of(text);
        let keys: Vec<&str> = errors.iter().map(|e| e.key.as_str()).collect();
        assert_eq!(keys, [*only], "{text}: {errors:#?}");
    }
}
