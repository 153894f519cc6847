//! How verdicts become an answer: enforcement modes, exemptions, updates, deletions and the warnings' bounds and reason codes.

use super::*;

#[test]
fn enforcement_modes_decide_what_a_violation_does() {
    let obj = ingress(&["x.other.org"], json!({}));
    let warn = validate_ingress(&format!("{RULES}\nenforcement: warn\n"), "default", &obj);
    assert!(warn.allowed && warn.warnings.len() == 1 && warn.violations.len() == 1);
    let audit = validate_ingress(&format!("{RULES}\nenforcement: audit\n"), "default", &obj);
    assert!(audit.allowed && audit.warnings.is_empty() && audit.violations.len() == 1);
}

#[test]
fn a_warning_that_admits_a_violation_says_so_by_its_fields() {
    let obj = ingress(&["x.other.org"], json!({}));
    let warn = validate_ingress(&format!("{RULES}\nenforcement: warn\n"), "default", &obj);
    let (v, w) = (&warn.violations[0], &warn.warnings[0]);
    assert_eq!(w.admitted, Some(Admitted::WarnMode), "{warn:?}");
    assert_eq!(w.reason, Some(v.reason), "{warn:?}");
    // The text is as before: the violation's, and why it was admitted.
    let text = format!("{} (zoneguard warn mode: admitted)", v.message());
    assert_eq!(
        (w.to_string(), w.message().into_owned()),
        (text.clone(), text)
    );
    // A warning in its own right is no violation's copy.
    let d = validate_ingress(
        &format!("{RULES}\nannotationPrefix: external-dns.alpha.kubernetes.io/\n"),
        "default",
        &ingress(
            &["ok.example.com"],
            json!({"external-dns.kubernetes.io/hostname": "a.other.org"}),
        ),
    );
    assert!(
        d.warnings.len() == 1 && d.warnings[0].admitted.is_none() && d.warnings[0].reason.is_none(),
        "{d:?}"
    );
}

#[test]
fn exempt_namespaces_deletes_and_subresources_are_not_checked() {
    let obj = ingress(&["x.other.org"], json!({}));
    let exempt = validate_ingress(
        &format!("{RULES}\nexemptNamespaces: [kube-system]\n"),
        "kube-system",
        &obj,
    );
    assert!(exempt.allowed && !exempt.checked);
    let r = rules(RULES);
    let object = tree(&obj);
    let mut delete = req(
        Operation::Delete,
        "networking.k8s.io",
        "Ingress",
        "default",
        &object,
        None,
    );
    assert!(validate(&r, &delete).allowed);
    delete.operation = Operation::Update;
    delete.sub_resource = Some("status");
    assert!(validate(&r, &delete).allowed);
    assert!(
        validate(
            &r,
            &req(
                Operation::Create,
                "apps",
                "Deployment",
                "default",
                &tree(&obj),
                None
            )
        )
        .allowed
    );
}

#[test]
fn an_update_keeps_old_violations_as_warnings_and_denies_new_ones() {
    let r = rules(RULES);
    let old = ingress(&["x.other.org"], json!({}));
    let same = ingress(&["x.other.org", "ok.example.com"], json!({}));
    let d = validate(
        &r,
        &req(
            Operation::Update,
            "networking.k8s.io",
            "Ingress",
            "default",
            &tree(&same),
            Some(&tree(&old)),
        ),
    );
    assert!(d.allowed, "{:?}", d.violations);
    assert!(d.warnings[0].message().contains("already present"));
    assert_eq!(d.warnings[0].admitted, Some(Admitted::Tolerated), "{d:?}");
    // No violation stands, but the old one is kept for logs and metrics.
    assert!(d.violations.is_empty(), "{d:?}");
    assert_eq!(d.tolerated.len(), 1, "{d:?}");
    assert_eq!(d.tolerated[0].value, "x.other.org");
    let worse = ingress(&["x.other.org", "y.other.org"], json!({}));
    let d = validate(
        &r,
        &req(
            Operation::Update,
            "networking.k8s.io",
            "Ingress",
            "default",
            &tree(&worse),
            Some(&tree(&old)),
        ),
    );
    assert!(!d.allowed);
    assert_eq!(d.violations.len(), 1);
    assert_eq!(d.violations[0].value, "y.other.org");
}

