//! `zoneguard certs`: files, SANs, caBundle, and a webhook serving with them is trusted by a
//! client that only knows the caBundle and dials the Service name.

use crate::serve_support::*;
use base64::Engine as _;
use std::process::Command;
use x509_parser::extensions::GeneralName;
use zoneguard::serve::start;
use zoneguard::serve::tls::TlsSource;

fn certs(out: &std::path::Path, extra: &[&str]) -> std::process::Output {
    Command::new(env!("CARGO_BIN_EXE_zoneguard"))
        .args([
            "certs",
            "--service",
            "zoneguard",
            "--namespace",
            "zg-system",
            "--out",
        ])
        .arg(out)
        .args(extra)
        .output()
        .expect("binary runs")
}

#[test]
fn writes_ca_and_serving_certificate_and_prints_the_ca_bundle() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("pki");
    let output = certs(&out, &[]);
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    let ca_pem = std::fs::read_to_string(out.join("ca.crt")).unwrap();
    let bundle = String::from_utf8(output.stdout).unwrap();
    let decoded = base64::engine::general_purpose::STANDARD
        .decode(bundle.trim())
        .unwrap();
    assert_eq!(decoded, ca_pem.as_bytes(), "stdout is the caBundle");

    let tls = std::fs::read_to_string(out.join("tls.crt")).unwrap();
    let der = der_of(&tls);
    let (_, cert) = x509_parser::parse_x509_certificate(&der).unwrap();
    let names: Vec<String> = cert
        .subject_alternative_name()
        .unwrap()
        .expect("SAN")
        .value
        .general_names
        .iter()
        .filter_map(|n| {
            if let GeneralName::DNSName(d) = n {
                Some((*d).to_owned())
            } else {
                None
            }
        })
        .collect();
    assert_eq!(
        names,
        [
            "zoneguard.zg-system.svc",
            "zoneguard.zg-system.svc.cluster.local"
        ]
    );
    assert!(!cert.is_ca());
    let ca_der = der_of(&ca_pem);
    let (_, ca) = x509_parser::parse_x509_certificate(&ca_der).unwrap();
    assert!(ca.is_ca());
    assert_eq!(cert.issuer(), ca.subject());

    use std::os::unix::fs::PermissionsExt as _;
    for key in ["tls.key", "ca.key"] {
        let mode = std::fs::metadata(out.join(key))
            .unwrap()
            .permissions()
            .mode()
            & 0o777;
        assert_eq!(mode, 0o600, "{key}");
    }
}

#[test]
fn the_namespace_comes_from_its_own_variable_not_the_one_check_reads() {
    // `zoneguard check` reads ZONEGUARD_NAMESPACE for the manifests' default namespace; an
    // exported one must not move the certificate to another namespace.
    let dir = tempfile::tempdir().unwrap();
    let san = |out: &std::path::Path, envs: &[(&str, &str)]| {
        let output = Command::new(env!("CARGO_BIN_EXE_zoneguard"))
            .args(["certs", "--out"])
            .arg(out)
            .envs(envs.iter().copied())
            .output()
            .expect("binary runs");
        assert!(output.status.success(), "{output:?}");
        let tls = std::fs::read_to_string(out.join("tls.crt")).unwrap();
        let der = der_of(&tls);
        let (_, cert) = x509_parser::parse_x509_certificate(&der).unwrap();
        format!(
            "{:?}",
            cert.subject_alternative_name().unwrap().expect("SAN").value
        )
    };
    let plain = san(&dir.path().join("a"), &[("ZONEGUARD_NAMESPACE", "default")]);
    assert!(plain.contains("zoneguard.zoneguard.svc"), "{plain}");
    let own = san(
        &dir.path().join("b"),
        &[("ZONEGUARD_CERTS_NAMESPACE", "zg-system")],
    );
    assert!(own.contains("zoneguard.zg-system.svc"), "{own}");
}

#[test]
fn refuses_to_overwrite_without_force() {
    let dir = tempfile::tempdir().unwrap();
    assert!(certs(dir.path(), &[]).status.success());
    let before = std::fs::read(dir.path().join("tls.crt")).unwrap();
    let again = certs(dir.path(), &[]);
    assert_eq!(again.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&again.stderr).contains("--force"));
    assert_eq!(std::fs::read(dir.path().join("tls.crt")).unwrap(), before);
    assert!(certs(dir.path(), &["--force"]).status.success());
    assert_ne!(std::fs::read(dir.path().join("tls.crt")).unwrap(), before);
}

