//! The HTTPS listener: TLS accept loop, HTTP/1.1 + HTTP/2 per connection, header-read, handshake
//! and idle timeouts, and graceful close on shutdown. A connection is idle while no request is
//! in flight on it, whatever bytes pass (HTTP/2 pings, which the API server's client sends and
//! this server sends too, would otherwise keep every HTTP/2 connection open for ever).

use axum::extract::Request;
use axum::response::Response;
use hyper::body::Incoming;
use hyper_util::rt::{TokioExecutor, TokioIo, TokioTimer};
use hyper_util::server::conn::auto;
use hyper_util::service::TowerToHyperService;
use std::convert::Infallible;
use std::future::Future;
use std::pin::Pin;
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::sync::Arc;
use std::task::{Context, Poll};
use std::time::Duration;
use tokio::net::{TcpListener, TcpStream};
use tokio::time::Instant;
use tokio_rustls::TlsAcceptor;
use tokio_util::sync::CancellationToken;
use tokio_util::task::TaskTracker;

#[derive(Debug, Clone, Copy)]
pub struct ConnLimits {
    pub handshake_timeout: Duration,
    pub header_read_timeout: Duration,
    pub idle_timeout: Duration,
}

/// What answers each request of a connection: the webhook's routes behind the request guard
/// (`routes::service`), or the stack floor's fixed answer.
pub trait HttpService:
    tower::Service<
        Request<Incoming>,
        Response = Response,
        Error = Infallible,
        Future: Send + 'static,
    > + Clone
    + Send
    + 'static
{
}

impl<S> HttpService for S where
    S: tower::Service<
            Request<Incoming>,
            Response = Response,
            Error = Infallible,
            Future: Send + 'static,
        > + Clone
        + Send
        + 'static
{
}

pub struct HttpsServer<S> {
    pub listener: TcpListener,
    pub acceptor: TlsAcceptor,
    pub service: S,
    pub limits: ConnLimits,
    /// Cancelled when the server stops accepting and asks connections to close.
    pub shutdown: CancellationToken,
    /// Tracks every connection task, so shutdown can wait for them.
    pub connections: TaskTracker,
}

impl<S: HttpService> HttpsServer<S> {
    /// Accept connections until `shutdown` is cancelled; then the listener is closed.
    pub async fn run(self) {
        loop {
            let accepted = tokio::select! {
                () = self.shutdown.cancelled() => break,
                accepted = self.listener.accept() => accepted,
            };
            match accepted {
                Ok((tcp, _peer)) => {
                    let _ = tcp.set_nodelay(true);
                    let conn = Connection {
                        acceptor: self.acceptor.clone(),
                        service: self.service.clone(),
                        limits: self.limits,
                        shutdown: self.shutdown.clone(),
                    };
                    self.connections.spawn(conn.serve(tcp));
                }
                Err(e) => {
                    // Out of file descriptors and the like: back off instead of spinning.
                    tracing::warn!(error = %e, "accept failed");
                    tokio::time::sleep(Duration::from_millis(50)).await;
                }
            }
        }
        tracing::info!("HTTPS listener closed");
    }
}

struct Connection<S> {
    acceptor: TlsAcceptor,
    service: S,
    limits: ConnLimits,
    shutdown: CancellationToken,
}

