//! Web-identity evaluation and nearest-miss explanations.

use super::*;
use proptest::prelude::*;
use serde_json::{json, Value as Json};

const ISSUER: &str = "oidc.eks.ap-northeast-2.amazonaws.com/id/EXAMPLED539D4633E53DE1B716D3041E";
const OTHER_ISSUER: &str =
    "oidc.eks.ap-northeast-2.amazonaws.com/id/AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA";
const ROLE: &str = "arn:aws:iam::111122223333:role/external-dns";
const NS: &str = "kube-system";
const SA: &str = "external-dns";
const AUD: &str = "sts.amazonaws.com";

fn provider() -> String {
    format!("arn:aws:iam::111122223333:oidc-provider/{ISSUER}")
}

fn sub_key() -> String {
    format!("{ISSUER}:sub")
}

fn aud_key() -> String {
    format!("{ISSUER}:aud")
}

/// An Allow for this cluster's provider with the given conditions.
fn allow(condition: Json) -> Json {
    json!({"Effect": "Allow", "Principal": {"Federated": provider()},
           "Action": "sts:AssumeRoleWithWebIdentity", "Condition": condition})
}

/// The usual IRSA statement for `ns`/`sa`.
fn irsa(ns: &str, sa: &str) -> Json {
    allow(json!({"StringEquals": {
        sub_key(): format!("system:serviceaccount:{ns}:{sa}"),
        aud_key(): AUD,
    }}))
}

fn policy_of(statements: Json) -> TrustPolicy {
    TrustPolicy::from_value(&json!({"Version": "2012-10-17", "Statement": statements}))
        .unwrap_or_else(|e| panic!("{e}"))
}

fn verdict_for(policy: &TrustPolicy, ns: &str, sa: &str, aud: &str) -> TrustVerdict {
    let role = RoleArn::parse(ROLE).unwrap();
    let who = WebIdentity {
        role: &role,
        issuer: ISSUER,
        namespace: ns,
        service_account: sa,
        audience: aud,
    };
    evaluate_web_identity(policy, &who)
}

