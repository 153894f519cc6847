//! IAM trust policies evaluated as STS evaluates `sts:AssumeRoleWithWebIdentity` (SPEC §4.2-§4.5).
// OWNER: trust helper. Interface agreed with the rest of the core:

use crate::arn::RoleArn;
use thiserror::Error;

/// A parsed trust policy document.
#[derive(Debug, Clone, PartialEq)]
pub struct TrustPolicy {
    raw: serde_json::Value,
}

#[derive(Debug, Error, Clone, PartialEq, Eq)]
#[error("{0}")]
pub struct PolicyError(pub String);

impl TrustPolicy {
    /// From a JSON value (the rules' `trustPolicies` entry as an object).
    pub fn from_value(value: &serde_json::Value) -> Result<Self, PolicyError> {
        Ok(Self { raw: value.clone() })
    }

    /// From document text; percent-decoded first when it does not start with `{` (SPEC §4.5).
    pub fn from_document(text: &str) -> Result<Self, PolicyError> {
        let raw = serde_json::from_str(text).map_err(|e| PolicyError(e.to_string()))?;
        Ok(Self { raw })
    }
}

/// Who asks to assume the role with a web identity token.
#[derive(Debug, Clone)]
pub struct WebIdentity<'a> {
    pub role: &'a RoleArn,
    /// OIDC issuer without `https://`.
    pub issuer: &'a str,
    pub namespace: &'a str,
    pub service_account: &'a str,
    pub audience: &'a str,
}

/// The three answers (SPEC §4.2).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum TrustVerdict {
    Allowed,
    /// Denied, with the nearest miss.
    Denied(Miss),
    /// A condition zoneguard cannot decide; the string says which.
    Unverifiable(String),
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Miss {
    /// One or two sentences: what the policy admits instead and why this identity misses.
    pub explanation: String,
    /// A trust-policy statement (JSON text) that would admit the identity, where that helps.
    pub suggested_statement: Option<String>,
}

pub fn evaluate_web_identity(policy: &TrustPolicy, who: &WebIdentity<'_>) -> TrustVerdict {
    let _ = (policy, who);
    TrustVerdict::Unverifiable("trust evaluation not built yet".into())
}
