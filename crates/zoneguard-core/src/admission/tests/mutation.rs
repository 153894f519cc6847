//! The mutating webhook: what it injects, what it never overwrites, and how an injected value is judged and blamed on its rule.

use super::*;

#[test]
fn mutation_adds_missing_annotations_creating_the_map() {
    let svc = lb_service(None);
    let d = mutate(
        &rules(RULES),
        &req(Operation::Create, "", "Service", "pay", &tree(&svc), None),
    );
    assert!(d.allowed);
    assert_eq!(
        patch_json(&d),
        json!([{"op": "add", "path": "/metadata/annotations", "value": {
            "external-dns.alpha.kubernetes.io/hostname": "api.pay.example.com", "external-dns.alpha.kubernetes.io/ttl": "60"}}])
    );
}

#[test]
fn mutation_never_overwrites_and_escapes_keys() {
    let svc = lb_service(Some(
        json!({"external-dns.alpha.kubernetes.io/hostname": "mine.example.com"}),
    ));
    let d = mutate(
        &rules(RULES),
        &req(Operation::Create, "", "Service", "pay", &tree(&svc), None),
    );
    assert_eq!(
        patch_json(&d),
        json!([{"op": "add", "path": "/metadata/annotations/external-dns.alpha.kubernetes.io~1ttl", "value": "60"}])
    );
}

#[test]
fn mutation_twice_is_mutation_once() {
    let r = rules(RULES);
    let svc = lb_service(None);
    let first = mutate(
        &r,
        &req(Operation::Create, "", "Service", "pay", &tree(&svc), None),
    );
    let once = crate::mutation::apply(&svc, &first.patch).unwrap_or_default();
    let second = mutate(
        &r,
        &req(Operation::Create, "", "Service", "pay", &tree(&once), None),
    );
    assert!(second.patch.is_empty());
}

#[test]
fn the_rejudge_of_an_injection_sees_the_service_type() {
    // The injected hostname of a LoadBalancer is published: no ClusterIP warning is written
    // (and dropped) when it is judged again; on a ClusterIP Service the warning still holds.
    let r = rules(RULES);
    let warnings = |svc: &Value| {
        let object = tree(svc);
        let injections = crate::mutation::plan(&r, "Service", "pay", "api", &object);
        let annotated = crate::mutation::annotations_after(&r, &object, &injections);
        let judged = findings(
            &r,
            Kind::Service,
            "pay",
            "api",
            &annotated,
            &irsa::Facts::none(),
            crate::source::Names::Own,
        );
        (injections.len(), judged.warnings)
    };
    assert_eq!(warnings(&lb_service(None)), (2, vec![]));
    let named = json!({"external-dns.alpha.kubernetes.io/hostname": "api.pay.example.com"});
    let mut cluster_ip = lb_service(Some(named));
    cluster_ip["spec"]["type"] = json!("ClusterIP");
    let (injected, found) = warnings(&cluster_ip);
    assert_eq!(injected, 0);
    assert!(
        found[0].message().contains("is set on a ClusterIP Service"),
        "{found:?}"
    );
}

#[test]
fn mutation_skips_other_types_and_kinds() {
    let r = rules(RULES);
    let cluster_ip = json!({"metadata": {"name": "a"}, "spec": {"type": "ClusterIP"}});
    assert!(mutate(
        &r,
        &req(
            Operation::Create,
            "",
            "Service",
            "pay",
            &tree(&cluster_ip),
            None
        )
    )
    .patch
    .is_empty());
    let ing = ingress(&[], json!({}));
    assert!(mutate(
        &r,
        &req(
            Operation::Create,
            "networking.k8s.io",
            "Ingress",
            "pay",
            &tree(&ing),
            None
        )
    )
    .patch
    .is_empty());
}

