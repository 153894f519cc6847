//! ServiceAccounts with `eks.amazonaws.com/role-arn` against the role's trust policy,
//! from the rules or from facts the caller read from IAM (`irsa.source: iam`), with role
//! chains (`irsa.chains`) and the OIDC provider check (`irsa.checkProvider`).

mod chain;
mod facts;
mod provider;
mod token_settings;
mod trust_source;

use crate::annotation;
use crate::arn::RoleArn;
use crate::rules::{IrsaSource, RuleSet, UnknownRole};
use crate::tree::Node;
use crate::trust::{self, TrustPolicy, TrustVerdict, WebIdentity};
use crate::verdict::{Reason, Violation, Warning};
use std::fmt::Arguments;
use trust_source::Missing;

pub use facts::{Facts, IamRole, Lookup, NamedPolicy, OidcProvider};
pub use token_settings::{STS_REGIONAL_ENDPOINTS, TOKEN_EXPIRATION};

pub const ROLE_ARN: &str = "eks.amazonaws.com/role-arn";
pub const AUDIENCE: &str = "eks.amazonaws.com/audience";

/// Violations and warnings for one ServiceAccount.
#[derive(Debug, Default)]
pub struct Findings {
    pub violations: Vec<Violation>,
    pub warnings: Vec<Warning>,
}

/// The ServiceAccount being checked and where its annotation sits, for messages.
struct Subject<'a> {
    namespace: &'a str,
    name: &'a str,
    arn_text: &'a str,
    role: RoleArn,
    /// IAM lookups were expected for this request (`irsa.source: iam`, or the caller
    /// resolved facts anyway).
    live: bool,
}

/// Where the role ARN sits, formatted only when a message needs it (most ServiceAccounts pass).
#[derive(Clone, Copy)]
struct At<'a>(&'a str);

impl std::fmt::Display for At<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{} {:?}", annotation::field(ROLE_ARN), self.0)
    }
}

impl Subject<'_> {
    /// `metadata.annotations[…] "arn…"`: the prefix of every message.
    fn at(&self) -> At<'_> {
        At(self.arn_text)
    }

    /// The role's ARN as `RoleArn::arn` writes it (the key of the rules' trust policies and of
    /// the IAM facts): the annotation, which `RoleArn::parse` accepted as it is.
    fn arn(&self) -> &str {
        self.arn_text
    }

    /// Reports a trust policy's answer: a denial as a violation, `denied` before the policy's
    /// own explanation and `fix` introducing the statement that would admit the caller (on a
    /// line of its own); an
    /// unverifiable condition as a warning that `what` cannot be verified. The wording is
    /// formatted only when there is something to report.
    fn report_trust(
        &self,
        verdict: TrustVerdict,
        denied: Arguments<'_>,
        fix: Arguments<'_>,
        what: Arguments<'_>,
        out: &mut Findings,
    ) {
        match verdict {
            TrustVerdict::Allowed => {}
            TrustVerdict::Denied(miss) => {
                let mut message = format!("{}: {denied}{}", self.at(), miss.explanation);
                if let Some(statement) = miss.suggested_statement {
                    message.push_str(&format!("; {fix}:\n  {statement}"));
                }
                out.violations
                    .push(self.violation(Reason::RoleNotTrusted, message));
            }
            TrustVerdict::Unverifiable(why) => out.warnings.push(Warning::with_reason(
                Reason::RoleUnverifiable,
                format!(
                    "{}: zoneguard cannot verify {what} ({}): {why}",
                    self.at(),
                    Reason::RoleUnverifiable
                ),
            )),
        }
    }

    /// A violation of the role ARN annotation, with `message` as it is (`<field> "<arn>": …`).
    fn violation(&self, reason: Reason, message: String) -> Violation {
        Violation::whole(annotation::field(ROLE_ARN), self.arn_text, reason, message)
    }
}

/// Checks a ServiceAccount with the rules alone (no IAM facts).
pub fn check(rules: &RuleSet, namespace: &str, name: &str, object: &Node<'_>) -> Findings {
    check_with(rules, namespace, name, object, &Facts::none())
}