#[tokio::test(flavor = "multi_thread")]
async fn the_webhook_serving_these_files_is_trusted_through_the_ca_bundle() {
    let dir = tempfile::tempdir().unwrap();
    assert!(certs(dir.path(), &[]).status.success());
    let rules = dir.path().join("rules.yaml");
    std::fs::write(&rules, fixture_text("rules.yaml")).unwrap();
    let tls = TlsSource::Files {
        cert: dir.path().join("tls.crt"),
        key: dir.path().join("tls.key"),
    };
    let handle = start(config(vec![rules], tls)).await.unwrap();
    let ca = std::fs::read(dir.path().join("ca.crt")).unwrap();
    let client = reqwest::Client::builder()
        .tls_built_in_root_certs(false)
        .add_root_certificate(reqwest::Certificate::from_pem(&ca).unwrap())
        .use_rustls_tls()
        .resolve("zoneguard.zg-system.svc", handle.https_addr())
        .build()
        .unwrap();
    let url = format!(
        "https://zoneguard.zg-system.svc:{}/validate",
        handle.https_addr().port()
    );
    let answer = review(&client, &url, &fixture("ingress-create-allowed.json")).await;
    assert_eq!(answer["allowed"], true);
}

#[test]
fn the_development_certificate_names_localhost_and_expires() {
    let pair = zoneguard::certs::self_signed_localhost().unwrap();
    let der = der_of(&pair.cert_pem);
    let (_, cert) = x509_parser::parse_x509_certificate(&der).unwrap();
    let days =
        (cert.validity().not_after.timestamp() - cert.validity().not_before.timestamp()) / 86_400;
    assert!((29..=31).contains(&days), "{days} days");
    let names = &cert
        .subject_alternative_name()
        .unwrap()
        .expect("SAN")
        .value
        .general_names;
    assert!(names
        .iter()
        .any(|n| matches!(n, GeneralName::DNSName("localhost"))));
}

#[test]
fn a_service_or_namespace_that_is_not_a_label_is_refused_naming_the_flag_and_rule() {
    let table = [
        (["--service", "Bad_Name"], "--service", "DNS-1035"),
        (["--service", "2fast"], "--service", "DNS-1035"),
        (["--service", "web-"], "--service", "DNS-1035"),
        (["--namespace", "Bad_NS"], "--namespace", "DNS-1123"),
        (["--namespace", "team.a"], "--namespace", "DNS-1123"),
    ];
    for (args, flag, rule) in table {
        let dir = tempfile::tempdir().unwrap();
        let out = dir.path().join("pki");
        let output = Command::new(env!("CARGO_BIN_EXE_zoneguard"))
            .arg("certs")
            .args(args)
            .arg("--out")
            .arg(&out)
            .output()
            .expect("binary runs");
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert_eq!(output.status.code(), Some(2), "{args:?}: {stderr}");
        assert!(
            stderr.contains(flag) && stderr.contains(rule),
            "{args:?}: {stderr}"
        );
        assert!(!out.exists(), "{args:?}: nothing written");
    }
}

#[test]
fn the_serving_key_only_signs_and_the_ca_outlives_the_serving_certificate() {
    let table: [(&[&str], i64, i64); 3] = [
        (&[], 365, 3650),
        (&["--validity-days", "30"], 30, 3650),
        (&["--validity-days", "3650"], 3650, 7300),
    ];
    for (extra, leaf_days, ca_days) in table {
        let dir = tempfile::tempdir().unwrap();
        let output = certs(dir.path(), extra);
        assert!(output.status.success(), "{extra:?}");
        let tls_der = der_of(&std::fs::read_to_string(dir.path().join("tls.crt")).unwrap());
        let ca_der = der_of(&std::fs::read_to_string(dir.path().join("ca.crt")).unwrap());
        let (_, tls) = x509_parser::parse_x509_certificate(&tls_der).unwrap();
        let (_, ca) = x509_parser::parse_x509_certificate(&ca_der).unwrap();

        let usage = tls.key_usage().unwrap().expect("KeyUsage").value;
        assert!(usage.digital_signature(), "{extra:?}: {usage}");
        assert!(!usage.key_encipherment(), "{extra:?}: ECDSA key: {usage}");
        assert_eq!(
            tls.public_key().algorithm.algorithm,
            x509_parser::oid_registry::OID_KEY_TYPE_EC_PUBLIC_KEY,
            "{extra:?}"
        );

        let days = |c: &x509_parser::certificate::X509Certificate| {
            (c.validity().not_after.timestamp() - c.validity().not_before.timestamp()) / 86_400
        };
        // not_before is an hour back, so a span of N days reads as N days and an hour.
        assert_eq!(days(&tls), leaf_days, "{extra:?}: serving certificate");
        assert_eq!(days(&ca), ca_days, "{extra:?}: CA");
        assert!(
            ca.validity().not_after.timestamp() > tls.validity().not_after.timestamp(),
            "{extra:?}"
        );
    }
}
