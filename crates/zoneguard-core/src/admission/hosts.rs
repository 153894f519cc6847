//! Judges each hostname an object asks for (SPEC §2.2–§2.4).

use crate::filter::{self, FilterSpec};
use crate::hostname;
use crate::rules::RuleSet;
use crate::source::Candidate;
use crate::verdict::{Reason, Violation};

/// The first rule a candidate breaks, if any: syntax, cluster filters, delegation, TXT length.
pub fn judge(rules: &RuleSet, namespace: &str, c: &Candidate) -> Option<Violation> {
    let violation = |reason, message: String| Violation {
        field: c.field.to_string(),
        value: c.raw.clone(),
        reason,
        message,
    };
    // Only a violation needs the text; most names pass every check.
    let at = Where(c);
    if c.interior_space {
        return Some(violation(
            Reason::HostnameInvalid,
            format!("{at} contains spaces: external-dns deletes them and would publish {:?}; write the name without spaces and separate several names with commas", c.name),
        ));
    }
    if let Some(problem) = hostname::syntax_problem(&c.name) {
        return Some(violation(Reason::HostnameInvalid, format!("{at} is not a valid DNS name: {problem}; external-dns could not publish it as written")));
    }
    let normalized = filter::normalized(&c.name);
    if !rules.cluster.matches_normalized(&normalized) {
        return Some(violation(
            Reason::HostnameOutsideFilters,
            format!("{at} is outside the domains this cluster's external-dns manages ({}); external-dns would skip it and no DNS record would appear: {}", describe(rules.cluster.spec()), cluster_fix(rules.cluster.spec())),
        ));
    }
    if let Some(ns_filter) = rules.namespaces.get(namespace) {
        if !ns_filter.matches_normalized(&normalized) {
            let spec = ns_filter.spec();
            return Some(violation(
                Reason::HostnameNotDelegated,
                format!("{at} is outside this namespace's domains ({}); ask the platform team to delegate it or use a name under {}", describe(spec), first_domain(spec)),
            ));
        }
    }
    hostname::txt_problem(&c.name, &rules.registry)
        .map(|why| violation(Reason::HostnameTxtTooLong, format!("{at}: {why}")))
}

/// `field "value"`, as each message starts.
struct Where<'a>(&'a Candidate);

impl std::fmt::Display for Where<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{} {:?}", self.0.field, self.0.raw)
    }
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
