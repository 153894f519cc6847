//! `irsa.chains`: the ServiceAccount's IRSA role assumes another role (external-dns's
//! `--aws-assume-role`). Both sides of the hop are checked: the target's trust policy admits
//! the IRSA role for `sts:AssumeRole`, and the IRSA role's permission policies allow
//! `sts:AssumeRole` on the target.

use super::trust_source::{self, Missing};
use super::{unknown, Facts, Findings, Lookup, NamedPolicy, Subject};
use crate::arn::RoleArn;
use crate::rules::RuleSet;
use crate::trust::assume::{evaluate_assume_role, RoleCaller, ASSUME_ROLE_ACTION};
use crate::trust::permission::{evaluate_permissions, Named, PermissionOutcome};
use crate::trust::TrustPolicy;
use crate::verdict::{Reason, Warning};

pub(super) fn check(rules: &RuleSet, facts: &Facts, s: &Subject<'_>, out: &mut Findings) {
    let mut chains = rules.irsa.chains_of(s.namespace, s.name).peekable();
    if chains.peek().is_none() {
        return;
    }
    // The IRSA role as IAM names it (real path and letter case), else as annotated.
    let caller_arn = match facts.role(s.arn()) {
        Some(Lookup::Found(role)) => &role.arn,
        _ => s.arn(),
    };
    let caller = RoleCaller {
        role: &s.role,
        arn: caller_arn,
    };
    for chain in chains {
        let target_arn = chain.assumes.arn();
        let hop = Hop {
            rules,
            facts,
            s,
            caller: &caller,
            target: &chain.assumes,
            target_arn: &target_arn,
        };
        hop.target_side(out);
        hop.permission_side(out);
    }
}

/// One hop of a chain: the ServiceAccount's IRSA role (`caller`) assuming `target`, with what
/// the check knows about both.
struct Hop<'a> {
    rules: &'a RuleSet,
    facts: &'a Facts,
    s: &'a Subject<'a>,
    caller: &'a RoleCaller<'a>,
    target: &'a RoleArn,
    /// `target`'s ARN text: the key of the rules' trust policies and the permission check's
    /// resource.
    target_arn: &'a str,
}

