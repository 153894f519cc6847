//! `sts:AssumeRole` from one role's session into another role (role chaining): the request
//! the target's trust policy sees, and why it would be refused.

use super::condition::{Truth, Undecidable};
use super::evaluate::{evaluate, Outcome};
use super::policy::{ActionElement, Effect, PrincipalElement, TrustPolicy};
use super::request::{Context, PrincipalKind, Request, RequestPrincipal};
use super::{Miss, TrustVerdict};
use crate::arn::RoleArn;

/// The action role chaining calls.
pub const ASSUME_ROLE_ACTION: &str = "sts:AssumeRole";

/// The session name zoneguard puts in the caller's session ARN (trust policies name roles,
/// accounts or sessions of a role, so its value never decides the answer).
const SESSION: &str = "zoneguard-check";

/// Keys of an `sts:AssumeRole` call from a role session that zoneguard cannot know.
const UNKNOWN_KEYS: [&str; 6] = [
    "sts:ExternalId",
    "aws:userid",
    "aws:PrincipalOrgID",
    "aws:PrincipalOrgPaths",
    "aws:FederatedProvider",
    "aws:MultiFactorAuthAge",
];
const UNKNOWN_PREFIXES: [&str; 1] = ["aws:PrincipalTag/"];

/// A role session that calls `sts:AssumeRole`.
#[derive(Debug, Clone, Copy)]
pub struct RoleCaller<'a> {
    pub role: &'a RoleArn,
    /// The role's ARN as IAM names it (with its path).
    pub arn: &'a str,
}

impl RoleCaller<'_> {
    /// `arn:<partition>:sts::<account>:assumed-role/<name>/<session>`.
    pub fn session_arn(&self) -> String {
        format!(
            "arn:{}:sts::{}:assumed-role/{}/{SESSION}",
            self.role.partition, self.role.account, self.role.name
        )
    }

    /// The request context shared by the trust-policy and permission-policy sides.
    pub fn context(&self, target_account: &str) -> Context {
        let mut context = Context::new();
        context.mark_sts_request_keys_unknown();
        for key in UNKNOWN_KEYS {
            context.mark_unknown(key);
        }
        for prefix in UNKNOWN_PREFIXES {
            context.mark_unknown_prefix(prefix);
        }
        context
            .set("aws:PrincipalArn", vec![self.arn.to_owned()])
            .set("aws:PrincipalAccount", vec![self.role.account.clone()])
            .set("aws:PrincipalType", vec!["AssumedRole".to_owned()])
            .set("aws:ResourceAccount", vec![target_account.to_owned()]);
        context
    }

    /// The `sts:AssumeRole` request into a role of `target_account`.
    pub fn request(&self, target_account: &str) -> Request {
        Request {
            action: ASSUME_ROLE_ACTION.to_owned(),
            principal: RequestPrincipal {
                kind: PrincipalKind::Aws,
                id: self.session_arn(),
            },
            context: self.context(target_account),
        }
    }

    /// A trust-policy statement that admits this caller.
    pub fn suggested_statement(&self) -> String {
        let s = |text: &str| serde_json::to_string(text).unwrap_or_default();
        format!(
            r#"{{"Effect":"Allow","Principal":{{"AWS":{}}},"Action":{}}}"#,
            s(self.arn),
            s(ASSUME_ROLE_ACTION)
        )
    }
}

/// Whether `target`'s trust policy lets `caller` assume it.
pub fn evaluate_assume_role(
    policy: &TrustPolicy,
    caller: &RoleCaller<'_>,
    target: &RoleArn,
) -> TrustVerdict {
    let evaluation = evaluate(policy, &caller.request(&target.account));
    match evaluation.outcome {
        Outcome::Allowed => TrustVerdict::Allowed,
        Outcome::Unverifiable {
            statement,
            condition,
            why,
        } => TrustVerdict::Unverifiable(unverifiable(policy, statement, condition, &why)),
        Outcome::ExplicitDeny { statement } => {
            let which = policy
                .statements
                .get(statement)
                .map_or_else(|| "a Deny statement".to_owned(), |s| s.describe());
            TrustVerdict::Denied(Miss {
                explanation: format!("the Deny in {which} matches {}", caller.arn),
                suggested_statement: None,
            })
        }
        Outcome::ImplicitDeny => TrustVerdict::Denied(Miss {
            explanation: implicit_deny(policy, &evaluation.statements, caller),
            suggested_statement: Some(caller.suggested_statement()),
        }),
    }
}

fn implicit_deny(
    policy: &TrustPolicy,
    traces: &[super::StatementTrace],
    caller: &RoleCaller<'_>,
) -> String {
    let allows = policy
        .statements
        .iter()
        .zip(traces)
        .filter(|(s, _)| s.effect == Effect::Allow);
    let named: Vec<_> = allows.clone().filter(|(_, t)| t.principal).collect();
    if let Some((s, _)) = named.iter().find(|(_, t)| !t.action) {
        let actions = match &s.action {
            ActionElement::Action(list) => list.join(", "),
            ActionElement::NotAction(list) => format!("everything but {}", list.join(", ")),
        };
        return format!(
            "{} names {} but allows only {actions}, not {ASSUME_ROLE_ACTION}",
            s.describe(),
            caller.arn
        );
    }
    if let Some((s, t)) = named.first() {
        let failed: Vec<String> = s
            .conditions
            .iter()
            .zip(&t.conditions)
            .filter(|(_, truth)| **truth == Truth::False)
            .map(|(c, _)| format!("{} on `{}`", c.operator.name, c.key))
            .collect();
        return format!(
            "{} names {} but its condition {} does not hold for it",
            s.describe(),
            caller.arn,
            failed.join(" and ")
        );
    }
    let trusted: Vec<&str> = allows
        .flat_map(|(s, _)| match &s.principal {
            PrincipalElement::Principal(p) => p.of(PrincipalKind::Aws).collect::<Vec<_>>(),
            PrincipalElement::NotPrincipal(_) => Vec::new(),
        })
        .collect();
    if trusted.is_empty() {
        format!(
            "no Allow statement names an AWS principal, so {} is not trusted",
            caller.arn
        )
    } else {
        format!(
            "it trusts only the AWS principal(s) {}, not {} (nor its account {})",
            trusted.join(", "),
            caller.arn,
            caller.role.account
        )
    }
}

