//! `zoneguard certs --ca-cert/--ca-key`: a CA kept from an earlier run signs the new serving
//! certificate, so the caBundle stays the same (as cert-manager's CA issuer does). Everything
//! read is checked before anything is written: both files are PEM, the certificate is a CA that
//! may sign certificates, the key is its key, and the CA outlives the serving certificate.

use super::{serving_cert, serving_end, CertsError, Issued};
use crate::serve::tls::pem_problem;
use rcgen::{Issuer, KeyPair};
use rustls_pki_types::pem::{self, PemObject as _};
use rustls_pki_types::{CertificateDer, PrivateKeyDer};
use std::path::Path;
use time::OffsetDateTime;
use x509_parser::certificate::X509Certificate;

/// What to do when the kept CA cannot sign: make a new one.
pub(super) const NEW_CA: &str =
    "make a new CA (zoneguard certs without --ca-cert and --ca-key) and put both CAs in the caBundle while the pods switch";

/// The --ca-cert and --ca-key files, for messages.
struct Files<'a> {
    cert: &'a Path,
    key: &'a Path,
}

impl Files<'_> {
    fn cert_err(&self, reason: impl Into<String>) -> CertsError {
        CertsError::ReadCa {
            flag: "--ca-cert",
            path: self.cert.display().to_string(),
            reason: reason.into(),
        }
    }

    fn key_err(&self, reason: impl Into<String>) -> CertsError {
        CertsError::ReadCa {
            flag: "--ca-key",
            path: self.key.display().to_string(),
            reason: reason.into(),
        }
    }
}

/// A serving certificate for `names`, valid `days` from now, signed by the CA whose PEM
/// certificate is `cert` and PEM PKCS#8 key is `key`; the CA's certificate is passed on as read,
/// and its key is not.
pub(super) fn issue(
    cert: &Path,
    key: &Path,
    names: &[String],
    days: u32,
) -> Result<Issued, CertsError> {
    let files = Files { cert, key };
    let read = |path: &Path| std::fs::read(path).map_err(|e| format!("cannot read: {e}"));
    let cert_pem = read(cert).map_err(|e| files.cert_err(e))?;
    let key_pem = read(key).map_err(|e| files.key_err(e))?;
    issue_from_pem(
        &files,
        &cert_pem,
        &key_pem,
        names,
        OffsetDateTime::now_utc(),
        days,
    )
}

/// [`issue`], from the files' contents, at `now`.
fn issue_from_pem(
    files: &Files<'_>,
    cert_pem: &[u8],
    key_pem: &[u8],
    names: &[String],
    now: OffsetDateTime,
    days: u32,
) -> Result<Issued, CertsError> {
    let ca_pem = std::str::from_utf8(cert_pem)
        .map_err(|_| files.cert_err("not PEM: it is not text (a DER certificate?)"))?;
    let der = single_certificate(cert_pem).map_err(|e| files.cert_err(e))?;
    let (_, ca) = x509_parser::parse_x509_certificate(&der)
        .map_err(|e| files.cert_err(format!("not an X.509 certificate ({e})")))?;
    if let Some(reason) = not_a_ca(&ca) {
        return Err(CertsError::NotCa {
            path: files.cert.display().to_string(),
            reason,
        });
    }
    let key = key_pair(key_pem).map_err(|e| files.key_err(e))?;
    if key.public_key_raw() != &*ca.public_key().subject_public_key.data {
        return Err(CertsError::CaKeyMismatch {
            cert: files.cert.display().to_string(),
            key: files.key.display().to_string(),
        });
    }
    refuse_ending_first(files.cert, ca.validity().not_after.to_datetime(), now, days)?;
    let issuer = issuer(&der, &ca, key).map_err(|e| files.cert_err(e))?;
    let (serving, serving_der) = serving_cert(&issuer, names, now, days)?;
    if !names_as_issuer(&serving_der, ca.subject().as_raw()) {
        return Err(files.cert_err(UNREPRODUCIBLE_SUBJECT));
    }
    Ok(Issued {
        ca_pem: ca_pem.to_owned(),
        ca_key_pem: None,
        serving,
    })
}

