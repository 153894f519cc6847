//! zoneguard's reading of external-dns's annotation values and its TXT ownership names against
//! external-dns's own functions: `annotations.TTLFromAnnotations` (the `ttl` annotation),
//! `annotations.SplitHostnameAnnotation` (the `hostname` lists) and the TXT registry's
//! `AffixNameMapper.ToTXTName` (SPEC §7.5, §7.4, §7.6).

use super::{ask_reference, build_reference, decoded, seed, Rng, SHOWN};
use serde::Serialize;
use zoneguard_core::annotation::{parse_ttl, split_hostnames};
use zoneguard_core::hostname::txt_name;
use zoneguard_core::rules::RuleSet;

/// Values per run, for each of the three.
const CASES: usize = 6000;

#[test]
fn zoneguard_reads_the_ttl_annotation_exactly_as_external_dns_does() {
    let reference = build_reference();
    let mut rng = Rng(seed() ^ 0x0074_746c);
    let mut values: Vec<String> = (0..CASES).map(|_| random_ttl(&mut rng)).collect();
    values.extend(TTL_EDGES.iter().map(|s| (*s).to_owned()));
    let answers: Vec<i64> = decoded(&ask_reference(&reference, &["ttl"], &values));
    let set = answers.iter().filter(|ttl| **ttl != 0).count();
    let disagreements = disagreements(values.iter().zip(answers), |value, go| {
        let ours = parse_ttl(value).unwrap_or(0);
        (ours != go).then(|| format!("  {value:?}: external-dns {go}, zoneguard {ours}"))
    });
    eprintln!(
        "differential: {} ttl values ({set} read as a TTL), {} disagreements",
        values.len(),
        disagreements.len()
    );
    assert!(
        set > values.len() / 5 && set < values.len() * 4 / 5,
        "the generator should make both valid and invalid TTLs; {set} of {} were valid",
        values.len()
    );
    assert_agree("ttl values", values.len(), &disagreements);
}

#[test]
fn zoneguard_splits_hostname_lists_exactly_as_external_dns_does() {
    let reference = build_reference();
    let mut rng = Rng(seed() ^ 0x0073_706c_6974);
    let values: Vec<String> = (0..CASES).map(|_| random_list(&mut rng)).collect();
    let answers: Vec<Vec<String>> = decoded(&ask_reference(&reference, &["split"], &values));
    let disagreements = disagreements(values.iter().zip(answers), |value, go| {
        let ours: Vec<String> = split_hostnames(value).into_iter().map(|i| i.name).collect();
        (ours != go).then(|| format!("  {value:?}: external-dns {go:?}, zoneguard {ours:?}"))
    });
    eprintln!(
        "differential: {} hostname lists, {} disagreements",
        values.len(),
        disagreements.len()
    );
    assert_agree("hostname lists", values.len(), &disagreements);
}

/// One case of the TXT name mapper, as the reference reads it.
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct TxtCase {
    name: String,
    prefix: String,
    suffix: String,
    wildcard_replacement: String,
    record_type: &'static str,
}

#[test]
fn zoneguard_names_txt_ownership_records_exactly_as_external_dns_does() {
    let reference = build_reference();
    let mut rng = Rng(seed() ^ 0x0074_7874);
    let cases: Vec<TxtCase> = (0..CASES).map(|_| random_txt_case(&mut rng)).collect();
    let answers: Vec<String> = decoded(&ask_reference(&reference, &["txt"], &cases));
    let disagreements = disagreements(cases.iter().zip(answers), |case, go| {
        let ours = txt_name(&case.name, &registry_of(case).registry);
        (ours != go).then(|| {
            format!(
                "  {:?} with prefix {:?}, suffix {:?}, wildcard replacement {:?}: \
                 external-dns {go:?}, zoneguard {ours:?}",
                case.name, case.prefix, case.suffix, case.wildcard_replacement
            )
        })
    });
    eprintln!(
        "differential: {} TXT names, {} disagreements",
        cases.len(),
        disagreements.len()
    );
    assert_agree("TXT names", cases.len(), &disagreements);
}

/// The rule set whose `registry` holds the case's affixes, read as a rules file is, so the
/// affixes go through the same reading (lower-casing included) as a platform team's.
fn registry_of(case: &TxtCase) -> RuleSet {
    let rules = serde_json::json!({
        "registry": {
            "txtPrefix": case.prefix,
            "txtSuffix": case.suffix,
            "txtWildcardReplacement": case.wildcard_replacement,
        }
    });
    RuleSet::parse("rules.json", &rules.to_string())
        .unwrap_or_else(|errors| panic!("rules {rules} refused: {errors:?}"))
}

