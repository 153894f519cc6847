//! Where a role's trust policy comes from: the rules' `irsa.trustPolicies`, else the role
//! IAM returned, or why there is none to evaluate. Each caller words the reason its own way.

use super::{Facts, IamRole, Lookup};
use crate::rules::RuleSet;
use crate::trust::{PolicyError, TrustPolicy};

/// A trust policy to evaluate, with the IAM role it came from when it came from IAM.
pub(super) struct Found<'a> {
    pub policy: &'a TrustPolicy,
    pub iam: Option<&'a IamRole>,
}

/// Why a role has no trust policy to evaluate.
pub(super) enum Missing<'a> {
    /// Not under `irsa.trustPolicies`, and IAM was not to be read (`irsa.source: static`).
    NotInRules,
    /// IAM was to be read, but this check ran without reading it for this role.
    NotRead,
    /// IAM did not answer; the text says why.
    Unavailable(&'a str),
    /// IAM has no such role.
    NotFound,
    /// IAM returned the role, with a trust policy zoneguard cannot read.
    Unreadable(&'a IamRole, &'a PolicyError),
}

/// The trust policy of the role `arn` (its text as `RoleArn::arn` writes it, the key of the
/// rules' and the facts' maps). `live`: IAM lookups were expected for this request.
pub(super) fn trust_policy<'a>(
    rules: &'a RuleSet,
    facts: &'a Facts,
    live: bool,
    arn: &str,
) -> Result<Found<'a>, Missing<'a>> {
    if let Some(policy) = rules.irsa.trust_policies.get(arn) {
        return Ok(Found { policy, iam: None });
    }
    if !live {
        return Err(Missing::NotInRules);
    }
    match facts.role(arn) {
        None => Err(Missing::NotRead),
        Some(Lookup::Unavailable(why)) => Err(Missing::Unavailable(why)),
        Some(Lookup::NotFound(_)) => Err(Missing::NotFound),
        Some(Lookup::Found(role)) => match &role.trust_policy {
            Ok(policy) => Ok(Found {
                policy,
                iam: Some(role),
            }),
            Err(e) => Err(Missing::Unreadable(role, e)),
        },
    }
}
