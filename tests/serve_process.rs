//! The built binary: SIGTERM drain, start-up errors naming the flag, the self-signed default,
//! environment variables, JSON logs.

use crate::serve_support::process::{url, Files, Proc};
use crate::serve_support::*;
use std::time::{Duration, Instant};

#[tokio::test(flavor = "multi_thread")]
async fn sigterm_drains_requests_in_flight() {
    let files = Files::new();
    let mut args = files.args();
    args.extend(["--grace-period".into(), "10s".into()]);
    let mut proc = Proc::spawn(&args.iter().map(String::as_str).collect::<Vec<_>>(), &[]);
    let (https, probe) = proc.wait_serving();
    let probe_url = |p: &str| format!("http://{probe}{p}");
    assert!(
        eventually(Duration::from_secs(10), || async {
            get_text(&probe_url("/readyz")).await.0 == 200
        })
        .await
    );

    let body = serde_json::to_vec(&fixture("ingress-create-allowed.json")).unwrap();
    let mut in_flight = Vec::new();
    for i in 0..6 {
        let mode = [Mode::Auto, Mode::Http1, Mode::FreshConnections][i % 3];
        let client = client(&files.pki.ca.cert.cert_pem, mode);
        let (url, body) = (url(https, "/validate"), body.clone());
        in_flight.push(tokio::spawn(async move {
            post(
                &client,
                &url,
                slow_body(body, 8, Duration::from_millis(300)),
            )
            .await
        }));
    }
    // SIGTERM only once all six are being handled (headers in, bodies still trickling).
    let all_in_flight = eventually(Duration::from_secs(2), || async {
        let (_, text) = get_text(&probe_url("/metrics")).await;
        metric(&text, "zoneguard_admission_in_flight_requests") == Some(6.0)
    })
    .await;
    assert!(all_in_flight, "six requests in flight");
    let signalled = Instant::now();
    proc.sigterm();
    tokio::time::sleep(Duration::from_millis(300)).await;

    let (status, text) = get_text(&probe_url("/readyz")).await;
    assert_eq!(status, 503, "not ready while draining: {text}");
    assert!(text.contains("shutting down"), "{text}");
    let fresh = client(&files.pki.ca.cert.cert_pem, Mode::FreshConnections);
    assert!(
        fresh
            .post(url(https, "/validate"))
            .body(body.clone())
            .send()
            .await
            .is_err(),
        "no new connections"
    );

    for task in in_flight {
        let (status, answer) = task.await.unwrap();
        assert_eq!(status, 200, "{answer}");
        assert_eq!(answer["response"]["allowed"], true);
    }
    let exit = tokio::task::spawn_blocking(move || {
        let status = proc.wait_exit(Duration::from_secs(12));
        (status, proc.events())
    });
    let (status, events) = exit.await.unwrap();
    assert!(status.success(), "{status}");
    assert!(
        signalled.elapsed() < Duration::from_secs(10),
        "exited within the grace period"
    );
    assert!(
        events
            .iter()
            .any(|e| e["message"] == "all connections drained; exiting"),
        "{events:?}"
    );
}

#[test]
fn a_bad_certificate_file_fails_at_start_naming_the_flag() {
    let files = Files::new();
    std::fs::write(files.dir.path().join("tls.crt"), "not a certificate").unwrap();
    let mut args = files.args();
    args.extend(["--log-format".into(), "text".into()]);
    let mut proc = Proc::spawn(&args.iter().map(String::as_str).collect::<Vec<_>>(), &[]);
    let status = proc.wait_exit(Duration::from_secs(10));
    assert_eq!(status.code(), Some(2));
    std::thread::sleep(Duration::from_millis(100));
    let log = proc.log().join("\n");
    assert!(log.contains("--tls-cert"), "{log}");
    assert!(log.contains("tls.crt"), "{log}");

    let mut args = files.args();
    let missing = files.path("missing.key");
    let key = args.iter().position(|a| a == "--tls-key").unwrap() + 1;
    args[key] = missing;
    let mut proc = Proc::spawn(&args.iter().map(String::as_str).collect::<Vec<_>>(), &[]);
    assert_eq!(proc.wait_exit(Duration::from_secs(10)).code(), Some(2));
    std::thread::sleep(Duration::from_millis(100));
    let log = proc.log().join("\n");
    assert!(
        log.contains("--tls-key") && log.contains("missing.key"),
        "{log}"
    );
}

