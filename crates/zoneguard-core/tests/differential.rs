//! Differential test: zoneguard's `DomainFilter` against external-dns v0.22.0's own
//! `endpoint.NewDomainFilterWithOptions(...).Match` (and its annotation readers, selectors,
//! templates and TXT names, in the modules below), run through the Go program in
//! `tests/extdns-reference/`. Needs `go` on PATH (and the module cache or the Go
//! module proxy); without it the test fails, it never skips.

use std::io::{BufRead, BufReader, Write};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use serde::Serialize;
use zoneguard_core::filter::{DomainFilter, FilterSpec};

/// external-dns's `ttl` and `hostname` annotation readers and TXT names against zoneguard's.
#[path = "differential/annotations.rs"]
mod annotations;

/// external-dns's label and annotation filters against zoneguard's selectors.
#[path = "differential/selectors.rs"]
mod selectors;

/// external-dns's `--fqdn-template` engine against zoneguard's.
#[path = "differential/templates.rs"]
mod templates;

/// Cases per run.
const CASES: usize = 8000;
/// Fixed seed: a failure reproduces. `ZONEGUARD_DIFF_SEED` (a number) explores others.
const DEFAULT_SEED: u64 = 0x5eed_d0e5_2026;

/// The seed of this run.
fn seed() -> u64 {
    std::env::var("ZONEGUARD_DIFF_SEED")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(DEFAULT_SEED)
}
/// Disagreements printed in full.
const SHOWN: usize = 25;

/// One input line of the Go reference.
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
struct Case {
    filters: Vec<String>,
    exclusions: Vec<String>,
    regex_include: String,
    regex_exclude: String,
    name: String,
}

#[test]
fn zoneguard_matches_exactly_as_external_dns_does() {
    let reference = build_reference();
    let mut rng = Rng(seed());
    let cases: Vec<Case> = (0..CASES).map(|_| random_case(&mut rng)).collect();
    let verdicts = ask_reference(&reference, &[], &cases);

    let disagreements: Vec<String> = cases
        .iter()
        .zip(&verdicts)
        .filter_map(|(case, go)| compare(case, go))
        .collect();
    let matched = verdicts.iter().filter(|v| *v == "true").count();
    eprintln!(
        "differential: {} cases ({matched} matched, {} errors), {} disagreements",
        cases.len(),
        verdicts.iter().filter(|v| v.starts_with("error")).count(),
        disagreements.len()
    );
    assert!(
        disagreements.is_empty(),
        "{} of {} cases disagree with external-dns; first {}:\n{}",
        disagreements.len(),
        cases.len(),
        SHOWN.min(disagreements.len()),
        disagreements[..SHOWN.min(disagreements.len())].join("\n")
    );
}

#[test]
fn zoneguard_normalises_names_exactly_as_external_dns_does() {
    let reference = build_reference();
    let mut rng = Rng(seed() ^ 0x6e6f_726d);
    let mut names: Vec<String> = (0..CASES).map(|_| random_name(&mut rng)).collect();
    names.extend((0..CASES / 2).map(|_| random_text(&mut rng)));
    names.extend(
        LABELS
            .iter()
            .chain(ODD_NAMES)
            .chain(BASES)
            .map(|s| (*s).to_owned()),
    );
    let answers = ask_reference(&reference, &["normalize"], &names);
    let disagreements: Vec<String> = names
        .iter()
        .zip(&answers)
        .filter_map(|(name, answer)| {
            let go: String = serde_json::from_str(answer).unwrap_or_else(|_| answer.clone());
            let ours = zoneguard_core::filter::normalize_name(name);
            (ours != go).then(|| format!("  {name:?}: external-dns {go:?}, zoneguard {ours:?}"))
        })
        .collect();
    eprintln!(
        "differential: {} names normalised, {} disagreements",
        names.len(),
        disagreements.len()
    );
    assert!(
        disagreements.is_empty(),
        "{} of {} names normalise differently; first {}:\n{}",
        disagreements.len(),
        names.len(),
        SHOWN.min(disagreements.len()),
        disagreements[..SHOWN.min(disagreements.len())].join("\n")
    );
}