impl<S: HttpService> Connection<S> {
    async fn serve(self, tcp: TcpStream) {
        let tls =
            match tokio::time::timeout(self.limits.handshake_timeout, self.acceptor.accept(tcp))
                .await
            {
                Ok(Ok(tls)) => tls,
                Ok(Err(e)) => return tracing::debug!(error = %e, "TLS handshake failed"),
                Err(_) => return tracing::debug!("TLS handshake timed out"),
            };
        let activity = Activity::default();
        let io = TokioIo::new(tls);
        let mut builder = auto::Builder::new(TokioExecutor::new());
        builder
            .http1()
            .timer(TokioTimer::new())
            .header_read_timeout(self.limits.header_read_timeout);
        builder
            .http2()
            .timer(TokioTimer::new())
            .keep_alive_interval(Some(Duration::from_secs(20)))
            .keep_alive_timeout(Duration::from_secs(20))
            .max_concurrent_streams(250);
        let service = Tracked {
            inner: self.service,
            activity: activity.clone(),
        };
        let conn = builder.serve_connection(io, TowerToHyperService::new(service));
        tokio::pin!(conn);
        let mut closing = false;
        loop {
            tokio::select! {
                result = conn.as_mut() => {
                    if let Err(e) = result {
                        tracing::debug!(error = %e, "connection ended with an error");
                    }
                    break;
                }
                () = self.shutdown.cancelled(), if !closing => {
                    conn.as_mut().graceful_shutdown();
                    closing = true;
                }
                () = activity.idle_for(self.limits.idle_timeout), if !closing => {
                    conn.as_mut().graceful_shutdown();
                    closing = true;
                }
            }
        }
    }
}

/// When a connection's last request ended, and how many are in flight on it.
#[derive(Clone)]
struct Activity(Arc<Requests>);

struct Requests {
    epoch: Instant,
    /// Milliseconds from `epoch` to the end of the last request.
    last_ms: AtomicU64,
    in_flight: AtomicUsize,
}

impl Default for Activity {
    fn default() -> Self {
        Activity(Arc::new(Requests {
            epoch: Instant::now(),
            last_ms: AtomicU64::new(0),
            in_flight: AtomicUsize::new(0),
        }))
    }
}

impl Activity {
    /// A request began; it ends when the returned guard is dropped.
    fn begin(&self) -> InFlight {
        self.0.in_flight.fetch_add(1, Ordering::Relaxed);
        InFlight(self.clone())
    }

    /// Resolves once no request was in flight for `idle` (from the connection's start, or the
    /// end of its last request).
    async fn idle_for(&self, idle: Duration) {
        let r = &self.0;
        loop {
            // Acquire: a request's end (its `last_ms`) is seen with its leaving `in_flight`.
            let busy = r.in_flight.load(Ordering::Acquire) > 0;
            let last = r.epoch + Duration::from_millis(r.last_ms.load(Ordering::Relaxed));
            let deadline = last + idle;
            if !busy && Instant::now() >= deadline {
                return;
            }
            tokio::time::sleep_until(deadline.max(Instant::now() + idle / 4)).await;
        }
    }
}

/// A request in flight on a connection.
struct InFlight(Activity);

impl Drop for InFlight {
    fn drop(&mut self) {
        let r = &(self.0).0;
        let ms = u64::try_from(r.epoch.elapsed().as_millis()).unwrap_or(u64::MAX);
        r.last_ms.store(ms, Ordering::Relaxed);
        r.in_flight.fetch_sub(1, Ordering::Release);
    }
}

/// The connection's service, recording each request's start and end.
#[derive(Clone)]
struct Tracked<S> {
    inner: S,
    activity: Activity,
}

impl<S: HttpService> tower::Service<Request<Incoming>> for Tracked<S> {
    type Response = Response;
    type Error = Infallible;
    type Future = Answering<S::Future>;

    fn poll_ready(&mut self, cx: &mut Context<'_>) -> Poll<Result<(), Infallible>> {
        self.inner.poll_ready(cx)
    }

    fn call(&mut self, request: Request<Incoming>) -> Self::Future {
        let in_flight = self.activity.begin();
        Answering {
            inner: self.inner.call(request),
            in_flight,
        }
    }
}

pin_project_lite::pin_project! {
    /// A request's answer being made; the request is in flight until it is dropped.
    struct Answering<F> {
        #[pin]
        inner: F,
        in_flight: InFlight,
    }
}

impl<F: Future> Future for Answering<F> {
    type Output = F::Output;

    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<F::Output> {
        self.project().inner.poll(cx)
    }
}