fn verdict(statements: Json) -> TrustVerdict {
    verdict_for(&policy_of(statements), NS, SA, AUD)
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Want {
    Allow,
    Deny,
    Unverifiable,
}

fn kind(v: &TrustVerdict) -> Want {
    match v {
        TrustVerdict::Allowed => Want::Allow,
        TrustVerdict::Denied(_) => Want::Deny,
        TrustVerdict::Unverifiable(_) => Want::Unverifiable,
    }
}

fn check(rows: Vec<(&str, Json, Want)>) {
    for (name, statements, want) in rows {
        let got = verdict(statements.clone());
        assert_eq!(kind(&got), want, "{name}: {got:?}\n{statements}");
    }
}

fn explanation(statements: Json) -> Miss {
    explanation_for(&policy_of(statements), NS, SA, AUD)
}

fn explanation_for(policy: &TrustPolicy, ns: &str, sa: &str, aud: &str) -> Miss {
    match verdict_for(policy, ns, sa, aud) {
        TrustVerdict::Denied(miss) => miss,
        other => panic!("expected a denial, got {other:?}"),
    }
}

use Want::{Allow as A, Deny as D, Unverifiable as U};

#[test]
fn the_usual_irsa_statement_admits_its_service_account_only() {
    check(vec![
        ("exact", json!([irsa(NS, SA)]), A),
        ("single statement object", irsa(NS, SA), A),
        ("other namespace", json!([irsa("external-dns", SA)]), D),
        ("other name", json!([irsa(NS, "other")]), D),
    ]);
    let policy = policy_of(json!([irsa(NS, SA)]));
    assert_eq!(kind(&verdict_for(&policy, NS, SA, "other-aud")), D);
}

#[test]
fn principal_forms_admit_as_sts_does() {
    let with = |principal: Json| json!({"Effect": "Allow", "Principal": principal, "Action": "sts:AssumeRoleWithWebIdentity"});
    check(vec![
        ("star", with(json!("*")), A),
        ("AWS star", with(json!({"AWS": "*"})), A),
        (
            "Federated string",
            with(json!({"Federated": provider()})),
            A,
        ),
        (
            "Federated list",
            with(json!({"Federated": ["arn:aws:iam::111122223333:oidc-provider/x", provider()]})),
            A,
        ),
        (
            "Federated case differs",
            with(json!({"Federated": provider().to_lowercase()})),
            D,
        ),
        (
            "Federated in another account",
            with(json!({"Federated": format!("arn:aws:iam::444455556666:oidc-provider/{ISSUER}")})),
            D,
        ),
        (
            "Federated star is literal",
            with(json!({"Federated": "*"})),
            D,
        ),
        (
            "Service",
            with(json!({"Service": "pods.eks.amazonaws.com"})),
            D,
        ),
        ("AWS account", with(json!({"AWS": "111122223333"})), D),
    ]);
}

#[test]
fn not_principal_never_grants() {
    check(vec![
        (
            "allow not principal",
            json!({"Effect": "Allow", "NotPrincipal": {"AWS": "arn:aws:iam::111122223333:root"}, "Action": "*"}),
            D,
        ),
        (
            "deny not principal listing us",
            json!([irsa(NS, SA), {"Effect": "Deny", "NotPrincipal": {"Federated": provider()}, "Action": "*"}]),
            A,
        ),
        (
            "deny not principal listing others",
            json!([irsa(NS, SA), {"Effect": "Deny", "NotPrincipal": {"AWS": "111122223333"}, "Action": "*"}]),
            D,
        ),
    ]);
}

#[test]
fn actions_are_case_insensitive_globs_and_not_action_excludes() {
    let with = |action: Json| json!({"Effect": "Allow", "Principal": {"Federated": provider()}, "Action": action});
    let without = |action: Json| json!({"Effect": "Allow", "Principal": {"Federated": provider()}, "NotAction": action});
    check(vec![
        ("exact", with(json!("sts:AssumeRoleWithWebIdentity")), A),
        (
            "other case",
            with(json!("STS:assumerolewithwebidentity")),
            A,
        ),
        ("service star", with(json!("sts:*")), A),
        ("prefix star", with(json!("sts:AssumeRole*")), A),
        ("star", with(json!("*")), A),
        (
            "question marks",
            with(json!("sts:AssumeRoleWith???Identity")),
            A,
        ),
        (
            "list",
            with(json!(["sts:TagSession", "sts:AssumeRoleWithWebIdentity"])),
            A,
        ),
        ("assume role only", with(json!("sts:AssumeRole")), D),
        ("other service", with(json!("iam:*")), D),
        ("not action other", without(json!("sts:AssumeRole")), A),
        ("not action ours", without(json!("sts:AssumeRoleWith*")), D),
    ]);
}

#[test]
fn an_applying_deny_beats_any_allow() {
    let deny = |condition: Json| json!({"Effect": "Deny", "Principal": "*", "Action": "sts:*", "Condition": condition});
    check(vec![
        ("deny everything", json!([irsa(NS, SA), deny(json!({}))]), D),
        ("deny first", json!([deny(json!({})), irsa(NS, SA)]), D),
        (
            "deny our namespace",
            json!([
                irsa(NS, SA),
                deny(json!({"StringLike": {sub_key(): "system:serviceaccount:kube-system:*"}}))
            ]),
            D,
        ),
        (
            "deny another namespace",
            json!([
                irsa(NS, SA),
                deny(json!({"StringLike": {sub_key(): "system:serviceaccount:default:*"}}))
            ]),
            A,
        ),
        (
            "deny on another action",
            json!([irsa(NS, SA), {"Effect": "Deny", "Principal": "*", "Action": "sts:AssumeRole"}]),
            A,
        ),
        (
            "deny with an undecidable condition",
            json!([
                irsa(NS, SA),
                deny(json!({"IpAddress": {"aws:SourceIp": "10.0.0.0/8"}}))
            ]),
            U,
        ),
        (
            "deny undecidable but no allow",
            json!([
                irsa("x", SA),
                deny(json!({"IpAddress": {"aws:SourceIp": "10.0.0.0/8"}}))
            ]),
            D,
        ),
        (
            "deny on a key only signed calls carry, which the unsigned web-identity call lacks",
            json!([
                irsa(NS, SA),
                deny(json!({"Null": {"aws:TokenIssueTime": "true"}}))
            ]),
            D,
        ),
        (
            "deny when a service calls on the pod's behalf, which it does not",
            json!([
                irsa(NS, SA),
                deny(
                    json!({"StringEquals": {"aws:CalledViaFirst": "cloudformation.amazonaws.com"}})
                )
            ]),
            A,
        ),
    ]);
}

#[test]
fn condition_operators_against_the_web_identity_keys() {
    let sub = "system:serviceaccount:kube-system:external-dns";
    let on_sub = |op: &str, v: Json| allow(json!({op: {sub_key(): v}}));
    check(vec![
        ("StringEquals", on_sub("StringEquals", json!(sub)), A),
        (
            "StringEquals list OR",
            on_sub("StringEquals", json!(["x", sub])),
            A,
        ),
        (
            "StringEquals star literal",
            on_sub("StringEquals", json!("system:serviceaccount:kube-system:*")),
            D,
        ),
        (
            "StringEquals value case",
            on_sub("StringEquals", json!(sub.to_uppercase())),
            D,
        ),
        (
            "StringEqualsIgnoreCase",
            on_sub("StringEqualsIgnoreCase", json!(sub.to_uppercase())),
            A,
        ),
        ("StringNotEquals", on_sub("StringNotEquals", json!("x")), A),
        (
            "StringNotEquals listing us",
            on_sub("StringNotEquals", json!(["x", sub])),
            D,
        ),
        (
            "StringNotEqualsIgnoreCase",
            on_sub("StringNotEqualsIgnoreCase", json!(sub.to_uppercase())),
            D,
        ),
        (
            "StringLike star spans colons",
            on_sub("StringLike", json!("system:*")),
            A,
        ),
        (
            "StringLike namespace",
            on_sub("StringLike", json!("system:serviceaccount:kube-system:*")),
            A,
        ),
        (
            "StringLike question mark",
            on_sub(
                "StringLike",
                json!("system:serviceaccount:kube-system:external-dn?"),
            ),
            A,
        ),
        (
            "StringLike whole string",
            on_sub("StringLike", json!("serviceaccount:kube-system:*")),
            D,
        ),
        (
            "StringLike other namespace",
            on_sub("StringLike", json!("system:serviceaccount:default:*")),
            D,
        ),
        (
            "StringNotLike",
            on_sub("StringNotLike", json!("system:serviceaccount:default:*")),
            A,
        ),
        (
            "StringNotLike matching",
            on_sub("StringNotLike", json!(["x", "system:*"])),
            D,
        ),
        (
            "ForAnyValue:StringEquals",
            on_sub("ForAnyValue:StringEquals", json!(sub)),
            A,
        ),
        (
            "ForAllValues:StringLike",
            on_sub("ForAllValues:StringLike", json!("system:*")),
            A,
        ),
        (
            "ForAllValues:StringEquals other",
            on_sub("ForAllValues:StringEquals", json!("x")),
            D,
        ),
        (
            "StringEqualsIfExists present",
            on_sub("StringEqualsIfExists", json!(sub)),
            A,
        ),
        (
            "StringEqualsIfExists present other",
            on_sub("StringEqualsIfExists", json!("x")),
            D,
        ),
        (
            "Null false on present key",
            on_sub("Null", json!("false")),
            A,
        ),
        ("Null true on present key", on_sub("Null", json!("true")), D),
        (
            "ArnLike on a non-ARN",
            on_sub("ArnLike", json!("arn:aws:*:*:*:*")),
            D,
        ),
        (
            "ArnNotLike on a non-ARN",
            on_sub("ArnNotLike", json!("arn:aws:*:*:*:*")),
            A,
        ),
        (
            "NumericEquals on text",
            on_sub("NumericEquals", json!("1")),
            D,
        ),
        ("Bool on text", on_sub("Bool", json!("true")), D),
        (
            "key name case",
            allow(json!({"StringEquals": {sub_key().to_uppercase(): sub}})),
            A,
        ),
        (
            "AND across keys",
            allow(json!({"StringEquals": {sub_key(): sub, aud_key(): "other"}})),
            D,
        ),
        (
            "AND across operators",
            allow(json!({"StringEquals": {sub_key(): sub}, "StringLike": {aud_key(): "sts.*"}})),
            A,
        ),
        (
            "AND across operators failing",
            allow(json!({"StringEquals": {sub_key(): sub}, "StringNotLike": {aud_key(): "sts.*"}})),
            D,
        ),
    ]);
}

#[test]
fn missing_keys_follow_the_operator_rules() {
    let absent = |op: &str, v: Json| allow(json!({op: {"accounts.google.com:oaud": v}}));
    check(vec![
        ("plain", absent("StringEquals", json!("x")), D),
        ("StringLike star", absent("StringLike", json!("*")), D),
        ("negated", absent("StringNotEquals", json!("x")), A),
        ("negated like", absent("StringNotLike", json!("x")), A),
        ("IfExists", absent("StringEqualsIfExists", json!("x")), A),
        (
            "ForAllValues",
            absent("ForAllValues:StringEquals", json!("x")),
            A,
        ),
        (
            "ForAnyValue",
            absent("ForAnyValue:StringEquals", json!("x")),
            D,
        ),
        (
            "ForAnyValue negated",
            absent("ForAnyValue:StringNotEquals", json!("x")),
            D,
        ),
        ("Null true", absent("Null", json!("true")), A),
        ("Null false", absent("Null", json!(false)), D),
        (
            "ArnLike",
            absent("ArnLike", json!("arn:aws:iam::*:role/*")),
            D,
        ),
        (
            "ArnNotEquals",
            absent("ArnNotEquals", json!("arn:aws:iam::1:role/x")),
            A,
        ),
        ("Bool", absent("Bool", json!(true)), D),
        ("NumericLessThan", absent("NumericLessThan", json!(3)), D),
        ("NumericNotEquals", absent("NumericNotEquals", json!(3)), A),
        (
            "DateLessThan",
            absent("DateLessThan", json!("2030-01-01")),
            D,
        ),
        (
            "DateLessThanIfExists",
            absent("DateLessThanIfExists", json!("2030-01-01")),
            A,
        ),
        (
            "principal keys of signed requests",
            allow(json!({"StringEquals": {"aws:PrincipalArn": "x"}})),
            D,
        ),
    ]);
}

#[test]
fn conditions_on_request_dependent_keys_are_unverifiable() {
    check(vec![
        (
            "source ip",
            allow(json!({"IpAddress": {"aws:SourceIp": "10.0.0.0/8"}})),
            U,
        ),
        (
            "not source ip",
            allow(json!({"NotIpAddress": {"aws:SourceIp": "10.0.0.0/8"}})),
            U,
        ),
        (
            "request tag",
            allow(json!({"StringEquals": {"aws:RequestTag/team": "dns"}})),
            U,
        ),
        (
            "tag keys",
            allow(json!({"ForAllValues:StringEquals": {"aws:TagKeys": ["team"]}})),
            U,
        ),
        (
            "time",
            allow(json!({"DateLessThan": {"aws:CurrentTime": "2030-01-01T00:00:00Z"}})),
            U,
        ),
        (
            "epoch",
            allow(json!({"NumericLessThan": {"aws:EpochTime": 1_900_000_000}})),
            U,
        ),
        (
            "secure transport",
            allow(json!({"Bool": {"aws:SecureTransport": true}})),
            U,
        ),
        (
            "session name",
            allow(json!({"StringLike": {"sts:RoleSessionName": "*"}})),
            U,
        ),
        (
            "null on source ip",
            allow(json!({"Null": {"aws:SourceIp": "false"}})),
            U,
        ),
        (
            "undecidable but another condition fails",
            allow(
                json!({"IpAddress": {"aws:SourceIp": "10.0.0.0/8"}, "StringEquals": {sub_key(): "x"}}),
            ),
            D,
        ),
        (
            "undecidable but another allow applies",
            json!([
                allow(json!({"IpAddress": {"aws:SourceIp": "10.0.0.0/8"}})),
                irsa(NS, SA)
            ]),
            A,
        ),
    ]);
}

#[test]
fn policy_variables_are_unverifiable_in_2012_and_literal_in_2008() {
    let statement =
        allow(json!({"StringLike": {sub_key(): "system:serviceaccount:${aws:PrincipalTag/ns}:*"}}));
    assert_eq!(kind(&verdict(statement.clone())), U);
    let old =
        TrustPolicy::from_value(&json!({"Version": "2008-10-17", "Statement": statement})).unwrap();
    assert_eq!(kind(&verdict_for(&old, NS, SA, AUD)), D);
    let unversioned = TrustPolicy::from_value(&json!({"Statement": statement})).unwrap();
    assert_eq!(kind(&verdict_for(&unversioned, NS, SA, AUD)), D);
    // In 2008 the literal text is compared, so a ServiceAccount literally named so matches.
    let literal = TrustPolicy::from_value(&json!({"Version": "2008-10-17",
        "Statement": allow(json!({"StringEquals": {sub_key(): "system:serviceaccount:kube-system:${x}"}}))})).unwrap();
    assert_eq!(kind(&verdict_for(&literal, NS, "${x}", AUD)), A);
    // Escapes are decidable.
    let escaped = allow(
        json!({"StringLike": {sub_key(): "system:serviceaccount:kube-system:external-dns${*}"}}),
    );
    assert_eq!(kind(&verdict(escaped.clone())), D);
    assert_eq!(
        kind(&verdict_for(&policy_of(escaped), NS, "external-dns*", AUD)),
        A
    );
}

#[test]
fn the_audience_comes_from_the_service_account() {
    let policy = policy_of(allow(
        json!({"StringEquals": {sub_key(): "system:serviceaccount:kube-system:external-dns", aud_key(): "vault"}}),
    ));
    assert_eq!(kind(&verdict_for(&policy, NS, SA, "vault")), A);
    assert_eq!(kind(&verdict_for(&policy, NS, SA, AUD)), D);
}

#[test]
fn a_percent_encoded_document_from_iam_evaluates_like_the_plain_one() {
    let plain = json!({"Version": "2012-10-17", "Statement": [irsa(NS, SA)]}).to_string();
    let encoded: String =
        percent_encoding::utf8_percent_encode(&plain, percent_encoding::NON_ALPHANUMERIC)
            .to_string();
    let policy = TrustPolicy::from_document(&encoded).unwrap();
    assert_eq!(policy, TrustPolicy::from_document(&plain).unwrap());
    assert_eq!(verdict_for(&policy, NS, SA, AUD), TrustVerdict::Allowed);
}

#[test]
fn a_stray_https_scheme_on_the_issuer_is_ignored() {
    let role = RoleArn::parse(ROLE).unwrap();
    let issuer = format!("https://{ISSUER}");
    let who = WebIdentity {
        role: &role,
        issuer: &issuer,
        namespace: NS,
        service_account: SA,
        audience: AUD,
    };
    assert_eq!(
        evaluate_web_identity(&policy_of(irsa(NS, SA)), &who),
        TrustVerdict::Allowed
    );
}

fn suggestion(ns: &str, sa: &str) -> String {
    format!(
        r#"{{"Effect":"Allow","Principal":{{"Federated":"{}"}},"Action":"sts:AssumeRoleWithWebIdentity","Condition":{{"StringEquals":{{"{ISSUER}:sub":"system:serviceaccount:{ns}:{sa}","{ISSUER}:aud":"sts.amazonaws.com"}}}}}}"#,
        provider()
    )
}

#[test]
fn a_service_account_in_another_namespace_is_told_what_the_policy_admits() {
    let miss = explanation_for(
        &policy_of(json!([irsa("kube-system", "external-dns")])),
        "external-dns",
        "external-dns",
        AUD,
    );
    assert_eq!(
        miss.explanation,
        "the role's trust policy admits `system:serviceaccount:kube-system:external-dns`, not `system:serviceaccount:external-dns:external-dns`"
    );
    assert_eq!(
        miss.suggested_statement,
        Some(suggestion("external-dns", "external-dns"))
    );
    let suggested: Json =
        serde_json::from_str(miss.suggested_statement.as_deref().unwrap()).unwrap();
    let fixed = policy_of(json!([irsa("kube-system", "external-dns"), suggested]));
    assert_eq!(
        verdict_for(&fixed, "external-dns", "external-dns", AUD),
        TrustVerdict::Allowed
    );
}

#[test]
fn several_admitted_subjects_are_listed() {
    let miss = explanation(allow(
        json!({"StringLike": {sub_key(): ["system:serviceaccount:a:*", "system:serviceaccount:b:dns"]}}),
    ));
    assert_eq!(
        miss.explanation,
        "the role's trust policy admits `system:serviceaccount:a:*` or `system:serviceaccount:b:dns`, not `system:serviceaccount:kube-system:external-dns`"
    );
}

#[test]
fn a_policy_for_another_cluster_names_both_issuers() {
    let other = format!("arn:aws:iam::111122223333:oidc-provider/{OTHER_ISSUER}");
    let miss = explanation(
        json!({"Effect": "Allow", "Principal": {"Federated": other}, "Action": "sts:AssumeRoleWithWebIdentity",
        "Condition": {"StringEquals": {format!("{OTHER_ISSUER}:sub"): "system:serviceaccount:kube-system:external-dns"}}}),
    );
    assert_eq!(
        miss.explanation,
        format!("the role's trust policy: its Federated principal names OIDC provider `{OTHER_ISSUER}` but this cluster's issuer is `{ISSUER}`")
    );
    assert_eq!(miss.suggested_statement, Some(suggestion(NS, SA)));
}

#[test]
fn a_federated_principal_in_another_account_is_explained() {
    let miss = explanation(
        json!({"Effect": "Allow", "Principal": {"Federated": format!("arn:aws:iam::444455556666:oidc-provider/{ISSUER}")},
        "Action": "sts:AssumeRoleWithWebIdentity"}),
    );
    assert_eq!(
        miss.explanation,
        format!("the role's trust policy: its Federated principal names the OIDC provider in account 444455556666, but the role is in account 111122223333 and can trust only a provider registered there (`{}`)", provider())
    );
    assert!(miss.suggested_statement.is_some());
}

#[test]
fn a_federated_principal_differing_only_in_case_is_explained() {
    let lower = provider().to_lowercase();
    let miss = explanation(
        json!({"Effect": "Allow", "Principal": {"Federated": lower}, "Action": "sts:AssumeRoleWithWebIdentity"}),
    );
    assert_eq!(
        miss.explanation,
        format!("the role's trust policy: its Federated principal `{lower}` differs from this cluster's OIDC provider `{}` only in letter case, and principals are compared exactly", provider())
    );
}

#[test]
fn a_missing_audience_match_names_the_audience() {
    let miss = explanation(allow(
        json!({"StringEquals": {sub_key(): "system:serviceaccount:kube-system:external-dns", aud_key(): "sts.amazonaws.com.cn"}}),
    ));
    assert_eq!(
        miss.explanation,
        "the role's trust policy has no `aud` match for `sts.amazonaws.com` (it admits `sts.amazonaws.com.cn`)"
    );
    assert_eq!(miss.suggested_statement, Some(suggestion(NS, SA)));
}

#[test]
fn a_wrong_subject_and_audience_take_two_sentences() {
    let miss = explanation(allow(
        json!({"StringEquals": {aud_key(): "vault", sub_key(): "system:serviceaccount:default:dns"}}),
    ));
    assert_eq!(
        miss.explanation,
        "the role's trust policy admits `system:serviceaccount:default:dns`, not `system:serviceaccount:kube-system:external-dns`, and it also has no `aud` match for `sts.amazonaws.com` (it admits `vault`)"
    );
}

#[test]
fn a_pod_identity_role_points_to_pod_identity_associations() {
    let miss = explanation(
        json!({"Effect": "Allow", "Principal": {"Service": "pods.eks.amazonaws.com"}, "Action": ["sts:AssumeRole", "sts:TagSession"]}),
    );
    assert_eq!(
        miss.explanation,
        "the role trusts only `pods.eks.amazonaws.com` (EKS Pod Identity); use a Pod Identity association, not the role-arn annotation"
    );
    assert_eq!(miss.suggested_statement, None);
}

#[test]
fn a_role_chaining_target_points_to_the_role_that_assumes_it() {
    let miss = explanation(
        json!({"Effect": "Allow", "Principal": {"AWS": "arn:aws:iam::111122223333:role/base"}, "Action": "sts:AssumeRole"}),
    );
    assert_eq!(
        miss.explanation,
        "the role trusts only the AWS principal `arn:aws:iam::111122223333:role/base` (a role-chaining target); annotate the ServiceAccount with the IRSA role that assumes it"
    );
    assert_eq!(miss.suggested_statement, None);
    let miss = explanation(
        json!({"Effect": "Allow", "Principal": {"AWS": ["111122223333", "arn:aws:iam::444455556666:root"]}, "Action": "sts:AssumeRole"}),
    );
    assert_eq!(
        miss.explanation,
        "the role trusts only the AWS principals `111122223333` and `arn:aws:iam::444455556666:root` (a role-chaining target); annotate the ServiceAccount with the IRSA role that assumes it"
    );
}

#[test]
fn other_service_principals_are_named() {
    let miss = explanation(
        json!({"Effect": "Allow", "Principal": {"Service": "ec2.amazonaws.com"}, "Action": "sts:AssumeRole"}),
    );
    assert_eq!(
        miss.explanation,
        format!("the role trusts only the service principal `ec2.amazonaws.com`, not this cluster's OIDC provider `{}`", provider())
    );
    assert!(miss.suggested_statement.is_some());
}

#[test]
fn an_explicit_deny_names_the_statement() {
    let deny = json!({"Sid": "NoKubeSystem", "Effect": "Deny", "Principal": "*", "Action": "sts:*",
        "Condition": {"StringLike": {sub_key(): "system:serviceaccount:kube-system:*"}}});
    let miss = explanation(json!([irsa(NS, SA), deny]));
    assert_eq!(
        miss.explanation,
        format!("the role's trust policy explicitly denies `system:serviceaccount:kube-system:external-dns`: the Deny in Statement[1] (Sid `NoKubeSystem`) matches it (StringLike on `{}` holds for `system:serviceaccount:kube-system:external-dns`); narrow that Deny's Principal or Condition so it no longer matches this ServiceAccount, or use another role", sub_key())
    );
    assert_eq!(miss.suggested_statement, None);
}

#[test]
fn an_explicit_deny_on_the_audience_names_the_audience_and_the_annotation() {
    let deny = json!({"Sid": "OnlySts", "Effect": "Deny", "Principal": "*", "Action": "sts:*",
        "Condition": {"StringNotEquals": {aud_key(): "sts.amazonaws.com"}}});
    let miss = explanation_for(&policy_of(json!([irsa(NS, SA), deny])), NS, SA, "vault");
    assert_eq!(
        miss.explanation,
        format!("the role's trust policy explicitly denies `system:serviceaccount:kube-system:external-dns`: the Deny in Statement[1] (Sid `OnlySts`) matches it (StringNotEquals on `{}` holds for the audience `vault`); set the ServiceAccount's eks.amazonaws.com/audience to an audience that Deny does not match, narrow that Deny's Principal or Condition, or use another role", aud_key())
    );
    let amr = format!("{ISSUER}:amr");
    let deny = json!({"Effect": "Deny", "Principal": "*", "Action": "*",
        "Condition": {"Null": {&amr: "true"}}});
    let miss = explanation(json!([irsa(NS, SA), deny]));
    assert!(
        miss.explanation.contains(&format!("(Null on `{amr}` holds: a web-identity request from this cluster does not carry that key)")),
        "{}",
        miss.explanation
    );
}

#[test]
fn a_wrong_action_is_named() {
    let miss = explanation(
        json!([{"Effect": "Allow", "Principal": {"Federated": provider()}, "Action": "sts:AssumeRole"}]),
    );
    assert_eq!(
        miss.explanation,
        "the role's trust policy: Statement[0] names this ServiceAccount's principal but allows only `sts:AssumeRole`, not `sts:AssumeRoleWithWebIdentity`"
    );
}

#[test]
fn a_condition_key_of_another_issuer_is_named() {
    let miss = explanation(allow(
        json!({"StringEquals": {format!("{OTHER_ISSUER}:sub"): "system:serviceaccount:kube-system:external-dns"}}),
    ));
    assert_eq!(
        miss.explanation,
        format!("the role's trust policy tests `{OTHER_ISSUER}:sub`, a key of issuer `{OTHER_ISSUER}`, but this cluster's issuer is `{ISSUER}`")
    );
}

#[test]
fn a_key_the_request_does_not_carry_is_named() {
    let miss = explanation(allow(json!({"StringEquals": {"sts:ExternalId": "x"}})));
    assert_eq!(
        miss.explanation,
        "the role's trust policy requires `sts:ExternalId` (StringEquals), which a web-identity request from this cluster does not carry"
    );
}

#[test]
fn a_policy_without_allow_admits_nobody() {
    let miss = explanation(json!([]));
    assert_eq!(
        miss.explanation,
        "the role's trust policy has no Allow statement, so it admits nobody"
    );
}

#[test]
fn the_nearest_statement_is_the_one_with_the_fewest_failures() {
    let far =
        allow(json!({"StringEquals": {sub_key(): "system:serviceaccount:x:y", aud_key(): "x"}}));
    let near = allow(
        json!({"StringEquals": {sub_key(): "system:serviceaccount:kube-system:dns", aud_key(): AUD}}),
    );
    let miss = explanation(json!([far, near]));
    assert_eq!(
        miss.explanation,
        "the role's trust policy admits `system:serviceaccount:kube-system:dns`, not `system:serviceaccount:kube-system:external-dns`"
    );
}

#[test]
fn unverifiable_answers_name_the_statement_and_key() {
    let statement = json!({"Sid": "Office", "Effect": "Allow", "Principal": {"Federated": provider()}, "Action": "sts:AssumeRoleWithWebIdentity",
        "Condition": {"IpAddress": {"aws:SourceIp": "203.0.113.0/24"}}});
    assert_eq!(
        verdict(json!([statement])),
        TrustVerdict::Unverifiable("Statement[0] (Sid `Office`) tests `aws:SourceIp` (IpAddress), which is known only when the pod calls STS".into())
    );
    let variable = allow(
        json!({"StringEquals": {sub_key(): "system:serviceaccount:${aws:PrincipalTag/ns}:external-dns"}}),
    );
    assert_eq!(
        verdict(variable),
        TrustVerdict::Unverifiable(format!("Statement compares `{ISSUER}:sub` (StringEquals) with the policy variable `${{aws:PrincipalTag/ns}}`, which is known only when the pod calls STS"))
    );
}

#[test]
fn explanations_are_one_or_two_sentences_without_json() {
    let cases = [
        json!([irsa("a", "b")]),
        json!({"Effect": "Allow", "Principal": {"Service": "pods.eks.amazonaws.com"}, "Action": "sts:AssumeRole"}),
        json!({"Effect": "Deny", "Principal": "*", "Action": "*"}),
    ];
    for statements in cases {
        let miss = explanation(statements);
        assert!(!miss.explanation.contains('{'), "{}", miss.explanation);
        assert!(
            miss.explanation.matches(". ").count() <= 1,
            "{}",
            miss.explanation
        );
        assert!(!miss.explanation.contains('\n'));
    }
}

/// JSON built from the policy vocabulary, so that parsing goes deep.
fn policy_json() -> impl Strategy<Value = Json> {
    let words = prop::sample::select(vec![
        "Version",
        "Statement",
        "Effect",
        "Allow",
        "Deny",
        "Principal",
        "NotPrincipal",
        "Federated",
        "AWS",
        "Service",
        "Action",
        "NotAction",
        "Condition",
        "StringEquals",
        "StringLike",
        "ForAnyValue:StringNotLikeIfExists",
        "Null",
        "NumericLessThan",
        "DateGreaterThan",
        "IpAddress",
        "ArnLike",
        "Bool",
        "*",
        "sts:*",
        "2012-10-17",
        "2008-10-17",
        "aws:SourceIp",
        "x:sub",
        "${aws:username}",
        "${*}",
        "${",
        "10.0.0.0/8",
        "true",
        "",
    ]);
    let leaf = prop_oneof![
        Just(Json::Null),
        any::<bool>().prop_map(Json::Bool),
        any::<i64>().prop_map(|n| json!(n)),
        words.clone().prop_map(|w| json!(w)),
        ".{0,12}".prop_map(Json::String),
    ];
    leaf.prop_recursive(5, 64, 6, move |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..4).prop_map(Json::Array),
            prop::collection::vec((words.clone(), inner), 0..5).prop_map(|pairs| Json::Object(
                pairs.into_iter().map(|(k, v)| (k.to_owned(), v)).collect()
            )),
        ]
    })
}

proptest! {
    #[test]
    fn arbitrary_text_never_panics_the_document_parser(text in "[{}\\[\\]\":,%0-9a-fA-F\\\\ a-z*$+-]{0,80}") {
        let _ = TrustPolicy::from_document(&text);
        let encoded = percent_encoding::utf8_percent_encode(&text, percent_encoding::NON_ALPHANUMERIC).to_string();
        let _ = TrustPolicy::from_document(&encoded);
    }

    #[test]
    fn arbitrary_json_never_panics_parsing_or_evaluation(value in policy_json(), ns in "[a-z*?${}]{0,6}") {
        let text = value.to_string();
        for policy in [TrustPolicy::from_value(&value), TrustPolicy::from_document(&text)].into_iter().flatten() {
            let _ = verdict_for(&policy, &ns, SA, AUD);
        }
    }

    #[test]
    fn arbitrary_role_arns_never_panic(text in "(arn:)?[a-z-]{0,8}:[a-z]{0,4}:[a-z0-9-]{0,4}:[0-9a]{0,13}:[a-z/]{0,6}[ -~é]{0,10}") {
        let _ = RoleArn::parse(&text);
    }
}
