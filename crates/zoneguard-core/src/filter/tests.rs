//! Table-driven tests over external-dns's own test vectors, and a property test
//! that compares the indexed matcher with a naive model of external-dns's domain-filter match.

use std::path::PathBuf;

use proptest::prelude::*;
use serde::Deserialize;

use super::normalize::prepare_filter;
use super::*;

/// Where the vectors live: a byte-for-byte copy, kept in this crate, of the project's
/// external-dns v0.22.0 vectors (their README says where each row comes from), so that a clone
/// of the repository alone runs every test.
fn vectors_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/vectors/external-dns")
}

/// Reads a vector file; a missing file fails the test.
fn read_vectors(file: &str) -> String {
    let path = vectors_dir().join(file);
    std::fs::read_to_string(&path)
        .unwrap_or_else(|err| panic!("cannot read test vectors {}: {err}", path.display()))
}

/// One row of `domain-filter.json`.
#[derive(Debug, Deserialize)]
struct FilterRow {
    filters: Vec<String>,
    exclusions: Vec<String>,
    regex: String,
    regex_exclusion: String,
    domain: String,
    expect: bool,
    method: String,
    source: String,
}

fn spec_of(row: &FilterRow) -> FilterSpec {
    FilterSpec {
        include: row.filters.clone(),
        exclude: row.exclusions.clone(),
        regex_include: row.regex.clone(),
        regex_exclude: row.regex_exclusion.clone(),
    }
}

#[test]
fn every_match_row_of_external_dns_domain_filter_tests_agrees() {
    let rows: Vec<FilterRow> =
        serde_json::from_str(&read_vectors("domain-filter.json")).expect("valid JSON");
    let match_rows: Vec<&FilterRow> = rows.iter().filter(|r| r.method == "Match").collect();
    assert!(
        match_rows.len() > 300,
        "expected the full table, got {} rows",
        match_rows.len()
    );
    let failures: Vec<String> = match_rows
        .iter()
        .filter_map(|row| {
            let filter = DomainFilter::new(&spec_of(row)).expect("vector filters compile");
            let got = filter.matches(&row.domain);
            let explained = filter.explain(&row.domain).is_match();
            (got != row.expect || explained != row.expect).then(|| {
                format!(
                    "{}: {:?} with {:?}: expected {}, matches {got}, explain {explained}",
                    row.source,
                    row.domain,
                    spec_of(row),
                    row.expect
                )
            })
        })
        .collect();
    assert!(
        failures.is_empty(),
        "{} rows disagree:\n{}",
        failures.len(),
        failures.join("\n")
    );
    eprintln!("domain-filter.json: {} Match rows agree", match_rows.len());
}

#[test]
fn parse_json_holds_no_rows_about_domain_filters() {
    // parse.json covers annotation parsing and Gateway host matching, which other
    // modules own. If a domain-filter section is ever added, this test must grow.
    let parse: serde_json::Map<String, serde_json::Value> =
        serde_json::from_str(&read_vectors("parse.json")).expect("valid JSON");
    let mut sections: Vec<&str> = parse.keys().map(String::as_str).collect();
    sections.sort_unstable();
    assert_eq!(
        sections,
        [
            "dns1123_domain",
            "gateway_host_match",
            "gateway_protocol",
            "split_hostname",
            "ttl"
        ]
    );
}

#[test]
fn split_hostname_items_of_parse_json_normalise_to_themselves() {
    // The items external-dns splits out of a hostname annotation are already in
    // normal form (lower-case ASCII, no trailing dot), so matching sees them as is.
    let parse: serde_json::Value =
        serde_json::from_str(&read_vectors("parse.json")).expect("valid JSON");
    let rows = parse["split_hostname"]
        .as_array()
        .expect("split_hostname rows");
    assert!(!rows.is_empty());
    for row in rows {
        for item in row["expect"].as_array().expect("expect list") {
            let item = item.as_str().expect("string item");
            assert_eq!(normalize_name(item), item);
        }
    }
}

