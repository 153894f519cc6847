//! Combines several rules documents into one: lists unioned, settings must agree.

use super::compile::normalize_issuer;
use super::document::{
    Enforcement, IrsaDoc, IrsaSource, NamespaceDoc, RegistryDoc, RulesDoc, SourcesDoc, UnknownRole,
};
use super::locate::line_of;
use super::path::KeyPath;
use super::{InjectOrigin, RuleSource, RulesError};
use crate::trust::TrustPolicy;
use serde_json::Value as Json;
use std::collections::{BTreeMap, HashMap};

/// `Combiner::scalar` for each `"key" => field` of two documents' `into` and `from`, each key
/// written under `prefix`.
macro_rules! scalars {
    ($self:ident, $src:ident, $into:ident, $from:ident, $prefix:literal, { $($key:literal => $field:ident),* $(,)? }) => {
        $( $self.scalar($src, concat!($prefix, $key), &mut $into.$field, $from.$field); )*
    };
}

/// A parsed document and where it came from.
pub struct Parsed<'a> {
    pub source: RuleSource<'a>,
    pub doc: RulesDoc,
}

/// Folds documents into one, remembering which source set each setting.
struct Combiner<'a> {
    /// The source that set each setting first, by key path.
    owners: HashMap<String, RuleSource<'a>>,
    /// Where each rule of the combined `inject` list was written.
    inject_origins: Vec<InjectOrigin>,
    errors: Vec<RulesError>,
}

/// Combines `docs` in order; every conflict is reported, none is resolved silently. With the
/// combined document comes the origin of each of its `inject` rules (their source and their
/// index there), in order.
pub fn combine(docs: Vec<Parsed<'_>>) -> Result<(RulesDoc, Vec<InjectOrigin>), Vec<RulesError>> {
    let mut out = RulesDoc::default();
    let mut c = Combiner {
        owners: HashMap::new(),
        inject_origins: Vec::new(),
        errors: Vec::new(),
    };
    for parsed in docs {
        c.fold(&mut out, parsed);
    }
    if c.errors.is_empty() {
        Ok((out, c.inject_origins))
    } else {
        Err(c.errors)
    }
}

impl<'a> Combiner<'a> {
    fn fold(&mut self, out: &mut RulesDoc, p: Parsed<'a>) {
        let src = p.source;
        let d = p.doc;
        scalars!(self, src, out, d, "", {
            "annotationPrefix" => annotation_prefix,
            "regexDomainFilter" => regex_domain_filter,
            "regexDomainExclusion" => regex_domain_exclusion,
            "enforcement" => enforcement,
        });
        union(&mut out.domain_filters, d.domain_filters);
        union(&mut out.exclude_domains, d.exclude_domains);
        union(&mut out.exempt_namespaces, d.exempt_namespaces);
        self.sources(src, &mut out.sources, d.sources);
        self.registry(src, &mut out.registry, d.registry);
        for (ns, n) in d.namespaces {
            let o = out.namespaces.entry(ns.clone()).or_default();
            self.namespace(src, &ns, o, n);
        }
        self.inject_origins
            .extend((0..d.inject.len()).map(|index| InjectOrigin {
                source: src.name.to_string(),
                index,
            }));
        out.inject.extend(d.inject);
        self.irsa(src, &mut out.irsa, d.irsa);
    }

    fn sources(&mut self, src: RuleSource<'a>, o: &mut SourcesDoc, s: SourcesDoc) {
        scalars!(self, src, o, s, "sources.", {
            "ignoreHostnameAnnotation" => ignore_hostname_annotation,
            "ignoreIngressTLSSpec" => ignore_ingress_tls_spec,
            "ignoreIngressRulesSpec" => ignore_ingress_rules_spec,
            "publishInternalServices" => publish_internal_services,
            "labelFilter" => label_filter,
            "annotationFilter" => annotation_filter,
            "gatewayLabelFilter" => gateway_label_filter,
            "namespace" => namespace,
            "gatewayNamespace" => gateway_namespace,
            "gatewayName" => gateway_name,
            "compatibility" => compatibility,
            "fqdnTemplate" => fqdn_template,
            "combineFqdnAnnotation" => combine_fqdn_annotation,
        });
        union(&mut o.ingress_class_names, s.ingress_class_names);
        union(&mut o.service_type_filter, s.service_type_filter);
    }

    fn registry(&mut self, src: RuleSource<'a>, o: &mut RegistryDoc, r: RegistryDoc) {
        scalars!(self, src, o, r, "registry.", {
            "txtPrefix" => txt_prefix,
            "txtSuffix" => txt_suffix,
            "txtWildcardReplacement" => txt_wildcard_replacement,
        });
    }

