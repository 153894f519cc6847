//! Identity-based permission policies (a role's inline and managed policies), as far as role
//! chains need them: does some Allow statement grant an action on a resource, and does no
//! Deny refuse it. Parsed like trust policies, with `Resource`/`NotResource` instead of
//! `Principal`.

use super::condition::{Condition, Truth, Undecidable};
use super::error::Steps;
use super::glob;
use super::policy::{
    from_json, parse_action_element, parse_conditions, parse_document, parse_element,
    parse_statements, policy_version, statement_head, statement_name, strings, ActionElement,
    Effect, Version,
};
use super::request::Context;
use super::{PolicyError, Step};
use serde_json::{Map, Value as Json};

/// A parsed permission policy document.
#[derive(Debug, Clone, PartialEq)]
pub struct PermissionPolicy {
    pub(crate) version: Version,
    pub(crate) statements: Vec<PermissionStatement>,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ResourceElement {
    Resource(Vec<String>),
    NotResource(Vec<String>),
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PermissionStatement {
    /// `Statement[1]`, or `Statement` when the policy has a single object.
    pub label: String,
    pub sid: Option<String>,
    pub effect: Effect,
    pub action: ActionElement,
    pub resource: ResourceElement,
    pub conditions: Vec<Condition>,
}

impl PermissionStatement {
    /// `Statement[1]`, with its Sid when it has one.
    pub fn describe(&self) -> String {
        statement_name(&self.label, self.sid.as_deref())
    }
}

const PERMISSION: &str = "permission policy";

impl PermissionPolicy {
    /// From document text; percent-decoded first when it does not start with `{` (IAM
    /// returns policy documents percent-encoded). `+` stays `+`.
    pub fn from_document(text: &str) -> Result<Self, PolicyError> {
        let value = parse_document(text, PERMISSION)?;
        from_json(&value, PERMISSION, None, parse_policy)
    }

    /// From a JSON value: the policy as an object, or its document text as a string.
    pub fn from_value(value: &Json) -> Result<Self, PolicyError> {
        from_json(value, PERMISSION, Some(Self::from_document), parse_policy)
    }

    pub fn version(&self) -> Version {
        self.version
    }

    pub fn statements(&self) -> &[PermissionStatement] {
        &self.statements
    }
}

const STATEMENT_KEYS: [&str; 7] = [
    "Sid",
    "Effect",
    "Action",
    "NotAction",
    "Resource",
    "NotResource",
    "Condition",
];

fn parse_policy(map: &Map<String, Json>) -> Result<PermissionPolicy, PolicyError> {
    let version = policy_version(map)?;
    let statements = parse_statements(map, version, "missing", parse_statement)?;
    Ok(PermissionPolicy {
        version,
        statements,
    })
}

fn parse_statement(
    map: &Map<String, Json>,
    at: &[Step],
    version: Version,
) -> Result<PermissionStatement, PolicyError> {
    let foreign = ["Principal", "NotPrincipal"];
    let why = "not allowed in an identity-based policy";
    let (sid, effect) = statement_head(map, at, &STATEMENT_KEYS, foreign, why)?;
    let resource = ["Resource", "NotResource"];
    let wrap = [ResourceElement::Resource, ResourceElement::NotResource];
    Ok(PermissionStatement {
        sid,
        effect,
        action: parse_action_element(map, at)?,
        resource: parse_element(map, at, resource, "missing Resource", strings, wrap)?,
        conditions: parse_conditions(map.get("Condition"), at, version)?,
        label: Steps(at).to_string(),
    })
}

/// One named policy of a role: `inline policy <name>` or `managed policy <arn>`.
#[derive(Debug, Clone, Copy)]
pub struct Named<'a> {
    pub name: &'a str,
    pub policy: &'a PermissionPolicy,
}

/// Where a statement sits: the policy's name and the statement.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StatementRef {
    pub policy: String,
    pub statement: String,
}

/// The answer for `action` on `resource`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum PermissionOutcome {
    Allowed(StatementRef),
    /// No Allow statement grants it.
    ImplicitDeny,
    ExplicitDeny(StatementRef),
    /// The answer hinges on this statement's condition on `key`.
    Unverifiable {
        at: StatementRef,
        key: String,
        why: Undecidable,
    },
}

