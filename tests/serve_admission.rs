//! Admission over real HTTPS against an in-process server: verdicts, messages, patches,
//! enforcement modes, operations, limits and malformed input.

use crate::serve_support::*;
use serde_json::json;

const DENY: &str = "rules.yaml";

fn rules(enforcement: &str) -> String {
    format!("{}\nenforcement: {enforcement}\n", fixture_text(DENY))
}

async fn server() -> TestServer {
    TestServer::start(&fixture_text(DENY)).await
}

#[tokio::test(flavor = "multi_thread")]
async fn admits_a_hostname_inside_the_filters() {
    let s = server().await;
    // The API server appends `?timeout=…` to the webhook URL.
    let r = s
        .answer("/validate?timeout=10s", "ingress-create-allowed.json")
        .await;
    assert_eq!(r["allowed"], true);
    assert!(
        r.get("status").is_none() && r.get("patch").is_none() && r.get("warnings").is_none(),
        "{r}"
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn denies_a_hostname_outside_the_filters_with_the_exact_message() {
    let s = server().await;
    let r = s.answer("/validate", "ingress-create-outside.json").await;
    assert_eq!(r["allowed"], false);
    assert_eq!(r["status"]["code"], 403);
    assert_eq!(r["status"]["reason"], "Forbidden");
    assert_eq!(r["auditAnnotations"]["reasons"], "hostname-outside-filters");
    assert_eq!(r["status"]["message"], OUTSIDE_MESSAGE);
}

const OUTSIDE_MESSAGE: &str = "Ingress default/web: spec.rules[0].host \"shop.other.com\" is outside the domains this cluster's external-dns manages (example.com); external-dns would skip it and no DNS record would appear: use a name under example.com or ask the platform team to add the domain to external-dns's domain filters";

#[tokio::test(flavor = "multi_thread")]
async fn admits_an_object_left_to_another_controller_with_a_warning_per_prefix() {
    // The same Ingress as ingress-create-outside.json, with `controller: other` under both
    // standard prefixes: no external-dns publishes it, so its names are not judged.
    let s = server().await;
    let r = s
        .answer("/validate", "ingress-create-other-controller.json")
        .await;
    assert_eq!(r["allowed"], true, "{r}");
    assert!(r.get("status").is_none(), "{r}");
    let warnings = r["warnings"].as_array().expect("warnings");
    assert_eq!(warnings.len(), 2, "{r}");
    for w in warnings {
        let w = w.as_str().expect("text");
        assert!(
            w.contains("is \"other\", not \"dns-controller\": external-dns skips this object"),
            "{w}"
        );
    }
}

#[tokio::test(flavor = "multi_thread")]
async fn denies_a_node_port_service_whose_srv_name_has_a_label_too_long() {
    // A NodePort Service named with 63 characters: its SRV name's first label `_<name>` has 64.
    let s = server().await;
    let r = s
        .answer("/validate", "service-nodeport-srv-too-long.json")
        .await;
    assert_eq!(r["allowed"], false, "{r}");
    assert_eq!(r["status"]["reason"], "Forbidden");
    assert_eq!(r["auditAnnotations"]["reasons"], "hostname-invalid");
    let message = r["status"]["message"].as_str().expect("message");
    let srv = format!("_web-{}._tcp.np.example.com", "x".repeat(59));
    assert!(
        message.contains(&srv) && message.contains("spec.ports[0]"),
        "{message}"
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn an_ingress_is_checked_only_when_external_dns_reads_its_class() {
    // ingress-create-outside.json is of class nginx and asks external-dns for nothing by
    // annotation: unchecked and silent when external-dns reads another class only.
    for (classes, allowed) in [("[public]", true), ("[public, nginx]", false)] {
        let text = format!(
            "{}\nsources: {{ingressClassNames: {classes}}}\n",
            fixture_text(DENY)
        );
        let s = TestServer::start(&text).await;
        let r = s.answer("/validate", "ingress-create-outside.json").await;
        assert_eq!(r["allowed"], allowed, "{classes}: {r}");
        assert!(r.get("warnings").is_none(), "{classes}: {r}");
    }
}

#[tokio::test(flavor = "multi_thread")]
async fn an_object_external_dns_s_label_filter_leaves_out_is_admitted_with_a_warning() {
    // ingress-create-label-filtered.json is ingress-create-outside.json labelled
    // `expose: internal`, with an external-dns ttl annotation: it asks for DNS.
    let filter = "\nsources: {labelFilter: 'expose notin (internal)'}\n";
    let s = TestServer::start(&format!("{}{filter}", fixture_text(DENY))).await;
    let r = s
        .answer("/validate", "ingress-create-label-filtered.json")
        .await;
    assert_eq!(r["allowed"], true, "{r}");
    assert_eq!(
        r["warnings"],
        serde_json::json!([
            r#"metadata.labels do not meet sources.labelFilter "expose notin (internal)": expose notin (internal) does not hold, as the label "expose" is "internal": external-dns skips this Ingress and publishes none of its hostnames, so zoneguard does not check them"#
        ]),
        "{r}"
    );
    let s = server().await;
    let r = s
        .answer("/validate", "ingress-create-label-filtered.json")
        .await;
    assert_eq!(r["allowed"], false, "without the filter: {r}");
}

#[tokio::test(flavor = "multi_thread")]
async fn denies_a_name_not_delegated_to_the_namespace() {
    let s = server().await;
    let r = s
        .answer("/validate", "ingress-create-not-delegated.json")
        .await;
    assert_eq!(r["allowed"], false);
    assert_eq!(r["status"]["reason"], "Forbidden");
    assert_eq!(r["auditAnnotations"]["reasons"], "hostname-not-delegated");
    assert_eq!(
        r["status"]["message"],
        "Ingress team-a/web: spec.rules[0].host \"shop.example.com\" is outside this namespace's domains (team-a.example.com); ask the platform team to delegate it or use a name under team-a.example.com"
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn many_violations_are_listed_up_to_the_limit() {
    let s = server().await;
    let r = s
        .answer("/validate", "ingress-create-many-violations.json")
        .await;
    let message = r["status"]["message"].as_str().unwrap();
    let lines: Vec<&str> = message.lines().collect();
    assert_eq!(lines.len(), 6, "{message}");
    assert!(
        lines[0]
            .starts_with("Ingress default/many: spec.rules[0].host \"h0.other.com\" is outside"),
        "{message}"
    );
    assert!(
        lines[4].starts_with("Ingress default/many: spec.rules[4].host \"h4.other.com\""),
        "{message}"
    );
    assert_eq!(lines[5], "and 2 more");
}

#[tokio::test(flavor = "multi_thread")]
async fn many_warnings_are_listed_up_to_the_limit() {
    let s = TestServer::start(&rules("warn")).await;
    let r = s
        .answer("/validate", "ingress-create-many-violations.json")
        .await;
    assert_eq!(r["allowed"], true, "{r}");
    let warnings: Vec<&str> = r["warnings"]
        .as_array()
        .expect("warnings")
        .iter()
        .filter_map(|w| w.as_str())
        .collect();
    assert_eq!(warnings.len(), 6, "{r}");
    assert!(warnings[4].contains("\"h4.other.com\" is outside"), "{r}");
    assert_eq!(warnings[5], "and 2 more warnings");
}

#[tokio::test(flavor = "multi_thread")]
async fn mutate_returns_a_json_patch_that_gives_the_expected_object() {
    let s = server().await;
    let request = fixture("service-lb-create.json");
    let r = review(&s.client(), &s.url("/mutate"), &request).await;
    assert_eq!(r["allowed"], true, "{r}");
    assert_eq!(r["patchType"], "JSONPatch");
    let patch = base64_decode(r["patch"].as_str().expect("patch"));
    let patch: json_patch::Patch = serde_json::from_slice(&patch).unwrap();
    let mut object = request["request"]["object"].clone();
    json_patch::patch(&mut object, &patch).unwrap();
    assert_eq!(object, fixture("service-lb-create.expected.json"));
}

#[tokio::test(flavor = "multi_thread")]
async fn mutate_sends_no_patch_when_nothing_changes() {
    let s = server().await;
    for name in [
        "service-lb-annotated.json",
        "ingress-create-allowed.json",
        "deployment-create.json",
    ] {
        let r = s.answer("/mutate", name).await;
        assert_eq!(r["allowed"], true, "{name}: {r}");
        assert!(
            r.get("patch").is_none() && r.get("patchType").is_none(),
            "{name}: {r}"
        );
    }
}

#[tokio::test(flavor = "multi_thread")]
async fn warn_mode_admits_with_warnings() {
    let s = TestServer::start(&rules("warn")).await;
    let r = s.answer("/validate", "ingress-create-outside.json").await;
    assert_eq!(r["allowed"], true);
    assert!(r.get("status").is_none());
    assert_eq!(
        r["auditAnnotations"],
        json!({"reasons": "hostname-outside-filters"})
    );
    let warnings = r["warnings"].as_array().expect("warnings");
    assert_eq!(warnings.len(), 1, "{r}");
    assert!(
        warnings[0]
            .as_str()
            .unwrap()
            .contains("\"shop.other.com\" is outside"),
        "{r}"
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn audit_mode_admits_silently_and_counts() {
    let s = TestServer::start(&rules("audit")).await;
    let r = s.answer("/validate", "ingress-create-outside.json").await;
    assert_eq!(r["allowed"], true);
    assert!(
        r.get("status").is_none() && r.get("warnings").is_none(),
        "{r}"
    );
    // The API server's audit log gets the reason as `<webhook name>/reasons`.
    assert_eq!(
        r["auditAnnotations"],
        json!({"reasons": "hostname-outside-filters"})
    );
    let clean = s.answer("/validate", "ingress-create-allowed.json").await;
    assert!(clean.get("auditAnnotations").is_none(), "{clean}");
    let (_, text) = get_text(&s.probe("/metrics")).await;
    let series = "zoneguard_admission_requests_total{endpoint=\"validate\",kind=\"Ingress\",operation=\"CREATE\",verdict=\"audited\"}";
    assert_eq!(metric(&text, series), Some(1.0), "{text}");
    let reason = "zoneguard_admission_violations_total{endpoint=\"validate\",reason=\"hostname-outside-filters\"}";
    assert_eq!(metric(&text, reason), Some(1.0));
}

#[tokio::test(flavor = "multi_thread")]
async fn dry_run_gets_the_same_answer() {
    let s = server().await;
    let normal = s.answer("/validate", "ingress-create-outside.json").await;
    let dry = s
        .answer("/validate", "ingress-create-outside-dryrun.json")
        .await;
    assert_eq!(dry["allowed"], false);
    assert_eq!(dry["status"], normal["status"]);
}

#[tokio::test(flavor = "multi_thread")]
async fn update_keeping_an_old_violation_warns_and_adding_one_denies() {
    let s = server().await;
    let kept = s.answer("/validate", "ingress-update-keeps-old.json").await;
    assert_eq!(kept["allowed"], true, "{kept}");
    let warnings = kept["warnings"]
        .as_array()
        .expect("warning for the old violation");
    assert!(
        warnings
            .iter()
            .any(|w| w.as_str().unwrap().contains("old.other.com")),
        "{kept}"
    );

    // A rule change that leaves objects wrong shows in the metrics, not only in warnings.
    s.assert_one_warned_update("validate", "Ingress", "hostname-outside-filters")
        .await;

    let added = s.answer("/validate", "ingress-update-adds-new.json").await;
    assert_eq!(added["allowed"], false);
    let message = added["status"]["message"].as_str().unwrap();
    assert!(
        message
            .starts_with("Ingress default/legacy: spec.rules[1].host \"new.other.com\" is outside"),
        "{message}"
    );
    assert!(
        !message.contains("old.other.com"),
        "old violation is not the reason: {message}"
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn delete_subresources_and_unknown_kinds_are_admitted_without_patch() {
    let s = server().await;
    for name in [
        "ingress-delete.json",
        "ingress-status-subresource.json",
        "deployment-create.json",
    ] {
        for path in ["/validate", "/mutate"] {
            let r = s.answer(path, name).await;
            assert_eq!(r["allowed"], true, "{name} {path}: {r}");
            assert!(
                r.get("patch").is_none() && r.get("status").is_none(),
                "{name} {path}: {r}"
            );
        }
    }
}

fn base64_decode(text: &str) -> Vec<u8> {
    use base64::Engine as _;
    base64::engine::general_purpose::STANDARD
        .decode(text)
        .unwrap()
}

#[tokio::test(flavor = "multi_thread")]
async fn mutate_fills_no_name_template_from_a_generate_name() {
    // The API server calls the mutating webhooks before it makes the name from the prefix.
    let s = server().await;
    let mut request = fixture("service-lb-create.json");
    request["request"]["name"] = "".into();
    let meta = &mut request["request"]["object"]["metadata"];
    meta.as_object_mut().expect("metadata").remove("name");
    meta["generateName"] = "web-".into();
    let r = review(&s.client(), &s.url("/mutate"), &request).await;
    assert_eq!(r["allowed"], true, "{r}");
    // The rules' only injection is `{name}.{namespace}.example.com`: nothing to add yet.
    assert!(r.get("patch").is_none(), "{r}");
}
