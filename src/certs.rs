//! `zoneguard certs`: a CA and a serving certificate for the webhook Service, and the caBundle
//! to put in the webhook configuration; or, with `--ca-cert`/`--ca-key`, a new serving
//! certificate signed by a CA kept from an earlier run (the caBundle stays the same). Also the
//! self-signed development certificate `serve` uses when it is given none.

mod kept_ca;

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
    /// Directory to write ca.crt, ca.key, tls.crt and tls.key into (created if missing); with
    /// --ca-cert, ca.crt (a copy of it), tls.crt and tls.key, and no ca.key.
    #[arg(long, env = "ZONEGUARD_CERTS_OUT")]
    pub out: PathBuf,
    /// Validity of the serving certificate, in days. A new CA is valid for 10 years, or twice
    /// this when that is longer, so the CA outlives the serving certificates it signs; a kept
    /// CA (--ca-cert) must not end before the serving certificate.
    #[arg(long, env = "ZONEGUARD_CERTS_VALIDITY_DAYS", default_value_t = 365, value_parser = validity_days)]
    pub validity_days: u32,
    /// Overwrite files that already exist in --out. Without --ca-cert this makes a new CA: its
    /// caBundle must then reach both webhook configurations.
    #[arg(long, env = "ZONEGUARD_CERTS_FORCE")]
    pub force: bool,
    /// Sign with this CA instead of making a new one: its PEM certificate (the ca.crt of an
    /// earlier run), so the caBundle stays the same. Needs --ca-key.
    #[arg(
        long,
        env = "ZONEGUARD_CERTS_CA_CERT",
        value_name = "PATH",
        requires = "ca_key"
    )]
    pub ca_cert: Option<PathBuf>,
    /// The PEM PKCS#8 private key of --ca-cert (the ca.key of an earlier run); it is not
    /// copied to --out. Needs --ca-cert.
    #[arg(
        long,
        env = "ZONEGUARD_CERTS_CA_KEY",
        value_name = "PATH",
        requires = "ca_cert"
    )]
    pub ca_key: Option<PathBuf>,
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
    /// A --ca-cert or --ca-key file that cannot be read, or does not hold what it must.
    #[error("{flag} {path}: {reason}")]
    ReadCa {
        flag: &'static str,
        path: String,
        reason: String,
    },
    /// --ca-cert holds a certificate that may not sign certificates.
    #[error("--ca-cert {path}: not a CA certificate: {reason}")]
    NotCa { path: String, reason: String },
    #[error("--ca-key {key} is not the private key of --ca-cert {cert}: their public keys differ")]
    CaKeyMismatch { cert: String, key: String },
    #[error("--ca-cert {path}: the CA expired on {until}; {}", kept_ca::NEW_CA)]
    CaExpired { path: String, until: String },
    /// The kept CA ends before a serving certificate of `days` would; `remedy` says what to do.
    #[error("--ca-cert {path}: the CA is valid until {until}, before a {days}-day serving certificate would end ({ends}); {remedy}")]
    CaEndsFirst {
        path: String,
        until: String,
        days: u32,
        ends: String,
        remedy: String,
    },
    #[error("--ca-cert and --ca-key go together: give both or neither")]
    CaPair,
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

/// The serving certificate's validity in days: a whole number from 1 to 3650.
fn validity_days(text: &str) -> Result<u32, String> {
    match text.parse::<u32>() {
        Ok(days @ 1..=3650) => Ok(days),
        _ => Err("must be a whole number of days from 1 to 3650".to_string()),
    }
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

/// Valid from an hour before `now` (a little clock skew) until `days` after it.
fn validity(params: &mut CertificateParams, now: OffsetDateTime, days: u32) {
    params.not_before = now - Duration::hours(1);
    params.not_after = serving_end(now, days);
}

/// When a certificate valid `days` from `now` ends.
fn serving_end(now: OffsetDateTime, days: u32) -> OffsetDateTime {
    now + Duration::days(i64::from(days))
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
        validity(&mut params, OffsetDateTime::now_utc(), days);
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
        serving_cert(&self.issuer, names, OffsetDateTime::now_utc(), days).map(|(cert, _)| cert)
    }
}

