//! Rules that are valid but do not do what they look meant to do: warnings at the key at fault,
//! never errors (external-dns accepts the same settings).

use super::combine::Parsed;
use super::compile::CompileError;
use super::document::{IrsaSource, NamespaceDoc, RulesDoc};
use super::path::KeyPath;
use super::{RuleSet, RuleSource, RulesError};
use crate::filter::{DomainFilter, FilterSpec};
use std::collections::{BTreeMap, BTreeSet};

/// The warnings of the rule sources read so far, some of which wait for the combined rules.
/// They are located in their sources' texts only once they are known to be kept.
#[derive(Default)]
pub(super) struct Lints<'a> {
    /// Decided by a document alone.
    settled: Vec<(RuleSource<'a>, CompileError)>,
    /// Decided by the rules combined from every source.
    pending: Vec<(RuleSource<'a>, Pending)>,
}

impl<'a> Lints<'a> {
    /// The warnings of the documents `parsed`, each alone and then scope by scope over all.
    pub(super) fn of(parsed: &[Parsed<'a>]) -> Self {
        let mut lints = Self::default();
        for p in parsed {
            lints.note(&p.doc, p.source);
        }
        lints.note_scopes(parsed);
        lints
    }

    /// Notes the warnings of the document `doc` of `source`.
    fn note(&mut self, doc: &RulesDoc, source: RuleSource<'a>) {
        let mut pending = Vec::new();
        self.settled
            .extend(lint(doc, &mut pending).into_iter().map(|w| (source, w)));
        self.pending
            .extend(pending.into_iter().map(|p| (source, p)));
    }

    /// Notes the warnings that each scope (the cluster, or one namespace's delegation) needs
    /// every source's settings of to decide: domain filters the exclusions beside them cover
    /// whole (each source's in turn), then lists that only empty items make up, then plain
    /// lists a regex of their scope makes ignored. A delegated domain such a regex makes
    /// ignored is not warned about as out of the cluster's reach: it is never used.
    fn note_scopes(&mut self, parsed: &[Parsed<'a>]) {
        let mut excluding: BTreeMap<Option<&str>, (ScopeGroup, DomainFilter)> = BTreeMap::new();
        let (mut empty_lists, mut ignored_lists) = (Vec::new(), Vec::new());
        for group in scopes(parsed) {
            empty_lists.extend(emptied(&group, parsed.len() > 1));
            ignored_lists.extend(ignored(&group));
            if let Some(ns) = group.namespace.filter(|_| group.sets_regex()) {
                self.pending.retain(|(_, p)| !p.delegates_in(ns));
            }
            if let Some(index) = exclusions(&group) {
                excluding.insert(group.namespace, (group, index));
            }
        }
        for p in parsed {
            for (ns, scope) in Scope::of(&p.doc) {
                if let Some((group, index)) = excluding.get(&ns) {
                    let key = format!("{}excludeDomains", group.prefix);
                    let found = covered(&group.at, index, scope.domain_filters, &key);
                    self.settled
                        .extend(found.into_iter().map(|w| (p.source, w)));
                }
            }
        }
        self.settled.extend(empty_lists);
        self.settled.extend(ignored_lists);
    }

    /// Every warning, once `rules` combine all the sources.
    /// Those of the combined rules come kind by kind, each kind in the order of the sources.
    pub(super) fn settle(self, rules: &RuleSet) -> Vec<RulesError> {
        let mut kept = self.settled;
        let mut pending = self.pending;
        drop_reached(&mut pending, &rules.cluster);
        pending.sort_by_key(|(_, p)| p.rank());
        let borne_out = pending.into_iter();
        kept.extend(borne_out.filter_map(|(source, p)| Some((source, p.settle(rules)?))));
        super::compile::locate(kept)
    }
}

/// A warning about one document that the combined rules bear out or not.
enum Pending {
    /// Trust policies or IAM mode: kept if no source sets `irsa.issuer`.
    Issuer(CompileError),
    /// A domain delegated to a namespace (`namespaces.<ns>.domainFilters[i]`), as written:
    /// kept if the cluster's filters admit no name it admits ([`drop_reached`] drops the others,
    /// all at once, before the rest are settled).
    Delegation {
        path: KeyPath,
        namespace: String,
        domain: String,
    },
    /// A namespace an `inject` rule names (`inject`), or a delegated one: kept if
    /// `exemptNamespaces` lists it.
    Exempted {
        path: KeyPath,
        namespace: String,
        inject: bool,
    },
    /// A Service type an `inject` rule is limited to: kept if `sources.serviceTypeFilter` leaves
    /// it out.
    ServiceType { path: KeyPath, name: String },
}

impl Pending {
    /// Its kind's place among the warnings.
    fn rank(&self) -> u8 {
        match self {
            Self::Issuer(_) => 0,
            Self::Delegation { .. } => 1,
            Self::Exempted { .. } => 2,
            Self::ServiceType { .. } => 3,
        }
    }

    /// Whether it is a domain delegated to namespace `ns`.
    fn delegates_in(&self, ns: &str) -> bool {
        matches!(self, Self::Delegation { namespace, .. } if namespace == ns)
    }

    /// The domain of a delegation.
    fn delegated(&self) -> Option<&str> {
        match self {
            Self::Delegation { domain, .. } => Some(domain),
            _ => None,
        }
    }

    /// The warning, when `rules` bear it out.
    fn settle(self, rules: &RuleSet) -> Option<CompileError> {
        match self {
            Self::Issuer(warning) => rules.irsa.issuer.is_none().then_some(warning),
            Self::Delegation {
                path,
                namespace,
                domain,
            } => Some(CompileError::new(path, format!("{domain:?} is outside what this cluster's filters admit (domainFilters, excludeDomains and the regexes at the top of the rules), so every name namespace {namespace} asks for under it is denied as hostname-outside-filters; add it to the cluster's domainFilters too, or delegate a domain the cluster's filters admit"))),
            Self::Exempted {
                path,
                namespace,
                inject,
            } => rules.exempt_namespaces.contains(&namespace).then(|| {
                let (never, fix) = if inject {
                    (
                        "this inject rule never injects there",
                        "or from this rule's namespaces",
                    )
                } else {
                    ("its delegated filters are never used", "or this delegation")
                };
                CompileError::new(path, format!("namespace {namespace} is in exemptNamespaces, where zoneguard neither checks nor mutates anything, so {never}; remove it from exemptNamespaces, {fix}"))
            }),
            Self::ServiceType { path, name } => {
                let read = &rules.sources.service_types;
                (!read.is_empty() && !read.contains(&name)).then(|| {
                    let read = read.join(", ");
                    CompileError::new(path, format!("external-dns reads only the Service types of sources.serviceTypeFilter ({read}), so what this rule injects into {name} Services is never read; add {name} to serviceTypeFilter, or remove it here"))
                })
            }
        }
    }
}

/// Drops from `pending` the delegations that share a name with what `cluster` admits.
fn drop_reached(pending: &mut Vec<(RuleSource<'_>, Pending)>, cluster: &DomainFilter) {
    let domains: Vec<&str> = pending.iter().filter_map(|(_, p)| p.delegated()).collect();
    let mut reached = cluster.reaching(&domains).into_iter();
    pending.retain(|(_, p)| p.delegated().is_none() || !reached.next().unwrap_or(false));
}

/// A warning for each of `filters`, the `domainFilters` at `at`, that the exclusions of `scope`
/// (the list `key`) cover whole.
fn covered(at: &KeyPath, scope: &DomainFilter, filters: &[String], key: &str) -> Vec<CompileError> {
    let covering = filters.iter().enumerate();
    let covering = covering.filter_map(|(i, filter)| Some((i, filter, scope.excluding(filter)?)));
    covering.map(|(i, filter, by)| CompileError::new(at.key("domainFilters").index(i), format!("{filter:?} admits no name: {key} holds {by:?}, which covers every name under it, and an exclusion wins over a domain filter, so every name asked for under it is denied; remove or narrow that exclusion, or remove this filter"))).collect()
}

/// One scope's filter settings as one document writes them: the cluster's, or one namespace's
/// delegation.
#[derive(Clone, Copy)]
struct Scope<'d> {
    domain_filters: &'d [String],
    exclude_domains: &'d [String],
    regex_domain_filter: &'d Option<String>,
    regex_domain_exclusion: &'d Option<String>,
}

impl<'d> Scope<'d> {
    fn cluster(doc: &'d RulesDoc) -> Self {
        Self {
            domain_filters: &doc.domain_filters,
            exclude_domains: &doc.exclude_domains,
            regex_domain_filter: &doc.regex_domain_filter,
            regex_domain_exclusion: &doc.regex_domain_exclusion,
        }
    }

    /// A namespace's delegation.
    fn delegation(d: &'d NamespaceDoc) -> Self {
        Self {
            domain_filters: &d.domain_filters,
            exclude_domains: &d.exclude_domains,
            regex_domain_filter: &d.regex_domain_filter,
            regex_domain_exclusion: &d.regex_domain_exclusion,
        }
    }

    /// Namespace `ns`'s delegation in `doc`, if `doc` delegates to it.
    fn namespace(doc: &'d RulesDoc, ns: &str) -> Option<Self> {
        doc.namespaces.get(ns).map(Self::delegation)
    }

    /// Each scope `doc` writes, with its namespace (`None` for the cluster): the cluster's,
    /// then each delegation, by name.
    fn of(doc: &'d RulesDoc) -> impl Iterator<Item = (Option<&'d str>, Self)> {
        let delegations =
            (doc.namespaces.iter()).map(|(ns, d)| (Some(ns.as_str()), Self::delegation(d)));
        std::iter::once((None, Self::cluster(doc))).chain(delegations)
    }

    /// Where the settings of the scope of namespace `ns` (`None`: the cluster) stand in a
    /// document.
    fn path(ns: Option<&str>) -> KeyPath {
        ns.map_or_else(KeyPath::root, |ns| {
            KeyPath::root().key("namespaces").key(ns)
        })
    }

    /// Its list `key`: `domainFilters` or `excludeDomains`.
    fn list(self, key: &str) -> &'d [String] {
        if key == "excludeDomains" {
            self.exclude_domains
        } else {
            self.domain_filters
        }
    }

    /// Whether it sets `regexDomainFilter`, and whether `regexDomainExclusion` (an empty
    /// pattern is not set, as for external-dns).
    fn regexes(self) -> [bool; 2] {
        let set = |r: &Option<String>| r.as_deref().is_some_and(|r| !r.is_empty());
        [
            set(self.regex_domain_filter),
            set(self.regex_domain_exclusion),
        ]
    }
}

/// One scope as every source writes it.
struct ScopeGroup<'a, 'p> {
    /// The delegated namespace; `None` for the cluster.
    namespace: Option<&'p str>,
    /// Where its settings stand in a document.
    at: KeyPath,
    /// How messages name its keys: empty for the cluster, `namespaces.<ns>.` for a delegation.
    prefix: String,
    /// Each source that writes it, with its settings there.
    sources: Vec<(RuleSource<'a>, Scope<'p>)>,
}

impl ScopeGroup<'_, '_> {
    /// Whether any source sets a regex of it, which makes its plain lists ignored.
    fn sets_regex(&self) -> bool {
        (self.sources.iter()).any(|(_, s)| s.regexes().contains(&true))
    }
}

/// Each scope `parsed` writes: the cluster's, then each delegated namespace's, by name.
fn scopes<'a, 'p>(parsed: &'p [Parsed<'a>]) -> Vec<ScopeGroup<'a, 'p>> {
    let cluster = ScopeGroup {
        namespace: None,
        at: Scope::path(None),
        prefix: String::new(),
        sources: (parsed.iter())
            .map(|p| (p.source, Scope::cluster(&p.doc)))
            .collect(),
    };
    let names: BTreeSet<&str> = (parsed.iter())
        .flat_map(|p| p.doc.namespaces.keys().map(String::as_str))
        .collect();
    let delegations = names.into_iter().map(|ns| ScopeGroup {
        namespace: Some(ns),
        at: Scope::path(Some(ns)),
        prefix: format!("namespaces.{ns}."),
        sources: (parsed.iter())
            .filter_map(|p| Some((p.source, Scope::namespace(&p.doc, ns)?)))
            .collect(),
    });
    std::iter::once(cluster).chain(delegations).collect()
}

/// The exclusions of `group`, from the exclusion lists of each source: `None` when there is
/// none, or when a regex is set (the plain lists are then ignored).
fn exclusions(group: &ScopeGroup) -> Option<DomainFilter> {
    if group.sets_regex() {
        return None;
    }
    let lists = group.sources.iter().map(|(_, s)| s.exclude_domains);
    let spec = FilterSpec {
        exclude: lists.flatten().cloned().collect(),
        ..FilterSpec::default()
    };
    (!spec.exclude.is_empty())
        .then(|| DomainFilter::new(&spec).ok())
        .flatten()
}

/// A warning at each plain list of `group`, as each source writes it, that a regex of the
/// scope, in any source, makes ignored: only the regexes decide where one is set.
fn ignored<'a>(group: &ScopeGroup<'a, '_>) -> Vec<(RuleSource<'a>, CompileError)> {
    let set_by = |i: usize| {
        (group.sources.iter())
            .find(|(_, s)| s.regexes()[i])
            .map(|(source, _)| source.name)
    };
    let (include, exclusion) = (set_by(0), set_by(1));
    let Some(by) = include.or(exclusion) else {
        return Vec::new();
    };
    let mut out = Vec::new();
    for (source, s) in &group.sources {
        let place = if by == source.name {
            String::new()
        } else {
            format!(" (in {by})")
        };
        for (key, into) in [
            ("domainFilters", "regexDomainFilter"),
            ("excludeDomains", "regexDomainExclusion"),
        ] {
            if !s.list(key).is_empty() {
                let why = ignored_why(&group.prefix, include.is_some(), &place, into);
                out.push((*source, CompileError::new(group.at.key(key), why)));
            }
        }
    }
    out
}

