//! moto's server as a local IAM/STS endpoint for the `iam_*` tests: installed by
//! `scripts/moto.sh` (pinned version), started on 127.0.0.1 on a free port per test, killed
//! when the test ends (also when it fails). A moto that cannot start fails the test.
#![allow(dead_code)]

use aws_sdk_iam::config::{BehaviorVersion, Credentials, Region};
use serde_json::{json, Value};
use std::net::{TcpListener, TcpStream};
use std::path::PathBuf;
use std::process::{Child, Command, Stdio};
use std::sync::{Once, OnceLock};
use std::time::{Duration, Instant};
use zoneguard::iam::{Options, Resolver};
use zoneguard_core::admission::{self, Decision, Operation, Request};
use zoneguard_core::rules::RuleSet;
use zoneguard_core::tree::Node;

/// moto's default account: zoneguard's own account in these tests.
pub const OWN: &str = "123456789012";
/// Another account (moto serves any account id).
pub const OTHER: &str = "444455556666";
pub const ISSUER: &str = "oidc.eks.us-east-1.amazonaws.com/id/EXAMPLED539D4633E53DE1B716D3041E";
pub const SA_NS: &str = "external-dns";
pub const SA_NAME: &str = "external-dns";

/// A running moto server; killed on drop.
pub struct Moto {
    child: Option<Child>,
    pub url: String,
}

impl Drop for Moto {
    fn drop(&mut self) {
        self.stop();
    }
}

fn moto_server() -> &'static PathBuf {
    static SERVER: OnceLock<PathBuf> = OnceLock::new();
    SERVER.get_or_init(|| {
        let script = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("scripts/moto.sh");
        let out = Command::new("bash")
            .arg(&script)
            .stderr(Stdio::inherit())
            .output()
            .unwrap_or_else(|e| panic!("cannot run {}: {e}", script.display()));
        assert!(
            out.status.success(),
            "scripts/moto.sh failed ({}): moto is needed for the IAM tests",
            out.status
        );
        let path = String::from_utf8_lossy(&out.stdout).trim().to_owned();
        assert!(!path.is_empty(), "scripts/moto.sh printed no path");
        PathBuf::from(path)
    })
}

/// Test credentials for the SDK's default chain (set once, before any client exists).
fn test_environment() {
    static ENV: Once = Once::new();
    ENV.call_once(|| {
        std::env::set_var("AWS_ACCESS_KEY_ID", "testing");
        std::env::set_var("AWS_SECRET_ACCESS_KEY", "testing");
        std::env::set_var("AWS_REGION", "us-east-1");
        std::env::remove_var("AWS_PROFILE");
        std::env::remove_var("AWS_ENDPOINT_URL");
        std::env::set_var("AWS_EC2_METADATA_DISABLED", "true");
    });
}

/// Runs moto (`$1` on port `$2`) while process `$3` lives; SIGTERM stops both.
const WATCHDOG: &str = r#"
"$1" -H 127.0.0.1 -p "$2" >/dev/null 2>&1 &
moto=$!
trap 'kill $moto 2>/dev/null; wait $moto; exit 0' TERM INT
while kill -0 "$3" 2>/dev/null && kill -0 "$moto" 2>/dev/null; do sleep 0.2; done
kill "$moto" 2>/dev/null
wait "$moto"
"#;

fn free_port() -> u16 {
    let listener = TcpListener::bind("127.0.0.1:0").expect("bind a free port");
    listener.local_addr().expect("local address").port()
}

impl Moto {
    /// Starts moto on a free port and waits until it answers (at most 60 s). moto runs under
    /// a small watchdog shell that stops it when this test process goes away, even by abort.
    pub fn start() -> Self {
        test_environment();
        let server = moto_server();
        let port = free_port();
        let child = Command::new("bash")
            .args(["-c", WATCHDOG, "moto-watchdog"])
            .arg(server)
            .arg(port.to_string())
            .arg(std::process::id().to_string())
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .unwrap_or_else(|e| panic!("cannot start {}: {e}", server.display()));
        let mut moto = Moto {
            child: Some(child),
            url: format!("http://127.0.0.1:{port}"),
        };
        let started = Instant::now();
        while TcpStream::connect(("127.0.0.1", port)).is_err() {
            if let Some(Ok(Some(status))) = moto.child.as_mut().map(Child::try_wait) {
                panic!("moto_server exited before listening ({status})");
            }
            assert!(
                started.elapsed() < Duration::from_secs(60),
                "moto_server did not listen on 127.0.0.1:{port} within 60 s"
            );
            std::thread::sleep(Duration::from_millis(100));
        }
        moto
    }

    /// Stops the server: SIGTERM to the watchdog, which stops moto and waits for it.
    pub fn stop(&mut self) {
        if let Some(mut child) = self.child.take() {
            let terminated = Command::new("kill")
                .arg(child.id().to_string())
                .status()
                .is_ok_and(|s| s.success());
            if !terminated {
                let _ = child.kill();
            }
            let _ = child.wait();
        }
    }

