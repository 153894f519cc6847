//! One admission request in, one decision out: the contract between the core and its callers.

use crate::rules::RuleSet;
use serde_json::Value;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Operation {
    Create,
    Update,
    Delete,
    Connect,
}

/// What the caller knows about the request (decoded from an AdmissionReview or a manifest).
#[derive(Debug, Clone, Copy)]
pub struct Request<'a> {
    pub operation: Operation,
    /// API group ("" for core), version and kind of the object.
    pub group: &'a str,
    pub version: &'a str,
    pub kind: &'a str,
    pub namespace: &'a str,
    pub name: &'a str,
    pub object: Option<&'a Value>,
    pub old_object: Option<&'a Value>,
    pub sub_resource: Option<&'a str>,
}

/// The answer for one request.
#[derive(Debug, Clone, Default)]
pub struct Decision {
    /// False only when enforcement is `deny` and some violation stands.
    pub allowed: bool,
    /// False when the kind/operation is not one zoneguard checks (admitted, no patch).
    pub checked: bool,
    pub violations: Vec<crate::verdict::Violation>,
    pub warnings: Vec<String>,
    /// RFC 6902 operations (mutate only); empty = nothing to change.
    pub patch: Vec<Value>,
}

pub fn validate(rules: &RuleSet, req: &Request<'_>) -> Decision {
    let _ = (rules, req);
    Decision { allowed: true, ..Decision::default() }
}

pub fn mutate(rules: &RuleSet, req: &Request<'_>) -> Decision {
    let _ = (rules, req);
    Decision { allowed: true, ..Decision::default() }
}

impl Decision {
    /// The denial text kubectl shows after `admission webhook "…" denied the request: `:
    /// `Ingress team-a/web: <violation>` one line per violation, at most `max_lines`, then
    /// `and N more`.
    pub fn summary(&self, kind: &str, namespace: &str, name: &str, max_lines: usize) -> String {
        let _ = (kind, namespace, name, max_lines);
        String::new()
    }
}
