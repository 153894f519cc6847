use super::FqdnTemplate;
use crate::tree::Node;
use serde_json::{json, Value};

/// The names `template` makes of `object` of `kind` in the namespace "default", or its error.
fn names(template: &str, kind: &str, object: &Value) -> Result<Vec<String>, String> {
    let t = FqdnTemplate::parse(&[template.to_string()])
        .expect("parses")
        .expect("not blank");
    t.names(kind, "default", &Node::from(object))
}

#[test]
fn a_template_makes_names_of_the_object_as_go_sees_its_typed_struct() {
    let web = json!({"metadata": {"name": "web", "namespace": "team-a",
                                  "labels": {"team": "Pay"},
                                  "annotations": {"kubectl.kubernetes.io/last-applied-configuration": "{}"}},
                     "spec": {"type": "LoadBalancer", "rules": [{"host": "a.example.com"}, {"host": "b.example.com"}]}});
    let table: [(&str, &str, &[&str]); 12] = [
        (
            "{{.Name}}.{{.Namespace}}.example.com",
            "Ingress",
            &["web.team-a.example.com"],
        ),
        (
            "{{.ObjectMeta.Name}}.example.com",
            "Ingress",
            &["web.example.com"],
        ),
        // Cut at commas, trimmed, one trailing dot dropped, empty ones dropped, sorted, once each.
        (
            "b.example.com., a.example.com ,, a.example.com",
            "Ingress",
            &["a.example.com", "b.example.com"],
        ),
        (
            "{{.Labels.team | toLower}}.example.com",
            "Ingress",
            &["pay.example.com"],
        ),
        // `index` of a missing label is "", as for Go's map[string]string; a field lookup is no value.
        (
            r#"x{{index .Labels "env"}}.example.com"#,
            "Ingress",
            &["x.example.com"],
        ),
        (
            "{{.Labels.env}}.example.com",
            "Ingress",
            &["<no value>.example.com"],
        ),
        // external-dns sets TypeMeta from client-go's scheme; Gateway API types are not in it.
        (
            "{{.Kind}}.{{.APIVersion}}",
            "Ingress",
            &["Ingress.networking.k8s.io/v1"],
        ),
        ("{{.Kind}}.{{.APIVersion}}", "Service", &["Service.v1"]),
        ("{{.Kind}}.{{.APIVersion}}", "HTTPRoute", &["HTTPRoute"]),
        (
            r#"{{if isSource "gateway-httproute"}}route{{else}}other{{end}}"#,
            "HTTPRoute",
            &["route"],
        ),
        (
            "{{range .Spec.Rules}}{{.Host}},{{end}}",
            "Ingress",
            &["a.example.com", "b.example.com"],
        ),
        // kubectl's copy of the object is not decoded by the webhook, so not here either.
        (r#"{{len .Annotations}}"#, "Ingress", &["0"]),
    ];
    for (template, kind, want) in table {
        let want: Vec<String> = want.iter().map(ToString::to_string).collect();
        assert_eq!(names(template, kind, &web), Ok(want), "{template}");
    }
}

#[test]
fn a_template_fails_on_an_object_where_go_does() {
    let bare = json!({"metadata": {"name": "web"}});
    for template in [
        "{{.Labels.team | toLower}}",
        r#"{{isSource "nosuch"}}"#,
        r#"{{trimPrefix 1 .Name}}"#,
        "{{hasKey .Name .Name}}",
    ] {
        assert!(names(template, "Service", &bare).is_err(), "{template}");
    }
}

#[test]
fn templates_external_dns_refuses_are_refused_with_the_parser_message() {
    let table = [
        ("{{.Name", "unclosed action"),
        ("{{nosuch .Name}}", r#"function "nosuch" not defined"#),
        ("{{$x}}.example.com", r#"undefined variable "$x""#),
        ("{{.Name}}{{end}}.example.com", "unexpected {{end}}"),
        ("{{else}}", "unexpected {{end}} or {{else}}"),
        // A variable goes out of scope at its control structure's end.
        (
            "{{if true}}{{$x := 1}}{{end}}{{$x}}",
            r#"undefined variable "$x""#,
        ),
    ];
    for (template, want) in table {
        let err = FqdnTemplate::parse(&[template.to_string()]).expect_err(template);
        assert!(err.contains(want), "{template}: {err}");
    }
    let several = ["{{.Name}}".to_string(), "{{.Name".to_string()];
    let err = FqdnTemplate::parse(&several).expect_err("second");
    assert!(err.starts_with(r#"[1] "{{.Name": "#), "{err}");
}

#[test]
fn blank_templates_are_no_template() {
    assert_eq!(FqdnTemplate::parse(&[]), Ok(None));
    assert_eq!(FqdnTemplate::parse(&[" \t".into()]), Ok(None));
    let in_scope = "{{range $k, $v := .Labels}}{{$k}}{{end}}{{with $n := .Name}}{{$n}}{{end}}";
    assert!(FqdnTemplate::parse(&[in_scope.into()]).is_ok());
}

#[test]
fn a_runaway_template_ends_with_an_error() {
    let mut object =
        json!({"metadata": {"name": "web", "annotations": {"big": "x".repeat(100_000)}}});
    let table = [
        (
            r#"{{define "a"}}{{template "a"}}{{end}}{{template "a"}}"#,
            "recursion limit",
        ),
        ("{{range 100000000}}x{{end}}", "range iteration budget"),
        (
            r#"{{range 100}}{{index $.Annotations "big"}}{{end}}"#,
            "its output passes 1048576 bytes",
        ),
    ];
    for (template, want) in table {
        let err = names(template, "Ingress", &object).expect_err(template);
        assert!(err.contains(want), "{template}: {err}");
    }
    object["metadata"]["annotations"]["big"] = json!("x");
    assert!(names(
        r#"{{range 100}}{{index $.Annotations "big"}}{{end}}"#,
        "Ingress",
        &object
    )
    .is_ok());
}

#[test]
fn the_view_built_for_what_a_template_reads_names_as_the_whole_view_does() {
    let object = json!({"kind": "Service", "metadata": {"name": "api", "namespace": "shop",
                                  "labels": {"team": "Pay"}, "annotations": {"a": "b"}},
                     "spec": {"type": "LoadBalancer", "clusterIP": "10.0.0.1", "ports": [{"protocol": "TCP"}]}});
    let node = Node::from(&object);
    // (template, the roots it reads: None = the whole object)
    let table: [(&str, Option<&[&str]>); 6] = [
        (
            "{{.Name}}.{{.Namespace}}.example.com",
            Some(&["Name", "Namespace"]),
        ),
        (
            "{{.ObjectMeta.Labels.team}}.{{.Kind}}",
            Some(&["ObjectMeta", "Kind"]),
        ),
        (
            "{{range $k, $v := .Labels}}{{$k}}.{{$.Spec.Type}}{{end}}",
            Some(&["Labels", "Spec"]),
        ),
        (
            "{{with .TypeMeta}}{{.APIVersion}}{{end}}",
            Some(&["TypeMeta", "APIVersion"]),
        ),
        ("{{range .Spec.Ports}}{{.}}{{end}}", None),
        (r#"{{index . "Name"}}"#, None),
    ];
    for (text, roots) in table {
        let t = FqdnTemplate::parse(&[text.to_string()])
            .expect("parses")
            .expect("not blank");
        let want = roots.map(|r| r.iter().map(ToString::to_string).collect::<Vec<_>>());
        assert_eq!(*t.roots, want, "{text}");
        let whole = FqdnTemplate {
            roots: std::sync::Arc::new(None),
            ..t.clone()
        };
        assert_eq!(
            t.names("Service", "shop", &node),
            whole.names("Service", "shop", &node),
            "{text}"
        );
        assert!(
            t.names("Service", "shop", &node)
                .is_ok_and(|n| !n.is_empty()),
            "{text}"
        );
    }
}
