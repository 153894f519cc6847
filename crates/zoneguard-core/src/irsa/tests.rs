//! ServiceAccount checks with IAM facts: live trust policies, "cannot verify", missing roles,
//! ARN differences, OIDC providers and role chains.

use super::*;
use crate::trust::permission::PermissionPolicy;
use serde_json::json;

const ISSUER: &str = "oidc.eks.us-east-1.amazonaws.com/id/ABC";
const ROLE: &str = "arn:aws:iam::111122223333:role/external-dns";
const TARGET: &str = "arn:aws:iam::444455556666:role/dns";
const PROVIDER: &str =
    "arn:aws:iam::111122223333:oidc-provider/oidc.eks.us-east-1.amazonaws.com/id/ABC";

fn rules(extra: &str) -> RuleSet {
    let text = format!("irsa:\n  issuer: {ISSUER}\n  source: iam\n{extra}");
    RuleSet::parse("r", &text).unwrap_or_else(|e| panic!("{e:?}"))
}

fn chain_rules(extra: &str) -> RuleSet {
    rules(&format!(
        "  chains:\n    - serviceAccount: external-dns/external-dns\n      assumes: {TARGET}\n{extra}"
    ))
}

fn sa(arn: &str) -> serde_json::Value {
    json!({"apiVersion": "v1", "kind": "ServiceAccount",
        "metadata": {"name": "external-dns", "annotations": {ROLE_ARN: arn}}})
}

fn arn(text: &str) -> RoleArn {
    RoleArn::parse(text).unwrap_or_else(|e| panic!("{e}"))
}

fn web_identity_policy(sub: &str) -> String {
    json!({"Version": "2012-10-17", "Statement": [{"Effect": "Allow",
        "Principal": {"Federated": PROVIDER},
        "Action": "sts:AssumeRoleWithWebIdentity",
        "Condition": {"StringEquals": {format!("{ISSUER}:sub"): sub, format!("{ISSUER}:aud"): "sts.amazonaws.com"}}}]})
    .to_string()
}

fn trusting_role(arn_text: &str) -> Lookup<IamRole> {
    Lookup::Found(IamRole::from_get_role(
        arn_text,
        &web_identity_policy("system:serviceaccount:external-dns:external-dns"),
    ))
}

fn facts_with_role(lookup: Lookup<IamRole>) -> Facts {
    let mut facts = Facts {
        resolved: true,
        ..Facts::default()
    };
    facts.insert_role(&arn(ROLE), lookup);
    facts
}

fn run(rules: &RuleSet, facts: &Facts) -> Findings {
    run_on(rules, &sa(ROLE), facts)
}

/// `check_with` on `object` as the ServiceAccount external-dns/external-dns.
fn run_on(rules: &RuleSet, object: &serde_json::Value, facts: &Facts) -> Findings {
    check_with(
        rules,
        "external-dns",
        "external-dns",
        &Node::from(object),
        facts,
    )
}

fn reasons(f: &Findings) -> Vec<Reason> {
    f.violations.iter().map(|v| v.reason).collect()
}

#[test]
fn a_live_trust_policy_is_evaluated_percent_encoded_or_not() {
    let encoded: String = percent_encoding::utf8_percent_encode(
        &web_identity_policy("system:serviceaccount:external-dns:external-dns"),
        percent_encoding::NON_ALPHANUMERIC,
    )
    .to_string();
    let f = run(
        &rules(""),
        &facts_with_role(Lookup::Found(IamRole::from_get_role(ROLE, &encoded))),
    );
    assert!(f.violations.is_empty() && f.warnings.is_empty(), "{f:?}");
    let other = Lookup::Found(IamRole::from_get_role(
        ROLE,
        &web_identity_policy("system:serviceaccount:kube-system:external-dns"),
    ));
    let f = run(&rules(""), &facts_with_role(other));
    assert_eq!(reasons(&f), [Reason::RoleNotTrusted]);
    assert!(
        f.violations[0]
            .message()
            .contains("admits `system:serviceaccount:kube-system:external-dns`"),
        "{f:?}"
    );
}

