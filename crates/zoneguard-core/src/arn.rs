//! IAM role ARNs as IRSA's `eks.amazonaws.com/role-arn` annotation carries them (SPEC §4.1).
// OWNER: trust helper. Interface agreed with the rest of the core:

use std::fmt;
use thiserror::Error;

#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct RoleArn {
    pub partition: String,
    pub account: String,
    /// `/` or `/a/b/`.
    pub path: String,
    pub name: String,
}

#[derive(Debug, Error, Clone, PartialEq, Eq)]
#[error("{0}")]
pub struct ArnError(pub String);

impl RoleArn {
    pub fn parse(text: &str) -> Result<Self, ArnError> {
        Err(ArnError(format!("{text:?}: not parsed yet")))
    }
}

impl fmt::Display for RoleArn {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "arn:{}:iam::{}:role{}{}", self.partition, self.account, self.path, self.name)
    }
}