/// The warning that a plain list under `prefix` is ignored: for the include regex, or with
/// `include` false for the exclusion regex alone, set in the source `place` names, if another;
/// `into` is the regex the list's domains would go into.
fn ignored_why(prefix: &str, include: bool, place: &str, into: &str) -> String {
    let (regex, flag, admitted, fix) = if include {
        let fix = format!("write these domains into {prefix}{into}, or remove the regexes");
        (
            "regexDomainFilter",
            "--regex-domain-filter",
            String::new(),
            fix,
        )
    } else {
        let admitted = format!(
            "; with no {prefix}regexDomainFilter every name that regex does not match is admitted"
        );
        let fix = format!("write these domains into {prefix}{into} too, or use {prefix}excludeDomains in place of {prefix}regexDomainExclusion");
        (
            "regexDomainExclusion",
            "--regex-domain-exclusion",
            admitted,
            fix,
        )
    };
    format!("ignored: {prefix}{regex} is set{place}, and where a regex is set the regexes alone decide, as external-dns ignores --domain-filter and --exclude-domains beside {flag}{admitted}: {fix}")
}

/// A warning at each list of `group` (`domainFilters`, `excludeDomains`), as each source writes
/// it, when every item every source writes there is one external-dns drops as empty, so that the
/// list filters nothing (a value a template left out, often); `several` when there is more than
/// one rule source.
fn emptied<'a>(group: &ScopeGroup<'a, '_>, several: bool) -> Vec<(RuleSource<'a>, CompileError)> {
    let mut out = Vec::new();
    for key in ["domainFilters", "excludeDomains"] {
        let written = (group.sources.iter()).map(|(source, s)| (source, s.list(key)));
        let written: Vec<_> = written.filter(|(_, list)| !list.is_empty()).collect();
        let mut items = written.iter().flat_map(|(_, list)| list.iter());
        if written.is_empty() || !items.all(|f| crate::filter::is_dropped(f)) {
            continue;
        }
        let then = match (key, group.namespace) {
            ("excludeDomains", _) => "no name is excluded".to_string(),
            (_, None) => "every name is admitted".to_string(),
            (_, Some(ns)) => {
                format!("namespace {ns} may use every name the cluster's filters admit")
            }
        };
        let alone = if several {
            ", and no other rule source lists domains here"
        } else {
            ""
        };
        let why = format!("holds only empty items, which external-dns drops{alone}, so the list does nothing: {then}; write the domains, or remove the list");
        out.extend(
            written
                .iter()
                .map(|(source, _)| (**source, CompileError::new(group.at.key(key), why.clone()))),
        );
    }
    out
}

