//! Nearest-miss explanations: why a web-identity request from this cluster's
//! ServiceAccount is denied, in one or two plain sentences, and a statement that would
//! admit it.

use super::condition::{Condition, Test, Undecidable};
use super::evaluate::{Evaluation, Outcome, StatementTrace};
use super::policy::{ActionElement, Effect, PrincipalElement, Statement, TrustPolicy};
use super::request::PrincipalKind;
use super::{Miss, WEB_IDENTITY_ACTION};
use crate::arn::RoleArn;
use crate::quote::ticked;

/// The ServiceAccount's side of the request, as the explanations need it.
pub(super) struct Subject<'a> {
    pub role: &'a RoleArn,
    /// Without `https://`.
    pub issuer: &'a str,
    /// `system:serviceaccount:<ns>:<name>`.
    pub sub: String,
    pub aud: &'a str,
    /// `arn:<partition>:iam::<account>:oidc-provider/<issuer>`.
    pub provider: String,
}

impl Subject<'_> {
    fn sub_key(&self) -> String {
        format!("{}:sub", self.issuer)
    }

    fn aud_key(&self) -> String {
        format!("{}:aud", self.issuer)
    }

    /// A compact statement that admits this ServiceAccount.
    pub fn suggested_statement(&self) -> String {
        let s = |text: &str| serde_json::to_string(text).unwrap_or_default();
        format!(
            r#"{{"Effect":"Allow","Principal":{{"Federated":{}}},"Action":{},"Condition":{{"StringEquals":{{{}:{},{}:{}}}}}}}"#,
            s(&self.provider),
            s(WEB_IDENTITY_ACTION),
            s(&self.sub_key()),
            s(&self.sub),
            s(&self.aud_key()),
            s(self.aud),
        )
    }

    fn miss(&self, explanation: String, suggest: bool) -> Miss {
        Miss {
            explanation,
            suggested_statement: suggest.then(|| self.suggested_statement()),
        }
    }
}

/// Explains a denial.
pub(super) fn explain(
    policy: &TrustPolicy,
    evaluation: &Evaluation,
    subject: &Subject<'_>,
) -> Miss {
    if let Outcome::ExplicitDeny { statement } = evaluation.outcome {
        if let Some(s) = policy.statements.get(statement) {
            return explicit_deny(s, subject);
        }
    }
    let allows: Vec<(&Statement, &StatementTrace)> = policy
        .statements
        .iter()
        .zip(&evaluation.statements)
        .filter(|(s, _)| s.effect == Effect::Allow)
        .collect();
    if allows.is_empty() {
        let text =
            "the role's trust policy has no Allow statement, so it admits nobody".to_string();
        return subject.miss(text, true);
    }
    if let Some(miss) = principal_matched(&allows, subject) {
        return miss;
    }
    if let Some(miss) = other_oidc_provider(&allows, subject) {
        return miss;
    }
    other_principals(&allows, subject)
}

/// `` `a` ``, `` `a` or `b` ``, `` `a`, `b` or `c` `` (at most five, then "or N more").
fn either(items: &[&str], joiner: &str) -> String {
    const SHOWN: usize = 5;
    let mut shown: Vec<String> = items.iter().take(SHOWN).map(|i| ticked(i)).collect();
    if items.len() > SHOWN {
        shown.push(format!("{} more", items.len() - SHOWN));
    }
    match shown.split_last() {
        None => String::new(),
        Some((last, [])) => last.clone(),
        Some((last, rest)) => format!("{} {joiner} {last}", rest.join(", ")),
    }
}

