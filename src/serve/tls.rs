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

/// The crypto every TLS connection of zoneguard's uses: aws-lc-rs, whose key exchange prefers the
/// hybrid post-quantum X25519MLKEM768 that kube-apiserver (Go's crypto/tls) offers first.
pub fn provider() -> Arc<CryptoProvider> {
    Arc::new(rustls::crypto::aws_lc_rs::default_provider())
}

/// Make [`provider`]'s crypto the process default, which the clients that take the default
/// (kube's, and reqwest's in the tests) use; a second call changes nothing.
pub fn install_default_provider() {
    let _ = Arc::unwrap_or_clone(provider()).install_default();
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
        .map_err(|e| cert_err(format!("not PEM certificates: {}", pem_problem(&e))))?;
    if chain.is_empty() {
        return Err(cert_err("no CERTIFICATE block found".into()));
    }
    let key = PrivateKeyDer::from_pem_slice(key_pem).map_err(|e| TlsError::Key {
        path: key_name.to_owned(),
        message: format!("no usable private key: {}", pem_problem(&e)),
    })?;
    CertifiedKey::from_der(chain, key, &provider()).map_err(|e| match e {
        rustls::Error::InconsistentKeys(_) => TlsError::Pair(format!(
            "the private key in {key_name} does not belong to the certificate in {cert_name} (the first certificate of the file must be the key's own)"
        )),
        rustls::Error::InvalidCertificate(why) => {
            cert_err(format!("not a certificate rustls can read ({why:?})"))
        }
        e => TlsError::Pair(format!("{cert_name} and {key_name}: {e}")),
    })
}

/// A PEM reading error in words: rustls-pki-types shows a missing end line as bytes.
pub(crate) fn pem_problem(e: &rustls_pki_types::pem::Error) -> String {
    use rustls_pki_types::pem::Error;
    match e {
        Error::MissingSectionEnd { end_marker } => format!(
            "a PEM block is cut short: its \"-----END {}-----\" line is missing",
            String::from_utf8_lossy(end_marker)
        ),
        Error::IllegalSectionStart { line } => format!(
            "a line begins a PEM block wrongly: {:?}",
            String::from_utf8_lossy(line)
        ),
        e => e.to_string(),
    }
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
    leaf_not_after(key).map(|t| t.timestamp())
}

/// When the leaf certificate expires, as it says.
fn leaf_not_after(key: &CertifiedKey) -> Option<x509_parser::time::ASN1Time> {
    let der = key.cert.first()?;
    let (_, cert) = x509_parser::parse_x509_certificate(der.as_ref()).ok()?;
    Some(cert.validity().not_after)
}

/// Seconds since the Unix epoch, now.
pub fn unix_now() -> i64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| i64::try_from(d.as_secs()).unwrap_or(i64::MAX))
}

/// Why the leaf certificate cannot be served at `now` (Unix seconds): it has expired. A
/// certificate not valid yet is served (a fresh one may start a few seconds ahead of this
/// clock); an expired one never becomes valid again.
pub fn expired(key: &CertifiedKey, now: i64) -> Option<String> {
    let after = leaf_not_after(key)?;
    (after.timestamp() < now).then(|| {
        let when = after.to_rfc2822().unwrap_or_else(|_| after.timestamp().to_string());
        format!("it expired on {when}; the API server refuses it (renew it: cert-manager, or zoneguard certs)")
    })
}

/// The serving certificate in force: a rustls resolver whose key can be swapped at any time.
#[derive(Debug)]
pub struct CertStore {
    current: ArcSwap<CertifiedKey>,
    files: Option<(PathBuf, PathBuf)>,
    last_pem: Mutex<Read>,
}

/// What the files last gave: the pair in use, and the last attempt refused (so that a broken
/// pair left in place is reported once, not at every poll).
#[derive(Debug, Default)]
struct Read {
    installed: Option<Pems>,
    /// The pair refused, or the reading error.
    refused: Option<Result<Pems, String>>,
}

/// The certificate and key files' bytes.
type Pems = (Vec<u8>, Vec<u8>);

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
                    last_pem: Mutex::new(Read {
                        installed: Some((cert_pem, key_pem)),
                        refused: None,
                    }),
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
                    last_pem: Mutex::new(Read::default()),
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
        let pems = read(cert, false)
            .and_then(|c| Ok((c, read(key, true)?)))
            .map_err(|e| e.to_string());
        let mut last = self.last_pem.lock().unwrap_or_else(|e| e.into_inner());
        if last.refused.as_ref() == Some(&pems) {
            return;
        }
        let (cert_pem, key_pem) = match pems {
            Ok(p) if last.installed.as_ref() == Some(&p) => return,
            Ok(p) => p,
            Err(e) => {
                reload_failed(metrics, &e);
                last.refused = Some(Err(e));
                return;
            }
        };
        match certified_key(
            &cert_pem,
            &key_pem,
            &cert.display().to_string(),
            &key.display().to_string(),
        ) {
            Ok(ck) => match expired(&ck, unix_now()) {
                Some(why) => {
                    let error = format!("the certificate in {}: {why}", cert.display());
                    reload_failed(metrics, &error);
                    last.refused = Some(Ok((cert_pem, key_pem)));
                }
                None => self.install(ck, (cert_pem, key_pem), &mut last, metrics),
            },
            Err(e) => {
                reload_failed(metrics, &e.to_string());
                last.refused = Some(Ok((cert_pem, key_pem)));
            }
        }
    }

    /// Serves `ck` from now on.
    fn install(&self, ck: CertifiedKey, pems: Pems, last: &mut Read, metrics: &Metrics) {
        let expires = not_after(&ck);
        self.current.store(Arc::new(ck));
        *last = Read {
            installed: Some(pems),
            refused: None,
        };
        metrics.cert_not_after.set(expires.unwrap_or(0));
        metrics
            .cert_reloads
            .get_or_create(&ResultLabels { result: "success" })
            .inc();
        tracing::info!(not_after = expires, "serving certificate reloaded");
    }
}