/// (spec, name, expected explanation)
fn explanations() -> Vec<(FilterSpec, &'static str, Match)> {
    let plain = FilterSpec {
        include: vec!["example.com".into(), "Team.Example.com.".into()],
        exclude: vec![" internal.example.com ".into()],
        ..FilterSpec::default()
    };
    let regex = FilterSpec {
        include: vec!["ignored.org".into()],
        regex_include: r"\.example\.com$".into(),
        regex_exclude: r"^internal\.".into(),
        ..FilterSpec::default()
    };
    vec![
        (
            plain.clone(),
            "a.team.example.com",
            Match::Included {
                by: Some("team.example.com".into()),
            },
        ),
        (plain.clone(), "example.org", Match::NotIncluded),
        (
            plain.clone(),
            "db.internal.example.com",
            Match::Excluded {
                by: "internal.example.com".into(),
                within: Some("example.com".into()),
            },
        ),
        (regex.clone(), "a.example.com", Match::Included { by: None }),
        (regex.clone(), "ignored.org", Match::RegexNotIncluded),
        (regex, "internal.example.com", Match::RegexExcluded),
        (
            FilterSpec::default(),
            "anything",
            Match::Included { by: None },
        ),
    ]
}

#[test]
fn explain_names_the_rule_that_decided() {
    for (spec, name, expected) in explanations() {
        let filter = DomainFilter::new(&spec).expect("compiles");
        assert_eq!(filter.explain(name), expected, "{name:?} with {spec:?}");
        assert_eq!(filter.matches(name), expected.is_match());
    }
}

#[test]
fn a_regex_that_does_not_compile_is_a_bad_regex_error_naming_its_flag() {
    let spec = FilterSpec {
        regex_exclude: "(unclosed".into(),
        ..FilterSpec::default()
    };
    match DomainFilter::new(&spec) {
        Err(FilterError::BadRegex { field, pattern, .. }) => {
            assert_eq!(field, "regexDomainExclusion");
            assert_eq!(pattern, "(unclosed");
        }
        other => panic!("expected BadRegex, got {other:?}"),
    }
}

#[test]
fn a_filter_of_blank_items_is_not_configured() {
    let blank = FilterSpec {
        include: vec!["  ".into(), ".".into()],
        ..FilterSpec::default()
    };
    assert!(!DomainFilter::new(&blank).expect("compiles").is_configured());
    assert!(!DomainFilter::new(&FilterSpec::default())
        .expect("compiles")
        .is_configured());
    let exclusion_only = FilterSpec {
        exclude: vec!["a.example.com".into()],
        ..FilterSpec::default()
    };
    assert!(DomainFilter::new(&exclusion_only)
        .expect("compiles")
        .is_configured());
}

#[test]
fn a_punycode_filter_is_mapped_twice_and_a_name_once_as_in_external_dns() {
    // `xn--wca` decodes to `Ü`. external-dns prepares filters twice (the second pass
    // lower-cases the decoded `Ü`) but normalises a name once (keeping it).
    let spec = FilterSpec {
        include: vec!["xn--wca.com".into()],
        ..FilterSpec::default()
    };
    let filter = DomainFilter::new(&spec).expect("compiles");
    assert!(filter.matches("ü.com"));
    assert!(filter.matches("xn--tda.com"));
    assert!(!filter.matches("xn--wca.com"));
}

#[test]
fn the_spec_is_kept_verbatim() {
    let spec = FilterSpec {
        include: vec![" Example.COM. ".into()],
        ..FilterSpec::default()
    };
    assert_eq!(DomainFilter::new(&spec).expect("compiles").spec(), &spec);
}

