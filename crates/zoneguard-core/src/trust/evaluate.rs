//! Evaluation of a trust policy against a generic request: allowed ⇔ some Allow statement
//! applies and no Deny statement applies. Undecidable conditions make the answer unknown
//! unless a decided answer settles it.

use super::condition::{Truth, Undecidable};
use super::glob;
use super::policy::{ActionElement, Effect, PrincipalElement, Principals, Statement, TrustPolicy};
use super::request::{PrincipalKind, Request, RequestPrincipal};

/// How one statement fared.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StatementTrace {
    /// Index into `TrustPolicy::statements()`.
    pub index: usize,
    /// Principal / NotPrincipal matched in the sense that lets the statement apply.
    pub principal: bool,
    pub action: bool,
    /// One answer per condition, in the statement's order.
    pub conditions: Vec<Truth>,
    /// principal ∧ action ∧ every condition.
    pub applies: Truth,
}

/// The overall answer.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Outcome {
    Allowed,
    /// No Allow statement applies.
    ImplicitDeny,
    /// This Deny statement applies.
    ExplicitDeny {
        statement: usize,
    },
    /// The answer hinges on this statement's condition.
    Unverifiable {
        statement: usize,
        condition: usize,
        why: Undecidable,
    },
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Evaluation {
    pub outcome: Outcome,
    pub statements: Vec<StatementTrace>,
}

/// Evaluates `policy` for `request`.
pub fn evaluate(policy: &TrustPolicy, request: &Request) -> Evaluation {
    let statements: Vec<StatementTrace> = policy
        .statements
        .iter()
        .enumerate()
        .map(|(index, s)| trace(index, s, request))
        .collect();
    let outcome = decide(policy, &statements);
    Evaluation {
        outcome,
        statements,
    }
}

fn trace(index: usize, statement: &Statement, request: &Request) -> StatementTrace {
    let principal = principal_applies(statement, &request.principal);
    let action = action_applies(&statement.action, &request.action);
    let conditions: Vec<Truth> = statement
        .conditions
        .iter()
        .map(|c| c.evaluate(&request.context))
        .collect();
    let applies = if principal && action {
        Truth::all(conditions.iter().cloned())
    } else {
        Truth::False
    };
    StatementTrace {
        index,
        principal,
        action,
        conditions,
        applies,
    }
}

fn decide(policy: &TrustPolicy, traces: &[StatementTrace]) -> Outcome {
    let of = |effect: Effect| {
        traces
            .iter()
            .filter(move |t| policy.statements[t.index].effect == effect)
    };
    if let Some(deny) = of(Effect::Deny).find(|t| t.applies == Truth::True) {
        return Outcome::ExplicitDeny {
            statement: deny.index,
        };
    }
    if of(Effect::Allow).all(|t| t.applies == Truth::False) {
        return Outcome::ImplicitDeny;
    }
    let undecided = of(Effect::Deny)
        .find(|t| matches!(t.applies, Truth::Unknown(_)))
        .or_else(|| {
            if of(Effect::Allow).any(|t| t.applies == Truth::True) {
                None
            } else {
                of(Effect::Allow).find(|t| matches!(t.applies, Truth::Unknown(_)))
            }
        });
    match undecided {
        None => Outcome::Allowed,
        Some(t) => unverifiable(t),
    }
}

fn unverifiable(trace: &StatementTrace) -> Outcome {
    let found = trace
        .conditions
        .iter()
        .enumerate()
        .find_map(|(i, truth)| match truth {
            Truth::Unknown(why) => Some((i, why.clone())),
            _ => None,
        });
    let (condition, why) = found.unwrap_or((0, Undecidable::Key));
    Outcome::Unverifiable {
        statement: trace.index,
        condition,
        why,
    }
}

/// Principal: a member matches. NotPrincipal: never grants; a Deny applies to everyone
/// not listed.
fn principal_applies(statement: &Statement, who: &RequestPrincipal) -> bool {
    match (&statement.principal, statement.effect) {
        (PrincipalElement::Principal(p), _) => principals_match(p, who),
        (PrincipalElement::NotPrincipal(_), Effect::Allow) => false,
        (PrincipalElement::NotPrincipal(p), Effect::Deny) => !principals_match(p, who),
    }
}

/// `"*"` and `{"AWS": "*"}` match everyone; other members match by kind.
pub fn principals_match(principals: &Principals, who: &RequestPrincipal) -> bool {
    principals.everyone
        || principals.of(PrincipalKind::Aws).any(|id| id == "*")
        || principals
            .members
            .iter()
            .filter(|(kind, _)| *kind == who.kind)
            .any(|(kind, id)| member_matches(*kind, id, &who.id))
}

fn member_matches(kind: PrincipalKind, member: &str, who: &str) -> bool {
    if member == who {
        return true;
    }
    kind == PrincipalKind::Aws && aws_member_matches(member, who)
}

/// An account id or `arn:…:iam::<account>:root` matches every principal of that account;
/// a role ARN matches that role's sessions.
fn aws_member_matches(member: &str, who: &str) -> bool {
    let Some(caller) = AwsIdentity::parse(who) else {
        return false;
    };
    if member.len() == 12 && member.bytes().all(|b| b.is_ascii_digit()) {
        return caller.account == member;
    }
    let Some(named) = AwsIdentity::parse(member) else {
        return false;
    };
    if named.partition != caller.partition || named.account != caller.account {
        return false;
    }
    if named.resource == "root" {
        return true;
    }
    match (named.role_name(), caller.session_role()) {
        (Some(role), Some(session_role)) => named.service == "iam" && role == session_role,
        _ => false,
    }
}