/// Random text over characters that UTS-46 treats in every way it can: valid,
/// mapped, ignored, disallowed, combining, right-to-left, dots of other scripts.
fn random_text(rng: &mut Rng) -> String {
    const POOL: &[&str] = &[
        "a",
        "Z",
        "0",
        "-",
        ".",
        "_",
        "*",
        " ",
        "é",
        "e\u{301}",
        "\u{301}",
        "ß",
        "ẞ",
        "ς",
        "Σ",
        "İ",
        "ı",
        "ǅ",
        "ﬁ",
        "①",
        "⒈",
        "㎏",
        "℡",
        "Ⅻ",
        "ｘ",
        "。",
        "．",
        "｡",
        "\u{200c}",
        "\u{200d}",
        "\u{ad}",
        "\u{fe0f}",
        "\u{7}",
        "\u{7f}",
        "\u{a0}",
        "\u{ffff}",
        "\u{e000}",
        "\u{10ffff}",
        "א",
        "\u{5b4}",
        "ب",
        "\u{661}",
        "日",
        "한",
        "ᄀ",
        "\u{1161}",
        "💩",
        "🏳\u{fe0f}\u{200d}🌈",
        "xn--",
        "XN--",
        "-",
        "ǈ",
        "Ⓐ",
        "ﾊﾟ",
        "\u{e0001}",
        "\u{1e900}",
        "\u{a7c0}",
        "\u{2ff0}",
        "\u{1fbf0}",
    ];
    (0..1 + rng.below(8)).map(|_| rng.pick(POOL)).collect()
}

/// Describes a disagreement between zoneguard and the reference verdict `go`.
fn compare(case: &Case, go: &str) -> Option<String> {
    let spec = FilterSpec {
        include: case.filters.clone(),
        exclude: case.exclusions.clone(),
        regex_include: case.regex_include.clone(),
        regex_exclude: case.regex_exclude.clone(),
    };
    let ours = match DomainFilter::new(&spec) {
        Ok(filter) => filter.matches(&case.name).to_string(),
        Err(err) => format!("error: {err}"),
    };
    let agree = if go.starts_with("error") {
        ours.starts_with("error")
    } else {
        ours == go
    };
    (!agree).then(|| {
        format!(
            "  name {:?}\n    filters {:?} exclusions {:?} regex {:?} regexExclusion {:?}\n    \
             external-dns: {go}   zoneguard: {ours}   (zoneguard normalises the name to {:?})",
            case.name,
            case.filters,
            case.exclusions,
            case.regex_include,
            case.regex_exclude,
            zoneguard_core::filter::normalize_name(&case.name)
        )
    })
}

/// Builds the Go reference into this test's scratch directory, once for all the tests.
fn build_reference() -> PathBuf {
    static BUILT: std::sync::OnceLock<PathBuf> = std::sync::OnceLock::new();
    BUILT.get_or_init(build).clone()
}

fn build() -> PathBuf {
    let source = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/extdns-reference");
    let binary = Path::new(env!("CARGO_TARGET_TMPDIR")).join("extdns-reference");
    let output = Command::new("go")
        .args(["build", "-buildvcs=false", "-o"])
        .arg(&binary)
        .arg(".")
        .current_dir(&source)
        .output()
        .unwrap_or_else(|err| {
            panic!(
                "cannot run `go` ({err}): the differential test needs the Go toolchain on PATH \
                 to build {} (external-dns v0.22.0's own DomainFilter)",
                source.display()
            )
        });
    assert!(
        output.status.success(),
        "`go build` of {} failed:\n{}",
        source.display(),
        String::from_utf8_lossy(&output.stderr)
    );
    binary
}

/// Each of `cases` as a JSON line to the reference run with `args`: one answer a case.
fn ask_reference<T: Serialize>(binary: &Path, args: &[&str], cases: &[T]) -> Vec<String> {
    let lines: Vec<String> = cases
        .iter()
        .map(|c| serde_json::to_string(c).expect("cases serialise"))
        .collect();
    let answers = run_reference(binary, args, &lines);
    assert_eq!(
        answers.len(),
        cases.len(),
        "the reference answered fewer lines than it was given"
    );
    answers
}

/// Each of the reference's `answers` decoded from its JSON.
fn decoded<A: serde::de::DeserializeOwned>(answers: &[String]) -> Vec<A> {
    answers
        .iter()
        .map(|line| {
            serde_json::from_str(line).unwrap_or_else(|e| panic!("reference answer {line:?}: {e}"))
        })
        .collect()
}

