//! Checks a rules document and compiles it into a `RuleSet`.

use super::document::{InjectDoc, IrsaDoc, NamespaceDoc, RegistryDoc, RulesDoc, SourcesDoc};
use super::locate::lines_of;
use super::path::{KeyPath, Seg};
use super::{
    Compatibility, InjectOrigin, InjectRule, Irsa, RuleSet, RuleSource, RulesError, SourceFlags,
    TxtRegistry,
};
use crate::annotation;
use crate::arn::RoleArn;
use crate::filter::{DomainFilter, FilterError, FilterSpec, Regexes};
use crate::selector::Selector;
use crate::template::{FqdnTemplate, ParseError};
use crate::trust::TrustPolicy;
use std::collections::BTreeMap;

/// A problem at a key path, before it is tied to a source and a line.
#[derive(Debug)]
pub struct CompileError {
    pub path: KeyPath,
    pub message: String,
    /// Keys below `path` where the problem is, for its line only (the error stays at `path`):
    /// the operator inside a trust policy written as a mapping.
    within: Vec<Seg>,
}

impl CompileError {
    pub(super) fn new(path: KeyPath, message: impl Into<String>) -> Self {
        Self {
            path,
            message: message.into(),
            within: Vec::new(),
        }
    }

    /// Where its line is looked for: `path`, then the keys `within` it.
    fn located_path(&self) -> KeyPath {
        let mut at = self.path.clone();
        at.0.extend(self.within.iter().cloned());
        at
    }
}