fn reload_failed(metrics: &Metrics, error: &str) {
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::certs::{Ca, KeyedCert};

    #[test]
    fn a_broken_pair_is_refused_with_a_message_naming_the_files_and_the_fault() {
        let ca = Ca::new("test CA", 1).expect("CA");
        let names = ["localhost".to_owned()];
        let (a, b) = (
            ca.issue(&names, 1).expect("a"),
            ca.issue(&names, 1).expect("b"),
        );
        let cut = &a.cert_pem[..a.cert_pem.len() - 30];
        let damaged = a.cert_pem.replacen("MII", "MIA", 1);
        let table: [(&str, &str, &str); 4] = [
            (&a.cert_pem, &b.key_pem, "--tls-cert/--tls-key: the private key in k.pem does not belong to the certificate in c.pem"),
            (cut, &a.key_pem, "--tls-cert c.pem: not PEM certificates: a PEM block is cut short: its \"-----END CERTIFICATE-----\" line is missing"),
            (&damaged, &a.key_pem, "--tls-cert c.pem: not a certificate rustls can read"),
            (&a.cert_pem, "", "--tls-key k.pem: no usable private key"),
        ];
        for (cert, key, want) in table {
            let err = certified_key(cert.as_bytes(), key.as_bytes(), "c.pem", "k.pem")
                .expect_err(want)
                .to_string();
            assert!(err.starts_with(want), "{err}");
        }
        assert!(certified_key(a.cert_pem.as_bytes(), a.key_pem.as_bytes(), "c", "k").is_ok());
    }

    /// A self-signed pair for localhost that expired a day ago.
    fn expired_pair() -> (String, String) {
        let now = time::OffsetDateTime::now_utc();
        let mut params =
            rcgen::CertificateParams::new(vec!["localhost".to_owned()]).expect("params");
        params.not_before = now - time::Duration::days(10);
        params.not_after = now - time::Duration::days(1);
        let key = rcgen::KeyPair::generate().expect("key");
        let cert = params.self_signed(&key).expect("cert");
        (cert.pem(), key.serialize_pem())
    }

    /// A store loaded from `c.pem` and `k.pem` in `dir`, written with a fresh pair for
    /// localhost, which it returns with the files' paths.
    fn store_in(dir: &Path) -> (CertStore, KeyedCert, PathBuf, PathBuf) {
        let ca = Ca::new("test CA", 1).expect("CA");
        let pair = ca.issue(&["localhost".to_owned()], 1).expect("pair");
        let (cert, key) = (dir.join("c.pem"), dir.join("k.pem"));
        std::fs::write(&cert, &pair.cert_pem).expect("write");
        std::fs::write(&key, &pair.key_pem).expect("write");
        let store = CertStore::load(&TlsSource::Files {
            cert: cert.clone(),
            key: key.clone(),
        })
        .expect("loads");
        (store, pair, cert, key)
    }

    #[test]
    fn an_expired_certificate_is_named_and_never_replaces_the_one_in_use() {
        let (old_cert, old_key) = expired_pair();
        let dir = tempfile::tempdir().expect("tempdir");
        let (store, _, cert, key) = store_in(dir.path());
        assert_eq!(expired(&store.current(), unix_now()), None);
        let serving = not_after(&store.current());
        std::fs::write(&cert, &old_cert).expect("write");
        std::fs::write(&key, &old_key).expect("write");
        let metrics = Metrics::new();
        store.reload(&metrics);
        let errors = metrics
            .cert_reloads
            .get_or_create(&ResultLabels { result: "error" })
            .get();
        assert_eq!(errors, 1);
        assert_eq!(not_after(&store.current()), serving, "the valid one stays");
        let stale = certified_key(old_cert.as_bytes(), old_key.as_bytes(), "c", "k").expect("pair");
        let why = expired(&stale, unix_now()).expect("expired");
        assert!(
            why.starts_with("it expired on ") && why.contains("renew it"),
            "{why}"
        );
    }

    #[test]
    fn a_broken_pair_left_in_place_is_counted_once_and_a_new_one_again() {
        let dir = tempfile::tempdir().expect("tempdir");
        let (store, pair, cert, key) = store_in(dir.path());
        let metrics = Metrics::new();
        let errors = || {
            metrics
                .cert_reloads
                .get_or_create(&ResultLabels { result: "error" })
                .get()
        };
        std::fs::write(&cert, "-----BEGIN CERTIFICATE-----\nnope\n").expect("write");
        for _ in 0..3 {
            store.reload(&metrics);
        }
        assert_eq!(errors(), 1, "the same broken pair, polled three times");
        std::fs::remove_file(&key).expect("remove");
        store.reload(&metrics);
        store.reload(&metrics);
        assert_eq!(errors(), 2, "another failure");
        std::fs::write(&key, &pair.key_pem).expect("write");
        std::fs::write(&cert, &pair.cert_pem).expect("write");
        store.reload(&metrics);
        assert_eq!(errors(), 2, "the pair in use again");
    }
}