/// Checks a ServiceAccount with what the caller read from IAM.
pub fn check_with(
    rules: &RuleSet,
    namespace: &str,
    name: &str,
    object: &Node<'_>,
    facts: &Facts,
) -> Findings {
    let mut out = Findings::default();
    // The pod identity webhook skips an empty value and passes any other, spaces included, to
    // the pods' AWS_ROLE_ARN as it is: so only the empty value means "no role".
    let Some(arn_text) = annotation::get(object, ROLE_ARN).filter(|v| !v.is_empty()) else {
        return out;
    };
    let role = match RoleArn::parse(arn_text) {
        Ok(role) => role,
        Err(e) => {
            // An error with a fix of its own needs no form to copy.
            let form = match e.fix {
                Some(_) => "",
                None => "; write arn:aws:iam::<12-digit account>:role/<name>",
            };
            let fault = format!("is not an IAM role ARN: {e}{form}");
            out.violations
                .push(arn_fault(arn_text, Reason::RoleArnInvalid, fault));
            return out;
        }
    };
    token_settings::check(object, &mut out);
    if name.is_empty() {
        // Only `generateName`: STS will see the name the API server makes, not known yet.
        out.warnings.push(Warning::new(format!("{} cannot be checked against its trust policy yet: the ServiceAccount has no name (only generateName), and the policy must admit system:serviceaccount:{namespace}:<the name the API server generates>", At(arn_text))));
        return out;
    }
    let irsa = &rules.irsa;
    let subject = Subject {
        namespace,
        name,
        arn_text,
        role,
        live: irsa.source == IrsaSource::Iam || facts.resolved,
    };
    if !irsa.accounts.is_empty() && !irsa.accounts.contains(&subject.role.account) {
        let allowed: Vec<&str> = irsa.accounts.iter().map(String::as_str).collect();
        let fault = format!("is in account {}, which this cluster's ServiceAccounts may not use (allowed: {}); use a role in an allowed account", subject.role.account, allowed.join(", "));
        out.violations
            .push(arn_fault(arn_text, Reason::RoleAccountNotAllowed, fault));
        return out;
    }
    let audience = match audience(rules, object) {
        Ok(audience) => audience,
        Err(violation) => {
            out.violations.push(violation);
            return out;
        }
    };
    if let Some((policy, origin)) = trust_policy(rules, facts, &subject, &mut out) {
        web_identity(rules, &subject, audience, (policy, origin), facts, &mut out);
    }
    chain::check(rules, facts, &subject, &mut out);
    out
}

/// A violation of the role ARN annotation `arn_text`, `fault` told after it.
fn arn_fault(arn_text: &str, reason: Reason, fault: String) -> Violation {
    Violation::new(annotation::field(ROLE_ARN), arn_text, reason, fault)
}

/// The audience of the pods' token: `eks.amazonaws.com/audience`, else `irsa.audience`. An
/// annotation with no text is refused: the pod identity webhook passes it on as the token's
/// audience, and a projected token with an empty audience carries the API server's own, which
/// the role's OIDC provider does not list: STS refuses it whatever the trust policy says.
fn audience<'a>(rules: &'a RuleSet, object: &'a Node<'_>) -> Result<&'a str, Violation> {
    let Some(value) = annotation::get(object, AUDIENCE) else {
        return Ok(&rules.irsa.audience);
    };
    if !value.trim().is_empty() {
        return Ok(value);
    }
    let field = annotation::field(AUDIENCE);
    let fault = format!("is empty: the pod identity webhook passes it on, pods then get a token for the Kubernetes API server's own audience, and STS refuses it (\"Incorrect token audience\"); remove the annotation (the audience is then {}) or set it to the audience the role's trust policy admits", rules.irsa.audience);
    Err(Violation::new(
        field,
        value,
        Reason::AnnotationInvalid,
        fault,
    ))
}

/// Where the trust policy evaluated came from, for the fix a denial asks for.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Origin {
    /// `irsa.trustPolicies`: a copy of IAM's, which must be mended with it.
    Rules,
    /// IAM itself.
    Iam,
}

/// The trust policy to evaluate: the rules' `trustPolicies` win; else IAM's answer. `None`
/// when there is none to evaluate (the reason is already in `out`).
fn trust_policy<'a>(
    rules: &'a RuleSet,
    facts: &'a Facts,
    s: &Subject<'_>,
    out: &mut Findings,
) -> Option<(&'a TrustPolicy, Origin)> {
    let missing = match trust_source::trust_policy(rules, facts, s.live, s.arn()) {
        Ok(found) => {
            if let Some(role) = found.iam {
                report_arn_difference(s, role, out);
            }
            let origin = if found.iam.is_some() {
                Origin::Iam
            } else {
                Origin::Rules
            };
            return Some((found.policy, origin));
        }
        Err(missing) => missing,
    };
    let text = match missing {
        Missing::NotInRules => format!("{}: zoneguard does not know this role's trust policy, so it cannot tell whether pods will get the role; ask the platform team to add the role's trust policy under irsa.trustPolicies in the rules{}", s.at(), known_roles(rules, &s.role)),
        Missing::NotRead => format!("{}: cannot verify: irsa.source is iam, but this check ran without reading IAM (for `zoneguard check`, add --iam), so zoneguard cannot tell whether pods will get the role", s.at()),
        Missing::Unavailable(why) => format!("{}: cannot verify: zoneguard could not read the role from IAM ({why}), so it cannot tell whether pods will get the role", s.at()),
        Missing::NotFound => {
            let message = format!("{}: role {} does not exist in account {} (IAM GetRole: NoSuchEntity), so pods cannot assume it; create the role first, or fix the name in the annotation", s.at(), s.role.name, s.role.account);
            out.violations
                .push(s.violation(Reason::RoleUnknown, message));
            return None;
        }
        Missing::Unreadable(role, e) => {
            report_arn_difference(s, role, out);
            format!(
                "{}: cannot verify: IAM returned a trust policy zoneguard cannot read ({e})",
                s.at()
            )
        }
    };
    unknown(rules.irsa.unknown_role, s, text, out);
    None
}

