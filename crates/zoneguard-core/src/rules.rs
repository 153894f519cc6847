//! Rule documents: parsed, checked, combined and compiled into one `RuleSet`.
//!
//! One parser serves every entry point (`zoneguard check`, `--rules` files, rule ConfigMaps
//! and the webhook that guards them), so whatever one accepts the others accept.

mod combine;
mod compile;
pub mod document;
mod further;
mod iam;
mod lenient;
mod lint;
pub(crate) mod locate;
pub(crate) mod path;
mod words;

use crate::arn::RoleArn;
use crate::filter::DomainFilter;
use crate::selector::Selector;
use crate::template::FqdnTemplate;
use crate::trust::TrustPolicy;
use combine::Parsed;
pub use compile::INJECT_KINDS;
pub use document::{Enforcement, IrsaSource, RulesDoc, UnknownRole};
pub use locate::is_kubernetes_object;
pub use path::KeyPath;
use serde::Deserialize;
use serde_yaml_ng::Value;
use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::time::Duration;
use thiserror::Error;

/// One rules document and where it came from (a file path, or `ConfigMap ns/name`).
#[derive(Debug, Clone, Copy)]
pub struct RuleSource<'a> {
    pub name: &'a str,
    pub text: &'a str,
}

/// Why a rules document (or a combination of several) was refused. Displayed as
/// `source:line: key: message`, or `source: key: message` when the line is unknown.
#[derive(Debug, Error, Clone, PartialEq, Eq)]
#[error("{source_name}{}: {key}: {message}", line_suffix(*.line))]
pub struct RulesError {
    pub source_name: String,
    /// 1-based; 0 when unknown.
    pub line: usize,
    /// The key path, e.g. `irsa.trustPolicies["arn:…"]`, or `(document)`.
    pub key: String,
    pub message: String,
}

impl RulesError {
    /// An error of the document `source_name` as a whole, at no known line.
    pub fn of_document(source_name: impl Into<String>, message: impl Into<String>) -> Self {
        Self {
            source_name: source_name.into(),
            line: 0,
            key: "(document)".to_string(),
            message: message.into(),
        }
    }
}

/// `:line` for a known line, nothing for an unknown one (0).
fn line_suffix(line: usize) -> String {
    match line {
        0 => String::new(),
        n => format!(":{n}"),
    }
}

/// The compiled rules every admission decision uses.
#[derive(Debug, Clone)]
pub struct RuleSet {
    /// `annotationPrefix`; `None` = both standard prefixes.
    pub annotation_prefix: Option<String>,
    pub cluster: DomainFilter,
    pub namespaces: BTreeMap<String, DomainFilter>,
    pub sources: SourceFlags,
    pub registry: TxtRegistry,
    pub inject: Vec<InjectRule>,
    pub irsa: Irsa,
    pub enforcement: Enforcement,
    pub exempt_namespaces: BTreeSet<String>,
    /// What in the rules' text is valid but does not do what it looks meant to (a domain filter
    /// that matches nothing, trust policies without `irsa.issuer`), each at its source, line
    /// and key: warnings for whoever edits the rules, never a reason to refuse them.
    pub warnings: Vec<RulesError>,
}

/// external-dns source flags.
#[derive(Debug, Clone, Default)]
pub struct SourceFlags {
    pub ignore_hostname_annotation: bool,
    pub ignore_ingress_tls_spec: bool,
    pub ignore_ingress_rules_spec: bool,
    pub publish_internal_services: bool,
    /// `--ingress-class`: the Ingress classes external-dns reads; empty = every Ingress.
    pub ingress_class_names: Vec<String>,
    /// `--service-type-filter`: the Service types external-dns reads; empty = every type.
    pub service_types: Vec<String>,
    /// `--label-filter`: the labels of the Ingresses, Services, routes and DNSEndpoints
    /// external-dns reads; `None` = every object.
    pub label_filter: Option<Selector>,
    /// `--annotation-filter`: the same over their annotations.
    pub annotation_filter: Option<Selector>,
    /// `--gateway-label-filter`: the labels of the Gateways external-dns reads.
    pub gateway_label_filter: Option<Selector>,
    /// `--namespace`: the one namespace of the Ingresses, Services, routes and DNSEndpoints
    /// external-dns reads; `None` = every namespace.
    pub namespace: Option<String>,
    /// `--gateway-namespace`: the one namespace of the Gateways external-dns reads.
    pub gateway_namespace: Option<String>,
    /// `--gateway-name`: the one name of the Gateways external-dns publishes routes through.
    pub gateway_name: Option<String>,
    /// `--compatibility`: the older tool whose Service annotations external-dns also reads.
    pub compatibility: Option<Compatibility>,
    /// `--fqdn-template`: names an Ingress, Service or route that has no hostname of its own.
    pub fqdn_template: Option<FqdnTemplate>,
    /// `--combine-fqdn-annotation`: the template names every such object, named or not.
    pub combine_fqdn_annotation: bool,
}

