//! Wiring: load the certificate and rules, bind both ports, start the watchers, and hand back a
//! handle with the bound addresses and a graceful `shutdown`.

use super::listener::{ConnLimits, HttpsServer};
use super::metrics::Metrics;
use super::probes::{self, Readiness};
use super::routes::{self, RequestLimits};
use super::rules_store::{FileRules, RulesStore};
use super::tls::{self, CertStore, TlsError, TlsSource};
use super::watch::{self, WatchTiming};
use std::net::SocketAddr;
use std::path::PathBuf;
use std::sync::atomic::Ordering;
use std::sync::Arc;
use std::time::Duration;
use tokio::net::TcpListener;
use tokio::task::JoinHandle;
use tokio_rustls::TlsAcceptor;
use tokio_util::sync::CancellationToken;
use tokio_util::task::TaskTracker;

/// Everything `start` needs (the CLI flags, resolved).
#[derive(Debug, Clone)]
pub struct Config {
    pub listen: SocketAddr,
    pub probe_listen: SocketAddr,
    pub tls: TlsSource,
    pub rules_files: Vec<PathBuf>,
    /// AWS access for `irsa.source: iam`.
    pub aws: crate::iam::Options,
    /// Rules from the rule ConfigMaps (labelled `zoneguard.io/rules: "true"`) of this namespace.
    pub rules_namespace: Option<String>,
    /// The MutatingWebhookConfiguration whose inject-rules condition zoneguard keeps in step.
    pub inject_condition: Option<String>,
    pub requests: RequestLimits,
    pub connections: ConnLimits,
    pub watch: WatchTiming,
}

#[derive(Debug, thiserror::Error)]
pub enum StartError {
    #[error(transparent)]
    Tls(#[from] TlsError),
    #[error("{flag} {addr}: cannot listen: {source}")]
    Bind {
        flag: &'static str,
        addr: SocketAddr,
        source: std::io::Error,
    },
    #[error("watching {what}: {source}")]
    Watch {
        what: &'static str,
        source: notify::Error,
    },
    #[error("--aws-endpoint-url/--aws-region: cannot set up the AWS clients: {0}")]
    Iam(anyhow::Error),
    #[error("cannot start the probe server's thread: {0}")]
    Probes(std::io::Error),
    #[error("no rules: pass --rules FILE or --rules-namespace NAMESPACE")]
    NoRules,
    #[error(
        "--rules-namespace/--mutating-webhook-configuration: cannot reach the Kubernetes API (in-cluster config or KUBECONFIG): {0}"
    )]
    Kube(#[from] kube::Error),
}

/// A running server.
pub struct ServerHandle {
    https_addr: SocketAddr,
    probe_addr: SocketAddr,
    rules: Arc<RulesStore>,
    metrics: Arc<Metrics>,
    readiness: Arc<Readiness>,
    shutdown: CancellationToken,
    /// The probe port outlives the drain, so `/readyz` can say "shutting down".
    probes: ProbeThread,
    connections: TaskTracker,
    tasks: Vec<JoinHandle<()>>,
}

async fn bind(flag: &'static str, addr: SocketAddr) -> Result<TcpListener, StartError> {
    TcpListener::bind(addr)
        .await
        .map_err(|source| StartError::Bind { flag, addr, source })
}

