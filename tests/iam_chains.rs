//! Role chains against moto: external-dns's IRSA role in zoneguard's account assumes a
//! Route53 role in a DNS account (read through a reader role). Whole, broken on the target
//! side, broken on the IRSA role's side, broken on both, and unreadable.

use crate::iam_support::*;
use serde_json::json;
use zoneguard_core::admission::Decision;
use zoneguard_core::rules::RuleSet;
use zoneguard_core::verdict::Reason;

const TARGET_NAME: &str = "external-dns-route53-role";

fn target_arn() -> String {
    format!("arn:aws:iam::{OTHER}:role/{TARGET_NAME}")
}

fn chain_rules(with_reader: bool) -> RuleSet {
    let reader = if with_reader {
        format!("  accountReaders:\n    \"{OTHER}\": arn:aws:iam::{OTHER}:role/zoneguard-reader\n")
    } else {
        String::new()
    };
    rules(&format!(
        "{reader}  chains:\n    - serviceAccount: {SA_NS}/{SA_NAME}\n      assumes: {}\n",
        target_arn()
    ))
}

/// The IRSA role in zoneguard's account and the target in the DNS account; the caller
/// decides what each side allows.
struct Scene {
    moto: Moto,
    irsa: String,
}

impl Scene {
    async fn new(target_trusts: Option<&str>) -> Self {
        let moto = Moto::start();
        let irsa = moto
            .iam()
            .create_role("/", SA_NAME, &irsa_trust(OWN, SA_NS, SA_NAME))
            .await;
        let dns = moto.iam_in(OTHER).await;
        let principal = target_trusts.map_or_else(|| irsa.clone(), str::to_owned);
        dns.create_role("/", TARGET_NAME, &aws_trust(&principal))
            .await;
        Self { moto, irsa }
    }

    /// `new`, with an inline policy on the IRSA role that allows assuming the target.
    async fn allowed_to_assume(target_trusts: Option<&str>) -> Self {
        let scene = Self::new(target_trusts).await;
        scene
            .moto
            .iam()
            .put_inline(SA_NAME, "assume-dns", &assume_policy(&target_arn()))
            .await;
        scene
    }

    async fn admit(&self, rules: &RuleSet) -> Decision {
        let resolver = self.moto.resolver().await;
        admit(
            &resolver,
            rules,
            SA_NS,
            &service_account(SA_NS, SA_NAME, &self.irsa),
        )
        .await
    }
}

fn reasons(d: &Decision) -> Vec<Reason> {
    d.violations.iter().map(|v| v.reason).collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_whole_chain_is_admitted_with_inline_or_attached_policies() {
    let scene = Scene::allowed_to_assume(None).await;
    let d = scene.admit(&chain_rules(true)).await;
    assert!(
        d.allowed && d.violations.is_empty() && d.warnings.is_empty(),
        "{}",
        texts(&d)
    );

    let scene = Scene::new(Some(OWN)).await;
    scene
        .moto
        .iam()
        .attach_managed(
            SA_NAME,
            "assume-dns-accounts",
            &assume_policy(&format!("arn:aws:iam::{OTHER}:role/*")),
        )
        .await;
    let d = scene.admit(&chain_rules(true)).await;
    assert!(
        d.allowed && d.violations.is_empty() && d.warnings.is_empty(),
        "{}",
        texts(&d)
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_permissions_boundary_without_sts_assume_role_breaks_the_chain() {
    let scene = Scene::allowed_to_assume(None).await;
    let iam = scene.moto.iam();
    let s3_only = json!({"Version": "2012-10-17", "Statement": {"Effect": "Allow", "Action": "s3:*", "Resource": "*"}});
    let boundary = iam.set_boundary(SA_NAME, "team-boundary", &s3_only).await;
    let d = scene.admit(&chain_rules(true)).await;
    assert!(!d.allowed);
    assert_eq!(reasons(&d), [Reason::RoleNotTrusted], "{}", texts(&d));
    let text = texts(&d);
    assert!(
        text.contains(&format!(
            "its permissions boundary {boundary} does not allow sts:AssumeRole on {}",
            target_arn()
        )),
        "{text}"
    );

    let scene = Scene::allowed_to_assume(None).await;
    let iam = scene.moto.iam();
    iam.set_boundary(SA_NAME, "team-boundary", &assume_policy("*"))
        .await;
    let d = scene.admit(&chain_rules(true)).await;
    assert!(
        d.allowed && d.violations.is_empty() && d.warnings.is_empty(),
        "a boundary that allows the hop: {}",
        texts(&d)
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_chain_broken_on_the_target_side_is_denied() {
    let scene =
        Scene::allowed_to_assume(Some(&format!("arn:aws:iam::{OWN}:role/someone-else"))).await;
    let d = scene.admit(&chain_rules(true)).await;
    assert!(!d.allowed);
    assert_eq!(reasons(&d), [Reason::RoleNotTrusted], "{}", texts(&d));
    let text = texts(&d);
    assert!(text.contains("is broken on the target side"), "{text}");
    assert!(
        text.contains(
            "it trusts only the AWS principal(s) arn:aws:iam::123456789012:role/someone-else"
        ),
        "{text}"
    );
    assert!(
        text.contains(r#"{"Effect":"Allow","Principal":{"AWS":"arn:aws:iam::123456789012:role/external-dns"},"Action":"sts:AssumeRole"}"#),
        "{text}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_chain_broken_on_the_irsa_side_is_denied() {
    let scene = Scene::new(None).await;
    scene
        .moto
        .iam()
        .put_inline(
            SA_NAME,
            "route53",
            &serde_json::json!({"Version": "2012-10-17",
            "Statement": {"Effect": "Allow", "Action": "route53:*", "Resource": "*"}}),
        )
        .await;
    let d = scene.admit(&chain_rules(true)).await;
    assert_eq!(reasons(&d), [Reason::RoleNotTrusted], "{}", texts(&d));
    let text = texts(&d);
    assert!(text.contains("is broken on the IRSA role's side"), "{text}");
    assert!(text.contains("(it has inline policy route53)"), "{text}");
    assert!(
        text.contains(&format!(
            r#"{{"Effect":"Allow","Action":"sts:AssumeRole","Resource":"{}"}}"#,
            target_arn()
        )),
        "{text}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_chain_broken_on_both_sides_gets_both_denials() {
    let scene = Scene::new(Some("999999999999")).await;
    let d = scene.admit(&chain_rules(true)).await;
    assert_eq!(
        reasons(&d),
        [Reason::RoleNotTrusted, Reason::RoleNotTrusted],
        "{}",
        texts(&d)
    );
    let text = texts(&d);
    assert!(
        text.contains("target side") && text.contains("IRSA role's side"),
        "{text}"
    );
    assert!(text.contains("it has no permission policies"), "{text}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_target_in_an_account_without_a_reader_cannot_be_verified() {
    let scene = Scene::allowed_to_assume(None).await;
    let d = scene.admit(&chain_rules(false)).await;
    assert!(d.allowed && d.violations.is_empty(), "{}", texts(&d));
    let text = texts(&d);
    assert!(
        text.contains("cannot verify the role chain to arn:aws:iam::444455556666:role/external-dns-route53-role (irsa.chains), target side: zoneguard could not read the role from IAM (no reader role for account 444455556666"),
        "{text}"
    );
}
