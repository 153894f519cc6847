//! Warnings: valid rules that do not do what they look meant to, each at its source, line and key.

use super::*;

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
fn a_delegated_domain_a_regex_of_its_namespace_makes_ignored_is_not_warned_out_of_reach() {
    let team_b = "  team-b:\n    domainFilters: [team-b.example.org]\n";
    let team = format!("namespaces:\n  team-a:\n    domainFilters: [team-a.example.org]\n{team_b}");
    let own = format!("namespaces:\n  team-a:\n    domainFilters: [team-a.example.org]\n    regexDomainFilter: 'example[.]com$'\n{team_b}");
    let include = "namespaces:\n  team-a: {regexDomainFilter: 'example[.]com$'}\n";
    let exclusion = "namespaces:\n  team-a: {regexDomainExclusion: '^x'}\n";
    let cluster = ("cluster", "domainFilters: [example.com]\n");
    // team-a's regex, in its own source or in another, leaves its plain list unused: the only
    // warning there says so. team-b's list is used, and out of the cluster's reach.
    let cases = [
        (vec![("team", own.as_str()), cluster], 6),
        (
            vec![("team", team.as_str()), cluster, ("regex", include)],
            5,
        ),
        (
            vec![("team", team.as_str()), cluster, ("regex", exclusion)],
            5,
        ),
    ];
    for (sources, team_b_line) in cases {
        let rules = named_sources(&sources).unwrap_or_else(|e| panic!("{e:?}"));
        assert_eq!(
            warned_at(&rules),
            [
                ("team", 3, "namespaces.team-a.domainFilters"),
                ("team", team_b_line, "namespaces.team-b.domainFilters[0]"),
            ],
            "{sources:?}: {:?}",
            rules.warnings
        );
        assert!(rules.warnings[0].message.starts_with("ignored: "));
        assert!(rules.warnings[1]
            .message
            .contains("namespace team-b asks for"));
    }
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

#[test]
fn a_regex_filter_asking_for_what_no_name_holds_is_warned_about_at_its_line() {
    let upper = "regexDomainFilter: '^.*[.]Example[.]com$'\nnamespaces:\n  team-a:\n    regexDomainFilter: '(?i)^.*[.]Team-A[.]example[.]com$'\n    regexDomainExclusion: '^Internal[.]'\n";
    // YAML keeps single quotes' backslashes as written: `\\.` is a backslash, then any character.
    let foreign = "regexDomainFilter: '^.*\\\\.example\\\\.com$'\nnamespaces:\n  team-a:\n    regexDomainFilter: \"^.*\\\\.team-a\\\\.example\\\\.com$\"\n    regexDomainExclusion: '^internal\\. '\n";
    let table = [
        (upper, [
            "its part \".Example.com\" has upper-case letters, but external-dns lower-cases a name before a regex filter sees it, so that part never matches: write it in lower case, or start the pattern with (?i)",
            "its part \"Internal.\" has upper-case letters, but external-dns lower-cases a name before a regex filter sees it, so that part never excludes: write it in lower case, or start the pattern with (?i)",
        ]),
        (foreign, [
            r#"its part `\` holds a backslash, which no DNS name holds, so that part never matches: YAML keeps a backslash as written in single quotes and plain scalars, so \\. there reaches the regex as a backslash and then any character; write \. for a dot ("\\." in double quotes)"#,
            "its part `internal. ` holds ' ', which no DNS name holds (names hold letters, digits, '-', '_', '.' and '*'), so that part never excludes: remove it from the pattern",
        ]),
    ];
    for (text, messages) in table {
        let rules = RuleSet::parse("r", text).unwrap_or_else(|e| panic!("{e:?}"));
        let keys = [
            "regexDomainFilter",
            "namespaces.team-a.regexDomainExclusion",
        ];
        let want: Vec<_> = [1, 5].into_iter().zip(keys).zip(messages).collect();
        let got = rules
            .warnings
            .iter()
            .map(|w| ((w.line, w.key.as_str()), w.message.as_str()));
        assert_eq!(got.collect::<Vec<_>>(), want, "{text}");
        // Borne out: neither cluster regex matches a name it was meant for.
        assert!(!rules.cluster.matches("www.example.com"), "{text}");
    }
    // A part under (?i), and a backslash YAML's double quotes took as an escape, are right.
    let rules = RuleSet::parse("r", foreign).unwrap_or_else(|e| panic!("{e:?}"));
    assert!(rules.namespaces["team-a"].matches("www.team-a.example.com"));
    let rules = RuleSet::parse("r", upper).unwrap_or_else(|e| panic!("{e:?}"));
    assert!(rules.namespaces["team-a"].matches("www.team-a.example.com"));
}

#[test]
fn a_filter_list_of_only_empty_items_is_warned_to_filter_nothing_at_its_line() {
    let text = "domainFilters: ['', ' . ']\nexcludeDomains: ['', internal.example.com]\nnamespaces:\n  team-a:\n    domainFilters: ['']\n    excludeDomains: ['...']\n";
    let rules = RuleSet::parse("r", text).unwrap_or_else(|e| panic!("{e:?}"));
    // `...` is not empty to external-dns (prepared twice, it is `.`): it matches nothing.
    assert_eq!(
        warned_at(&rules),
        [
            ("r", 6, "namespaces.team-a.excludeDomains[0]"),
            ("r", 1, "domainFilters"),
            ("r", 5, "namespaces.team-a.domainFilters"),
        ],
        "{:?}",
        rules.warnings
    );
    let said = |i: usize, what: &str| {
        let message = &rules.warnings[i].message;
        assert!(message.contains(what), "{message}");
    };
    said(0, "excludes no valid DNS name");
    said(1, "holds only empty items, which external-dns drops, so the list does nothing: every name is admitted; write the domains, or remove the list");
    said(
        2,
        "namespace team-a may use every name the cluster's filters admit",
    );
    // Borne out: the delegation limits nothing, and the cluster admits any name.
    assert!(rules.cluster.matches("www.example.org"));
}

#[test]
fn a_list_of_only_empty_items_is_warned_only_when_no_other_source_lists_domains_there() {
    let rules = named_sources(&[
        ("a", "domainFilters: ['']\nnamespaces:\n  team-a:\n    domainFilters: ['']\n"),
        ("b", "domainFilters: [example.com]\nnamespaces:\n  team-a:\n    excludeDomains: [x.example.com]\n"),
        ("c", "namespaces:\n  team-a:\n    domainFilters: [' . ']\n"),
    ])
    .unwrap_or_else(|e| panic!("{e:?}"));
    // b lists the cluster's domains, so a's empty item there is harmless; team-a's list is
    // empty in every source that writes it (b writes only exclusions there).
    assert_eq!(
        warned_at(&rules),
        [
            ("a", 4, "namespaces.team-a.domainFilters"),
            ("c", 3, "namespaces.team-a.domainFilters"),
        ],
        "{:?}",
        rules.warnings
    );
    for warning in &rules.warnings {
        assert!(warning.message.contains("holds only empty items, which external-dns drops, and no other rule source lists domains here, so the list does nothing: namespace team-a may use every name the cluster's filters admit"), "{}", warning.message);
    }
    // Borne out: the cluster admits only example.com's names; team-a may use all of them.
    assert!(rules.cluster.matches("www.example.com"));
    assert!(!rules.cluster.matches("www.example.org"));
    let team_a = &rules.namespaces["team-a"];
    assert!(team_a.matches("zzz.example.com") && !team_a.matches("x.example.com"));
}
