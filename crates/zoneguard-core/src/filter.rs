//! external-dns's `DomainFilter` (v0.22.0, `endpoint/domain_filter.go`), matched in
//! time independent of the number of filters.
//!
//! Behaviour:
//!
//! * Names and filters are normalised as external-dns does: one trailing dot
//!   stripped, UTS-46 to-Unicode (mapping, non-transitional, STD3 off, `xn--`
//!   labels decoded, the partial result kept on error). Filters are also trimmed,
//!   and empty ones dropped ([`normalize_name`], `normalize.rs`).
//! * Plain lists: `include(name) && !exclude(name)`; an empty include list matches
//!   everything. A filter covers a name at a label boundary; a leading-dot filter
//!   covers proper subdomains only (`suffix_index.rs`, which also shows why a hash of
//!   label suffixes answers exactly what external-dns's linear scan answers).
//! * Regex mode: when either regex is set, both plain lists are ignored; the
//!   exclusion is searched first, then the include pattern. Go RE2 patterns are
//!   translated to Rust `regex` syntax with Go's ASCII-only `\w \d \s \b`
//!   (`regex_translate.rs`).

mod normalize;
mod overlap;
mod regex_translate;
mod suffix_index;

pub use normalize::is_dropped;

#[cfg(test)]
mod tests;

use regex_automata::{meta, util::syntax, Input, MatchKind};
use std::collections::HashMap;
use std::sync::Arc;
use thiserror::Error;

use self::suffix_index::SuffixIndex;

/// The four external-dns flags that decide which names a cluster's external-dns manages.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct FilterSpec {
    /// `--domain-filter`, one item per filter (no comma splitting).
    pub include: Vec<String>,
    /// `--exclude-domains`.
    pub exclude: Vec<String>,
    /// `--regex-domain-filter` ("" = unset).
    pub regex_include: String,
    /// `--regex-domain-exclusion` ("" = unset).
    pub regex_exclude: String,
}

/// A compiled filter.
#[derive(Debug, Clone)]
pub struct DomainFilter {
    spec: FilterSpec,
    mode: Mode,
}

/// How a compiled filter decides.
#[derive(Debug, Clone)]
enum Mode {
    /// `--domain-filter` / `--exclude-domains`, normalised and indexed.
    Plain {
        include: Box<SuffixIndex>,
        exclude: Box<SuffixIndex>,
    },
    /// `--regex-domain-filter` / `--regex-domain-exclusion` (at least one is set).
    Regex {
        include: Option<Regex>,
        exclude: Option<Regex>,
    },
}

/// A compiled pattern, shared by every filter of a rule set that has the same one.
type Regex = Arc<meta::Regex>;

/// The regexes of one rule set as they are compiled: each pattern once, and their memory
/// within [`REGEX_BUDGET`].
#[derive(Debug, Default)]
pub struct Regexes {
    /// By translated pattern.
    compiled: HashMap<String, Regex>,
    /// The memory they hold (`meta::Regex::memory_usage`).
    used: usize,
}

/// Why a filter cannot be built.
#[derive(Debug, Error, Clone, PartialEq, Eq)]
pub enum FilterError {
    /// A regex flag does not compile. `field` is `regexDomainFilter` or `regexDomainExclusion`;
    /// `reason` follows the pattern: "is not a valid regular expression: …" or "is too large …".
    #[error("{field}: {pattern:?} {reason}")]
    BadRegex {
        field: &'static str,
        pattern: String,
        reason: String,
    },
}

/// The outcome of [`DomainFilter::explain`]: whether a name matches, and why.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Match {
    /// The name matches. `by` is the (normalised) include filter that covers it;
    /// `None` when the include list is empty or the filter is in regex mode.
    Included { by: Option<String> },
    /// Plain lists: the include list is non-empty and no filter in it covers the name.
    NotIncluded,
    /// Plain lists: the name is included (by the normalised filter `within`; `None` when
    /// the include list is empty), but the (normalised) exclusion `by` covers it.
    Excluded { by: String, within: Option<String> },
    /// Regex mode: `regexDomainFilter` is set and does not match the name (whether or not
    /// `regexDomainExclusion` matches it).
    RegexNotIncluded,
    /// Regex mode: `regexDomainFilter` is unset or matches the name, and
    /// `regexDomainExclusion` matches it.
    RegexExcluded,
}

impl Match {
    /// True for [`Match::Included`]: external-dns would manage the name.
    pub fn is_match(&self) -> bool {
        matches!(self, Match::Included { .. })
    }
}

impl DomainFilter {
    /// Compiles a filter as external-dns's `NewDomainFilterWithOptions` does.
    ///
    /// Fails only when a non-empty regex does not compile, or passes [`REGEX_BUDGET`].
    pub fn new(spec: &FilterSpec) -> Result<Self, FilterError> {
        Self::within(spec, &mut Regexes::default())
    }

