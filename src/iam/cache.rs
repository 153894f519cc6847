//! A TTL cache with single-flight: concurrent lookups of the same key share one call, and
//! each answer lives for a TTL chosen from the answer itself (shorter for negative ones).

use std::collections::HashMap;
use std::future::Future;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};
use tokio::sync::OnceCell;

/// Entries kept before expired ones are swept.
const SWEEP_ABOVE: usize = 4096;

struct Slot<V> {
    cell: OnceCell<(V, Instant)>,
}

impl<V> Slot<V> {
    fn new() -> Arc<Self> {
        Arc::new(Self {
            cell: OnceCell::new(),
        })
    }

    /// Still usable: being fetched, or fetched and not expired.
    fn usable(&self, now: Instant) -> bool {
        self.cell.get().is_none_or(|(_, expires)| *expires > now)
    }
}

pub struct TtlCache<V> {
    slots: Mutex<HashMap<String, Arc<Slot<V>>>>,
}

impl<V> Default for TtlCache<V> {
    fn default() -> Self {
        Self {
            slots: Mutex::new(HashMap::new()),
        }
    }
}

impl<V: Clone> TtlCache<V> {
    pub fn new() -> Self {
        Self::default()
    }

    /// The cached answer for `key`, or the answer of `fetch` (run once for all concurrent
    /// callers), kept for `ttl_of(answer)`. Returns the answer and whether it was a hit.
    /// Cancel-safe: if the caller that runs `fetch` is dropped, another waiter fetches.
    pub async fn get_or_fetch<F, Fut>(
        &self,
        key: &str,
        fetch: F,
        ttl_of: impl Fn(&V) -> Duration,
    ) -> (V, bool)
    where
        F: FnOnce() -> Fut,
        Fut: Future<Output = V>,
    {
        let slot = self.slot(key);
        let fetched = AtomicBool::new(false);
        let (value, _) = slot
            .cell
            .get_or_init(|| async {
                fetched.store(true, Ordering::Relaxed);
                let value = fetch().await;
                let expires = Instant::now() + ttl_of(&value);
                (value, expires)
            })
            .await;
        (value.clone(), !fetched.load(Ordering::Relaxed))
    }

    fn slot(&self, key: &str) -> Arc<Slot<V>> {
        let now = Instant::now();
        let mut slots = match self.slots.lock() {
            Ok(guard) => guard,
            Err(poisoned) => poisoned.into_inner(),
        };
        if let Some(slot) = slots.get(key).filter(|s| s.usable(now)) {
            return slot.clone();
        }
        if slots.len() >= SWEEP_ABOVE {
            slots.retain(|_, s| s.usable(now));
        }
        let slot = Slot::new();
        slots.insert(key.to_owned(), slot.clone());
        slot
    }

    /// Drops every entry.
    pub fn clear(&self) {
        if let Ok(mut slots) = self.slots.lock() {
            slots.clear();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::atomic::AtomicUsize;

    #[tokio::test]
    async fn concurrent_lookups_share_one_fetch_and_answers_expire() {
        let cache: Arc<TtlCache<u32>> = Arc::new(TtlCache::new());
        let calls = Arc::new(AtomicUsize::new(0));
        let lookup = |cache: Arc<TtlCache<u32>>, calls: Arc<AtomicUsize>, ttl: u64| async move {
            cache
                .get_or_fetch(
                    "k",
                    || async {
                        calls.fetch_add(1, Ordering::SeqCst);
                        tokio::time::sleep(Duration::from_millis(50)).await;
                        7
                    },
                    |_| Duration::from_millis(ttl),
                )
                .await
        };
        let all = futures_util::future::join_all(
            (0..8).map(|_| lookup(cache.clone(), calls.clone(), 100)),
        )
        .await;
        assert_eq!(calls.load(Ordering::SeqCst), 1);
        assert!(all.iter().all(|(v, _)| *v == 7));
        assert_eq!(all.iter().filter(|(_, hit)| !hit).count(), 1);
        assert!(lookup(cache.clone(), calls.clone(), 100).await.1);
        tokio::time::sleep(Duration::from_millis(120)).await;
        assert!(!lookup(cache.clone(), calls.clone(), 100).await.1);
        assert_eq!(calls.load(Ordering::SeqCst), 2);
    }

    #[tokio::test]
    async fn a_cancelled_fetch_is_taken_over() {
        let cache: TtlCache<u32> = TtlCache::new();
        let slow = cache.get_or_fetch(
            "k",
            || async {
                tokio::time::sleep(Duration::from_secs(60)).await;
                1
            },
            |_| Duration::from_secs(60),
        );
        assert!(tokio::time::timeout(Duration::from_millis(20), slow)
            .await
            .is_err());
        let (v, hit) = cache
            .get_or_fetch("k", || async { 2 }, |_| Duration::from_secs(60))
            .await;
        assert_eq!((v, hit), (2, false));
    }
}