    pub fn options(&self) -> Options {
        Options {
            endpoint_url: Some(self.url.clone()),
            region: Some("us-east-1".into()),
        }
    }

    /// A resolver pointed at this moto.
    pub async fn resolver(&self) -> Resolver {
        Resolver::new(&self.options())
            .await
            .unwrap_or_else(|e| panic!("resolver: {e:#}"))
    }

    fn config(&self, credentials: Credentials) -> aws_sdk_iam::Config {
        aws_sdk_iam::Config::builder()
            .behavior_version(BehaviorVersion::latest())
            .endpoint_url(&self.url)
            .region(Region::new("us-east-1"))
            .credentials_provider(credentials)
            .http_client(http_client())
            .build()
    }

    /// An admin IAM client in moto's default account.
    pub fn iam(&self) -> Admin {
        let credentials = Credentials::new("testing", "testing", None, None, "test");
        Admin(aws_sdk_iam::Client::from_conf(self.config(credentials)))
    }

    /// An admin IAM client in `account` (moto hands out credentials for any account's role).
    pub async fn iam_in(&self, account: &str) -> Admin {
        let sts_config = aws_sdk_sts::Config::builder()
            .behavior_version(BehaviorVersion::latest())
            .endpoint_url(&self.url)
            .region(aws_sdk_sts::config::Region::new("us-east-1"))
            .credentials_provider(Credentials::new("testing", "testing", None, None, "test"))
            .http_client(http_client())
            .build();
        let sts = aws_sdk_sts::Client::from_conf(sts_config);
        let out = sts
            .assume_role()
            .role_arn(format!("arn:aws:iam::{account}:role/test-admin"))
            .role_session_name("test")
            .send()
            .await
            .unwrap_or_else(|e| panic!("assume role in {account}: {e:?}"));
        let c = out.credentials().expect("credentials");
        let credentials = Credentials::new(
            c.access_key_id(),
            c.secret_access_key(),
            Some(c.session_token().to_owned()),
            None,
            "test",
        );
        Admin(aws_sdk_iam::Client::from_conf(self.config(credentials)))
    }
}

fn http_client() -> aws_sdk_iam::config::SharedHttpClient {
    use aws_smithy_http_client::tls::{self, rustls_provider::CryptoMode};
    aws_smithy_http_client::Builder::new()
        .tls_provider(tls::Provider::Rustls(CryptoMode::AwsLc))
        .build_https()
}

/// IAM calls the tests make to set the scene.
pub struct Admin(pub aws_sdk_iam::Client);

impl Admin {
    pub async fn create_role(&self, path: &str, name: &str, trust: &Value) -> String {
        let out = self
            .0
            .create_role()
            .path(path)
            .role_name(name)
            .assume_role_policy_document(trust.to_string())
            .send()
            .await
            .unwrap_or_else(|e| panic!("create role {name}: {e:?}"));
        out.role().expect("role").arn().to_owned()
    }

    /// The role `external-dns` whose trust policy admits the test ServiceAccount in account OWN.
    pub async fn create_trusted_role(&self) -> String {
        let trust = irsa_trust(OWN, SA_NS, SA_NAME);
        self.create_role("/", "external-dns", &trust).await
    }

    pub async fn update_trust(&self, name: &str, trust: &Value) {
        self.0
            .update_assume_role_policy()
            .role_name(name)
            .policy_document(trust.to_string())
            .send()
            .await
            .unwrap_or_else(|e| panic!("update trust of {name}: {e:?}"));
    }

    pub async fn put_inline(&self, role: &str, name: &str, policy: &Value) {
        self.0
            .put_role_policy()
            .role_name(role)
            .policy_name(name)
            .policy_document(policy.to_string())
            .send()
            .await
            .unwrap_or_else(|e| panic!("put role policy {name}: {e:?}"));
    }

    /// A managed policy `name`, set as `role`'s permissions boundary.
    pub async fn set_boundary(&self, role: &str, name: &str, policy: &Value) -> String {
        let arn = self.create_policy(name, policy).await;
        self.0
            .put_role_permissions_boundary()
            .role_name(role)
            .permissions_boundary(&arn)
            .send()
            .await
            .unwrap_or_else(|e| panic!("set boundary {arn} on {role}: {e:?}"));
        arn
    }

    pub async fn attach_managed(&self, role: &str, name: &str, policy: &Value) -> String {
        let arn = self.create_policy(name, policy).await;
        self.0
            .attach_role_policy()
            .role_name(role)
            .policy_arn(&arn)
            .send()
            .await
            .unwrap_or_else(|e| panic!("attach {arn}: {e:?}"));
        arn
    }

    async fn create_policy(&self, name: &str, policy: &Value) -> String {
        let out = self
            .0
            .create_policy()
            .policy_name(name)
            .policy_document(policy.to_string())
            .send()
            .await
            .unwrap_or_else(|e| panic!("create policy {name}: {e:?}"));
        out.policy()
            .and_then(|p| p.arn())
            .expect("policy arn")
            .to_owned()
    }

