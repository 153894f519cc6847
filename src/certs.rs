//! `zoneguard certs`: a CA and a serving certificate for the webhook Service, and the caBundle
//! to put in the webhook configuration. Also the self-signed development certificate `serve`
//! uses when it is given none.

use base64::Engine as _;
use rcgen::{
    BasicConstraints, CertificateParams, DistinguishedName, DnType, ExtendedKeyUsagePurpose, IsCa,
    Issuer, KeyPair, KeyUsagePurpose, SignatureAlgorithm,
};
use std::io::Write as _;
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use time::{Duration, OffsetDateTime};
use zoneguard_core::k8s_name;

#[derive(Debug, clap::Args)]
pub struct Args {
    /// Name of the webhook's Service (a DNS-1035 label).
    #[arg(long, env = "ZONEGUARD_CERTS_SERVICE", default_value = "zoneguard", value_parser = service_name)]
    pub service: String,
    /// Namespace of the webhook's Service (a DNS-1123 label).
    #[arg(long, env = "ZONEGUARD_CERTS_NAMESPACE", default_value = "zoneguard", value_parser = namespace_name)]
    pub namespace: String,
    /// Directory to write ca.crt, ca.key, tls.crt and tls.key into (created if missing).
    #[arg(long, env = "ZONEGUARD_CERTS_OUT")]
    pub out: PathBuf,
    /// Validity of the serving certificate, in days. The CA is valid for 10 years, or twice
    /// this when that is longer, so the CA outlives the serving certificates it signs.
    #[arg(long, env = "ZONEGUARD_CERTS_VALIDITY_DAYS", default_value_t = 365, value_parser = clap::value_parser!(u32).range(1..=3650))]
    pub validity_days: u32,
    /// Overwrite files that already exist in --out.
    #[arg(long, env = "ZONEGUARD_CERTS_FORCE")]
    pub force: bool,
}

/// A certificate and its private key, both PEM.
#[derive(Debug, Clone)]
pub struct KeyedCert {
    pub cert_pem: String,
    pub key_pem: String,
}

/// A certificate authority that can sign serving certificates.
pub struct Ca {
    issuer: Issuer<'static, KeyPair>,
    pub cert: KeyedCert,
}

#[derive(Debug, thiserror::Error)]
pub enum CertsError {
    #[error("generating certificate: {0}")]
    Generate(#[from] rcgen::Error),
    #[error("{path}: {source}")]
    Write {
        path: String,
        source: std::io::Error,
    },
    #[error("{0} already exists (pass --force to overwrite)")]
    Exists(String),
}

/// The shortest CA validity, in days: 10 years (see [`ca_validity_days`]).
pub const CA_MIN_DAYS: u32 = 3650;

/// Days the CA is valid when the serving certificates it signs are valid `leaf_days`: 10 years, or
/// twice `leaf_days` when that is longer, so a serving certificate re-issued from the same CA
/// before the CA ends is possible.
pub fn ca_validity_days(leaf_days: u32) -> u32 {
    CA_MIN_DAYS.max(leaf_days.saturating_mul(2))
}

/// Why `name`, the name of a `what`, is not a label: 1 to 63 lower-case alphanumerics and '-',
/// starting with a letter (`first_letter`, DNS-1035) or an alphanumeric (DNS-1123), ending with an
/// alphanumeric. `None` when it is one.
fn label_error(what: &str, name: &str, first_letter: bool) -> Option<String> {
    let (rule, start) = if first_letter {
        ("DNS-1035", "a lower-case letter")
    } else {
        ("DNS-1123", "a lower-case letter or digit")
    };
    let label = if first_letter {
        k8s_name::is_dns1035_label(name)
    } else {
        k8s_name::is_dns1123_label(name)
    };
    if label {
        return None;
    }
    Some(format!(
        "a {what} must be a {rule} label: at most {} lower-case letters, digits and '-', starting with {start} and ending with a lower-case letter or digit",
        k8s_name::MAX_LABEL
    ))
}

/// `--service`: a Service name is a DNS-1035 label.
fn service_name(name: &str) -> Result<String, String> {
    label_error("Service name", name, true).map_or_else(|| Ok(name.to_owned()), Err)
}

/// `--namespace`: a namespace name is a DNS-1123 label.
fn namespace_name(name: &str) -> Result<String, String> {
    label_error("namespace", name, false).map_or_else(|| Ok(name.to_owned()), Err)
}

/// KeyUsage of a serving certificate whose key is `alg`'s: digitalSignature, and keyEncipherment
/// only for an RSA key (TLS 1.2's RSA key exchange encrypts to it); an ECDSA or Ed25519 key
/// only signs (RFC 5480, section 3).
fn serving_key_usages(alg: &SignatureAlgorithm) -> Vec<KeyUsagePurpose> {
    let rsa = [
        &rcgen::PKCS_RSA_SHA256,
        &rcgen::PKCS_RSA_SHA384,
        &rcgen::PKCS_RSA_SHA512,
    ]
    .contains(&alg);
    if rsa {
        vec![
            KeyUsagePurpose::DigitalSignature,
            KeyUsagePurpose::KeyEncipherment,
        ]
    } else {
        vec![KeyUsagePurpose::DigitalSignature]
    }
}

fn validity(params: &mut CertificateParams, days: u32) {
    let now = OffsetDateTime::now_utc();
    params.not_before = now - Duration::hours(1);
    params.not_after = now + Duration::days(i64::from(days));
}

impl Ca {
    /// A CA valid for `days` (see [`ca_validity_days`]).
    pub fn new(common_name: &str, days: u32) -> Result<Ca, rcgen::Error> {
        let mut params = CertificateParams::default();
        let mut dn = DistinguishedName::new();
        dn.push(DnType::CommonName, common_name);
        params.distinguished_name = dn;
        params.is_ca = IsCa::Ca(BasicConstraints::Constrained(0));
        params.key_usages = vec![
            KeyUsagePurpose::KeyCertSign,
            KeyUsagePurpose::CrlSign,
            KeyUsagePurpose::DigitalSignature,
        ];
        validity(&mut params, days);
        let key = KeyPair::generate()?;
        let cert = params.self_signed(&key)?;
        let keyed = KeyedCert {
            cert_pem: cert.pem(),
            key_pem: key.serialize_pem(),
        };
        Ok(Ca {
            issuer: Issuer::new(params, key),
            cert: keyed,
        })
    }