struct AwsIdentity<'a> {
    partition: &'a str,
    service: &'a str,
    account: &'a str,
    resource: &'a str,
}

impl<'a> AwsIdentity<'a> {
    fn parse(text: &'a str) -> Option<Self> {
        if text.len() == 12 && text.bytes().all(|b| b.is_ascii_digit()) {
            return Some(Self {
                partition: "",
                service: "",
                account: text,
                resource: "",
            });
        }
        let mut parts = text.strip_prefix("arn:")?.splitn(5, ':');
        let (partition, service, _region) = (parts.next()?, parts.next()?, parts.next()?);
        let (account, resource) = (parts.next()?, parts.next()?);
        Some(Self {
            partition,
            service,
            account,
            resource,
        })
    }

    /// `role/path/name` → `name`.
    fn role_name(&self) -> Option<&'a str> {
        let rest = self.resource.strip_prefix("role/")?;
        rest.rsplit('/').next()
    }

    /// `assumed-role/name/session` → `name`.
    fn session_role(&self) -> Option<&'a str> {
        if self.service != "sts" {
            return None;
        }
        self.resource
            .strip_prefix("assumed-role/")?
            .split('/')
            .next()
    }
}

fn action_applies(element: &ActionElement, action: &str) -> bool {
    match element {
        ActionElement::Action(list) => list.iter().any(|p| glob::matches_ignore_case(p, action)),
        ActionElement::NotAction(list) => {
            !list.iter().any(|p| glob::matches_ignore_case(p, action))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::trust::condition::Undecidable;
    use crate::trust::request::Context;
    use serde_json::json;

    fn policy(statements: serde_json::Value) -> TrustPolicy {
        TrustPolicy::from_value(&json!({"Version": "2012-10-17", "Statement": statements})).unwrap()
    }

    fn assume_role(principal: &str) -> Request {
        let mut context = Context::new();
        context.mark_sts_request_keys_unknown();
        Request {
            action: "sts:AssumeRole".to_owned(),
            principal: RequestPrincipal {
                kind: PrincipalKind::Aws,
                id: principal.to_owned(),
            },
            context,
        }
    }

    const SESSION: &str = "arn:aws:sts::111122223333:assumed-role/base/botocore-session-1";

    #[test]
    fn aws_principals_match_by_arn_account_root_or_bare_account() {
        let rows = [
            ("*", SESSION, true),
            ("111122223333", SESSION, true),
            ("444455556666", SESSION, false),
            ("arn:aws:iam::111122223333:root", SESSION, true),
            ("arn:aws-cn:iam::111122223333:root", SESSION, false),
            ("arn:aws:iam::111122223333:role/base", SESSION, true),
            ("arn:aws:iam::111122223333:role/team/base", SESSION, true),
            ("arn:aws:iam::111122223333:role/other", SESSION, false),
            (
                "arn:aws:iam::111122223333:role/base",
                "arn:aws:iam::111122223333:role/base",
                true,
            ),
            ("arn:aws:iam::111122223333:user/base", SESSION, false),
        ];
        for (member, caller, expected) in rows {
            let p = policy(
                json!({"Effect": "Allow", "Principal": {"AWS": member}, "Action": "sts:AssumeRole"}),
            );
            let allowed = evaluate(&p, &assume_role(caller)).outcome == Outcome::Allowed;
            assert_eq!(allowed, expected, "{member} vs {caller}");
        }
    }

    #[test]
    fn principal_kinds_do_not_cross() {
        let p = policy(
            json!({"Effect": "Allow", "Principal": {"Service": SESSION, "Federated": SESSION}, "Action": "sts:AssumeRole"}),
        );
        assert_eq!(
            evaluate(&p, &assume_role(SESSION)).outcome,
            Outcome::ImplicitDeny
        );
    }

    #[test]
    fn deny_with_not_principal_applies_to_everyone_not_listed() {
        let p = policy(json!([
            {"Effect": "Allow", "Principal": "*", "Action": "sts:AssumeRole"},
            {"Effect": "Deny", "NotPrincipal": {"AWS": "arn:aws:iam::111122223333:role/base"}, "Action": "sts:AssumeRole"}
        ]));
        assert_eq!(
            evaluate(&p, &assume_role(SESSION)).outcome,
            Outcome::Allowed
        );
        let other = "arn:aws:sts::111122223333:assumed-role/other/s";
        assert_eq!(
            evaluate(&p, &assume_role(other)).outcome,
            Outcome::ExplicitDeny { statement: 1 }
        );
    }

    #[test]
    fn an_unknown_deny_makes_an_allowed_request_unverifiable() {
        let p = policy(json!([
            {"Effect": "Allow", "Principal": "*", "Action": "sts:AssumeRole"},
            {"Effect": "Deny", "Principal": "*", "Action": "*", "Condition": {"NotIpAddress": {"aws:SourceIp": "10.0.0.0/8"}}}
        ]));
        assert_eq!(
            evaluate(&p, &assume_role(SESSION)).outcome,
            Outcome::Unverifiable {
                statement: 1,
                condition: 0,
                why: Undecidable::Key
            }
        );
    }

    #[test]
    fn an_implicit_deny_does_not_need_unknown_conditions() {
        let p = policy(json!([
            {"Effect": "Allow", "Principal": {"AWS": "999999999999"}, "Action": "sts:AssumeRole",
             "Condition": {"IpAddress": {"aws:SourceIp": "10.0.0.0/8"}}}
        ]));
        assert_eq!(
            evaluate(&p, &assume_role(SESSION)).outcome,
            Outcome::ImplicitDeny
        );
    }
}
