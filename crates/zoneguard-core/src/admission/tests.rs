//! Decisions for whole objects: hostnames, annotations, IRSA, modes, UPDATE, mutation.

use super::*;
use crate::verdict::Reason;
use serde_json::{json, Value};

const RULES: &str = r#"
domainFilters: [example.com]
excludeDomains: [internal.example.com]
namespaces:
  team-a: { domainFilters: [team-a.example.com] }
inject:
  - kinds: [Service]
    serviceTypes: [LoadBalancer]
    annotations:
      external-dns.alpha.kubernetes.io/hostname: "{name}.{namespace}.example.com"
      external-dns.alpha.kubernetes.io/ttl: "60"
"#;

/// The warnings' texts, as kubectl shows them.
fn warning_texts(d: &Decision) -> Vec<&str> {
    d.warnings.iter().map(|w| w.message.as_str()).collect()
}

fn rules(text: &str) -> RuleSet {
    RuleSet::parse("test", text).unwrap_or_else(|e| panic!("{e:?}"))
}

fn req<'a>(
    op: Operation,
    group: &'a str,
    kind: &'a str,
    ns: &'a str,
    object: &'a Node<'a>,
    old: Option<&'a Node<'a>>,
) -> Request<'a> {
    let name = crate::path::at(object, &["metadata", "name"])
        .and_then(Node::as_str)
        .unwrap_or("");
    Request {
        operation: op,
        group,
        version: "v1",
        kind,
        namespace: ns,
        name,
        object: Some(object),
        old_object: old,
        sub_resource: None,
    }
}

/// The tree the checks read `object` as.
fn tree(object: &Value) -> Node<'_> {
    Node::from(object)
}

fn ingress(hosts: &[&str], annotations: Value) -> Value {
    let rules: Vec<Value> = hosts.iter().map(|h| json!({"host": h})).collect();
    json!({"apiVersion": "networking.k8s.io/v1", "kind": "Ingress", "metadata": {"name": "web", "annotations": annotations}, "spec": {"rules": rules}})
}

fn reasons(d: &Decision) -> Vec<(String, Reason)> {
    d.violations
        .iter()
        .map(|v| (v.field.clone(), v.reason))
        .collect()
}

fn validate_ingress(rules_text: &str, ns: &str, object: &Value) -> Decision {
    validate(
        &rules(rules_text),
        &req(
            Operation::Create,
            "networking.k8s.io",
            "Ingress",
            ns,
            &tree(object),
            None,
        ),
    )
}

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
        d.warnings.iter().any(|w| w.message.contains("is ignored")),
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
        .any(|w| w.message.contains("publish-internal-services")));
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
    assert_eq!((w.to_string(), &w.message), (text.clone(), &text));
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
    assert!(d.warnings[0].message.contains("already present"));
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

fn lb_service(annotations: Option<Value>) -> Value {
    let mut svc = json!({"apiVersion": "v1", "kind": "Service", "metadata": {"name": "api"}, "spec": {"type": "LoadBalancer"}});
    if let Some(a) = annotations {
        svc["metadata"]["annotations"] = a;
    }
    svc
}

/// The decision's patch as the JSON the API server receives.
fn patch_json(d: &Decision) -> Value {
    serde_json::to_value(&d.patch).unwrap_or_default()
}

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
        found[0].message.contains("is set on a ClusterIP Service"),
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

/// The test rules with an inject rule whose hostname the domain filters refuse.
fn refusing_inject_rules() -> String {
    RULES.replace(
        "{name}.{namespace}.example.com",
        "{name}.{namespace}.other.org",
    )
}

/// /mutate for an UPDATE of a Service in `default` that leaves it as it was.
fn update_service(rules: &RuleSet, service: &Node<'_>) -> Decision {
    mutate(
        rules,
        &req(
            Operation::Update,
            "",
            "Service",
            "default",
            service,
            Some(service),
        ),
    )
}

#[test]
fn an_inject_rule_that_would_set_a_refused_name_is_blamed() {
    let text = refusing_inject_rules();
    let d = mutate(
        &rules(&text),
        &req(
            Operation::Create,
            "",
            "Service",
            "pay",
            &tree(&lb_service(None)),
            None,
        ),
    );
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
            .message
            .contains("the inject rule inject[0] of test would set")
            && d.warnings[0]
                .message
                .ends_with("(not injected; the update is admitted without it)"),
        "{}",
        d.warnings[0]
    );
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

