//! Judges each hostname an object asks for.

use std::sync::Arc;

use crate::filter::{self, FilterSpec, Match};
use crate::hostname::{self, GatewayDrop};
use crate::rules::RuleSet;
use crate::source::{Candidate, Field, Record};
use crate::verdict::{Reason, Violation};

/// What the owner of an object can do about a name the cluster's fqdn template gave it: this
/// replaces the fix a name the owner wrote would get.
const TEMPLATE_FIX: &str = "; the name comes from the cluster's fqdn template: give this object a hostname of its own (external-dns then does not use the template unless sources.combineFqdnAnnotation is set), or ask the platform team to fix the template";

/// Whom a message's fix is for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Advice {
    /// The object's owner, who wrote the name (or gave the object to the fqdn template).
    Owner,
    /// None: the name is an inject rule's, and the caller says who must fix that rule.
    None,
}

/// A message in two parts: the problem, and the fix with its leading separator (`; …` or
/// `: …`; empty when the problem says it all). The problem is told after the subject
/// ([`Where`]), but for a TXT record's, which is worded whole.
type Parts = (String, String);

/// The faults that do not depend on the name refused, worded once for all of an object's names:
/// an object with 100 000 names outside the filters holds one copy of that text, not 100 000.
/// One per object judged: the advice and the namespace are the same for all its names. Each
/// filter has two: not included, and matched by the regex exclusion ([`slot`]).
#[derive(Debug, Default)]
pub struct Faults {
    outside: [Option<Arc<str>>; 2],
    not_delegated: [Option<Arc<str>>; 2],
}

/// Which of a filter's shared faults a refusal's is, or `None` for one that names the
/// exclusion that hit the name.
fn slot(why: &Match) -> Option<usize> {
    match why {
        Match::NotIncluded | Match::RegexNotIncluded => Some(0),
        Match::RegexExcluded => Some(1),
        Match::Excluded { .. } | Match::Included { .. } => None,
    }
}

/// A refusal's fault: the shared one in `slots[i]` (worded by `word` the first time), or, with
/// no `i`, worded for this name alone.
fn fault(
    slots: &mut [Option<Arc<str>>; 2],
    i: Option<usize>,
    word: impl FnOnce() -> String,
) -> Arc<str> {
    match i {
        Some(i) => slots[i].get_or_insert_with(|| word().into()).clone(),
        None => word().into(),
    }
}

/// The first rule a candidate breaks, if any: syntax, cluster filters, delegation, TXT length.
pub fn judge(
    rules: &RuleSet,
    namespace: &str,
    c: &Candidate,
    advice: Advice,
    faults: &mut Faults,
) -> Option<Violation> {
    let text = |(problem, fix): Parts| match advice {
        Advice::None => problem,
        Advice::Owner if c.field == Field::Template => joined(problem, TEMPLATE_FIX),
        Advice::Owner => joined(problem, &fix),
    };
    // Only a violation needs the text; most names pass every check.
    let at = Where(c);
    let violation = |reason, parts| at.violation(reason, text(parts).into());
    if c.interior_space {
        return Some(violation(
            Reason::HostnameInvalid,
            (
                format!(
                    "contains spaces: external-dns deletes them and would publish {:?}",
                    c.name
                ),
                "; write the name without spaces and separate several names with commas"
                    .to_string(),
            ),
        ));
    }
    if let Some(parts) = syntax_message(c) {
        return Some(violation(Reason::HostnameInvalid, parts));
    }
    let normalized = filter::normalized(&c.name);
    // A fault is shared when the violation tells it after its subject.
    let shared = |why: &Match| slot(why).filter(|_| at.leads());
    if !rules.cluster.matches_normalized(&normalized) {
        let why = rules.cluster.explain(&c.name);
        let fault = fault(&mut faults.outside, shared(&why), || {
            text(outside_message(&rules.cluster, why))
        });
        return Some(at.violation(Reason::HostnameOutsideFilters, fault));
    }
    if let Some(ns_filter) = rules.namespaces.get(namespace) {
        if !ns_filter.matches_normalized(&normalized) {
            let why = ns_filter.explain(&c.name);
            let fault = fault(&mut faults.not_delegated, shared(&why), || {
                text(not_delegated_message(ns_filter, why))
            });
            return Some(at.violation(Reason::HostnameNotDelegated, fault));
        }
    }
    let txt = match c.record {
        Record::Srv { .. } => hostname::srv_txt_problem(&c.name, &rules.registry),
        Record::Address | Record::Gateway | Record::Endpoint => {
            hostname::txt_problem(&c.name, &rules.registry)
        }
    };
    txt.map(|t| {
        let parts = (format!("{at}: {}", t.problem), format!(": {}", t.fix));
        at.whole(Reason::HostnameTxtTooLong, text(parts))
    })
}

