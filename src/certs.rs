//! `zoneguard certs`: a CA and a serving certificate for the webhook Service, and the caBundle
//! to put in the webhook configuration. Also the self-signed development certificate `serve`
//! uses when it is given none.

use base64::Engine as _;
use rcgen::{
    BasicConstraints, CertificateParams, DistinguishedName, DnType, ExtendedKeyUsagePurpose, IsCa,
    Issuer, KeyPair, KeyUsagePurpose,
};
use std::io::Write as _;
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use time::{Duration, OffsetDateTime};

#[derive(Debug, clap::Args)]
pub struct Args {
    /// Name of the webhook's Service.
    #[arg(long, env = "ZONEGUARD_SERVICE", default_value = "zoneguard")]
    pub service: String,
    /// Namespace of the webhook's Service.
    #[arg(long, env = "ZONEGUARD_NAMESPACE", default_value = "zoneguard")]
    pub namespace: String,
    /// Directory to write ca.crt, ca.key, tls.crt and tls.key into (created if missing).
    #[arg(long, env = "ZONEGUARD_OUT")]
    pub out: PathBuf,
    /// Validity of both certificates, in days.
    #[arg(long, env = "ZONEGUARD_VALIDITY_DAYS", default_value_t = 365, value_parser = clap::value_parser!(u32).range(1..=3650))]
    pub validity_days: u32,
    /// Overwrite files that already exist in --out.
    #[arg(long, env = "ZONEGUARD_FORCE")]
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

fn validity(params: &mut CertificateParams, days: u32) {
    let now = OffsetDateTime::now_utc();
    params.not_before = now - Duration::hours(1);
    params.not_after = now + Duration::days(i64::from(days));
}

impl Ca {
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
        params.key_usages = vec![
            KeyUsagePurpose::DigitalSignature,
            KeyUsagePurpose::KeyEncipherment,
        ];
        params.extended_key_usages = vec![ExtendedKeyUsagePurpose::ServerAuth];
        params.use_authority_key_identifier_extension = true;
        validity(&mut params, days);
        let key = KeyPair::generate()?;
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
        args.validity_days,
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