#[test]
fn a_worker_thread_count_that_is_not_a_positive_number_is_refused_at_start() {
    let files = Files::new();
    let args = files.args();
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    for bad in ["0", "two", " 2", "-1"] {
        let mut proc = Proc::spawn(&args, &[("TOKIO_WORKER_THREADS", bad)]);
        assert_eq!(
            proc.wait_exit(Duration::from_secs(10)).code(),
            Some(2),
            "{bad:?}"
        );
        std::thread::sleep(Duration::from_millis(100));
        let log = proc.log().join("\n");
        assert!(!log.contains("panicked"), "{bad:?}: {log}");
        let named = proc.events().into_iter().any(|e| {
            e["error"].as_str().is_some_and(|error| {
                error.starts_with(&format!("TOKIO_WORKER_THREADS={bad:?} is not"))
            })
        });
        assert!(named, "{bad:?}: {log}");
    }
}

#[test]
fn without_a_source_of_rules_it_is_a_usage_error_naming_both_flags() {
    let mut proc = Proc::spawn(
        &["--listen", "127.0.0.1:0", "--probe-listen", "127.0.0.1:0"],
        &[],
    );
    assert_eq!(proc.wait_exit(Duration::from_secs(10)).code(), Some(2));
    std::thread::sleep(Duration::from_millis(100));
    let log = proc.log().join("\n");
    assert!(
        log.contains("required arguments were not provided"),
        "{log}"
    );
    assert!(log.contains("--rules <FILE>|--rules-namespace"), "{log}");
}

