//! What a caller fetched from IAM for one admission request, handed to the core as plain
//! data: the core never talks to AWS itself.

use crate::arn::RoleArn;
use crate::trust::permission::PermissionPolicy;
use crate::trust::{PolicyError, TrustPolicy};
use std::collections::HashMap;

/// The answer of one IAM lookup.
#[derive(Debug, Clone, PartialEq)]
pub enum Lookup<T> {
    Found(T),
    /// IAM answered that the entity does not exist (`NoSuchEntity`); the text is IAM's message.
    NotFound(String),
    /// No answer: timeout, throttling, access denied, no reader role for the account, …; the
    /// text says why, for the "cannot verify" message.
    Unavailable(String),
}

/// A role as `GetRole` returned it.
#[derive(Debug, Clone, PartialEq)]
pub struct IamRole {
    /// The `Arn` IAM returned (with the role's real path and letter case).
    pub arn: String,
    /// The `AssumeRolePolicyDocument`, decoded and parsed.
    pub trust_policy: Result<TrustPolicy, PolicyError>,
    /// The ARN of the role's permissions boundary (a managed policy), when it has one.
    pub permissions_boundary: Option<String>,
}

/// One permission policy of a role: inline (`inline policy <name>`), managed
/// (`managed policy <arn>`), or its permissions boundary (`permissions boundary <arn>`).
#[derive(Debug, Clone, PartialEq)]
pub struct NamedPolicy {
    pub name: String,
    pub document: Result<PermissionPolicy, PolicyError>,
    /// The role's permissions boundary: it grants nothing, it caps what the others allow.
    pub boundary: bool,
}

/// An IAM OIDC provider as `GetOpenIDConnectProvider` returned it.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct OidcProvider {
    pub client_ids: Vec<String>,
}

/// Everything fetched for one request. Keys are canonical ARNs (`RoleArn::arn`, the
/// provider ARN as `WebIdentity::provider_arn` builds it).
#[derive(Debug, Clone, Default)]
pub struct Facts {
    /// True when the caller looked IAM up for this request (even if every lookup failed).
    pub resolved: bool,
    /// Role ARN → `GetRole`.
    pub roles: HashMap<String, Lookup<IamRole>>,
    /// Role ARN → the role's inline and attached permission policies.
    pub permissions: HashMap<String, Lookup<Vec<NamedPolicy>>>,
    /// OIDC provider ARN → `GetOpenIDConnectProvider`.
    pub providers: HashMap<String, Lookup<OidcProvider>>,
}

impl Facts {
    /// No IAM lookups: what `admission::validate` uses.
    pub fn none() -> Self {
        Self::default()
    }

    /// `GetRole`'s answer for the role `arn` (its text as `RoleArn::arn` writes it).
    pub fn role(&self, arn: &str) -> Option<&Lookup<IamRole>> {
        self.roles.get(arn)
    }

    /// The permission policies of the role `arn` (its text as `RoleArn::arn` writes it).
    pub fn permissions_of(&self, arn: &str) -> Option<&Lookup<Vec<NamedPolicy>>> {
        self.permissions.get(arn)
    }

    pub fn provider(&self, provider_arn: &str) -> Option<&Lookup<OidcProvider>> {
        self.providers.get(provider_arn)
    }

    pub fn insert_role(&mut self, role: &RoleArn, lookup: Lookup<IamRole>) -> &mut Self {
        self.roles.insert(role.arn(), lookup);
        self
    }

    pub fn insert_permissions(
        &mut self,
        role: &RoleArn,
        lookup: Lookup<Vec<NamedPolicy>>,
    ) -> &mut Self {
        self.permissions.insert(role.arn(), lookup);
        self
    }

    pub fn insert_provider(
        &mut self,
        provider_arn: &str,
        lookup: Lookup<OidcProvider>,
    ) -> &mut Self {
        self.providers.insert(provider_arn.to_owned(), lookup);
        self
    }
}

impl IamRole {
    /// From `GetRole`'s `Arn` and raw `AssumeRolePolicyDocument` (percent-encoded or not).
    pub fn from_get_role(arn: &str, document: &str) -> Self {
        Self {
            arn: arn.to_owned(),
            trust_policy: TrustPolicy::from_document(document),
            permissions_boundary: None,
        }
    }
}

impl NamedPolicy {
    /// From a policy document as IAM returns it (percent-encoded or not).
    pub fn from_document(name: String, document: &str) -> Self {
        Self {
            name,
            document: PermissionPolicy::from_document(document),
            boundary: false,
        }
    }

    /// The role's permissions boundary: the managed policy `arn`, as IAM returns it.
    pub fn boundary(arn: &str, document: &str) -> Self {
        Self {
            name: format!("permissions boundary {arn}"),
            document: PermissionPolicy::from_document(document),
            boundary: true,
        }
    }
}