/// `problem` followed by `fix`, in a string of their exact length: a denial may hold a message for
/// each of 100 000 names, and `+` would leave room for as much again in each.
fn joined(mut problem: String, fix: &str) -> String {
    problem.reserve_exact(fix.len());
    problem.push_str(fix);
    problem
}

/// Why the candidate's name is not one external-dns would publish as written, as the message's
/// parts.
fn syntax_message(c: &Candidate) -> Option<Parts> {
    if let Record::Srv { .. } = c.record {
        let (problem, fix) = hostname::srv_syntax_problem(&c.name)?;
        return Some((
            format!("is not a valid DNS name: {problem}; external-dns would drop that record or the DNS provider would refuse it"),
            format!(": {fix}"),
        ));
    }
    if c.record == Record::Gateway {
        if let Some(drop) = hostname::gateway_drop(&c.name) {
            return Some(gateway_message(c, drop));
        }
    }
    let problem = match c.record {
        Record::Endpoint => hostname::record_syntax_problem(&c.name)?,
        _ => hostname::syntax_problem(&c.name)?,
    };
    Some((
        format!("is not a valid DNS name: {problem}; external-dns could not publish it as written"),
        String::new(),
    ))
}

/// A name external-dns's Gateway API source drops, with the fix.
fn gateway_message(c: &Candidate, drop: GatewayDrop) -> Parts {
    let dropped =
        "external-dns's Gateway API source drops it and would publish no DNS record for it";
    match drop {
        GatewayDrop::IpAddress => (
            format!("is an IP address, not a host name: {dropped}"),
            "; use a host name".to_string(),
        ),
        GatewayDrop::NotAscii => {
            let name = c.name.strip_suffix('.').unwrap_or(&c.name);
            match hostname::to_ascii(name) {
                Ok(ascii) => (
                    format!("is not an ASCII host name: {dropped}"),
                    format!("; write its punycode form {ascii:?}"),
                ),
                Err(problem) => (
                    format!("is not an ASCII host name and {problem}: {dropped}"),
                    "; write the name in ASCII (punycode)".to_string(),
                ),
            }
        }
        GatewayDrop::NotRfc1123 => {
            let problem = hostname::syntax_problem(&c.name)
                .unwrap_or_else(|| "'*' is allowed only as a leading \"*.\" label".to_string());
            (
                format!("is not an RFC 1123 host name ({problem}): {dropped}"),
                "; write letters, digits and '-' only, '*.' only in front".to_string(),
            )
        }
    }
}

/// `field "value"`, as each message starts; for an SRV record, the hostname's field and the
/// record made of it; for a name of the fqdn template, the name and the template.
struct Where<'a>(&'a Candidate);

impl Where<'_> {
    /// True when the violation itself tells `fault` after the subject: for a name its field
    /// holds. The others are worded whole.
    fn leads(&self) -> bool {
        let c = self.0;
        matches!(
            c.record,
            Record::Address | Record::Gateway | Record::Endpoint
        ) && c.field != Field::Template
    }

    /// The candidate's violation, `fault` told after the subject.
    fn violation(&self, reason: Reason, fault: Arc<str>) -> Violation {
        let c = self.0;
        match self.leads() {
            true => Violation::new(c.field.to_string(), c.raw.clone(), reason, fault),
            false => self.whole(reason, format!("{self} {fault}")),
        }
    }

    /// The candidate's violation, with `message` as it is.
    fn whole(&self, reason: Reason, message: String) -> Violation {
        let c = self.0;
        Violation::whole(c.field.to_string(), c.raw.clone(), reason, message)
    }
}

impl std::fmt::Display for Where<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let c = self.0;
        match c.record {
            Record::Srv { port } => write!(
                f,
                "{}: the SRV record {:?} that external-dns publishes for spec.ports[{port}] of this NodePort Service",
                c.field, c.raw
            ),
            _ if c.field == Field::Template => write!(
                f,
                "the name {:?} that the cluster's fqdn template ({}) makes of this object",
                c.raw, c.field
            ),
            _ => write!(f, "{} {:?}", c.field, c.raw),
        }
    }
}