/// Why a CA whose subject rcgen cannot write back as an issuer name is refused.
const UNREPRODUCIBLE_SUBJECT: &str = "zoneguard cannot write its subject name byte for byte as the issuer of another certificate (a repeated attribute type, a component of several attributes, an unusual encoding), and a certificate naming it otherwise would not chain to it";

/// The one certificate in `pem`, as DER.
fn single_certificate(pem: &[u8]) -> Result<CertificateDer<'static>, String> {
    let mut certs = CertificateDer::pem_slice_iter(pem)
        .collect::<Result<Vec<_>, _>>()
        .map_err(|e| format!("not PEM: {}", pem_problem(&e)))?;
    match (certs.pop(), certs.len()) {
        (Some(cert), 0) => Ok(cert),
        (None, _) => Err("not a PEM certificate: no -----BEGIN CERTIFICATE----- block".into()),
        (Some(_), others) => Err(format!(
            "holds {} certificates; --ca-cert takes one, the CA's own",
            others + 1
        )),
    }
}

/// Why `cert` may not sign certificates: its basicConstraints do not say CA:TRUE, or it has a
/// keyUsage without keyCertSign. (Without a keyUsage, any use is allowed: RFC 5280, 4.2.1.3.)
fn not_a_ca(cert: &X509Certificate<'_>) -> Option<String> {
    let basic = match cert.basic_constraints() {
        Err(e) => return Some(format!("its basicConstraints cannot be read ({e})")),
        Ok(None) => return Some("it lacks basicConstraints CA:TRUE".into()),
        Ok(Some(ext)) => ext.value,
    };
    if !basic.ca {
        return Some("its basicConstraints say CA:FALSE".into());
    }
    match cert.key_usage() {
        Err(e) => Some(format!("its keyUsage cannot be read ({e})")),
        Ok(Some(ext)) if !ext.value.key_cert_sign() => {
            Some(format!("its keyUsage ({}) lacks keyCertSign", ext.value))
        }
        Ok(_) => None,
    }
}

/// The key pair in `pem`: an unencrypted PKCS#8 key of a kind rcgen signs with.
fn key_pair(pem: &[u8]) -> Result<KeyPair, String> {
    let key = PrivateKeyDer::from_pem_slice(pem).map_err(|e| match e {
        pem::Error::NoItemsFound if contains(pem, b"-----BEGIN ENCRYPTED PRIVATE KEY-----") => {
            "an encrypted private key; --ca-key takes an unencrypted one (openssl pkcs8 -in KEY decrypts it)".to_owned()
        }
        pem::Error::NoItemsFound => {
            "not a PEM private key: no -----BEGIN PRIVATE KEY----- block".to_owned()
        }
        e => format!("not PEM: {}", pem_problem(&e)),
    })?;
    let kind = match &key {
        PrivateKeyDer::Pkcs8(_) => None,
        PrivateKeyDer::Pkcs1(_) => Some("an RSA (PKCS#1)"),
        PrivateKeyDer::Sec1(_) => Some("an EC (SEC1)"),
        _ => Some("a"),
    };
    if let Some(kind) = kind {
        return Err(format!("{kind} private key; --ca-key takes PKCS#8 (-----BEGIN PRIVATE KEY-----), as zoneguard certs writes it (openssl pkcs8 -topk8 -nocrypt converts it)"));
    }
    KeyPair::try_from(&key).map_err(|e| {
        format!("not a key zoneguard can sign with (ECDSA P-256 or P-384, Ed25519 or RSA): {e}")
    })
}

fn contains(haystack: &[u8], needle: &[u8]) -> bool {
    haystack.windows(needle.len()).any(|w| w == needle)
}