    /// A serving certificate for `names` (DNS names or IP addresses), signed by this CA.
    pub fn issue(&self, names: &[String], days: u32) -> Result<KeyedCert, rcgen::Error> {
        let mut params = CertificateParams::new(names.to_vec())?;
        let mut dn = DistinguishedName::new();
        dn.push(
            DnType::CommonName,
            names.first().map_or("zoneguard", String::as_str),
        );
        params.distinguished_name = dn;
        let key = KeyPair::generate()?;
        params.key_usages = serving_key_usages(key.algorithm());
        params.extended_key_usages = vec![ExtendedKeyUsagePurpose::ServerAuth];
        params.use_authority_key_identifier_extension = true;
        validity(&mut params, days);
        let cert = params.signed_by(&key, &self.issuer)?;
        Ok(KeyedCert {
            cert_pem: cert.pem(),
            key_pem: key.serialize_pem(),
        })
    }
}

/// The DNS names the API server uses to reach `<service>.<namespace>`.
pub fn service_names(service: &str, namespace: &str) -> Vec<String> {
    vec![
        format!("{service}.{namespace}.svc"),
        format!("{service}.{namespace}.svc.cluster.local"),
    ]
}

/// The base64 caBundle for a webhook configuration's `clientConfig.caBundle`.
pub fn ca_bundle(ca_pem: &str) -> String {
    base64::engine::general_purpose::STANDARD.encode(ca_pem.as_bytes())
}

/// A self-signed certificate for localhost and 127.0.0.1, valid for 30 days (what `serve` uses
/// without certificate flags).
pub fn self_signed_localhost() -> Result<KeyedCert, rcgen::Error> {
    let mut params = CertificateParams::new(vec!["localhost".to_owned(), "127.0.0.1".to_owned()])?;
    let mut dn = DistinguishedName::new();
    dn.push(
        DnType::CommonName,
        "zoneguard development certificate (localhost)",
    );
    params.distinguished_name = dn;
    params.extended_key_usages = vec![ExtendedKeyUsagePurpose::ServerAuth];
    validity(&mut params, 30);
    let key = KeyPair::generate()?;
    let cert = params.self_signed(&key)?;
    Ok(KeyedCert {
        cert_pem: cert.pem(),
        key_pem: key.serialize_pem(),
    })
}

fn write_file(path: &Path, text: &str, private: bool, force: bool) -> Result<(), CertsError> {
    let err = |source| CertsError::Write {
        path: path.display().to_string(),
        source,
    };
    if !force && path.exists() {
        return Err(CertsError::Exists(path.display().to_string()));
    }
    let mut options = std::fs::OpenOptions::new();
    options.write(true).create(true).truncate(true);
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt as _;
        options.mode(if private { 0o600 } else { 0o644 });
    }
    let mut file = options.open(path).map_err(err)?;
    file.write_all(text.as_bytes()).map_err(err)
}

