//! The HTTPS listener: TLS accept loop, HTTP/1.1 + HTTP/2 per connection, header-read, handshake
//! and idle timeouts, and graceful close on shutdown.

use axum::extract::Request;
use axum::response::Response;
use hyper::body::Incoming;
use hyper_util::rt::{TokioExecutor, TokioIo, TokioTimer};
use hyper_util::server::conn::auto;
use hyper_util::service::TowerToHyperService;
use std::convert::Infallible;
use std::io;
use std::pin::Pin;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;
use std::task::{Context, Poll};
use std::time::Duration;
use tokio::io::{AsyncRead, AsyncWrite, ReadBuf};
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
        let io = TokioIo::new(Tracked {
            inner: tls,
            activity: activity.clone(),
        });
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
        let conn = builder.serve_connection(io, TowerToHyperService::new(self.service));
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

/// Time of the last byte read or written on a connection.
#[derive(Clone)]
struct Activity {
    epoch: Instant,
    last_ms: Arc<AtomicU64>,
}

impl Default for Activity {
    fn default() -> Self {
        Activity {
            epoch: Instant::now(),
            last_ms: Arc::new(AtomicU64::new(0)),
        }
    }
}

impl Activity {
    fn touch(&self) {
        let ms = u64::try_from(self.epoch.elapsed().as_millis()).unwrap_or(u64::MAX);
        self.last_ms.store(ms, Ordering::Relaxed);
    }

    /// Resolves once nothing was read or written for `idle`.
    async fn idle_for(&self, idle: Duration) {
        loop {
            let last = self.epoch + Duration::from_millis(self.last_ms.load(Ordering::Relaxed));
            let deadline = last + idle;
            if Instant::now() >= deadline {
                return;
            }
            tokio::time::sleep_until(deadline).await;
        }
    }
}

/// An IO stream that records activity.
struct Tracked<S> {
    inner: S,
    activity: Activity,
}

impl<S: AsyncRead + Unpin> AsyncRead for Tracked<S> {
    fn poll_read(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<io::Result<()>> {
        let before = buf.filled().len();
        let poll = Pin::new(&mut self.inner).poll_read(cx, buf);
        if buf.filled().len() > before {
            self.activity.touch();
        }
        poll
    }
}

impl<S: AsyncWrite + Unpin> AsyncWrite for Tracked<S> {
    fn poll_write(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        data: &[u8],
    ) -> Poll<io::Result<usize>> {
        let poll = Pin::new(&mut self.inner).poll_write(cx, data);
        if matches!(poll, Poll::Ready(Ok(n)) if n > 0) {
            self.activity.touch();
        }
        poll
    }

    fn poll_flush(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.inner).poll_flush(cx)
    }

    fn poll_shutdown(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.inner).poll_shutdown(cx)
    }

    fn poll_write_vectored(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        bufs: &[io::IoSlice<'_>],
    ) -> Poll<io::Result<usize>> {
        let poll = Pin::new(&mut self.inner).poll_write_vectored(cx, bufs);
        if matches!(poll, Poll::Ready(Ok(n)) if n > 0) {
            self.activity.touch();
        }
        poll
    }

    fn is_write_vectored(&self) -> bool {
        self.inner.is_write_vectored()
    }
}
