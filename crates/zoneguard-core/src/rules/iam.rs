//! The rules keys of IAM mode (`irsa.source`, `irsa.accountReaders`, `irsa.chains`,
//! `irsa.checkProvider`, `irsa.cacheTTL`, `irsa.negativeCacheTTL`, `irsa.callTimeout`):
//! checked with key-path errors and compiled into the `Irsa` settings.

use super::compile::CompileError;
use super::document::{ChainDoc, IrsaDoc};
use super::path::KeyPath;
use super::{Chain, Irsa};
use crate::arn::RoleArn;
use std::collections::BTreeMap;
use std::time::Duration;

/// The longest `irsa.callTimeout`: the API server gives a webhook at most 30 seconds, and
/// one admission may need several calls.
const MAX_CALL_TIMEOUT: Duration = Duration::from_secs(10);
/// The longest cache TTLs.
const MAX_TTL: Duration = Duration::from_secs(24 * 3600);

/// The IAM-mode settings of `doc`, validated into `irsa`.
pub(super) fn compile_iam(doc: &IrsaDoc, irsa: &mut Irsa, errors: &mut Vec<CompileError>) {
    let base = KeyPath::root().key("irsa");
    irsa.source = doc.source.unwrap_or_default();
    irsa.check_provider = doc.check_provider.unwrap_or(false);
    irsa.account_readers = readers(&doc.account_readers, &base, errors);
    irsa.chains = chains(&doc.chains, &base, errors);
    let ttl = |key: &str, value: &Option<String>, default: Duration, max, errors: &mut _| {
        value.as_deref().map_or(default, |text| {
            duration_setting(text, base.key(key), max, errors).unwrap_or(default)
        })
    };
    irsa.cache_ttl = ttl(
        "cacheTTL",
        &doc.cache_ttl,
        Irsa::DEFAULT_CACHE_TTL,
        MAX_TTL,
        errors,
    );
    irsa.negative_cache_ttl = ttl(
        "negativeCacheTTL",
        &doc.negative_cache_ttl,
        Irsa::DEFAULT_NEGATIVE_CACHE_TTL,
        MAX_TTL,
        errors,
    );
    irsa.call_timeout = ttl(
        "callTimeout",
        &doc.call_timeout,
        Irsa::DEFAULT_CALL_TIMEOUT,
        MAX_CALL_TIMEOUT,
        errors,
    );
    if irsa.call_timeout.is_zero() {
        errors.push(CompileError::new(
            base.key("callTimeout"),
            "must be longer than 0s (e.g. \"1s\")",
        ));
    }
}

fn readers(
    docs: &BTreeMap<String, String>,
    base: &KeyPath,
    errors: &mut Vec<CompileError>,
) -> BTreeMap<String, RoleArn> {
    let mut out = BTreeMap::new();
    for (account, arn) in docs {
        let path = base.key("accountReaders").key(account);
        if !is_account(account) {
            errors.push(CompileError::new(path, format!("{account:?} is not an AWS account id (12 digits; quote it in YAML so leading zeros survive)")));
            continue;
        }
        match RoleArn::parse(arn) {
            Ok(role) if role.account == *account => {
                out.insert(account.clone(), role);
            }
            Ok(role) => errors.push(CompileError::new(path, format!("the reader role {arn} is in account {}, not {account}: name a role in the account it reads", role.account))),
            Err(e) => errors.push(CompileError::new(path, format!("{arn:?} is not a role ARN: {e}"))),
        }
    }
    out
}

fn chains(docs: &[ChainDoc], base: &KeyPath, errors: &mut Vec<CompileError>) -> Vec<Chain> {
    let mut out = Vec::new();
    for (i, doc) in docs.iter().enumerate() {
        let at = base.key("chains").index(i);
        let sa = service_account(&doc.service_account);
        if sa.is_none() {
            errors.push(CompileError::new(
                at.key("serviceAccount"),
                format!(
                    "{:?} is not a ServiceAccount: write \"<namespace>/<name>\" (e.g. \"external-dns/external-dns\")",
                    doc.service_account
                ),
            ));
        }
        let assumes = RoleArn::parse(&doc.assumes).map_err(|e| {
            errors.push(CompileError::new(
                at.key("assumes"),
                format!("{:?} is not a role ARN: {e}", doc.assumes),
            ))
        });
        if let (Some((namespace, name)), Ok(assumes)) = (sa, assumes) {
            let chain = Chain {
                namespace,
                service_account: name,
                assumes,
            };
            if !out.contains(&chain) {
                out.push(chain);
            }
        }
    }
    out
}

/// `ns/name` → (`ns`, `name`): a namespace (a DNS-1123 label) and a ServiceAccount name (a
/// DNS-1123 subdomain, as the API server checks it).
fn service_account(text: &str) -> Option<(String, String)> {
    use crate::k8s_name::{is_dns1123_label, is_dns1123_subdomain};
    let (ns, name) = text.split_once('/')?;
    (is_dns1123_label(ns) && is_dns1123_subdomain(name)).then(|| (ns.to_string(), name.to_string()))
}

fn is_account(text: &str) -> bool {
    text.len() == 12 && text.bytes().all(|b| b.is_ascii_digit())
}

fn duration_setting(
    text: &str,
    path: KeyPath,
    max: Duration,
    errors: &mut Vec<CompileError>,
) -> Option<Duration> {
    match crate::duration::parse(text) {
        Some(d) if d <= max => Some(d),
        Some(_) => {
            errors.push(CompileError::new(
                path,
                format!("{text:?} is longer than the maximum {}s", max.as_secs()),
            ));
            None
        }
        None => {
            errors.push(CompileError::new(
                path,
                format!("{text:?} is not a duration: write numbers with units as Go writes durations, e.g. \"500ms\", \"30s\", \"5m\", \"1h\" or \"1m30s\""),
            ));
            None
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn service_accounts_are_namespace_slash_name() {
        assert_eq!(
            service_account("external-dns/external-dns"),
            Some(("external-dns".into(), "external-dns".into()))
        );
        assert_eq!(
            service_account("ns/a.b-c"),
            Some(("ns".into(), "a.b-c".into()))
        );
        for bad in [
            "external-dns",
            "/x",
            "x/",
            "Ns/x",
            "a.b/x",
            "ns/x/y",
            "ns/-x",
            "ns/a..b",
            "ns/a.-b",
            "ns/X",
        ] {
            assert_eq!(service_account(bad), None, "{bad}");
        }
    }
}
