//! `zoneguard certs`: files, SANs, caBundle, and a webhook serving with them is trusted by a
//! client that only knows the caBundle and dials the Service name; with `--ca-cert`/`--ca-key`,
//! a new serving certificate from a kept CA under the same caBundle, or a refusal that writes
//! nothing.

use crate::serve_support::*;
use base64::Engine as _;
use std::path::Path;
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

/// A webhook serving `dir`'s tls.crt and tls.key answers a client that trusts only the CA
/// certificate in `ca` and dials the Service name `zoneguard.zg-system.svc`.
async fn assert_served_and_trusted(dir: &Path, ca: &Path) {
    let rules = dir.join("rules.yaml");
    std::fs::write(&rules, fixture_text("rules.yaml")).unwrap();
    let tls = TlsSource::Files {
        cert: dir.join("tls.crt"),
        key: dir.join("tls.key"),
    };
    let handle = start(config(vec![rules], tls)).await.unwrap();
    let ca = std::fs::read(ca).unwrap();
    let client = client_builder()
        .tls_built_in_root_certs(false)
        .add_root_certificate(reqwest::Certificate::from_pem(&ca).unwrap())
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

#[tokio::test(flavor = "multi_thread")]
async fn the_webhook_serving_these_files_is_trusted_through_the_ca_bundle() {
    let dir = tempfile::tempdir().unwrap();
    assert!(certs(dir.path(), &[]).status.success());
    assert_served_and_trusted(dir.path(), &dir.path().join("ca.crt")).await;
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

/// `--ca-cert CERT --ca-key KEY`, as flags.
fn kept(cert: &Path, key: &Path) -> Vec<String> {
    let path = |p: &Path| p.display().to_string();
    vec!["--ca-cert".into(), path(cert), "--ca-key".into(), path(key)]
}

fn read(path: &Path) -> Vec<u8> {
    std::fs::read(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

#[tokio::test(flavor = "multi_thread")]
async fn a_kept_ca_signs_a_new_serving_certificate_and_the_ca_bundle_stays_the_same() {
    let dir = tempfile::tempdir().unwrap();
    let a = dir.path().join("a");
    let first = certs(&a, &[]);
    assert!(first.status.success(), "{first:?}");
    let (ca_crt, ca_key) = (a.join("ca.crt"), a.join("ca.key"));

    let by_env = |out: &Path| {
        Command::new(env!("CARGO_BIN_EXE_zoneguard"))
            .args(["certs", "--namespace", "zg-system", "--out"])
            .arg(out)
            .env("ZONEGUARD_CERTS_CA_CERT", &ca_crt)
            .env("ZONEGUARD_CERTS_CA_KEY", &ca_key)
            .output()
            .expect("binary runs")
    };
    let flags = kept(&ca_crt, &ca_key);
    let flags: Vec<&str> = flags.iter().map(String::as_str).collect();
    for (how, out) in [
        ("flags", dir.path().join("b")),
        ("env", dir.path().join("c")),
    ] {
        let output = if how == "flags" {
            certs(&out, &flags)
        } else {
            by_env(&out)
        };
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert!(output.status.success(), "{how}: {stderr}");
        assert_eq!(output.stdout, first.stdout, "{how}: the same caBundle");
        assert!(stderr.contains("unchanged"), "{how}: {stderr}");
        assert_eq!(
            read(&out.join("ca.crt")),
            read(&ca_crt),
            "{how}: ca.crt is the kept CA's"
        );
        assert!(
            !out.join("ca.key").exists(),
            "{how}: the CA's key is not copied"
        );
        for name in ["tls.crt", "tls.key"] {
            assert_ne!(
                read(&out.join(name)),
                read(&a.join(name)),
                "{how}: a new {name}"
            );
        }

        let tls_der = der_of(&String::from_utf8(read(&out.join("tls.crt"))).unwrap());
        let ca_der = der_of(&String::from_utf8(read(&ca_crt)).unwrap());
        let (_, tls) = x509_parser::parse_x509_certificate(&tls_der).unwrap();
        let (_, ca) = x509_parser::parse_x509_certificate(&ca_der).unwrap();
        assert_eq!(tls.issuer().as_raw(), ca.subject().as_raw(), "{how}");
        assert!(tls.verify_signature(Some(ca.public_key())).is_ok(), "{how}");
        let san = format!(
            "{:?}",
            tls.subject_alternative_name().unwrap().unwrap().value
        );
        assert!(
            san.contains("zoneguard.zg-system.svc.cluster.local"),
            "{how}: {san}"
        );
        use std::os::unix::fs::PermissionsExt as _;
        let mode = std::fs::metadata(out.join("tls.key"))
            .unwrap()
            .permissions()
            .mode();
        assert_eq!(mode & 0o777, 0o600, "{how}");
    }
    assert_served_and_trusted(&dir.path().join("b"), &ca_crt).await;
}

#[test]
fn rotating_in_place_replaces_only_the_serving_pair() {
    let dir = tempfile::tempdir().unwrap();
    assert!(certs(dir.path(), &[]).status.success());
    let before = |name: &str| read(&dir.path().join(name));
    let (ca_crt, ca_key, tls_crt) = (before("ca.crt"), before("ca.key"), before("tls.crt"));
    let flags = kept(&dir.path().join("ca.crt"), &dir.path().join("ca.key"));
    let mut flags: Vec<&str> = flags.iter().map(String::as_str).collect();

    let refused = certs(dir.path(), &flags);
    assert_eq!(refused.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&refused.stderr).contains("--force"));
    assert_eq!(before("tls.crt"), tls_crt);

    flags.push("--force");
    let forced = certs(dir.path(), &flags);
    assert!(forced.status.success(), "{forced:?}");
    assert_eq!(before("ca.crt"), ca_crt);
    assert_eq!(before("ca.key"), ca_key, "the CA's key is left as it was");
    assert_ne!(before("tls.crt"), tls_crt);
}

/// A self-signed CA certificate and key (PEM) ending at `ends`, with `key_usages`.
fn ca_files(
    dir: &Path,
    name: &str,
    key_usages: Vec<rcgen::KeyUsagePurpose>,
    ends: time::OffsetDateTime,
) -> (std::path::PathBuf, std::path::PathBuf) {
    let mut params = rcgen::CertificateParams::default();
    params
        .distinguished_name
        .push(rcgen::DnType::CommonName, name);
    params.is_ca = rcgen::IsCa::Ca(rcgen::BasicConstraints::Unconstrained);
    params.key_usages = key_usages;
    params.not_before = time::OffsetDateTime::now_utc() - time::Duration::days(60);
    params.not_after = ends;
    let key = rcgen::KeyPair::generate().unwrap();
    let cert = params.self_signed(&key).unwrap();
    let (c, k) = (
        dir.join(format!("{name}.crt")),
        dir.join(format!("{name}.key")),
    );
    std::fs::write(&c, cert.pem()).unwrap();
    std::fs::write(&k, key.serialize_pem()).unwrap();
    (c, k)
}

#[test]
fn a_kept_ca_that_cannot_sign_is_refused_naming_the_file_and_nothing_is_written() {
    use rcgen::KeyUsagePurpose::{CrlSign, DigitalSignature, KeyCertSign};
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let a = d.join("a");
    assert!(certs(&a, &[]).status.success());
    let other = d.join("other");
    assert!(certs(&other, &[]).status.success());
    std::fs::write(d.join("text.crt"), "hello\n").unwrap();
    let now = time::OffsetDateTime::now_utc();
    let no_cert_sign = ca_files(
        d,
        "no-cert-sign",
        vec![DigitalSignature, CrlSign],
        now + time::Duration::days(400),
    );
    let month = ca_files(
        d,
        "month",
        vec![KeyCertSign],
        now + time::Duration::days(30),
    );
    let expired = ca_files(
        d,
        "expired",
        vec![KeyCertSign],
        now - time::Duration::days(1),
    );
    let (ca_crt, ca_key) = (a.join("ca.crt"), a.join("ca.key"));

    // (case, --ca-cert, --ca-key, what stderr says after "zoneguard certs: ")
    let p = |p: &Path| p.display().to_string();
    let table = [
        ("a missing certificate", d.join("missing.crt"), ca_key.clone(), format!("--ca-cert {}: cannot read: ", p(&d.join("missing.crt")))),
        ("a missing key", ca_crt.clone(), d.join("missing.key"), format!("--ca-key {}: cannot read: ", p(&d.join("missing.key")))),
        ("a directory as certificate", d.to_path_buf(), ca_key.clone(), format!("--ca-cert {}: cannot read: ", p(d))),
        ("a certificate that is not PEM", d.join("text.crt"), ca_key.clone(), format!("--ca-cert {}: not a PEM certificate", p(&d.join("text.crt")))),
        ("a key that is not PEM", ca_crt.clone(), d.join("text.crt"), format!("--ca-key {}: not a PEM private key", p(&d.join("text.crt")))),
        ("a key that is a certificate", ca_crt.clone(), ca_crt.clone(), format!("--ca-key {}: not a PEM private key", p(&ca_crt))),
        ("another CA's key", ca_crt.clone(), other.join("ca.key"), format!("--ca-key {} is not the private key of --ca-cert {}: their public keys differ", p(&other.join("ca.key")), p(&ca_crt))),
        ("a serving certificate", a.join("tls.crt"), a.join("tls.key"), format!("--ca-cert {}: not a CA certificate: it lacks basicConstraints CA:TRUE", p(&a.join("tls.crt")))),
        ("a CA without keyCertSign", no_cert_sign.0.clone(), no_cert_sign.1.clone(), format!("--ca-cert {}: not a CA certificate: its keyUsage (Digital Signature, CRL Sign) lacks keyCertSign", p(&no_cert_sign.0))),
        ("a CA ending before the serving certificate", month.0.clone(), month.1.clone(), format!("--ca-cert {}: the CA is valid until ", p(&month.0))),
        ("an expired CA", expired.0.clone(), expired.1.clone(), format!("--ca-cert {}: the CA expired on ", p(&expired.0))),
    ];
    for (case, cert, key, want) in table {
        let out = d.join("out");
        let flags = kept(&cert, &key);
        let flags: Vec<&str> = flags.iter().map(String::as_str).collect();
        let output = certs(&out, &flags);
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert_eq!(output.status.code(), Some(2), "{case}: {stderr}");
        assert!(
            stderr.starts_with(&format!("zoneguard certs: {want}")),
            "{case}: {stderr}"
        );
        assert!(!stderr.contains("panicked"), "{case}: {stderr}");
        assert!(!out.exists(), "{case}: nothing written");
    }

    // The refusal of a CA ending first says until when it is valid and what validity fits, and
    // that validity is taken.
    let flags = kept(&month.0, &month.1);
    let mut flags: Vec<&str> = flags.iter().map(String::as_str).collect();
    let refused = String::from_utf8_lossy(&certs(&d.join("out"), &flags).stderr).into_owned();
    let until = {
        let der = der_of(&std::fs::read_to_string(&month.0).unwrap());
        let (_, ca) = x509_parser::parse_x509_certificate(&der).unwrap();
        ca.validity().not_after.to_datetime()
    };
    let date = format!(
        "{}-{:02}-{:02}",
        until.year(),
        u8::from(until.month()),
        until.day()
    );
    assert!(
        refused.contains(&format!("the CA is valid until {date} ")),
        "{refused}"
    );
    assert!(
        refused.contains("before a 365-day serving certificate would end"),
        "{refused}"
    );
    assert!(
        refused.contains("pass --validity-days 29 or less, or make a new CA"),
        "{refused}"
    );
    flags.extend(["--validity-days", "29"]);
    let fits = certs(&d.join("out"), &flags);
    assert!(fits.status.success(), "{fits:?}");
}

#[test]
fn a_ca_certificate_without_its_key_is_a_usage_error() {
    let dir = tempfile::tempdir().unwrap();
    let a = dir.path().join("a");
    assert!(certs(&a, &[]).status.success());
    let paths = [a.join("ca.crt"), a.join("ca.key")];
    let [ca_crt, ca_key] = paths.each_ref().map(|p| p.to_str().unwrap());
    let out = dir.path().join("out");
    // (case, flags, environment, the flag said to be missing)
    let table = [
        ("--ca-cert alone", ["--ca-cert", ca_crt], None, "--ca-key"),
        ("--ca-key alone", ["--ca-key", ca_key], None, "--ca-cert"),
        (
            "ZONEGUARD_CERTS_CA_CERT alone",
            ["--validity-days", "30"],
            Some(("ZONEGUARD_CERTS_CA_CERT", ca_crt)),
            "--ca-key",
        ),
    ];
    for (case, args, env, missing) in table {
        let mut command = Command::new(env!("CARGO_BIN_EXE_zoneguard"));
        command.args(["certs", "--out"]).arg(&out).args(args);
        command.envs(env);
        let output = command.output().expect("binary runs");
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert_eq!(output.status.code(), Some(2), "{case}: {stderr}");
        assert!(
            stderr.contains("the following required arguments were not provided")
                && stderr.contains(missing),
            "{case}: {stderr}"
        );
        assert!(!out.exists(), "{case}: nothing written");
    }
}
