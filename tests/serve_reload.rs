//! Live reloads: serving certificate (in place and by symlink swap) under load, rules files
//! (valid, invalid, symlink swap), readiness before the first rules load and with an expired
//! certificate.

use crate::serve_support::*;
use std::path::Path;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::Duration;
use zoneguard::certs::KeyedCert;
use zoneguard::serve::tls::TlsSource;

/// Lay out `dir` like a Kubernetes Secret/ConfigMap volume: `name -> ..data/name`,
/// `..data -> ..<version>`. Later calls swap `..data` atomically.
fn volume_write(dir: &Path, version: &str, files: &[(&str, &str)]) {
    let target = dir.join(format!("..{version}"));
    std::fs::create_dir(&target).unwrap();
    for (name, text) in files {
        std::fs::write(target.join(name), text).unwrap();
    }
    let old = std::fs::read_link(dir.join("..data")).ok();
    let tmp = dir.join("..data_tmp");
    std::os::unix::fs::symlink(format!("..{version}"), &tmp).unwrap();
    std::fs::rename(&tmp, dir.join("..data")).unwrap();
    for (name, _) in files {
        let link = dir.join(name);
        if std::fs::symlink_metadata(&link).is_err() {
            std::os::unix::fs::symlink(format!("..data/{name}"), &link).unwrap();
        }
    }
    if let Some(old) = old {
        std::fs::remove_dir_all(dir.join(old)).unwrap();
    }
}

fn cert_files(cert: &KeyedCert) -> [(&'static str, String); 2] {
    [
        ("tls.crt", cert.cert_pem.clone()),
        ("tls.key", cert.key_pem.clone()),
    ]
}

struct Load {
    stop: Arc<AtomicBool>,
    ok: Arc<AtomicUsize>,
    failed: Arc<AtomicUsize>,
    tasks: Vec<tokio::task::JoinHandle<()>>,
}

/// Clients sending admissions continuously: one reusing an HTTP/2 connection, two opening a
/// new connection (and TLS handshake) for every request.
fn start_load(ca_pem: &str, url: String) -> Load {
    let (stop, ok, failed) = Default::default();
    let body = serde_json::to_vec(&fixture("ingress-create-allowed.json")).unwrap();
    let mut load = Load {
        stop,
        ok,
        failed,
        tasks: Vec::new(),
    };
    for mode in [Mode::Auto, Mode::FreshConnections, Mode::FreshConnections] {
        let client = client(ca_pem, mode);
        let (stop, ok, failed, url, body) = (
            load.stop.clone(),
            load.ok.clone(),
            load.failed.clone(),
            url.clone(),
            body.clone(),
        );
        load.tasks.push(tokio::spawn(async move {
            for _ in 0..5000 {
                if stop.load(Ordering::SeqCst) {
                    break;
                }
                match client.post(&url).body(body.clone()).send().await {
                    Ok(r) if r.status() == 200 => ok.fetch_add(1, Ordering::SeqCst),
                    Ok(r) => {
                        eprintln!("status {}", r.status());
                        failed.fetch_add(1, Ordering::SeqCst)
                    }
                    Err(e) => {
                        eprintln!("request failed: {e:?}");
                        failed.fetch_add(1, Ordering::SeqCst)
                    }
                };
                tokio::time::sleep(Duration::from_millis(5)).await;
            }
        }));
    }
    load
}

impl Load {
    async fn finish(self) -> (usize, usize) {
        self.stop.store(true, Ordering::SeqCst);
        for task in self.tasks {
            task.await.unwrap();
        }
        (
            self.ok.load(Ordering::SeqCst),
            self.failed.load(Ordering::SeqCst),
        )
    }
}

async fn served_cert(s: &TestServer) -> Vec<u8> {
    let client = s.client_mode(Mode::FreshConnections);
    let body = serde_json::to_vec(&fixture("ingress-create-allowed.json")).unwrap();
    let response = client
        .post(s.url("/validate"))
        .body(body)
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), 200);
    peer_cert(&response)
}

async fn wait_for_cert(s: &TestServer, expected: &KeyedCert) -> bool {
    let der = der_of(&expected.cert_pem);
    eventually(Duration::from_secs(10), || {
        let der = der.clone();
        async move { served_cert(s).await == der }
    })
    .await
}