#[test]
fn an_inject_rule_that_would_set_a_refused_name_is_blamed() {
    let text = refusing_inject_rules();
    let d = mutate_new_lb_service(&rules(&text));
    assert!(!d.allowed);
    assert!(
        d.violations[0]
            .message()
            .contains("the inject rule inject[0] of test would set"),
        "{}",
        d.violations[0].message()
    );
}

#[test]
fn a_refused_injection_is_never_written_and_only_blocks_a_create() {
    // The rule makes `pay.default.other.org`; its ttl is fine and still injected.
    let text = refusing_inject_rules();
    let service = lb_service(None);
    let object = tree(&service);
    let cases = [
        (Operation::Create, "enforcement: deny", false, 0),
        (Operation::Update, "enforcement: deny", true, 1),
        (Operation::Create, "enforcement: warn", true, 1),
        (Operation::Create, "enforcement: audit", true, 0),
    ];
    for (op, mode, allowed, warnings) in cases {
        let rules = rules(&format!("{text}{mode}\n"));
        let old = (op == Operation::Update).then_some(&object);
        let d = mutate(&rules, &req(op, "", "Service", "default", &object, old));
        let what = format!("{op:?} {mode}: {d:?}");
        assert_eq!(d.allowed, allowed, "{what}");
        assert_eq!(d.warnings.len(), warnings, "{what}");
        let patch: Vec<(&str, &Value)> = d
            .patch
            .iter()
            .map(|p| (p.path.as_str(), &p.value))
            .collect();
        let ttl_only = json!({"external-dns.alpha.kubernetes.io/ttl": "60"});
        assert_eq!(patch, [("/metadata/annotations", &ttl_only)], "{what}");
        // An UPDATE's refused injection is no violation, but is kept for logs and metrics.
        let (violations, tolerated) = if op == Operation::Update {
            (0, 1)
        } else {
            (1, 0)
        };
        assert_eq!(d.violations.len(), violations, "{what}");
        assert_eq!(d.tolerated.len(), tolerated, "{what}");
    }
    let rules = rules(&text);
    let d = update_service(&rules, &object);
    assert!(
        d.warnings[0]
            .message()
            .contains("the inject rule inject[0] of test would set")
            && d.warnings[0]
                .message()
                .ends_with("(not injected; the update is admitted without it)"),
        "{}",
        d.warnings[0]
    );
}

#[test]
fn an_injected_hostname_is_judged_only_on_an_ingress_of_a_class_external_dns_reads() {
    let class: &[&str] = &["spec", "ingressClassName"];
    injected_hostname_verdicts(
        "{ingressClassNames: [public]}",
        &[
            (class, json!("public"), false),
            (class, json!("internal"), true),
        ],
    );
}

#[test]
fn an_injected_hostname_is_judged_by_the_labels_and_annotations_the_object_will_have() {
    // The annotation filter asks for the very annotation the rule injects: once injected,
    // external-dns reads the object, so the injected name is judged.
    let labels: &[&str] = &["metadata", "labels"];
    injected_hostname_verdicts(
        "{labelFilter: 'expose=public', annotationFilter: 'external-dns.alpha.kubernetes.io/hostname'}",
        &[(labels, json!({"expose": "public"}), false), (labels, json!({}), true)],
    );
}

#[test]
fn an_injected_molecule_name_is_judged_on_the_label_molecule_reads() {
    // Under --compatibility=molecule external-dns reads `domainName` only on a Service
    // labelled dns: route53, so the re-judge of an injected `domainName` needs the labels.
    let rules = rules(
        "domainFilters: [example.com]\nsources: {compatibility: molecule}\ninject:\n  - kinds: [Service]\n    annotations: {domainName: '{name}.other.org'}\n",
    );
    for (labels, allowed) in [(json!({"dns": "route53"}), false), (json!({}), true)] {
        let mut object = lb_service(None);
        object["metadata"]["labels"] = labels.clone();
        let object = tree(&object);
        let request = req(Operation::Create, "", "Service", "default", &object, None);
        let d = mutate(&rules, &request);
        assert_eq!(d.allowed, allowed, "{labels}: {:?}", d.violations);
        assert_eq!(
            d.patch.len(),
            usize::from(allowed),
            "{labels}: injected when admitted"
        );
    }
}