fn disagreements<C, A>(
    pairs: impl Iterator<Item = (C, A)>,
    compare: impl Fn(C, A) -> Option<String>,
) -> Vec<String> {
    pairs.filter_map(|(case, go)| compare(case, go)).collect()
}

fn assert_agree(what: &str, total: usize, disagreements: &[String]) {
    assert!(
        disagreements.is_empty(),
        "{} of {total} {what} disagree with external-dns; first {}:\n{}",
        disagreements.len(),
        SHOWN.min(disagreements.len()),
        disagreements[..SHOWN.min(disagreements.len())].join("\n")
    );
}

/// TTLs at the edges of Go's duration and integer parsers and of external-dns's range.
const TTL_EDGES: &[&str] = &[
    "",
    "0",
    "+0",
    "-0",
    "0s",
    "1",
    "2147483647",
    "2147483648",
    "2147483647s",
    "2147483647.999999999s",
    "2147483648s",
    "596523h14m7s",
    "596523h14m8s",
    "9223372036854775807",
    "9223372036854775808",
    "9223372036854775807ns",
    "9223372036854775808ns",
    "-9223372036854775808ns",
    "2562047h47m16.854775807s",
    "2562047h47m16.854775808s",
    "1.s",
    ".5s",
    ".s",
    "1.5.s",
    "1e3",
    "0x10",
    "1_000",
    "60S",
    "1d",
    "500ms",
    "1500ms",
    "999999999ns",
    "1000000000ns",
    "1µs",
    "1\u{3bc}s",
    "\u{3bc}s",
    " 60",
    "60 ",
    "٦٠",
    "1h-1m",
    "+-1s",
    "00000000000000000000000000060",
    "1.00000000000000000000000000001s",
];

/// A value put together from the pieces Go's duration and integer parsers treat differently.
fn random_ttl(rng: &mut Rng) -> String {
    const PIECES: &[&str] = &[
        "0",
        "1",
        "6",
        "60",
        "600",
        "86400",
        "2147483647",
        "99999999999",
        "0000",
        ".",
        ".5",
        "+",
        "-",
        "ns",
        "us",
        "µs",
        "\u{3bc}s",
        "ms",
        "s",
        "m",
        "h",
        "d",
        "S",
        "H",
        " ",
        "e3",
        "x",
        "_",
    ];
    let numbers = &PIECES[..7];
    let units = &PIECES[13..21];
    match rng.below(3) {
        // A well-formed duration or integer, most of the time inside the range.
        0 => (0..1 + rng.below(3))
            .map(|_| format!("{}{}", rng.pick(numbers), rng.pick(units)))
            .collect(),
        1 => rng.pick(numbers).to_owned(),
        _ => (0..1 + rng.below(5)).map(|_| rng.pick(PIECES)).collect(),
    }
}

/// A hostname annotation value: names, commas and the white space external-dns deletes or
/// keeps.
fn random_list(rng: &mut Rng) -> String {
    const PIECES: &[&str] = &[
        "a.example.com",
        "b.example.org",
        "x",
        "é.example",
        "*.example.com",
        ",",
        ",",
        ",,",
        " ",
        "  ",
        "\t",
        "\n",
        "\r",
        "\u{a0}",
        "\u{85}",
        "\u{2003}",
        "\u{feff}",
        "a b",
        ".",
    ];
    (0..rng.below(8)).map(|_| rng.pick(PIECES)).collect()
}

fn random_txt_case(rng: &mut Rng) -> TxtCase {
    const AFFIXES: &[&str] = &[
        "",
        "",
        "p-",
        "P-",
        "txt.",
        "a.b-",
        "%{record_type}-",
        "%{RECORD_TYPE}.",
        "x%{record_type}y",
        "%{record_type}%{record_type}",
        "%{record_type",
        "İ-",
        "ẞ",
    ];
    const WILDCARDS: &[&str] = &["", "", "wild", "W", "any-", "İ"];
    const LABELS: &[&str] = &["*", "a", "Ab", "www", "xn--bcher-kva", "é", "", "-", "*x"];
    let long = "l".repeat(55 + rng.below(12));
    let mut labels: Vec<String> = (0..1 + rng.below(4))
        .map(|_| rng.pick(LABELS).to_owned())
        .collect();
    if rng.chance(20) {
        labels[0] = long;
    }
    let mut name = labels.join(".");
    if rng.chance(10) {
        name.push('.');
    }
    TxtCase {
        name,
        prefix: rng.pick(AFFIXES).to_owned(),
        suffix: rng.pick(AFFIXES).to_owned(),
        wildcard_replacement: rng.pick(WILDCARDS).to_owned(),
        record_type: "CNAME",
    }
}