/// Why the cluster's filters refuse a name, and the fix: an exclusion that hits a name the
/// include filters cover is named as the cause, since "use a name under example.com" would
/// not help a name already under it.
fn outside_message(cluster: &filter::DomainFilter, why: Match) -> Parts {
    const SKIPPED: &str = "external-dns would skip it and no DNS record would appear";
    let spec = cluster.spec();
    match why {
        Match::Excluded { by, within } => {
            let (by, under) = excluded_by(&by, within.as_deref());
            (
                format!("is in {by}, which this cluster's external-dns excludes; {SKIPPED}"),
                format!(": use a name {under}outside {by}, or ask the platform team to remove {by} from external-dns's excluded domains (excludeDomains)"),
            )
        }
        Match::RegexExcluded => {
            let regex = &spec.regex_exclude;
            (
                format!("matches /{regex}/, the regex of names this cluster's external-dns excludes (regexDomainExclusion); {SKIPPED}"),
                format!(": use a name that /{regex}/ does not match, or ask the platform team to change external-dns's regexDomainExclusion"),
            )
        }
        _ => (
            format!(
                "is outside the domains this cluster's external-dns manages ({}); {SKIPPED}",
                describe(spec)
            ),
            format!(": {}", cluster_fix(spec)),
        ),
    }
}

/// Why a namespace's own filters refuse a name, and the fix; an exclusion is named as
/// [`outside_message`] names the cluster's.
fn not_delegated_message(ns_filter: &filter::DomainFilter, why: Match) -> Parts {
    let spec = ns_filter.spec();
    match why {
        Match::Excluded { by, within } => {
            let (by, under) = excluded_by(&by, within.as_deref());
            (
                format!("is in {by}, which this namespace's domains exclude"),
                format!(
                    "; use a name {under}outside {by}, or ask the platform team to delegate it"
                ),
            )
        }
        Match::RegexExcluded => {
            let regex = &spec.regex_exclude;
            (
                format!("matches /{regex}/, the regex of names this namespace's domains exclude"),
                format!("; use a name that /{regex}/ does not match, or ask the platform team to delegate it"),
            )
        }
        _ => (
            format!("is outside this namespace's domains ({})", describe(spec)),
            format!(
                "; ask the platform team to delegate it or use a name under {}",
                first_domain(spec)
            ),
        ),
    }
}

/// The exclusion that hit a name, and `under <include> ` for the fix when an include covers it.
fn excluded_by<'a>(by: &'a str, within: Option<&str>) -> (&'a str, String) {
    let under = within.map_or_else(String::new, |w| {
        format!("under {} ", w.trim_start_matches('.'))
    });
    (by.trim_start_matches('.'), under)
}

fn cluster_fix(spec: &FilterSpec) -> String {
    if spec.regex_include.is_empty() && spec.regex_exclude.is_empty() && !spec.include.is_empty() {
        format!("use a name under {} or ask the platform team to add the domain to external-dns's domain filters", first_domain(spec))
    } else {
        "use a name the filters allow or ask the platform team to change external-dns's domain filters".to_string()
    }
}

fn first_domain(spec: &FilterSpec) -> String {
    let list = spec
        .include
        .iter()
        .map(|d| d.trim().trim_start_matches('.'))
        .filter(|d| !d.is_empty());
    let list: Vec<&str> = list.collect();
    match list.len() {
        0 => "an allowed domain".to_string(),
        1 => list[0].to_string(),
        _ => format!("one of {}", short_list(&list)),
    }
}

/// `example.com, example.org; excluding internal.example.com` or the regexes.
pub fn describe(spec: &FilterSpec) -> String {
    if !spec.regex_include.is_empty() || !spec.regex_exclude.is_empty() {
        let mut parts = Vec::new();
        if !spec.regex_include.is_empty() {
            parts.push(format!("regex /{}/", spec.regex_include));
        }
        if !spec.regex_exclude.is_empty() {
            parts.push(format!("excluding regex /{}/", spec.regex_exclude));
        }
        return parts.join("; ");
    }
    let include: Vec<&str> = spec.include.iter().map(String::as_str).collect();
    let exclude: Vec<&str> = spec.exclude.iter().map(String::as_str).collect();
    match (include.is_empty(), exclude.is_empty()) {
        (false, true) => short_list(&include),
        (false, false) => format!(
            "{}; excluding {}",
            short_list(&include),
            short_list(&exclude)
        ),
        (true, false) => format!("any domain excluding {}", short_list(&exclude)),
        (true, true) => "any domain".to_string(),
    }
}

fn short_list(items: &[&str]) -> String {
    const MAX: usize = 5;
    if items.len() <= MAX {
        items.join(", ")
    } else {
        format!("{} and {} more", items[..MAX].join(", "), items.len() - MAX)
    }
}