#[test]
fn mutation_judges_only_what_it_injects() {
    // The injected TTL is refused and blamed on its rule; the Service's own hostname
    // annotation (outside the filters) is validation's business, not mutation's.
    // A TTL made of the Service's name ("api"): a fixed "sixty" is refused with the rules.
    let text = RULES.replace("ttl: \"60\"", "ttl: \"{name}\"");
    let own = json!({"external-dns.alpha.kubernetes.io/hostname": "x.other.org"});
    assert_blamed_injection(&text, Some(own), "ttl", "inject[0] of test");
}

#[test]
fn an_injected_target_that_points_at_the_injected_hostname_is_blamed_on_its_rule() {
    // The rule's hostname is `{name}.{namespace}.example.com`; a target made the same way makes
    // its CNAME record point at itself.
    let text = RULES.replace("ttl: \"60\"", "target: \"{name}.{namespace}.example.com\"");
    assert_blamed_injection(&text, None, "target", "a hostname of this object");
}

#[test]
fn an_injected_value_s_fault_is_told_without_its_field_and_value_again() {
    let reason = Reason::HostnameOutsideFilters;
    let ann = r#"metadata.annotations["external-dns.alpha.kubernetes.io/hostname"]"#;
    let item = format!("{ann}[1]");
    let whole = format!("{ann} \"a.org\" is outside");
    let table = [
        (
            Violation::new(ann, "a.org", reason, "is outside"),
            "a.org",
            "it is outside",
        ),
        (
            Violation::new(item.as_str(), "b.org", reason, "is outside"),
            "a.example.com,b.org",
            "\"b.org\" is outside",
        ),
        (
            Violation::whole(ann, "a.org", reason, "another shape"),
            "a.org",
            "another shape",
        ),
        // Worded whole, a message is told whole even when it reads as the subject and a fault.
        (
            Violation::whole(ann, "a.org", reason, whole.as_str()),
            "a.org",
            whole.as_str(),
        ),
    ];
    for (v, value, want) in table {
        assert_eq!(injected_fault(&v, value), want);
    }
}

#[test]
fn an_injected_hostname_whose_srv_name_is_refused_is_blamed_on_the_rule() {
    // A NodePort Service named with 63 characters: `_<name>` is a 64-octet label, which
    // external-dns drops; the hostname itself is fine.
    let text = "domainFilters: [example.com]\ninject:\n  - kinds: [Service]\n    serviceTypes: [NodePort]\n    annotations:\n      external-dns.alpha.kubernetes.io/hostname: \"np.example.com\"\n";
    let name = "a".repeat(63);
    let svc = json!({"apiVersion": "v1", "kind": "Service",
        "metadata": {"name": name, "namespace": "pay"},
        "spec": {"type": "NodePort", "ports": [{"port": 80, "protocol": "TCP"}]}});
    let d = mutate(
        &rules(text),
        &req(Operation::Create, "", "Service", "pay", &tree(&svc), None),
    );
    assert!(!d.allowed, "{d:?}");
    assert_eq!(d.violations[0].reason, Reason::HostnameInvalid, "{d:?}");
    let message = &d.violations[0].message();
    assert!(
        message.contains("inject[0] of test") && message.contains("SRV record"),
        "{message}"
    );
}

