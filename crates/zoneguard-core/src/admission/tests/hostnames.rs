//! Validation of the names an object asks for: each field, its reasons, and the fixes told.

use super::*;

#[test]
fn ingress_hosts_are_judged_with_their_field_paths_and_reasons() {
    let obj = ingress(
        &[
            "ok.example.com",
            "x.other.org",
            "db.internal.example.com",
            "a_b.example.com",
        ],
        json!({}),
    );
    let d = validate_ingress(RULES, "default", &obj);
    assert!(!d.allowed);
    assert_eq!(
        reasons(&d),
        [
            (
                "spec.rules[1].host".to_string(),
                Reason::HostnameOutsideFilters
            ),
            (
                "spec.rules[2].host".to_string(),
                Reason::HostnameOutsideFilters
            ),
            ("spec.rules[3].host".to_string(), Reason::HostnameInvalid),
        ]
    );
}

#[test]
fn the_denial_message_reads_as_the_issue_shows_it() {
    let obj = ingress(&["shop.example.com"], json!({}));
    let d = validate_ingress(RULES, "team-a", &obj);
    assert_eq!(
        d.summary("Ingress", "team-a", "web", 5),
        "Ingress team-a/web: spec.rules[0].host \"shop.example.com\" is outside this namespace's domains (team-a.example.com); ask the platform team to delegate it or use a name under team-a.example.com"
    );
}

#[test]
fn a_name_an_exclusion_hits_is_told_the_exclusion_and_not_to_move_under_the_include() {
    let regex = r#"
regexDomainFilter: '^[a-z0-9-]+\.(prod|stage)\.example\.com$'
regexDomainExclusion: '^admin\.'
namespaces:
  team-r: { regexDomainFilter: '\.prod\.example\.com$', regexDomainExclusion: '^x' }
"#;
    let exclude_only = "excludeDomains: [internal.example.com]\n";
    let delegated = "namespaces:\n  team-a: { domainFilters: [team-a.example.com], excludeDomains: [db.team-a.example.com] }\n";
    let table = [
        (RULES, "default", "db.internal.example.com", Reason::HostnameOutsideFilters,
         "spec.rules[0].host \"db.internal.example.com\" is in internal.example.com, which this cluster's external-dns excludes; external-dns would skip it and no DNS record would appear: use a name under example.com outside internal.example.com, or ask the platform team to remove internal.example.com from external-dns's excluded domains (excludeDomains)"),
        (exclude_only, "default", "db.internal.example.com", Reason::HostnameOutsideFilters,
         "spec.rules[0].host \"db.internal.example.com\" is in internal.example.com, which this cluster's external-dns excludes; external-dns would skip it and no DNS record would appear: use a name outside internal.example.com, or ask the platform team to remove internal.example.com from external-dns's excluded domains (excludeDomains)"),
        (RULES, "default", "x.other.org", Reason::HostnameOutsideFilters,
         "spec.rules[0].host \"x.other.org\" is outside the domains this cluster's external-dns manages (example.com; excluding internal.example.com); external-dns would skip it and no DNS record would appear: use a name under example.com or ask the platform team to add the domain to external-dns's domain filters"),
        (regex, "default", "admin.prod.example.com", Reason::HostnameOutsideFilters,
         "spec.rules[0].host \"admin.prod.example.com\" matches /^admin\\./, the regex of names this cluster's external-dns excludes (regexDomainExclusion); external-dns would skip it and no DNS record would appear: use a name that /^admin\\./ does not match, or ask the platform team to change external-dns's regexDomainExclusion"),
        // Excluded and not included: avoiding the exclusion would not be enough.
        (regex, "default", "admin.dev.example.com", Reason::HostnameOutsideFilters,
         "spec.rules[0].host \"admin.dev.example.com\" is outside the domains this cluster's external-dns manages (regex /^[a-z0-9-]+\\.(prod|stage)\\.example\\.com$/; excluding regex /^admin\\./); external-dns would skip it and no DNS record would appear: use a name the filters allow or ask the platform team to change external-dns's domain filters"),
        (delegated, "team-a", "db.team-a.example.com", Reason::HostnameNotDelegated,
         "spec.rules[0].host \"db.team-a.example.com\" is in db.team-a.example.com, which this namespace's domains exclude; use a name under team-a.example.com outside db.team-a.example.com, or ask the platform team to delegate it"),
        (regex, "team-r", "x1.prod.example.com", Reason::HostnameNotDelegated,
         "spec.rules[0].host \"x1.prod.example.com\" matches /^x/, the regex of names this namespace's domains exclude; use a name that /^x/ does not match, or ask the platform team to delegate it"),
    ];
    for (rules_text, ns, host, reason, message) in table {
        let d = validate_ingress(rules_text, ns, &ingress(&[host], json!({})));
        assert_eq!(d.violations.len(), 1, "{host}: {:?}", d.violations);
        assert_eq!(d.violations[0].reason, reason, "{host}");
        assert_eq!(d.violations[0].message(), message, "{host}");
    }
}