/// A serving certificate for `names` (DNS names or IP addresses), valid `days` from `now`,
/// signed by `issuer`; also its DER.
fn serving_cert(
    issuer: &Issuer<'_, KeyPair>,
    names: &[String],
    now: OffsetDateTime,
    days: u32,
) -> Result<(KeyedCert, Vec<u8>), rcgen::Error> {
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
    validity(&mut params, now, days);
    let cert = params.signed_by(&key, issuer)?;
    let keyed = KeyedCert {
        cert_pem: cert.pem(),
        key_pem: key.serialize_pem(),
    };
    Ok((keyed, cert.der().to_vec()))
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
    validity(&mut params, OffsetDateTime::now_utc(), 30);
    let key = KeyPair::generate()?;
    let cert = params.self_signed(&key)?;
    Ok(KeyedCert {
        cert_pem: cert.pem(),
        key_pem: key.serialize_pem(),
    })
}

/// What `generate` writes: the CA's certificate, its key when the CA is new, and the serving
/// certificate and key.
struct Issued {
    ca_pem: String,
    /// `None` for a kept CA: its key stays where it is.
    ca_key_pem: Option<String>,
    serving: KeyedCert,
}

impl Issued {
    /// File name, text and whether the file is private, in the order they are written.
    fn files(&self) -> Vec<(&'static str, &str, bool)> {
        let mut files = vec![("ca.crt", self.ca_pem.as_str(), false)];
        if let Some(key) = &self.ca_key_pem {
            files.push(("ca.key", key.as_str(), true));
        }
        files.push(("tls.crt", &self.serving.cert_pem, false));
        files.push(("tls.key", &self.serving.key_pem, true));
        files
    }
}

/// A new CA for `args`' Service and a serving certificate it signs.
fn with_new_ca(args: &Args, names: &[String]) -> Result<Issued, CertsError> {
    let ca = Ca::new(
        &format!("zoneguard webhook CA ({}/{})", args.namespace, args.service),
        ca_validity_days(args.validity_days),
    )?;
    let serving = ca.issue(names, args.validity_days)?;
    Ok(Issued {
        ca_pem: ca.cert.cert_pem,
        ca_key_pem: Some(ca.cert.key_pem),
        serving,
    })
}

/// Write `text` to a new file at `path` (mode 0600 when `private`), removing a file left there.
fn write_file(path: &Path, text: &str, private: bool) -> Result<(), std::io::Error> {
    match std::fs::remove_file(path) {
        Err(e) if e.kind() != std::io::ErrorKind::NotFound => return Err(e),
        _ => {}
    }
    let mut options = std::fs::OpenOptions::new();
    options.write(true).create_new(true);
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt as _;
        options.mode(if private { 0o600 } else { 0o644 });
    }
    options.open(path)?.write_all(text.as_bytes())
}

/// `.NAME.new` beside `out/NAME`: where a file is written before it is renamed into place.
fn staging_path(out: &Path, name: &str) -> PathBuf {
    out.join(format!(".{name}.new"))
}

/// Write `files` into `out`, all or none: each is written beside its place first and renamed
/// into place only when all are written, so a write that fails (a full disk, say) leaves no new
/// tls.crt without its tls.key. Without `force`, a file that exists in `out` is refused first.
fn write_all(out: &Path, files: &[(&str, &str, bool)], force: bool) -> Result<(), CertsError> {
    let write_err = |path: &Path| {
        let path = path.display().to_string();
        move |source| CertsError::Write { path, source }
    };
    if !force {
        if let Some((name, _, _)) = files.iter().find(|(name, _, _)| out.join(name).exists()) {
            return Err(CertsError::Exists(out.join(name).display().to_string()));
        }
    }
    std::fs::create_dir_all(out).map_err(write_err(out))?;
    let staged = files.iter().try_for_each(|(name, text, private)| {
        let path = staging_path(out, name);
        write_file(&path, text, *private).map_err(write_err(&path))
    });
    let placed = staged.and_then(|()| {
        files.iter().try_for_each(|(name, _, _)| {
            let path = out.join(name);
            std::fs::rename(staging_path(out, name), &path).map_err(write_err(&path))
        })
    });
    if placed.is_err() {
        for (name, _, _) in files {
            let _ = std::fs::remove_file(staging_path(out, name));
        }
    }
    placed
}