/// Each namespace `doc` names in an `inject` rule's `namespaces` or as a delegation.
fn exempted(doc: &RulesDoc, pending: &mut Vec<Pending>) {
    let root = KeyPath::root();
    for (i, rule) in doc.inject.iter().enumerate() {
        let at = root.key("inject").index(i).key("namespaces");
        pending.extend(
            rule.namespaces
                .iter()
                .enumerate()
                .map(|(j, ns)| Pending::Exempted {
                    path: at.index(j),
                    namespace: ns.clone(),
                    inject: true,
                }),
        );
    }
    pending.extend(doc.namespaces.keys().map(|ns| Pending::Exempted {
        path: root.key("namespaces").key(ns),
        namespace: ns.clone(),
        inject: false,
    }));
}

/// Each `inject` rule's `serviceTypes`: a warning now when the rule's kinds hold no Service (the
/// limit does nothing, and the rule was likely meant for Services), else each type pending on
/// `sources.serviceTypeFilter`.
fn service_types(doc: &RulesDoc, out: &mut Vec<CompileError>, pending: &mut Vec<Pending>) {
    for (i, rule) in doc.inject.iter().enumerate() {
        let at = KeyPath::root().key("inject").index(i).key("serviceTypes");
        if rule.reaches("Service") {
            pending.extend(rule.service_types.iter().enumerate().map(|(j, name)| {
                Pending::ServiceType {
                    path: at.index(j),
                    name: name.clone(),
                }
            }));
        } else if !rule.service_types.is_empty() {
            let kinds = rule.kinds.join(", ");
            out.push(CompileError::new(at, format!("serviceTypes limits a rule on Services only, and this rule's kinds ({kinds}) hold no Service, so it limits nothing; add Service to kinds, or remove serviceTypes")));
        }
    }
}