    pub async fn create_provider(&self, client_ids: &[&str]) -> String {
        let mut call = self
            .0
            .create_open_id_connect_provider()
            .url(format!("https://{ISSUER}"))
            .thumbprint_list("9e99a48a9960b14926bb7f3b02e22da2b0ab7280");
        for id in client_ids {
            call = call.client_id_list(*id);
        }
        let out = call
            .send()
            .await
            .unwrap_or_else(|e| panic!("create provider: {e:?}"));
        out.open_id_connect_provider_arn()
            .expect("provider arn")
            .to_owned()
    }
}

/// The trust policy IRSA needs for `namespace/name` in `account`.
pub fn irsa_trust(account: &str, namespace: &str, name: &str) -> Value {
    json!({"Version": "2012-10-17", "Statement": [{
        "Effect": "Allow",
        "Principal": {"Federated": format!("arn:aws:iam::{account}:oidc-provider/{ISSUER}")},
        "Action": "sts:AssumeRoleWithWebIdentity",
        "Condition": {"StringEquals": {
            format!("{ISSUER}:sub"): format!("system:serviceaccount:{namespace}:{name}"),
            format!("{ISSUER}:aud"): "sts.amazonaws.com"
        }}
    }]})
}

/// A trust policy that lets `principal` (an AWS principal) assume the role.
pub fn aws_trust(principal: &str) -> Value {
    json!({"Version": "2012-10-17", "Statement": [{
        "Effect": "Allow", "Principal": {"AWS": principal}, "Action": "sts:AssumeRole"
    }]})
}

/// A permission policy that allows `sts:AssumeRole` on `resource`.
pub fn assume_policy(resource: &str) -> Value {
    json!({"Version": "2012-10-17", "Statement": [{
        "Effect": "Allow", "Action": "sts:AssumeRole", "Resource": resource
    }]})
}

pub fn rules(extra: &str) -> RuleSet {
    let text = format!("irsa:\n  issuer: {ISSUER}\n  source: iam\n{extra}");
    RuleSet::parse("rules.yaml", &text).unwrap_or_else(|e| panic!("{e:?}"))
}

pub fn service_account(namespace: &str, name: &str, arn: &str) -> Value {
    json!({"apiVersion": "v1", "kind": "ServiceAccount",
        "metadata": {"name": name, "namespace": namespace,
            "annotations": {"eks.amazonaws.com/role-arn": arn}}})
}

/// What the webhook does for a ServiceAccount CREATE: resolve, then validate.
pub async fn admit(
    resolver: &Resolver,
    rules: &RuleSet,
    namespace: &str,
    object: &Value,
) -> Decision {
    let name = object["metadata"]["name"].as_str().unwrap_or_default();
    let object = Node::from(object);
    let req = Request {
        operation: Operation::Create,
        group: "",
        version: "v1",
        kind: "ServiceAccount",
        namespace,
        name,
        object: Some(&object),
        old_object: None,
        sub_resource: None,
    };
    let facts = resolver.resolve(rules, &req).await;
    admission::validate_with(rules, &req, &facts)
}

/// Every violation message and warning, for assertions.
pub fn texts(d: &Decision) -> String {
    let mut all: Vec<String> = d
        .violations
        .iter()
        .map(|v| format!("[{}] {v}", v.reason))
        .collect();
    all.extend(d.warnings.iter().map(|w| format!("[warning] {w}")));
    all.join("\n")
}

/// A proxy in front of `upstream` that holds back each answer by `delay` (the first bytes of
/// an answer after a quiet spell; the rest pass at once): a slow IAM. Runs until the test ends.
pub async fn slow_proxy(upstream: &str, delay: Duration) -> String {
    use tokio::io::{AsyncReadExt, AsyncWriteExt};
    let upstream = upstream.trim_start_matches("http://").to_owned();
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
        .await
        .expect("bind the slow proxy");
    let url = format!("http://{}", listener.local_addr().expect("proxy address"));
    tokio::spawn(async move {
        while let Ok((client, _)) = listener.accept().await {
            let upstream = upstream.clone();
            tokio::spawn(async move {
                let Ok(server) = tokio::net::TcpStream::connect(&upstream).await else {
                    return;
                };
                let (mut client_read, mut client_write) = client.into_split();
                let (mut server_read, mut server_write) = server.into_split();
                tokio::spawn(async move {
                    let _ = tokio::io::copy(&mut client_read, &mut server_write).await;
                });
                let mut buf = vec![0u8; 16 * 1024];
                let mut last = Instant::now() - delay;
                while let Ok(n) = server_read.read(&mut buf).await {
                    if n == 0 {
                        break;
                    }
                    if last.elapsed() > Duration::from_millis(200) {
                        tokio::time::sleep(delay).await;
                    }
                    last = Instant::now();
                    if client_write.write_all(&buf[..n]).await.is_err() {
                        break;
                    }
                }
            });
        }
    });
    url
}