/// Evaluates the union of `policies` for one action on one resource: allowed ⇔ some Allow
/// statement applies and no Deny statement applies.
pub fn evaluate_permissions(
    policies: &[Named<'_>],
    action: &str,
    resource: &str,
    context: &Context,
) -> PermissionOutcome {
    let mut allow: Option<StatementRef> = None;
    let mut unknown_allow = None;
    let mut unknown_deny = None;
    for named in policies {
        for s in &named.policy.statements {
            let at = || StatementRef {
                policy: named.name.to_owned(),
                statement: s.describe(),
            };
            let truth = applies(s, action, resource, context);
            match (s.effect, truth) {
                (Effect::Deny, Truth::True) => return PermissionOutcome::ExplicitDeny(at()),
                (Effect::Deny, Truth::Unknown(why)) if unknown_deny.is_none() => {
                    unknown_deny = Some(unverifiable(s, at(), why, context));
                }
                (Effect::Allow, Truth::True) if allow.is_none() => allow = Some(at()),
                (Effect::Allow, Truth::Unknown(why)) if unknown_allow.is_none() => {
                    unknown_allow = Some(unverifiable(s, at(), why, context));
                }
                _ => {}
            }
        }
    }
    let any_allow = allow.is_some() || unknown_allow.is_some();
    match (unknown_deny, allow, unknown_allow) {
        (Some(unknown), _, _) if any_allow => unknown,
        (_, Some(at), _) => PermissionOutcome::Allowed(at),
        (_, None, Some(unknown)) => unknown,
        _ => PermissionOutcome::ImplicitDeny,
    }
}

fn unverifiable(
    s: &PermissionStatement,
    at: StatementRef,
    why: Undecidable,
    context: &Context,
) -> PermissionOutcome {
    let key = s
        .conditions
        .iter()
        .find(|c| matches!(c.evaluate(context), Truth::Unknown(_)))
        .map(|c| c.key.clone())
        .unwrap_or_default();
    PermissionOutcome::Unverifiable { at, key, why }
}

fn applies(s: &PermissionStatement, action: &str, resource: &str, context: &Context) -> Truth {
    if !action_matches(&s.action, action) || !resource_matches(&s.resource, resource) {
        return Truth::False;
    }
    Truth::all(s.conditions.iter().map(|c| c.evaluate(context)))
}

fn action_matches(element: &ActionElement, action: &str) -> bool {
    let any = |list: &[String]| list.iter().any(|p| glob::matches_ignore_case(p, action));
    match element {
        ActionElement::Action(list) => any(list),
        ActionElement::NotAction(list) => !any(list),
    }
}

/// Resource ARNs match as case-sensitive whole-string globs.
fn resource_matches(element: &ResourceElement, resource: &str) -> bool {
    let any = |list: &[String]| list.iter().any(|p| glob::matches_text(p, resource));
    match element {
        ResourceElement::Resource(list) => any(list),
        ResourceElement::NotResource(list) => !any(list),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    const TARGET: &str = "arn:aws:iam::444455556666:role/dns";

    fn policy(statements: Json) -> PermissionPolicy {
        PermissionPolicy::from_value(&json!({"Version": "2012-10-17", "Statement": statements}))
            .unwrap_or_else(|e| panic!("{e}"))
    }

    fn outcome(policies: &[PermissionPolicy]) -> PermissionOutcome {
        let named: Vec<Named<'_>> = policies
            .iter()
            .map(|policy| Named { name: "p", policy })
            .collect();
        let mut context = Context::new();
        context.mark_sts_request_keys_unknown();
        evaluate_permissions(&named, "sts:AssumeRole", TARGET, &context)
    }

    fn allowed(policies: &[PermissionPolicy]) -> bool {
        matches!(outcome(policies), PermissionOutcome::Allowed(_))
    }

    #[test]
    fn allow_statements_match_action_and_resource_globs() {
        let rows = [
            (
                json!({"Effect": "Allow", "Action": "sts:AssumeRole", "Resource": TARGET}),
                true,
            ),
            (
                json!({"Effect": "Allow", "Action": "sts:*", "Resource": "arn:aws:iam::444455556666:role/*"}),
                true,
            ),
            (
                json!({"Effect": "Allow", "Action": "STS:assumerole", "Resource": "*"}),
                true,
            ),
            (
                json!({"Effect": "Allow", "Action": "sts:AssumeRole", "Resource": "arn:aws:iam::444455556666:role/DNS"}),
                false,
            ),
            (
                json!({"Effect": "Allow", "Action": "route53:*", "Resource": "*"}),
                false,
            ),
            (
                json!({"Effect": "Allow", "NotAction": "iam:*", "Resource": TARGET}),
                true,
            ),
            (
                json!({"Effect": "Allow", "Action": "sts:AssumeRole", "NotResource": TARGET}),
                false,
            ),
        ];
        for (statement, expected) in rows {
            assert_eq!(
                allowed(&[policy(statement.clone())]),
                expected,
                "{statement}"
            );
        }
    }

    #[test]
    fn a_deny_in_any_policy_wins_and_is_named() {
        let allow = policy(json!({"Effect": "Allow", "Action": "sts:AssumeRole", "Resource": "*"}));
        let deny = policy(
            json!([{"Sid": "NoDns", "Effect": "Deny", "Action": "sts:*", "Resource": TARGET}]),
        );
        assert_eq!(
            outcome(&[allow, deny]),
            PermissionOutcome::ExplicitDeny(StatementRef {
                policy: "p".into(),
                statement: "Statement[0] (Sid `NoDns`)".into()
            })
        );
    }

    #[test]
    fn unknown_conditions_make_the_answer_unverifiable() {
        let p = policy(
            json!({"Effect": "Allow", "Action": "sts:AssumeRole", "Resource": TARGET,
            "Condition": {"IpAddress": {"aws:SourceIp": "10.0.0.0/8"}}}),
        );
        assert!(matches!(
            outcome(&[p]),
            PermissionOutcome::Unverifiable { ref key, .. } if key == "aws:SourceIp"
        ));
        assert_eq!(outcome(&[]), PermissionOutcome::ImplicitDeny);
    }

    #[test]
    fn documents_are_percent_decoded_and_checked() {
        let text = "%7B%22Version%22%3A%222012-10-17%22%2C%22Statement%22%3A%7B%22Effect%22%3A%22Allow%22%2C%22Action%22%3A%22sts%3AAssumeRole%22%2C%22Resource%22%3A%22*%22%7D%7D";
        assert!(PermissionPolicy::from_document(text).is_ok());
        let e = PermissionPolicy::from_value(&json!({"Statement": {"Effect": "Allow", "Action": "x", "Resource": "*", "Principal": "*"}}))
            .expect_err("principal");
        assert!(
            e.to_string().contains("Statement.Principal: not allowed"),
            "{e}"
        );
        let e =
            PermissionPolicy::from_value(&json!({"Statement": {"Effect": "Allow", "Action": "x"}}))
                .expect_err("resource");
        assert!(e.to_string().contains("missing Resource"), "{e}");
    }

    #[test]
    fn permission_and_trust_documents_are_refused_alike() {
        let allow = r#"{"Effect":"Allow","Action":"sts:AssumeRole","Resource":"*","Principal":{"Federated":"x"}}"#;
        let cases = [
            (
                r#"{"Id":7,"Statement":[]}"#.to_string(),
                "Id: expected a string, got a number",
            ),
            ("%7B%22Statement%22%3A".to_string(), "is not valid JSON"),
            (
                serde_json::to_string(&format!(r#"{{"Statement":{allow}}}"#)).unwrap(),
                "must be a JSON object, got a string",
            ),
        ];
        for (text, want) in cases {
            let permission = PermissionPolicy::from_document(&text).expect_err(&text);
            let trust = crate::trust::TrustPolicy::from_document(&text).expect_err(&text);
            assert!(
                permission.to_string().contains(want),
                "{text}: {permission}"
            );
            assert!(trust.to_string().contains(want), "{text}: {trust}");
            let decoded = |e: &PolicyError| e.to_string().contains("percent-decoded");
            assert_eq!(decoded(&permission), decoded(&trust), "{text}");
        }
    }
}
