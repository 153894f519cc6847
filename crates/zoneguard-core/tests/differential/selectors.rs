//! zoneguard's selectors against apimachinery's `labels.Parse` (external-dns's
//! `--label-filter`) and external-dns's `annotations.ParseFilter` (its `--annotation-filter`
//! and `--gateway-label-filter`): which texts each refuses, and what each selects.

use super::{ask_reference, build_reference, decoded, seed, Rng, SHOWN};
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use zoneguard_core::selector::Selector;

/// Selector texts per run.
const CASES: usize = 6000;
/// Label sets each selector is matched against.
const SETS: usize = 6;

#[derive(Serialize)]
struct Case {
    text: String,
    sets: Vec<BTreeMap<String, String>>,
}

/// The reference's answer: `None` where it refuses the text.
#[derive(Deserialize, PartialEq, Debug)]
#[serde(rename_all = "camelCase")]
struct Answer {
    labels: Option<Vec<bool>>,
    set_based: Option<Vec<bool>>,
}

#[test]
fn zoneguard_parses_and_matches_selectors_exactly_as_external_dns_does() {
    let reference = build_reference();
    let mut rng = Rng(seed() ^ 0x7365_6c65_6374);
    let cases: Vec<Case> = (0..CASES)
        .map(|_| Case {
            text: random_selector(&mut rng),
            sets: (0..SETS).map(|_| random_set(&mut rng)).collect(),
        })
        .collect();
    let answers: Vec<Answer> = decoded(&ask_reference(&reference, &["selector"], &cases));
    let mut parsed = 0;
    let disagreements: Vec<String> = cases
        .iter()
        .zip(answers)
        .filter_map(|(case, go)| {
            let ours = Answer {
                labels: judge(Selector::parse_labels(&case.text), &case.sets),
                set_based: judge(Selector::parse_set_based(&case.text), &case.sets),
            };
            parsed += usize::from(go.labels.is_some());
            (ours != go).then(|| {
                format!(
                    "  {:?} on {:?}: external-dns {go:?}, zoneguard {ours:?}",
                    case.text, case.sets
                )
            })
        })
        .collect();
    eprintln!(
        "differential: {} selectors ({parsed} valid label filters), {} disagreements",
        cases.len(),
        disagreements.len()
    );
    assert!(
        parsed > CASES / 4 && parsed < CASES * 3 / 4,
        "the generator should make both valid and invalid selectors; {parsed} of {CASES} parsed"
    );
    assert!(
        disagreements.is_empty(),
        "{} of {} selectors disagree with external-dns; first {}:\n{}",
        disagreements.len(),
        cases.len(),
        SHOWN.min(disagreements.len()),
        disagreements[..SHOWN.min(disagreements.len())].join("\n")
    );
}

fn judge<E>(parsed: Result<Selector, E>, sets: &[BTreeMap<String, String>]) -> Option<Vec<bool>> {
    let selector = parsed.ok()?;
    Some(
        sets.iter()
            .map(|set| selector.matches(|k| set.get(k).map(String::as_str)))
            .collect(),
    )
}

const KEYS: &[&str] = &["a", "b", "app", "example.com/team", "in", "Tier.v2"];
/// Keys apimachinery refuses, and some it accepts that look odd.
const ODD_KEYS: &[&str] = &[
    "-a",
    "A.com/b",
    "a/b/c",
    "a_",
    "é",
    "/a",
    "notin",
    "a-.com/b",
    "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa.com/b",
    "bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb",
];
const VALUES: &[&str] = &["x", "y", "", "1", "10", "007", "in", "X.y_z"];
const BAD_VALUES: &[&str] = &["-1", "+5", "x y", "a/b", "99999999999999999999", "é", "_x"];

/// A selector made mostly of well-formed requirements, with now and then a broken token.
fn random_selector(rng: &mut Rng) -> String {
    let mut out = String::new();
    if rng.chance(10) {
        // One key twice: a map keeps only the last `key=value` of the annotation filter.
        let key = rng.pick(&KEYS[..2]);
        let (first, last) = (rng.pick(&VALUES[..3]), rng.pick(&VALUES[..3]));
        out = format!("{key}={first},{key}={last},");
    }
    for i in 0..rng.below(4) {
        if i > 0 {
            out.push_str(if rng.chance(10) { " , " } else { "," });
        }
        out.push_str(&random_requirement(rng));
    }
    if rng.chance(8) {
        let junk = rng.pick(&[",", "!", "(", ")", "=", " ", "\0", "\t", "a", "in", "\0x"]);
        let at = rng.below(out.len() + 1);
        if out.is_char_boundary(at) {
            out.insert_str(at, junk);
        }
    }
    out
}

fn random_requirement(rng: &mut Rng) -> String {
    let key = if rng.chance(6) {
        rng.pick(ODD_KEYS)
    } else {
        rng.pick(KEYS)
    };
    let value = |rng: &mut Rng| {
        if rng.chance(6) {
            rng.pick(BAD_VALUES)
        } else {
            rng.pick(VALUES)
        }
    };
    let space = |rng: &mut Rng| if rng.chance(25) { " " } else { "" };
    match rng.below(9) {
        0 => key.to_string(),
        1 => format!("!{}{key}", space(rng)),
        2..=5 => {
            let op = rng.pick(&["=", "==", "!=", ">", "<"]);
            format!("{key}{}{op}{}{}", space(rng), space(rng), value(rng))
        }
        _ => {
            let op = rng.pick(&["in", "notin"]);
            let values: Vec<&str> = (0..rng.below(4)).map(|_| value(rng)).collect();
            format!("{key} {op} ({})", values.join(","))
        }
    }
}

fn random_set(rng: &mut Rng) -> BTreeMap<String, String> {
    let mut set = BTreeMap::new();
    for key in KEYS {
        if rng.chance(50) {
            let v = rng.pick(&[
                "x", "y", "", "1", "10", "7", "-3", "in", "X.y_z", "z", "x", "y",
            ]);
            set.insert(key.to_string(), v.to_string());
        }
    }
    set
}