#[test]
fn an_old_violation_is_recognised_at_another_index_of_the_same_field() {
    let r = rules(RULES);
    let update = |old: &Value, new: &Value, group: &str, kind: &str| {
        let (old, new) = (tree(old), tree(new));
        let d = validate(
            &r,
            &req(Operation::Update, group, kind, "default", &new, Some(&old)),
        );
        (d.allowed, d.warnings.len())
    };
    // An item added before the old one moves it from rules[0] to rules[1].
    let old = ingress(&["x.other.org"], json!({}));
    let moved = ingress(&["ok.example.com", "x.other.org"], json!({}));
    assert_eq!(
        update(&old, &moved, "networking.k8s.io", "Ingress"),
        (true, 1)
    );
    // The same in a hostname annotation's list.
    let h = "external-dns.alpha.kubernetes.io/hostname";
    let old = lb_service(Some(json!({h: "x.other.org"})));
    let moved = lb_service(Some(json!({h: "ok.example.com,x.other.org"})));
    assert_eq!(update(&old, &moved, "", "Service"), (true, 1));
    // The same value in another field is new there.
    let old = ingress(&["x.other.org"], json!({}));
    let elsewhere = ingress(&["ok.example.com"], json!({h: "x.other.org"}));
    assert_eq!(
        update(&old, &elsewhere, "networking.k8s.io", "Ingress"),
        (false, 0)
    );
}

#[test]
fn a_field_loses_its_list_indices_and_keeps_its_keys() {
    let rows = [
        ("spec.rules[12].host", "spec.rules[].host"),
        ("spec.tls[0].hosts[3]", "spec.tls[].hosts[]"),
        (
            r#"metadata.annotations["example.com/a1"][2]"#,
            r#"metadata.annotations["example.com/a1"][]"#,
        ),
        ("spec.x[a1]", "spec.x[a1]"),
        ("spec.x[", "spec.x["),
        ("", ""),
    ];
    for (field, want) in rows {
        assert_eq!(super::unindexed(field), want, "{field}");
    }
}

#[test]
fn an_object_being_deleted_is_neither_checked_nor_changed() {
    // A controller removing its finalizer must never be refused: the object would stay in
    // Terminating, and its namespace with it.
    let text = refusing_inject_rules();
    let rules = rules(&text);
    let mut service = lb_service(None);
    service["metadata"]["deletionTimestamp"] = json!("2026-12-06T09:00:00Z");
    let service = tree(&service);
    let d = update_service(&rules, &service);
    assert!(
        d.allowed && d.patch.is_empty() && d.warnings.is_empty() && !d.checked,
        "{d:?}"
    );
    // An Ingress UPDATE with a refused host and this deletionTimestamp.
    let validate_deleting = |deletion: Value| {
        let mut web = ingress(&["x.other.org"], json!({}));
        web["metadata"]["deletionTimestamp"] = deletion;
        let web = tree(&web);
        let group = "networking.k8s.io";
        validate(
            &rules,
            &req(Operation::Update, group, "Ingress", "default", &web, None),
        )
    };
    let d = validate_deleting(json!("2026-12-06T09:00:00Z"));
    assert!(d.allowed && d.violations.is_empty() && !d.checked, "{d:?}");
    assert!(
        !validate_deleting(Value::Null).allowed,
        "a null deletionTimestamp is not a deletion"
    );
}

#[test]
fn warnings_past_the_cap_become_one_saying_how_many_more() {
    let mut d = Decision {
        warnings: (0..8).map(|i| format!("w{i}").into()).collect(),
        ..Decision::default()
    };
    d.fit_warnings(5);
    assert_eq!(
        warning_texts(&d),
        ["w0", "w1", "w2", "w3", "w4", "and 3 more warnings"]
    );
    let mut few = Decision {
        warnings: vec!["a".into()],
        ..Decision::default()
    };
    few.fit_warnings(5);
    assert_eq!(warning_texts(&few), ["a"]);
}

#[test]
fn warnings_are_cut_to_whole_ones_that_fit_the_api_servers_budget_of_runes() {
    // Five warnings of 1 000 runes each (`é` is one rune, two bytes): four fit, not five.
    let long = |i: usize| format!("{i}{}", "é".repeat(999));
    let mut d = Decision {
        warnings: (0..5).map(|i| long(i).into()).collect(),
        ..Decision::default()
    };
    d.fit_warnings(5);
    let texts = warning_texts(&d);
    assert_eq!(texts.len(), 5);
    assert_eq!(texts[..4], [long(0), long(1), long(2), long(3)]);
    assert_eq!(texts[4], "and 1 more warnings");
    let runes: usize = texts.iter().map(|t| t.chars().count()).sum();
    assert!(runes <= WARNING_RUNES, "{runes}");
}