#[test]
fn names_refused_for_the_same_cause_share_one_fault_text_and_an_exclusion_gets_its_own() {
    let delegated = "namespaces:\n  team-a: { domainFilters: [team-a.example.com] }\n";
    let table = [
        (RULES, "default", ["a.other.org", "b.other.net"], true),
        (
            delegated,
            "team-a",
            ["a.example.com", "b.example.com"],
            true,
        ),
        // Each exclusion is named in its own fault.
        (
            RULES,
            "default",
            ["a.internal.example.com", "b.internal.example.com"],
            false,
        ),
    ];
    for (rules_text, ns, hosts, shared) in table {
        let d = validate_ingress(rules_text, ns, &ingress(&hosts, json!({})));
        let faults: Vec<&str> = d.violations.iter().filter_map(|v| v.fault()).collect();
        assert_eq!(faults.len(), 2, "{hosts:?}: {:?}", d.violations);
        assert_eq!(faults[0], faults[1], "{hosts:?}");
        assert_eq!(std::ptr::eq(faults[0], faults[1]), shared, "{hosts:?}");
        assert!(d.violations[1].message().starts_with("spec.rules[1].host"));
    }
}

#[test]
fn names_refused_for_different_causes_in_one_object_keep_their_own_faults() {
    let regex = r#"
regexDomainFilter: '\.example\.com$'
regexDomainExclusion: '^admin\.'
namespaces:
  team-r: { regexDomainFilter: '\.prod\.example\.com$', regexDomainExclusion: '^x' }
"#;
    // Each pair twice, so that a shared fault is taken again after the other cause's.
    let table = [
        (
            "default",
            ["admin.example.com", "a.other.org"],
            "matches /^admin\\./",
            "is outside the domains",
        ),
        (
            "team-r",
            ["x1.prod.example.com", "a.dev.example.com"],
            "matches /^x/",
            "is outside this namespace's domains",
        ),
    ];
    for (ns, [first, second], first_fault, second_fault) in table {
        let hosts = [first, second, first, second];
        let d = validate_ingress(regex, ns, &ingress(&hosts, json!({})));
        let faults: Vec<&str> = d.violations.iter().filter_map(|v| v.fault()).collect();
        assert_eq!(faults.len(), 4, "{hosts:?}: {:?}", d.violations);
        for (i, fault) in faults.iter().enumerate() {
            let want = [first_fault, second_fault][i % 2];
            assert!(fault.starts_with(want), "{hosts:?}[{i}]: {fault}");
        }
    }
}

#[test]
fn many_violations_are_bounded_with_a_count_of_the_rest() {
    let hosts: Vec<String> = (0..8).map(|i| format!("h{i}.other.org")).collect();
    let hosts: Vec<&str> = hosts.iter().map(String::as_str).collect();
    let d = validate_ingress(RULES, "default", &ingress(&hosts, json!({})));
    let text = d.summary("Ingress", "default", "web", 3);
    assert_eq!(text.lines().count(), 4);
    assert!(text.ends_with("\nand 5 more"), "{text}");
    let first = "Ingress default/web: spec.rules[0].host \"h0.other.org\"";
    assert!(text.starts_with(first), "{text}");
    // At least one line, whatever the limit; a cluster-scoped object is named without a slash.
    let text = d.summary("DNSEndpoint", "", "web", 0);
    assert!(
        text.starts_with("DNSEndpoint web: spec.rules[0].host"),
        "{text}"
    );
    assert!(text.ends_with("\nand 7 more"), "{text}");
}

