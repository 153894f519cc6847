use super::*;
use std::collections::BTreeMap;

fn set(pairs: &[(&str, &str)]) -> BTreeMap<String, String> {
    pairs
        .iter()
        .map(|(k, v)| (k.to_string(), v.to_string()))
        .collect()
}

fn selects(selector: &Selector, labels: &BTreeMap<String, String>) -> bool {
    selector.matches(|k| labels.get(k).map(String::as_str))
}

#[test]
fn label_filters_parse_as_apimachinery_parses_them() {
    let ok = [
        "",
        "  ",
        "a",
        "!a",
        "a=b",
        "a==b",
        "a!=b",
        "a=",
        "a in (x,y)",
        "a notin (x)",
        "a in ()",
        "a in (,)",
        "a in (x,,y)",
        "in in (in, notin)",
        "a>1",
        "a<10",
        "example.com/team=web,tier",
        " a = b , !c ",
        "a,a",
        "a=b \0anything: a NUL where a token would start ends the text",
        "a=\0b",
        "a==",
    ];
    let refused = [
        ",",
        "a,",
        "a b",
        "!a=b",
        "!!a",
        "a=b=c",
        "a in x",
        "a in (x",
        "a in (x y)",
        "a in ((x))",
        "a>b",
        "a>-1",
        "a>99999999999999999999",
        "a=b c",
        "a=-b",
        "-a",
        "a/b/c",
        "A.com/b",
        "a=(b)",
        "=b",
        "a=b,",
        "a=b\0c",
    ];
    for text in ok {
        assert!(Selector::parse_labels(text).is_ok(), "{text:?} is refused");
    }
    for text in refused {
        assert!(
            Selector::parse_labels(text).is_err(),
            "{text:?} is accepted"
        );
    }
}

#[test]
fn selectors_match_as_apimachinery_requirements_do() {
    // (selector, labels, selected)
    type Case<'a> = (&'a str, &'a [(&'a str, &'a str)], bool);
    let table: &[Case] = &[
        ("", &[], true),
        ("a", &[("a", "")], true),
        ("a", &[], false),
        ("!a", &[], true),
        ("!a", &[("a", "x")], false),
        ("a=x", &[("a", "x")], true),
        ("a=x", &[("a", "y")], false),
        ("a=x", &[], false),
        ("a=", &[("a", "")], true),
        ("a!=x", &[], true),
        ("a!=x", &[("a", "y")], true),
        ("a!=x", &[("a", "x")], false),
        ("a in (x,y)", &[("a", "y")], true),
        ("a in (x,y)", &[("a", "z")], false),
        ("a in ()", &[("a", "")], true),
        ("a in ()", &[], false),
        ("a notin (x)", &[], true),
        ("a notin (x)", &[("a", "x")], false),
        ("a>1", &[("a", "2")], true),
        ("a>1", &[("a", "1")], false),
        ("a>1", &[("a", "x")], false),
        ("a>1", &[], false),
        ("a<10", &[("a", "-5")], true),
        ("a<10", &[("a", "+5")], true),
        ("a=x,b", &[("a", "x")], false),
        ("a=x,b", &[("a", "x"), ("b", "")], true),
        ("a=x,a=y", &[("a", "x")], false),
    ];
    for (text, labels, want) in table {
        let selector = Selector::parse_labels(text).expect("parses");
        assert_eq!(
            selects(&selector, &set(labels)),
            *want,
            "{text:?} on {labels:?}"
        );
    }
}

#[test]
fn annotation_filters_refuse_not_equals_and_comparisons_and_keep_the_last_equals() {
    for text in ["a!=x", "a>1", "a<1", "b,a!=x"] {
        assert!(
            Selector::parse_set_based(text).is_err(),
            "{text:?} is accepted"
        );
    }
    let last = Selector::parse_set_based("a=x,a=y").expect("parses");
    assert!(selects(&last, &set(&[("a", "y")])));
    assert!(!selects(&last, &set(&[("a", "x")])));
    let both = Selector::parse_set_based("a=x,a in (y)").expect("parses");
    assert!(!selects(&both, &set(&[("a", "x")])));
    assert!(!selects(&both, &set(&[("a", "y")])));
    assert!(Selector::parse_set_based("").expect("parses").is_empty());
}

#[test]
fn the_first_unmet_requirement_is_named_as_a_selector_writes_it() {
    let selector =
        Selector::parse_labels("tier notin (db), env in (prod,staging), !legacy").expect("parses");
    let labels = set(&[("env", "dev"), ("tier", "web")]);
    let (unmet, value) = selector
        .first_unmet(|k| labels.get(k).map(String::as_str))
        .expect("one is unmet");
    assert_eq!(unmet.to_string(), "env in (prod,staging)");
    assert_eq!(value, Some("dev"));
    let shown: Vec<String> = [
        "a",
        "!a",
        "a=x",
        "a==x",
        "a!=x",
        "a notin (y,x)",
        "a>3",
        "a<3",
    ]
    .into_iter()
    .map(|t| {
        let s = Selector::parse_labels(t).expect("parses");
        s.first_unmet(|_| Some("x")).map_or_else(
            || s.first_unmet(|_| None).expect("unmet").0.to_string(),
            |(r, _)| r.to_string(),
        )
    })
    .collect();
    assert_eq!(
        shown,
        [
            "a",
            "!a",
            "a=x",
            "a=x",
            "a!=x",
            "a notin (x,y)",
            "a>3",
            "a<3"
        ]
    );
}

#[test]
fn refusals_say_what_was_found_and_what_was_expected() {
    let table = [
        ("a in (x", "found 'end of string', expected ',' or ')'"),
        ("a b", "found 'b', expected in, notin, =, ==, !=, > or <"),
        ("a,", "found 'end of string', expected a key after ','"),
        ("!a=b", "found '=', expected ',' or the end"),
        ("a>b", "\"b\" (for a>) is not an integer"),
    ];
    for (text, want) in table {
        let got = Selector::parse_labels(text)
            .expect_err("refused")
            .to_string();
        assert_eq!(got, want, "{text:?}");
    }
    let key = Selector::parse_labels("Bad.com/x")
        .expect_err("refused")
        .to_string();
    assert!(key.starts_with("\"Bad.com/x\" is not a valid key"), "{key}");
    let value = Selector::parse_labels("a=-x")
        .expect_err("refused")
        .to_string();
    assert!(
        value.starts_with("\"-x\" (for a) is not a valid value"),
        "{value}"
    );
    let ne = Selector::parse_set_based("a!=x")
        .expect_err("refused")
        .to_string();
    assert!(ne.contains("write a notin (x)"), "{ne}");
}