#[tokio::test(flavor = "multi_thread")]
async fn without_certificate_flags_it_serves_a_self_signed_localhost_certificate() {
    let files = Files::new();
    let rules = files.path("rules.yaml");
    let args = [
        "--listen",
        "127.0.0.1:0",
        "--probe-listen",
        "127.0.0.1:0",
        "--rules",
        rules.as_str(),
    ];
    let mut proc = Proc::spawn(&args, &[]);
    let (https, _) = proc.wait_serving();
    assert!(
        proc.log().iter().any(|l| l.contains("self-signed")),
        "{:?}",
        proc.log()
    );
    let insecure = client_builder()
        .danger_accept_invalid_certs(true)
        .tls_info(true)
        .build()
        .unwrap();
    let body = serde_json::to_vec(&fixture("ingress-create-allowed.json")).unwrap();
    let response = insecure
        .post(url(https, "/validate"))
        .body(body)
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), 200);
    let der = peer_cert(&response);
    let (_, cert) = x509_parser::parse_x509_certificate(&der).unwrap();
    use x509_parser::extensions::GeneralName;
    let names = &cert
        .subject_alternative_name()
        .unwrap()
        .expect("SAN")
        .value
        .general_names;
    assert!(
        names
            .iter()
            .any(|n| matches!(n, GeneralName::DNSName("localhost"))),
        "{names:?}"
    );
    assert!(
        names
            .iter()
            .any(|n| matches!(n, GeneralName::IPAddress(ip) if *ip == [127, 0, 0, 1])),
        "{names:?}"
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn flags_come_from_the_environment_and_logs_are_json_without_bodies() {
    let files = Files::new();
    let envs = [
        ("ZONEGUARD_LISTEN", "127.0.0.1:0".to_owned()),
        ("ZONEGUARD_PROBE_LISTEN", "127.0.0.1:0".to_owned()),
        ("ZONEGUARD_RULES", files.path("rules.yaml")),
        ("ZONEGUARD_TLS_CERT", files.path("tls.crt")),
        ("ZONEGUARD_TLS_KEY", files.path("tls.key")),
        ("ZONEGUARD_MAX_MESSAGE_LINES", "1".to_owned()),
    ];
    let envs: Vec<(&str, &str)> = envs.iter().map(|(k, v)| (*k, v.as_str())).collect();
    let mut proc = Proc::spawn(&[], &envs);
    let (https, _) = proc.wait_serving();
    let client = client(&files.pki.ca.cert.cert_pem, Mode::Auto);
    let answer = review(
        &client,
        &url(https, "/validate"),
        &fixture("ingress-create-many-violations.json"),
    )
    .await;
    let message = answer["status"]["message"].as_str().unwrap();
    assert_eq!(
        message.lines().count(),
        2,
        "ZONEGUARD_MAX_MESSAGE_LINES=1 applies: {message}"
    );
    assert_eq!(message.lines().last(), Some("and 6 more"));

    let found = eventually(Duration::from_secs(5), || {
        let events = proc.events();
        async move { events.iter().any(|e| e["message"] == "admission") }
    })
    .await;
    assert!(found, "admission event logged: {:?}", proc.log());
    let event = proc
        .events()
        .into_iter()
        .find(|e| e["message"] == "admission")
        .unwrap();
    assert_eq!(event["uid"], "11111111-0000-4000-8000-000000000005");
    assert_eq!(event["kind"], "Ingress");
    assert_eq!(event["namespace"], "default");
    assert_eq!(event["name"], "many");
    assert_eq!(event["operation"], "CREATE");
    assert_eq!(event["verdict"], "denied");
    assert_eq!(event["reasons"], "hostname-outside-filters");
    assert_eq!(event["user"], "alice@example.com", "who was refused");
    let violations = event["violations"].as_str().unwrap();
    assert!(
        violations.starts_with("spec.rules[0].host \"") && violations.ends_with("; and 6 more"),
        "the first ZONEGUARD_MAX_MESSAGE_LINES messages: {violations}"
    );
    assert_eq!(event["generation"], 1);
    assert!(event["duration_ms"].as_f64().is_some());
    let log = proc.log().join("\n");
    assert!(!log.contains("ingressClassName"), "no bodies in logs");

    // A request answered with an HTTP error is logged too, with why.
    let (status, _) = post(&client, &url(https, "/validate"), "{nope").await;
    assert_eq!(status, 400);
    let refused = |e: &serde_json::Value| e["message"] == "request refused" && e["status"] == 400;
    let logged = eventually(Duration::from_secs(5), || {
        let events = proc.events();
        async move { events.iter().any(refused) }
    })
    .await;
    assert!(logged, "the 400 logged: {:?}", proc.log());
    let event = proc.events().into_iter().find(refused).unwrap();
    assert_eq!(event["level"], "WARN");
    assert_eq!(event["endpoint"], "validate");
    assert!(
        event["error"]
            .as_str()
            .unwrap()
            .starts_with("malformed JSON"),
        "{event}"
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn shutdown_delay_keeps_serving_while_not_ready() {
    let files = Files::new();
    let mut args = files.args();
    args.extend([
        "--shutdown-delay".into(),
        "1500ms".into(),
        "--grace-period".into(),
        "5s".into(),
    ]);
    let mut proc = Proc::spawn(&args.iter().map(String::as_str).collect::<Vec<_>>(), &[]);
    let (https, probe) = proc.wait_serving();
    let client = client(&files.pki.ca.cert.cert_pem, Mode::FreshConnections);
    let allowed = fixture("ingress-create-allowed.json");
    review(&client, &url(https, "/validate"), &allowed).await;
    let signalled = Instant::now();
    proc.sigterm();
    tokio::time::sleep(Duration::from_millis(300)).await;
    let (status, text) = get_text(&format!("http://{probe}/readyz")).await;
    assert_eq!(status, 503, "{text}");
    let answer = review(&client, &url(https, "/validate"), &allowed).await;
    assert_eq!(
        answer["allowed"], true,
        "new requests still served during the delay"
    );
    let status = tokio::task::spawn_blocking(move || proc.wait_exit(Duration::from_secs(6)))
        .await
        .unwrap();
    assert!(status.success());
    assert!(
        signalled.elapsed() >= Duration::from_millis(1400),
        "{:?}",
        signalled.elapsed()
    );
}

#[test]
fn text_logs_to_a_pipe_carry_no_colour_escapes() {
    let files = Files::new();
    let mut args = files.args();
    args.extend(["--log-format".into(), "text".into()]);
    // NO_COLOR empty counts as unset: colour would be on if stderr's being a pipe did not stop it.
    let proc = Proc::spawn(
        &args.iter().map(String::as_str).collect::<Vec<_>>(),
        &[("NO_COLOR", "")],
    );
    let deadline = Instant::now() + Duration::from_secs(20);
    while !proc
        .log()
        .iter()
        .any(|l| l.contains("zoneguard webhook serving"))
    {
        assert!(Instant::now() < deadline, "not serving: {:?}", proc.log());
        std::thread::sleep(Duration::from_millis(20));
    }
    let log = proc.log().join("\n");
    assert!(log.contains("INFO"), "{log}");
    assert!(!log.contains('\u{1b}'), "{log:?}");
}