/// Refuses a CA that ends before a serving certificate valid `days` from `now` would.
fn refuse_ending_first(
    path: &Path,
    ca_end: OffsetDateTime,
    now: OffsetDateTime,
    days: u32,
) -> Result<(), CertsError> {
    let ends = serving_end(now, days);
    if ca_end >= ends {
        return Ok(());
    }
    let path = path.display().to_string();
    if ca_end <= now {
        return Err(CertsError::CaExpired {
            path,
            until: utc(ca_end),
        });
    }
    let remedy = match (ca_end - now).whole_days() {
        0 => NEW_CA.to_owned(),
        most => format!("pass --validity-days {most} or less, or {NEW_CA}"),
    };
    Err(CertsError::CaEndsFirst {
        path,
        until: utc(ca_end),
        days,
        ends: utc(ends),
        remedy,
    })
}

/// `t` as `2026-01-31 23:59:59 UTC`.
fn utc(t: OffsetDateTime) -> String {
    let t = t.to_offset(time::UtcOffset::UTC);
    format!(
        "{}-{:02}-{:02} {:02}:{:02}:{:02} UTC",
        t.year(),
        u8::from(t.month()),
        t.day(),
        t.hour(),
        t.minute(),
        t.second()
    )
}

/// An rcgen issuer for the CA certificate `der` (parsed: `ca`) and its key.
fn issuer(
    der: &CertificateDer<'_>,
    ca: &X509Certificate<'_>,
    key: KeyPair,
) -> Result<Issuer<'static, KeyPair>, String> {
    // rcgen takes a subject name apart into one attribute per component and panics on an
    // empty one; it cannot write a component of several attributes back either.
    if ca.subject().iter().any(|rdn| rdn.iter().count() != 1) {
        return Err(UNREPRODUCIBLE_SUBJECT.to_owned());
    }
    Issuer::from_ca_cert_der(der, key).map_err(|e| format!("{UNREPRODUCIBLE_SUBJECT} ({e})"))
}