fn unverifiable(
    policy: &TrustPolicy,
    statement: usize,
    condition: usize,
    why: &Undecidable,
) -> String {
    let Some(s) = policy.statements.get(statement) else {
        return "a statement depends on the request".to_owned();
    };
    let Some(c) = s.conditions.get(condition) else {
        return format!("{} depends on the request", s.describe());
    };
    let what = match why {
        Undecidable::Key => format!("tests `{}` ({})", c.key, c.operator.name),
        Undecidable::Variable(v) => format!(
            "compares `{}` ({}) with the policy variable `${{{v}}}`",
            c.key, c.operator.name
        ),
    };
    format!(
        "{} {what}, which is known only when the role is assumed",
        s.describe()
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn policy(statements: serde_json::Value) -> TrustPolicy {
        TrustPolicy::from_value(&json!({"Version": "2012-10-17", "Statement": statements}))
            .unwrap_or_else(|e| panic!("{e}"))
    }

    fn verdict(statements: serde_json::Value) -> TrustVerdict {
        let role = RoleArn::parse("arn:aws:iam::111122223333:role/team/external-dns")
            .unwrap_or_else(|e| panic!("{e}"));
        let target =
            RoleArn::parse("arn:aws:iam::444455556666:role/dns").unwrap_or_else(|e| panic!("{e}"));
        let caller = RoleCaller {
            role: &role,
            arn: "arn:aws:iam::111122223333:role/team/external-dns",
        };
        evaluate_assume_role(&policy(statements), &caller, &target)
    }

    fn explanation(v: TrustVerdict) -> String {
        match v {
            TrustVerdict::Denied(miss) => miss.explanation,
            other => panic!("expected a denial, got {other:?}"),
        }
    }

    #[test]
    fn role_account_root_and_bare_account_principals_admit_the_caller() {
        for member in [
            "arn:aws:iam::111122223333:role/team/external-dns",
            "arn:aws:iam::111122223333:root",
            "111122223333",
        ] {
            let v = verdict(
                json!({"Effect": "Allow", "Principal": {"AWS": member}, "Action": "sts:AssumeRole"}),
            );
            assert_eq!(v, TrustVerdict::Allowed, "{member}");
        }
    }

    #[test]
    fn principal_conditions_are_decided_and_external_id_is_unverifiable() {
        let root = json!({"AWS": "arn:aws:iam::111122223333:root"});
        let ok = verdict(
            json!({"Effect": "Allow", "Principal": root, "Action": "sts:AssumeRole",
            "Condition": {"ArnLike": {"aws:PrincipalArn": "arn:aws:iam::111122223333:role/team/*"},
                          "StringEquals": {"aws:PrincipalAccount": "111122223333"}}}),
        );
        assert_eq!(ok, TrustVerdict::Allowed);
        let miss = explanation(verdict(
            json!({"Effect": "Allow", "Principal": root, "Action": "sts:AssumeRole",
            "Condition": {"ArnEquals": {"aws:PrincipalArn": "arn:aws:iam::111122223333:role/other"}}}),
        ));
        assert!(
            miss.contains("ArnEquals on `aws:PrincipalArn` does not hold"),
            "{miss}"
        );
        let unknown = verdict(
            json!({"Effect": "Allow", "Principal": root, "Action": "sts:AssumeRole",
            "Condition": {"StringEquals": {"sts:ExternalId": "secret"}}}),
        );
        assert!(
            matches!(&unknown, TrustVerdict::Unverifiable(w) if w.contains("`sts:ExternalId`")),
            "{unknown:?}"
        );
    }

    #[test]
    fn misses_name_what_the_policy_trusts_instead() {
        let miss = explanation(verdict(
            json!({"Effect": "Allow", "Principal": {"AWS": "arn:aws:iam::999999999999:role/x"}, "Action": "sts:AssumeRole"}),
        ));
        assert!(
            miss.contains("trusts only the AWS principal(s) arn:aws:iam::999999999999:role/x"),
            "{miss}"
        );
        let miss = explanation(verdict(
            json!({"Effect": "Allow", "Principal": {"AWS": "111122223333"}, "Action": "sts:TagSession"}),
        ));
        assert!(
            miss.contains("allows only sts:TagSession, not sts:AssumeRole"),
            "{miss}"
        );
        let miss = explanation(verdict(json!([
            {"Effect": "Allow", "Principal": {"AWS": "111122223333"}, "Action": "sts:AssumeRole"},
            {"Sid": "No", "Effect": "Deny", "Principal": "*", "Action": "sts:AssumeRole"}
        ])));
        assert!(
            miss.contains("the Deny in Statement[1] (Sid `No`)"),
            "{miss}"
        );
    }
}