/// Ties each error to the source it came from, with its line there; each source's text is
/// walked once, whatever the number of its errors.
pub fn locate(errors: Vec<(RuleSource<'_>, CompileError)>) -> Vec<RulesError> {
    let mut lines = vec![0; errors.len()];
    let mut done: Vec<&str> = Vec::new();
    for (source, _) in &errors {
        if source.text.is_empty() || done.contains(&source.name) {
            continue;
        }
        done.push(source.name);
        let (at, paths): (Vec<usize>, Vec<KeyPath>) = errors
            .iter()
            .enumerate()
            .filter(|(_, (s, _))| s.name == source.name)
            .map(|(i, (_, e))| (i, e.located_path()))
            .unzip();
        for (i, line) in at.into_iter().zip(lines_of(source.text, &paths)) {
            lines[i] = line;
        }
    }
    errors
        .into_iter()
        .zip(lines)
        .map(|((source, e), line)| RulesError {
            source_name: source.name.to_string(),
            line,
            key: e.path.to_string(),
            message: e.message,
        })
        .collect()
}

/// The kinds an `inject` rule may name.
pub const INJECT_KINDS: [&str; 8] = [
    "Ingress",
    "Service",
    "Gateway",
    "HTTPRoute",
    "GRPCRoute",
    "TLSRoute",
    "TCPRoute",
    "UDPRoute",
];
const SERVICE_TYPES: [&str; 4] = ["ClusterIP", "NodePort", "LoadBalancer", "ExternalName"];

/// Checks and compiles `doc`; `inject_origins` says where each of its `inject` rules was
/// written.
pub fn compile(
    doc: &RulesDoc,
    inject_origins: &[InjectOrigin],
) -> Result<RuleSet, Vec<CompileError>> {
    let mut errors = Vec::new();
    let root = KeyPath::root();
    check_prefix(doc.annotation_prefix.as_deref(), &mut errors);
    // The regexes of the whole rule set share one budget, and a pattern written twice is
    // compiled once.
    let mut regexes = Regexes::default();
    let cluster = filter(&root, cluster_spec(doc), &mut regexes, &mut errors);
    let namespaces = namespaces(&doc.namespaces, &mut regexes, &mut errors);
    let inject = doc
        .inject
        .iter()
        .enumerate()
        .map(|(i, d)| {
            let origin = inject_origins.get(i).cloned();
            inject_rule(i, d, doc.annotation_prefix.as_deref(), origin, &mut errors)
        })
        .collect();
    let irsa = irsa(&doc.irsa, &mut errors);
    let sources = sources(doc, &mut errors);
    for (i, ns) in doc.exempt_namespaces.iter().enumerate() {
        check_namespace_name(ns, root.key("exemptNamespaces").index(i), &mut errors);
    }
    let Some(cluster) = cluster.filter(|_| errors.is_empty()) else {
        return Err(errors);
    };
    Ok(RuleSet {
        annotation_prefix: doc.annotation_prefix.clone(),
        cluster,
        namespaces,
        sources,
        registry: registry(&doc.registry),
        inject,
        irsa,
        enforcement: doc.enforcement.unwrap_or_default(),
        exempt_namespaces: doc.exempt_namespaces.iter().cloned().collect(),
        warnings: Vec::new(),
    })
}

fn sources(doc: &RulesDoc, errors: &mut Vec<CompileError>) -> SourceFlags {
    let s = &doc.sources;
    let base = KeyPath::root().key("sources");
    for (i, class) in s.ingress_class_names.iter().enumerate() {
        if !crate::k8s_name::is_label_value(class) {
            errors.push(CompileError::new(
                base.key("ingressClassNames").index(i),
                format!("{class:?} is not an ingress class external-dns can filter on: its --ingress-class takes label values (at most 63 letters, digits, '-', '_' and '.', starting and ending with a letter or digit), and with any other it publishes no Ingress at all"),
            ));
        }
    }
    let path = base.key("serviceTypeFilter");
    let empty = " (leave the list empty to read every type)";
    check_service_types(&s.service_type_filter, &path, empty, errors);
    let filter = |key: &str, text: &Option<String>, grammar: Grammar, errors: &mut Vec<_>| {
        object_filter(base.key(key), text.as_deref()?, grammar, errors)
    };
    let label_filter = filter("labelFilter", &s.label_filter, Grammar::Labels, errors);
    let annotation_filter = filter(
        "annotationFilter",
        &s.annotation_filter,
        Grammar::SetBased,
        errors,
    );
    let gateway_label_filter = filter(
        "gatewayLabelFilter",
        &s.gateway_label_filter,
        Grammar::SetBased,
        errors,
    );
    check_annotation_filter(annotation_filter.as_ref(), s, &base, errors);
    let namespace = |key: &str, ns: &Option<String>, errors: &mut Vec<CompileError>| {
        let ns = ns.as_deref().filter(|ns| !ns.is_empty())?;
        check_namespace_name(ns, base.key(key), errors);
        Some(ns.to_string())
    };
    let read_namespace = namespace("namespace", &s.namespace, errors);
    let gateway_namespace = namespace("gatewayNamespace", &s.gateway_namespace, errors);
    let compatibility = compatibility(s.compatibility.as_deref(), &base, errors);
    let gateway_name = s.gateway_name.clone().filter(|n| !n.is_empty());
    let fqdn_template = fqdn_template(s.fqdn_template.as_deref(), &base, errors);
    SourceFlags {
        ignore_hostname_annotation: s.ignore_hostname_annotation.unwrap_or(false),
        ignore_ingress_tls_spec: s.ignore_ingress_tls_spec.unwrap_or(false),
        ignore_ingress_rules_spec: s.ignore_ingress_rules_spec.unwrap_or(false),
        publish_internal_services: s.publish_internal_services.unwrap_or(false),
        ingress_class_names: s.ingress_class_names.clone(),
        service_types: s.service_type_filter.clone(),
        label_filter,
        annotation_filter,
        gateway_label_filter,
        namespace: read_namespace,
        gateway_namespace,
        gateway_name,
        compatibility,
        fqdn_template,
        combine_fqdn_annotation: s.combine_fqdn_annotation.unwrap_or(false),
    }
}

/// `sources.fqdnTemplate`, parsed as external-dns parses its `--fqdn-template`; blank = none.
fn fqdn_template(
    text: Option<&str>,
    base: &KeyPath,
    errors: &mut Vec<CompileError>,
) -> Option<FqdnTemplate> {
    let text = text?;
    FqdnTemplate::parse(&[text.to_string()])
        .map_err(|why| {
            let message = match why {
                ParseError::Syntax(why) => format!("{text:?} is not a Go template external-dns accepts ({why}); external-dns refuses to start with it"),
                unbounded @ ParseError::Unbounded { .. } => format!("{text:?} passes a bound of zoneguard's ({unbounded}), so zoneguard would refuse every object it names"),
            };
            errors.push(CompileError::new(base.key("fqdnTemplate"), message));
        })
        .ok()
        .flatten()
}

/// `sources.compatibility`: one of external-dns's `--compatibility` values, or empty for none.
fn compatibility(
    name: Option<&str>,
    base: &KeyPath,
    errors: &mut Vec<CompileError>,
) -> Option<Compatibility> {
    let name = name.filter(|n| !n.is_empty())?;
    let found = Compatibility::NAMES.iter().find(|(n, _)| *n == name);
    if found.is_none() {
        let names: Vec<&str> = Compatibility::NAMES.iter().map(|(n, _)| *n).collect();
        errors.push(CompileError::new(base.key("compatibility"), format!("{name:?} is not a --compatibility mode external-dns has: use one of {}, or leave it empty", names.join(", "))));
    }
    found.map(|(_, mode)| *mode)
}

/// The two readings of a selector external-dns's filter flags use.
#[derive(Clone, Copy)]
enum Grammar {
    /// `labels.Parse` (`--label-filter`).
    Labels,
    /// `metav1.ParseToLabelSelector` (`--annotation-filter`, `--gateway-label-filter`).
    SetBased,
}

/// A `sources` selector, compiled; a refusal says why external-dns would refuse it too.
fn object_filter(
    path: KeyPath,
    text: &str,
    grammar: Grammar,
    errors: &mut Vec<CompileError>,
) -> Option<Selector> {
    let parsed = match grammar {
        Grammar::Labels => Selector::parse_labels(text),
        Grammar::SetBased => Selector::parse_set_based(text),
    };
    match parsed {
        Ok(selector) => Some(selector).filter(|s| !s.is_empty()),
        Err(e) => {
            errors.push(CompileError::new(path, format!("{text:?} is not a selector external-dns accepts ({e}); with it external-dns refuses to start. Write requirements such as `team=web`, `env in (prod,staging)`, `!legacy`, separated by commas")));
            None
        }
    }
}

/// What external-dns refuses or cannot see in an annotation filter: the ingress class annotation
/// beside `--ingress-class`, and kubectl's last-applied annotation, which its informers drop
/// before they filter most objects.
fn check_annotation_filter(
    filter: Option<&Selector>,
    s: &SourcesDoc,
    base: &KeyPath,
    errors: &mut Vec<CompileError>,
) {
    let Some(filter) = filter else { return };
    let path = || base.key("annotationFilter");
    let class = crate::source::INGRESS_CLASS_ANNOTATION;
    if filter.names(class) && !s.ingress_class_names.is_empty() {
        errors.push(CompileError::new(path(), format!("names the {class} annotation while sources.ingressClassNames is set: external-dns refuses to start with both (--ingress-class is mutually exclusive with an annotation filter on {class}); keep one of them")));
    }
    let applied = crate::fields::LAST_APPLIED;
    if filter.names(applied) {
        errors.push(CompileError::new(path(), format!("names the {applied} annotation, which external-dns removes from Ingresses, Services and routes before it filters them; filter on another annotation")));
    }
}

/// Each of `types` must be a Service type; a refusal lists them, then says `hint`.
fn check_service_types(
    types: &[String],
    path: &KeyPath,
    hint: &str,
    errors: &mut Vec<CompileError>,
) {
    for (i, ty) in types.iter().enumerate() {
        if !SERVICE_TYPES.contains(&ty.as_str()) {
            let types = SERVICE_TYPES.join(", ");
            errors.push(CompileError::new(
                path.index(i),
                format!("{ty:?} is not a Service type; use one of {types}{hint}"),
            ));
        }
    }
}

fn check_prefix(prefix: Option<&str>, errors: &mut Vec<CompileError>) {
    let Some(prefix) = prefix else { return };
    let path = KeyPath::root().key("annotationPrefix");
    // external-dns asks only for the '/'; an annotation key's prefix must also be a DNS-1123
    // subdomain, or the API server refuses every annotation under it.
    let name = prefix.strip_suffix('/').unwrap_or("");
    if !crate::k8s_name::is_dns1123_subdomain(name) {
        errors.push(CompileError::new(
            path,
            format!("{prefix:?} is not an annotation prefix: write a lower-case DNS name ending in \"/\", as external-dns's --annotation-prefix (e.g. \"external-dns.alpha.kubernetes.io/\")"),
        ));
    }
}

/// The four external-dns filter flags, as the cluster and each delegated namespace write them.
fn filter_spec(
    include: &[String],
    exclude: &[String],
    regex_include: &Option<String>,
    regex_exclude: &Option<String>,
) -> FilterSpec {
    FilterSpec {
        include: include.to_vec(),
        exclude: exclude.to_vec(),
        regex_include: regex_include.clone().unwrap_or_default(),
        regex_exclude: regex_exclude.clone().unwrap_or_default(),
    }
}

fn cluster_spec(doc: &RulesDoc) -> FilterSpec {
    filter_spec(
        &doc.domain_filters,
        &doc.exclude_domains,
        &doc.regex_domain_filter,
        &doc.regex_domain_exclusion,
    )
}

fn namespace_spec(doc: &NamespaceDoc) -> FilterSpec {
    filter_spec(
        &doc.domain_filters,
        &doc.exclude_domains,
        &doc.regex_domain_filter,
        &doc.regex_domain_exclusion,
    )
}

/// The TXT registry's affixes as external-dns's `NewAffixNameMapper` keeps them: lower-cased
/// (so `%{RECORD_TYPE}` is the placeholder too).
fn registry(doc: &RegistryDoc) -> TxtRegistry {
    let lower =
        |affix: &Option<String>| annotation::go_to_lower(affix.as_deref().unwrap_or_default());
    TxtRegistry {
        prefix: lower(&doc.txt_prefix),
        suffix: lower(&doc.txt_suffix),
        wildcard_replacement: lower(&doc.txt_wildcard_replacement),
    }
}

fn filter(
    base: &KeyPath,
    spec: FilterSpec,
    regexes: &mut Regexes,
    errors: &mut Vec<CompileError>,
) -> Option<DomainFilter> {
    match DomainFilter::within(&spec, regexes) {
        Ok(f) => Some(f),
        Err(FilterError::BadRegex {
            field,
            pattern,
            reason,
        }) => {
            errors.push(CompileError::new(
                base.key(field),
                format!("{pattern:?} {reason}"),
            ));
            None
        }
    }
}

fn namespaces(
    docs: &BTreeMap<String, NamespaceDoc>,
    regexes: &mut Regexes,
    errors: &mut Vec<CompileError>,
) -> BTreeMap<String, DomainFilter> {
    let mut out = BTreeMap::new();
    for (ns, doc) in docs {
        let base = KeyPath::root().key("namespaces").key(ns);
        check_namespace_name(ns, base.clone(), errors);
        if let Some(f) = filter(&base, namespace_spec(doc), regexes, errors) {
            out.insert(ns.clone(), f);
        }
    }
    out
}

fn check_namespace_name(ns: &str, path: KeyPath, errors: &mut Vec<CompileError>) {
    if !crate::k8s_name::is_dns1123_label(ns) {
        errors.push(CompileError::new(
            path,
            format!(
                "{ns:?} is not a namespace name (lower-case letters, digits and '-', at most 63)"
            ),
        ));
    }
}

fn inject_rule(
    index: usize,
    doc: &InjectDoc,
    prefix: Option<&str>,
    origin: Option<InjectOrigin>,
    errors: &mut Vec<CompileError>,
) -> InjectRule {
    let base = KeyPath::root().key("inject").index(index);
    for (i, kind) in doc.kinds.iter().enumerate() {
        if !INJECT_KINDS.contains(&kind.as_str()) {
            errors.push(CompileError::new(
                base.key("kinds").index(i),
                format!(
                    "{kind:?} is not a kind zoneguard injects into; use one of {}",
                    INJECT_KINDS.join(", ")
                ),
            ));
        }
    }
    check_service_types(&doc.service_types, &base.key("serviceTypes"), "", errors);
    for (i, ns) in doc.namespaces.iter().enumerate() {
        check_namespace_name(ns, base.key("namespaces").index(i), errors);
    }
    if doc.annotations.is_empty() {
        errors.push(CompileError::new(
            base.key("annotations"),
            "an inject rule needs at least one annotation",
        ));
    }
    for (key, template) in &doc.annotations {
        let path = base.key("annotations").key(key);
        if let Err(why) = check_annotation_key(key) {
            errors.push(CompileError::new(path.clone(), why));
        }
        let Some(template) = template else {
            errors.push(CompileError::new(path, "an injected annotation needs a value; quote it (\"null\", '~') to inject that text, or write '' for an empty value"));
            continue;
        };
        let checked = crate::mutation::check_template(template)
            .and_then(|()| check_size(key, template))
            .and_then(|()| check_fixed_value(key, template, prefix, doc));
        if let Err(why) = checked {
            errors.push(CompileError::new(path, why));
        }
    }
    InjectRule {
        index,
        kinds: doc.kinds.clone(),
        service_types: doc.service_types.clone(),
        namespaces: doc.namespaces.clone(),
        annotations: doc
            .annotations
            .iter()
            .filter_map(|(k, v)| Some((k.clone(), v.clone()?)))
            .collect(),
        origin,
    }
}

/// The API server's bound on an object's annotations, keys and values together
/// (apimachinery's `TotalAnnotationSizeLimitB`).
const ANNOTATIONS_LIMIT: usize = 256 * 1024;

/// An annotation the API server would refuse on every object, alone: its key and its value
/// (placeholders filled with nothing, as a name only adds to it) over the bound on all
/// annotations.
fn check_size(key: &str, template: &str) -> Result<(), String> {
    match key.len() + crate::mutation::render(template, "", "").len() {
        size if size > ANNOTATIONS_LIMIT => Err(format!("this annotation takes {size} bytes with its key, more than the {ANNOTATIONS_LIMIT} bytes the API server allows an object's annotations in all, so it would refuse every object this rule applies to; inject a shorter value")),
        _ => Ok(()),
    }
}

/// A value without placeholders that no object could be admitted with, whatever the domain
/// filters (another rule source may add one, so those are judged per request): a `ttl`
/// external-dns would ignore, a `hostname` / `internal-hostname` item that is no DNS name, a
/// `target` it cannot publish (when the rule reaches a kind that reads one), or (when the rule
/// reaches Ingresses) an `ingress-hostname-source` that external-dns does not know, under a
/// standard prefix or `prefix`. A value with `{name}` or `{namespace}` is judged
/// per request, once filled in.
fn check_fixed_value(
    key: &str,
    value: &str,
    prefix: Option<&str>,
    rule: &InjectDoc,
) -> Result<(), String> {
    let reaches = |kind: &str| rule.reaches(kind);
    // `check_template` passed: every '{' opens a placeholder.
    if value.contains('{') {
        return Ok(());
    }
    let name = annotation::STANDARD_PREFIXES
        .into_iter()
        .chain(prefix)
        .find_map(|p| key.strip_prefix(p));
    let denied = "so every object this rule applies to would be denied";
    match name {
        Some("ttl") => annotation::parse_ttl(value).map(drop).map_err(|why| {
            format!("{value:?} is not a TTL external-dns accepts ({why}): external-dns would ignore it, {denied}; write whole seconds such as \"300\" or a Go duration such as \"5m\"")
        }),
        Some("hostname" | "internal-hostname") => {
            let items = annotation::split_hostnames(value);
            let several = items.len() > 1;
            for item in items.iter().filter(|i| !i.name.is_empty()) {
                let at = if several {
                    format!("{:?} (item [{}] of {value:?})", item.raw, item.index)
                } else {
                    format!("{value:?}")
                };
                if item.interior_space {
                    return Err(format!("{at} contains spaces: external-dns deletes them and would publish {:?}, {denied}; write the name without spaces and separate several names with commas", item.name));
                }
                if let Some(problem) = crate::hostname::syntax_problem(&item.name) {
                    return Err(format!("{at} is not a valid DNS name: {problem}; {denied}: write a valid DNS name, or a template with {{name}} and {{namespace}}"));
                }
            }
            Ok(())
        }
        Some("target") if ["Ingress", "Service", "Gateway"].into_iter().any(reaches) => {
            crate::target::parse(value).map(drop).map_err(|problem| {
                format!("{value:?} {}, {denied}; {}", problem.problem(), problem.fix())
            })
        }
        Some("ingress-hostname-source") if reaches("Ingress") => {
            match annotation::HostnameSource::parse(Some(value)) {
                Some(_) => Ok(()),
                None => Err(format!("{value:?} is not a value external-dns knows (defined-hosts-only or annotation-only): external-dns would publish no DNS record for the Ingress, {denied}; write one of those two")),
            }
        }
        _ => Ok(()),
    }
}

/// Kubernetes annotation key syntax: optional DNS-subdomain prefix and `/`, then a name.
fn check_annotation_key(key: &str) -> Result<(), String> {
    if crate::k8s_name::is_qualified_name(key) {
        Ok(())
    } else {
        Err(format!("{key:?} is not a valid annotation key (an optional DNS-name prefix and '/', then up to 63 letters, digits, '-', '_' or '.')"))
    }
}

fn irsa(doc: &IrsaDoc, errors: &mut Vec<CompileError>) -> Irsa {
    let base = KeyPath::root().key("irsa");
    for (i, account) in doc.accounts.iter().enumerate() {
        if account.len() != 12 || !account.chars().all(|c| c.is_ascii_digit()) {
            errors.push(CompileError::new(base.key("accounts").index(i), format!("{account:?} is not an AWS account id (12 digits; quote it in YAML so leading zeros survive)")));
        }
    }
    let issuer = doc.issuer.as_deref().map(normalize_issuer);
    if let Some(issuer) = &issuer {
        if issuer.is_empty() || issuer.contains(char::is_whitespace) {
            errors.push(CompileError::new(base.key("issuer"), "the OIDC issuer must be a host and path such as oidc.eks.<region>.amazonaws.com/id/<ID>"));
        } else if let Some((scheme, _)) = issuer.split_once("://") {
            errors.push(CompileError::new(base.key("issuer"), format!("the OIDC issuer is an https URL (IAM refuses any other scheme), not {scheme}://; write https://<host>/<path> or <host>/<path>")));
        }
    }
    let mut trust_policies = std::collections::HashMap::new();
    for (arn, value) in &doc.trust_policies {
        let path = base.key("trustPolicies").key(arn);
        let role = match RoleArn::parse(arn) {
            Ok(role) => role,
            Err(e) => {
                errors.push(CompileError::new(
                    path,
                    format!("the key is not a role ARN: {e}"),
                ));
                continue;
            }
        };
        if let serde_json::Value::String(text) = value {
            if let Some(why) = repeated_policy_key(text) {
                errors.push(CompileError::new(path, why));
                continue;
            }
        }
        let policy = match value {
            serde_json::Value::String(text) => TrustPolicy::from_document(text),
            other => TrustPolicy::from_value(other),
        };
        match policy {
            Ok(p) => {
                trust_policies.insert(role.arn(), p);
            }
            Err(e) => errors.push(CompileError {
                within: e.at.iter().map(Seg::from).collect(),
                ..CompileError::new(path, format!("not a valid trust policy: {e}"))
            }),
        }
    }
    let mut irsa = Irsa {
        issuer,
        audience: doc
            .audience
            .clone()
            .unwrap_or_else(|| "sts.amazonaws.com".to_string()),
        accounts: doc.accounts.iter().cloned().collect(),
        unknown_role: doc.unknown_role.unwrap_or_default(),
        trust_policies,
        ..Irsa::default()
    };
    super::iam::compile_iam(doc, &mut irsa, errors);
    irsa
}

/// A key that a trust policy written as JSON text (percent-encoded or not) repeats (JSON
/// parsers keep the last and drop the first silently, as the YAML parser does for the rules
/// around it).
fn repeated_policy_key(text: &str) -> Option<String> {
    let text = crate::trust::policy::document_text(text)?;
    match super::locate::first_flaw(&text)? {
        super::locate::Flaw::Duplicate(d) => Some(format!(
            "the policy text repeats the key {} (at {}, line {} of the text, first on line {}): write each key once",
            d.key(),
            d.path,
            d.line,
            d.first_line
        )),
        _ => None,
    }
}

/// `https://oidc…/id/X/` → `oidc…/id/X`.
pub(super) fn normalize_issuer(issuer: &str) -> String {
    let s = issuer.trim();
    // The scheme is case-insensitive (RFC 3986); IAM's provider ARN has none.
    let s = match s.get(..8) {
        Some(scheme) if scheme.eq_ignore_ascii_case("https://") => &s[8..],
        _ => s,
    };
    s.trim_end_matches('/').to_string()
}

#[cfg(test)]
mod tests {
    use super::normalize_issuer;

    #[test]
    fn the_issuer_loses_its_scheme_in_any_case_and_its_trailing_slashes() {
        let id = "oidc.eks.us-east-1.amazonaws.com/id/ABC";
        for text in [
            id.to_owned(),
            format!("https://{id}"),
            format!("HTTPS://{id}/"),
            format!(" Https://{id}// "),
        ] {
            assert_eq!(normalize_issuer(&text), id, "{text:?}");
        }
        assert_eq!(normalize_issuer("https:/x"), "https:/x");
    }
}