impl<'a> Hop<'a> {
    /// The target's trust policy: from the rules, else from IAM. `None` when there is none
    /// to evaluate (the reason is already in `out`).
    fn target_policy(&self, out: &mut Findings) -> Option<&'a TrustPolicy> {
        let (s, target) = (self.s, self.target);
        let why = match trust_source::trust_policy(self.rules, self.facts, s.live, self.target_arn)
        {
            Ok(found) => return Some(found.policy),
            Err(Missing::NotFound) => {
                let message = format!("{}: the role chain to {target} (irsa.chains) is broken on the target side: role {} does not exist in account {}; create it or fix irsa.chains", s.at(), target.name, target.account);
                out.violations
                    .push(s.violation(Reason::RoleNotTrusted, message));
                return None;
            }
            Err(Missing::NotInRules) => {
                "its trust policy is not under irsa.trustPolicies and irsa.source is static"
                    .to_string()
            }
            Err(Missing::NotRead) => "this check ran without reading IAM".to_string(),
            Err(Missing::Unavailable(why)) => {
                format!("zoneguard could not read the role from IAM ({why})")
            }
            Err(Missing::Unreadable(_, e)) => {
                format!("IAM returned a trust policy zoneguard cannot read ({e})")
            }
        };
        let text = format!(
            "{}: cannot verify the role chain to {target} (irsa.chains), target side: {why}",
            s.at()
        );
        unknown(self.rules.irsa.unknown_role, s, text, out);
        None
    }

    fn target_side(&self, out: &mut Findings) {
        let Some(policy) = self.target_policy(out) else {
            return;
        };
        let (s, caller, target) = (self.s, self.caller, self.target);
        s.report_trust(
            evaluate_assume_role(policy, caller, target),
            format_args!("the role chain to {target} (irsa.chains) is broken on the target side: the trust policy of {target} does not let {} call {ASSUME_ROLE_ACTION}: ", caller.arn),
            format_args!("add this statement to the trust policy of {target}"),
            format_args!("the role chain to {target}, target side"),
            out,
        );
    }

    /// The IRSA role's side of the hop: its permission policies allow `sts:AssumeRole` on
    /// `target`, and no permissions boundary takes that away.
    fn permission_side(&self, out: &mut Findings) {
        let Some(policies) = self.permission_policies(out) else {
            return;
        };
        let (boundaries, policies): (Vec<&NamedPolicy>, Vec<&NamedPolicy>) =
            policies.iter().partition(|p| p.boundary);
        let context = self.caller.context(&self.target.account);
        let ask = |named: &[Named<'_>]| {
            evaluate_permissions(named, ASSUME_ROLE_ACTION, self.target_arn, &context)
        };
        if !self.policies_grant(&policies, &ask, out) {
            return;
        }
        // A permissions boundary grants nothing: it caps what the policies above allow.
        for boundary in boundaries {
            let name = &boundary.name;
            match &boundary.document {
                Ok(policy) => {
                    let outcome = ask(&[Named { name, policy }]);
                    self.report_boundary(name, outcome, out);
                }
                Err(e) => {
                    let why = format!("IAM returned a {name} zoneguard cannot read ({e})");
                    self.permission_unknown(&why, out);
                }
            }
        }
    }

    /// The IRSA role's permission policies as IAM gave them. `None` when there are none to
    /// evaluate: a static check, an IRSA role IAM does not have (the ServiceAccount's own
    /// trust check reports that), or IAM not read (reported in `out`).
    fn permission_policies(&self, out: &mut Findings) -> Option<&'a [NamedPolicy]> {
        if !self.s.live {
            return None;
        }
        let arn = self.caller.arn;
        let why = match self.facts.permissions_of(self.s.arn()) {
            Some(Lookup::Found(policies)) => return Some(policies),
            Some(Lookup::NotFound(_)) => return None,
            None => {
                format!("this check ran without reading the permission policies of {arn} from IAM")
            }
            Some(Lookup::Unavailable(why)) => format!(
                "zoneguard could not read the permission policies of {arn} from IAM ({why})"
            ),
        };
        self.permission_unknown(&why, out);
        None
    }

    /// Evaluates the IRSA role's own permission policies and reports what they say. True
    /// when they grant the assume (or may, on a condition known only at run time): the
    /// boundaries are checked next.
    fn policies_grant(
        &self,
        policies: &[&NamedPolicy],
        ask: &impl Fn(&[Named<'_>]) -> PermissionOutcome,
        out: &mut Findings,
    ) -> bool {
        let (mut named, mut unreadable) = (Vec::new(), Vec::new());
        for p in policies {
            match &p.document {
                Ok(policy) => named.push(Named {
                    name: &p.name,
                    policy,
                }),
                Err(e) => unreadable.push(format!("{}: {e}", p.name)),
            }
        }
        let outcome = ask(&named);
        let granted = matches!(
            outcome,
            PermissionOutcome::Allowed(_) | PermissionOutcome::Unverifiable { .. }
        );
        // A policy zoneguard cannot read could hold a Deny: only an explicit Deny or an Allow
        // among the readable ones is an answer then.
        if unreadable.is_empty() || matches!(outcome, PermissionOutcome::ExplicitDeny(_)) {
            let names: Vec<&str> = policies.iter().map(|p| p.name.as_str()).collect();
            self.report_permissions(&names, outcome, out);
        } else if !matches!(outcome, PermissionOutcome::Allowed(_)) {
            let why = format!(
                "IAM returned permission policies zoneguard cannot read ({})",
                unreadable.join("; ")
            );
            self.permission_unknown(&why, out);
            return false;
        }
        granted
    }

    /// Reports that the IRSA role's side of the chain cannot be verified, and why.
    fn permission_unknown(&self, why: &str, out: &mut Findings) {
        let text = format!(
            "{}: cannot verify the role chain to {} (irsa.chains), IRSA role side: {why}",
            self.s.at(),
            self.target
        );
        unknown(self.rules.irsa.unknown_role, self.s, text, out);
    }

    /// What the IRSA role's permissions boundary `name` says about assuming `target`.
    fn report_boundary(&self, name: &str, outcome: PermissionOutcome, out: &mut Findings) {
        let (s, caller, target) = (self.s, self.caller, self.target);
        match outcome {
            PermissionOutcome::ImplicitDeny => {
                let message = format!("{}: the role chain to {target} (irsa.chains) is broken on the IRSA role's side: its {name} does not allow {ASSUME_ROLE_ACTION} on {target}, and a permissions boundary caps what the role's policies allow\n  add this statement to the boundary policy (or set a boundary that has it on {}): {}", s.at(), caller.arn, allow_statement(target));
                out.violations
                    .push(s.violation(Reason::RoleNotTrusted, message));
            }
            // An explicit Deny or an unverifiable condition reads as in any other policy.
            other => self.report_permissions(&[], other, out),
        }
    }

    /// What the IRSA role's own permission policies say about assuming `target`.
    fn report_permissions(&self, names: &[&str], outcome: PermissionOutcome, out: &mut Findings) {
        let (s, caller, target) = (self.s, self.caller, self.target);
        match outcome {
            PermissionOutcome::Allowed(_) => {}
            PermissionOutcome::ImplicitDeny => {
                let has = if names.is_empty() {
                    "it has no permission policies".to_string()
                } else {
                    format!("it has {}", names.join(", "))
                };
                let statement = allow_statement(target);
                let message = format!("{}: the role chain to {target} (irsa.chains) is broken on the IRSA role's side: no permission policy of {} allows {ASSUME_ROLE_ACTION} on {target} ({has})\n  attach a policy with this statement to {}: {statement}", s.at(), caller.arn, caller.arn);
                out.violations.push(s.violation(Reason::RoleNotTrusted, message));
            }
            PermissionOutcome::ExplicitDeny(at) => {
                let message = format!("{}: the role chain to {target} (irsa.chains) is broken on the IRSA role's side: {} of {} denies {ASSUME_ROLE_ACTION} on {target} ({}); remove or narrow that Deny", s.at(), at.statement, at.policy, caller.arn);
                out.violations.push(s.violation(Reason::RoleNotTrusted, message));
            }
            PermissionOutcome::Unverifiable { at, key, .. } => out.warnings.push(Warning::with_reason(
                Reason::RoleUnverifiable,
                format!(
                    "{}: zoneguard cannot verify the role chain to {target}, IRSA role side ({}): {} of {} tests `{key}`, which is known only when the role is assumed",
                    s.at(),
                    Reason::RoleUnverifiable,
                    at.statement,
                    at.policy
                ),
            )),
        }
    }
}

/// The permission statement that allows assuming `target`.
fn allow_statement(target: &RoleArn) -> String {
    format!(
        r#"{{"Effect":"Allow","Action":"{ASSUME_ROLE_ACTION}","Resource":{}}}"#,
        serde_json::to_string(&target.to_string()).unwrap_or_default()
    )
}