/// The warnings about one rules document: those its own keys decide (domain filters and
/// exclusions that can match no name zoneguard admits, or that are written as patterns), and
/// into `pending` those the combined rules decide.
fn lint(doc: &RulesDoc, pending: &mut Vec<Pending>) -> Vec<CompileError> {
    let mut out = Vec::new();
    for (ns, scope) in Scope::of(doc) {
        let at = Scope::path(ns);
        let warned = filters(&at, "domainFilters", scope.domain_filters, &mut out);
        filters(&at, "excludeDomains", scope.exclude_domains, &mut out);
        if let Some(ns) = ns {
            delegations(ns, &at, scope.domain_filters, &warned, pending);
        }
        impossible(
            &at,
            "regexDomainFilter",
            scope.regex_domain_filter,
            &mut out,
        );
        impossible(
            &at,
            "regexDomainExclusion",
            scope.regex_domain_exclusion,
            &mut out,
        );
    }
    pending.extend(issuer_needed(doc).map(Pending::Issuer));
    exempted(doc, pending);
    service_types(doc, &mut out, pending);
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

/// Each domain delegated to namespace `ns` (its `domainFilters`, at `at`) but those external-dns
/// drops as empty and those [`filter_problem`] warned about already (the indices `warned`).
fn delegations(
    ns: &str,
    at: &KeyPath,
    domains: &[String],
    warned: &[usize],
    pending: &mut Vec<Pending>,
) {
    let kept = (domains.iter().enumerate())
        .filter(|(i, domain)| !warned.contains(i) && !crate::filter::is_dropped(domain));
    pending.extend(kept.map(|(i, domain)| Pending::Delegation {
        path: at.key("domainFilters").index(i),
        namespace: ns.to_string(),
        domain: domain.clone(),
    }));
}

/// A warning at each item of the list `key` at `at` that [`filter_problem`] finds fault with;
/// the indices of those items.
fn filters(at: &KeyPath, key: &str, list: &[String], out: &mut Vec<CompileError>) -> Vec<usize> {
    let exclusion = key == "excludeDomains";
    let mut warned = Vec::new();
    for (i, filter) in list.iter().enumerate() {
        if let Some(why) = filter_problem(filter, exclusion) {
            out.push(CompileError::new(at.key(key).index(i), why));
            warned.push(i);
        }
    }
    warned
}

/// A warning at the regex `key` when a literal part of it asks for what a name never holds by
/// the time a regex filter sees it: an upper-case letter, or a character no DNS name has.
fn impossible(at: &KeyPath, key: &str, pattern: &Option<String>, out: &mut Vec<CompileError>) {
    use crate::filter::ImpossibleLiteral;
    let Some(fault) = pattern
        .as_deref()
        .and_then(crate::filter::impossible_literal)
    else {
        return;
    };
    let never = if key == "regexDomainExclusion" {
        "excludes"
    } else {
        "matches"
    };
    let why = match fault {
        ImpossibleLiteral::UpperCase(part) => format!("its part {part:?} has upper-case letters, but external-dns lower-cases a name before a regex filter sees it, so that part never {never}: write it in lower case, or start the pattern with (?i)"),
        ImpossibleLiteral::Foreign { part, found: '\\' } => format!("its part `{part}` holds a backslash, which no DNS name holds, so that part never {never}: YAML keeps a backslash as written in single quotes and plain scalars, so \\\\. there reaches the regex as a backslash and then any character; write \\. for a dot (\"\\\\.\" in double quotes)"),
        ImpossibleLiteral::Foreign { part, found } => format!("its part `{part}` holds {found:?}, which no DNS name holds (names hold letters, digits, '-', '_', '.' and '*'), so that part never {never}: remove it from the pattern"),
    };
    out.push(CompileError::new(at.key(key), why));
}

/// Why a domain filter (or, with `exclusion`, an excluded domain) does not do what it looks
/// meant to, as external-dns compares it: the name itself or a suffix after a dot, once trimmed
/// of spaces and of one trailing dot.
fn filter_problem(filter: &str, exclusion: bool) -> Option<String> {
    // external-dns drops an empty one ([`emptied`] warns when a whole list is).
    if crate::filter::is_dropped(filter) {
        return None;
    }
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
    let (why, fix) = if name.contains(char::is_whitespace) {
        ("it contains a space".to_string(), fix)
    } else if name.contains("://") {
        ("it is a URL".to_string(), fix)
    } else if name.contains([':', '/', '@']) {
        ("it contains ':', '/' or '@'".to_string(), fix)
    } else if name.contains("..") {
        ("it has two dots in a row".to_string(), fix)
    } else if name.contains(',') {
        let each = "each list item is one domain, never split at commas: write each domain as an item of its own";
        ("it contains ','".to_string(), each)
    } else {
        // Past a leading dot (external-dns's "names under it alone"), what is left must be a
        // name: a name ending in it is made of its labels.
        let suffix = name.strip_prefix('.').unwrap_or(name);
        let why = crate::hostname::syntax_problem(suffix)?;
        (why, "correct it, or remove it")
    };
    Some(format!(
        "{filter:?} {matches} no valid DNS name ({why}), so external-dns accepts it but it never applies; {fix}"
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

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
            (
                "example.com,example.org",
                false,
                Some("(it contains ','), so external-dns accepts it but it never applies; each list item is one domain"),
            ),
            (
                "internal_svc.example.com",
                true,
                Some("excludes no valid DNS name (its label \"internal_svc\" contains '_'"),
            ),
            (
                &format!("{}.example.com", "a".repeat(64)),
                false,
                Some("is 64 octets long; a label has at most 63), so external-dns accepts it but it never applies; correct it, or remove it"),
            ),
            ("-team.example.com", false, Some("starts or ends with '-'")),
            ("example.com", false, None),
            ("", false, None),
            (" . ", false, None),
            (" .example.com. ", false, None),
            ("EXAMPLE.com", false, None),
            ("bücher.example", false, None),
            ("xn--bcher-kva.example", false, None),
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
