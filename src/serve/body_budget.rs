//! The budget of request-body bytes the webhook holds at once (`--max-in-flight-body-bytes`).
//!
//! Judging a review takes memory in proportion to its body: about three times its bytes for an
//! object of a few large values, up to forty times for one made of nothing but names the rules
//! refuse (each gets a message). The in-flight limit counts requests, not bytes, so without this
//! budget a burst of multi-megabyte UPDATEs could take the pod past its memory limit, and its
//! restart would fail every apply in the cluster for a while. A request takes its body's bytes
//! from the budget before it reads them (the declared `Content-Length`, or each frame as it
//! comes when none is declared) and gives them back once answered; one that does not fit waits
//! for those in flight to finish, within the request timeout. A body larger than the whole
//! budget takes the whole budget, and so is judged alone. Reviews of ordinary objects (a few
//! KiB) never wait: 128 of them hold well under a megabyte.

use super::error::ApiError;
use axum::body::Bytes;
use axum::BoxError;
use http_body_util::{BodyExt as _, LengthLimitError, Limited};
use hyper::body::Body as HttpBody;
use prometheus_client::metrics::gauge::Gauge;
use std::sync::Arc;
use tokio::sync::{OwnedSemaphorePermit, Semaphore};

/// The default budget: one review of the largest objects etcd stores (1.5 MiB, an UPDATE
/// carrying two) judged at a time beside the ordinary ones, within a 256 MiB memory limit.
pub const DEFAULT_BYTES: usize = 4 * 1024 * 1024;

/// Request-body bytes that may be held at once.
pub struct BodyBudget {
    permits: Arc<Semaphore>,
    /// The whole budget, in bytes (each permit is one).
    total: usize,
    /// The bytes held now (`zoneguard_admission_in_flight_body_bytes`).
    held: Gauge,
}

/// The bytes one request holds, given back when it is dropped.
pub struct Charge {
    permit: Option<OwnedSemaphorePermit>,
    bytes: usize,
    held: Gauge,
}

impl Drop for Charge {
    fn drop(&mut self) {
        self.held.dec_by(self.bytes as i64);
    }
}

impl BodyBudget {
    /// A budget of `total` bytes (at least one), counted in `held`.
    pub fn new(total: usize, held: Gauge) -> Self {
        let total = total.clamp(1, Semaphore::MAX_PERMITS.min(u32::MAX as usize));
        BodyBudget {
            permits: Arc::new(Semaphore::new(total)),
            total,
            held,
        }
    }

    /// The whole body, at most `limit` bytes (more is [`ApiError::BodyTooLarge`]), its bytes
    /// held in the budget until the returned [`Charge`] is dropped.
    pub async fn read<B>(&self, body: B, limit: usize) -> Result<(Bytes, Charge), ApiError>
    where
        B: HttpBody<Data = Bytes>,
        B::Error: Into<BoxError>,
    {
        let mut charge = Charge {
            permit: None,
            bytes: 0,
            held: self.held.clone(),
        };
        let declared = body
            .size_hint()
            .exact()
            .map(|n| n.min(limit as u64) as usize);
        if let Some(n) = declared {
            self.take(&mut charge, n).await;
        }
        let mut body = std::pin::pin!(Limited::new(body, limit));
        let mut received = Received::default();
        while let Some(frame) = body.frame().await {
            let frame = frame.map_err(|e| match e.downcast::<LengthLimitError>() {
                Ok(_) => ApiError::BodyTooLarge,
                Err(e) => ApiError::Body(e.to_string()),
            })?;
            let Ok(data) = frame.into_data() else {
                continue; // trailers
            };
            let beyond = (received.len() + data.len()).saturating_sub(charge.bytes);
            self.take(&mut charge, beyond).await;
            received.push(data, declared);
        }
        Ok((received.into_bytes(), charge))
    }

    /// Adds `bytes` to `charge`, waiting until the budget has them; a charge never grows past
    /// the whole budget.
    async fn take(&self, charge: &mut Charge, bytes: usize) {
        let bytes = bytes.min(self.total - charge.bytes);
        if bytes == 0 {
            return;
        }
        // The semaphore is never closed, so acquiring only waits.
        let Ok(more) = self.permits.clone().acquire_many_owned(bytes as u32).await else {
            return;
        };
        match &mut charge.permit {
            Some(permit) => permit.merge(more),
            None => charge.permit = Some(more),
        }
        charge.bytes += bytes;
        self.held.inc_by(bytes as i64);
    }
}