    /// [`DomainFilter::new`], one of the filters of a rule set whose regexes are `regexes`:
    /// a pattern compiled before is shared, a new one must fit the rule set's budget.
    pub fn within(spec: &FilterSpec, regexes: &mut Regexes) -> Result<Self, FilterError> {
        let mut compile = |field, pattern: &str| regexes.compile(field, pattern);
        let mode = if spec.regex_include.is_empty() && spec.regex_exclude.is_empty() {
            Mode::Plain {
                include: prepared_index(&spec.include),
                exclude: prepared_index(&spec.exclude),
            }
        } else {
            Mode::Regex {
                include: compile("regexDomainFilter", &spec.regex_include)?,
                exclude: compile("regexDomainExclusion", &spec.regex_exclude)?,
            }
        };
        Ok(Self {
            spec: spec.clone(),
            mode,
        })
    }

    /// external-dns's `DomainFilter.Match(name)`.
    pub fn matches(&self, name: &str) -> bool {
        self.matches_normalized(&normalize::normalize(name))
    }

    /// [`DomainFilter::matches`] for a name already passed through [`normalized`], so that a
    /// name judged against several filters is normalised once.
    pub(crate) fn matches_normalized(&self, name: &str) -> bool {
        match &self.mode {
            Mode::Plain { include, exclude } => {
                (include.is_empty() || include.covers(name)) && !exclude.covers(name)
            }
            Mode::Regex { include, exclude } => {
                !exclude.as_ref().is_some_and(|re| is_match(re, name))
                    && include.as_ref().is_none_or(|re| is_match(re, name))
            }
        }
    }

    /// Like [`DomainFilter::matches`], but says which rule decided, for messages
    /// ("not under any of example.com, example.org", "excluded by internal.example.com").
    /// `explain(name).is_match() == matches(name)` for every name.
    pub fn explain(&self, name: &str) -> Match {
        let name = normalize::normalize(name);
        match &self.mode {
            Mode::Plain { include, exclude } => explain_plain(include, exclude, &name),
            // The include pattern first: an excluded name is reported as excluded only when
            // the include pattern admits it, so that the fix ("avoid the exclusion") works.
            Mode::Regex { include, exclude } => {
                if include.as_ref().is_some_and(|re| !is_match(re, &name)) {
                    Match::RegexNotIncluded
                } else if exclude.as_ref().is_some_and(|re| is_match(re, &name)) {
                    Match::RegexExcluded
                } else {
                    Match::Included { by: None }
                }
            }
        }
    }

    /// True when the filter restricts anything, as external-dns's `IsConfigured`: a
    /// regex is set, or an include or exclude filter is left after trimming and
    /// normalising (a list of blank items restricts nothing).
    pub fn is_configured(&self) -> bool {
        match &self.mode {
            Mode::Plain { include, exclude } => !include.is_empty() || !exclude.is_empty(),
            Mode::Regex { .. } => true,
        }
    }

    /// The spec the filter was built from (for messages: "outside example.com, example.org").
    pub fn spec(&self) -> &FilterSpec {
        &self.spec
    }

    /// The exclusion (normalised) that covers every name the include filter `include` (as
    /// written) would admit, so that it admits none: an exclusion wins over an include filter.
    /// `None` in regex mode, where the plain lists are ignored, and for an empty filter.
    ///
    /// Exact, since coverage is closed under subdomains: what covers `n` covers every name
    /// under it, and what covers `.n` (read as a name) covers every proper subdomain of `n`.
    pub fn excluding(&self, include: &str) -> Option<&str> {
        let Mode::Plain { exclude, .. } = &self.mode else {
            return None;
        };
        exclude.find(&normalize::prepare_filter(include)?)
    }

    /// For each include filter of `filters` (as written), whether this filter admits some name
    /// that one admits: its domain or a name under it (only a name under it, when written with a
    /// leading dot). A filter empty once trimmed admits no name.
    ///
    /// Exact for the plain lists: two filters' names meet only when one's hold the other's, and
    /// coverage by an exclusion is closed under subdomains (the `overlap` module says more). In
    /// regex mode, which no finite probe decides, it asks about the domain and one name just
    /// under it.
    pub fn reaching(&self, filters: &[&str]) -> Vec<bool> {
        match &self.mode {
            Mode::Plain { include, exclude } => {
                let prepared = filters.iter().map(|f| normalize::prepare_filter(f));
                overlap::reaching(include, exclude, &prepared.collect::<Vec<_>>())
            }
            Mode::Regex { .. } => filters.iter().map(|f| self.probed(f)).collect(),
        }
    }

