//! Table-driven tests of which hostnames each kind of object asks for, and from which fields.

use super::*;

#[test]
fn a_field_is_written_as_its_path() {
    let table = [
        (
            Field::ListKey {
                list: "spec.rules",
                index: 2,
                key: "host",
            },
            "spec.rules[2].host",
        ),
        (
            Field::ListItem {
                list: "spec.hostnames",
                index: 0,
            },
            "spec.hostnames[0]",
        ),
        (Field::TlsHost { tls: 1, host: 3 }, "spec.tls[1].hosts[3]"),
        (
            Field::AnnotationItem {
                key: "external-dns.alpha.kubernetes.io/hostname".into(),
                index: 4,
            },
            r#"metadata.annotations["external-dns.alpha.kubernetes.io/hostname"][4]"#,
        ),
    ];
    for (field, want) in table {
        assert_eq!(field.to_string(), want);
    }
}

#[test]
fn a_nodeport_service_s_srv_names_follow_all_its_hostnames() {
    // SRV names come after every hostname, so a hostname that passed never stands in for
    // an SRV name of the same text (or the reverse).
    let rules = RuleSet::parse("r", "").expect("rules");
    let svc = serde_json::json!({"metadata": {"name": "api", "annotations": {
        "external-dns.alpha.kubernetes.io/hostname": "a.example.com.",
        "external-dns.kubernetes.io/internal-hostname": "b.example.com"}},
        "spec": {"type": "NodePort", "ports": [{"port": 80}, {"port": 53, "protocol": "UDP"}]}});
    let out = extract(&rules, Kind::Service, "default", &Node::from(&svc));
    let got: Vec<(&str, Record)> = out
        .candidates
        .iter()
        .map(|c| (c.name.as_str(), c.record))
        .collect();
    assert_eq!(
        got,
        [
            ("a.example.com.", Record::Address),
            ("b.example.com", Record::Address),
            ("_api._tcp.a.example.com", Record::Srv { port: 0 }),
            ("_api._udp.a.example.com", Record::Srv { port: 1 }),
            ("_api._tcp.b.example.com", Record::Srv { port: 0 }),
            ("_api._udp.b.example.com", Record::Srv { port: 1 }),
        ]
    );
}

#[test]
fn many_names_are_kept_once_each_as_few_are() {
    // 40 hostnames, one of them twice, and three ports of two protocols: past the point
    // where the extraction indexes its names, each (field, text) is still kept once, and
    // the ports of one protocol make one SRV name.
    let rules = RuleSet::parse("r", "").expect("rules");
    let mut hosts: Vec<String> = (0..40).map(|i| format!("h{i}.example.com")).collect();
    hosts.push("h0.example.com".into());
    let svc = serde_json::json!({"metadata": {"name": "api", "annotations": {
        "external-dns.alpha.kubernetes.io/hostname": hosts.join(",")}},
        "spec": {"type": "NodePort", "ports": [
            {"port": 80}, {"port": 443, "protocol": "TCP"}, {"port": 53, "protocol": "UDP"}]}});
    let out = extract(&rules, Kind::Service, "default", &Node::from(&svc));
    let count = |record: Record| out.candidates.iter().filter(|c| c.record == record).count();
    // 41 items (the repeat is another field), 40 + 1 SRV names per protocol.
    assert_eq!(count(Record::Address), 41);
    assert_eq!(count(Record::Srv { port: 0 }), 41);
    assert_eq!(count(Record::Srv { port: 2 }), 41);
    assert_eq!(out.candidates.len(), 41 * 3);
    let mut seen = std::collections::HashSet::new();
    for c in &out.candidates {
        assert!(seen.insert((c.field.clone(), c.raw.clone())), "{c:?} twice");
    }
}

#[test]
fn gateway_api_objects_yield_names_for_the_gateway_source_and_others_address_names() {
    let rules = RuleSet::parse("r", "").expect("rules");
    let annotated = serde_json::json!({"metadata": {"annotations": {
        "external-dns.alpha.kubernetes.io/hostname": "a.example.com"}},
        "spec": {"listeners": [{"hostname": "b.example.com"}]}});
    let table = [
        (Kind::RouteWithHostnames, Record::Gateway),
        (Kind::RouteWithoutHostnames, Record::Gateway),
        (Kind::Gateway, Record::Gateway),
        (Kind::ListenerSet, Record::Gateway),
        (Kind::Ingress, Record::Address),
    ];
    for (kind, want) in table {
        let out = extract(&rules, kind, "default", &Node::from(&annotated));
        assert!(!out.candidates.is_empty(), "{kind:?}");
        assert!(out.candidates.iter().all(|c| c.record == want), "{kind:?}");
    }
}

