//! Shared helpers for the serve tests: certificates, an in-process server on ephemeral ports,
//! HTTPS clients, fixtures.
#![allow(dead_code)]

pub mod process;

use serde_json::Value;
use std::path::{Path, PathBuf};
use std::sync::OnceLock;
use std::time::{Duration, Instant};
use zoneguard::certs::{Ca, KeyedCert};
use zoneguard::serve::listener::ConnLimits;
use zoneguard::serve::routes::RequestLimits;
use zoneguard::serve::tls::TlsSource;
use zoneguard::serve::watch::WatchTiming;
use zoneguard::serve::{start, Config, ServerHandle};

pub fn fixture_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/reviews")
}

pub fn fixture(name: &str) -> Value {
    let text = std::fs::read_to_string(fixture_dir().join(name)).expect("fixture");
    serde_json::from_str(&text).expect("fixture JSON")
}

pub fn fixture_text(name: &str) -> String {
    std::fs::read_to_string(fixture_dir().join(name)).expect("fixture")
}

/// A test CA and a serving certificate for localhost / 127.0.0.1.
pub struct Pki {
    pub ca: Ca,
    pub leaf: KeyedCert,
}

pub fn pki() -> Pki {
    let ca = Ca::new("zoneguard test CA", 2).expect("CA");
    let leaf = issue(&ca);
    Pki { ca, leaf }
}

pub fn issue(ca: &Ca) -> KeyedCert {
    ca.issue(&["localhost".to_owned(), "127.0.0.1".to_owned()], 2)
        .expect("leaf")
}

pub fn write_pair(dir: &Path, cert: &KeyedCert) -> (PathBuf, PathBuf) {
    let (c, k) = (dir.join("tls.crt"), dir.join("tls.key"));
    std::fs::write(&c, &cert.cert_pem).unwrap();
    std::fs::write(&k, &cert.key_pem).unwrap();
    (c, k)
}

pub fn config(rules: Vec<PathBuf>, tls: TlsSource) -> Config {
    Config {
        listen: "127.0.0.1:0".parse().unwrap(),
        probe_listen: "127.0.0.1:0".parse().unwrap(),
        tls,
        rules_namespace: None,
        inject_condition: None,
        aws: Default::default(),
        rules_files: rules,
        requests: RequestLimits {
            body_limit: zoneguard::serve::args::MAX_BODY_BYTES,
            body_budget: zoneguard::serve::body_budget::DEFAULT_BYTES,
            max_in_flight: 64,
            request_timeout: Duration::from_secs(10),
            max_message_lines: 5,
        },
        connections: ConnLimits {
            handshake_timeout: Duration::from_secs(5),
            header_read_timeout: Duration::from_secs(5),
            idle_timeout: Duration::from_secs(30),
        },
        watch: WatchTiming {
            debounce: Duration::from_millis(100),
            poll: Duration::from_secs(2),
        },
    }
}

/// A running in-process server with TLS files and rules in a temporary directory.
pub struct TestServer {
    pub handle: ServerHandle,
    pub dir: tempfile::TempDir,
    pub pki: Pki,
    pub rules: PathBuf,
    /// The client `answer` posts with, made at its first call: one connection pool for the
    /// server's whole test, and none for a test that never calls it.
    answers: OnceLock<reqwest::Client>,
}

impl TestServer {
    pub async fn start(rules_yaml: &str) -> TestServer {
        Self::start_with(rules_yaml, |_| {}).await
    }

    pub async fn start_with(rules_yaml: &str, tweak: impl FnOnce(&mut Config)) -> TestServer {
        let dir = tempfile::tempdir().unwrap();
        let pki = pki();
        let (cert, key) = write_pair(dir.path(), &pki.leaf);
        let rules = dir.path().join("rules.yaml");
        std::fs::write(&rules, rules_yaml).unwrap();
        let mut config = config(vec![rules.clone()], TlsSource::Files { cert, key });
        tweak(&mut config);
        Self::from_config(dir, pki, rules, config).await
    }

    /// Starts a server with `config`, keeping `dir` (where its files are), the `pki` its
    /// certificate came from and its rules file with it.
    pub async fn from_config(
        dir: tempfile::TempDir,
        pki: Pki,
        rules: PathBuf,
        config: Config,
    ) -> TestServer {
        let handle = start(config).await.expect("server starts");
        TestServer {
            handle,
            dir,
            pki,
            rules,
            answers: OnceLock::new(),
        }
    }

    pub fn url(&self, path: &str) -> String {
        format!(
            "https://localhost:{}{path}",
            self.handle.https_addr().port()
        )
    }

    pub fn probe(&self, path: &str) -> String {
        format!("http://{}{path}", self.handle.probe_addr())
    }

    pub fn client(&self) -> reqwest::Client {
        client(&self.pki.ca.cert.cert_pem, Mode::Auto)
    }

    pub fn client_mode(&self, mode: Mode) -> reqwest::Client {
        client(&self.pki.ca.cert.cert_pem, mode)
    }

    /// The `response` of the review in the fixture file `name`, POSTed to `path`.
    pub async fn answer(&self, path: &str, name: &str) -> Value {
        let client = self.answers.get_or_init(|| self.client());
        review(client, &self.url(path), &fixture(name)).await
    }