    /// Whether the filter admits the domain of the include filter `filter` or the name `x.`
    /// under it.
    fn probed(&self, filter: &str) -> bool {
        let name = filter.trim().trim_matches('.');
        !name.is_empty() && (self.matches(name) || self.matches(&format!("x.{name}")))
    }
}

/// Decides a normalised name against the plain lists.
fn explain_plain(include: &SuffixIndex, exclude: &SuffixIndex, name: &str) -> Match {
    let by = if include.is_empty() {
        None
    } else {
        match include.find(name) {
            Some(filter) => Some(filter.to_owned()),
            None => return Match::NotIncluded,
        }
    };
    match exclude.find(name) {
        Some(filter) => Match::Excluded {
            by: filter.to_owned(),
            within: by,
        },
        None => Match::Included { by },
    }
}

/// Trims, normalises and indexes a flag's filters, dropping empty ones.
fn prepared_index(raw: &[String]) -> Box<SuffixIndex> {
    Box::new(SuffixIndex::new(
        raw.iter().filter_map(|f| normalize::prepare_filter(f)),
    ))
}

/// The largest compiled pattern (the `regex` crate's measure of its NFA; its default is
/// 10 MiB). Go has its own limits, so a pattern it accepts may be refused here: `\pL{1000}`
/// takes ~60 MiB compiled (~120 MiB of memory while compiling), more than a rule load should
/// cost a pod with the shipped 256 MiB limit; a Unicode hostname pattern such as
/// `^[\pL\pN-]{1,63}(\.[\pL\pN-]{1,63}){0,5}$` needs ~20 MiB and fits.
pub const REGEX_SIZE_LIMIT: usize = 32 << 20;

/// The most memory the compiled regexes of one rule set may hold (each distinct pattern
/// once, by `meta::Regex::memory_usage`). A server holds the rule set in force while it
/// compiles the next one (a reload, or the webhook judging a rule ConfigMap), and the
/// regexes' matching caches and the allocator's slack come on top (about as much again, as
/// measured), so two rule sets and the server must fit the shipped 256 MiB limit.
pub const REGEX_BUDGET: usize = 48 << 20;

impl Regexes {
    /// The memory the rule set's regexes hold so far.
    pub fn used(&self) -> usize {
        self.used
    }

    /// Compiles a Go RE2 pattern, or shares the one compiled before; `""` is unset.
    fn compile(
        &mut self,
        field: &'static str,
        pattern: &str,
    ) -> Result<Option<Regex>, FilterError> {
        if pattern.is_empty() {
            return Ok(None);
        }
        let bad = |reason: String| FilterError::BadRegex {
            field,
            pattern: pattern.to_owned(),
            reason,
        };
        let translated = regex_translate::translate(pattern).map_err(|m| bad(invalid(&m)))?;
        if let Some(re) = self.compiled.get(&translated) {
            return Ok(Some(Arc::clone(re)));
        }
        let left = REGEX_BUDGET.saturating_sub(self.used);
        let re = build(&translated, REGEX_SIZE_LIMIT.min(left)).map_err(|err| {
            bad(match err.size_limit() {
                Some(limit) if limit < REGEX_SIZE_LIMIT => self.over_budget(None),
                Some(_) => too_large(),
                None => invalid(&err.syntax_error().map_or_else(
                    || err.to_string(),
                    // Columns of the translated pattern are the user's only when the
                    // translation left it as written.
                    |e| syntax_summary(e, &translated, translated == pattern),
                )),
            })
        })?;
        let memory = re.memory_usage();
        if memory > left {
            return Err(bad(self.over_budget(Some(memory))));
        }
        self.used += memory;
        let re = Arc::new(re);
        self.compiled.insert(translated, Arc::clone(&re));
        Ok(Some(re))
    }

    /// Why a pattern that takes `memory` (`None`: more than is left) is refused.
    fn over_budget(&self, memory: Option<usize>) -> String {
        let mib = |bytes: usize| bytes as f64 / f64::from(1 << 20);
        let left = REGEX_BUDGET.saturating_sub(self.used);
        let takes = memory.map_or_else(
            || format!("more than the {:.1} MiB left", mib(left)),
            |m| format!("{:.1} MiB", mib(m)),
        );
        format!(
            "would pass zoneguard's budget for a rule set's regexes: compiled, it takes {takes}, \
             and the {} patterns before it take {:.1} MiB of the {} MiB (write fewer or smaller \
             patterns, e.g. one pattern for several namespaces: a pattern written twice is \
             compiled once)",
            self.compiled.len(),
            mib(self.used),
            REGEX_BUDGET >> 20
        )
    }
}

/// Whether `re` matches somewhere in `name`, as `regex::Regex::is_match` asks it.
fn is_match(re: &meta::Regex, name: &str) -> bool {
    re.search_half(&Input::new(name).earliest(true)).is_some()
}

