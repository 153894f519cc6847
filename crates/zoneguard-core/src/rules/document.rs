//! The rules document as written by platform teams, before checks and compilation.

use serde::{Deserialize, Deserializer};
use std::collections::BTreeMap;

/// Accepts `key:` with no value (YAML null) as the type's default.
fn null_as_default<'de, D, T>(d: D) -> Result<T, D::Error>
where
    D: Deserializer<'de>,
    T: Default + Deserialize<'de>,
{
    Ok(Option::<T>::deserialize(d)?.unwrap_or_default())
}

/// A list of strings that may itself be null (read as empty), as every optional key may; a null
/// item (`[~]`, `- ` with nothing after it) is refused, where YAML's reader would make it the
/// text `null` or `~`.
fn strings<'de, D>(d: D) -> Result<Vec<String>, D::Error>
where
    D: Deserializer<'de>,
{
    let items = Option::<Vec<Item>>::deserialize(d)?.unwrap_or_default();
    Ok(items.into_iter().map(|Item(s)| s).collect())
}

/// One item of [`strings`]: a string, never null.
struct Item(String);

impl<'de> Deserialize<'de> for Item {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        Option::<String>::deserialize(d)?
            .map(Item)
            .ok_or_else(|| serde::de::Error::invalid_type(serde::de::Unexpected::Unit, &"a string"))
    }
}

/// A mapping whose values may be null (`team-a:` or `team-a: ~`), each read as its type's
/// default, as every other optional key is; the mapping itself may be null too.
fn null_entries_as_default<'de, D, T>(d: D) -> Result<BTreeMap<String, T>, D::Error>
where
    D: Deserializer<'de>,
    T: Default + Deserialize<'de>,
{
    let entries = Option::<BTreeMap<String, Option<T>>>::deserialize(d)?.unwrap_or_default();
    Ok(entries
        .into_iter()
        .map(|(key, value)| (key, value.unwrap_or_default()))
        .collect())
}

/// One rules document.
#[derive(Debug, Clone, Default, Deserialize, PartialEq)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct RulesDoc {
    pub annotation_prefix: Option<String>,
    #[serde(default, deserialize_with = "strings")]
    pub domain_filters: Vec<String>,
    #[serde(default, deserialize_with = "strings")]
    pub exclude_domains: Vec<String>,
    pub regex_domain_filter: Option<String>,
    pub regex_domain_exclusion: Option<String>,
    #[serde(default, deserialize_with = "null_as_default")]
    pub sources: SourcesDoc,
    #[serde(default, deserialize_with = "null_as_default")]
    pub registry: RegistryDoc,
    /// A namespace listed with no value (`team-a:`) is one with no filters of its own.
    #[serde(default, deserialize_with = "null_entries_as_default")]
    pub namespaces: BTreeMap<String, NamespaceDoc>,
    #[serde(default, deserialize_with = "null_as_default")]
    pub inject: Vec<InjectDoc>,
    #[serde(default, deserialize_with = "null_as_default")]
    pub irsa: IrsaDoc,
    pub enforcement: Option<Enforcement>,
    #[serde(default, deserialize_with = "strings")]
    pub exempt_namespaces: Vec<String>,
}

/// external-dns flags that change which hostnames count.
#[derive(Debug, Clone, Default, Deserialize, PartialEq)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct SourcesDoc {
    pub ignore_hostname_annotation: Option<bool>,
    #[serde(rename = "ignoreIngressTLSSpec")]
    pub ignore_ingress_tls_spec: Option<bool>,
    pub ignore_ingress_rules_spec: Option<bool>,
    pub publish_internal_services: Option<bool>,
    /// `--ingress-class`: the only Ingress classes external-dns reads; empty = every Ingress.
    #[serde(default, deserialize_with = "strings")]
    pub ingress_class_names: Vec<String>,
    /// `--service-type-filter`: the only Service types external-dns reads; empty = every type.
    #[serde(default, deserialize_with = "strings")]
    pub service_type_filter: Vec<String>,
    /// `--label-filter`: a label selector the objects external-dns reads must meet.
    pub label_filter: Option<String>,
    /// `--annotation-filter`: a selector over annotations the objects external-dns reads must meet.
    pub annotation_filter: Option<String>,
    /// `--gateway-label-filter`: a selector over labels the Gateways external-dns reads must meet.
    pub gateway_label_filter: Option<String>,
    /// `--namespace`: the one namespace external-dns reads; empty = every namespace.
    pub namespace: Option<String>,
    /// `--gateway-namespace`: the one namespace external-dns reads Gateways in; empty = every one.
    pub gateway_namespace: Option<String>,
    /// `--gateway-name`: the one Gateway name external-dns publishes routes through; empty = any.
    pub gateway_name: Option<String>,
    /// `--compatibility`: `mate`, `molecule` or `kops-dns-controller`; empty = none.
    pub compatibility: Option<String>,
    /// `--fqdn-template`: the Go template that names an object with no hostname of its own.
    pub fqdn_template: Option<String>,
    /// `--combine-fqdn-annotation`: the template's names also for objects that have their own.
    pub combine_fqdn_annotation: Option<bool>,
}