#[test]
fn static_trust_policies_win_over_iam() {
    let extra = format!(
        "  trustPolicies:\n    {ROLE}: '{}'\n",
        web_identity_policy("system:serviceaccount:external-dns:external-dns")
    );
    let f = run(
        &rules(&extra),
        &facts_with_role(Lookup::Unavailable("timed out".into())),
    );
    assert!(f.violations.is_empty() && f.warnings.is_empty(), "{f:?}");
}

#[test]
fn unavailable_gives_the_unknown_role_verdict_saying_why() {
    let facts = facts_with_role(Lookup::Unavailable("IAM did not answer within 1s".into()));
    let f = run(&rules(""), &facts);
    assert!(f.violations.is_empty());
    assert!(
        f.warnings[0].message().contains("cannot verify: zoneguard could not read the role from IAM (IAM did not answer within 1s)"),
        "{f:?}"
    );
    // Warn mode's warning carries the reason code deny mode's violation would.
    assert_eq!(f.warnings[0].reason, Some(Reason::RoleUnknown), "{f:?}");
    let f = run(&rules("  unknownRole: deny\n"), &facts);
    assert_eq!(reasons(&f), [Reason::RoleUnknown]);
    let f = run(&rules("  unknownRole: allow\n"), &facts);
    assert!(f.violations.is_empty() && f.warnings.is_empty());
}

#[test]
fn iam_mode_without_facts_says_iam_was_not_read() {
    let f = check(
        &rules(""),
        "external-dns",
        "external-dns",
        &Node::from(&sa(ROLE)),
    );
    assert!(
        f.warnings[0].message().contains("without reading IAM"),
        "{f:?}"
    );
}

#[test]
fn a_missing_role_is_denied() {
    let f = run(
        &rules(""),
        &facts_with_role(Lookup::NotFound("no such role".into())),
    );
    assert_eq!(reasons(&f), [Reason::RoleUnknown]);
    assert!(
        f.violations[0]
            .message()
            .contains("role external-dns does not exist in account 111122223333"),
        "{f:?}"
    );
}

#[test]
fn an_arn_differing_in_path_or_case_is_reported_as_such() {
    let rows = [
        ("arn:aws:iam::111122223333:role/team/external-dns", "path"),
        ("arn:aws:iam::111122223333:role/External-DNS", "letter case"),
        (
            "arn:aws:iam::111122223333:role/Team/External-DNS",
            "path and letter case",
        ),
        (
            "arn:aws-cn:iam::111122223333:role/external-dns",
            "partition",
        ),
        (
            "arn:aws-us-gov:iam::111122223333:role/Team/External-DNS",
            "partition, path and letter case",
        ),
    ];
    for (iam_arn, what) in rows {
        let f = run(&rules(""), &facts_with_role(trusting_role(iam_arn)));
        assert_eq!(reasons(&f), [Reason::RoleArnInvalid], "{iam_arn}");
        let m = &f.violations[0].message();
        assert!(
            m.contains(&format!("differs only in its {what},")) && m.contains(iam_arn),
            "{m}"
        );
    }
    let f = run(&rules(""), &facts_with_role(trusting_role(ROLE)));
    assert!(f.violations.is_empty(), "{f:?}");
}

#[test]
fn spaces_around_the_arn_are_invalid_and_only_an_empty_value_means_no_role() {
    // The pod identity webhook hands the value to the pods as it is: a role ARN with a
    // newline from a YAML block scalar names no role at STS.
    let facts = facts_with_role(trusting_role(ROLE));
    let check = |value: &str| run_on(&rules(""), &sa(value), &facts);
    for value in [
        &format!("{ROLE}\n"),
        &format!(" {ROLE}"),
        &format!("{ROLE}\t"),
        "   ",
    ] {
        let f = check(value);
        assert_eq!(reasons(&f), [Reason::RoleArnInvalid], "{value:?}");
        assert!(
            f.violations[0].message().contains("whitespace")
                || f.violations[0]
                    .message()
                    .contains("remove the trailing newline"),
            "{f:?}"
        );
    }
    let f = check("");
    assert!(f.violations.is_empty() && f.warnings.is_empty(), "{f:?}");
    assert!(check(ROLE).violations.is_empty());
}