impl SourceFlags {
    /// Whether external-dns reads any object's labels under these flags: through
    /// `--label-filter`, or molecule's `dns: route53` label (`--compatibility=molecule`).
    /// Gateways' own label filter is left out: nothing on a Gateway is injected and judged.
    pub fn reads_labels(&self) -> bool {
        self.label_filter.is_some() || self.compatibility == Some(Compatibility::Molecule)
    }
}

/// external-dns's `--compatibility` modes: a Service that yields no name of its own is read
/// with the annotations of the tool external-dns replaced.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Compatibility {
    /// Zalando's mate: `zalando.org/dnsname`, one name.
    Mate,
    /// molecule: `domainName`, a list, on Services labelled `dns: route53`.
    Molecule,
    /// kops's dns-controller: `dns.alpha.kubernetes.io/external` and `.../internal`, lists.
    KopsDnsController,
}

impl Compatibility {
    /// The flag's values, as external-dns spells them.
    pub const NAMES: [(&'static str, Self); 3] = [
        ("mate", Self::Mate),
        ("molecule", Self::Molecule),
        ("kops-dns-controller", Self::KopsDnsController),
    ];
}

/// external-dns TXT registry affixes.
#[derive(Debug, Clone, Default)]
pub struct TxtRegistry {
    pub prefix: String,
    pub suffix: String,
    pub wildcard_replacement: String,
}

/// One `inject` entry.
#[derive(Debug, Clone, Default)]
pub struct InjectRule {
    /// Position in the combined `inject` list; messages name the rule by its source and its
    /// index there instead ([`RuleSet::inject_rule_name`]).
    pub index: usize,
    pub kinds: Vec<String>,
    pub service_types: Vec<String>,
    pub namespaces: Vec<String>,
    /// Key → template with `{name}` / `{namespace}`.
    pub annotations: BTreeMap<String, String>,
    /// Where the rule was written; `None` for a rule built by hand.
    pub origin: Option<InjectOrigin>,
}

/// Where an `inject` rule was written: its rule source (a file path, or `ConfigMap ns/name`)
/// and its index in that source's own `inject` list. Kept with the compiled rules, so that a
/// denial blaming the rule costs nothing until it is written.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct InjectOrigin {
    pub source: String,
    pub index: usize,
}

impl std::fmt::Display for InjectOrigin {
    /// `inject[1] of ConfigMap zoneguard/zoneguard-rules-platform`, as a platform team finds it.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "inject[{}] of {}", self.index, self.source)
    }
}

/// IRSA settings with parsed trust policies.
#[derive(Debug, Clone)]
pub struct Irsa {
    pub issuer: Option<String>,
    pub audience: String,
    pub accounts: BTreeSet<String>,
    pub unknown_role: UnknownRole,
    /// Canonical role ARN → policy.
    pub trust_policies: HashMap<String, TrustPolicy>,
    /// `irsa.source`.
    pub source: IrsaSource,
    /// Account id → reader role ARN (`irsa.accountReaders`).
    pub account_readers: BTreeMap<String, RoleArn>,
    /// `irsa.chains`.
    pub chains: Vec<Chain>,
    /// `irsa.checkProvider`.
    pub check_provider: bool,
    /// `irsa.cacheTTL` (default 5 minutes).
    pub cache_ttl: Duration,
    /// `irsa.negativeCacheTTL` (default 30 seconds).
    pub negative_cache_ttl: Duration,
    /// `irsa.callTimeout` (default 1 second).
    pub call_timeout: Duration,
}

/// One `irsa.chains` entry: the ServiceAccount's IRSA role assumes `assumes`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Chain {
    pub namespace: String,
    pub service_account: String,
    pub assumes: RoleArn,
}