/// Start the webhook. The certificate is loaded before anything binds; the rules may load later
/// (`/readyz` says so until they do).
pub async fn start(config: Config) -> Result<ServerHandle, StartError> {
    if config.rules_files.is_empty() && config.rules_namespace.is_none() {
        return Err(StartError::NoRules);
    }
    let kube_client = if config.rules_namespace.is_some() || config.inject_condition.is_some() {
        Some(kube::Client::try_default().await?)
    } else {
        None
    };
    let resolver = crate::iam::Resolver::new(&config.aws)
        .await
        .map_err(StartError::Iam)?;
    let mut metrics = Metrics::new();
    resolver.metrics().register(metrics.registry_mut());
    let metrics = Arc::new(metrics);
    let (certs, acceptor) = serving_certificate(&config.tls, &metrics)?;

    let rules = Arc::new(RulesStore::new(metrics.clone()));
    let file_rules = Arc::new(FileRules::new(config.rules_files.clone()));
    if !config.rules_files.is_empty() {
        file_rules.reload(&rules);
    }

    let https = bind("--listen", config.listen).await?;
    let probe = bind("--probe-listen", config.probe_listen).await?;
    let (https_addr, probe_addr) = (
        local(&https, config.listen),
        local(&probe, config.probe_listen),
    );

    let shutdown = CancellationToken::new();
    let readiness = Arc::new(Readiness::new(rules.clone()));
    let mut tasks = spawn_watchers(&config, &certs, &metrics, &file_rules, &rules, &shutdown)?;
    tasks.extend(spawn_cluster_tasks(kube_client, &config, &rules, &metrics));

    let probe_router = probes::router(readiness.clone(), metrics.clone());
    let probes = spawn_probes(probe, probe_router).map_err(StartError::Probes)?;

    let connections = TaskTracker::new();
    let server = HttpsServer {
        listener: https,
        acceptor,
        service: routes::service(rules.clone(), metrics.clone(), config.requests, resolver),
        limits: config.connections,
        shutdown: shutdown.clone(),
        connections: connections.clone(),
    };
    tasks.push(tokio::spawn(server.run()));
    readiness.tls_up.store(true, Ordering::SeqCst);
    tracing::info!(listen = %https_addr, probe_listen = %probe_addr, "zoneguard webhook serving");
    Ok(ServerHandle {
        https_addr,
        probe_addr,
        rules,
        metrics,
        readiness,
        shutdown,
        probes,
        connections,
        tasks,
    })
}

/// The serving certificate, loaded (its expiry set in the metrics, an expired one logged), and
/// the TLS acceptor that serves whichever certificate the store holds.
fn serving_certificate(
    source: &TlsSource,
    metrics: &Metrics,
) -> Result<(Arc<CertStore>, TlsAcceptor), StartError> {
    let certs = Arc::new(CertStore::load(source)?);
    metrics
        .cert_not_after
        .set(tls::not_after(&certs.current()).unwrap_or(0));
    if let Some(why) = tls::expired(&certs.current(), tls::unix_now()) {
        tracing::error!(error = %why, "the serving certificate has expired: /readyz fails until a valid one is in the files (read again every reload interval)");
    }
    let acceptor = TlsAcceptor::from(Arc::new(tls::server_config(certs.clone())?));
    Ok((certs, acceptor))
}

/// The tasks that talk to the cluster: the rule ConfigMaps' watch (`--rules-namespace`) and the
/// inject-rules condition kept in step (`--mutating-webhook-configuration`).
fn spawn_cluster_tasks(
    client: Option<kube::Client>,
    config: &Config,
    rules: &Arc<RulesStore>,
    metrics: &Arc<Metrics>,
) -> Vec<JoinHandle<()>> {
    let Some(client) = client else {
        return Vec::new();
    };
    let mut tasks = Vec::new();
    if let Some(namespace) = config.rules_namespace.clone() {
        let watch = crate::configmaps::watch(client.clone(), namespace, rules.clone());
        tasks.push(tokio::spawn(watch));
    }
    if let Some(name) = config.inject_condition.clone() {
        let keep = crate::inject_condition::keep(client, name, rules.clone(), metrics.clone());
        tasks.push(tokio::spawn(keep));
    }
    tasks
}

/// Serves the probe listener (health, readiness, metrics) until the [`ProbeThread`] returned is
/// stopped or dropped, on a thread and runtime of its own: kubelet's probes must be answered
/// while every webhook worker is busy judging (a few multi-megabyte reviews can hold them for a
/// while), or a loaded pod would be taken out of the Service, then restarted.
fn spawn_probes(listener: TcpListener, router: axum::Router) -> std::io::Result<ProbeThread> {
    let listener = listener.into_std()?;
    let (done, finished) = tokio::sync::oneshot::channel();
    let stop = CancellationToken::new();
    let thread_stop = stop.clone();
    std::thread::Builder::new()
        .name("zoneguard-probes".into())
        .spawn(move || {
            let stop = thread_stop;
            let runtime = tokio::runtime::Builder::new_current_thread()
                .enable_all()
                .build();
            match runtime {
                Ok(runtime) => runtime.block_on(serve_probes(listener, router, stop)),
                Err(e) => tracing::error!(error = %e, "cannot start the probe server's runtime"),
            }
            let _ = done.send(());
        })?;
    Ok(ProbeThread { stop, finished })
}