#[test]
fn an_empty_audience_is_invalid_whatever_the_trust_policy_says() {
    // The pod identity webhook copies an empty annotation as it is; the token then carries the
    // API server's own audience, which STS refuses.
    let facts = facts_with_role(trusting_role(ROLE));
    let check = |audience: Option<&str>| {
        let mut object = sa(ROLE);
        if let Some(audience) = audience {
            object["metadata"]["annotations"][AUDIENCE] = json!(audience);
        }
        run_on(&rules(""), &object, &facts)
    };
    for empty in ["", "  "] {
        let f = check(Some(empty));
        assert_eq!(reasons(&f), [Reason::AnnotationInvalid], "{empty:?}");
        let v = &f.violations[0];
        assert_eq!(
            v.field,
            r#"metadata.annotations["eks.amazonaws.com/audience"]"#
        );
        assert!(
            v.message().contains("is empty")
                && v.message().contains("Incorrect token audience")
                && v.message()
                    .contains("remove the annotation (the audience is then sts.amazonaws.com)"),
            "{}",
            v.message()
        );
    }
    assert!(check(None).violations.is_empty());
    assert!(check(Some("sts.amazonaws.com")).violations.is_empty());
    let other = check(Some("vault"));
    assert_eq!(reasons(&other), [Reason::RoleNotTrusted]);
}

#[test]
fn a_service_account_with_only_a_generate_name_is_a_warning_not_a_verdict() {
    let facts = facts_with_role(trusting_role(ROLE));
    let object = sa(ROLE);
    let f = check_with(&rules(""), "external-dns", "", &Node::from(&object), &facts);
    assert!(f.violations.is_empty(), "{f:?}");
    assert_eq!(f.warnings.len(), 1, "{f:?}");
    assert!(
        f.warnings[0]
            .message()
            .contains("no name (only generateName)"),
        "{f:?}"
    );
}

fn with_provider(lookup: Lookup<OidcProvider>) -> Facts {
    let mut facts = facts_with_role(trusting_role(ROLE));
    facts.insert_provider(PROVIDER, lookup);
    facts
}

#[test]
fn the_provider_check_names_the_fix() {
    let r = rules("  checkProvider: true\n");
    let ok = OidcProvider {
        client_ids: vec!["sts.amazonaws.com".into()],
    };
    assert!(run(&r, &with_provider(Lookup::Found(ok)))
        .violations
        .is_empty());
    let f = run(&r, &with_provider(Lookup::NotFound("missing".into())));
    assert_eq!(reasons(&f), [Reason::RoleNotTrusted]);
    assert!(
        f.violations[0]
            .message()
            .contains("has no IAM OIDC provider")
            && f.violations[0]
                .message()
                .contains("associate-iam-oidc-provider"),
        "{f:?}"
    );
    let other = OidcProvider {
        client_ids: vec!["other".into()],
    };
    let f = run(&r, &with_provider(Lookup::Found(other)));
    assert!(
        f.violations[0].message().contains(
            "does not list the audience `sts.amazonaws.com` among its client IDs (it lists other)"
        ) && f.violations[0]
            .message()
            .contains("add-client-id-to-open-id-connect-provider"),
        "{f:?}"
    );
    let f = run(&r, &with_provider(Lookup::Unavailable("throttled".into())));
    assert!(
        f.warnings[0]
            .message()
            .contains("cannot verify the OIDC provider"),
        "{f:?}"
    );
    let f = run(&rules(""), &with_provider(Lookup::NotFound("x".into())));
    assert!(f.violations.is_empty(), "checkProvider is off: {f:?}");
}

fn chain_facts(target_trusts: &str, permission: Option<serde_json::Value>) -> Facts {
    chain_facts_with(
        target_trusts,
        permission.into_iter().map(assume_dns).collect(),
    )
}