#[test]
fn a_blamed_inject_rule_is_named_by_its_source_and_its_index_there() {
    let base = RuleSource {
        name: "ConfigMap zoneguard/zoneguard-rules-base",
        text: "domainFilters: [example.com]\ninject:\n  - kinds: [Ingress]\n    annotations: {example.com/team: platform}\n",
    };
    let platform = RuleSource {
        name: "ConfigMap zoneguard/zoneguard-rules-platform",
        text: "inject:\n  - kinds: [Ingress]\n    annotations: {example.com/owner: platform}\n  - kinds: [Service]\n    annotations:\n      external-dns.alpha.kubernetes.io/hostname: \"{name}.other.org\"\n      external-dns.alpha.kubernetes.io/ttl: \"{name}\"\n",
    };
    let rules = RuleSet::from_sources(&[base, platform]).unwrap_or_else(|e| panic!("{e:?}"));
    let d = mutate_new_lb_service(&rules);
    let table: [(&str, &str); 2] = [
        (
            "the inject rule inject[1] of ConfigMap zoneguard/zoneguard-rules-platform would set metadata.annotations[\"external-dns.alpha.kubernetes.io/hostname\"] to \"api.other.org\"",
            "hostname-outside-filters",
        ),
        (
            "the inject rule inject[1] of ConfigMap zoneguard/zoneguard-rules-platform would set metadata.annotations[\"external-dns.alpha.kubernetes.io/ttl\"] to \"api\"",
            "annotation-invalid",
        ),
    ];
    assert_eq!(d.violations.len(), table.len(), "{d:?}");
    for (v, (start, reason)) in d.violations.iter().zip(table) {
        assert!(v.message().starts_with(start), "{}", v.message());
        assert_eq!(v.reason.as_str(), reason, "{}", v.message());
        assert!(!v.message().contains("#2"), "{}", v.message());
    }
}

#[test]
fn a_rule_that_would_inject_a_fixed_ttl_external_dns_ignores_is_refused_before_any_request() {
    let table: [(&str, &str); 3] = [
        ("\"0\"", "is not a TTL external-dns accepts"),
        ("\"60s \"", "is not a TTL external-dns accepts"),
        ("\"-5\"", "outside 1..2147483647 seconds"),
    ];
    for (ttl, needle) in table {
        let text = RULES.replace("\"60\"", ttl);
        let errors = RuleSet::parse("test", &text).err().unwrap_or_default();
        assert_eq!(errors.len(), 1, "{ttl}: {errors:?}");
        let e = &errors[0];
        assert_eq!(
            (e.line, e.key.as_str()),
            (
                11,
                r#"inject[0].annotations["external-dns.alpha.kubernetes.io/ttl"]"#
            ),
            "{e}"
        );
        assert!(e.message.contains(needle), "{e}");
    }
}

#[test]
fn an_object_with_only_generate_name_is_told_which_name_template_was_left_out() {
    let mut svc = lb_service(None);
    svc["metadata"] = json!({"generateName": "api-"});
    let object = tree(&svc);
    let d = mutate(
        &rules(RULES),
        &req(Operation::Create, "", "Service", "pay", &object, None),
    );
    assert_eq!(
        patch_json(&d),
        json!([{"op": "add", "path": "/metadata/annotations", "value": {
            "external-dns.alpha.kubernetes.io/ttl": "60"}}])
    );
    let messages: Vec<String> = d.warnings.iter().map(Warning::to_string).collect();
    assert_eq!(messages.len(), 1, "{messages:?}");
    assert!(
        messages[0].starts_with(
            r#"metadata.annotations["external-dns.alpha.kubernetes.io/hostname"] is not injected: "#
        ) && messages[0]
            .contains("uses {name}, and this Service has no name yet (only generateName"),
        "{messages:?}"
    );
    // A named object, or one that has the annotation already, gets no such warning.
    let named = mutate_new_lb_service(&rules(RULES));
    assert!(named.warnings.is_empty(), "{:?}", named.warnings);
}

/// `mutate` of a CREATE of the LoadBalancer Service `pay` without annotations.
fn mutate_new_lb_service(rules: &RuleSet) -> Decision {
    let service = lb_service(None);
    let object = tree(&service);
    mutate(
        rules,
        &req(Operation::Create, "", "Service", "pay", &object, None),
    )
}