/// The naive model: external-dns's match (a filter equals the name, is a parent domain of it, or, written with a leading dot, a suffix of it) applied literally, a linear scan over the filters.
fn naive_matches(spec: &FilterSpec, name: &str) -> bool {
    let s = normalize_name(name);
    let prepare = |list: &[String]| -> Vec<String> {
        list.iter().filter_map(|f| prepare_filter(f)).collect()
    };
    let covers = |f: &String| {
        (f.starts_with('.') && s.ends_with(f.as_str())) || s == *f || s.ends_with(&format!(".{f}"))
    };
    let include = prepare(&spec.include);
    let exclude = prepare(&spec.exclude);
    (include.is_empty() || include.iter().any(covers)) && !exclude.iter().any(covers)
}

/// Labels drawn from a small pool so that names and filters often share suffixes.
fn label() -> impl Strategy<Value = String> {
    prop::sample::select(vec![
        "a",
        "b",
        "ab",
        "Ab",
        "x",
        "*",
        "",
        "-",
        "com",
        "org",
        "xn--mnchen-3ya",
        "münchen",
        "MÜNCHEN",
        "xn--abc-",
        "_acme",
    ])
    .prop_map(str::to_owned)
}

/// A dotted name, sometimes with a leading dot, trailing dot(s) or spaces.
fn dotted() -> impl Strategy<Value = String> {
    (
        prop::collection::vec(label(), 1..4),
        prop::sample::select(vec!["", ".", " ", "*."]),
        prop::sample::select(vec!["", ".", "..", " "]),
    )
        .prop_map(|(labels, head, tail)| format!("{head}{}{tail}", labels.join(".")))
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(2000))]

    #[test]
    fn the_indexed_matcher_agrees_with_a_linear_scan_of_the_spec(
        include in prop::collection::vec(dotted(), 0..4),
        exclude in prop::collection::vec(dotted(), 0..3),
        name in dotted(),
    ) {
        let spec = FilterSpec { include, exclude, ..FilterSpec::default() };
        let filter = DomainFilter::new(&spec).expect("plain filters always compile");
        prop_assert_eq!(filter.matches(&name), naive_matches(&spec, &name));
        prop_assert_eq!(filter.explain(&name).is_match(), filter.matches(&name));
    }

    #[test]
    fn no_input_makes_normalisation_or_matching_panic(name in "\\PC{0,40}", f in "\\PC{0,20}") {
        let spec = FilterSpec { include: vec![f.clone()], exclude: vec![f], ..FilterSpec::default() };
        let filter = DomainFilter::new(&spec).expect("plain filters always compile");
        let _ = filter.matches(&name);
        let _ = normalize_name(&name);
    }
}

#[test]
fn patterns_go_accepts_and_rust_reads_otherwise_compile_with_go_s_meaning() {
    // (regexDomainFilter, name, external-dns's answer: checked against its DomainFilter.Match)
    let cases = [
        (r"\<app\>", "app.example.com", false),
        (r"\p{^N}", "app.example.com", true),
        (r"(?)app", "app.example.com", true),
        (r"(?P<a>app)|(?P<a>www)", "www.example.com", true),
        (
            r"^[\pL\pN-]{1,63}(\.[\pL\pN-]{1,63}){0,5}$",
            "münchen.example.com",
            true,
        ),
    ];
    for (pattern, name, want) in cases {
        let spec = FilterSpec {
            regex_include: pattern.into(),
            ..FilterSpec::default()
        };
        let filter = DomainFilter::new(&spec).unwrap_or_else(|e| panic!("{pattern}: {e}"));
        assert_eq!(filter.matches(name), want, "{pattern} on {name}");
    }
}