/// `chain_facts` with one more policy on the IRSA role (a boundary, or one zoneguard cannot
/// read) after `permission`.
fn chain_facts_plus(permission: Option<serde_json::Value>, extra: NamedPolicy) -> Facts {
    let policies = permission.into_iter().map(assume_dns).chain([extra]);
    chain_facts_with(ROLE, policies.collect())
}

/// The IRSA role trusted and holding `policies`; the target trusting `target_trusts`.
fn chain_facts_with(target_trusts: &str, policies: Vec<NamedPolicy>) -> Facts {
    let mut facts = facts_with_role(trusting_role(ROLE));
    facts.insert_permissions(&arn(ROLE), Lookup::Found(policies));
    let trusts =
        json!({"Effect": "Allow", "Principal": {"AWS": target_trusts}, "Action": "sts:AssumeRole"});
    with_target_trust(facts, trusts)
}

fn assume_dns(policy: serde_json::Value) -> NamedPolicy {
    NamedPolicy {
        name: "inline policy assume-dns".into(),
        document: PermissionPolicy::from_value(&policy),
        boundary: false,
    }
}

/// The target's trust policy, `statement` its only statement.
fn with_target_trust(mut facts: Facts, statement: serde_json::Value) -> Facts {
    let trust = json!({"Version": "2012-10-17", "Statement": statement});
    facts.insert_role(
        &arn(TARGET),
        Lookup::Found(IamRole::from_get_role(TARGET, &trust.to_string())),
    );
    facts
}

fn allow_assume(resource: &str) -> Option<serde_json::Value> {
    Some(
        json!({"Version": "2012-10-17", "Statement": {"Effect": "Allow", "Action": "sts:AssumeRole", "Resource": resource}}),
    )
}

#[test]
fn a_whole_chain_is_admitted() {
    let f = run(&chain_rules(""), &chain_facts(ROLE, allow_assume(TARGET)));
    assert!(f.violations.is_empty() && f.warnings.is_empty(), "{f:?}");
    let f = run(
        &chain_rules(""),
        &chain_facts("111122223333", allow_assume("*")),
    );
    assert!(f.violations.is_empty() && f.warnings.is_empty(), "{f:?}");
}