fn explicit_deny(statement: &Statement, subject: &Subject<'_>) -> Miss {
    let held: Vec<String> = statement
        .conditions
        .iter()
        .map(|c| deny_condition(c, subject))
        .collect();
    let why = if held.is_empty() {
        String::new()
    } else {
        format!(" ({})", held.join("; "))
    };
    let aud_key = subject.aud_key();
    let on_audience = statement
        .conditions
        .iter()
        .any(|c| c.key.eq_ignore_ascii_case(&aud_key));
    let fix = if on_audience {
        "set the ServiceAccount's eks.amazonaws.com/audience to an audience that Deny does not \
         match, narrow that Deny's Principal or Condition, or use another role"
    } else {
        "narrow that Deny's Principal or Condition so it no longer matches this ServiceAccount, \
         or use another role"
    };
    let text = format!(
        "the role's trust policy explicitly denies {}: the Deny in {} matches it{why}; {fix}",
        ticked(&subject.sub),
        statement.describe()
    );
    subject.miss(text, false)
}

/// What made one condition of an applying Deny hold: its test and the request's value.
fn deny_condition(condition: &Condition, subject: &Subject<'_>) -> String {
    let how = format!("{} on {}", condition.operator.name, ticked(&condition.key));
    if condition.key.eq_ignore_ascii_case(&subject.sub_key()) {
        format!("{how} holds for {}", ticked(&subject.sub))
    } else if condition.key.eq_ignore_ascii_case(&subject.aud_key()) {
        format!("{how} holds for the audience {}", ticked(subject.aud))
    } else {
        format!("{how} holds: a web-identity request from this cluster does not carry that key")
    }
}

/// The principal matches some Allow: pick the statement with the fewest failures.
fn principal_matched(
    allows: &[(&Statement, &StatementTrace)],
    subject: &Subject<'_>,
) -> Option<Miss> {
    let (statement, trace) = allows
        .iter()
        .filter(|(_, t)| t.principal)
        .min_by_key(|(_, t)| (!t.action, failed(t).count()))?;
    if !trace.action {
        return Some(subject.miss(action_miss(statement), true));
    }
    let mut phrases: Vec<(u8, String)> = failed(trace)
        .filter_map(|i| statement.conditions.get(i))
        .map(|c| condition_phrase(c, subject))
        .collect();
    phrases.sort_by_key(|(rank, _)| *rank);
    let mut text = match phrases.first() {
        Some((_, first)) => format!("the role's trust policy {first}"),
        None => format!(
            "the role's trust policy: {} does not apply to this ServiceAccount",
            statement.describe()
        ),
    };
    if let Some((_, second)) = phrases.get(1) {
        text.push_str(&format!(", and it also {second}"));
    }
    Some(subject.miss(text, true))
}

fn failed(trace: &StatementTrace) -> impl Iterator<Item = usize> + '_ {
    trace
        .conditions
        .iter()
        .enumerate()
        .filter(|(_, t)| **t == super::condition::Truth::False)
        .map(|(i, _)| i)
}

fn action_miss(statement: &Statement) -> String {
    match &statement.action {
        ActionElement::Action(actions) => {
            let names: Vec<&str> = actions.iter().map(String::as_str).collect();
            format!(
                "the role's trust policy: {} names this ServiceAccount's principal but allows only {}, not {}",
                statement.describe(),
                either(&names, "and"),
                ticked(WEB_IDENTITY_ACTION)
            )
        }
        ActionElement::NotAction(_) => format!(
            "the role's trust policy: {} names this ServiceAccount's principal but excludes {} with NotAction",
            statement.describe(),
            ticked(WEB_IDENTITY_ACTION)
        ),
    }
}