#[test]
fn an_ingress_without_hosts_is_admitted() {
    let d = validate_ingress(
        RULES,
        "default",
        &json!({"apiVersion": "networking.k8s.io/v1", "kind": "Ingress", "metadata": {"name": "alb"}, "spec": {"defaultBackend": {}}}),
    );
    assert!(d.allowed && d.violations.is_empty());
}

#[test]
fn tls_hosts_and_the_annotation_count_unless_switched_off() {
    let obj = json!({"metadata": {"name": "w", "annotations": {"external-dns.kubernetes.io/hostname": "a.other.org, b.example.com"}},
        "spec": {"tls": [{"hosts": ["ok.example.com", "t.other.org"]}]}});
    let d = validate_ingress(RULES, "default", &obj);
    let fields: Vec<String> = d.violations.iter().map(|v| v.field.clone()).collect();
    assert_eq!(
        fields,
        [
            r#"metadata.annotations["external-dns.kubernetes.io/hostname"][0]"#,
            "spec.tls[0].hosts[1]"
        ]
    );
    let off = format!(
        "{RULES}\nsources: {{ignoreIngressTLSSpec: true, ignoreHostnameAnnotation: true}}\n"
    );
    assert!(validate_ingress(&off, "default", &obj).allowed);
}

#[test]
fn the_annotation_prefix_setting_limits_what_counts_and_warns_about_the_other() {
    let obj = ingress(
        &[],
        json!({"external-dns.kubernetes.io/hostname": "a.other.org"}),
    );
    let text = format!("{RULES}\nannotationPrefix: external-dns.alpha.kubernetes.io/\n");
    let d = validate_ingress(&text, "default", &obj);
    assert!(d.allowed, "{:?}", d.violations);
    assert!(
        d.warnings
            .iter()
            .any(|w| w.message().contains("is ignored")),
        "{:?}",
        d.warnings
    );
}