    /// Asserts that `/metrics` counts one UPDATE of `kind` to `endpoint` admitted with a
    /// warning (verdict `warned`) and one tolerated `reason`.
    pub async fn assert_one_warned_update(&self, endpoint: &str, kind: &str, reason: &str) {
        let (_, text) = get_text(&self.probe("/metrics")).await;
        let warned = format!("zoneguard_admission_requests_total{{endpoint=\"{endpoint}\",kind=\"{kind}\",operation=\"UPDATE\",verdict=\"warned\"}}");
        assert_eq!(metric(&text, &warned), Some(1.0), "{text}");
        let reason = format!(
            "zoneguard_admission_violations_total{{endpoint=\"{endpoint}\",reason=\"{reason}\"}}"
        );
        assert_eq!(metric(&text, &reason), Some(1.0), "{text}");
    }
}

#[derive(Clone, Copy, PartialEq, Eq)]
pub enum Mode {
    /// ALPN decides (h2).
    Auto,
    Http1,
    /// A new connection (and TLS handshake) for every request.
    FreshConnections,
}

/// A reqwest client builder on rustls with zoneguard's own crypto.
pub fn client_builder() -> reqwest::ClientBuilder {
    zoneguard::serve::tls::install_default_provider();
    reqwest::Client::builder().use_rustls_tls()
}

pub fn client(ca_pem: &str, mode: Mode) -> reqwest::Client {
    let ca = reqwest::Certificate::from_pem(ca_pem.as_bytes()).unwrap();
    let mut builder = client_builder()
        .tls_built_in_root_certs(false)
        .add_root_certificate(ca)
        .tls_info(true)
        .timeout(Duration::from_secs(20));
    builder = match mode {
        Mode::Auto => builder,
        Mode::Http1 => builder.http1_only(),
        Mode::FreshConnections => builder.pool_max_idle_per_host(0),
    };
    builder.build().unwrap()
}

/// POST a review; returns the status and the parsed body (or the text as a JSON string).
pub async fn post(
    client: &reqwest::Client,
    url: &str,
    body: impl Into<reqwest::Body>,
) -> (u16, Value) {
    let response = client
        .post(url)
        .header("content-type", "application/json")
        .body(body)
        .send()
        .await
        .expect("request sent");
    let status = response.status().as_u16();
    let text = response.text().await.expect("body");
    let value = serde_json::from_str(&text).unwrap_or(Value::String(text));
    (status, value)
}

pub async fn review(client: &reqwest::Client, url: &str, review: &Value) -> Value {
    let (status, body) = post(client, url, serde_json::to_vec(review).unwrap()).await;
    assert_eq!(status, 200, "unexpected answer: {body}");
    assert_eq!(body["apiVersion"], "admission.k8s.io/v1");
    assert_eq!(body["kind"], "AdmissionReview");
    assert_eq!(
        body["response"]["uid"], review["request"]["uid"],
        "uid echoed"
    );
    body["response"].clone()
}

/// The leaf certificate the server presented on this response.
pub fn peer_cert(response: &reqwest::Response) -> Vec<u8> {
    response
        .extensions()
        .get::<reqwest::tls::TlsInfo>()
        .and_then(|info| info.peer_certificate())
        .expect("TLS info")
        .to_vec()
}

pub fn der_of(pem: &str) -> Vec<u8> {
    use rustls_pki_types::pem::PemObject;
    rustls_pki_types::CertificateDer::from_pem_slice(pem.as_bytes())
        .unwrap()
        .to_vec()
}

/// Poll `check` every 50 ms until it returns true or `within` passes.
pub async fn eventually<F, Fut>(within: Duration, mut check: F) -> bool
where
    F: FnMut() -> Fut,
    Fut: std::future::Future<Output = bool>,
{
    let deadline = Instant::now() + within;
    loop {
        if check().await {
            return true;
        }
        if Instant::now() > deadline {
            return false;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}

pub async fn get_text(url: &str) -> (u16, String) {
    let client = client_builder().build().unwrap();
    let response = client.get(url).send().await.expect("GET");
    (response.status().as_u16(), response.text().await.unwrap())
}

/// The value of one sample line in a metrics exposition (`name{labels} value`).
pub fn metric(text: &str, series: &str) -> Option<f64> {
    text.lines().find_map(|line| {
        line.strip_prefix(series)?
            .strip_prefix(' ')?
            .trim()
            .parse()
            .ok()
    })
}

/// A request body sent in `parts` pieces, `gap` apart.
pub fn slow_body(body: Vec<u8>, parts: usize, gap: std::time::Duration) -> reqwest::Body {
    let size = body.len().div_ceil(parts);
    let chunks: Vec<Vec<u8>> = body.chunks(size).map(<[u8]>::to_vec).collect();
    let stream = futures_util::stream::unfold(chunks.into_iter(), move |mut it| async move {
        let chunk = it.next()?;
        tokio::time::sleep(gap).await;
        Some((Ok::<Vec<u8>, std::io::Error>(chunk), it))
    });
    reqwest::Body::wrap_stream(stream)
}