/// A predicate for "the role's trust policy …", ranked: sub first, then aud, then others.
fn condition_phrase(condition: &Condition, subject: &Subject<'_>) -> (u8, String) {
    let key = condition.key.to_lowercase();
    let op = &condition.operator;
    let raws: Vec<&str> = condition.values.iter().map(|v| v.raw.as_str()).collect();
    let values = either(&raws, "or");
    let how = format!("{} on {}", op.name, ticked(&condition.key));
    let is_sub = key == subject.sub_key().to_lowercase();
    let is_aud = key == subject.aud_key().to_lowercase();
    if op.test == Test::Null {
        let phrase = if is_sub || is_aud {
            format!("requires {} to be absent ({how})", ticked(&condition.key))
        } else {
            format!("requires {} ({how}), which a web-identity request from this cluster does not carry", ticked(&condition.key))
        };
        return (3, phrase);
    }
    if is_sub {
        return if op.negated {
            (0, format!("excludes {} ({how})", ticked(&subject.sub)))
        } else {
            (0, format!("admits {values}, not {}", ticked(&subject.sub)))
        };
    }
    if is_aud {
        return if op.negated {
            (
                1,
                format!("excludes the audience {} ({how})", ticked(subject.aud)),
            )
        } else {
            (
                1,
                format!(
                    "has no `aud` match for {} (it admits {values})",
                    ticked(subject.aud)
                ),
            )
        };
    }
    if let Some(other) = other_issuer(&condition.key, subject) {
        return (
            2,
            format!(
                "tests {}, a key of issuer {}, but this cluster's issuer is {}",
                ticked(&condition.key),
                ticked(other),
                ticked(subject.issuer)
            ),
        );
    }
    (
        3,
        format!(
            "requires {} ({}), which a web-identity request from this cluster does not carry",
            ticked(&condition.key),
            op.name
        ),
    )
}

/// `other-issuer:sub` → `other-issuer`, when it is not this cluster's issuer.
fn other_issuer<'k>(key: &'k str, subject: &Subject<'_>) -> Option<&'k str> {
    let (issuer, claim) = key.rsplit_once(':')?;
    let claim = claim.to_lowercase();
    (matches!(claim.as_str(), "sub" | "aud")
        && !issuer.eq_ignore_ascii_case(subject.issuer)
        && issuer.contains('/'))
    .then_some(issuer)
}

/// An OIDC provider ARN split into partition, account and issuer.
struct Provider<'a> {
    arn: &'a str,
    partition: &'a str,
    account: &'a str,
    issuer: &'a str,
}

fn parse_provider(arn: &str) -> Option<Provider<'_>> {
    let mut parts = arn.strip_prefix("arn:")?.splitn(5, ':');
    let (partition, service, _region) = (parts.next()?, parts.next()?, parts.next()?);
    let (account, resource) = (parts.next()?, parts.next()?);
    let issuer = resource.strip_prefix("oidc-provider/")?;
    (service == "iam").then_some(Provider {
        arn,
        partition,
        account,
        issuer,
    })
}

fn federated_members<'a>(
    allows: &'a [(&'a Statement, &'a StatementTrace)],
) -> impl Iterator<Item = &'a str> + 'a {
    principal_members(allows, PrincipalKind::Federated)
}

fn principal_members<'a>(
    allows: &'a [(&'a Statement, &'a StatementTrace)],
    kind: PrincipalKind,
) -> impl Iterator<Item = &'a str> + 'a {
    allows.iter().flat_map(move |(s, _)| match &s.principal {
        PrincipalElement::Principal(p) => p.of(kind).collect::<Vec<_>>(),
        PrincipalElement::NotPrincipal(_) => Vec::new(),
    })
}

/// Allow statements name an OIDC provider, but not this cluster's.
fn other_oidc_provider(
    allows: &[(&Statement, &StatementTrace)],
    subject: &Subject<'_>,
) -> Option<Miss> {
    let best = federated_members(allows)
        .filter_map(parse_provider)
        .min_by_key(|p| provider_rank(p, subject))?;
    let role = subject.role;
    let text = if best.issuer == subject.issuer && best.account != role.account {
        format!(
            "the role's trust policy: its Federated principal names the OIDC provider in account {}, but the role is in account {} and can trust only a provider registered there ({})",
            best.account, role.account, ticked(&subject.provider)
        )
    } else if best.issuer == subject.issuer && best.partition != role.partition {
        format!(
            "the role's trust policy: its Federated principal names the OIDC provider in partition {}, but the role is in partition {} ({})",
            ticked(best.partition), ticked(&role.partition), ticked(&subject.provider)
        )
    } else if best.arn.eq_ignore_ascii_case(&subject.provider) {
        format!(
            "the role's trust policy: its Federated principal {} differs from this cluster's OIDC provider {} only in letter case, and principals are compared exactly",
            ticked(best.arn), ticked(&subject.provider)
        )
    } else {
        format!(
            "the role's trust policy: its Federated principal names OIDC provider {} but this cluster's issuer is {}",
            ticked(best.issuer), ticked(subject.issuer)
        )
    };
    Some(subject.miss(text, true))
}