/// Compiles `pattern` (translated to Rust's syntax) as `regex::RegexBuilder` does, with an
/// NFA of at most `size_limit` bytes.
fn build(pattern: &str, size_limit: usize) -> Result<meta::Regex, Box<meta::BuildError>> {
    let config = meta::Config::new()
        .nfa_size_limit(Some(size_limit))
        .hybrid_cache_capacity(2 << 20)
        .match_kind(MatchKind::LeftmostFirst)
        .utf8_empty(true);
    meta::Builder::new()
        .configure(config)
        .syntax(syntax::Config::default().utf8(true))
        .build(pattern)
        .map_err(Box::new)
}

/// A literal part of a regex filter that no name a regex filter sees holds, so that the part
/// never matches.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ImpossibleLiteral {
    /// The part holds an upper-case letter matched as written (not under `(?i)`): a name is
    /// lower-cased before a regex filter sees it, as external-dns lower-cases it.
    UpperCase(String),
    /// The part holds `found`, an ASCII character no valid DNS name holds (only letters,
    /// digits, `-`, `_`, `.` and `*` do): a name with one is refused as invalid before any
    /// filter judges it, and a Unicode label's decoding adds only characters past ASCII.
    Foreign { part: String, found: char },
}

/// The first literal part of the Go RE2 `pattern` (outside a class) that no name a regex
/// filter sees holds. `None` too for a pattern that does not parse: compiling it says why.
pub fn impossible_literal(pattern: &str) -> Option<ImpossibleLiteral> {
    let translated = regex_translate::translate(pattern).ok()?;
    let hir = regex_syntax::ParserBuilder::new()
        .build()
        .parse(&translated)
        .ok()?;
    impossible_in(&hir)
}

fn impossible_in(hir: &regex_syntax::hir::Hir) -> Option<ImpossibleLiteral> {
    use regex_syntax::hir::HirKind;
    match hir.kind() {
        HirKind::Literal(literal) => literal_fault(&String::from_utf8_lossy(&literal.0)),
        HirKind::Concat(subs) | HirKind::Alternation(subs) => subs.iter().find_map(impossible_in),
        HirKind::Repetition(r) => impossible_in(&r.sub),
        HirKind::Capture(c) => impossible_in(&c.sub),
        HirKind::Empty | HirKind::Class(_) | HirKind::Look(_) => None,
    }
}

/// What, first, in the literal `part` no name a regex filter sees holds.
fn literal_fault(part: &str) -> Option<ImpossibleLiteral> {
    let name_char = |c: char| c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.' | '*');
    let found = part
        .chars()
        .find(|&c| c.is_uppercase() || (c.is_ascii() && !name_char(c)))?;
    Some(if found.is_uppercase() {
        ImpossibleLiteral::UpperCase(part.to_string())
    } else {
        ImpossibleLiteral::Foreign {
            part: part.to_string(),
            found,
        }
    })
}

/// The regex parser's error on one line: what is wrong (`unclosed group`) and, when
/// `columns_hold` (the pattern compiled is the one written) and `pattern` is one line, the
/// column of the fault (`unclosed group (at column 1)`).
fn syntax_summary(e: &regex_syntax::Error, pattern: &str, columns_hold: bool) -> String {
    let (kind, span, one_place) = match e {
        regex_syntax::Error::Parse(e) => {
            (e.kind().to_string(), e.span(), e.auxiliary_span().is_none())
        }
        regex_syntax::Error::Translate(e) => (e.kind().to_string(), e.span(), true),
        other => {
            let text = other.to_string();
            let lines: Vec<&str> = text
                .lines()
                .map(str::trim)
                .filter(|l| !l.is_empty())
                .collect();
            return lines.join("; ");
        }
    };
    if columns_hold && one_place && !pattern.contains('\n') {
        format!("{kind} (at column {})", span.start.column)
    } else {
        kind
    }
}

fn invalid(message: &str) -> String {
    format!("is not a valid regular expression: {message}")
}

fn too_large() -> String {
    format!(
        "is too large: compiled, it exceeds zoneguard's limit of {} MiB (write it with fewer \
         or smaller repetitions of large classes such as \\pL)",
        REGEX_SIZE_LIMIT >> 20
    )
}

/// external-dns's name normalisation: one trailing dot stripped, then
/// UTS-46 to-Unicode (lower-cased, width-mapped, NFC, `xn--` labels decoded), the
/// partly processed text kept where the name is not a valid IDN.
pub fn normalize_name(name: &str) -> String {
    normalized(name).into_owned()
}

/// [`normalize_name`], borrowing when the name is already in normal form.
pub(crate) fn normalized(name: &str) -> std::borrow::Cow<'_, str> {
    normalize::normalize(name)
}
