//! Rules that are valid but do not do what they look meant to do: warnings at the key at fault,
//! never errors (external-dns accepts the same settings).

use super::compile::CompileError;
use super::document::{IrsaSource, RulesDoc};
use super::path::KeyPath;
use super::{RuleSet, RuleSource, RulesError};
use crate::filter::DomainFilter;

/// The warnings of the rule sources read so far, some of which wait for the combined rules.
/// They are located in their sources' texts only once they are known to be kept.
#[derive(Default)]
pub(super) struct Lints<'a> {
    /// Decided by a document alone.
    settled: Vec<(RuleSource<'a>, CompileError)>,
    /// Kept if no source sets `irsa.issuer`.
    issuer_needed: Vec<(RuleSource<'a>, CompileError)>,
    /// Kept if the cluster's filters admit no name under the domain.
    delegations: Vec<(RuleSource<'a>, Delegation)>,
    /// Kept if the namespace is in the combined `exemptNamespaces`.
    exempted: Vec<(RuleSource<'a>, Exempted)>,
    /// An `inject` rule's Service type, kept if `sources.serviceTypeFilter` leaves it out.
    service_types: Vec<(RuleSource<'a>, ServiceType)>,
}

impl<'a> Lints<'a> {
    /// Notes the warnings of the document `doc` of `source`.
    pub(super) fn note(&mut self, doc: &RulesDoc, source: RuleSource<'a>) {
        self.settled
            .extend(lint(doc).into_iter().map(|w| (source, w)));
        self.issuer_needed
            .extend(issuer_needed(doc).map(|w| (source, w)));
        self.delegations
            .extend(delegations(doc).into_iter().map(|d| (source, d)));
        self.exempted
            .extend(exempted(doc).into_iter().map(|e| (source, e)));
        self.service_types
            .extend(service_types(doc).into_iter().map(|t| (source, t)));
    }

    /// Every warning, once `rules` combine all the sources.
    pub(super) fn settle(self, rules: &RuleSet) -> Vec<RulesError> {
        let mut kept = self.settled;
        if rules.irsa.issuer.is_none() {
            kept.extend(self.issuer_needed);
        }
        let unreachable = self
            .delegations
            .into_iter()
            .filter(|(_, d)| !admits_under(&rules.cluster, &d.name))
            .map(|(source, d)| (source, d.warning()));
        kept.extend(unreachable);
        let exempt = &rules.exempt_namespaces;
        let unused = self
            .exempted
            .into_iter()
            .filter(|(_, e)| exempt.contains(&e.namespace))
            .map(|(source, e)| (source, e.warning()));
        kept.extend(unused);
        let read = &rules.sources.service_types;
        let unread = self
            .service_types
            .into_iter()
            .filter(|(_, t)| !read.is_empty() && !read.contains(&t.name))
            .map(|(source, t)| (source, t.warning(read)));
        kept.extend(unread);
        super::compile::locate(kept)
    }
}

/// A domain delegated to a namespace (`namespaces.<ns>.domainFilters[i]`).
struct Delegation {
    path: KeyPath,
    namespace: String,
    /// As written.
    domain: String,
    /// Trimmed of spaces and dots.
    name: String,
}

impl Delegation {
    /// The warning when the cluster's filters admit no name under it.
    fn warning(self) -> CompileError {
        let Self {
            path,
            namespace,
            domain,
            ..
        } = self;
        CompileError::new(path, format!("{domain:?} is outside what this cluster's filters admit (domainFilters, excludeDomains and the regexes at the top of the rules), so every name namespace {namespace} asks for under it is denied as hostname-outside-filters; add it to the cluster's domainFilters too, or delegate a domain the cluster's filters admit"))
    }
}

/// A namespace that a rule names by name: an `inject` rule's, or a delegation's.
struct Exempted {
    path: KeyPath,
    namespace: String,
    /// Named by an `inject` rule (else: delegated domains).
    inject: bool,
}

impl Exempted {
    /// The warning when the namespace is in `exemptNamespaces`.
    fn warning(self) -> CompileError {
        let Self {
            path,
            namespace,
            inject,
        } = self;
        let (never, fix) = if inject {
            (
                "this inject rule never injects there",
                "or from this rule's namespaces",
            )
        } else {
            ("its delegated filters are never used", "or this delegation")
        };
        CompileError::new(path, format!("namespace {namespace} is in exemptNamespaces, where zoneguard neither checks nor mutates anything, so {never}; remove it from exemptNamespaces, {fix}"))
    }
}

/// Each namespace `doc` names in an `inject` rule's `namespaces` or as a delegation.
fn exempted(doc: &RulesDoc) -> Vec<Exempted> {
    let root = KeyPath::root();
    let named = doc.inject.iter().enumerate().flat_map(|(i, rule)| {
        let at = root.key("inject").index(i).key("namespaces");
        rule.namespaces
            .iter()
            .enumerate()
            .map(move |(j, ns)| Exempted {
                path: at.index(j),
                namespace: ns.clone(),
                inject: true,
            })
    });
    let delegated = doc.namespaces.keys().map(|ns| Exempted {
        path: root.key("namespaces").key(ns),
        namespace: ns.clone(),
        inject: false,
    });
    named.chain(delegated).collect()
}

/// A Service type an `inject` rule is limited to (`inject[i].serviceTypes[j]`).
struct ServiceType {
    path: KeyPath,
    name: String,
}

impl ServiceType {
    /// The warning when external-dns reads only the Service types `read`.
    fn warning(self, read: &[String]) -> CompileError {
        let Self { path, name } = self;
        let read = read.join(", ");
        CompileError::new(path, format!("external-dns reads only the Service types of sources.serviceTypeFilter ({read}), so what this rule injects into {name} Services is never read; add {name} to serviceTypeFilter, or remove it here"))
    }
}

/// The Service types of each `inject` rule of `doc` that can reach a Service.
fn service_types(doc: &RulesDoc) -> Vec<ServiceType> {
    let mut out = Vec::new();
    for (i, rule) in doc.inject.iter().enumerate() {
        if !reaches_services(&rule.kinds) {
            continue;
        }
        let at = KeyPath::root().key("inject").index(i).key("serviceTypes");
        out.extend(
            rule.service_types
                .iter()
                .enumerate()
                .map(|(j, name)| ServiceType {
                    path: at.index(j),
                    name: name.clone(),
                }),
        );
    }
    out
}

/// Whether an `inject` rule of `kinds` can reach a Service (no kinds: every kind it takes).
fn reaches_services(kinds: &[String]) -> bool {
    kinds.is_empty() || kinds.iter().any(|k| k == "Service")
}

/// The warning for an `inject` rule limited to Service types whose kinds hold no Service: the
/// limit does nothing, and the rule was likely meant for Services.
fn service_types_without_services(doc: &RulesDoc, out: &mut Vec<CompileError>) {
    for (i, rule) in doc.inject.iter().enumerate() {
        if rule.service_types.is_empty() || reaches_services(&rule.kinds) {
            continue;
        }
        let path = KeyPath::root().key("inject").index(i).key("serviceTypes");
        let kinds = rule.kinds.join(", ");
        out.push(CompileError::new(path, format!("serviceTypes limits a rule on Services only, and this rule's kinds ({kinds}) hold no Service, so it limits nothing; add Service to kinds, or remove serviceTypes")));
    }
}

/// The warnings about one rules document's own keys: domain filters and exclusions that can
/// match no name zoneguard admits, or that are written as patterns.
fn lint(doc: &RulesDoc) -> Vec<CompileError> {
    let root = KeyPath::root();
    let mut out = Vec::new();
    filters(&root, "domainFilters", &doc.domain_filters, &mut out);
    filters(&root, "excludeDomains", &doc.exclude_domains, &mut out);
    for (ns, filter) in &doc.namespaces {
        let at = root.key("namespaces").key(ns);
        filters(&at, "domainFilters", &filter.domain_filters, &mut out);
        filters(&at, "excludeDomains", &filter.exclude_domains, &mut out);
    }
    service_types_without_services(doc, &mut out);
    out
}

/// The warning for a document whose ServiceAccount checks need `irsa.issuer`, when the rule
/// set combined from every source has none.
fn issuer_needed(doc: &RulesDoc) -> Option<CompileError> {
    let irsa = &doc.irsa;
    let key = if !irsa.trust_policies.is_empty() {
        "trustPolicies"
    } else if irsa.source == Some(IrsaSource::Iam) {
        "source"
    } else {
        return None;
    };
    let path = KeyPath::root().key("irsa").key(key);
    Some(CompileError::new(path, "irsa.issuer (this cluster's OIDC issuer URL) is not set, so no trust policy can be checked: every ServiceAccount with a role ARN is admitted with a \"cannot verify\" warning; set irsa.issuer to the cluster's issuer (aws eks describe-cluster --name <cluster> --query cluster.identity.oidc.issuer)"))
}

/// Each domain a namespace of `doc` is delegated (`namespaces.<ns>.domainFilters`), but those
/// [`filter_problem`] warns about already.
fn delegations(doc: &RulesDoc) -> Vec<Delegation> {
    let mut out = Vec::new();
    for (ns, filter) in &doc.namespaces {
        let at = KeyPath::root()
            .key("namespaces")
            .key(ns)
            .key("domainFilters");
        for (i, domain) in filter.domain_filters.iter().enumerate() {
            let name = domain.trim().trim_matches('.');
            if name.is_empty() || filter_problem(domain, false).is_some() {
                continue;
            }
            out.push(Delegation {
                path: at.index(i),
                namespace: ns.clone(),
                domain: domain.clone(),
                name: name.to_string(),
            });
        }
    }
    out
}

/// Whether `cluster` admits `name` or a name under it (a filter `.example.com` admits only the
/// names under example.com).
fn admits_under(cluster: &DomainFilter, name: &str) -> bool {
    cluster.matches(name) || cluster.matches(&format!("x.{name}"))
}

fn filters(at: &KeyPath, key: &str, list: &[String], out: &mut Vec<CompileError>) {
    let exclusion = key == "excludeDomains";
    for (i, filter) in list.iter().enumerate() {
        if let Some(why) = filter_problem(filter, exclusion) {
            out.push(CompileError::new(at.key(key).index(i), why));
        }
    }
}

/// Why a domain filter (or, with `exclusion`, an excluded domain) does not do what it looks
/// meant to, as external-dns compares it: the name itself or a suffix after a dot, once trimmed
/// of spaces and of one trailing dot.
fn filter_problem(filter: &str, exclusion: bool) -> Option<String> {
    let name = filter.trim();
    let name = name.strip_suffix('.').unwrap_or(name);
    let (matches, fix) = if exclusion {
        (
            "excludes",
            "write the domain alone, such as internal.example.com",
        )
    } else {
        ("matches", "write the domain alone, such as example.com")
    };
    if let Some(rest) = name.strip_prefix("*.") {
        let (verb, what) = if exclusion {
            ("exclude", "excludes")
        } else {
            ("admit", "matches")
        };
        return Some(format!("{filter:?} is a domain, not a pattern: external-dns compares name suffixes, so it {what} the wildcard name {name} and the names under it alone, not a.{rest}; to {verb} every name under {rest} write {rest}"));
    }
    let why = if name.contains(char::is_whitespace) {
        "it contains a space"
    } else if name.contains("://") {
        "it is a URL"
    } else if name.contains([':', '/', '@']) {
        "it contains ':', '/' or '@'"
    } else if name.contains("..") {
        "it has two dots in a row"
    } else {
        return None;
    };
    Some(format!(
        "{filter:?} {matches} no valid DNS name ({why}), so external-dns accepts it but it never applies; {fix}"
    ))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::filter::FilterSpec;

    #[test]
    fn a_delegation_is_reachable_when_the_cluster_admits_it_or_a_name_under_it() {
        let cluster = |include: &[&str], exclude: &[&str]| {
            let spec = FilterSpec {
                include: include.iter().map(|s| s.to_string()).collect(),
                exclude: exclude.iter().map(|s| s.to_string()).collect(),
                ..FilterSpec::default()
            };
            DomainFilter::new(&spec).expect("filter")
        };
        let table = [
            (cluster(&["example.com"], &[]), "team-a.example.com", true),
            (cluster(&["example.com"], &[]), "team-a.example.org", false),
            (cluster(&[".example.com"], &[]), "example.com", true),
            (
                cluster(&["example.com"], &["team-a.example.com"]),
                "team-a.example.com",
                false,
            ),
            (cluster(&[], &[]), "anything.org", true),
        ];
        for (cluster, name, want) in table {
            assert_eq!(admits_under(&cluster, name), want, "{name}");
        }
    }

    #[test]
    fn filters_that_never_apply_or_read_as_patterns_are_warned_about() {
        let table = [
            (
                "bad domain.com",
                false,
                Some("matches no valid DNS name (it contains a space)"),
            ),
            ("https://example.com", false, Some("(it is a URL)")),
            (
                "example.com:443",
                false,
                Some("(it contains ':', '/' or '@')"),
            ),
            (
                "example..com",
                true,
                Some("excludes no valid DNS name (it has two dots in a row)"),
            ),
            (
                "*.example.com",
                false,
                Some("to admit every name under example.com write example.com"),
            ),
            (
                "*.internal.example.com",
                true,
                Some("to exclude every name under internal.example.com"),
            ),
            ("example.com", false, None),
            (" .example.com. ", false, None),
            ("internal.example.com", true, None),
        ];
        for (filter, exclusion, want) in table {
            let got = filter_problem(filter, exclusion);
            match want {
                Some(text) => assert!(
                    got.as_deref().is_some_and(|g| g.contains(text)),
                    "{filter:?}: {got:?}"
                ),
                None => assert_eq!(got, None, "{filter:?}"),
            }
        }
    }
}