/// Whether /mutate admits an Ingress of `web.example.com` once `sources` is in the rules and
/// an inject rule adds the hostname `web.other.org`, for each `(path, value, allowed)`: the
/// Ingress with `value` at `path` (e.g. its class), and whether it should be admitted. A
/// refused name is never injected.
fn injected_hostname_verdicts(sources: &str, cases: &[(&[&str], serde_json::Value, bool)]) {
    let rules = rules(&format!(
        "domainFilters: [example.com]\nsources: {sources}\ninject:\n  - kinds: [Ingress]\n    annotations: {{external-dns.alpha.kubernetes.io/hostname: '{{name}}.other.org'}}\n"
    ));
    for (path, value, allowed) in cases {
        let mut object = ingress(&["web.example.com"], json!({}));
        object[path[0]][path[1]] = value.clone();
        let object = tree(&object);
        let request = req(
            Operation::Create,
            "networking.k8s.io",
            "Ingress",
            "default",
            &object,
            None,
        );
        let d = mutate(&rules, &request);
        assert_eq!(d.allowed, *allowed, "{value}: {:?}", d.violations);
        assert_eq!(
            d.patch.len(),
            usize::from(*allowed),
            "{value}: injected when admitted"
        );
    }
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
fn a_rules_configmap_edit_is_admitted_with_warnings_about_its_own_text_alone() {
    let policies = "irsa:\n  source: iam\n";
    let base = RuleSource {
        name: "ConfigMap zoneguard/base",
        text: "domainFilters: [\"bad domain.com\"]\n",
    };
    let d = review_rules_configmap(&rules(""), Operation::Update, "rules", policies, &[base]);
    assert!(d.allowed, "{d:?}");
    let texts = warning_texts(&d);
    assert_eq!(texts.len(), 1, "{texts:?}");
    assert!(
        texts[0].starts_with(r#"data["rules.yaml"] line 2: irsa.source: irsa.issuer (this cluster's OIDC issuer URL) is not set"#),
        "{texts:?}"
    );
    // The issuer set in another rule source: nothing to warn about.
    let issuer = RuleSource {
        name: "ConfigMap zoneguard/base",
        text: "irsa:\n  issuer: https://oidc.example.com/id/A\n",
    };
    let d = review_rules_configmap(&rules(""), Operation::Update, "rules", policies, &[issuer]);
    assert!(d.allowed && d.warnings.is_empty(), "{d:?}");
}

#[test]
fn a_rules_configmap_with_a_broken_document_is_refused_with_the_parser_message() {
    let d = review_rules_configmap(
        &rules(""),
        Operation::Create,
        "rules",
        "domainFilters: [a.com]\nregexDomainFilter: '('\n",
        &[],
    );
    assert!(!d.allowed);
    assert!(
        d.violations[0]
            .message()
            .starts_with(r#"data["rules.yaml"] line 2: regexDomainFilter: "(" is not a valid"#),
        "{}",
        d.violations[0].message()
    );
    let other = RuleSource {
        name: "ConfigMap zoneguard/base",
        text: "enforcement: warn\n",
    };
    let d = review_rules_configmap(
        &rules(""),
        Operation::Update,
        "rules",
        "enforcement: deny\n",
        &[other],
    );
    assert!(!d.allowed);
    assert_eq!(
        d.violations[0].message(),
        r#"data["rules.yaml"] line 1: enforcement: set to deny here and to warn in ConfigMap zoneguard/base (line 1); rule sources must agree: set it in one of them, or to the same value in both"#
    );
    let unlabelled = json!({"metadata": {"name": "x"}, "data": {"rules.yaml": "garbage: ["}});
    assert!(
        validate(
            &rules(""),
            &req(
                Operation::Create,
                "",
                "ConfigMap",
                "zoneguard",
                &tree(&unlabelled),
                None
            )
        )
        .allowed
    );
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

/// Mutating a LoadBalancer Service with `annotations` in namespace `pay` under `rules_text` is
/// refused for the injected annotation `external-dns.alpha.kubernetes.io/<name>` alone, blamed
/// on its inject rule, with `needle` in the message.
fn assert_blamed_injection(rules_text: &str, annotations: Option<Value>, name: &str, needle: &str) {
    let svc = lb_service(annotations);
    let d = mutate(
        &rules(rules_text),
        &req(Operation::Create, "", "Service", "pay", &tree(&svc), None),
    );
    let field = format!("metadata.annotations[\"external-dns.alpha.kubernetes.io/{name}\"]");
    assert_eq!(reasons(&d), vec![(field, Reason::AnnotationInvalid)]);
    let message = &d.violations[0].message();
    assert!(
        message.contains("inject[0] of test") && message.contains(needle),
        "{message}"
    );
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
fn a_broken_rules_configmap_is_refused_even_when_its_namespace_is_exempt() {
    let exempting = rules("exemptNamespaces: [kube-system, zoneguard]\n");
    let d = review_rules_configmap(&exempting, Operation::Update, "rules", "bogus: 1\n", &[]);
    assert!(!d.allowed, "{d:?}");
    assert!(d.violations[0].message().contains("bogus"), "{d:?}");
}

#[test]
fn a_rules_configmap_without_rules_yaml_names_a_key_that_looks_meant_as_it() {
    let missing = r#"data["rules.yaml"] is missing: a ConfigMap labelled zoneguard.io/rules=true must carry its rules under the key rules.yaml"#;
    let table = [
        (
            json!({"rules.yml": "{}"}),
            " (found rules.yml; rename it to rules.yaml)",
        ),
        (
            json!({"Rules.YAML": "{}"}),
            " (found Rules.YAML; rename it to rules.yaml)",
        ),
        (
            json!({"rules": "{}"}),
            " (found rules; rename it to rules.yaml)",
        ),
        (
            json!({"rules.json": "{}"}),
            " (found rules.json; rename it to rules.yaml)",
        ),
        (json!({"policy.yaml": "{}"}), ""),
        (json!({}), ""),
    ];
    for (data, hint) in table {
        let cm = json!({"metadata": {"name": "r", "labels": {"zoneguard.io/rules": "true"}}, "data": data});
        let d = validate(
            &rules(""),
            &req(
                Operation::Create,
                "",
                "ConfigMap",
                "zoneguard",
                &tree(&cm),
                None,
            ),
        );
        assert!(!d.allowed, "{data}");
        assert_eq!(d.violations[0].reason, Reason::RulesInvalid, "{data}");
        assert_eq!(
            d.violations[0].message(),
            format!("{missing}{hint}"),
            "{data}"
        );
    }
}

fn validate_kind(rules_text: &str, group: &str, kind: &str, ns: &str, object: &Value) -> Decision {
    validate(
        &rules(rules_text),
        &req(Operation::Create, group, kind, ns, &tree(object), None),
    )
}

/// A review writing rule ConfigMap `zoneguard/<name>` with `rules_yaml`, judged under `rules`
/// with the other rule sources in force.
fn review_rules_configmap(
    rules: &RuleSet,
    op: Operation,
    name: &str,
    rules_yaml: &str,
    others: &[RuleSource<'_>],
) -> Decision {
    let cm = json!({"metadata": {"name": name, "labels": {"zoneguard.io/rules": "true"}}, "data": {"rules.yaml": rules_yaml}});
    validate_with_rule_sources(
        rules,
        &req(op, "", "ConfigMap", "zoneguard", &tree(&cm), None),
        others,
    )
}

fn node_port_service(name: &str, annotations: Value, ports: Value) -> Value {
    json!({"apiVersion": "v1", "kind": "Service", "metadata": {"name": name, "annotations": annotations},
           "spec": {"type": "NodePort", "ports": ports}})
}

/// `(field, value, reason)` of each violation.
fn verdicts(d: &Decision) -> Vec<(String, String, Reason)> {
    d.violations
        .iter()
        .map(|v| (v.field.clone(), v.value.clone(), v.reason))
        .collect()
}

const HOSTNAME_0: &str = r#"metadata.annotations["external-dns.alpha.kubernetes.io/hostname"][0]"#;

#[test]
fn a_nodeport_service_s_srv_names_are_checked_against_the_filters() {
    // The hostname passes; the SRV names external-dns makes of it are refused by an exclusion
    // (cluster) and by the namespace's own filters, with the hostname item as their field.
    let text = r#"
domainFilters: [example.com]
excludeDomains: [_tcp.api.example.com]
namespaces:
  team-a: { domainFilters: [team-a.example.com], excludeDomains: [_udp.dns.team-a.example.com] }
"#;
    let cluster = node_port_service(
        "api",
        json!({"external-dns.alpha.kubernetes.io/hostname": "api.example.com"}),
        json!([{"port": 80}]),
    );
    let d = validate_kind(text, "", "Service", "default", &cluster);
    assert_eq!(
        verdicts(&d),
        [(
            HOSTNAME_0.to_string(),
            "_api._tcp.api.example.com".to_string(),
            Reason::HostnameOutsideFilters
        )]
    );
    let message = &d.violations[0].message();
    assert!(
        message.contains("SRV record \"_api._tcp.api.example.com\"")
            && message.contains("spec.ports[0]")
            && message.contains("external-dns would skip it"),
        "{message}"
    );
    let delegated = node_port_service(
        "dns",
        json!({"external-dns.alpha.kubernetes.io/hostname": "dns.team-a.example.com"}),
        json!([{"port": 53, "protocol": "UDP"}, {"port": 53, "protocol": "TCP"}]),
    );
    let d = validate_kind(text, "", "Service", "team-a", &delegated);
    assert_eq!(
        verdicts(&d),
        [(
            HOSTNAME_0.to_string(),
            "_dns._udp.dns.team-a.example.com".to_string(),
            Reason::HostnameNotDelegated
        )]
    );
}

#[test]
fn every_port_of_a_nodeport_service_makes_an_srv_name_per_protocol_even_without_a_node_port() {
    // Offline manifests seldom set nodePort; the API server allocates one for every port.
    // The protocol is lower-cased, TCP by default; two ports of one protocol make one record.
    let svc = node_port_service(
        "api",
        json!({"external-dns.alpha.kubernetes.io/hostname": "api.other.org.",
               "external-dns.alpha.kubernetes.io/internal-hostname": "in.other.org"}),
        json!([{"port": 80}, {"port": 81, "protocol": "TCP"}, {"port": 53, "protocol": "UDP", "nodePort": 30053},
               {"port": 9, "protocol": "SCTP"}]),
    );
    let made = crate::source::extract(&rules(RULES), Kind::Service, "default", &tree(&svc));
    let names: Vec<&str> = made.candidates.iter().map(|c| c.name.as_str()).collect();
    assert_eq!(
        names,
        [
            "api.other.org.",
            "in.other.org",
            "_api._tcp.api.other.org",
            "_api._udp.api.other.org",
            "_api._sctp.api.other.org",
            "_api._tcp.in.other.org",
            "_api._udp.in.other.org",
            "_api._sctp.in.other.org",
        ]
    );
    // Both hostnames are outside the filters: their SRV names, which fixing them fixes, are
    // not listed again.
    let d = validate_kind(RULES, "", "Service", "default", &svc);
    let values: Vec<&str> = d.violations.iter().map(|v| v.value.as_str()).collect();
    assert_eq!(values, ["api.other.org.", "in.other.org"]);
}

#[test]
fn an_srv_name_refused_for_itself_is_listed_once_for_its_hostname() {
    // `_<63 characters>` is a 64-octet label: every SRV name of the hostname is dropped, and
    // the first says why, naming its port.
    let name = "a".repeat(63);
    let svc = node_port_service(
        &name,
        json!({"external-dns.alpha.kubernetes.io/hostname": "api.example.com"}),
        json!([{"port": 80}, {"port": 53, "protocol": "UDP"}]),
    );
    let d = validate_kind(RULES, "", "Service", "default", &svc);
    assert_eq!(d.violations.len(), 1, "{d:?}");
    assert_eq!(d.violations[0].reason, Reason::HostnameInvalid);
    assert!(d.violations[0].message().contains("spec.ports[0]"), "{d:?}");
}

#[test]
fn srv_names_are_made_only_where_external_dns_makes_them() {
    let hostname = json!({"external-dns.alpha.kubernetes.io/hostname": "api.other.org"});
    let targeted = json!({"external-dns.alpha.kubernetes.io/hostname": "api.other.org",
                          "external-dns.alpha.kubernetes.io/target": "198.51.100.1"});
    let mut load_balancer = node_port_service("api", hostname.clone(), json!([{"port": 80}]));
    load_balancer["spec"]["type"] = json!("LoadBalancer");
    let table = [
        // With a target annotation external-dns publishes the hostname to it: no SRV record.
        (
            "NodePort with a target",
            node_port_service("api", targeted, json!([{"port": 80}])),
        ),
        ("LoadBalancer", load_balancer),
        (
            "NodePort without ports",
            node_port_service("api", hostname, json!([])),
        ),
    ];
    for (case, svc) in table {
        let d = validate_kind(RULES, "", "Service", "default", &svc);
        let values: Vec<&str> = d.violations.iter().map(|v| v.value.as_str()).collect();
        assert_eq!(values, ["api.other.org"], "{case}");
    }
}

#[test]
fn an_srv_name_whose_service_label_is_too_long_is_invalid_and_its_txt_name_takes_srv() {
    let svc = |name: &str| {
        node_port_service(
            name,
            json!({"external-dns.alpha.kubernetes.io/hostname": "api.example.com"}),
            json!([{"port": 80}]),
        )
    };
    // `_` + 63 = 64 octets: external-dns drops the record.
    let d = validate_kind(RULES, "", "Service", "default", &svc(&"a".repeat(63)));
    assert_eq!(
        reasons(&d),
        [(HOSTNAME_0.to_string(), Reason::HostnameInvalid)]
    );
    let message = &d.violations[0].message();
    assert!(
        message.contains("64 octets") && message.contains("Service name of at most 62"),
        "{message}"
    );
    // TXT `srv-_<58>` is 63 octets and fits (`cname-` would not); `srv-_<59>` does not.
    let d = validate_kind(RULES, "", "Service", "default", &svc(&"a".repeat(58)));
    assert!(d.allowed, "{:?}", d.violations);
    let d = validate_kind(RULES, "", "Service", "default", &svc(&"a".repeat(59)));
    assert_eq!(
        reasons(&d),
        [(HOSTNAME_0.to_string(), Reason::HostnameTxtTooLong)]
    );
    let message = &d.violations[0].message();
    assert!(
        message.contains(&format!("\"srv-_{}._tcp.api.example.com\"", "a".repeat(59))),
        "{message}"
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
            .any(|w| w.message.contains("publish-internal-services")),
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
    let d = mutate(
        &rules,
        &req(
            Operation::Create,
            "",
            "Service",
            "pay",
            &tree(&lb_service(None)),
            None,
        ),
    );
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
fn an_edit_is_judged_on_its_own_errors_and_warned_of_other_configmaps_errors() {
    let edit = |text: &str, others: &[RuleSource<'_>]| {
        review_rules_configmap(&rules(""), Operation::Update, "mine", text, others)
    };
    let broken = RuleSource {
        name: "ConfigMap zoneguard/broken",
        text: "bogus: 1\n",
    };
    let deny = RuleSource {
        name: "ConfigMap zoneguard/a",
        text: "enforcement: deny\n",
    };
    let warn = RuleSource {
        name: "ConfigMap zoneguard/b",
        text: "enforcement: warn\n",
    };
    // Another ConfigMap broken on its own: the edit is admitted, and told it waits for it.
    let d = edit("domainFilters: [example.com]\n", &[broken]);
    assert!(d.allowed && d.violations.is_empty(), "{d:?}");
    assert!(
        d.warnings[0].message.contains("ConfigMap zoneguard/broken")
            && d.warnings[0].message.contains("takes effect only then"),
        "{d:?}"
    );
    // Two others in conflict: the same.
    let d = edit("domainFilters: [example.com]\n", &[deny, warn]);
    assert!(d.allowed, "{d:?}");
    assert!(
        d.warnings
            .iter()
            .any(|w| w.message.contains("ConfigMap zoneguard/a")),
        "{d:?}"
    );
    // An edit that conflicts itself is refused, naming the other.
    let d = edit("enforcement: audit\n", &[deny]);
    assert!(!d.allowed, "{d:?}");
    assert!(
        d.violations[0].message().contains("ConfigMap zoneguard/a"),
        "{d:?}"
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
        d.warnings[0].message.contains("on a ClusterIP Service"),
        "{:?}",
        warning_texts(&d)
    );
    assert_eq!(d.warnings[0].reason, None);
}