/// The names `extract` yields for `object` of `kind`, and its warnings.
fn names_and_warnings(
    rules: &str,
    kind: Kind,
    object: serde_json::Value,
) -> (Vec<String>, Vec<Warning>) {
    let rules = RuleSet::parse("r", rules).expect("rules");
    let out = extract(&rules, kind, "default", &Node::from(&object));
    (
        out.candidates.into_iter().map(|c| c.name).collect(),
        out.warnings,
    )
}

/// With `want`, `warnings` is that one warning (`fits` says how the text must hold it),
/// with the reason code of a skip; without, there is none.
fn assert_skip_warning(
    what: &str,
    warnings: &[Warning],
    want: Option<&str>,
    fits: fn(&str, &str) -> bool,
) {
    match want {
        Some(w) => assert!(
            warnings.len() == 1
                && fits(&warnings[0].message(), w)
                && warnings[0].reason == Some(Reason::ExternalDnsSkips),
            "{what}: {warnings:?}"
        ),
        None => assert!(warnings.is_empty(), "{what}: {warnings:?}"),
    }
}

#[test]
fn an_ingress_of_a_class_external_dns_does_not_read_is_not_checked() {
    let hostname = "external-dns.alpha.kubernetes.io/hostname";
    let ingress = |class: serde_json::Value, annotations: serde_json::Value| {
        serde_json::json!({"metadata": {"annotations": annotations},
            "spec": {"ingressClassName": class, "rules": [{"host": "r.example.net"}]}})
    };
    let none = serde_json::Value::Null;
    // (what, spec.ingressClassName, annotations, read, the warning it gets when skipped)
    let cases: &[(&str, serde_json::Value, serde_json::Value, bool, Option<&str>)] = &[
        ("a listed class", "public".into(), serde_json::json!({}), true, None),
        ("another class, nothing asked of external-dns", "internal".into(), serde_json::json!({}), false, None),
        ("another class with a hostname annotation", "internal".into(), serde_json::json!({hostname: "a.example.net"}), false,
            Some(r#"spec.ingressClassName is "internal", not a class external-dns reads (sources.ingressClassNames: public, edge): external-dns skips this Ingress"#)),
        ("classes compared as written", "Public".into(), serde_json::json!({}), false, None),
        ("no spec class: the annotation's", none.clone(), serde_json::json!({"kubernetes.io/ingress.class": "edge"}), true, None),
        ("an empty spec class: the annotation's", "".into(), serde_json::json!({"kubernetes.io/ingress.class": "edge"}), true, None),
        ("the spec class wins over the annotation", "internal".into(), serde_json::json!({"kubernetes.io/ingress.class": "public"}), false, None),
        ("no class at all, with a ttl", none.clone(), serde_json::json!({"external-dns.kubernetes.io/ttl": "60"}), false,
            Some("this Ingress names no ingress class (spec.ingressClassName or the kubernetes.io/ingress.class annotation) and external-dns reads only the classes it is told (sources.ingressClassNames: public, edge): external-dns skips this Ingress")),
    ];
    for (what, class, annotations, read, warning) in cases {
        let object = ingress(class.clone(), annotations.clone());
        let rules = "sources: {ingressClassNames: [public, edge]}";
        let (names, warnings) = names_and_warnings(rules, Kind::Ingress, object.clone());
        assert_eq!(!names.is_empty(), *read, "{what}: {names:?}");
        assert_skip_warning(what, &warnings, *warning, |w, p| w.starts_with(p));
        let (names, _) = names_and_warnings("{}", Kind::Ingress, object);
        assert!(
            !names.is_empty(),
            "{what}: without the rule every Ingress is read"
        );
    }
}

#[test]
fn objects_outside_the_one_namespace_external_dns_reads_are_not_checked() {
    let rules = RuleSet::parse(
        "r",
        "sources: {namespace: dns-public, gatewayNamespace: gateways}",
    )
    .expect("rules");
    let object = serde_json::json!({"metadata": {"annotations": {
        "external-dns.alpha.kubernetes.io/ttl": "60"}},
        "spec": {"rules": [{"host": "r.example.net"}], "listeners": [{"hostname": "l.example.net"}],
                 "hostnames": ["h.example.net"]}});
    let object = Node::from(&object);
    // (kind, namespace, read, the warning when skipped)
    let cases = [
        (Kind::Ingress, "dns-public", true, None),
        (
            Kind::Ingress,
            "shop",
            false,
            Some(
                r#"this Ingress is in the namespace "shop", and external-dns reads only "dns-public" (sources.namespace): external-dns skips this Ingress"#,
            ),
        ),
        (
            Kind::RouteWithHostnames,
            "gateways",
            false,
            Some(
                r#"this route is in the namespace "gateways", and external-dns reads only "dns-public" (sources.namespace)"#,
            ),
        ),
        (Kind::Gateway, "gateways", true, None),
        (
            Kind::Gateway,
            "dns-public",
            false,
            Some(
                r#"this Gateway is in the namespace "dns-public", and external-dns reads only "gateways" (sources.gatewayNamespace)"#,
            ),
        ),
        // external-dns lists ListenerSets in every namespace.
        (Kind::ListenerSet, "shop", true, None),
    ];
    for (kind, namespace, read, warning) in cases {
        let out = extract(&rules, kind, namespace, &object);
        assert_eq!(!out.candidates.is_empty(), read, "{kind:?} in {namespace}");
        let what = format!("{kind:?} in {namespace}");
        assert_skip_warning(&what, &out.warnings, warning, |w, p| w.starts_with(p));
    }
}

#[test]
fn with_gateway_name_or_namespace_a_route_is_checked_only_through_such_a_parent() {
    let rules = RuleSet::parse(
        "r",
        "sources: {gatewayName: public, gatewayNamespace: gateways}",
    )
    .expect("rules");
    let json = |v: &str| serde_json::from_str::<serde_json::Value>(v).expect("json");
    // (parentRefs, read)
    let cases = [
        (r#"[{"name": "public", "namespace": "gateways"}]"#, true),
        (r#"[{"name": "public"}]"#, false),
        (r#"[{"name": "internal", "namespace": "gateways"}]"#, false),
        (
            r#"[{"name": "internal", "namespace": "gateways"}, {"group": "gateway.networking.k8s.io", "kind": "Gateway", "name": "public", "namespace": "gateways"}]"#,
            true,
        ),
        (
            r#"[{"kind": "ListenerSet", "name": "team-listeners"}]"#,
            true,
        ),
        (
            r#"[{"group": "", "kind": "Service", "name": "public", "namespace": "gateways"}]"#,
            false,
        ),
        ("[]", false),
    ];
    for (parents, read) in cases {
        let route = serde_json::json!({"metadata": {"annotations": {
            "external-dns.alpha.kubernetes.io/ttl": "60"}},
            "spec": {"hostnames": ["h.example.net"], "parentRefs": json(parents)}});
        let out = extract(
            &rules,
            Kind::RouteWithHostnames,
            "shop",
            &Node::from(&route),
        );
        assert_eq!(!out.candidates.is_empty(), read, "{parents}");
        if !read {
            assert!(
                out.warnings.len() == 1 && out.warnings[0].message().starts_with(r#"spec.parentRefs names no Gateway external-dns publishes routes through (sources.gatewayName: "public", sources.gatewayNamespace: "gateways"): external-dns skips this route"#),
                "{parents}: {:?}",
                out.warnings
            );
        }
    }
    // Without the two flags a route is checked whatever its parents.
    let bare = RuleSet::parse("r", "").expect("rules");
    let route = serde_json::json!({"spec": {"hostnames": ["h.example.net"]}});
    let out = extract(&bare, Kind::RouteWithHostnames, "shop", &Node::from(&route));
    assert_eq!(out.candidates.len(), 1);
}

#[test]
fn objects_external_dns_s_label_and_annotation_filters_do_not_select_are_not_checked() {
    use serde_json::Value as Json;
    let hostname = "external-dns.alpha.kubernetes.io/hostname";
    let rules = r#"sources: {labelFilter: "env in (prod), !legacy", annotationFilter: "team", gatewayLabelFilter: "edge=true"}"#;
    let object = |labels: serde_json::Value, annotations: serde_json::Value| {
        serde_json::json!({"metadata": {"labels": labels, "annotations": annotations},
            "spec": {"rules": [{"host": "r.example.net"}], "hostnames": ["r.example.net"],
                     "listeners": [{"hostname": "l.example.net"}],
                     "endpoints": [{"dnsName": "e.example.net"}]}})
    };
    let prod = serde_json::json!({"env": "prod"});
    let team = serde_json::json!({"team": "web", hostname: "a.example.net"});
    // (what, kind, labels, annotations, read, the warning it gets when skipped)
    type Case<'a> = (&'a str, Kind, Json, Json, bool, Option<&'a str>);
    let cases: &[Case] = &[
        (
            "both met",
            Kind::Ingress,
            prod.clone(),
            team.clone(),
            true,
            None,
        ),
        (
            "a route, both met",
            Kind::RouteWithHostnames,
            prod.clone(),
            team.clone(),
            true,
            None,
        ),
        (
            "a label value not listed",
            Kind::Ingress,
            serde_json::json!({"env": "dev"}),
            team.clone(),
            false,
            Some(
                r#"metadata.labels do not meet sources.labelFilter "env in (prod), !legacy": env in (prod) does not hold, as the label "env" is "dev": external-dns skips this Ingress"#,
            ),
        ),
        (
            "a label that must be absent",
            Kind::Service,
            serde_json::json!({"env": "prod", "legacy": ""}),
            team.clone(),
            false,
            Some(
                r#"metadata.labels do not meet sources.labelFilter "env in (prod), !legacy": !legacy does not hold, as the label "legacy" is "": external-dns skips this Service"#,
            ),
        ),
        (
            "no labels at all",
            Kind::RouteWithHostnames,
            serde_json::Value::Null,
            team.clone(),
            false,
            Some(r#"there is no label "env": external-dns skips this route"#),
        ),
        (
            "the annotation filter first",
            Kind::Ingress,
            serde_json::json!({}),
            serde_json::json!({hostname: "a.example.net"}),
            false,
            Some(
                r#"metadata.annotations do not meet sources.annotationFilter "team": team does not hold, as there is no annotation "team": external-dns skips this Ingress"#,
            ),
        ),
        (
            "unmet and asking nothing of external-dns: silent",
            Kind::Ingress,
            serde_json::json!({}),
            serde_json::json!({}),
            false,
            None,
        ),
        (
            "a DNSEndpoint always asks",
            Kind::DnsEndpoint,
            serde_json::json!({"env": "dev"}),
            serde_json::json!({"team": "x"}),
            false,
            Some(r#"the label "env" is "dev": external-dns skips this DNSEndpoint"#),
        ),
        (
            "a Gateway: only its own label filter",
            Kind::Gateway,
            serde_json::json!({"edge": "true"}),
            serde_json::json!({}),
            true,
            None,
        ),
        (
            "a Gateway the gateway filter leaves out",
            Kind::Gateway,
            prod.clone(),
            team.clone(),
            false,
            Some(
                r#"metadata.labels do not meet sources.gatewayLabelFilter "edge=true": edge=true does not hold, as there is no label "edge": external-dns skips this Gateway"#,
            ),
        ),
        (
            "a ListenerSet, which no filter selects",
            Kind::ListenerSet,
            prod.clone(),
            serde_json::json!({}),
            true,
            None,
        ),
    ];
    for (what, kind, labels, annotations, read, warning) in cases {
        let object = object(labels.clone(), annotations.clone());
        let (names, warnings) = names_and_warnings(rules, *kind, object.clone());
        assert_eq!(!names.is_empty(), *read, "{what}: {names:?}");
        assert_skip_warning(what, &warnings, *warning, |w, p| w.contains(p));
        let (names, _) = names_and_warnings("{}", *kind, object);
        assert!(!names.is_empty(), "{what}: without the filters it is read");
    }
}

#[test]
fn a_service_of_a_type_external_dns_does_not_read_is_not_checked() {
    let service = |ty: serde_json::Value| {
        serde_json::json!({"metadata": {"name": "s", "annotations": {"external-dns.kubernetes.io/hostname": "s.example.net"}},
            "spec": {"type": ty, "ports": [{"port": 80}]}})
    };
    let rules = "sources: {serviceTypeFilter: [LoadBalancer, ClusterIP]}";
    let cases: &[(&str, serde_json::Value, Option<&str>)] = &[
        ("a listed type", "LoadBalancer".into(), None),
        (
            "no type is ClusterIP, as the API server defaults it",
            serde_json::Value::Null,
            None,
        ),
        (
            "an unlisted type",
            "NodePort".into(),
            Some(
                r#"spec.type is "NodePort", not a type external-dns reads (sources.serviceTypeFilter: LoadBalancer, ClusterIP): external-dns skips this Service"#,
            ),
        ),
        (
            "types compared as written",
            "loadbalancer".into(),
            Some(r#"spec.type is "loadbalancer", not"#),
        ),
    ];
    for (what, ty, warning) in cases {
        let (names, warnings) = names_and_warnings(rules, Kind::Service, service(ty.clone()));
        assert_eq!(names.is_empty(), warning.is_some(), "{what}: {names:?}");
        if let Some(w) = warning {
            assert!(
                warnings.len() == 1 && warnings[0].message().starts_with(w),
                "{what}: {warnings:?}"
            );
        }
    }
    let (_, warnings) = names_and_warnings(
        "sources: {serviceTypeFilter: [LoadBalancer]}",
        Kind::Service,
        service(serde_json::Value::Null),
    );
    assert!(
        warnings[0]
            .message()
            .starts_with(r#"spec.type is "ClusterIP" (the default), not"#),
        "{warnings:?}"
    );
}

#[test]
fn a_controller_annotation_naming_another_controller_leaves_nothing_to_check() {
    let alpha = "external-dns.alpha.kubernetes.io/";
    let ann = |controller: &str| {
        serde_json::json!({
            format!("{alpha}controller"): controller,
            format!("{alpha}hostname"): "a.example.com",
            format!("{alpha}ttl"): "0",
        })
    };
    let objects = |controller: &str| {
        [
            (
                Kind::Ingress,
                serde_json::json!({"metadata": {"annotations": ann(controller)},
                "spec": {"rules": [{"host": "r.example.com"}], "tls": [{"hosts": ["t.example.com"]}]}}),
            ),
            (
                Kind::Service,
                serde_json::json!({"metadata": {"name": "s", "annotations": ann(controller)},
                "spec": {"type": "NodePort", "ports": [{"port": 80}]}}),
            ),
            (
                Kind::RouteWithHostnames,
                serde_json::json!({"metadata": {"annotations": ann(controller)},
                "spec": {"hostnames": ["h.example.com"]}}),
            ),
            (
                Kind::RouteWithoutHostnames,
                serde_json::json!({"metadata": {"annotations": ann(controller)}}),
            ),
        ]
    };
    let rules = format!("annotationPrefix: {alpha}");
    for controller in ["nginx", "", "DNS-Controller", "dns-controller "] {
        for (kind, object) in objects(controller) {
            let rules = RuleSet::parse("r", &rules).expect("rules");
            let out = extract(&rules, kind, "default", &Node::from(&object));
            assert!(
                out.candidates.is_empty(),
                "{kind:?} {controller:?}: {:?}",
                out.candidates
            );
            assert!(
                out.violations.is_empty(),
                "{kind:?} {controller:?}: {:?}",
                out.violations
            );
            let [warning] = &out.warnings[..] else {
                panic!("{kind:?} {controller:?}: {:?}", out.warnings)
            };
            assert!(
                warning.message().contains("external-dns skips this object"),
                "{warning}"
            );
        }
    }
    for (kind, object) in objects("dns-controller") {
        let rules = RuleSet::parse("r", &rules).expect("rules");
        let out = extract(&rules, kind, "default", &Node::from(&object));
        assert!(!out.candidates.is_empty(), "{kind:?}");
        assert!(!out.violations.is_empty(), "{kind:?}: the ttl is judged");
    }
}

#[test]
fn a_controller_annotation_under_one_standard_prefix_leaves_the_other_prefix_s_names() {
    let partly =
        "an external-dns that reads the prefix \"external-dns.alpha.kubernetes.io/\" skips";
    let wholly = "external-dns skips this object";
    let table = [
        // The alpha external-dns skips the object; the other reads the spec and its own annotation.
        (
            serde_json::json!({
                "external-dns.alpha.kubernetes.io/controller": "other",
                "external-dns.alpha.kubernetes.io/hostname": "alpha.example.com",
                "external-dns.kubernetes.io/hostname": "new.example.com"}),
            vec!["new.example.com", "r.example.com"],
            vec![partly],
        ),
        // Both skip it.
        (
            serde_json::json!({
                "external-dns.alpha.kubernetes.io/controller": "other",
                "external-dns.kubernetes.io/controller": "",
                "external-dns.kubernetes.io/hostname": "new.example.com"}),
            vec![],
            vec![wholly, wholly],
        ),
        // A controller annotation under a prefix no external-dns here reads changes nothing.
        (
            serde_json::json!({"other.io/controller": "other"}),
            vec!["r.example.com"],
            vec![],
        ),
    ];
    for (annotations, want, want_warnings) in table {
        let object = serde_json::json!({"metadata": {"annotations": annotations},
            "spec": {"rules": [{"host": "r.example.com"}]}});
        let (mut names, warnings) = names_and_warnings("", Kind::Ingress, object);
        names.sort();
        assert_eq!(names, want, "{annotations}");
        assert_eq!(warnings.len(), want_warnings.len(), "{warnings:?}");
        for (warning, want) in warnings.iter().zip(want_warnings) {
            assert!(warning.message().contains(want), "{warning}");
            // Only an object skipped whole gets the skip's reason code.
            let code = (want == wholly).then_some(Reason::ExternalDnsSkips);
            assert_eq!(warning.reason, code, "{warning}");
        }
    }
}

#[test]
fn gateways_and_dns_endpoints_do_not_heed_the_controller_annotation() {
    // external-dns checks the annotation on routes, not on the Gateway they attach to, and
    // not on DNSEndpoints.
    let annotations = serde_json::json!({"external-dns.alpha.kubernetes.io/controller": "other"});
    let table = [
        (
            Kind::Gateway,
            serde_json::json!({"metadata": {"annotations": annotations},
            "spec": {"listeners": [{"hostname": "l.example.com"}]}}),
            "l.example.com",
        ),
        (
            Kind::DnsEndpoint,
            serde_json::json!({"metadata": {"annotations": annotations},
            "spec": {"endpoints": [{"dnsName": "e.example.com"}]}}),
            "e.example.com",
        ),
    ];
    for (kind, object, want) in table {
        let (names, warnings) = names_and_warnings("", kind, object);
        assert_eq!(names, [want], "{kind:?}");
        assert!(warnings.is_empty(), "{kind:?}: {warnings:?}");
    }
}

#[test]
fn a_dns_endpoint_without_a_dns_name_is_a_violation_naming_the_endpoint() {
    let rules = RuleSet::parse("r", "").expect("rules");
    let object = serde_json::json!({"spec": {"endpoints": [
        {"dnsName": "e.example.com"}, {"dnsName": ""}, {"recordType": "A"}]}});
    let out = extract(&rules, Kind::DnsEndpoint, "default", &Node::from(&object));
    let names: Vec<_> = out.candidates.iter().map(|c| c.name.as_str()).collect();
    assert_eq!(names, ["e.example.com"]);
    let messages: Vec<String> = out.violations.iter().map(|v| v.message()).collect();
    let found: Vec<_> = out
        .violations
        .iter()
        .zip(&messages)
        .map(|(v, m)| (v.field.as_str(), v.reason, m.split(':').next()))
        .collect();
    assert_eq!(
        found,
        [
            (
                "spec.endpoints[1].dnsName",
                Reason::HostnameInvalid,
                Some("spec.endpoints[1].dnsName is empty")
            ),
            (
                "spec.endpoints[2].dnsName",
                Reason::HostnameInvalid,
                Some("spec.endpoints[2].dnsName is missing")
            ),
        ]
    );
}
