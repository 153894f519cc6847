//! Rule documents (SPEC §5): parsed, checked, combined and compiled into one `RuleSet`.

use thiserror::Error;

/// One rules document and where it came from (a file path, or `ConfigMap ns/name`).
#[derive(Debug, Clone, Copy)]
pub struct RuleSource<'a> {
    pub name: &'a str,
    pub text: &'a str,
}

/// The compiled rules every admission decision uses.
#[derive(Debug, Clone, Default)]
pub struct RuleSet {}

/// Why a rules document (or a combination of several) was refused.
#[derive(Debug, Error, Clone, PartialEq, Eq)]
#[error("{source_name}:{line}: {key}: {message}")]
pub struct RulesError {
    pub source_name: String,
    /// 1-based; 0 when unknown.
    pub line: usize,
    pub key: String,
    pub message: String,
}

impl RuleSet {
    /// Parse every source and combine them (lists unioned, scalars must agree).
    pub fn from_sources(sources: &[RuleSource<'_>]) -> Result<Self, Vec<RulesError>> {
        let _ = sources;
        Ok(Self {})
    }
}
