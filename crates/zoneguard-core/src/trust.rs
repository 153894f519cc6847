//! IAM trust policies evaluated as STS evaluates `sts:AssumeRoleWithWebIdentity`.
//!
//! - [`policy`]: the document model and its parser, whose [`PolicyError`]s carry the
//!   [`Step`]s to the part at fault and the problem;
//! - [`condition`]: condition operators and their three-valued evaluation;
//! - [`request`] and [`mod@evaluate`]: a generic request (action, principal, context keys)
//!   and the allow/deny decision, reusable for `sts:AssumeRole` role chains;
//! - `explain`: nearest-miss explanations for IRSA denials.

pub mod assume;
pub mod condition;
mod error;
pub mod evaluate;
mod explain;
mod glob;
pub mod permission;
pub mod policy;
pub mod request;

use crate::arn::RoleArn;

pub use error::{PolicyError, Step};
pub use evaluate::{evaluate, Evaluation, Outcome, StatementTrace};
pub use policy::{TrustPolicy, Version};
pub use request::{Context, KeyState, PrincipalKind, Request, RequestPrincipal};

/// The action IRSA's SDKs call.
pub const WEB_IDENTITY_ACTION: &str = "sts:AssumeRoleWithWebIdentity";

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

/// The three answers.
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

impl WebIdentity<'_> {
    /// The issuer as IAM names it (a stray `https://` removed).
    fn bare_issuer(&self) -> &str {
        self.issuer.strip_prefix("https://").unwrap_or(self.issuer)
    }

    /// `system:serviceaccount:<namespace>:<name>`.
    // These strings are built for every ServiceAccount checked: `concat` sizes each once,
    // where `format!` would go through the formatting machinery.
    pub fn subject(&self) -> String {
        [
            "system:serviceaccount:",
            self.namespace,
            ":",
            self.service_account,
        ]
        .concat()
    }

    /// `arn:<role partition>:iam::<role account>:oidc-provider/<issuer>`.
    pub fn provider_arn(&self) -> String {
        let (partition, account) = (self.role.partition.as_str(), self.role.account.as_str());
        let issuer = self.bare_issuer();
        [
            "arn:",
            partition,
            ":iam::",
            account,
            ":oidc-provider/",
            issuer,
        ]
        .concat()
    }

    /// The request STS judges for `AssumeRoleWithWebIdentity`: `<issuer>:sub` and `<issuer>:aud` are known, keys
    /// such as `aws:SourceIp` are unknown, every other key is absent.
    pub fn request(&self) -> Request {
        let issuer = self.bare_issuer();
        let mut context = Context::new();
        context
            .set(&[issuer, ":sub"].concat(), vec![self.subject()])
            .set(&[issuer, ":aud"].concat(), vec![self.audience.to_owned()])
            .mark_web_identity_request_keys_unknown();
        Request {
            action: WEB_IDENTITY_ACTION.to_owned(),
            principal: RequestPrincipal {
                kind: PrincipalKind::Federated,
                id: self.provider_arn(),
            },
            context,
        }
    }
}

pub fn evaluate_web_identity(policy: &TrustPolicy, who: &WebIdentity<'_>) -> TrustVerdict {
    let evaluation = evaluate(policy, &who.request());
    match &evaluation.outcome {
        Outcome::Allowed => TrustVerdict::Allowed,
        Outcome::Unverifiable {
            statement,
            condition,
            why,
        } => TrustVerdict::Unverifiable(explain::unverifiable(policy, *statement, *condition, why)),
        Outcome::ImplicitDeny | Outcome::ExplicitDeny { .. } => {
            let subject = explain::Subject {
                role: who.role,
                issuer: who.bare_issuer(),
                sub: who.subject(),
                aud: who.audience,
                provider: who.provider_arn(),
            };
            TrustVerdict::Denied(explain::explain(policy, &evaluation, &subject))
        }
    }
}

#[cfg(test)]
mod tests;