/// Whether the certificate `der` names `subject` (DER) as its issuer, byte for byte: clients
/// find a certificate's issuer by comparing the two.
fn names_as_issuer(der: &[u8], subject: &[u8]) -> bool {
    x509_parser::parse_x509_certificate(der)
        .is_ok_and(|(_, cert)| cert.issuer().as_raw() == subject)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::certs::Ca;
    use rcgen::{BasicConstraints, CertificateParams, DnType, IsCa, KeyUsagePurpose};
    use time::Duration;

    fn files() -> Files<'static> {
        Files {
            cert: Path::new("ca.crt"),
            key: Path::new("ca.key"),
        }
    }

    /// Now, in whole seconds, as certificates write it.
    fn now() -> OffsetDateTime {
        OffsetDateTime::now_utc()
            .replace_nanosecond(0)
            .expect("0 ns")
    }

    /// A self-signed certificate (PEM) valid from a day before `now` to `ends`, with `is_ca` and
    /// `key_usages`, and its PKCS#8 key (PEM).
    fn self_signed(
        is_ca: IsCa,
        key_usages: Vec<KeyUsagePurpose>,
        ends: OffsetDateTime,
    ) -> (String, String) {
        self_signed_with(&rcgen::PKCS_ECDSA_P256_SHA256, is_ca, key_usages, ends)
    }

    /// [`self_signed`], with a key for `alg`.
    fn self_signed_with(
        alg: &'static rcgen::SignatureAlgorithm,
        is_ca: IsCa,
        key_usages: Vec<KeyUsagePurpose>,
        ends: OffsetDateTime,
    ) -> (String, String) {
        let mut params = CertificateParams::default();
        params
            .distinguished_name
            .push(DnType::CommonName, "kept CA test");
        params.is_ca = is_ca;
        params.key_usages = key_usages;
        params.not_before = now() - Duration::days(1);
        params.not_after = ends;
        let key = KeyPair::generate_for(alg).expect("key");
        let cert = params.self_signed(&key).expect("certificate");
        (cert.pem(), key.serialize_pem())
    }

    /// A CA as `zoneguard certs` makes one, but ending at `ends`.
    fn ca_ending(ends: OffsetDateTime) -> (String, String) {
        self_signed(
            IsCa::Ca(BasicConstraints::Constrained(0)),
            vec![KeyUsagePurpose::KeyCertSign, KeyUsagePurpose::CrlSign],
            ends,
        )
    }

    fn block(label: &str) -> String {
        format!("-----BEGIN {label}-----\nAAAA\n-----END {label}-----\n")
    }

    #[test]
    fn a_kept_ca_signs_only_when_both_files_hold_what_they_must() {
        let now = now();
        let made = Ca::new("zoneguard webhook CA", 3650).expect("CA");
        let (made_cert, made_key) = (made.cert.cert_pem.as_str(), made.cert.key_pem.as_str());
        let leaf = made.issue(&["leaf.example".to_owned()], 30).expect("leaf");
        let year = ca_ending(now + Duration::days(365));
        let no_key_usage = self_signed(
            IsCa::Ca(BasicConstraints::Unconstrained),
            vec![],
            now + Duration::days(365),
        );
        let no_cert_sign = self_signed(
            IsCa::Ca(BasicConstraints::Unconstrained),
            vec![KeyUsagePurpose::DigitalSignature, KeyUsagePurpose::CrlSign],
            now + Duration::days(365),
        );
        let [p384, ed25519] = [&rcgen::PKCS_ECDSA_P384_SHA384, &rcgen::PKCS_ED25519].map(|alg| {
            self_signed_with(
                alg,
                IsCa::Ca(BasicConstraints::Unconstrained),
                vec![KeyUsagePurpose::KeyCertSign],
                now + Duration::days(365),
            )
        });
        let not_ca = self_signed(IsCa::ExplicitNoCa, vec![], now + Duration::days(365));
        let expired = ca_ending(now - Duration::days(1));
        let hours = ca_ending(now + Duration::hours(12));
        let other = Ca::new("another CA", 3650).expect("CA");
        let der = CertificateDer::from_pem_slice(made_cert.as_bytes()).expect("DER");
        let two = format!("{made_cert}{}", other.cert.cert_pem);
        let cut = &made_cert[..made_cert.len() - 30];
        let [cert_block, encrypted, sec1, pkcs1, pkcs8] = [
            "CERTIFICATE",
            "ENCRYPTED PRIVATE KEY",
            "EC PRIVATE KEY",
            "RSA PRIVATE KEY",
            "PRIVATE KEY",
        ]
        .map(block);

        /// Signed, or refused with a message that starts so.
        type Want = Result<(), &'static str>;
        /// (case, --ca-cert's contents, --ca-key's, --validity-days, want)
        type Row<'a> = (&'a str, &'a [u8], &'a [u8], u32, Want);
        let table: &[Row] = &[
            ("a CA zoneguard certs made signs", made_cert.as_bytes(), made_key.as_bytes(), 365, Ok(())),
            ("a CA signs a certificate that ends when it does", year.0.as_bytes(), year.1.as_bytes(), 365, Ok(())),
            ("a CA with a P-384 key signs", p384.0.as_bytes(), p384.1.as_bytes(), 30, Ok(())),
            ("a CA with an Ed25519 key signs", ed25519.0.as_bytes(), ed25519.1.as_bytes(), 30, Ok(())),
            ("a CA without keyUsage signs (RFC 5280 allows it any use)", no_key_usage.0.as_bytes(), no_key_usage.1.as_bytes(), 30, Ok(())),
            ("an empty certificate file holds no certificate", b"", made_key.as_bytes(), 30, Err("--ca-cert ca.crt: not a PEM certificate: no -----BEGIN CERTIFICATE----- block")),
            ("a DER certificate is not PEM", &der, made_key.as_bytes(), 30, Err("--ca-cert ca.crt: not PEM: it is not text")),
            ("a PEM block cut short is not PEM", cut.as_bytes(), made_key.as_bytes(), 30, Err("--ca-cert ca.crt: not PEM: a PEM block is cut short")),
            ("a bundle of two CAs is not one CA", two.as_bytes(), made_key.as_bytes(), 30, Err("--ca-cert ca.crt: holds 2 certificates; --ca-cert takes one")),
            ("a CERTIFICATE block must hold a certificate", cert_block.as_bytes(), made_key.as_bytes(), 30, Err("--ca-cert ca.crt: not an X.509 certificate")),
            ("a serving certificate is not a CA", leaf.cert_pem.as_bytes(), leaf.key_pem.as_bytes(), 30, Err("--ca-cert ca.crt: not a CA certificate: it lacks basicConstraints CA:TRUE")),
            ("a certificate that says CA:FALSE is not a CA", not_ca.0.as_bytes(), not_ca.1.as_bytes(), 30, Err("--ca-cert ca.crt: not a CA certificate: its basicConstraints say CA:FALSE")),
            ("a CA whose keyUsage lacks keyCertSign may not sign certificates", no_cert_sign.0.as_bytes(), no_cert_sign.1.as_bytes(), 30, Err("--ca-cert ca.crt: not a CA certificate: its keyUsage (Digital Signature, CRL Sign) lacks keyCertSign")),
            ("an empty key file holds no key", made_cert.as_bytes(), b"", 30, Err("--ca-key ca.key: not a PEM private key: no -----BEGIN PRIVATE KEY----- block")),
            ("an encrypted key is refused as such", made_cert.as_bytes(), encrypted.as_bytes(), 30, Err("--ca-key ca.key: an encrypted private key")),
            ("a SEC1 EC key is not PKCS#8", made_cert.as_bytes(), sec1.as_bytes(), 30, Err("--ca-key ca.key: an EC (SEC1) private key; --ca-key takes PKCS#8")),
            ("a PKCS#1 RSA key is not PKCS#8", made_cert.as_bytes(), pkcs1.as_bytes(), 30, Err("--ca-key ca.key: an RSA (PKCS#1) private key; --ca-key takes PKCS#8")),
            ("a PRIVATE KEY block must hold a key", made_cert.as_bytes(), pkcs8.as_bytes(), 30, Err("--ca-key ca.key: not a key zoneguard can sign with")),
            ("another CA's key does not belong to the certificate", made_cert.as_bytes(), other.cert.key_pem.as_bytes(), 30, Err("--ca-key ca.key is not the private key of --ca-cert ca.crt: their public keys differ")),
            ("a key of another kind does not belong to the certificate", made_cert.as_bytes(), ed25519.1.as_bytes(), 30, Err("--ca-key ca.key is not the private key of --ca-cert ca.crt")),
            ("a CA that ends before the serving certificate would is refused", year.0.as_bytes(), year.1.as_bytes(), 366, Err("--ca-cert ca.crt: the CA is valid until ")),
            ("an expired CA is refused", expired.0.as_bytes(), expired.1.as_bytes(), 1, Err("--ca-cert ca.crt: the CA expired on ")),
            ("a CA with less than a day left is refused", hours.0.as_bytes(), hours.1.as_bytes(), 1, Err("--ca-cert ca.crt: the CA is valid until ")),
        ];
        let names = ["zoneguard.zoneguard.svc".to_owned()];
        for (case, cert, key, days, want) in table {
            let got = issue_from_pem(&files(), cert, key, &names, now, *days);
            match (got, want) {
                (Ok(issued), Ok(())) => {
                    assert_eq!(
                        issued.ca_pem.as_bytes(),
                        *cert,
                        "{case}: ca.crt is the file"
                    );
                    assert!(issued.ca_key_pem.is_none(), "{case}: no ca.key");
                    let der = CertificateDer::from_pem_slice(issued.serving.cert_pem.as_bytes())
                        .expect("serving DER");
                    let ca_der = CertificateDer::from_pem_slice(cert).expect("CA DER");
                    let (_, ca) = x509_parser::parse_x509_certificate(&ca_der).expect("CA");
                    assert!(
                        names_as_issuer(&der, ca.subject().as_raw()),
                        "{case}: chains"
                    );
                }
                (Err(e), Err(want)) => {
                    let e = e.to_string();
                    assert!(e.starts_with(want), "{case}: {e}");
                }
                (got, want) => panic!("{case}: {:?}, want {want:?}", got.map(|_| ())),
            }
        }
    }

    #[test]
    fn a_ca_ending_too_soon_is_refused_with_when_it_ends_and_what_to_do() {
        let now = now();
        let new_ca = format!("; {NEW_CA}");
        let table: &[(Duration, u32, Result<(), String>)] = &[
            (Duration::days(400), 365, Ok(())),
            (Duration::days(365), 365, Ok(())),
            (
                Duration::days(100),
                365,
                Err(format!("--ca-cert ca.crt: the CA is valid until {}, before a 365-day serving certificate would end ({}); pass --validity-days 100 or less, or {NEW_CA}", utc(now + Duration::days(100)), utc(now + Duration::days(365)))),
            ),
            (
                Duration::days(100) - Duration::seconds(1),
                100,
                Err(format!("--ca-cert ca.crt: the CA is valid until {}, before a 100-day serving certificate would end ({}); pass --validity-days 99 or less, or {NEW_CA}", utc(now + Duration::days(100) - Duration::seconds(1)), utc(now + Duration::days(100)))),
            ),
            (
                Duration::hours(12),
                1,
                Err(format!("--ca-cert ca.crt: the CA is valid until {}, before a 1-day serving certificate would end ({}){new_ca}", utc(now + Duration::hours(12)), utc(now + Duration::days(1)))),
            ),
            (
                Duration::ZERO,
                1,
                Err(format!("--ca-cert ca.crt: the CA expired on {}{new_ca}", utc(now))),
            ),
            (
                -Duration::days(3),
                1,
                Err(format!("--ca-cert ca.crt: the CA expired on {}{new_ca}", utc(now - Duration::days(3)))),
            ),
        ];
        for (left, days, want) in table {
            let got = refuse_ending_first(Path::new("ca.crt"), now + *left, now, *days)
                .map_err(|e| e.to_string());
            assert_eq!(&got, want, "{left} left, {days} days");
        }
    }

    #[test]
    fn a_certificate_chains_only_to_the_subject_it_names_as_issuer() {
        let (a, b) = (
            Ca::new("CA a", 1).expect("a"),
            Ca::new("CA b", 1).expect("b"),
        );
        let subject = |ca: &Ca| {
            let der = CertificateDer::from_pem_slice(ca.cert.cert_pem.as_bytes()).expect("DER");
            let (_, cert) = x509_parser::parse_x509_certificate(&der).expect("certificate");
            cert.subject().as_raw().to_vec()
        };
        let (_, leaf) = serving_cert(&a.issuer, &["x.example".to_owned()], now(), 1).expect("leaf");
        assert!(names_as_issuer(&leaf, &subject(&a)));
        assert!(!names_as_issuer(&leaf, &subject(&b)));
        assert!(!names_as_issuer(b"not a certificate", &subject(&a)));
    }

    #[test]
    fn times_are_written_in_utc_to_the_second() {
        let t = OffsetDateTime::from_unix_timestamp(1_769_896_799).expect("2026")
            + Duration::milliseconds(750);
        let east = time::UtcOffset::from_hms(2, 0, 0).expect("+02:00");
        assert_eq!(utc(t.to_offset(east)), "2026-01-31 21:59:59 UTC");
    }
}
