//! Combines several rules documents into one (SPEC §5): lists unioned, settings must agree.

use super::document::{IrsaDoc, NamespaceDoc, RegistryDoc, RulesDoc, SourcesDoc};
use super::locate::line_of;
use super::path::KeyPath;
use super::RulesError;
use std::collections::{BTreeMap, HashMap};
use std::fmt::Debug;

/// A parsed document and where it came from.
pub struct Parsed<'a> {
    pub name: &'a str,
    pub text: &'a str,
    pub doc: RulesDoc,
}

/// Folds documents into one, remembering which source set each setting.
struct Combiner<'a> {
    owners: HashMap<String, &'a str>,
    errors: Vec<RulesError>,
}

/// Combines `docs` in order; every conflict is reported, none is resolved silently.
pub fn combine(docs: Vec<Parsed<'_>>) -> Result<RulesDoc, Vec<RulesError>> {
    let mut out = RulesDoc::default();
    let mut c = Combiner {
        owners: HashMap::new(),
        errors: Vec::new(),
    };
    for parsed in docs {
        c.fold(&mut out, parsed);
    }
    if c.errors.is_empty() {
        Ok(out)
    } else {
        Err(c.errors)
    }
}

impl<'a> Combiner<'a> {
    fn fold(&mut self, out: &mut RulesDoc, p: Parsed<'a>) {
        let d = p.doc;
        let src = (p.name, p.text);
        self.scalar(
            src,
            "annotationPrefix",
            &mut out.annotation_prefix,
            d.annotation_prefix,
        );
        self.scalar(
            src,
            "regexDomainFilter",
            &mut out.regex_domain_filter,
            d.regex_domain_filter,
        );
        self.scalar(
            src,
            "regexDomainExclusion",
            &mut out.regex_domain_exclusion,
            d.regex_domain_exclusion,
        );
        self.scalar(src, "enforcement", &mut out.enforcement, d.enforcement);
        union(&mut out.domain_filters, d.domain_filters);
        union(&mut out.exclude_domains, d.exclude_domains);
        union(&mut out.exempt_namespaces, d.exempt_namespaces);
        self.sources(src, &mut out.sources, d.sources);
        self.registry(src, &mut out.registry, d.registry);
        for (ns, n) in d.namespaces {
            let o = out.namespaces.entry(ns.clone()).or_default();
            self.namespace(src, &ns, o, n);
        }
        out.inject.extend(d.inject);
        self.irsa(src, &mut out.irsa, d.irsa);
    }