#[test]
fn a_regex_too_large_to_compile_says_so_and_names_the_limit() {
    let spec = FilterSpec {
        regex_include: r"\pL{1000}".into(),
        ..FilterSpec::default()
    };
    let err = DomainFilter::new(&spec).expect_err("over the size limit");
    let text = err.to_string();
    assert!(
        text.starts_with(r#"regexDomainFilter: "\\pL{1000}" is too large: compiled, it exceeds zoneguard's limit of 32 MiB"#),
        "{text}"
    );
}

#[test]
fn a_pattern_written_twice_in_a_rule_set_is_compiled_once_and_counted_once() {
    let mut regexes = super::Regexes::default();
    let spec = |include: &str| FilterSpec {
        regex_include: include.into(),
        ..FilterSpec::default()
    };
    let a = DomainFilter::within(&spec(r"\.a\.example\.com$"), &mut regexes).expect("compiles");
    let once = regexes.used();
    let again = DomainFilter::within(&spec(r"\.a\.example\.com$"), &mut regexes).expect("compiles");
    assert!(once > 0);
    assert_eq!(regexes.used(), once);
    match (&a.mode, &again.mode) {
        (
            super::Mode::Regex {
                include: Some(x), ..
            },
            super::Mode::Regex {
                include: Some(y), ..
            },
        ) => {
            assert!(std::sync::Arc::ptr_eq(x, y));
        }
        other => panic!("{other:?}"),
    }
    DomainFilter::within(&spec(r"\.b\.example\.com$"), &mut regexes).expect("compiles");
    assert!(regexes.used() > once);
    assert!(again.matches("x.a.example.com") && !again.matches("x.b.example.com"));
}

#[test]
fn a_regex_that_does_not_compile_is_refused_in_one_line_naming_the_fault_and_its_column() {
    let table = [
        ("(unclosed", "\"(unclosed\" is not a valid regular expression: unclosed group (at column 1)"),
        ("ab[z", "\"ab[z\" is not a valid regular expression: unclosed character class (at column 3)"),
        ("a{2,1}", "\"a{2,1}\" is not a valid regular expression: invalid repetition count range, the start must be <= the end (at column 2)"),
    ];
    for (pattern, want) in table {
        let spec = FilterSpec {
            regex_include: pattern.into(),
            ..FilterSpec::default()
        };
        let e = DomainFilter::new(&spec).expect_err(pattern);
        let FilterError::BadRegex { field, .. } = &e;
        assert_eq!(*field, "regexDomainFilter");
        assert_eq!(
            e.to_string(),
            format!("regexDomainFilter: {want}"),
            "{pattern}"
        );
        assert!(!e.to_string().contains('\n'), "{e}");
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(2000))]

    /// `excluding` is exact: when it names an exclusion, no name under the include filter
    /// matches; when it names none, the filter's own domain (or, for a leading-dot filter, a
    /// name just under it) matches.
    #[test]
    fn an_include_filter_is_excluded_whole_exactly_when_excluding_says_so(
        include in dotted(),
        exclude in prop::collection::vec(dotted(), 0..3),
        head in prop::collection::vec(label(), 0..3),
    ) {
        let spec = FilterSpec { include: vec![include.clone()], exclude, ..FilterSpec::default() };
        let filter = DomainFilter::new(&spec).expect("plain filters always compile");
        let Some(base) = prepare_filter(&include) else {
            prop_assert_eq!(filter.excluding(&include), None);
            return Ok(());
        };
        if filter.excluding(&include).is_some() {
            let under = format!("{}.{}", head.join("."), base.trim_start_matches('.'));
            prop_assert!(!naive_matches(&spec, &under), "{} matches", under);
            prop_assert!(!naive_matches(&spec, &base), "{} matches", base);
        } else {
            // "q7" is in no label of the pool, so no exclusion names it.
            let witness = if base.starts_with('.') { format!("q7{base}") } else { base.clone() };
            if normalize_name(&witness) == witness {
                prop_assert!(naive_matches(&spec, &witness), "{} does not match", witness);
            }
        }
    }
}