/// Feeds every line to the reference and collects one answer per line.
fn run_reference(binary: &Path, args: &[&str], lines: &[String]) -> Vec<String> {
    let mut child = Command::new(binary)
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::inherit())
        .spawn()
        .unwrap_or_else(|err| panic!("cannot start {}: {err}", binary.display()));
    let mut stdin = child.stdin.take().expect("piped stdin");
    let input: String = lines.iter().map(|line| format!("{line}\n")).collect();
    let writer = std::thread::spawn(move || stdin.write_all(input.as_bytes()));
    let stdout = child.stdout.take().expect("piped stdout");
    let verdicts: Vec<String> = BufReader::new(stdout)
        .lines()
        .map(|line| line.expect("reference output is UTF-8"))
        .collect();
    writer
        .join()
        .expect("writer thread")
        .expect("writing cases");
    let status = child.wait().expect("reference exits");
    assert!(status.success(), "the reference exited with {status}");
    verdicts
}

/// A small deterministic generator (SplitMix64).
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }

    fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }

    /// True with probability `percent`/100.
    fn chance(&mut self, percent: u64) -> bool {
        self.next() % 100 < percent
    }

    fn pick<'a>(&mut self, items: &[&'a str]) -> &'a str {
        items[self.below(items.len())]
    }
}

/// Registered domains, in Unicode or ASCII form (converted at random).
const BASES: &[&str] = &[
    "example.com",
    "example.org",
    "team-a.example.com",
    "internal.example.com",
    "münchen.de",
    "bücher.example",
    "straße.de",
    "日本.jp",
    "пример.рф",
    "παράδειγμα.gr",
    "example.co.uk",
    "a.b.c.d",
    "ab.c",
    // Decodes to an upper-case `Ü`: external-dns maps it in filters (prepared
    // twice) but not in names.
    "xn--wca.com",
];

/// Extra labels put in front of a base.
const LABELS: &[&str] = &[
    "a",
    "www",
    "api",
    "x1",
    "db",
    "_acme-challenge",
    "Team-A",
    "ü",
    "ß",
    "σ",
    "ς",
    "日本",
    "ａｂｃ",
    "xn--abc-",
    "xn--",
    "xn--zz",
    "XN--MNCHEN-3YA",
    "xn--mnchen-3ya",
    "a_b",
    "",
    "-x",
    "123",
    "an",
    "Ｅｘａｍｐｌｅ",
    "İ",
    "x\u{200d}y",
    "e\u{301}",
    "soft\u{ad}hyphen",
    "*",
    // Labels that UTS-46 maps, ignores, refuses or decodes oddly.
    "xn--tda",
    "xn--b-xfa",
    "\u{301}a",
    "a\u{7}b",
    "שלום",
    "a\u{5d0}",
    "ﻣﺮﺣﺒﺎ",
    "x\u{200c}y",
    "fe\u{fe0f}",
    "ǅ",
    "Ⅻ",
    "℡",
    "ﬁ",
    "①",
    "㎏",
    "💩",
    "a｡b",
    "a．b",
    "\u{ffff}",
    "a b",
    "x/y",
    "a:b",
    "@",
    "xn--mnchen-3ya\u{301}",
    "Xn--Bcher-Kva",
    "xn--ü",
    "\u{2488}",
];

/// Names unrelated to the bases, to exercise near misses.
const ODD_NAMES: &[&str] = &[
    "",
    ".",
    "..",
    "anexample.com",
    "example.com.evil.org",
    "com",
    "*.",
    "*.com",
    "EXAMPLE。COM",
    "example．com",
    " example.com",
    "example.com ",
    "xn--mnchen-3ya.de.",
    "MÜNCHEN.DE",
];

/// Go RE2 patterns (all valid in Go) using the escapes whose meaning differs in Rust.
const PATTERNS: &[&str] = &[
    r"\.example\.com$",
    r"^[\w-]+\.example\.com$",
    r"^\w+\.example\.(com|org)$",
    r"\d",
    r"^\D+$",
    r"\bapi\b",
    r"\Bpi",
    r"[^\W\d_]+\.de$",
    r"(?i)EXAMPLE",
    r"münchen",
    r"^xn--",
    r"\s",
    r"^\S+$",
    r"[[:alpha:]]+\.org$",
    r"^[a-z0-9.-]+$",
    r"\pL+\.de$",
    r"^.*$",
    r"ü",
    r"\x{fc}",
    r"\Q.example.\E",
    r"[\d-]",
    r"^(www|api)\.",
    r"team-[a-z]\.",
    r"^\*\.",
    r"\w\.\w",
    r"^\w+$",
    r"\b\w+\b\.de$",
    r"[^.]{10,}",
    r"\141pi",
    r"^[\W]",
    // Go reads these otherwise than Rust's regex crate, or Rust refuses them as written.
    r"\<internal\>",
    r"\<api\>",
    r"^\p{^N}+\.",
    r"[\p{^Lu}]\.de$",
    r"\P{^L}\.",
    r"(?)api",
    r"^(?P<a>api)\.|^(?P<a>www)\.",
    r"\p{Cs}",
    r"^\P{Cs}+$",
    r"\_acme",
    r"^[\pL\pN-]{1,63}(\.[\pL\pN-]{1,63}){0,5}$",
];