#[test]
fn a_chain_broken_on_the_target_side_is_denied_naming_the_side_and_statement() {
    let f = run(
        &chain_rules(""),
        &chain_facts("arn:aws:iam::111122223333:role/other", allow_assume(TARGET)),
    );
    assert_eq!(reasons(&f), [Reason::RoleNotTrusted]);
    let m = &f.violations[0].message();
    assert!(m.contains("broken on the target side"), "{m}");
    assert!(
        m.contains(r#"{"Effect":"Allow","Principal":{"AWS":"arn:aws:iam::111122223333:role/external-dns"},"Action":"sts:AssumeRole"}"#),
        "{m}"
    );
}

#[test]
fn a_chain_broken_on_the_irsa_side_is_denied_naming_the_side_and_statement() {
    let f = run(
        &chain_rules(""),
        &chain_facts(ROLE, allow_assume("arn:aws:iam::444455556666:role/other")),
    );
    assert_eq!(reasons(&f), [Reason::RoleNotTrusted]);
    let m = &f.violations[0].message();
    assert!(m.contains("broken on the IRSA role's side"), "{m}");
    assert!(m.contains("(it has inline policy assume-dns)"), "{m}");
    assert!(
        m.contains(r#"{"Effect":"Allow","Action":"sts:AssumeRole","Resource":"arn:aws:iam::444455556666:role/dns"}"#),
        "{m}"
    );
    let f = run(&chain_rules(""), &chain_facts(ROLE, None));
    assert!(
        f.violations[0]
            .message()
            .contains("it has no permission policies"),
        "{f:?}"
    );
}

const BOUNDARY: &str = "arn:aws:iam::111122223333:policy/team-boundary";

#[test]
fn a_permissions_boundary_caps_what_the_irsa_role_may_assume() {
    let statements =
        |s: serde_json::Value| json!({"Version": "2012-10-17", "Statement": s}).to_string();
    let allow_all = statements(json!({"Effect": "Allow", "Action": "*", "Resource": "*"}));
    let s3_only = statements(json!({"Effect": "Allow", "Action": "s3:*", "Resource": "*"}));
    let no_chains = statements(json!([
        {"Effect": "Allow", "Action": "*", "Resource": "*"},
        {"Sid": "NoChains", "Effect": "Deny", "Action": "sts:AssumeRole", "Resource": "*"}
    ]));
    let cases: [(&str, Option<serde_json::Value>, &str, &[&str]); 5] = [
        ("a boundary that allows it", allow_assume(TARGET), &allow_all, &[]),
        (
            "a boundary without sts:AssumeRole",
            allow_assume(TARGET),
            &s3_only,
            &[
                "broken on the IRSA role's side: its permissions boundary arn:aws:iam::111122223333:policy/team-boundary does not allow sts:AssumeRole on arn:aws:iam::444455556666:role/dns",
                r#"{"Effect":"Allow","Action":"sts:AssumeRole","Resource":"arn:aws:iam::444455556666:role/dns"}"#,
            ],
        ),
        (
            "a boundary that denies it",
            allow_assume(TARGET),
            &no_chains,
            &["Statement[1] (Sid `NoChains`) of permissions boundary arn:aws:iam::111122223333:policy/team-boundary denies sts:AssumeRole"],
        ),
        (
            "no policy allows it: the policies are named, not the boundary",
            None,
            &allow_all,
            &["it has no permission policies"],
        ),
        (
            "a boundary denying what no policy allows: one denial, for the policies",
            None,
            &s3_only,
            &["it has no permission policies"],
        ),
    ];
    for (case, permission, boundary, wanted) in cases {
        let f = run(
            &chain_rules(""),
            &chain_facts_plus(permission, NamedPolicy::boundary(BOUNDARY, boundary)),
        );
        assert!(f.warnings.is_empty(), "{case}: {f:?}");
        if wanted.is_empty() {
            assert!(f.violations.is_empty(), "{case}: {f:?}");
            continue;
        }
        assert_eq!(reasons(&f), [Reason::RoleNotTrusted], "{case}: {f:?}");
        for text in wanted {
            assert!(f.violations[0].message().contains(text), "{case}: {f:?}");
        }
    }
}

#[test]
fn an_unreadable_permissions_boundary_is_cannot_verify() {
    let f = run(
        &chain_rules(""),
        &chain_facts_plus(
            allow_assume(TARGET),
            NamedPolicy::boundary(BOUNDARY, "%7B%22Statement"),
        ),
    );
    assert!(f.violations.is_empty(), "{f:?}");
    assert!(
        f.warnings[0].message().contains("IRSA role side: IAM returned a permissions boundary arn:aws:iam::111122223333:policy/team-boundary zoneguard cannot read (the percent-decoded permission policy is not valid JSON"),
        "{f:?}"
    );
}

#[test]
fn an_unreadable_permission_policy_leaves_only_an_allow_or_a_deny_as_an_answer() {
    let deny = json!({"Version": "2012-10-17", "Statement": {"Effect": "Deny",
        "Action": "sts:AssumeRole", "Resource": "*"}});
    // (case, the readable policy, the denial's reasons, the warning)
    type Case = (
        &'static str,
        Option<serde_json::Value>,
        &'static [Reason],
        Option<&'static str>,
    );
    let cases: [Case; 3] = [
        ("a readable policy allows it", allow_assume(TARGET), &[], None),
        (
            "a readable policy denies it",
            Some(deny),
            &[Reason::RoleNotTrusted],
            None,
        ),
        (
            "nothing readable allows it: the unreadable one might",
            None,
            &[],
            Some("IRSA role side: IAM returned permission policies zoneguard cannot read (inline policy garbled: "),
        ),
    ];
    for (case, permission, wanted, warning) in cases {
        let garbled = NamedPolicy::from_document("inline policy garbled".into(), "%7B%22Statement");
        let f = run(&chain_rules(""), &chain_facts_plus(permission, garbled));
        assert_eq!(reasons(&f), wanted, "{case}: {f:?}");
        match warning {
            Some(text) => assert!(
                f.warnings.len() == 1 && f.warnings[0].message().contains(text),
                "{case}: {f:?}"
            ),
            None => assert!(f.warnings.is_empty(), "{case}: {f:?}"),
        }
    }
}

#[test]
fn chain_lookups_that_fail_are_cannot_verify() {
    let mut facts = chain_facts(ROLE, allow_assume(TARGET));
    facts.insert_role(
        &arn(TARGET),
        Lookup::Unavailable(
            "no reader role for account 444455556666 in irsa.accountReaders".into(),
        ),
    );
    facts.insert_permissions(&arn(ROLE), Lookup::Unavailable("throttled".into()));
    let f = run(&chain_rules(""), &facts);
    assert!(f.violations.is_empty(), "{f:?}");
    assert_eq!(f.warnings.len(), 2, "{f:?}");
    assert!(
        f.warnings[0]
            .message()
            .contains("target side: zoneguard could not read the role from IAM (no reader role"),
        "{f:?}"
    );
    assert!(
        f.warnings[1]
            .message()
            .contains("IRSA role side: zoneguard could not read the permission policies"),
        "{f:?}"
    );
    facts.insert_role(&arn(TARGET), Lookup::NotFound("x".into()));
    let f = run(&chain_rules(""), &facts);
    assert!(
        f.violations[0]
            .message()
            .contains("role dns does not exist in account 444455556666"),
        "{f:?}"
    );
}

#[test]
fn chains_apply_only_to_their_service_account() {
    let facts = chain_facts("arn:aws:iam::111122223333:role/other", None);
    let f = check_with(
        &chain_rules(""),
        "default",
        "external-dns",
        &Node::from(&sa(ROLE)),
        &facts,
    );
    assert!(
        f.violations
            .iter()
            .all(|v| !v.message().contains("role chain")),
        "{f:?}"
    );
}

#[test]
fn both_trust_checks_word_a_denial_and_an_unverifiable_condition_in_full() {
    let at = format!("{}: ", At(ROLE));
    let statement = "; add this statement to the role's trust policy in IAM (or use a role that trusts `system:serviceaccount:external-dns:external-dns`):\n  {";
    let role = Lookup::Found(IamRole::from_get_role(
        ROLE,
        &web_identity_policy("system:serviceaccount:other:other"),
    ));
    let f = run(&rules(""), &facts_with_role(role));
    let m = &f.violations[0].message();
    assert!(m.starts_with(&at) && m.contains(statement), "{m}");
    let on_source_ip = json!({"Version": "2012-10-17", "Statement": {"Effect": "Allow",
        "Principal": {"Federated": PROVIDER}, "Action": "sts:AssumeRoleWithWebIdentity",
        "Condition": {"IpAddress": {"aws:SourceIp": "10.0.0.0/8"}}}});
    let role = Lookup::Found(IamRole::from_get_role(ROLE, &on_source_ip.to_string()));
    let f = run(&rules(""), &facts_with_role(role));
    let want = format!(
        "{at}zoneguard cannot verify the role's trust policy ({}): ",
        Reason::RoleUnverifiable
    );
    assert_unverifiable(&f, &want);

    let broken = format!("{at}the role chain to {TARGET} (irsa.chains) is broken on the target side: the trust policy of {TARGET} does not let {ROLE} call sts:AssumeRole: ");
    let statement = format!("; add this statement to the trust policy of {TARGET}:\n  {{");
    let other = json!({"Effect": "Allow", "Principal": {"AWS": "arn:aws:iam::111122223333:role/other"}, "Action": "sts:AssumeRole"});
    let f = run(
        &chain_rules(""),
        &with_target_trust(chain_facts(ROLE, allow_assume(TARGET)), other),
    );
    let m = &f.violations[0].message();
    assert!(m.starts_with(&broken) && m.contains(&statement), "{m}");

    let on_source_ip = json!({"Effect": "Allow", "Principal": {"AWS": ROLE}, "Action": "sts:AssumeRole",
        "Condition": {"IpAddress": {"aws:SourceIp": "10.0.0.0/8"}}});
    let f = run(
        &chain_rules(""),
        &with_target_trust(chain_facts(ROLE, allow_assume(TARGET)), on_source_ip),
    );
    let want = format!(
        "{at}zoneguard cannot verify the role chain to {TARGET}, target side ({}): ",
        Reason::RoleUnverifiable
    );
    assert!(f.violations.is_empty(), "{f:?}");
    assert_unverifiable(&f, &want);
}

/// `f`'s first warning begins `want` and carries the reason code its text gives, for tools.
fn assert_unverifiable(f: &Findings, want: &str) {
    assert!(f.warnings[0].message().starts_with(want), "{f:?}");
    assert_eq!(
        f.warnings[0].reason,
        Some(Reason::RoleUnverifiable),
        "{f:?}"
    );
    assert_eq!(f.warnings[0].admitted, None, "{f:?}");
}

/// What one side's check said: a denial's reason and message, or a warning.
fn only_finding(f: &Findings) -> (Option<Reason>, String) {
    match (&f.violations[..], &f.warnings[..]) {
        ([v], []) => (Some(v.reason), v.message()),
        ([], [w]) => (None, w.to_string()),
        _ => panic!("one finding expected: {f:?}"),
    }
}

#[test]
fn each_way_a_trust_policy_is_missing_is_worded_by_the_side_that_misses_it() {
    let at = format!("{}: ", At(ROLE));
    let head = format!("{at}cannot verify the role chain to {TARGET} (irsa.chains), target side: ");
    let unreadable = |arn: &str| Lookup::Found(IamRole::from_get_role(arn, "%7B%22Statement"));
    let trusted = web_identity_policy("system:serviceaccount:external-dns:external-dns");
    let static_rules = |extra: &str| {
        let text = format!("irsa:\n  issuer: {ISSUER}\n  source: static\n{extra}");
        RuleSet::parse("r", &text).unwrap_or_else(|e| panic!("{e:?}"))
    };
    let static_chain = static_rules(&format!(
        "  trustPolicies:\n    {ROLE}: '{trusted}'\n  chains:\n    - serviceAccount: external-dns/external-dns\n      assumes: {TARGET}\n"
    ));
    let chain_without = |lookup: Option<Lookup<IamRole>>| {
        let mut facts = chain_facts(ROLE, allow_assume(TARGET));
        facts.roles.remove(TARGET);
        if let Some(lookup) = lookup {
            facts.insert_role(&arn(TARGET), lookup);
        }
        facts
    };
    // (case, the findings, the denial's reason or None for a warning, the message's start)
    let cases: [(&str, Findings, Option<Reason>, String); 10] = [
        (
            "own role, static rules without its policy",
            run(&static_rules(""), &Facts::none()),
            None,
            format!("{at}zoneguard does not know this role's trust policy, so it cannot tell whether pods will get the role; ask the platform team to add the role's trust policy under irsa.trustPolicies"),
        ),
        (
            "own role, IAM expected but not read",
            run(&rules(""), &Facts::none()),
            None,
            format!("{at}cannot verify: irsa.source is iam, but this check ran without reading IAM (for `zoneguard check`, add --iam)"),
        ),
        (
            "own role, IAM unavailable",
            run(&rules(""), &facts_with_role(Lookup::Unavailable("throttled".into()))),
            None,
            format!("{at}cannot verify: zoneguard could not read the role from IAM (throttled)"),
        ),
        (
            "own role, not in IAM",
            run(&rules(""), &facts_with_role(Lookup::NotFound("no such role".into()))),
            Some(Reason::RoleUnknown),
            format!("{at}role external-dns does not exist in account 111122223333 (IAM GetRole: NoSuchEntity)"),
        ),
        (
            "own role, trust policy unreadable",
            run(&rules(""), &facts_with_role(unreadable(ROLE))),
            None,
            format!("{at}cannot verify: IAM returned a trust policy zoneguard cannot read ("),
        ),
        (
            "chain target, static rules without its policy",
            run(&static_chain, &Facts::none()),
            None,
            format!("{head}its trust policy is not under irsa.trustPolicies and irsa.source is static"),
        ),
        (
            "chain target, not read",
            run(&chain_rules(""), &chain_without(None)),
            None,
            format!("{head}this check ran without reading IAM"),
        ),
        (
            "chain target, IAM unavailable",
            run(&chain_rules(""), &chain_without(Some(Lookup::Unavailable("throttled".into())))),
            None,
            format!("{head}zoneguard could not read the role from IAM (throttled)"),
        ),
        (
            "chain target, not in IAM",
            run(&chain_rules(""), &chain_without(Some(Lookup::NotFound("x".into())))),
            Some(Reason::RoleNotTrusted),
            format!("{at}the role chain to {TARGET} (irsa.chains) is broken on the target side: role dns does not exist in account 444455556666; create it or fix irsa.chains"),
        ),
        (
            "chain target, trust policy unreadable",
            run(&chain_rules(""), &chain_without(Some(unreadable(TARGET)))),
            None,
            format!("{head}IAM returned a trust policy zoneguard cannot read ("),
        ),
    ];
    for (case, findings, reason, start) in &cases {
        let (got, message) = only_finding(findings);
        assert_eq!(got, *reason, "{case}: {findings:?}");
        assert!(message.starts_with(start.as_str()), "{case}: {message}");
    }
}

#[test]
fn a_denial_by_a_policy_from_the_rules_asks_to_mend_iam_and_the_rules_copy() {
    let policy = |sub: &str| format!("    {ROLE}: '{}'\n", web_identity_policy(sub));
    let text = |policies: &str| {
        format!("irsa:\n  issuer: {ISSUER}\n  source: static\n  trustPolicies:\n{policies}")
    };
    let static_rules =
        |policies: &str| RuleSet::parse("r", &text(policies)).unwrap_or_else(|e| panic!("{e:?}"));
    let f = run(
        &static_rules(&policy("system:serviceaccount:other:other")),
        &Facts::none(),
    );
    let m = &f.violations[0].message();
    assert!(
        m.contains("; add this statement to the role's trust policy in IAM and to its copy under irsa.trustPolicies in the rules, which must match IAM (or use a role that trusts `system:serviceaccount:external-dns:external-dns`):\n  {\"Effect\""),
        "{m}"
    );
    assert_eq!(m.matches(ROLE).count(), 1, "the ARN is named once: {m}");
}

#[test]
fn an_unknown_role_lists_the_known_roles_of_its_account_nearest_first() {
    let sub = "system:serviceaccount:x:y";
    let known = |names: &[&str]| {
        let policies: String = names
            .iter()
            .map(|n| format!("    {n}: '{}'\n", web_identity_policy(sub)))
            .collect();
        let text = format!("irsa:\n  issuer: {ISSUER}\n  source: static\n  unknownRole: deny\n  trustPolicies:\n{policies}");
        RuleSet::parse("r", &text).unwrap_or_else(|e| panic!("{e:?}"))
    };
    let table: [(&[&str], &str); 4] = [
        (
            &[
                "arn:aws:iam::111122223333:role/api",
                "arn:aws:iam::111122223333:role/external-dsn",
                "arn:aws:iam::444455556666:role/external-dns",
            ],
            ", or use a role the rules know (in account 111122223333: external-dsn, api)",
        ),
        (
            &[
                "arn:aws:iam::111122223333:role/a",
                "arn:aws:iam::111122223333:role/team/b",
                "arn:aws:iam::111122223333:role/external-dn",
                "arn:aws:iam::111122223333:role/zzzzzzzzzzzzzzzzzzzzzzzzzzzzzzz",
            ],
            ", or use a role the rules know (in account 111122223333: external-dn, a, team/b, …)",
        ),
        (&["arn:aws:iam::444455556666:role/external-dns"], ""),
        (&[], ""),
    ];
    for (names, hint) in table {
        let f = run(&known(names), &Facts::none());
        let m = &f.violations[0].message();
        let want = format!("ask the platform team to add the role's trust policy under irsa.trustPolicies in the rules{hint}");
        assert!(m.ends_with(&want), "{names:?}: {m}");
    }
}