#[test]
fn an_exclusion_that_covers_an_include_filter_is_named() {
    // (include, exclude, the exclusion named)
    let table: &[(&str, &[&str], Option<&str>)] = &[
        ("team-a.example.com", &["example.com"], Some("example.com")),
        (
            "team-a.example.com",
            &["team-a.example.com."],
            Some("team-a.example.com"),
        ),
        (
            "team-a.example.com",
            &[".example.com"],
            Some(".example.com"),
        ),
        (".example.com", &[".example.com"], Some(".example.com")),
        (".example.com", &["example.com"], Some("example.com")),
        ("example.com", &[".example.com"], None),
        ("example.com", &["internal.example.com"], None),
        ("Example.COM", &["example.com"], Some("example.com")),
        ("", &["example.com"], None),
    ];
    for (include, exclude, want) in table {
        let spec = FilterSpec {
            include: vec![include.to_string()],
            exclude: exclude.iter().map(|e| e.to_string()).collect(),
            ..FilterSpec::default()
        };
        let filter = DomainFilter::new(&spec).expect("plain filters compile");
        assert_eq!(
            filter.excluding(include),
            *want,
            "{include:?} beside {exclude:?}"
        );
    }
    let regex = FilterSpec {
        include: vec!["example.com".into()],
        exclude: vec!["example.com".into()],
        regex_include: "x".into(),
        ..FilterSpec::default()
    };
    let filter = DomainFilter::new(&regex).expect("compiles");
    assert_eq!(
        filter.excluding("example.com"),
        None,
        "regex mode ignores the lists"
    );
}

#[test]
fn a_filter_reaches_a_delegated_domain_when_it_admits_some_name_of_it() {
    // (cluster include, cluster exclude, delegated domain, reached)
    let table: &[(&[&str], &[&str], &str, bool)] = &[
        (&["example.com"], &[], "team-a.example.com", true),
        (&["example.com"], &[], "team-a.example.org", false),
        (&[".example.com"], &[], "example.com", true),
        (&[".example.com"], &[], ".example.com", true),
        (
            &["example.com"],
            &["team-a.example.com"],
            "team-a.example.com",
            false,
        ),
        (
            &["example.com"],
            &[".team-a.example.com"],
            "team-a.example.com",
            true,
        ),
        (
            &["example.com"],
            &["team-a.example.com"],
            ".team-a.example.com",
            false,
        ),
        (&[], &[], "anything.org", true),
        (&[], &["org"], "anything.org", false),
        // Only a name under the delegated domain is admitted, not the domain itself.
        (&["api.team-a.example.com"], &[], "team-a.example.com", true),
        (
            &["api.team-a.example.com"],
            &[],
            "Team-A.Example.com.",
            true,
        ),
        (
            &[".team-a.example.com"],
            &["x.team-a.example.com"],
            "team-a.example.com",
            true,
        ),
        (
            &["api.team-a.example.com"],
            &["api.team-a.example.com"],
            "team-a.example.com",
            false,
        ),
        (
            &["api.team-a.example.com"],
            &["example.com"],
            "team-a.example.com",
            false,
        ),
        (&["team-a.example.com"], &[], "a.team-a.example.com", true),
        (&["team-a.example.com"], &[], "example.com", true),
        (&["anteam-a.example.com"], &[], "team-a.example.com", false),
        (&["example.com"], &[], "", false),
        (&["example.com"], &[], " . ", false),
    ];
    for (include, exclude, domain, want) in table {
        let spec = FilterSpec {
            include: include.iter().map(|s| s.to_string()).collect(),
            exclude: exclude.iter().map(|s| s.to_string()).collect(),
            ..FilterSpec::default()
        };
        let filter = DomainFilter::new(&spec).expect("plain filters compile");
        assert_eq!(
            filter.reaching(&[domain]),
            [*want],
            "{domain:?} under {include:?} minus {exclude:?}"
        );
    }
}

#[test]
fn reaching_answers_each_domain_of_a_list_in_its_place() {
    let spec = FilterSpec {
        include: vec!["api.team-a.example.com".into(), "example.net".into()],
        exclude: vec!["internal.example.net".into()],
        ..FilterSpec::default()
    };
    let filter = DomainFilter::new(&spec).expect("plain filters compile");
    let domains = [
        "team-a.example.com",
        "internal.example.net",
        "team-a.example.com",
        "example.org",
        "shop.example.net",
    ];
    assert_eq!(filter.reaching(&domains), [true, false, true, false, true]);
}