/// Patterns that Go refuses (external-dns would not start), to compare the refusals.
const BAD_PATTERNS: &[&str] = &["(", "[a", "\\", "*a", "a{2,1}", "a**", r"\8", r"\C", "(?z)"];

/// A random case: plain lists most of the time, regex flags a quarter of the time.
fn random_case(rng: &mut Rng) -> Case {
    let filters = (0..rng.below(4))
        .map(|_| random_filter(rng, false))
        .collect();
    let exclusions = (0..rng.below(3))
        .map(|_| random_filter(rng, true))
        .collect();
    let (regex_include, regex_exclude) = if rng.chance(25) {
        random_regexes(rng)
    } else {
        (String::new(), String::new())
    };
    Case {
        filters,
        exclusions,
        regex_include,
        regex_exclude,
        name: random_name(rng),
    }
}

/// A pair of regex flags, at least one non-empty.
fn random_regexes(rng: &mut Rng) -> (String, String) {
    if rng.chance(3) {
        return (rng.pick(BAD_PATTERNS).to_owned(), String::new());
    }
    match rng.below(3) {
        0 => (rng.pick(PATTERNS).to_owned(), String::new()),
        1 => (String::new(), rng.pick(PATTERNS).to_owned()),
        _ => (rng.pick(PATTERNS).to_owned(), rng.pick(PATTERNS).to_owned()),
    }
}

/// A base in Unicode, ASCII (punycode) or upper-case form.
fn random_base(rng: &mut Rng) -> String {
    let base = rng.pick(BASES);
    match rng.below(3) {
        0 => idna::domain_to_ascii(base).unwrap_or_else(|_| base.to_owned()),
        1 if rng.chance(30) => base.to_uppercase(),
        _ => base.to_owned(),
    }
}

/// A filter item as a user might write it.
fn random_filter(rng: &mut Rng, exclusion: bool) -> String {
    if rng.chance(4) {
        return rng.pick(&["", "  ", ".", "*", " . "]).to_owned();
    }
    let mut filter = random_base(rng);
    if exclusion || rng.chance(20) {
        filter = format!(
            "{}.{filter}",
            rng.pick(&["internal", "db", "team-a", "a", "*", "ü"])
        );
    }
    if rng.chance(25) {
        filter.insert(0, '.');
    }
    if rng.chance(20) {
        filter.push('.');
    }
    if rng.chance(10) {
        filter = format!(" {filter} ");
    }
    filter
}

/// A name: usually some labels in front of a base, with case, dot and form noise.
fn random_name(rng: &mut Rng) -> String {
    if rng.chance(8) {
        return rng.pick(ODD_NAMES).to_owned();
    }
    let mut labels: Vec<String> = (0..rng.below(3)).map(|_| random_label(rng)).collect();
    if rng.chance(15) {
        labels.insert(0, "*".to_owned());
    }
    labels.push(random_base(rng));
    let mut name = labels.join(".");
    if rng.chance(15) {
        name = flip_case(rng, &name);
    }
    if rng.chance(5) {
        name = name.replacen('.', "。", 1);
    }
    if rng.chance(5) {
        name.insert(0, '.');
    }
    match rng.below(10) {
        0..=2 => name.push('.'),
        3 => name.push_str(".."),
        _ => {}
    }
    name
}

/// A label from the pool, or now and then a random would-be Punycode label.
fn random_label(rng: &mut Rng) -> String {
    if !rng.chance(15) {
        return rng.pick(LABELS).to_owned();
    }
    const DIGITS: &[u8] = b"abcdefghijklmnopqrstuvwxyz0123456789-";
    let tail: String = (0..rng.below(12))
        .map(|_| char::from(DIGITS[rng.below(DIGITS.len())]))
        .collect();
    format!("{}{tail}", rng.pick(&["xn--", "XN--", "xn--a-", "xn--ab-"]))
}

/// Upper-cases characters at random.
fn flip_case(rng: &mut Rng, name: &str) -> String {
    name.chars()
        .map(|c| {
            if rng.chance(50) {
                c.to_uppercase().collect::<String>()
            } else {
                c.to_string()
            }
        })
        .collect()
}
