//! Live IAM trust policies against moto: verdicts and messages, the cache TTL, IAM down or
//! hanging, missing roles, ARN differences, other accounts and readers, OIDC providers, and
//! `zoneguard check --iam`.

use crate::iam_support::*;
use std::io::Write;
use std::time::{Duration, Instant};
use zoneguard::iam::metrics::Counted;
use zoneguard_core::verdict::Reason;

fn reasons(d: &zoneguard_core::admission::Decision) -> Vec<Reason> {
    d.violations.iter().map(|v| v.reason).collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_live_trust_policy_admits_or_denies_with_the_nearest_miss() {
    let moto = Moto::start();
    let iam = moto.iam();
    let good = iam.create_trusted_role().await;
    let other = iam
        .create_role(
            "/",
            "kube-system-dns",
            &irsa_trust(OWN, "kube-system", SA_NAME),
        )
        .await;
    let resolver = moto.resolver().await;
    let rules = rules("");
    let d = admit(
        &resolver,
        &rules,
        SA_NS,
        &service_account(SA_NS, SA_NAME, &good),
    )
    .await;
    assert!(
        d.allowed && d.violations.is_empty() && d.warnings.is_empty(),
        "{}",
        texts(&d)
    );
    let d = admit(
        &resolver,
        &rules,
        SA_NS,
        &service_account(SA_NS, SA_NAME, &other),
    )
    .await;
    assert!(!d.allowed);
    assert_eq!(reasons(&d), [Reason::RoleNotTrusted], "{}", texts(&d));
    let text = texts(&d);
    assert!(
        text.contains("admits `system:serviceaccount:kube-system:external-dns`, not `system:serviceaccount:external-dns:external-dns`"),
        "{text}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_changed_trust_policy_is_seen_after_the_ttl() {
    let moto = Moto::start();
    let iam = moto.iam();
    let arn = iam.create_trusted_role().await;
    let resolver = moto.resolver().await;
    let rules = rules("  cacheTTL: 1s\n");
    let sa = service_account(SA_NS, SA_NAME, &arn);
    assert!(admit(&resolver, &rules, SA_NS, &sa).await.allowed);
    iam.update_trust("external-dns", &irsa_trust(OWN, "other", SA_NAME))
        .await;
    let cached = admit(&resolver, &rules, SA_NS, &sa).await;
    assert!(
        cached.allowed,
        "within the TTL the cached policy is used: {}",
        texts(&cached)
    );
    let metrics = resolver.metrics();
    assert_eq!(metrics.count(Counted::Misses, "role"), 1);
    assert_eq!(metrics.count(Counted::Hits, "role"), 1);
    tokio::time::sleep(Duration::from_millis(1200)).await;
    let fresh = admit(&resolver, &rules, SA_NS, &sa).await;
    assert_eq!(
        reasons(&fresh),
        [Reason::RoleNotTrusted],
        "{}",
        texts(&fresh)
    );
    assert_eq!(metrics.count(Counted::Misses, "role"), 2);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn concurrent_lookups_of_one_role_make_one_call() {
    let moto = Moto::start();
    let arn = moto.iam().create_trusted_role().await;
    let resolver = moto.resolver().await;
    let rules = rules("");
    let sa = service_account(SA_NS, SA_NAME, &arn);
    let all =
        futures_util::future::join_all((0..6).map(|_| admit(&resolver, &rules, SA_NS, &sa))).await;
    assert!(all.iter().all(|d| d.allowed));
    assert_eq!(resolver.metrics().count(Counted::Misses, "role"), 1);
    assert_eq!(resolver.metrics().count(Counted::Hits, "role"), 5);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn iam_stopped_or_hanging_is_cannot_verify_within_the_timeout() {
    let mut moto = Moto::start();
    let arn = moto.iam().create_trusted_role().await;
    let resolver = moto.resolver().await;
    moto.stop();
    let sa = service_account(SA_NS, SA_NAME, &arn);
    let warn = rules("  callTimeout: 500ms\n");
    let started = Instant::now();
    let d = admit(&resolver, &warn, SA_NS, &sa).await;
    assert!(
        started.elapsed() < Duration::from_secs(4),
        "{:?}",
        started.elapsed()
    );
    assert!(
        d.allowed && d.violations.is_empty(),
        "unknownRole warn: {}",
        texts(&d)
    );
    assert!(
        texts(&d).contains("cannot verify: zoneguard could not read the role from IAM"),
        "{}",
        texts(&d)
    );

    // An endpoint that accepts connections and never answers: the per-call timeout.
    let black_hole = std::net::TcpListener::bind("127.0.0.1:0").expect("bind");
    let url = format!("http://{}", black_hole.local_addr().expect("addr"));
    let held = std::thread::spawn(move || {
        let conns: Vec<_> = black_hole.incoming().take(8).collect();
        std::thread::sleep(Duration::from_secs(10));
        drop(conns);
    });
    let mut options = moto.options();
    options.endpoint_url = Some(url);
    let hanging = zoneguard::iam::Resolver::new(&options)
        .await
        .expect("resolver");
    let deny = rules("  callTimeout: 500ms\n  unknownRole: deny\n");
    let started = Instant::now();
    let d = admit(&hanging, &deny, SA_NS, &sa).await;
    let took = started.elapsed();
    assert!(took < Duration::from_secs(4), "never hang: {took:?}");
    assert!(!d.allowed, "{}", texts(&d));
    assert_eq!(reasons(&d), [Reason::RoleUnknown]);
    assert!(
        texts(&d).contains("did not answer within 500ms"),
        "{}",
        texts(&d)
    );
    drop(held);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_slow_iam_is_read_when_call_timeout_allows_it() {
    // Each answer 1.6 s late: STS's (zoneguard's own account), then IAM's GetRole, 3.2 s in
    // all. With callTimeout 2s the request's lookups may take 4 s (twice callTimeout), so
    // the role is read; a fixed 3 s bound would have cut it.
    let moto = Moto::start();
    let arn = moto.iam().create_trusted_role().await;
    let mut options = moto.options();
    options.endpoint_url = Some(slow_proxy(&moto.url, Duration::from_millis(1600)).await);
    let slow = zoneguard::iam::Resolver::new(&options)
        .await
        .expect("resolver");
    let sa = service_account(SA_NS, SA_NAME, &arn);
    let started = Instant::now();
    let d = admit(&slow, &rules("  callTimeout: 2s\n"), SA_NS, &sa).await;
    let took = started.elapsed();
    assert!(
        d.allowed && d.violations.is_empty() && d.warnings.is_empty(),
        "{}",
        texts(&d)
    );
    assert!(
        took > Duration::from_secs(3),
        "both answers were held back: {took:?}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_role_in_another_partition_is_not_read_in_this_one() {
    // moto's credentials are in partition aws; the role of the same name and account number
    // exists there, and must not be taken for the aws-cn role the annotation names.
    let moto = Moto::start();
    moto.iam().create_trusted_role().await;
    let resolver = moto.resolver().await;
    let arn = format!("arn:aws-cn:iam::{OWN}:role/external-dns");
    let sa = service_account(SA_NS, SA_NAME, &arn);
    let d = admit(&resolver, &rules("  unknownRole: deny\n"), SA_NS, &sa).await;
    assert_eq!(reasons(&d), [Reason::RoleUnknown], "{}", texts(&d));
    let text = texts(&d);
    assert!(
        text.contains("the role is in partition aws-cn, and zoneguard's credentials (arn:aws:")
            && text.contains(&format!(
                "if the partition is a slip, the role is arn:aws:iam::{OWN}:role/external-dns"
            )),
        "{text}"
    );
    assert!(!text.contains("letter case"), "{text}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_missing_role_is_denied() {
    let moto = Moto::start();
    let resolver = moto.resolver().await;
    let arn = format!("arn:aws:iam::{OWN}:role/does-not-exist");
    let d = admit(
        &resolver,
        &rules(""),
        SA_NS,
        &service_account(SA_NS, SA_NAME, &arn),
    )
    .await;
    assert!(!d.allowed);
    assert_eq!(reasons(&d), [Reason::RoleUnknown], "{}", texts(&d));
    assert!(
        texts(&d).contains("role does-not-exist does not exist in account 123456789012"),
        "{}",
        texts(&d)
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_arn_that_differs_from_iam_only_in_its_path_is_reported_as_such() {
    let moto = Moto::start();
    let real = moto
        .iam()
        .create_role("/team/", "external-dns", &irsa_trust(OWN, SA_NS, SA_NAME))
        .await;
    assert!(real.ends_with(":role/team/external-dns"), "{real}");
    let resolver = moto.resolver().await;
    let written = format!("arn:aws:iam::{OWN}:role/external-dns");
    let d = admit(
        &resolver,
        &rules(""),
        SA_NS,
        &service_account(SA_NS, SA_NAME, &written),
    )
    .await;
    assert_eq!(reasons(&d), [Reason::RoleArnInvalid], "{}", texts(&d));
    assert!(
        texts(&d).contains(&format!(
            "IAM names this role {real}; the annotation differs only in its path"
        )),
        "{}",
        texts(&d)
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn static_trust_policies_win_for_the_roles_they_list() {
    let moto = Moto::start();
    let resolver = moto.resolver().await;
    let arn = format!("arn:aws:iam::{OWN}:role/only-in-rules");
    let extra = format!(
        "  trustPolicies:\n    {arn}: '{}'\n",
        irsa_trust(OWN, SA_NS, SA_NAME)
    );
    let d = admit(
        &resolver,
        &rules(&extra),
        SA_NS,
        &service_account(SA_NS, SA_NAME, &arn),
    )
    .await;
    assert!(d.allowed && d.warnings.is_empty(), "{}", texts(&d));
    assert_eq!(resolver.metrics().count(Counted::Misses, "role"), 0);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_role_in_another_account_needs_a_reader_role() {
    let moto = Moto::start();
    let other = moto.iam_in(OTHER).await;
    let arn = other
        .create_role("/", "external-dns", &irsa_trust(OTHER, SA_NS, SA_NAME))
        .await;
    assert!(arn.contains(OTHER), "{arn}");
    let sa = service_account(SA_NS, SA_NAME, &arn);

    let resolver = moto.resolver().await;
    let d = admit(&resolver, &rules("  unknownRole: deny\n"), SA_NS, &sa).await;
    assert_eq!(reasons(&d), [Reason::RoleUnknown], "{}", texts(&d));
    assert!(
        texts(&d).contains("cannot verify: zoneguard could not read the role from IAM (no reader role for account 444455556666 in irsa.accountReaders"),
        "{}",
        texts(&d)
    );

    let with_reader = rules(&format!(
        "  unknownRole: deny\n  accountReaders:\n    \"{OTHER}\": arn:aws:iam::{OTHER}:role/zoneguard-reader\n"
    ));
    let resolver = moto.resolver().await;
    let d = admit(&resolver, &with_reader, SA_NS, &sa).await;
    assert!(
        d.allowed && d.violations.is_empty() && d.warnings.is_empty(),
        "{}",
        texts(&d)
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_missing_provider_or_audience_is_denied_naming_the_fix() {
    let moto = Moto::start();
    let iam = moto.iam();
    let arn = iam.create_trusted_role().await;
    let sa = service_account(SA_NS, SA_NAME, &arn);
    let rules = rules("  checkProvider: true\n");

    let d = admit(&moto.resolver().await, &rules, SA_NS, &sa).await;
    assert_eq!(reasons(&d), [Reason::RoleNotTrusted], "{}", texts(&d));
    assert!(
        texts(&d).contains("has no IAM OIDC provider for this cluster's issuer"),
        "{}",
        texts(&d)
    );
    assert!(
        texts(&d).contains("eksctl utils associate-iam-oidc-provider"),
        "{}",
        texts(&d)
    );

    let provider = iam.create_provider(&["other-audience"]).await;
    assert!(provider.ends_with(ISSUER), "{provider}");
    let d = admit(&moto.resolver().await, &rules, SA_NS, &sa).await;
    assert_eq!(reasons(&d), [Reason::RoleNotTrusted], "{}", texts(&d));
    assert!(
        texts(&d).contains("does not list the audience `sts.amazonaws.com` among its client IDs (it lists other-audience)"),
        "{}",
        texts(&d)
    );
    assert!(
        texts(&d).contains("add-client-id-to-open-id-connect-provider"),
        "{}",
        texts(&d)
    );

    iam.0
        .delete_open_id_connect_provider()
        .open_id_connect_provider_arn(&provider)
        .send()
        .await
        .expect("delete provider");
    iam.create_provider(&["other-audience", "sts.amazonaws.com"])
        .await;
    let d = admit(&moto.resolver().await, &rules, SA_NS, &sa).await;
    assert!(d.allowed && d.violations.is_empty(), "{}", texts(&d));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn check_with_iam_reads_the_endpoint() {
    let moto = Moto::start();
    let iam = moto.iam();
    let good = iam.create_trusted_role().await;
    let dir = tempfile::tempdir().expect("tempdir");
    let rules_path = dir.path().join("rules.yaml");
    std::fs::write(&rules_path, format!("irsa:\n  issuer: {ISSUER}\n")).expect("write rules");
    let manifest = |arn: &str| {
        let path = dir.path().join("sa.yaml");
        let mut f = std::fs::File::create(&path).expect("create manifest");
        let text = serde_yaml_ng::to_string(&service_account(SA_NS, SA_NAME, arn)).expect("yaml");
        f.write_all(text.as_bytes()).expect("write manifest");
        path
    };
    let run = |path: &std::path::Path| {
        std::process::Command::new(env!("CARGO_BIN_EXE_zoneguard"))
            .args([
                "check",
                "--iam",
                "--output",
                "json",
                "--aws-endpoint-url",
                &moto.url,
            ])
            .arg("--rules")
            .arg(&rules_path)
            .arg(path)
            .env("AWS_ACCESS_KEY_ID", "testing")
            .env("AWS_SECRET_ACCESS_KEY", "testing")
            .env("AWS_REGION", "us-east-1")
            .env("AWS_EC2_METADATA_DISABLED", "true")
            .output()
            .expect("run zoneguard check")
    };
    let out = run(&manifest(&good));
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stdout)
    );
    let missing = format!("arn:aws:iam::{OWN}:role/missing");
    let out = run(&manifest(&missing));
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(1), "{stdout}");
    assert!(
        stdout.contains("\"reason\":\"role-unknown\"")
            || stdout.contains("\"reason\": \"role-unknown\""),
        "{stdout}"
    );
    assert!(
        stdout.contains("does not exist in account 123456789012"),
        "{stdout}"
    );
}

#[test]
fn check_without_credentials_says_so() {
    let dir = tempfile::tempdir().expect("tempdir");
    let rules_path = dir.path().join("rules.yaml");
    std::fs::write(&rules_path, format!("irsa:\n  issuer: {ISSUER}\n")).expect("write rules");
    let sa_path = dir.path().join("sa.yaml");
    let arn = format!("arn:aws:iam::{OWN}:role/external-dns");
    let text = serde_yaml_ng::to_string(&service_account(SA_NS, SA_NAME, &arn)).expect("yaml");
    std::fs::write(&sa_path, text).expect("write manifest");
    let mut command = std::process::Command::new(env!("CARGO_BIN_EXE_zoneguard"));
    command
        .args([
            "check",
            "--iam",
            "--aws-endpoint-url",
            "http://127.0.0.1:9",
            "--rules",
        ])
        .arg(&rules_path)
        .arg(&sa_path)
        .env_clear()
        .env("HOME", dir.path())
        .env("AWS_EC2_METADATA_DISABLED", "true");
    let out = command.output().expect("run zoneguard check");
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(0), "unknownRole warn: {stdout}");
    assert!(
        stdout.contains("cannot sign STS GetCallerIdentity: no usable AWS credentials (")
            && stdout.contains("no credentials found in chain.)"),
        "{stdout}"
    );
    assert!(!stdout.contains("cannot reach"), "{stdout}");
}