fn provider_rank(p: &Provider<'_>, subject: &Subject<'_>) -> u8 {
    if p.issuer == subject.issuer {
        0
    } else if p.arn.eq_ignore_ascii_case(&subject.provider) {
        1
    } else if p.account == subject.role.account {
        2
    } else {
        3
    }
}

const POD_IDENTITY: &str = "pods.eks.amazonaws.com";

/// No Allow names any OIDC provider: Pod Identity, role chaining, other principals.
fn other_principals(allows: &[(&Statement, &StatementTrace)], subject: &Subject<'_>) -> Miss {
    let services: Vec<&str> = dedup(principal_members(allows, PrincipalKind::Service));
    let aws: Vec<&str> = dedup(principal_members(allows, PrincipalKind::Aws));
    let federated: Vec<&str> = dedup(federated_members(allows));
    if services.contains(&POD_IDENTITY) {
        let text = format!(
            "the role trusts only {} (EKS Pod Identity); use a Pod Identity association, not the role-arn annotation",
            ticked(POD_IDENTITY)
        );
        return subject.miss(text, false);
    }
    if !aws.is_empty() {
        let noun = if aws.len() == 1 {
            "principal"
        } else {
            "principals"
        };
        let text = format!(
            "the role trusts only the AWS {noun} {} (a role-chaining target); annotate the ServiceAccount with the IRSA role that assumes it",
            either(&aws, "and")
        );
        return subject.miss(text, false);
    }
    let (what, list) = if !services.is_empty() {
        ("service", services)
    } else if !federated.is_empty() {
        ("Federated", federated)
    } else {
        let text = format!(
            "the role's trust policy has no Allow statement that names this cluster's OIDC provider {}",
            ticked(&subject.provider)
        );
        return subject.miss(text, true);
    };
    let noun = if list.len() == 1 {
        "principal"
    } else {
        "principals"
    };
    let text = format!(
        "the role trusts only the {what} {noun} {}, not this cluster's OIDC provider {}",
        either(&list, "and"),
        ticked(&subject.provider)
    );
    subject.miss(text, true)
}

fn dedup<'a>(items: impl Iterator<Item = &'a str>) -> Vec<&'a str> {
    let mut out: Vec<&str> = Vec::new();
    for item in items {
        if !out.contains(&item) {
            out.push(item);
        }
    }
    out
}

/// Why the answer cannot be verified: which statement, key and operator (after "zoneguard
/// cannot verify the role's trust policy: ", which names the policy).
pub(super) fn unverifiable(
    policy: &TrustPolicy,
    statement: usize,
    condition: usize,
    why: &Undecidable,
) -> String {
    let Some(s) = policy.statements.get(statement) else {
        return "a condition depends on the request".to_string();
    };
    let Some(c) = s.conditions.get(condition) else {
        return format!("{} depends on the request", s.describe());
    };
    let what = match why {
        Undecidable::Key => format!("tests {} ({})", ticked(&c.key), c.operator.name),
        Undecidable::Variable(variable) => format!(
            "compares {} ({}) with the policy variable {}",
            ticked(&c.key),
            c.operator.name,
            ticked(&format!("${{{variable}}}"))
        ),
    };
    format!(
        "{} {what}, which is known only when the pod calls STS",
        s.describe()
    )
}
