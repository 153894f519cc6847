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
        assert!(
            matches!(&err, super::ParseError::Syntax(e) if e.contains(want)),
            "{template}: {err}"
        );
    }
    let several = ["{{.Name}}".to_string(), "{{.Name".to_string()];
    let err = FqdnTemplate::parse(&several).expect_err("second");
    assert!(err.to_string().starts_with(r#"[1] "{{.Name": "#), "{err}");
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

/// The audit's template: five `replace`s, each making 60 letters of every `a` of `start`
/// (here a backslash and 59 `a`s, which `js` doubles).
fn replace_bomb(start: &str) -> String {
    let sixty = "a".repeat(60);
    let mut t = format!("{{{{$s := {start}}}}}");
    for (var, from) in [("x", "s"), ("y", "x"), ("z", "y"), ("w", "z"), ("v", "w")] {
        t.push_str(&format!(
            r#"{{{{${var} := replace "a" "{sixty}" ${from}}}}}"#
        ));
    }
    t + "x.example.com"
}

/// What the bombs start from.
fn start() -> String {
    format!("\\{}", "a".repeat(59))
}

/// `piece` `times` times after `start`.
fn repeated(start: &str, piece: &str, times: usize) -> String {
    format!("{start}{}x.example.com", piece.repeat(times))
}

/// Templates that build past the budget from `start` (a Go expression), each with the
/// function that is refused: growth that compounds, or one function on a value as big as the
/// budget has room for (`$z`, 5.3 MB of the 8 MiB).
fn bombs(start: &str) -> Vec<(String, &'static str)> {
    let sixty = format!("{:?}", "a".repeat(60));
    let set = format!("{{{{$a := {start}}}}}");
    let twice = replace_bomb(start)
        .split("{{$z")
        .next()
        .unwrap_or_default()
        .to_string();
    let big = format!(
        r#"{twice}{{{{$z := replace "a" "{}" $y}}}}"#,
        "a".repeat(25)
    );
    let mut table = vec![
        (replace_bomb(start), "replace"),
        (
            repeated(&set, r#"{{$a = printf "%s%s%s%s" $a $a $a $a}}"#, 14),
            "printf",
        ),
        (repeated(&set, "{{$a = print $a $a $a $a}}", 14), "print"),
        (
            format!(
                "{{{{{start}{}}}}}x.example.com",
                format!(r#" | replace "a" {sixty}"#).repeat(6)
            ),
            "replace",
        ),
        (format!("{{{{{start}{}}}}}", " | js".repeat(30)), "js"),
    ];
    let on_big = [
        ("{{$b := slice $z 1}}", "slice"),
        ("{{html $z}}", "html"),
        ("{{js $z}}", "js"),
        ("{{urlquery $z}}", "urlquery"),
        (r#"{{printf "%s" $z}}"#, "printf"),
        ("{{print $z}}", "print"),
        ("{{trim $z}}", "trim"),
        ("{{toLower $z}}", "toLower"),
        (r#"{{contains $z "b"}}"#, "contains"),
        ("{{fromJson $z}}", "fromJson"),
    ];
    table.extend(on_big.map(|(piece, function)| (format!("{big}{piece}"), function)));
    table
}

#[test]
fn a_template_that_passes_the_budget_on_any_object_is_refused_when_it_is_parsed() {
    let mut table = bombs(&format!("{:?}", start()));
    // Each line of `println` is longer than its operands, whatever they are.
    table.push((
        repeated("{{$a := .Name}}", "{{$a = println $a $a $a $a}}", 14),
        "println",
    ));
    table.push((
        format!("{{{{printf {:?} 1}}}}", "%65535d".repeat(300)),
        "printf",
    ));
    for (template, function) in table {
        let err = FqdnTemplate::parse(std::slice::from_ref(&template)).expect_err(&template);
        let message = err.to_string();
        assert!(
            matches!(err, super::ParseError::Unbounded { .. }),
            "{template}: {message}"
        );
        assert!(
            message.contains(&format!(
                "{function}: the template would read and build more than 8 MiB"
            )),
            "{template}: {message}"
        );
    }
}

#[test]
fn a_template_that_passes_the_budget_on_what_an_object_holds_fails_on_that_object() {
    let object = json!({"metadata": {"name": "web", "labels": {"blow": start()}}});
    let start = r#"(index .Labels "blow")"#;
    for (template, function) in bombs(start) {
        // An object without the label builds nothing much: the rules take the template.
        let err = names(&template, "Service", &object).expect_err(&template);
        assert!(
            err.contains(&format!(
                "{function}: the template would read and build more than 8 MiB"
            )),
            "{template}: {err}"
        );
    }
}

#[test]
fn work_spread_over_a_range_counts_against_one_budget() {
    let object = json!({"metadata": {"name": "web", "annotations": {"big": "x".repeat(1 << 20)}}});
    let table = [
        (
            r#"{{range 100}}{{$t := trim (index $.Annotations "big")}}{{end}}"#,
            Err("trim"),
        ),
        (
            r#"{{range 3}}{{$t := trim (index $.Annotations "big")}}{{end}}"#,
            Ok(()),
        ),
        (
            r#"{{range 20000}}{{$t := printf "%s.%s" $.Name "example.com"}}{{end}}"#,
            Ok(()),
        ),
    ];
    for (template, want) in table {
        let got = names(template, "Ingress", &object).map(|_| ());
        match want {
            Ok(()) => assert_eq!(got, Ok(()), "{template}"),
            Err(function) => assert!(
                got.is_err_and(|e| e.contains(&format!("{function}: the template would read"))),
                "{template}"
            ),
        }
    }
}