    fn namespace(&mut self, src: RuleSource<'a>, ns: &str, o: &mut NamespaceDoc, n: NamespaceDoc) {
        union(&mut o.domain_filters, n.domain_filters);
        union(&mut o.exclude_domains, n.exclude_domains);
        let base = KeyPath::root().key("namespaces").key(ns);
        self.setting(
            src,
            base.key("regexDomainFilter"),
            &mut o.regex_domain_filter,
            n.regex_domain_filter,
            String::eq,
        );
        self.setting(
            src,
            base.key("regexDomainExclusion"),
            &mut o.regex_domain_exclusion,
            n.regex_domain_exclusion,
            String::eq,
        );
    }

    fn irsa(&mut self, src: RuleSource<'a>, o: &mut IrsaDoc, i: IrsaDoc) {
        self.scalar_by(src, "irsa.issuer", &mut o.issuer, i.issuer, |a, b| {
            same_issuer(a, b)
        });
        scalars!(self, src, o, i, "irsa.", {
            "audience" => audience,
            "unknownRole" => unknown_role,
            "source" => source,
            "checkProvider" => check_provider,
        });
        union(&mut o.accounts, i.accounts);
        let durations = [
            ("irsa.cacheTTL", &mut o.cache_ttl, i.cache_ttl),
            (
                "irsa.negativeCacheTTL",
                &mut o.negative_cache_ttl,
                i.negative_cache_ttl,
            ),
            ("irsa.callTimeout", &mut o.call_timeout, i.call_timeout),
        ];
        for (key, into, from) in durations {
            self.scalar_by(src, key, into, from, |a, b| same_duration(a, b));
        }
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
            String::eq,
        );
        self.keyed(
            src,
            "trustPolicies",
            &mut o.trust_policies,
            i.trust_policies,
            same_policy,
        );
    }

    /// `irsa.<field>` maps (key → setting): each key is a setting of its own, so two sources
    /// may name different keys but must agree on a key they share.
    fn keyed<T: Written>(
        &mut self,
        src: RuleSource<'a>,
        field: &str,
        into: &mut BTreeMap<String, T>,
        from: BTreeMap<String, T>,
        same: fn(&T, &T) -> bool,
    ) {
        for (key, value) in from {
            let path = KeyPath::root().key("irsa").key(field).key(&key);
            let mut slot = into.remove(&key);
            self.setting(src, path, &mut slot, Some(value), same);
            if let Some(value) = slot {
                into.insert(key, value);
            }
        }
    }

    /// A setting compared as written.
    fn scalar<T: PartialEq + Written>(
        &mut self,
        src: RuleSource<'a>,
        key: &str,
        into: &mut Option<T>,
        from: Option<T>,
    ) {
        self.setting(src, KeyPath::parse_dotted(key), into, from, T::eq)
    }

    /// A setting compared by `same`, after the normalisation compilation gives it.
    fn scalar_by<T: Written>(
        &mut self,
        src: RuleSource<'a>,
        key: &str,
        into: &mut Option<T>,
        from: Option<T>,
        same: fn(&T, &T) -> bool,
    ) {
        self.setting(src, KeyPath::parse_dotted(key), into, from, same)
    }

    /// Takes `from` into `into` when unset; a value that is not the `same` is a conflict.
    /// The first value stays.
    fn setting<T: Written>(
        &mut self,
        src: RuleSource<'a>,
        path: KeyPath,
        into: &mut Option<T>,
        from: Option<T>,
        same: fn(&T, &T) -> bool,
    ) {
        let Some(value) = from else { return };
        let key = path.to_string();
        match into {
            None => {
                *into = Some(value);
                self.owners.insert(key, src);
            }
            Some(existing) if same(existing, &value) => {}
            Some(existing) => {
                let first = match self.owners.get(&key) {
                    Some(owner) => {
                        let line = match line_of(owner.text, &path) {
                            0 => String::new(),
                            n => format!(" (line {n})"),
                        };
                        format!("{}{line}", other_source(src.name, owner.name))
                    }
                    None => "another rule source".to_string(),
                };
                let (this, theirs) = written_pair(&value.written(), &existing.written());
                self.errors.push(RulesError {
                    source_name: src.name.to_string(),
                    line: line_of(src.text, &path),
                    message: format!(
                        "set to {this} here and to {theirs} in {first}; rule sources must agree: set it in one of them, or to the same value in both"
                    ),
                    key,
                });
            }
        }
    }
}

/// How a conflict in source `this` names the `other` source: without the file both were read
/// from (`rules.yaml: ConfigMap a/b` and `rules.yaml: ConfigMap a/c`), which the error's own
/// source name already says.
fn other_source<'o>(this: &str, other: &'o str) -> &'o str {
    match (this.split_once(": "), other.split_once(": ")) {
        (Some((file, _)), Some((other_file, rest))) if file == other_file => rest,
        _ => other,
    }
}