impl Irsa {
    pub const DEFAULT_CACHE_TTL: Duration = Duration::from_secs(300);
    pub const DEFAULT_NEGATIVE_CACHE_TTL: Duration = Duration::from_secs(30);
    pub const DEFAULT_CALL_TIMEOUT: Duration = Duration::from_secs(1);

    /// The chains that start at this ServiceAccount.
    pub fn chains_of<'a>(
        &'a self,
        namespace: &'a str,
        name: &'a str,
    ) -> impl Iterator<Item = &'a Chain> + 'a {
        self.chains
            .iter()
            .filter(move |c| c.namespace == namespace && c.service_account == name)
    }
}

impl Default for Irsa {
    fn default() -> Self {
        Self {
            issuer: None,
            audience: "sts.amazonaws.com".to_string(),
            accounts: BTreeSet::new(),
            unknown_role: UnknownRole::default(),
            trust_policies: HashMap::new(),
            source: IrsaSource::default(),
            account_readers: BTreeMap::new(),
            chains: Vec::new(),
            check_provider: false,
            cache_ttl: Self::DEFAULT_CACHE_TTL,
            negative_cache_ttl: Self::DEFAULT_NEGATIVE_CACHE_TTL,
            call_timeout: Self::DEFAULT_CALL_TIMEOUT,
        }
    }
}

impl RuleSet {
    /// How messages name the `inject` rule at `index` (its position in `inject`): the rule
    /// source it was written in and its index there, e.g. `inject[1] of ConfigMap
    /// zoneguard/zoneguard-rules-platform`.
    pub fn inject_rule_name(&self, index: usize) -> String {
        match self.inject.get(index).and_then(|rule| rule.origin.as_ref()) {
            Some(origin) => origin.to_string(),
            None => format!("inject[{index}] of the zoneguard rules"),
        }
    }

    /// Parse every source and combine them (lists unioned, scalars must agree).
    /// Every error is returned, each naming its source, line and key.
    pub fn from_sources(sources: &[RuleSource<'_>]) -> Result<Self, Vec<RulesError>> {
        let several = sources.len() > 1;
        let mut read = Vec::with_capacity(sources.len());
        let mut errors = Vec::new();
        for source in sources {
            match Read::of(*source, several) {
                Ok(one) => read.push(one),
                Err(e) => errors.extend(e),
            }
        }
        if errors.is_empty() {
            Self::combined(read)
        } else {
            Err(errors)
        }
    }

    /// One document, alone.
    pub fn parse(name: &str, text: &str) -> Result<Self, Vec<RulesError>> {
        Self::from_sources(&[RuleSource { name, text }])
    }

    /// The rule set of sources each read without error, in order.
    pub(crate) fn combined(read: Vec<Read<'_>>) -> Result<Self, Vec<RulesError>> {
        let parsed: Vec<Parsed<'_>> = read.into_iter().map(|r| r.0).collect();
        let (rules, lints) = match parsed.as_slice() {
            // One document is its own combination. Its warnings need the documents, not the
            // compiled rules, so they are judged on a second core while it compiles: that
            // takes a tenth off a large rule set's load, which the webhook waits on to be ready.
            [one] => std::thread::scope(|s| {
                let lints = s.spawn(|| lint::Lints::of(&parsed));
                let rules = compile_alone(one);
                (
                    rules,
                    lints
                        .join()
                        .unwrap_or_else(|p| std::panic::resume_unwind(p)),
                )
            }),
            // Combining takes the documents, so their warnings are judged first.
            _ => {
                let lints = lint::Lints::of(&parsed);
                (compile_combined(parsed), lints)
            }
        };
        let mut rules = rules?;
        rules.warnings = lints.settle(&rules);
        Ok(rules)
    }
}

/// One source read without error: its document, and, when it is one of several, the proof
/// that it compiles alone, so that an error in it names it rather than the combination.
pub(crate) struct Read<'a>(Parsed<'a>);

impl<'a> Read<'a> {
    /// `source` parsed, and compiled alone when it is to be combined with others (`several`);
    /// one source alone is compiled once, as the whole rule set.
    pub(crate) fn of(source: RuleSource<'a>, several: bool) -> Result<Self, Vec<RulesError>> {
        let doc = parse_doc(&source)?;
        if several {
            if let Err(errs) = compile::compile(&doc, &origins(source.name, doc.inject.len())) {
                return Err(compile::locate(
                    errs.into_iter().map(|e| (source, e)).collect(),
                ));
            }
        }
        Ok(Read(Parsed { source, doc }))
    }
}