async fn serve_probes(
    listener: std::net::TcpListener,
    router: axum::Router,
    stop: CancellationToken,
) {
    let listener = match TcpListener::from_std(listener) {
        Ok(listener) => listener,
        Err(e) => return tracing::error!(error = %e, "probe server failed"),
    };
    let serve = axum::serve(listener, router).with_graceful_shutdown(stop.cancelled_owned());
    if let Err(e) = serve.await {
        tracing::error!(error = %e, "probe server failed");
    }
}

/// The probe server's thread, which says when it has finished. Dropped, it stops the probe
/// server: a [`ServerHandle`] dropped without [`ServerHandle::shutdown`] (an in-process server
/// of the tests) leaves no thread serving its port.
struct ProbeThread {
    stop: CancellationToken,
    finished: tokio::sync::oneshot::Receiver<()>,
}

impl ProbeThread {
    /// Stops the probe server and waits up to `limit` for it to close its connections.
    async fn stop(mut self, limit: Duration) {
        self.stop.cancel();
        let _ = tokio::time::timeout(limit, &mut self.finished).await;
    }
}

impl Drop for ProbeThread {
    fn drop(&mut self) {
        self.stop.cancel();
    }
}

fn local(listener: &TcpListener, fallback: SocketAddr) -> SocketAddr {
    listener.local_addr().unwrap_or(fallback)
}

fn spawn_watchers(
    config: &Config,
    certs: &Arc<CertStore>,
    metrics: &Arc<Metrics>,
    file_rules: &Arc<FileRules>,
    rules: &Arc<RulesStore>,
    shutdown: &CancellationToken,
) -> Result<Vec<JoinHandle<()>>, StartError> {
    let mut tasks = Vec::new();
    if !file_rules.paths().is_empty() {
        tasks.push(spawn_rules_watch(config, file_rules, rules, shutdown)?);
    }
    if let Some((cert, key)) = certs.files() {
        let (c, m) = (certs.clone(), metrics.clone());
        let task = watch::spawn(
            "certificate",
            &[cert.clone(), key.clone()],
            config.watch,
            shutdown.clone(),
            move || c.reload(&m),
        )
        .map_err(|source| StartError::Watch {
            what: "--tls-cert/--tls-key",
            source,
        })?;
        tasks.push(task);
    }
    Ok(tasks)
}

/// Re-reads the `--rules` files when anything in their directories changes.
fn spawn_rules_watch(
    config: &Config,
    file_rules: &Arc<FileRules>,
    rules: &Arc<RulesStore>,
    shutdown: &CancellationToken,
) -> Result<JoinHandle<()>, StartError> {
    let (fr, store) = (file_rules.clone(), rules.clone());
    watch::spawn(
        "rules",
        file_rules.paths(),
        config.watch,
        shutdown.clone(),
        move || {
            fr.reload(&store);
        },
    )
    .map_err(|source| StartError::Watch {
        what: "--rules",
        source,
    })
}

impl ServerHandle {
    pub fn https_addr(&self) -> SocketAddr {
        self.https_addr
    }

    pub fn probe_addr(&self) -> SocketAddr {
        self.probe_addr
    }

    /// The rules store: the single entry point for rule sets from any source.
    pub fn rules(&self) -> &Arc<RulesStore> {
        &self.rules
    }

    pub fn metrics(&self) -> &Arc<Metrics> {
        &self.metrics
    }

    /// Fail `/readyz`, keep serving for `delay`, then stop accepting and let requests in flight
    /// finish; everything within `grace`. Returns true when every connection finished in time.
    pub async fn shutdown(self, delay: Duration, grace: Duration) -> bool {
        let deadline = tokio::time::Instant::now() + grace;
        self.readiness.shutting_down.store(true, Ordering::SeqCst);
        tokio::time::sleep(delay.min(grace)).await;
        self.shutdown.cancel();
        self.connections.close();
        let drained = tokio::time::timeout_at(deadline, self.connections.wait())
            .await
            .is_ok();
        if !drained {
            tracing::warn!(
                grace_secs = grace.as_secs_f64(),
                "grace period over; closing remaining connections"
            );
        }
        self.probes.stop(Duration::from_secs(1)).await;
        for task in self.tasks {
            task.abort();
        }
        drained
    }
}