#[tokio::test(flavor = "multi_thread")]
async fn certificate_rotated_in_place_under_load() {
    let s = TestServer::start(&fixture_text("rules.yaml")).await;
    assert_eq!(served_cert(&s).await, der_of(&s.pki.leaf.cert_pem));
    let load = start_load(&s.pki.ca.cert.cert_pem, s.url("/validate"));
    tokio::time::sleep(Duration::from_millis(300)).await;
    let next = issue(&s.pki.ca);
    // cert-manager style: the files are rewritten in place, one after the other.
    std::fs::write(s.dir.path().join("tls.crt"), &next.cert_pem).unwrap();
    tokio::time::sleep(Duration::from_millis(30)).await;
    std::fs::write(s.dir.path().join("tls.key"), &next.key_pem).unwrap();
    assert!(wait_for_cert(&s, &next).await, "new certificate served");
    tokio::time::sleep(Duration::from_millis(300)).await;
    let (ok, failed) = load.finish().await;
    assert_eq!(failed, 0, "{failed} failed of {}", ok + failed);
    assert!(ok > 20, "the load ran ({ok} requests)");
    let (_, text) = get_text(&s.probe("/metrics")).await;
    assert!(
        metric(
            &text,
            "zoneguard_tls_certificate_reloads_total{result=\"success\"}"
        )
        .unwrap()
            >= 1.0
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn certificate_rotated_by_symlink_swap_under_load() {
    let dir = tempfile::tempdir().unwrap();
    let pki = pki();
    volume_write(
        dir.path(),
        "v1",
        &cert_files(&pki.leaf)
            .each_ref()
            .map(|(n, t)| (*n, t.as_str())),
    );
    let rules = dir.path().join("rules.yaml");
    std::fs::write(&rules, fixture_text("rules.yaml")).unwrap();
    let tls = TlsSource::Files {
        cert: dir.path().join("tls.crt"),
        key: dir.path().join("tls.key"),
    };
    let s = TestServer::from_config(dir, pki, rules.clone(), config(vec![rules], tls)).await;
    assert_eq!(served_cert(&s).await, der_of(&s.pki.leaf.cert_pem));

    let load = start_load(&s.pki.ca.cert.cert_pem, s.url("/validate"));
    tokio::time::sleep(Duration::from_millis(300)).await;
    let next = issue(&s.pki.ca);
    volume_write(
        s.dir.path(),
        "v2",
        &cert_files(&next).each_ref().map(|(n, t)| (*n, t.as_str())),
    );
    assert!(
        wait_for_cert(&s, &next).await,
        "new certificate served after the ..data swap"
    );
    tokio::time::sleep(Duration::from_millis(300)).await;
    let (ok, failed) = load.finish().await;
    assert_eq!(failed, 0, "{failed} failed of {}", ok + failed);
    assert!(ok > 20, "the load ran ({ok} requests)");
}

#[tokio::test(flavor = "multi_thread")]
async fn a_broken_certificate_update_keeps_the_old_one() {
    let s = TestServer::start(&fixture_text("rules.yaml")).await;
    std::fs::write(
        s.dir.path().join("tls.crt"),
        "-----BEGIN CERTIFICATE-----\nnope\n",
    )
    .unwrap();
    let (_, text) = get_text(&s.probe("/metrics")).await;
    let errors = "zoneguard_tls_certificate_reloads_total{result=\"error\"}";
    assert_eq!(metric(&text, errors), Some(0.0));
    let counted = eventually(Duration::from_secs(10), || async {
        metric(&get_text(&s.probe("/metrics")).await.1, errors).unwrap_or(0.0) >= 1.0
    })
    .await;
    assert!(counted, "reload error counted");
    assert_eq!(served_cert(&s).await, der_of(&s.pki.leaf.cert_pem));
}

async fn generation(s: &TestServer) -> u64 {
    s.handle.rules().generation()
}

async fn verdict(s: &TestServer) -> bool {
    let r = s.answer("/validate", "ingress-create-outside.json").await;
    r["allowed"].as_bool().unwrap()
}

#[tokio::test(flavor = "multi_thread")]
async fn rules_file_reload_valid_then_invalid() {
    let s = TestServer::start(&fixture_text("rules.yaml")).await;
    assert_eq!(generation(&s).await, 1);
    assert!(
        !verdict(&s).await,
        "shop.other.com denied under the first rules"
    );

    std::fs::write(&s.rules, "domainFilters: [example.com, other.com]\n").unwrap();
    assert!(
        eventually(Duration::from_secs(10), || async {
            generation(&s).await == 2
        })
        .await,
        "reloaded"
    );
    assert!(
        verdict(&s).await,
        "shop.other.com admitted under the new rules"
    );

    std::fs::write(&s.rules, "domainFilters: [example.com]\nnoSuchKey: true\n").unwrap();
    let errors = "zoneguard_rules_reload_errors_total{source=\"file\"}";
    let counted = eventually(Duration::from_secs(10), || async {
        metric(&get_text(&s.probe("/metrics")).await.1, errors) == Some(1.0)
    })
    .await;
    assert!(counted, "invalid rules counted");
    assert_eq!(generation(&s).await, 2, "last valid rules stay");
    assert!(verdict(&s).await, "still decided with the last valid rules");
    let (status, _) = get_text(&s.probe("/readyz")).await;
    assert_eq!(status, 200);
    let (_, text) = get_text(&s.probe("/metrics")).await;
    assert_eq!(metric(&text, "zoneguard_rules_generation"), Some(2.0));
}

#[tokio::test(flavor = "multi_thread")]
async fn rules_reload_through_a_configmap_volume_symlink_swap() {
    let dir = tempfile::tempdir().unwrap();
    let pki = pki();
    let (cert, key) = write_pair(dir.path(), &pki.leaf);
    let volume = dir.path().join("rules");
    std::fs::create_dir(&volume).unwrap();
    volume_write(
        &volume,
        "v1",
        &[("rules.yaml", &fixture_text("rules.yaml"))],
    );
    let rules = volume.join("rules.yaml");
    let tls = TlsSource::Files { cert, key };
    let s = TestServer::from_config(dir, pki, rules.clone(), config(vec![rules], tls)).await;
    assert!(!verdict(&s).await);
    volume_write(
        &volume,
        "v2",
        &[("rules.yaml", "domainFilters: [other.com]\n")],
    );
    assert!(
        eventually(Duration::from_secs(10), || async {
            generation(&s).await == 2
        })
        .await,
        "reloaded"
    );
    assert!(verdict(&s).await);
}

#[tokio::test(flavor = "multi_thread")]
async fn not_ready_until_rules_load() {
    let dir = tempfile::tempdir().unwrap();
    let pki = pki();
    let (cert, key) = write_pair(dir.path(), &pki.leaf);
    let rules = dir.path().join("rules.yaml");
    let tls = TlsSource::Files { cert, key };
    let s = TestServer::from_config(dir, pki, rules.clone(), config(vec![rules], tls)).await;

    let (status, text) = get_text(&s.probe("/readyz")).await;
    assert_eq!(status, 503, "{text}");
    assert!(text.contains("no valid rule set loaded"), "{text}");
    assert_eq!(
        get_text(&s.probe("/healthz")).await.0,
        200,
        "alive all the same"
    );
    let body = serde_json::to_vec(&fixture("ingress-create-allowed.json")).unwrap();
    assert_eq!(
        post(&s.client(), &s.url("/validate"), body.clone()).await.0,
        503
    );

    std::fs::write(&s.rules, "domainFilters: [example.com]\nbogus: 1\n").unwrap();
    tokio::time::sleep(Duration::from_millis(500)).await;
    assert_eq!(
        get_text(&s.probe("/readyz")).await.0,
        503,
        "invalid rules do not make it ready"
    );

    std::fs::write(&s.rules, fixture_text("rules.yaml")).unwrap();
    let ready = eventually(Duration::from_secs(10), || async {
        get_text(&s.probe("/readyz")).await.0 == 200
    })
    .await;
    assert!(ready, "ready once valid rules are loaded");
    assert_eq!(post(&s.client(), &s.url("/validate"), body).await.0, 200);
}

#[tokio::test(flavor = "multi_thread")]
async fn an_expired_serving_certificate_fails_readiness() {
    let now = time::OffsetDateTime::now_utc();
    let mut params = rcgen::CertificateParams::new(vec!["localhost".to_owned()]).unwrap();
    params.not_before = now - time::Duration::days(10);
    params.not_after = now - time::Duration::days(1);
    let key = rcgen::KeyPair::generate().unwrap();
    let cert = params.self_signed(&key).unwrap();
    let dir = tempfile::tempdir().unwrap();
    let (cert_path, key_path) = (dir.path().join("old.crt"), dir.path().join("old.key"));
    std::fs::write(&cert_path, cert.pem()).unwrap();
    std::fs::write(&key_path, key.serialize_pem()).unwrap();
    let s = TestServer::start_with(&fixture_text("rules.yaml"), |c| {
        c.tls = TlsSource::Files {
            cert: cert_path,
            key: key_path,
        }
    })
    .await;
    let (status, text) = get_text(&s.probe("/readyz")).await;
    assert_eq!(status, 503, "{text}");
    assert!(
        text.contains("the serving certificate has expired"),
        "{text}"
    );
}