/// The rules of one source, which is the whole rule set.
fn compile_alone(one: &Parsed<'_>) -> Result<RuleSet, Vec<RulesError>> {
    let origins = origins(one.source.name, one.doc.inject.len());
    compile::compile(&one.doc, &origins)
        .map_err(|errs| compile::locate(errs.into_iter().map(|e| (one.source, e)).collect()))
}

/// The rules of several sources, combined; an error of the combination names the source that
/// wrote the setting at fault where one did.
fn compile_combined(parsed: Vec<Parsed<'_>>) -> Result<RuleSet, Vec<RulesError>> {
    let sources: Vec<RuleSource<'_>> = parsed.iter().map(|p| p.source).collect();
    let (merged, origins) = combine::combine(parsed)?;
    compile::compile(&merged, &origins).map_err(|errs| {
        let attributed = errs.into_iter().map(|e| attribute(e, &origins, &sources));
        compile::locate(attributed.collect())
    })
}

/// Each `inject` rule of one source, in order.
fn origins(source: &str, rules: usize) -> Vec<InjectOrigin> {
    (0..rules)
        .map(|index| InjectOrigin {
            source: source.to_string(),
            index,
        })
        .collect()
}

/// Ties an error of the combined rules to its source: an error inside an `inject` rule (a
/// TTL that only the other source's `annotationPrefix` makes one) belongs to the source that
/// wrote the rule, at the rule's own index and line there.
fn attribute<'a>(
    e: compile::CompileError,
    origins: &[InjectOrigin],
    sources: &[RuleSource<'a>],
) -> (RuleSource<'a>, compile::CompileError) {
    let combined = RuleSource {
        name: "combined rules",
        text: "",
    };
    let origin = match e.path.0.as_slice() {
        [path::Seg::Key(inject), path::Seg::Index(i), ..] if inject == "inject" => origins.get(*i),
        _ => None,
    };
    let source = origin.and_then(|o| sources.iter().find(|s| s.name == o.source));
    match (origin, source) {
        (Some(origin), Some(source)) => {
            let mut e = e;
            e.path.0[1] = path::Seg::Index(origin.index);
            (*source, e)
        }
        _ => (combined, e),
    }
}

/// Why a rules *file*'s text is refused before it is parsed: a file with no text at all (no
/// bytes, or only whitespace) is what a file being rewritten in place looks like for a moment,
/// or a mistake (a templating step that wrote nothing); installed, it would check nothing. A
/// rule set that checks nothing is written `{}`. (A rule ConfigMap is updated whole, so its
/// empty `rules.yaml` is no such moment and is not refused.)
pub fn empty_file_problem(text: &str) -> Option<&'static str> {
    // A byte order mark is not text (as the parser reads it).
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    text.trim().is_empty().then_some(
        "is empty (a file being written, or a mistake); write {} for a rule set that checks nothing",
    )
}

/// Parses one document's text (YAML or JSON) into its typed form. When it does not read, the
/// errors are its first and, after one at a key, the errors after it (`further::after`).
pub fn parse_doc(source: &RuleSource<'_>) -> Result<RulesDoc, Vec<RulesError>> {
    // A byte order mark, as some editors write, is not part of the document.
    let text = source.text.strip_prefix('\u{feff}').unwrap_or(source.text);
    if text.trim().is_empty() {
        return Ok(RulesDoc::default());
    }
    // The YAML parser keeps the last of a repeated map key and drops the first silently, reads
    // one document only, is slow on deep nesting, and builds every copy aliases make.
    let survey = locate::survey_rules(text);
    if let Some(flaw) = &survey.flaw {
        return Err(vec![flaw_error(source, flaw)]);
    }
    // Only the first document is read: a later one with content was refused above, and an
    // empty one (a trailing `---`) holds nothing.
    let Some(first) = serde_yaml_ng::Deserializer::from_str(text).next() else {
        return Ok(RulesDoc::default());
    };
    if survey.merges {
        return parse_merged(source, first);
    }
    Option::<RulesDoc>::deserialize(first)
        .map(Option::unwrap_or_default)
        .map_err(|e| {
            let first = yaml_error(source, &e);
            // The text read as YAML once: it is read again for the errors after the first.
            let document = serde_yaml_ng::from_str(text).unwrap_or_default();
            let further = further::after(source, document, &first);
            std::iter::once(first).chain(further).collect()
        })
}