/// The frames of a body received so far: the first kept as it came (a small body is one frame,
/// answered without a copy), later ones copied after it.
#[derive(Default)]
enum Received {
    #[default]
    Nothing,
    One(Bytes),
    Several(Vec<u8>),
}

impl Received {
    fn len(&self) -> usize {
        match self {
            Received::Nothing => 0,
            Received::One(bytes) => bytes.len(),
            Received::Several(bytes) => bytes.len(),
        }
    }

    /// Adds a frame; `declared` is the body's whole length, when known.
    fn push(&mut self, data: Bytes, declared: Option<usize>) {
        match std::mem::take(self) {
            Received::Nothing => *self = Received::One(data),
            Received::One(first) => {
                let room = declared.unwrap_or(0).max(first.len() + data.len());
                let mut all = Vec::with_capacity(room);
                all.extend_from_slice(&first);
                all.extend_from_slice(&data);
                *self = Received::Several(all);
            }
            Received::Several(mut all) => {
                all.extend_from_slice(&data);
                *self = Received::Several(all);
            }
        }
    }

    fn into_bytes(self) -> Bytes {
        match self {
            Received::Nothing => Bytes::new(),
            Received::One(bytes) => bytes,
            Received::Several(all) => Bytes::from(all),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use http_body_util::{Full, StreamBody};
    use hyper::body::Frame;
    use std::time::Duration;

    fn budget(total: usize) -> BodyBudget {
        BodyBudget::new(total, Gauge::default())
    }

    fn chunked(parts: &[&'static [u8]]) -> impl HttpBody<Data = Bytes, Error = BoxError> {
        let frames = parts
            .iter()
            .map(|p| Ok::<_, BoxError>(Frame::data(Bytes::from_static(p))));
        StreamBody::new(futures_util::stream::iter(frames.collect::<Vec<_>>()))
    }

    #[tokio::test]
    async fn a_declared_body_is_charged_its_length_until_answered() {
        let b = budget(100);
        let (bytes, charge) = b
            .read(Full::new(Bytes::from_static(b"0123456789")), 50)
            .await
            .unwrap();
        assert_eq!(&bytes[..], b"0123456789");
        assert_eq!((charge.bytes, b.held.get()), (10, 10));
        assert_eq!(b.permits.available_permits(), 90);
        drop(charge);
        assert_eq!((b.held.get(), b.permits.available_permits()), (0, 100));
    }

    #[tokio::test]
    async fn a_body_without_a_length_is_charged_frame_by_frame() {
        let b = budget(100);
        let (bytes, charge) = b
            .read(chunked(&[b"abc", b"defg", b"hi"]), 50)
            .await
            .unwrap();
        assert_eq!(&bytes[..], b"abcdefghi");
        assert_eq!(charge.bytes, 9);
    }

    #[tokio::test]
    async fn a_body_larger_than_the_budget_takes_the_whole_budget() {
        let b = budget(4);
        let (bytes, charge) = b.read(chunked(&[b"abc", b"defg"]), 50).await.unwrap();
        assert_eq!(bytes.len(), 7);
        assert_eq!((charge.bytes, b.permits.available_permits()), (4, 0));
    }

    #[tokio::test]
    async fn a_body_over_the_limit_is_too_large_and_gives_its_bytes_back() {
        let b = budget(100);
        let too_large = b.read(chunked(&[b"abc", b"defg"]), 5).await;
        assert!(matches!(too_large, Err(ApiError::BodyTooLarge)));
        assert_eq!((b.held.get(), b.permits.available_permits()), (0, 100));
    }

    #[tokio::test]
    async fn a_body_that_does_not_fit_waits_for_the_bytes_in_flight() {
        let b = Arc::new(budget(10));
        let (_, first) = b
            .read(Full::new(Bytes::from_static(b"12345678")), 50)
            .await
            .unwrap();
        let b2 = b.clone();
        let second =
            tokio::spawn(async move { b2.read(Full::new(Bytes::from_static(b"12345")), 50).await });
        tokio::time::sleep(Duration::from_millis(50)).await;
        assert!(
            !second.is_finished(),
            "read while the first held 8 of 10 bytes"
        );
        drop(first);
        let (bytes, charge) = second.await.unwrap().unwrap();
        assert_eq!((bytes.len(), charge.bytes), (5, 5));
    }
}