/// `, or use a role the rules know (in account 111122223333: app, api)`: up to three roles of
/// the rules' `irsa.trustPolicies` in the role's account and partition, the name nearest the
/// annotation's first (a typo shows as the first); empty when there are none.
fn known_roles(rules: &RuleSet, role: &RoleArn) -> String {
    // The keys are ARNs as `RoleArn::arn` writes them: those of other accounts are passed
    // over by their text, unparsed.
    let same_account = format!("arn:{}:iam::{}:role/", role.partition, role.account);
    let mut known: Vec<(usize, String)> = rules
        .irsa
        .trust_policies
        .keys()
        .filter(|arn| arn.starts_with(&same_account))
        .filter_map(|arn| RoleArn::parse(arn).ok())
        .map(|k| {
            let name = format!("{}{}", k.path.trim_start_matches('/'), k.name);
            let distance = crate::suggest::edit_distance(&role.name, &k.name);
            (distance, name)
        })
        .collect();
    if known.is_empty() {
        return String::new();
    }
    known.sort();
    let names: Vec<&str> = known.iter().take(3).map(|(_, n)| n.as_str()).collect();
    let more = if known.len() > 3 { ", …" } else { "" };
    format!(
        ", or use a role the rules know (in account {}: {}{more})",
        role.account,
        names.join(", ")
    )
}

/// Denies an annotation whose ARN IAM writes with another path or letter case.
fn report_arn_difference(s: &Subject<'_>, role: &IamRole, out: &mut Findings) {
    if let Some(what) = arn_difference(&s.role, &role.arn) {
        let message = format!("{}: IAM names this role {}; the annotation differs only in its {what}, and pods would ask STS for a role ARN that IAM does not use; write {} exactly", s.at(), role.arn, role.arn);
        out.violations
            .push(s.violation(Reason::RoleArnInvalid, message));
    }
}

/// How IAM's ARN for the role differs from the annotation: in its `partition` or `account`
/// (the caller reads IAM in the annotation's partition and account only, so these are
/// defensive), `path`, `letter case`.
fn arn_difference(annotation: &RoleArn, iam_arn: &str) -> Option<String> {
    let iam = RoleArn::parse(iam_arn).ok()?;
    if iam == *annotation {
        return None;
    }
    let path_differs = !iam.path.eq_ignore_ascii_case(&annotation.path);
    let case_differs =
        iam.name != annotation.name || (!path_differs && iam.path != annotation.path);
    let parts: Vec<&str> = [
        (iam.partition != annotation.partition, "partition"),
        (iam.account != annotation.account, "account"),
        (path_differs, "path"),
        (case_differs, "letter case"),
    ]
    .into_iter()
    .filter_map(|(differs, what)| differs.then_some(what))
    .collect();
    match parts.split_last() {
        Some((last, [])) => Some(last.to_string()),
        Some((last, rest)) => Some(format!("{} and {last}", rest.join(", "))),
        None => None,
    }
}

/// `sts:AssumeRoleWithWebIdentity` for this ServiceAccount, then the OIDC provider.
fn web_identity(
    rules: &RuleSet,
    s: &Subject<'_>,
    audience: &str,
    (policy, origin): (&TrustPolicy, Origin),
    facts: &Facts,
    out: &mut Findings,
) {
    let irsa = &rules.irsa;
    let Some(issuer) = irsa.issuer.as_deref() else {
        out.warnings.push(Warning::new(format!("{}: cannot verify the trust policy because irsa.issuer (this cluster's OIDC issuer) is not set in the rules", s.at())));
        return;
    };
    let who = WebIdentity {
        role: &s.role,
        issuer,
        namespace: s.namespace,
        service_account: s.name,
        audience,
    };
    let copy = match origin {
        Origin::Rules => {
            " and to its copy under irsa.trustPolicies in the rules, which must match IAM"
        }
        Origin::Iam => "",
    };
    s.report_trust(
        trust::evaluate_web_identity(policy, &who),
        format_args!(""),
        format_args!(
            "add this statement to the role's trust policy in IAM{copy} (or use a role that trusts `system:serviceaccount:{}:{}`)",
            s.namespace, s.name
        ),
        format_args!("the role's trust policy"),
        out,
    );
    provider::check(rules, facts, s, &who, out);
}

/// The rule's `unknownRole` verdict, with `text` as the message.
fn unknown(verdict: UnknownRole, s: &Subject<'_>, text: String, out: &mut Findings) {
    match verdict {
        UnknownRole::Deny => out.violations.push(s.violation(Reason::RoleUnknown, text)),
        UnknownRole::Warn => out
            .warnings
            .push(Warning::with_reason(Reason::RoleUnknown, text)),
        UnknownRole::Allow => {}
    }
}

#[cfg(test)]
mod tests;