/// A document with merge keys (`<<`), applied as `zoneguard check` applies them to manifests
/// ([`crate::yaml::apply_merges`]), then read from the merged value. Its errors (the first
/// and those after it, `further::errors`) name their key paths, each at the line of the path's
/// longest prefix in the text as written (a key a merge brought in stands where its mapping
/// does).
fn parse_merged(
    source: &RuleSource<'_>,
    document: serde_yaml_ng::Deserializer<'_>,
) -> Result<RulesDoc, Vec<RulesError>> {
    let at_document = |message: String| RulesError::of_document(source.name, message);
    let value = Option::<Value>::deserialize(document)
        .map_err(|e| vec![yaml_error(source, &e)])?
        .unwrap_or_default();
    let merged = crate::yaml::apply_merges(value).map_err(|e| {
        vec![RulesError {
            line: locate::line_of(source.text, &KeyPath::parse_dotted(&e.at)),
            key: e.at,
            ..at_document(e.problem)
        }]
    })?;
    match Option::<RulesDoc>::deserialize(lenient::Lenient(&merged)) {
        Ok(doc) => Ok(doc.unwrap_or_default()),
        Err(e) => {
            let errors = further::errors(source, merged);
            // The same value read the same way: never empty, but an error is never lost.
            Err(if errors.is_empty() {
                vec![at_document(e.to_string())]
            } else {
                errors
            })
        }
    }
}

fn flaw_error(source: &RuleSource<'_>, flaw: &locate::Flaw) -> RulesError {
    let at = |line: usize, message: String| RulesError {
        line,
        ..RulesError::of_document(source.name, message)
    };
    match flaw {
        locate::Flaw::Duplicate(duplicate) => duplicate_error(source, duplicate),
        locate::Flaw::SecondDocument { line } => at(*line, "a second YAML document starts here, and a rules file or ConfigMap key holds one document: merge it into the first, or give it a file or ConfigMap of its own (rule sources combine)".to_string()),
        locate::Flaw::TooDeep { line } => at(
            *line,
            format!(
                "nested more than {} levels deep; a rules document needs far fewer",
                locate::MAX_DEPTH
            ),
        ),
        locate::Flaw::Aliases { line, bound } => at(*line, crate::yaml::aliases_message(*bound)),
    }
}

fn duplicate_error(source: &RuleSource<'_>, duplicate: &locate::Duplicate) -> RulesError {
    let key = duplicate.key();
    RulesError {
        source_name: source.name.to_string(),
        line: duplicate.line,
        key: duplicate.path.to_string(),
        message: format!(
            "duplicate key {key}, already set on line {}: write each key once",
            duplicate.first_line
        ),
    }
}

fn yaml_error(source: &RuleSource<'_>, e: &serde_yaml_ng::Error) -> RulesError {
    let line = e.location().map_or(0, |l| l.line());
    let text = e.to_string();
    let mut text = text.split(" at line ").next().unwrap_or(&text).to_string();
    if text.ends_with("cannot start any token") && tab_at(source.text, e.location()) {
        text.push_str(" (a tab? YAML indents with spaces)");
    }
    let (path, message) = match text.split_once(": ") {
        Some((k, m)) if !k.contains(' ') => (Some(k.to_string()), m.to_string()),
        _ => (None, text),
    };
    let key = match (path, words::unknown_field(&message).map(|(field, _)| field)) {
        (Some(p), Some(f)) => format!("{p}.{f}"),
        (None, Some(f)) => f.to_string(),
        (Some(p), None) => p,
        (None, None) => "(document)".to_string(),
    };
    let message = words::in_user_words(&message, &key);
    RulesError {
        source_name: source.name.to_string(),
        line,
        key,
        message,
    }
}

/// True when the character the YAML parser stopped at (1-based line and column) is a tab, or
/// a tab is in the indentation of that line.
fn tab_at(text: &str, location: Option<serde_yaml_ng::Location>) -> bool {
    let Some(location) = location else {
        return false;
    };
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    let Some(line) = text.lines().nth(location.line().saturating_sub(1)) else {
        return false;
    };
    let indent = &line[..line.len() - line.trim_start().len()];
    indent.contains('\t') || line.chars().nth(location.column().saturating_sub(1)) == Some('\t')
}

#[cfg(test)]
mod tests;