/// Issuers agree when they name one issuer (`https://` and trailing `/` aside).
fn same_issuer(a: &str, b: &str) -> bool {
    normalize_issuer(a) == normalize_issuer(b)
}

/// Durations agree when they are as long (`1m` and `60s`).
fn same_duration(a: &str, b: &str) -> bool {
    match (crate::duration::parse(a), crate::duration::parse(b)) {
        (Some(a), Some(b)) => a == b,
        _ => a == b,
    }
}

/// Trust policies agree when they parse to the same policy, however each is written (a
/// mapping, or its JSON as a string).
fn same_policy(a: &Json, b: &Json) -> bool {
    match (TrustPolicy::from_value(a), TrustPolicy::from_value(b)) {
        (Ok(a), Ok(b)) => a == b,
        _ => a == b,
    }
}

/// A setting's value as a user writes it in rules, for conflict messages.
pub(super) trait Written {
    fn written(&self) -> String;
}

impl Written for String {
    /// Quoted, as JSON and YAML's double-quoted style write it.
    fn written(&self) -> String {
        Json::from(self.as_str()).to_string()
    }
}

impl Written for bool {
    fn written(&self) -> String {
        self.to_string()
    }
}

/// The rules' choices are written by their own names (`deny`, `iam`, …).
macro_rules! written_as_str {
    ($($choice:ty),*) => {$(
        impl Written for $choice {
            fn written(&self) -> String {
                self.as_str().to_string()
            }
        }
    )*};
}

written_as_str!(Enforcement, UnknownRole, IrsaSource);

impl Written for Json {
    /// Compact JSON; a policy written as a JSON string is shown as the JSON it holds.
    fn written(&self) -> String {
        match self {
            Json::String(text) => serde_json::from_str::<Json>(text)
                .ok()
                .filter(Json::is_object)
                .unwrap_or_else(|| self.clone())
                .to_string(),
            other => other.to_string(),
        }
    }
}

/// The longest value a conflict message shows, in characters.
const SHOWN: usize = 80;
/// How much of what two long values share is kept before the first difference.
const CONTEXT: usize = 20;

/// Both values cut to at most `SHOWN` characters, starting late enough that the first
/// place where they differ is shown.
fn written_pair(a: &str, b: &str) -> (String, String) {
    let common = a.chars().zip(b.chars()).take_while(|(x, y)| x == y).count();
    let skip = if common + CONTEXT > SHOWN {
        common - CONTEXT
    } else {
        0
    };
    (clip(a, skip), clip(b, skip))
}

/// `text` from character `skip`, at most `SHOWN` characters, with `…` where it was cut.
fn clip(text: &str, skip: usize) -> String {
    let mut out = String::new();
    if skip > 0 {
        out.push('…');
    }
    let mut rest = text.chars().skip(skip);
    out.extend(rest.by_ref().take(SHOWN));
    if rest.next().is_some() {
        out.push('…');
    }
    out
}

fn union(into: &mut Vec<String>, from: Vec<String>) {
    let mut seen: std::collections::HashSet<String> = into.iter().cloned().collect();
    for item in from {
        if seen.insert(item.clone()) {
            into.push(item);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn long_values_are_cut_where_they_show_their_first_difference() {
        let (x, e) = ("x".repeat(100), "é".repeat(120));
        let (x20, x79, e20) = ("x".repeat(20), "x".repeat(79), "é".repeat(20));
        let table: [(String, String, String, String); 4] = [
            (
                "\"a\"".into(),
                "\"b\"".into(),
                "\"a\"".into(),
                "\"b\"".into(),
            ),
            (
                format!("{x}A"),
                format!("{x}B"),
                format!("…{x20}A"),
                format!("…{x20}B"),
            ),
            (
                format!("A{x}"),
                format!("B{x}"),
                format!("A{x79}…"),
                format!("B{x79}…"),
            ),
            (
                e.clone(),
                format!("{e}!"),
                format!("…{e20}"),
                format!("…{e20}!"),
            ),
        ];
        for (a, b, a_shown, b_shown) in table {
            assert_eq!(written_pair(&a, &b), (a_shown, b_shown), "{a} / {b}");
        }
    }

    #[test]
    fn values_are_written_as_in_rules() {
        let policy = r#"{"Version":"2012-10-17","Statement":[]}"#;
        let table: [(String, &str); 6] = [
            ("deny".to_string().written(), "\"deny\""),
            (Enforcement::Audit.written(), "audit"),
            (UnknownRole::Allow.written(), "allow"),
            (true.written(), "true"),
            (
                Json::from(policy).written(),
                r#"{"Statement":[],"Version":"2012-10-17"}"#,
            ),
            (Json::from("%7B").written(), "\"%7B\""),
        ];
        for (written, expected) in table {
            assert_eq!(written, expected);
        }
    }
}