/// Generate and write the CA and serving certificate; returns the caBundle.
pub fn generate(args: &Args) -> Result<String, CertsError> {
    let ca = Ca::new(
        &format!("zoneguard webhook CA ({}/{})", args.namespace, args.service),
        ca_validity_days(args.validity_days),
    )?;
    let serving = ca.issue(
        &service_names(&args.service, &args.namespace),
        args.validity_days,
    )?;
    std::fs::create_dir_all(&args.out).map_err(|source| CertsError::Write {
        path: args.out.display().to_string(),
        source,
    })?;
    let files = [
        ("ca.crt", &ca.cert.cert_pem, false),
        ("ca.key", &ca.cert.key_pem, true),
        ("tls.crt", &serving.cert_pem, false),
        ("tls.key", &serving.key_pem, true),
    ];
    if !args.force {
        if let Some((name, _, _)) = files
            .iter()
            .find(|(name, _, _)| args.out.join(name).exists())
        {
            return Err(CertsError::Exists(
                args.out.join(name).display().to_string(),
            ));
        }
    }
    for (name, text, private) in files {
        write_file(&args.out.join(name), text, private, true)?;
    }
    Ok(ca_bundle(&ca.cert.cert_pem))
}

pub fn run(args: Args) -> ExitCode {
    match generate(&args) {
        Ok(bundle) => {
            let names = service_names(&args.service, &args.namespace).join(", ");
            eprintln!(
                "wrote ca.crt, ca.key, tls.crt, tls.key to {} (serving certificate for {names}); caBundle:",
                args.out.display()
            );
            println!("{bundle}");
            ExitCode::SUCCESS
        }
        Err(e) => {
            eprintln!("zoneguard certs: {e}");
            ExitCode::from(2)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The label grammar itself is `zoneguard_core::k8s_name`'s, tested there; these rows show
    /// which grammar each flag takes and that a refusal names it.
    #[test]
    fn the_service_is_a_dns_1035_label_and_the_namespace_a_dns_1123_label() {
        /// Accepted, or refused with a message naming this grammar.
        type Want = Result<(), &'static str>;
        let table: &[(&str, Want, Want)] = &[
            ("zoneguard", Ok(()), Ok(())),
            ("zone-guard-2", Ok(()), Ok(())),
            ("2fast", Err("DNS-1035"), Ok(())),
            ("0", Err("DNS-1035"), Ok(())),
            (&"a".repeat(64), Err("DNS-1035"), Err("DNS-1123")),
            ("", Err("DNS-1035"), Err("DNS-1123")),
            ("Bad_Name", Err("DNS-1035"), Err("DNS-1123")),
            ("kube.system", Err("DNS-1035"), Err("DNS-1123")),
            ("zoneguard-", Err("DNS-1035"), Err("DNS-1123")),
            ("zöneguard", Err("DNS-1035"), Err("DNS-1123")),
        ];
        for (name, service, namespace) in table {
            for (got, want) in [
                (service_name(name), service),
                (namespace_name(name), namespace),
            ] {
                match (got, want) {
                    (Ok(got), Ok(())) => assert_eq!(got, *name),
                    (Err(e), Err(grammar)) => assert!(e.contains(grammar), "{name:?}: {e}"),
                    (got, want) => panic!("{name:?}: {got:?}, want {want:?}"),
                }
            }
        }
    }

    #[test]
    fn only_an_rsa_serving_key_may_encipher() {
        use KeyUsagePurpose::{DigitalSignature, KeyEncipherment};
        let table: &[(&SignatureAlgorithm, &[KeyUsagePurpose])] = &[
            (&rcgen::PKCS_ECDSA_P256_SHA256, &[DigitalSignature]),
            (&rcgen::PKCS_ECDSA_P384_SHA384, &[DigitalSignature]),
            (&rcgen::PKCS_ED25519, &[DigitalSignature]),
            (
                &rcgen::PKCS_RSA_SHA256,
                &[DigitalSignature, KeyEncipherment],
            ),
            (
                &rcgen::PKCS_RSA_SHA384,
                &[DigitalSignature, KeyEncipherment],
            ),
            (
                &rcgen::PKCS_RSA_SHA512,
                &[DigitalSignature, KeyEncipherment],
            ),
        ];
        for (alg, want) in table {
            assert_eq!(serving_key_usages(alg), *want, "{alg:?}");
        }
    }

    #[test]
    fn the_ca_outlives_the_serving_certificate() {
        let table = [
            (1, 3650),
            (365, 3650),
            (1825, 3650),
            (1826, 3652),
            (3650, 7300),
        ];
        for (leaf, ca) in table {
            assert_eq!(ca_validity_days(leaf), ca, "{leaf} days");
            assert!(ca_validity_days(leaf) > leaf, "{leaf} days");
        }
    }
}