#[test]
fn in_regex_mode_reaching_probes_the_domain_and_a_name_under_it() {
    let spec = FilterSpec {
        regex_include: r"^x\.example\.com$".into(),
        ..FilterSpec::default()
    };
    let filter = DomainFilter::new(&spec).expect("compiles");
    assert_eq!(
        filter.reaching(&["example.com", "example.org", ".example.com", ""]),
        [true, false, true, false]
    );
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(2000))]

    /// `reaching` is exact: it says yes exactly when some name that both the delegated filter
    /// and the cluster's filter admit is among the few names that decide it (see
    /// `overlap`): the delegated filter and each include filter read as names, each alone and
    /// with a label no filter names ("q7") in front, and each of those with a trailing dot
    /// (normalisation takes one off, so "q7..." is how a name ending in ".." is written).
    #[test]
    fn reaching_agrees_with_a_search_for_a_shared_name(
        include in prop::collection::vec(dotted(), 0..4),
        exclude in prop::collection::vec(dotted(), 0..3),
        delegated in dotted(),
    ) {
        let spec = FilterSpec { include, exclude, ..FilterSpec::default() };
        let filter = DomainFilter::new(&spec).expect("plain filters always compile");
        let own = FilterSpec { include: vec![delegated.clone()], ..FilterSpec::default() };
        let filters = spec.include.iter().chain([&delegated]).filter_map(|f| prepare_filter(f));
        let candidates = filters.flat_map(|f| {
            let under = if f.starts_with('.') { format!("q7{f}") } else { format!("q7.{f}") };
            [format!("{f}."), f, format!("{under}."), under]
        });
        let mut names = candidates;
        let shared = prepare_filter(&delegated).is_some()
            && names.any(|n| naive_matches(&own, &n) && naive_matches(&spec, &n));
        prop_assert_eq!(filter.reaching(&[&delegated]), [shared]);
    }
}

#[test]
fn a_regex_part_no_name_a_filter_sees_holds_is_found_and_classes_or_ignored_case_are_not() {
    let upper = |part: &str| Some(ImpossibleLiteral::UpperCase(part.to_string()));
    let foreign = |part: &str, found: char| {
        let part = part.to_string();
        Some(ImpossibleLiteral::Foreign { part, found })
    };
    let table: [(&str, Option<ImpossibleLiteral>); 17] = [
        (r"^.*\.Example\.com$", upper(".Example.com")),
        (r"^(api|Web)\.example\.com$", upper("Web")),
        (r"^(?:Äpfel|b)+\.example\.com$", upper("Äpfel")),
        (r"(?i)^.*\.Example\.com$", None),
        (r"^(?i:Api)\.example\.com$", None),
        (r"^[A-Z]+\.example\.com$", None),
        (r"^\p{Lu}\.example\.com$", None),
        (r"^.*\.example\.com$", None),
        ("*.example.com", None),
        // A backslash doubled in YAML single quotes: a backslash, then any character.
        (r"^.*\\.example\\.com$", foreign(r"\", '\\')),
        (r"^.*\\\.example\.com$", foreign(r"\.example.com", '\\')),
        (r"^.*\.example\.com $", foreign(".example.com ", ' ')),
        (r"^https://.*$", foreign("https://", ':')),
        (r"^[\\/]x$", None),
        (r"^_http\._tcp\.example\.com$", None),
        (r"^\*\.example\.com$", None),
        (r"^bücher\.example$", None),
    ];
    for (pattern, want) in table {
        assert_eq!(impossible_literal(pattern), want, "{pattern:?}");
    }
}

#[test]
fn a_filter_is_dropped_exactly_when_its_preparation_leaves_nothing() {
    for raw in [
        "",
        " ",
        ".",
        " . ",
        "..",
        "...",
        "example.com",
        " example.com. ",
        "EXAMPLE.com..",
        "\u{3002}",
        "xn--",
        "bücher.example",
        "\u{00ad}",
        "\u{00ad}.",
        "\t.\n",
    ] {
        assert_eq!(is_dropped(raw), prepare_filter(raw).is_none(), "{raw:?}");
    }
}
