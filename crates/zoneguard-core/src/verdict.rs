//! Violations and their stable reason codes.

use std::fmt;

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Reason {
    HostnameOutsideFilters,
    HostnameNotDelegated,
    HostnameInvalid,
    HostnameTxtTooLong,
    AnnotationInvalid,
    RoleArnInvalid,
    RoleAccountNotAllowed,
    RoleNotTrusted,
    RoleUnknown,
    RoleUnverifiable,
    RulesInvalid,
}

impl Reason {
    pub const ALL: [Reason; 11] = [
        Reason::HostnameOutsideFilters,
        Reason::HostnameNotDelegated,
        Reason::HostnameInvalid,
        Reason::HostnameTxtTooLong,
        Reason::AnnotationInvalid,
        Reason::RoleArnInvalid,
        Reason::RoleAccountNotAllowed,
        Reason::RoleNotTrusted,
        Reason::RoleUnknown,
        Reason::RoleUnverifiable,
        Reason::RulesInvalid,
    ];

    pub fn as_str(self) -> &'static str {
        match self {
            Reason::HostnameOutsideFilters => "hostname-outside-filters",
            Reason::HostnameNotDelegated => "hostname-not-delegated",
            Reason::HostnameInvalid => "hostname-invalid",
            Reason::HostnameTxtTooLong => "hostname-txt-too-long",
            Reason::AnnotationInvalid => "annotation-invalid",
            Reason::RoleArnInvalid => "role-arn-invalid",
            Reason::RoleAccountNotAllowed => "role-account-not-allowed",
            Reason::RoleNotTrusted => "role-not-trusted",
            Reason::RoleUnknown => "role-unknown",
            Reason::RoleUnverifiable => "role-unverifiable",
            Reason::RulesInvalid => "rules-invalid",
        }
    }
}

impl fmt::Display for Reason {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// One thing wrong with an object: where, what, why, and how to fix it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Violation {
    /// Field path, e.g. `spec.rules[0].host`.
    pub field: String,
    /// The offending value.
    pub value: String,
    pub reason: Reason,
    /// Human sentence with the fix, without the object prefix.
    pub message: String,
}
