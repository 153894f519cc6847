//! TLS: the serving certificate (from PEM files or self-signed), swapped atomically on reload.

use super::metrics::{Metrics, ResultLabels};
use arc_swap::ArcSwap;
use rustls::crypto::CryptoProvider;
use rustls::server::{ClientHello, ResolvesServerCert};
use rustls::sign::CertifiedKey;
use rustls_pki_types::pem::PemObject;
use rustls_pki_types::{CertificateDer, PrivateKeyDer};
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

#[derive(Debug, thiserror::Error)]
pub enum TlsError {
    #[error("--tls-cert {path}: {message}")]
    Cert { path: String, message: String },
    #[error("--tls-key {path}: {message}")]
    Key { path: String, message: String },
    #[error("--tls-cert/--tls-key: {0}")]
    Pair(String),
    #[error("self-signed certificate: {0}")]
    SelfSigned(String),
    #[error("TLS configuration: {0}")]
    Config(#[from] rustls::Error),
}

pub fn provider() -> Arc<CryptoProvider> {
    Arc::new(rustls::crypto::ring::default_provider())
}

/// Where the serving certificate comes from.
#[derive(Debug, Clone)]
pub enum TlsSource {
    Files {
        cert: PathBuf,
        key: PathBuf,
    },
    /// Generate one for localhost and 127.0.0.1 at start (development default).
    SelfSigned,
}

/// Build a `CertifiedKey` from PEM text; the key must match the certificate.
pub fn certified_key(
    cert_pem: &[u8],
    key_pem: &[u8],
    cert_name: &str,
    key_name: &str,
) -> Result<CertifiedKey, TlsError> {
    let cert_err = |message: String| TlsError::Cert {
        path: cert_name.to_owned(),
        message,
    };
    let chain: Vec<CertificateDer<'static>> = CertificateDer::pem_slice_iter(cert_pem)
        .collect::<Result<_, _>>()
        .map_err(|e| cert_err(format!("not PEM certificates: {e}")))?;
    if chain.is_empty() {
        return Err(cert_err("no CERTIFICATE block found".into()));
    }
    let key = PrivateKeyDer::from_pem_slice(key_pem).map_err(|e| TlsError::Key {
        path: key_name.to_owned(),
        message: format!("no usable private key: {e}"),
    })?;
    CertifiedKey::from_der(chain, key, &provider()).map_err(|e| TlsError::Pair(format!("{e}")))
}

fn read(path: &Path, is_key: bool) -> Result<Vec<u8>, TlsError> {
    std::fs::read(path).map_err(|e| {
        let (path, message) = (path.display().to_string(), format!("cannot read: {e}"));
        if is_key {
            TlsError::Key { path, message }
        } else {
            TlsError::Cert { path, message }
        }
    })
}

/// Unix time at which the leaf certificate expires.
pub fn not_after(key: &CertifiedKey) -> Option<i64> {
    let der = key.cert.first()?;
    let (_, cert) = x509_parser::parse_x509_certificate(der.as_ref()).ok()?;
    Some(cert.validity().not_after.timestamp())
}

/// The serving certificate in force: a rustls resolver whose key can be swapped at any time.
#[derive(Debug)]
pub struct CertStore {
    current: ArcSwap<CertifiedKey>,
    files: Option<(PathBuf, PathBuf)>,
    last_pem: Mutex<Option<(Vec<u8>, Vec<u8>)>>,
}

impl ResolvesServerCert for CertStore {
    fn resolve(&self, _hello: ClientHello<'_>) -> Option<Arc<CertifiedKey>> {
        Some(self.current.load_full())
    }
}

impl CertStore {
    /// Load the initial certificate; fails (naming the flag) when the files are unusable.
    pub fn load(source: &TlsSource) -> Result<Self, TlsError> {
        match source {
            TlsSource::Files { cert, key } => {
                let (cert_pem, key_pem) = (read(cert, false)?, read(key, true)?);
                let ck = certified_key(
                    &cert_pem,
                    &key_pem,
                    &cert.display().to_string(),
                    &key.display().to_string(),
                )?;
                Ok(CertStore {
                    current: ArcSwap::from_pointee(ck),
                    files: Some((cert.clone(), key.clone())),
                    last_pem: Mutex::new(Some((cert_pem, key_pem))),
                })
            }
            TlsSource::SelfSigned => {
                let pair = crate::certs::self_signed_localhost()
                    .map_err(|e| TlsError::SelfSigned(e.to_string()))?;
                let ck = certified_key(
                    pair.cert_pem.as_bytes(),
                    pair.key_pem.as_bytes(),
                    "self-signed",
                    "self-signed",
                )?;
                tracing::warn!(
                    names = "localhost, 127.0.0.1",
                    "generated a self-signed serving certificate (development only; pass --tls-cert and --tls-key in a cluster)"
                );
                Ok(CertStore {
                    current: ArcSwap::from_pointee(ck),
                    files: None,
                    last_pem: Mutex::new(None),
                })
            }
        }
    }

    pub fn current(&self) -> Arc<CertifiedKey> {
        self.current.load_full()
    }

    pub fn files(&self) -> Option<&(PathBuf, PathBuf)> {
        self.files.as_ref()
    }

    /// Re-read the PEM files; swap in the new pair when it changed and is usable. A half-written
    /// or mismatched pair is refused and the old certificate keeps serving.
    pub fn reload(&self, metrics: &Metrics) {
        let Some((cert, key)) = &self.files else {
            return;
        };
        let pems = read(cert, false).and_then(|c| Ok((c, read(key, true)?)));
        let mut last = self.last_pem.lock().unwrap_or_else(|e| e.into_inner());
        let (cert_pem, key_pem) = match pems {
            Ok(p) if last.as_ref() == Some(&p) => return,
            Ok(p) => p,
            Err(e) => return reload_failed(metrics, &e),
        };
        match certified_key(
            &cert_pem,
            &key_pem,
            &cert.display().to_string(),
            &key.display().to_string(),
        ) {
            Ok(ck) => {
                let expires = not_after(&ck);
                self.current.store(Arc::new(ck));
                *last = Some((cert_pem, key_pem));
                metrics.cert_not_after.set(expires.unwrap_or(0));
                metrics
                    .cert_reloads
                    .get_or_create(&ResultLabels { result: "success" })
                    .inc();
                tracing::info!(not_after = expires, "serving certificate reloaded");
            }
            Err(e) => reload_failed(metrics, &e),
        }
    }
}

fn reload_failed(metrics: &Metrics, error: &TlsError) {
    metrics
        .cert_reloads
        .get_or_create(&ResultLabels { result: "error" })
        .inc();
    tracing::warn!(error = %error, "serving certificate not reloaded; the previous one stays in use");
}

/// rustls server configuration: TLS 1.2 and 1.3 only, ALPN h2 and http/1.1.
pub fn server_config(store: Arc<CertStore>) -> Result<rustls::ServerConfig, TlsError> {
    let mut config = rustls::ServerConfig::builder_with_provider(provider())
        .with_protocol_versions(&[&rustls::version::TLS13, &rustls::version::TLS12])?
        .with_no_client_auth()
        .with_cert_resolver(store);
    config.alpn_protocols = vec![b"h2".to_vec(), b"http/1.1".to_vec()];
    Ok(config)
}