#[test]
fn a_single_warning_longer_than_the_budget_is_cut_with_an_ellipsis() {
    let mut d = Decision {
        warnings: vec!["x".repeat(10_000).into(), "next".into()],
        ..Decision::default()
    };
    d.fit_warnings(5);
    let texts = warning_texts(&d);
    assert_eq!(texts.len(), 2, "{texts:?}");
    assert_eq!(texts[0].chars().count(), WARNING_RUNES - 32);
    assert!(texts[0].ends_with("x…"));
    assert_eq!(texts[1], "and 1 more warnings");
}

#[test]
fn warnings_are_made_single_lines_the_api_server_passes_on() {
    let mut d = Decision {
        warnings: vec![
            "role x: denied\n  a statement that would admit it: {}".into(),
            "role x: denied; add this statement:\n  {}".into(),
            "regex parse error:\r\n    (oops\n    ^\nerror: unclosed group\n".into(),
            "a\ttab".into(),
            "plain".into(),
        ],
        ..Decision::default()
    };
    d.fit_warnings(5);
    assert_eq!(
        warning_texts(&d),
        [
            "role x: denied; a statement that would admit it: {}",
            "role x: denied; add this statement: {}",
            "regex parse error: (oops; ^; error: unclosed group",
            "a tab",
            "plain",
        ]
    );
}

#[test]
fn each_filter_flag_that_skips_an_object_is_named_and_its_warning_carries_a_reason_code() {
    let rules_text = r#"sources:
  namespace: dns-public
  labelFilter: team=web
  gatewayName: public
  ingressClassNames: [public]
  serviceTypeFilter: [LoadBalancer]"#;
    let ttl = json!({"external-dns.alpha.kubernetes.io/ttl": "60"});
    let labelled = |extra: Value| {
        let mut o =
            json!({"metadata": {"name": "x", "labels": {"team": "web"}, "annotations": ttl}});
        o.as_object_mut()
            .unwrap()
            .extend(extra.as_object().unwrap().clone());
        o
    };
    // (what, group, kind, namespace, object, the flag that skips it)
    let cases = [
        (
            "another namespace",
            "networking.k8s.io",
            "Ingress",
            "shop",
            labelled(json!({"spec": {"ingressClassName": "public"}})),
            Some(source::SkippedBy::Namespace),
        ),
        (
            "no team label",
            "networking.k8s.io",
            "Ingress",
            "dns-public",
            json!({"metadata": {"name": "x", "annotations": ttl}, "spec": {"ingressClassName": "public"}}),
            Some(source::SkippedBy::Selector),
        ),
        (
            "a route through another Gateway",
            "gateway.networking.k8s.io",
            "HTTPRoute",
            "dns-public",
            labelled(json!({"spec": {"parentRefs": [{"name": "private"}]}})),
            Some(source::SkippedBy::GatewayParent),
        ),
        (
            "an Ingress of no class",
            "networking.k8s.io",
            "Ingress",
            "dns-public",
            labelled(json!({"spec": {}})),
            Some(source::SkippedBy::IngressClass),
        ),
        (
            "a ClusterIP Service",
            "",
            "Service",
            "dns-public",
            labelled(json!({"spec": {"type": "ClusterIP"}})),
            Some(source::SkippedBy::ServiceType),
        ),
        (
            "an Ingress external-dns reads",
            "networking.k8s.io",
            "Ingress",
            "dns-public",
            labelled(json!({"spec": {"ingressClassName": "public"}})),
            None,
        ),
    ];
    for (what, group, kind, ns, object, want) in cases {
        let d = validate_kind(rules_text, group, kind, ns, &object);
        assert_eq!(d.skipped, want, "{what}");
        let codes: Vec<_> = d.warnings.iter().map(|w| w.reason).collect();
        let expected = match want {
            Some(_) => vec![Some(Reason::ExternalDnsSkips)],
            None => vec![],
        };
        assert_eq!(codes, expected, "{what}: {:?}", warning_texts(&d));
    }
}

#[test]
fn a_warning_about_an_object_external_dns_reads_has_no_skip_reason_code() {
    let service = json!({"metadata": {"name": "s", "annotations": {
        "external-dns.alpha.kubernetes.io/hostname": "a.example.com"}}, "spec": {"type": "ClusterIP"}});
    let d = validate_kind(
        "domainFilters: [example.com]",
        "",
        "Service",
        "default",
        &service,
    );
    assert_eq!(d.warnings.len(), 1, "{:?}", warning_texts(&d));
    assert!(
        d.warnings[0].message().contains("on a ClusterIP Service"),
        "{:?}",
        warning_texts(&d)
    );
    assert_eq!(d.warnings[0].reason, None);
}
