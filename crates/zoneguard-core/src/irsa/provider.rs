//! `irsa.checkProvider`: the role's account has an IAM OIDC provider for this cluster's
//! issuer, and it lists the audience among its client IDs: the two STS failures a trust
//! policy alone cannot show.

use super::{unknown, Findings, Lookup, Subject};
use crate::irsa::Facts;
use crate::rules::RuleSet;
use crate::trust::WebIdentity;
use crate::verdict::Reason;

pub(super) fn check(
    rules: &RuleSet,
    facts: &Facts,
    s: &Subject<'_>,
    who: &WebIdentity<'_>,
    out: &mut Findings,
) {
    if !rules.irsa.check_provider || !s.live {
        return;
    }
    let arn = who.provider_arn();
    let issuer = who.issuer.strip_prefix("https://").unwrap_or(who.issuer);
    let verdict = rules.irsa.unknown_role;
    match facts.provider(&arn) {
        None => {
            let text = format!(
                "{}: cannot verify the OIDC provider {arn}: this check ran without reading IAM",
                s.at()
            );
            unknown(verdict, s, text, out);
        }
        Some(Lookup::Unavailable(why)) => {
            let text = format!("{}: cannot verify the OIDC provider {arn}: zoneguard could not read it from IAM ({why})", s.at());
            unknown(verdict, s, text, out);
        }
        Some(Lookup::NotFound(_)) => {
            let message = format!("{}: account {} has no IAM OIDC provider for this cluster's issuer {issuer}, so STS refuses every web identity token for this role; create {arn} (eksctl utils associate-iam-oidc-provider --cluster <cluster> --approve, or aws iam create-open-id-connect-provider --url https://{issuer} --client-id-list {})", s.at(), s.role.account, who.audience);
            out.violations
                .push(s.violation(Reason::RoleNotTrusted, message));
        }
        Some(Lookup::Found(provider)) if !provider.client_ids.iter().any(|c| c == who.audience) => {
            let listed = if provider.client_ids.is_empty() {
                "it lists none".to_string()
            } else {
                format!("it lists {}", provider.client_ids.join(", "))
            };
            let message = format!("{}: the IAM OIDC provider {arn} does not list the audience `{}` among its client IDs ({listed}), so STS refuses the token; add it (aws iam add-client-id-to-open-id-connect-provider --open-id-connect-provider-arn {arn} --client-id {})", s.at(), who.audience, who.audience);
            out.violations
                .push(s.violation(Reason::RoleNotTrusted, message));
        }
        Some(Lookup::Found(_)) => {}
    }
}
