//! Watch directories (not files) and call back when something in them changes.
//!
//! Watching the directory catches both cert-manager-style in-place writes and the Kubernetes
//! volume `..data` symlink swap, which replaces the file without touching its old inode. A
//! periodic re-check backs up the notifications; callers compare contents, so spurious calls are
//! cheap.

use notify::event::{AccessKind, AccessMode};
use notify::{Event, EventKind, RecursiveMode, Watcher};
use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::time::Duration;
use tokio::sync::mpsc;
use tokio::task::JoinHandle;
use tokio_util::sync::CancellationToken;

#[derive(Debug, Clone, Copy)]
pub struct WatchTiming {
    /// Quiet time after the last event before reloading (writes come in bursts).
    pub debounce: Duration,
    /// Re-check this often even without events.
    pub poll: Duration,
}

/// The directories that hold `files` (deduplicated).
pub fn parent_dirs(files: &[PathBuf]) -> Vec<PathBuf> {
    let dirs: BTreeSet<PathBuf> = files
        .iter()
        .map(|f| match f.parent() {
            Some(p) if !p.as_os_str().is_empty() => p.to_path_buf(),
            _ => PathBuf::from("."),
        })
        .collect();
    dirs.into_iter().collect()
}

fn relevant(event: &Event) -> bool {
    match event.kind {
        EventKind::Access(AccessKind::Close(AccessMode::Write)) => true,
        EventKind::Access(_) => false,
        _ => true,
    }
}

/// Spawn a task that calls `on_change` after changes in `dirs` (debounced) and every `poll`.
pub fn spawn<F>(
    what: &'static str,
    dirs: &[PathBuf],
    timing: WatchTiming,
    shutdown: CancellationToken,
    on_change: F,
) -> Result<JoinHandle<()>, notify::Error>
where
    F: Fn() + Send + Sync + 'static,
{
    let (tx, rx) = mpsc::unbounded_channel::<()>();
    let mut watcher = notify::recommended_watcher(move |res: notify::Result<Event>| match res {
        Ok(event) if relevant(&event) => {
            let _ = tx.send(());
        }
        Ok(_) => {}
        Err(e) => tracing::warn!(error = %e, "file watch error"),
    })?;
    for dir in dirs {
        watcher.watch(Path::new(dir), RecursiveMode::NonRecursive)?;
    }
    Ok(tokio::spawn(run(
        what, watcher, rx, timing, shutdown, on_change,
    )))
}

async fn run<F: Fn()>(
    what: &'static str,
    watcher: notify::RecommendedWatcher,
    mut rx: mpsc::UnboundedReceiver<()>,
    timing: WatchTiming,
    shutdown: CancellationToken,
    on_change: F,
) {
    let _watcher = watcher; // dropping it stops the notifications
    let mut poll = tokio::time::interval(timing.poll);
    poll.tick().await;
    loop {
        tokio::select! {
            () = shutdown.cancelled() => break,
            _ = poll.tick() => on_change(),
            got = rx.recv() => {
                if got.is_none() {
                    break;
                }
                debounce(&mut rx, timing.debounce).await;
                tracing::debug!(what, "change detected");
                on_change();
            }
        }
    }
}

/// Wait until no event has arrived for `quiet`.
async fn debounce(rx: &mut mpsc::UnboundedReceiver<()>, quiet: Duration) {
    while let Ok(Some(())) = tokio::time::timeout(quiet, rx.recv()).await {}
}