#[test]
fn ingress_hostname_source_decides_which_names_count() {
    let base = |source: &str| {
        ingress(
            &["x.other.org"],
            json!({"external-dns.alpha.kubernetes.io/ingress-hostname-source": source, "external-dns.alpha.kubernetes.io/hostname": "y.other.org"}),
        )
    };
    let fields = |d: &Decision| {
        d.violations
            .iter()
            .map(|v| v.field.clone())
            .collect::<Vec<_>>()
    };
    let alpha = format!("{RULES}\nannotationPrefix: external-dns.alpha.kubernetes.io/\n");
    let both = validate_ingress(RULES, "default", &base("annotation-only"));
    assert_eq!(
        both.violations.len(),
        2,
        "with no prefix set, the other external-dns version still reads spec hosts"
    );
    let only_ann = validate_ingress(&alpha, "default", &base("Annotation-Only"));
    assert_eq!(
        fields(&only_ann),
        [r#"metadata.annotations["external-dns.alpha.kubernetes.io/hostname"][0]"#]
    );
    let only_hosts = validate_ingress(&alpha, "default", &base("defined-hosts-only"));
    assert_eq!(fields(&only_hosts), ["spec.rules[0].host"]);
    let bogus = validate_ingress(&alpha, "default", &base("annotations"));
    assert_eq!(
        bogus
            .violations
            .iter()
            .map(|v| v.reason)
            .collect::<Vec<_>>(),
        [Reason::AnnotationInvalid]
    );
    assert!(bogus.violations[0]
        .message()
        .contains("publish no DNS record"));
}

#[test]
fn ttl_values_external_dns_would_ignore_are_denied() {
    for (ttl, ok) in [
        ("60", true),
        ("1h", true),
        ("0", false),
        ("500ms", false),
        ("1d", false),
    ] {
        let d = validate_ingress(
            RULES,
            "default",
            &ingress(&[], json!({"external-dns.alpha.kubernetes.io/ttl": ttl})),
        );
        assert_eq!(d.allowed, ok, "{ttl}: {:?}", d.violations);
    }
}

#[test]
fn target_annotations_external_dns_cannot_publish_are_denied_where_it_reads_them() {
    const TARGET: &str = "external-dns.alpha.kubernetes.io/target";
    let lb = json!({"metadata": {"name": "s", "annotations": {TARGET: "1.2.3.4,lb.example.com",
        "external-dns.alpha.kubernetes.io/hostname": "s.example.com"}}, "spec": {"type": "LoadBalancer"}});
    let gateway = json!({"metadata": {"name": "g", "annotations": {TARGET: "https://lb.example.com"}},
        "spec": {"listeners": [{"hostname": "*.example.com"}]}});
    let gateway_loop = json!({"metadata": {"name": "g", "annotations": {TARGET: "a.example.com"}},
        "spec": {"listeners": [{"hostname": "a.example.com"}]}});
    let route = json!({"metadata": {"name": "r", "annotations": {TARGET: "https://lb.example.com"}},
        "spec": {"hostnames": ["a.example.com"]}});
    let foreign = ingress(
        &["a.example.com"],
        json!({TARGET: "a,,b",
        "external-dns.alpha.kubernetes.io/controller": "someone-else"}),
    );
    let table = [
        ("", "Service", lb, Some("mixes an IP address (1.2.3.4)")),
        (
            "gateway.networking.k8s.io",
            "Gateway",
            gateway,
            Some("write the host alone: lb.example.com"),
        ),
        // A Gateway's target serves its routes' hostnames, not its listeners' patterns.
        ("gateway.networking.k8s.io", "Gateway", gateway_loop, None),
        // external-dns reads a route's records' targets from its Gateway.
        ("gateway.networking.k8s.io", "HTTPRoute", route, None),
        // An object handed to another controller is not read at all.
        ("networking.k8s.io", "Ingress", foreign, None),
        (
            "networking.k8s.io",
            "Ingress",
            ingress(&["App.example.com"], json!({TARGET: "app.example.com."})),
            Some("is a hostname of this object: the CNAME record of \"App.example.com\""),
        ),
        (
            "networking.k8s.io",
            "Ingress",
            ingress(&["a.example.com"], json!({TARGET: "lb.example.com"})),
            None,
        ),
        (
            "networking.k8s.io",
            "Ingress",
            ingress(&["a.example.com"], json!({TARGET: ""})),
            None,
        ),
    ];
    for (group, kind, object, want) in table {
        let d = validate_kind(RULES, group, kind, "default", &object);
        let field = format!("metadata.annotations[{TARGET:?}]");
        match want {
            Some(text) => {
                assert_eq!(
                    reasons(&d),
                    [(field, Reason::AnnotationInvalid)],
                    "{kind} {object}"
                );
                assert!(
                    d.violations[0].message().contains(text),
                    "{}",
                    d.violations[0].message()
                );
            }
            None => assert!(d.allowed, "{kind} {object}: {:?}", d.violations),
        }
    }
}

#[test]
fn interior_spaces_in_an_annotation_item_are_denied_with_what_external_dns_would_publish() {
    let d = validate_ingress(
        RULES,
        "default",
        &ingress(
            &[],
            json!({"external-dns.alpha.kubernetes.io/hostname": "a b.example.com"}),
        ),
    );
    assert_eq!(d.violations.len(), 1);
    assert!(
        d.violations[0].message().contains("\"ab.example.com\""),
        "{}",
        d.violations[0].message()
    );
}

#[test]
fn a_clusterip_service_hostname_is_checked_and_warned_about() {
    let svc = json!({"metadata": {"name": "s", "annotations": {"external-dns.alpha.kubernetes.io/hostname": "s.other.org"}}, "spec": {"type": "ClusterIP"}});
    let d = validate(
        &rules(RULES),
        &req(
            Operation::Create,
            "",
            "Service",
            "default",
            &tree(&svc),
            None,
        ),
    );
    assert!(!d.allowed);
    assert!(d
        .warnings
        .iter()
        .any(|w| w.message().contains("publish-internal-services")));
}

#[test]
fn gateway_routes_listeners_and_dnsendpoints_are_checked() {
    let cases = [
        (
            "gateway.networking.k8s.io",
            "HTTPRoute",
            json!({"metadata": {"name": "r"}, "spec": {"hostnames": ["a.other.org"]}}),
            "spec.hostnames[0]",
        ),
        (
            "gateway.networking.k8s.io",
            "Gateway",
            json!({"metadata": {"name": "g"}, "spec": {"listeners": [{"hostname": "*.other.org"}]}}),
            "spec.listeners[0].hostname",
        ),
        (
            "gateway.networking.k8s.io",
            "ListenerSet",
            json!({"metadata": {"name": "ls"}, "spec": {"parentRef": {"name": "g"},
                "listeners": [{"name": "l", "hostname": "login.other.org", "port": 443}]}}),
            "spec.listeners[0].hostname",
        ),
        (
            "externaldns.k8s.io",
            "DNSEndpoint",
            json!({"metadata": {"name": "e"}, "spec": {"endpoints": [{"dnsName": "a.other.org"}]}}),
            "spec.endpoints[0].dnsName",
        ),
        (
            "gateway.networking.k8s.io",
            "TCPRoute",
            json!({"metadata": {"name": "t", "annotations": {"external-dns.alpha.kubernetes.io/hostname": "a.other.org"}}}),
            r#"metadata.annotations["external-dns.alpha.kubernetes.io/hostname"][0]"#,
        ),
    ];
    for (group, kind, obj, field) in cases {
        let d = validate(
            &rules(RULES),
            &req(Operation::Create, group, kind, "default", &tree(&obj), None),
        );
        assert_eq!(
            reasons(&d),
            [(field.to_string(), Reason::HostnameOutsideFilters)],
            "{kind}"
        );
    }
}

#[test]
fn a_dnsendpoint_may_name_underscore_records_that_an_ingress_may_not() {
    let names = [
        "_acme-challenge.example.com",
        "_sip._tcp.example.com",
        "_x.other.org",
        "a!.example.com",
    ];
    let endpoints: Vec<_> = names.iter().map(|n| json!({"dnsName": n})).collect();
    let obj = json!({"metadata": {"name": "e"}, "spec": {"endpoints": endpoints}});
    let object = tree(&obj);
    let group = "externaldns.k8s.io";
    let review = req(
        Operation::Create,
        group,
        "DNSEndpoint",
        "default",
        &object,
        None,
    );
    let d = validate(&rules(RULES), &review);
    let field = |i| format!("spec.endpoints[{i}].dnsName");
    assert_eq!(
        reasons(&d),
        [
            (field(2), Reason::HostnameOutsideFilters),
            (field(3), Reason::HostnameInvalid),
        ]
    );
    let d = validate_ingress(RULES, "default", &ingress(&names[..2], json!({})));
    let invalid = (0..2).map(|i| (format!("spec.rules[{i}].host"), Reason::HostnameInvalid));
    assert_eq!(reasons(&d), invalid.collect::<Vec<_>>());
}

#[test]
fn a_name_in_a_rule_and_in_tls_is_judged_in_both_fields() {
    let mut obj = ingress(&["ok.example.com", "x.other.org"], json!({}));
    obj["spec"]["tls"] = json!([{"hosts": ["ok.example.com", "x.other.org"]}]);
    let d = validate_ingress(RULES, "default", &obj);
    assert_eq!(
        reasons(&d),
        vec![
            (
                "spec.rules[1].host".to_string(),
                Reason::HostnameOutsideFilters
            ),
            (
                "spec.tls[0].hosts[1]".to_string(),
                Reason::HostnameOutsideFilters
            ),
        ]
    );
}

#[test]
fn a_clusterip_service_with_a_target_annotation_is_published_without_a_warning() {
    let svc = json!({"metadata": {"name": "s", "annotations": {
        "external-dns.alpha.kubernetes.io/hostname": "s.example.com",
        "external-dns.alpha.kubernetes.io/target": "198.51.100.1"}}, "spec": {"type": "ClusterIP"}});
    let d = validate_kind(RULES, "", "Service", "default", &svc);
    assert!(d.allowed && d.warnings.is_empty(), "{:?}", d.warnings);
    // An empty target is no target to external-dns.
    let mut empty = svc.clone();
    empty["metadata"]["annotations"]["external-dns.alpha.kubernetes.io/target"] = json!("");
    let d = validate_kind(RULES, "", "Service", "default", &empty);
    assert!(
        d.warnings
            .iter()
            .any(|w| w.message().contains("publish-internal-services")),
        "{:?}",
        d.warnings
    );
}

#[test]
fn a_ttl_on_a_gateway_is_not_judged_since_external_dns_reads_it_from_routes_only() {
    let ttl = json!({"external-dns.alpha.kubernetes.io/ttl": "0"});
    let gateway = json!({"metadata": {"name": "g", "annotations": ttl}, "spec": {"listeners": [{"hostname": "*.example.com"}]}});
    let d = validate_kind(
        RULES,
        "gateway.networking.k8s.io",
        "Gateway",
        "default",
        &gateway,
    );
    assert!(d.allowed, "{:?}", d.violations);
    let route = json!({"metadata": {"name": "r", "annotations": ttl}, "spec": {"hostnames": ["a.example.com"]}});
    let d = validate_kind(
        RULES,
        "gateway.networking.k8s.io",
        "HTTPRoute",
        "default",
        &route,
    );
    assert_eq!(d.violations[0].reason, Reason::AnnotationInvalid);
}

#[test]
fn route_names_external_dns_s_gateway_source_drops_are_invalid_and_ingress_names_are_not() {
    // Open filters: only the Gateway source's own rule (gwHost) refuses these names.
    let open = "";
    let table = [
        ("bücher.example.com", Some("\"xn--bcher-kva.example.com\"")),
        ("192.0.2.10", Some("IP address")),
        ("*", Some("leading \"*.\"")),
        ("xn--bcher-kva.example.com", None),
        ("*.Example.com.", None),
        ("01.2.3.4", None), // not an IP address to Go's netip either
    ];
    for (name, needle) in table {
        let annotation = json!({"external-dns.alpha.kubernetes.io/hostname": name});
        for route in [
            json!({"metadata": {"name": "r", "annotations": annotation}}),
            json!({"metadata": {"name": "r"}, "spec": {"hostnames": [name]}}),
        ] {
            let d = validate_kind(
                open,
                "gateway.networking.k8s.io",
                "HTTPRoute",
                "default",
                &route,
            );
            match needle {
                Some(needle) => {
                    assert_eq!(d.violations.len(), 1, "{name}");
                    let v = &d.violations[0];
                    assert_eq!(
                        (v.reason, v.value.as_str()),
                        (Reason::HostnameInvalid, name)
                    );
                    assert!(
                        v.message().contains("Gateway API source drops it")
                            && v.message().contains(needle),
                        "{}",
                        v.message()
                    );
                }
                None => assert!(d.allowed, "{name}: {:?}", d.violations),
            }
        }
    }
    let ing = ingress(&["bücher.example.com", "192.0.2.10"], json!({}));
    assert!(validate_ingress(open, "default", &ing).allowed);
}

#[test]
fn an_annotation_item_is_shown_with_the_white_space_external_dns_keeps() {
    let obj = ingress(
        &[],
        json!({"external-dns.alpha.kubernetes.io/hostname": "a.example.com,\tb.example.com"}),
    );
    let d = validate_ingress(RULES, "default", &obj);
    assert_eq!(d.violations.len(), 1);
    let v = &d.violations[0];
    assert_eq!(
        (v.value.as_str(), v.reason),
        ("\tb.example.com", Reason::HostnameInvalid)
    );
    assert!(
        v.message().contains(r#""\tb.example.com""#),
        "{}",
        v.message()
    );
}