    fn sources(&mut self, src: (&'a str, &str), o: &mut SourcesDoc, s: SourcesDoc) {
        self.scalar(
            src,
            "sources.ignoreHostnameAnnotation",
            &mut o.ignore_hostname_annotation,
            s.ignore_hostname_annotation,
        );
        self.scalar(
            src,
            "sources.ignoreIngressTLSSpec",
            &mut o.ignore_ingress_tls_spec,
            s.ignore_ingress_tls_spec,
        );
        self.scalar(
            src,
            "sources.ignoreIngressRulesSpec",
            &mut o.ignore_ingress_rules_spec,
            s.ignore_ingress_rules_spec,
        );
        self.scalar(
            src,
            "sources.publishInternalServices",
            &mut o.publish_internal_services,
            s.publish_internal_services,
        );
    }

    fn registry(&mut self, src: (&'a str, &str), o: &mut RegistryDoc, r: RegistryDoc) {
        self.scalar(src, "registry.txtPrefix", &mut o.txt_prefix, r.txt_prefix);
        self.scalar(src, "registry.txtSuffix", &mut o.txt_suffix, r.txt_suffix);
        self.scalar(
            src,
            "registry.txtWildcardReplacement",
            &mut o.txt_wildcard_replacement,
            r.txt_wildcard_replacement,
        );
    }

    fn namespace(&mut self, src: (&'a str, &str), ns: &str, o: &mut NamespaceDoc, n: NamespaceDoc) {
        union(&mut o.domain_filters, n.domain_filters);
        union(&mut o.exclude_domains, n.exclude_domains);
        let base = KeyPath::root().key("namespaces").key(ns);
        self.scalar_at(
            src,
            base.key("regexDomainFilter"),
            &mut o.regex_domain_filter,
            n.regex_domain_filter,
        );
        self.scalar_at(
            src,
            base.key("regexDomainExclusion"),
            &mut o.regex_domain_exclusion,
            n.regex_domain_exclusion,
        );
    }

    fn irsa(&mut self, src: (&'a str, &str), o: &mut IrsaDoc, i: IrsaDoc) {
        self.scalar(src, "irsa.issuer", &mut o.issuer, i.issuer);
        self.scalar(src, "irsa.audience", &mut o.audience, i.audience);
        self.scalar(src, "irsa.unknownRole", &mut o.unknown_role, i.unknown_role);
        union(&mut o.accounts, i.accounts);
        self.scalar(src, "irsa.source", &mut o.source, i.source);
        self.scalar(
            src,
            "irsa.checkProvider",
            &mut o.check_provider,
            i.check_provider,
        );
        self.scalar(src, "irsa.cacheTTL", &mut o.cache_ttl, i.cache_ttl);
        self.scalar(
            src,
            "irsa.negativeCacheTTL",
            &mut o.negative_cache_ttl,
            i.negative_cache_ttl,
        );
        self.scalar(src, "irsa.callTimeout", &mut o.call_timeout, i.call_timeout);
        for chain in i.chains {
            if !o.chains.contains(&chain) {
                o.chains.push(chain);
            }
        }
        self.keyed(
            src,
            "accountReaders",
            &mut o.account_readers,
            i.account_readers,
        );
        self.keyed(
            src,
            "trustPolicies",
            &mut o.trust_policies,
            i.trust_policies,
        );
    }

    /// `irsa.<field>` maps (key → setting): each key is a setting of its own, so two sources
    /// may name different keys but must agree on a key they share.
    fn keyed<T: PartialEq + Debug>(
        &mut self,
        src: (&'a str, &str),
        field: &str,
        into: &mut BTreeMap<String, T>,
        from: BTreeMap<String, T>,
    ) {
        for (key, value) in from {
            let path = KeyPath::root().key("irsa").key(field).key(&key);
            let mut slot = into.remove(&key);
            self.scalar_at(src, path, &mut slot, Some(value));
            if let Some(value) = slot {
                into.insert(key, value);
            }
        }
    }

    fn scalar<T: PartialEq + Debug>(
        &mut self,
        src: (&'a str, &str),
        key: &str,
        into: &mut Option<T>,
        from: Option<T>,
    ) {
        self.scalar_at(src, KeyPath::parse_dotted(key), into, from)
    }

    fn scalar_at<T: PartialEq + Debug>(
        &mut self,
        src: (&'a str, &str),
        path: KeyPath,
        into: &mut Option<T>,
        from: Option<T>,
    ) {
        let Some(value) = from else { return };
        let key = path.to_string();
        match into {
            None => {
                *into = Some(value);
                self.owners.insert(key, src.0);
            }
            Some(existing) if *existing == value => {}
            Some(existing) => {
                let first = self
                    .owners
                    .get(&key)
                    .copied()
                    .unwrap_or("another rule source");
                self.errors.push(RulesError {
                    source_name: src.0.to_string(),
                    line: line_of(src.1, &path),
                    message: format!(
                        "conflicts with {first}: this source sets {}, {first} sets {}; rule sources must agree on every setting (the last valid rule set stays in force)",
                        short(&value),
                        short(existing)
                    ),
                    key,
                });
            }
        }
    }
}

fn short<T: Debug>(value: &T) -> String {
    let text = format!("{value:?}");
    if text.chars().count() > 60 {
        format!("{}…", text.chars().take(60).collect::<String>())
    } else {
        text
    }
}

fn union(into: &mut Vec<String>, from: Vec<String>) {
    let mut seen: std::collections::HashSet<String> = into.iter().cloned().collect();
    for item in from {
        if seen.insert(item.clone()) {
            into.push(item);
        }
    }
}
