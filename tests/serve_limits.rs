//! Transport and limits over real HTTPS against an in-process server: HTTP versions, body limit,
//! malformed input, concurrency limit, timeouts against slow clients, metrics.

use crate::serve_support::*;
use serde_json::json;
use std::time::Duration;

const DENY: &str = "rules.yaml";

async fn server() -> TestServer {
    TestServer::start(&fixture_text(DENY)).await
}

#[tokio::test(flavor = "multi_thread")]
async fn http1_and_http2_both_work() {
    let s = server().await;
    for mode in [Mode::Auto, Mode::Http1] {
        let client = s.client_mode(mode);
        let body = serde_json::to_vec(&fixture("ingress-create-allowed.json")).unwrap();
        let response = client
            .post(s.url("/validate"))
            .body(body)
            .send()
            .await
            .unwrap();
        let expected = if mode == Mode::Http1 {
            reqwest::Version::HTTP_11
        } else {
            reqwest::Version::HTTP_2
        };
        assert_eq!(response.version(), expected);
        assert_eq!(response.status(), 200);
    }
}

#[tokio::test(flavor = "multi_thread")]
async fn oversized_bodies_get_413() {
    let s =
        TestServer::start_with(&fixture_text(DENY), |c| c.requests.body_limit = 64 * 1024).await;
    let mut big = fixture("ingress-create-allowed.json");
    big["request"]["object"]["metadata"]["annotations"] =
        json!({ "filler": "x".repeat(100 * 1024) });
    for mode in [Mode::Auto, Mode::Http1] {
        let (status, body) = post(
            &s.client_mode(mode),
            &s.url("/validate"),
            serde_json::to_vec(&big).unwrap(),
        )
        .await;
        assert_eq!(status, 413, "{body}");
    }
    let small = serde_json::to_vec(&fixture("ingress-create-allowed.json")).unwrap();
    assert_eq!(post(&s.client(), &s.url("/validate"), small).await.0, 200);
}

#[tokio::test(flavor = "multi_thread")]
async fn an_update_of_two_objects_near_the_api_servers_limit_fits_the_default() {
    // The API server stores objects up to 3 MiB; an UPDATE's review carries two of them.
    let s = server().await;
    let mut update = fixture("ingress-create-allowed.json");
    let filler = json!({ "filler": "x".repeat(2_900_000) });
    update["request"]["operation"] = json!("UPDATE");
    update["request"]["object"]["metadata"]["annotations"] = filler.clone();
    update["request"]["oldObject"] = update["request"]["object"].clone();
    let body = serde_json::to_vec(&update).unwrap();
    assert!(body.len() > 5_800_000, "{}", body.len());
    let (status, answer) = post(&s.client(), &s.url("/validate"), body).await;
    assert_eq!(status, 200, "{answer}");
    assert_eq!(answer["response"]["allowed"], json!(true), "{answer}");
}