/// external-dns TXT registry flags.
#[derive(Debug, Clone, Default, Deserialize, PartialEq)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct RegistryDoc {
    pub txt_prefix: Option<String>,
    pub txt_suffix: Option<String>,
    pub txt_wildcard_replacement: Option<String>,
}

/// A namespace's own filters (delegation).
#[derive(Debug, Clone, Default, Deserialize, PartialEq)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct NamespaceDoc {
    #[serde(default, deserialize_with = "strings")]
    pub domain_filters: Vec<String>,
    #[serde(default, deserialize_with = "strings")]
    pub exclude_domains: Vec<String>,
    pub regex_domain_filter: Option<String>,
    pub regex_domain_exclusion: Option<String>,
}

/// Annotations to add when missing.
#[derive(Debug, Clone, Default, Deserialize, PartialEq)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct InjectDoc {
    #[serde(default, deserialize_with = "strings")]
    pub kinds: Vec<String>,
    #[serde(default, deserialize_with = "strings")]
    pub service_types: Vec<String>,
    #[serde(default, deserialize_with = "strings")]
    pub namespaces: Vec<String>,
    #[serde(default, deserialize_with = "null_as_default")]
    /// `None` for a key written with no value (`~`, `null`): refused when compiled, not
    /// injected as the text `~`.
    pub annotations: BTreeMap<String, Option<String>>,
}

impl InjectDoc {
    /// Whether the rule can reach objects of `kind`: no `kinds` reaches every kind it may name.
    pub fn reaches(&self, kind: &str) -> bool {
        self.kinds.is_empty() || self.kinds.iter().any(|k| k == kind)
    }
}

/// IRSA settings.
#[derive(Debug, Clone, Default, Deserialize, PartialEq)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct IrsaDoc {
    pub issuer: Option<String>,
    pub audience: Option<String>,
    #[serde(default, deserialize_with = "strings")]
    pub accounts: Vec<String>,
    pub unknown_role: Option<UnknownRole>,
    #[serde(default, deserialize_with = "null_as_default")]
    pub trust_policies: BTreeMap<String, serde_json::Value>,
    /// Where trust policies come from: the rules only, or live IAM as well.
    pub source: Option<IrsaSource>,
    /// Account id -> reader role ARN assumed there before reading roles.
    #[serde(default, deserialize_with = "null_as_default")]
    pub account_readers: BTreeMap<String, String>,
    /// Role chains: a ServiceAccount's IRSA role assumes another role.
    #[serde(default, deserialize_with = "null_as_default")]
    pub chains: Vec<ChainDoc>,
    /// Check the OIDC provider and its client IDs (live IAM only).
    pub check_provider: Option<bool>,
    /// How long an IAM answer is reused, e.g. `5m`.
    #[serde(rename = "cacheTTL")]
    pub cache_ttl: Option<String>,
    /// How long "not found" and "cannot verify" answers are reused, e.g. `30s`.
    #[serde(rename = "negativeCacheTTL")]
    pub negative_cache_ttl: Option<String>,
    /// Time limit of one IAM or STS call, e.g. `1s`.
    pub call_timeout: Option<String>,
}

/// One role chain (`irsa.chains[]`).
#[derive(Debug, Clone, Default, Deserialize, PartialEq, Eq)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct ChainDoc {
    /// `namespace/name`.
    pub service_account: String,
    /// The role ARN the ServiceAccount's IRSA role assumes.
    pub assumes: String,
}

/// Where trust policies come from.
#[derive(Debug, Clone, Copy, Default, Deserialize, PartialEq, Eq)]
#[serde(rename_all = "lowercase")]
pub enum IrsaSource {
    /// Only `irsa.trustPolicies` in the rules.
    #[default]
    Static,
    /// Live IAM (`GetRole` and friends); `irsa.trustPolicies` still win for the roles they list.
    Iam,
}

/// What a violation does to the request.
#[derive(Debug, Clone, Copy, Default, Deserialize, PartialEq, Eq)]
#[serde(rename_all = "lowercase")]
pub enum Enforcement {
    /// Refuse the request.
    #[default]
    Deny,
    /// Admit it, with the violations as warnings kubectl prints.
    Warn,
    /// Admit it silently; the violations are only logged and counted.
    Audit,
}

/// The verdict for a role whose trust policy is unknown.
#[derive(Debug, Clone, Copy, Default, Deserialize, PartialEq, Eq)]
#[serde(rename_all = "lowercase")]
pub enum UnknownRole {
    Deny,
    #[default]
    Warn,
    Allow,
}

impl Enforcement {
    pub fn as_str(self) -> &'static str {
        match self {
            Enforcement::Deny => "deny",
            Enforcement::Warn => "warn",
            Enforcement::Audit => "audit",
        }
    }
}

impl UnknownRole {
    pub fn as_str(self) -> &'static str {
        match self {
            UnknownRole::Deny => "deny",
            UnknownRole::Warn => "warn",
            UnknownRole::Allow => "allow",
        }
    }
}

impl IrsaSource {
    pub fn as_str(self) -> &'static str {
        match self {
            IrsaSource::Static => "static",
            IrsaSource::Iam => "iam",
        }
    }
}