/// Generate and write the CA (or, with --ca-cert/--ca-key, use the kept one) and the serving
/// certificate; returns the caBundle. Nothing is written when anything is refused.
pub fn generate(args: &Args) -> Result<String, CertsError> {
    let names = service_names(&args.service, &args.namespace);
    let issued = match (&args.ca_cert, &args.ca_key) {
        (Some(cert), Some(key)) => kept_ca::issue(cert, key, &names, args.validity_days)?,
        (None, None) => with_new_ca(args, &names)?,
        _ => return Err(CertsError::CaPair),
    };
    write_all(&args.out, &issued.files(), args.force)?;
    Ok(ca_bundle(&issued.ca_pem))
}

/// What `run` says on stderr before the caBundle.
fn summary(args: &Args) -> String {
    let names = service_names(&args.service, &args.namespace).join(", ");
    let out = args.out.display();
    match &args.ca_cert {
        None => format!(
            "wrote ca.crt, ca.key, tls.crt, tls.key to {out} (serving certificate for {names}); caBundle:"
        ),
        Some(ca) => format!(
            "wrote ca.crt (a copy of {}), tls.crt, tls.key to {out} (serving certificate for {names}, signed by the kept CA; its key is not copied); caBundle, unchanged (webhook configurations that have it need no edit):",
            ca.display()
        ),
    }
}

pub fn run(args: Args) -> ExitCode {
    match generate(&args) {
        Ok(bundle) => {
            eprintln!("{}", summary(&args));
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
    fn validity_is_a_whole_number_of_days_from_1_to_3650() {
        let refused = Err("must be a whole number of days from 1 to 3650".to_string());
        for (text, expected) in [
            ("1", Ok(1)),
            ("365", Ok(365)),
            ("3650", Ok(3650)),
            ("0", refused.clone()),
            ("3651", refused.clone()),
            ("-1", refused.clone()),
            ("1.5", refused.clone()),
            ("a year", refused.clone()),
        ] {
            assert_eq!(validity_days(text), expected, "{text}");
        }
    }

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
    fn files_are_written_all_or_none() {
        let dir = tempfile::tempdir().expect("temp dir");
        let out = dir.path().join("pki");
        let files = [("tls.crt", "cert", false), ("tls.key", "key", true)];
        std::fs::create_dir_all(staging_path(&out, "tls.key")).expect("a directory in the way");
        let err = write_all(&out, &files, false).expect_err("tls.key cannot be staged");
        assert!(err.to_string().contains(".tls.key.new"), "{err}");
        assert!(!out.join("tls.crt").exists(), "no tls.crt without tls.key");
        assert!(
            !staging_path(&out, "tls.crt").exists(),
            "no staged file left"
        );

        std::fs::remove_dir(staging_path(&out, "tls.key")).expect("out of the way");
        write_all(&out, &files, false).expect("written");
        let read = |name: &str| std::fs::read_to_string(out.join(name)).expect(name);
        assert_eq!(
            (read("tls.crt"), read("tls.key")),
            ("cert".into(), "key".into())
        );
        let err = write_all(&out, &files, false).expect_err("exists");
        assert!(err.to_string().contains("--force"), "{err}");
        write_all(&out, &[("tls.crt", "new", false)], true).expect("forced");
        assert_eq!(read("tls.crt"), "new");
        let left: Vec<_> = std::fs::read_dir(&out)
            .expect("out")
            .map(|e| e.expect("entry").file_name())
            .collect();
        assert_eq!(left.len(), 2, "only tls.crt and tls.key: {left:?}");
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