#[tokio::test(flavor = "multi_thread")]
async fn malformed_input_gets_400_with_a_short_reason() {
    let s = server().await;
    let client = s.client();
    let cases: Vec<(Vec<u8>, &str)> = vec![
        (b"this is not json".to_vec(), "malformed JSON"),
        (b"{\"apiVersion\":\"v1\",\"kind\":\"Pod\"}".to_vec(), "not an AdmissionReview"),
        (serde_json::to_vec(&fixture("wrong-api-version.json")).unwrap(), "unsupported apiVersion \"admission.k8s.io/v1beta1\""),
        (b"{\"apiVersion\":\"admission.k8s.io/v1\",\"kind\":\"AdmissionReview\"}".to_vec(), "no request"),
        (br#"{"apiVersion":"admission.k8s.io/v1","kind":"AdmissionReview","request":{"uid":"x","kind":{"kind":"Ingress"},"operation":"PATCH"}}"#.to_vec(), "unknown operation"),
        (br#"{"apiVersion":"admission.k8s.io/v1","kind":"AdmissionReview","request":{"kind":7}}"#.to_vec(), "invalid AdmissionReview request"),
        (vec![0xff, 0xfe, 0x00], "malformed JSON"),
    ];
    for (body, expected) in cases {
        for path in ["/validate", "/mutate"] {
            let (status, answer) = post(&client, &s.url(path), body.clone()).await;
            assert_eq!(status, 400, "{path} {expected}: {answer}");
            let text = answer.as_str().unwrap_or_default();
            assert!(
                text.contains(expected),
                "{path}: {text:?} should mention {expected:?}"
            );
            assert!(text.len() < 300, "short reason: {text}");
        }
    }
}

/// A review of a rule ConfigMap labelled as zoneguard's rules, carrying `text`.
fn rule_configmap_review(name: &str, text: &str) -> serde_json::Value {
    json!({"apiVersion": "admission.k8s.io/v1", "kind": "AdmissionReview",
        "request": {"uid": name, "kind": {"group": "", "version": "v1", "kind": "ConfigMap"},
            "namespace": "zoneguard", "name": name, "operation": "CREATE",
            "object": {"apiVersion": "v1", "kind": "ConfigMap",
                "metadata": {"name": name, "namespace": "zoneguard",
                    "labels": {"zoneguard.io/rules": "true"}},
                "data": {"rules.yaml": text}}}})
}

#[tokio::test(flavor = "multi_thread")]
async fn a_rule_configmap_whose_aliases_repeat_gigabytes_is_denied_at_its_line() {
    // One 1 MiB scalar named 8 000 times: 8 GB if the aliases were expanded.
    let mut text = format!("x: &big \"{}\"\nlist:\n", "a".repeat(1 << 20));
    text.push_str(&"  - *big\n".repeat(8_000));
    let bomb = rule_configmap_review("bomb", &text);
    let s = server().await;
    let response = review(&s.client(), &s.url("/validate"), &bomb).await;
    assert_eq!(response["allowed"], false, "{response}");
    let message = response["status"]["message"].as_str().unwrap_or_default();
    assert!(
        message.contains(r#"ConfigMap zoneguard/bomb: data["rules.yaml"] line 18: (document): its aliases (*name) repeat more than 16 MiB"#),
        "{message}"
    );
    // The server is still there, and answers the next request as before.
    let next = s.answer("/validate", "ingress-create-allowed.json").await;
    assert_eq!(next["allowed"], true, "{next}");
}

// One async thread for the server and the test: a rule set read on it would hold every other
// request, the metrics page included, until it was read.
#[tokio::test(flavor = "current_thread")]
async fn a_rule_configmap_being_read_holds_up_no_other_admission() {
    let filters: String = (0..60_000)
        .map(|i| format!("  - zone{i}.example.com\n"))
        .collect();
    let large = rule_configmap_review("large", &format!("domainFilters:\n{filters}"));
    let s = server().await;
    let (client, url) = (s.client(), s.url("/validate"));
    let judged = tokio::spawn(async move { review(&client, &url, &large).await });
    let reading = eventually(Duration::from_secs(20), || async {
        let (_, text) = get_text(&s.probe("/metrics")).await;
        metric(&text, IN_FLIGHT) == Some(1.0)
    })
    .await;
    assert!(
        reading,
        "the rule ConfigMap's review was never seen in flight"
    );
    answered_beside_one_in_flight(&s, "the rule set was read").await;
    let response = judged.await.unwrap();
    assert_eq!(response["allowed"], true, "{response}");
}

const IN_FLIGHT: &str = "zoneguard_admission_in_flight_requests";

/// Answers an ordinary admission while one request is in flight, and checks that it still is:
/// that the admission was not held up until `held_up_by`.
async fn answered_beside_one_in_flight(s: &TestServer, held_up_by: &str) {
    let next = s.answer("/validate", "ingress-create-allowed.json").await;
    assert_eq!(next["allowed"], true, "{next}");
    let (_, text) = get_text(&s.probe("/metrics")).await;
    assert_eq!(
        metric(&text, IN_FLIGHT),
        Some(1.0),
        "the next admission was answered only once {held_up_by}"
    );
}

/// An Ingress review naming `hosts` names, all outside the test rules' domains.
fn ingress_of_refused_names(hosts: usize) -> serde_json::Value {
    let mut review = fixture("ingress-create-allowed.json");
    let rules: Vec<_> = (0..hosts)
        .map(|i| json!({"host": format!("h{i}.elsewhere.org")}))
        .collect();
    review["request"]["object"]["spec"]["rules"] = json!(rules);
    review
}

// One worker thread: a multi-megabyte review judged on it (seconds in a debug build) would
// hold up every other request until it was judged.
#[tokio::test(flavor = "multi_thread", worker_threads = 1)]
async fn a_multi_megabyte_review_being_judged_holds_up_no_other_admission() {
    let large = ingress_of_refused_names(100_000);
    let s = server().await;
    let (client, url) = (s.client(), s.url("/validate"));
    let judged = tokio::spawn(async move { review(&client, &url, &large).await });
    let held = "zoneguard_admission_in_flight_body_bytes";
    let reading = eventually(Duration::from_secs(20), || async {
        let (_, text) = get_text(&s.probe("/metrics")).await;
        metric(&text, held).unwrap_or(0.0) > 0.0
    })
    .await;
    assert!(
        reading,
        "the large review was never seen in flight, or it held the runtime"
    );
    tokio::time::sleep(Duration::from_millis(300)).await;
    answered_beside_one_in_flight(&s, "the large review was judged").await;
    let response = judged.await.unwrap();
    assert_eq!(response["allowed"], false);
    let (_, text) = get_text(&s.probe("/metrics")).await;
    assert_eq!(metric(&text, held), Some(0.0), "the bytes were given back");
}

// One async thread for the server and the test. The test holds it, as judging a few
// multi-megabyte reviews would; the probes must still be answered, or kubelet would take a
// loaded pod out of its Service and restart it.
#[tokio::test(flavor = "current_thread")]
async fn probes_are_answered_while_every_webhook_worker_is_busy() {
    let s = server().await;
    assert_eq!(get_text(&s.probe("/readyz")).await.0, 200);
    let address = s.handle.probe_addr();
    let probe = std::thread::spawn(move || plain_get(address, "/readyz"));
    std::thread::sleep(Duration::from_secs(3));
    let answer = probe.join().unwrap();
    let answer = answer.expect("/readyz answered while the webhook's one worker was held");
    assert!(answer.starts_with("HTTP/1.1 200"), "{answer}");
    assert!(answer.contains("ready (rules generation 1)"), "{answer}");
}

#[tokio::test(flavor = "multi_thread")]
async fn a_server_dropped_without_shutdown_stops_serving_its_probe_port() {
    let s = server().await;
    let address = s.handle.probe_addr();
    assert!(plain_get(address, "/healthz").is_ok_and(|a| a.starts_with("HTTP/1.1 200")));
    drop(s);
    // The probe thread stops on its own runtime: wait for it, up to 5 s.
    let mut refused = false;
    for _ in 0..50 {
        if std::net::TcpStream::connect_timeout(&address, Duration::from_millis(200)).is_err() {
            refused = true;
            break;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    assert!(
        refused,
        "the probe port {address} still accepts connections"
    );
}

/// `path` fetched from `address` over plain HTTP/1.1 without an async runtime, given up after
/// two seconds.
fn plain_get(address: std::net::SocketAddr, path: &str) -> std::io::Result<String> {
    use std::io::{Read as _, Write as _};
    let mut stream = std::net::TcpStream::connect_timeout(&address, Duration::from_secs(2))?;
    stream.set_read_timeout(Some(Duration::from_secs(2)))?;
    write!(
        stream,
        "GET {path} HTTP/1.1\r\nHost: probe\r\nConnection: close\r\n\r\n"
    )?;
    let mut answer = String::new();
    stream.read_to_string(&mut answer)?;
    Ok(answer)
}

#[tokio::test(flavor = "multi_thread")]
async fn metrics_counters_move() {
    let s = server().await;
    let client = s.client();
    let (_, before) = get_text(&s.probe("/metrics")).await;
    let denied = "zoneguard_admission_requests_total{endpoint=\"validate\",kind=\"Ingress\",operation=\"CREATE\",verdict=\"denied\"}";
    assert_eq!(metric(&before, denied), None);
    assert_eq!(
        metric(&before, "zoneguard_rules_generation"),
        Some(1.0),
        "{before}"
    );
    for _ in 0..3 {
        s.answer("/validate", "ingress-create-outside.json").await;
    }
    s.answer("/mutate", "deployment-create.json").await;
    post(&client, &s.url("/validate"), b"garbage".to_vec()).await;
    let (status, after) = get_text(&s.probe("/metrics")).await;
    assert_eq!(status, 200);
    assert_eq!(metric(&after, denied), Some(3.0), "{after}");
    let skipped = "zoneguard_admission_requests_total{endpoint=\"mutate\",kind=\"other\",operation=\"CREATE\",verdict=\"skipped\"}";
    assert_eq!(metric(&after, skipped), Some(1.0), "{after}");
    let reason = "zoneguard_admission_violations_total{endpoint=\"validate\",reason=\"hostname-outside-filters\"}";
    assert_eq!(metric(&after, reason), Some(3.0));
    assert_eq!(
        metric(
            &after,
            "zoneguard_http_rejected_requests_total{endpoint=\"validate\",code=\"400\"}"
        ),
        Some(1.0)
    );
    assert_eq!(
        metric(
            &after,
            "zoneguard_admission_duration_seconds_count{endpoint=\"validate\"}"
        ),
        Some(3.0)
    );
    assert_eq!(
        metric(&after, "zoneguard_admission_in_flight_requests"),
        Some(0.0)
    );
    assert!(
        metric(
            &after,
            "zoneguard_tls_certificate_not_after_timestamp_seconds"
        )
        .unwrap()
            > 1.7e9
    );
    assert!(metric(&after, "zoneguard_rules_last_load_timestamp_seconds").unwrap() > 1.7e9);
    let open: Vec<&str> = after
        .lines()
        .filter(|l| l.contains("namespace=") || l.contains("other.com"))
        .collect();
    assert!(open.is_empty(), "labels from an open set: {open:?}");
}

#[tokio::test(flavor = "multi_thread")]
async fn an_update_admitted_without_a_refused_injection_is_counted_as_warned() {
    // The inject rule makes a name outside the filters: an UPDATE is admitted without it, and
    // the platform team sees the broken rule in the metrics, not only the user in a warning.
    let rules = fixture_text(DENY).replace("{namespace}.example.com", "{namespace}.other.org");
    let s = TestServer::start(&rules).await;
    let mut update = fixture("service-lb-create.json");
    update["request"]["operation"] = json!("UPDATE");
    update["request"]["oldObject"] = update["request"]["object"].clone();
    let response = review(&s.client(), &s.url("/mutate"), &update).await;
    assert_eq!(response["allowed"], true, "{response}");
    let warning = response["warnings"][0].as_str().unwrap_or_default();
    assert!(
        warning.ends_with("(not injected; the update is admitted without it)"),
        "{response}"
    );
    s.assert_one_warned_update("mutate", "Service", "hostname-outside-filters")
        .await;
}

#[tokio::test(flavor = "multi_thread")]
async fn requests_beyond_the_concurrency_limit_get_503() {
    let s = TestServer::start_with(&fixture_text(DENY), |c| c.requests.max_in_flight = 1).await;
    let client = s.client();
    // Hold the only slot with a request whose body trickles in.
    let body = serde_json::to_vec(&fixture("ingress-create-allowed.json")).unwrap();
    let slow = tokio::spawn({
        let (client, url) = (client.clone(), s.url("/validate"));
        async move {
            post(
                &client,
                &url,
                slow_body(body, 4, std::time::Duration::from_millis(300)),
            )
            .await
        }
    });
    tokio::time::sleep(std::time::Duration::from_millis(200)).await;
    let fast = serde_json::to_vec(&fixture("ingress-create-allowed.json")).unwrap();
    let (status, _) = post(&client, &s.url("/validate"), fast).await;
    assert_eq!(status, 503);
    let (status, answer) = slow.await.unwrap();
    assert_eq!(status, 200, "{answer}");
    assert_eq!(answer["response"]["allowed"], true);
    let (_, metrics) = get_text(&s.probe("/metrics")).await;
    let overloaded = "zoneguard_http_rejected_requests_total{endpoint=\"validate\",code=\"503\"}";
    assert_eq!(metric(&metrics, overloaded), Some(1.0), "{metrics}");
    let in_flight = "zoneguard_admission_in_flight_requests";
    assert_eq!(metric(&metrics, in_flight), Some(0.0), "{metrics}");
}

#[tokio::test(flavor = "multi_thread")]
async fn unknown_paths_and_methods_are_refused() {
    let s = server().await;
    let client = s.client();
    let wrong_method = client.get(s.url("/validate")).send().await.unwrap();
    assert_eq!(wrong_method.status(), 405);
    assert_eq!(wrong_method.headers()["allow"], "POST");
    assert_eq!(
        client
            .post(s.url("/nope"))
            .body("{}")
            .send()
            .await
            .unwrap()
            .status(),
        404
    );
    // The guard counts the routes' own refusals too.
    let (_, metrics) = get_text(&s.probe("/metrics")).await;
    for (series, count) in [
        (
            "zoneguard_http_rejected_requests_total{endpoint=\"validate\",code=\"405\"}",
            1.0,
        ),
        (
            "zoneguard_http_rejected_requests_total{endpoint=\"other\",code=\"404\"}",
            1.0,
        ),
    ] {
        assert_eq!(
            metric(&metrics, series),
            Some(count),
            "{series} in {metrics}"
        );
    }
}

/// TLS connections made by hand, for what reqwest does not let a test choose or see.
mod raw_tls {
    use super::*;
    use rustls::crypto::CryptoProvider;
    use rustls_pki_types::{CertificateDer, ServerName};
    use std::sync::Arc;
    use tokio::net::TcpStream;
    use tokio_rustls::client::TlsStream;

    pub fn tls_config(
        s: &TestServer,
        provider: CryptoProvider,
        versions: &[&'static rustls::SupportedProtocolVersion],
    ) -> rustls::ClientConfig {
        let mut roots = rustls::RootCertStore::empty();
        roots
            .add(CertificateDer::from(der_of(&s.pki.ca.cert.cert_pem)))
            .unwrap();
        let mut config = rustls::ClientConfig::builder_with_provider(Arc::new(provider))
            .with_protocol_versions(versions)
            .unwrap()
            .with_root_certificates(roots)
            .with_no_client_auth();
        config.alpn_protocols = vec![b"http/1.1".to_vec()];
        config
    }

    pub async fn connect_with(
        s: &TestServer,
        config: rustls::ClientConfig,
    ) -> TlsStream<TcpStream> {
        let connector = tokio_rustls::TlsConnector::from(Arc::new(config));
        let tcp = TcpStream::connect(s.handle.https_addr()).await.unwrap();
        let name = ServerName::try_from("localhost").unwrap();
        connector.connect(name, tcp).await.expect("TLS handshake")
    }

    /// zoneguard's own crypto, to change before a client uses it.
    pub fn own_crypto() -> CryptoProvider {
        Arc::unwrap_or_clone(zoneguard::serve::tls::provider())
    }

    /// A client with zoneguard's own crypto, limited to `versions`.
    pub async fn connect(
        s: &TestServer,
        versions: &[&'static rustls::SupportedProtocolVersion],
    ) -> TlsStream<TcpStream> {
        connect_with(s, tls_config(s, own_crypto(), versions)).await
    }
}

/// The key exchange the webhook agrees to: kube-apiserver (Go's crypto/tls) offers the hybrid
/// post-quantum X25519MLKEM768 first, and clients without it still connect.
mod key_exchange {
    use super::raw_tls::{connect, connect_with, own_crypto, tls_config};
    use super::*;
    use rustls::crypto::aws_lc_rs::kx_group;
    use rustls::NamedGroup;

    async fn negotiated(
        s: &TestServer,
        groups: &[&'static dyn rustls::crypto::SupportedKxGroup],
    ) -> NamedGroup {
        let mut provider = own_crypto();
        provider.kx_groups = groups.to_vec();
        let versions = [&rustls::version::TLS13];
        let stream = connect_with(s, tls_config(s, provider, &versions)).await;
        let group = stream.get_ref().1.negotiated_key_exchange_group();
        group.expect("a key exchange group").name()
    }

    #[tokio::test(flavor = "multi_thread")]
    async fn a_client_offering_the_hybrid_post_quantum_group_gets_it() {
        let s = server().await;
        let go_order = [
            kx_group::X25519MLKEM768,
            kx_group::X25519,
            kx_group::SECP256R1,
        ];
        assert_eq!(negotiated(&s, &go_order).await, NamedGroup::X25519MLKEM768);
        let stream = connect(&s, &[&rustls::version::TLS13]).await;
        let group = stream.get_ref().1.negotiated_key_exchange_group().unwrap();
        assert_eq!(
            group.name(),
            NamedGroup::X25519MLKEM768,
            "zoneguard's own client"
        );
    }

    #[tokio::test(flavor = "multi_thread")]
    async fn clients_without_the_post_quantum_group_still_connect() {
        let s = server().await;
        assert_eq!(
            negotiated(&s, &[kx_group::X25519]).await,
            NamedGroup::X25519
        );
        assert_eq!(
            negotiated(&s, &[kx_group::SECP256R1]).await,
            NamedGroup::secp256r1
        );
    }
}

mod slow_clients {
    use super::raw_tls::{connect, connect_with, own_crypto, tls_config};
    use super::*;
    use std::time::Instant;
    use tokio::io::{AsyncReadExt, AsyncWriteExt};
    use tokio::net::TcpStream;
    use tokio_rustls::client::TlsStream;

    /// Read until the server closes the connection; returns what was read and when it closed.
    async fn read_until_closed(
        stream: &mut TlsStream<TcpStream>,
        within: Duration,
    ) -> (Vec<u8>, Duration) {
        let started = Instant::now();
        let mut data = Vec::new();
        let mut buf = [0u8; 4096];
        loop {
            match tokio::time::timeout_at((started + within).into(), stream.read(&mut buf)).await {
                Ok(Ok(0)) | Ok(Err(_)) => return (data, started.elapsed()),
                Ok(Ok(n)) => data.extend_from_slice(&buf[..n]),
                Err(_) => panic!("connection still open after {within:?}"),
            }
        }
    }

    #[tokio::test(flavor = "multi_thread")]
    async fn a_client_that_never_finishes_its_headers_is_cut_off() {
        let s = TestServer::start_with(&fixture_text(DENY), |c| {
            c.connections.header_read_timeout = Duration::from_millis(500);
        })
        .await;
        let mut stream = connect(&s, &[&rustls::version::TLS13]).await;
        stream
            .write_all(b"POST /validate HTTP/1.1\r\nHost: localhost\r\n")
            .await
            .unwrap();
        let (_, closed_after) = read_until_closed(&mut stream, Duration::from_secs(5)).await;
        assert!(
            closed_after >= Duration::from_millis(400),
            "{closed_after:?}"
        );
    }

    #[tokio::test(flavor = "multi_thread")]
    async fn idle_keep_alive_connections_are_closed() {
        let s = TestServer::start_with(&fixture_text(DENY), |c| {
            c.connections.idle_timeout = Duration::from_millis(600);
        })
        .await;
        let mut stream = connect(&s, &[&rustls::version::TLS12]).await;
        assert_eq!(
            stream.get_ref().1.protocol_version(),
            Some(rustls::ProtocolVersion::TLSv1_2)
        );
        let body = serde_json::to_vec(&fixture("ingress-create-allowed.json")).unwrap();
        let head = format!(
            "POST /validate HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\nContent-Length: {}\r\n\r\n",
            body.len()
        );
        stream.write_all(head.as_bytes()).await.unwrap();
        stream.write_all(&body).await.unwrap();
        let (data, closed_after) = read_until_closed(&mut stream, Duration::from_secs(5)).await;
        let text = String::from_utf8_lossy(&data);
        assert!(text.starts_with("HTTP/1.1 200"), "{text}");
        assert!(text.contains("\"allowed\":true"), "{text}");
        assert!(
            closed_after >= Duration::from_millis(500),
            "kept alive first: {closed_after:?}"
        );
    }

    #[tokio::test(flavor = "multi_thread")]
    async fn an_http2_connection_without_requests_is_closed_though_pings_pass() {
        let s = TestServer::start_with(&fixture_text(DENY), |c| {
            c.connections.idle_timeout = Duration::from_millis(600);
        })
        .await;
        let mut config = tls_config(&s, own_crypto(), &[&rustls::version::TLS13]);
        config.alpn_protocols = vec![b"h2".to_vec()];
        let tls = connect_with(&s, config).await;
        // The client pings every 100 ms, as the API server's client pings an idle connection.
        let (mut sender, conn) =
            hyper::client::conn::http2::Builder::new(hyper_util::rt::TokioExecutor::new())
                .timer(hyper_util::rt::TokioTimer::new())
                .keep_alive_interval(Duration::from_millis(100))
                .keep_alive_while_idle(true)
                .handshake(hyper_util::rt::TokioIo::new(tls))
                .await
                .expect("HTTP/2 handshake");
        let started = Instant::now();
        let connection = tokio::spawn(async move {
            let _ = conn.await;
            started.elapsed()
        });
        let body = serde_json::to_vec(&fixture("ingress-create-allowed.json")).unwrap();
        let request = axum::http::Request::post("https://localhost/validate")
            .header("content-type", "application/json")
            .body(http_body_util::Full::new(axum::body::Bytes::from(body)))
            .unwrap();
        let response = sender.send_request(request).await.expect("answered");
        assert_eq!(response.status(), 200);
        let closed_after = tokio::time::timeout(Duration::from_secs(5), connection)
            .await
            .expect("the idle connection was closed")
            .unwrap();
        assert!(
            closed_after >= Duration::from_millis(500),
            "kept open while answering: {closed_after:?}"
        );
    }

    #[tokio::test(flavor = "multi_thread")]
    async fn a_request_slower_than_the_request_timeout_gets_408() {
        let s = TestServer::start_with(&fixture_text(DENY), |c| {
            c.requests.request_timeout = Duration::from_millis(300);
        })
        .await;
        let body = serde_json::to_vec(&fixture("ingress-create-allowed.json")).unwrap();
        let slow = slow_body(body, 4, Duration::from_millis(250));
        let (status, answer) = post(&s.client(), &s.url("/validate"), slow).await;
        assert_eq!(status, 408, "{answer}");
    }
}
