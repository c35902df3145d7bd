//! Every agent's work, kept step by step: each tool call with its
//! arguments (secrets replaced, see [`redact`]), outcome, time, the page
//! before and after, the element it acted on as the page showed it, and
//! the requests it caused. A session's steps go to a folder of their own
//! under the profile's `recordings/` (owner-only, JSON lines); the folder
//! is bounded, the oldest sessions going first. Steps in an ephemeral
//! context stay in memory only, bounded too. `--no-record` keeps nothing.

pub mod redact;
mod step;
mod store;
mod unread;

use crate::base::changes::Changes;
use std::collections::VecDeque;
use std::path::PathBuf;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::mpsc::SyncSender;
use std::sync::{Arc, Mutex};
pub use step::{Element, PageSeen, Step};
pub use store::{read_session, SessionSummary};
pub use unread::SessionUnread;

/// Steps kept in memory for ephemeral contexts, all sessions together.
pub const MEMORY_STEPS: usize = 2_000;

/// Where a step is kept.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Keep {
    /// In the profile.
    OnDisk,
    /// In memory only: its context is ephemeral.
    InMemory,
}

/// Steps waiting for the writer; past it, steps are dropped (and counted).
const QUEUE: usize = 1_024;

/// What the writer thread puts on disk.
enum Write {
    Step(Box<Step>),
    /// A picture of the page after step `n` of `session`.
    Shot {
        session: String,
        n: u64,
        jpeg: Vec<u8>,
    },
}

pub struct Recorder {
    /// The profile's recordings (none: nothing on disk).
    disk: Option<Arc<Mutex<store::Store>>>,
    /// Steps go to disk on a thread of their own: a reply never waits for
    /// the disk.
    writer: Option<SyncSender<Write>>,
    memory: Mutex<VecDeque<Step>>,
    enabled: bool,
    dropped: AtomicU64,
    changes: Arc<Changes>,
}

impl Recorder {
    /// Records into `dir`, bounded to `max_bytes`; `enabled` false keeps nothing.
    pub fn new(dir: Option<PathBuf>, max_bytes: u64, enabled: bool) -> Recorder {
        let disk = match (dir, enabled) {
            (Some(dir), true) => match store::Store::open(dir, max_bytes) {
                Ok(store) => Some(Arc::new(Mutex::new(store))),
                Err(error) => {
                    tracing::warn!("recordings are kept in memory only: {error}");
                    None
                }
            },
            _ => None,
        };
        let changes = Arc::new(Changes::default());
        let writer = disk
            .as_ref()
            .map(|store| write_on_a_thread(store.clone(), changes.clone()));
        Recorder {
            disk,
            writer,
            memory: Mutex::new(VecDeque::new()),
            enabled,
            dropped: AtomicU64::new(0),
            changes,
        }
    }

    /// Whether calls are recorded at all.
    pub fn enabled(&self) -> bool {
        self.enabled
    }

    /// Keeps one step.
    pub fn record(&self, step: Step, keep: Keep) {
        if !self.enabled {
            return;
        }
        match (keep, &self.writer) {
            (Keep::OnDisk, Some(writer)) => {
                // The writer bumps the changes once the step is on disk.
                if writer.try_send(Write::Step(Box::new(step))).is_err() {
                    self.dropped.fetch_add(1, Ordering::Relaxed);
                }
            }
            _ => {
                let mut memory = lock(&self.memory);
                if memory.len() == MEMORY_STEPS {
                    memory.pop_front();
                }
                memory.push_back(step);
                drop(memory);
                self.changes.bump();
            }
        }
    }

    /// Keeps the picture of the page after step `n` (kept on disk only).
    pub fn attach_shot(&self, session: &str, n: u64, jpeg: Vec<u8>) {
        if let Some(writer) = &self.writer {
            let write = Write::Shot {
                session: session.to_string(),
                n,
                jpeg,
            };
            if writer.try_send(write).is_err() {
                self.dropped.fetch_add(1, Ordering::Relaxed);
            }
        }
    }

    /// Whether a step's picture would be kept (its steps go to disk).
    pub fn keeps_shots(&self) -> bool {
        self.writer.is_some()
    }

    /// The picture of the page after step `n` of `session`, if one was kept.
    pub fn shot(&self, session: &str, n: u64) -> Option<Vec<u8>> {
        self.disk.as_ref().and_then(|d| lock(d).shot(session, n))
    }

    /// Steps not kept because the writer fell behind.
    pub fn dropped(&self) -> u64 {
        self.dropped.load(Ordering::Relaxed)
    }

    /// Every recorded session, newest first: on disk, then in memory.
    pub fn sessions(&self) -> Vec<SessionSummary> {
        let mut all = self
            .disk
            .as_ref()
            .map_or_else(Vec::new, |d| lock(d).sessions());
        let memory = lock(&self.memory);
        let mut in_memory: Vec<SessionSummary> = Vec::new();
        for step in memory.iter() {
            match in_memory.iter_mut().find(|s| s.session == step.session) {
                Some(summary) => summary.add(step),
                None => in_memory.push(SessionSummary::first(step, false)),
            }
        }
        all.extend(in_memory);
        all.sort_by_key(|s| std::cmp::Reverse(s.started));
        all
    }

    /// A session's steps numbered after `after`, at most `limit`.
    pub fn steps(&self, session: &str, after: u64, limit: usize) -> Vec<Step> {
        let mut steps = self
            .disk
            .as_ref()
            .map_or_else(Vec::new, |d| lock(d).steps(session, after, limit));
        let memory = lock(&self.memory);
        steps.extend(
            memory
                .iter()
                .filter(|s| s.session == session && s.n > after)
                .cloned(),
        );
        steps.sort_by_key(|s| s.n);
        steps.truncate(limit);
        steps
    }

    /// How many bytes the recordings take on disk, and the bound.
    pub fn disk_use(&self) -> Option<(u64, u64)> {
        self.disk.as_ref().map(|d| lock(d).usage())
    }

    /// Forgets every recording, on disk too.
    pub fn clear(&self) {
        if let Some(disk) = &self.disk {
            if let Err(error) = lock(disk).clear() {
                tracing::warn!("cannot remove the recordings: {error}");
            }
        }
        lock(&self.memory).clear();
        self.changes.bump();
    }

    pub fn watch(&self) -> tokio::sync::watch::Receiver<u64> {
        self.changes.watch()
    }

    pub fn version(&self) -> u64 {
        self.changes.version()
    }
}

/// Writes taken at once by the writer before it saves the summaries and
/// lets readers in.
const BATCH: usize = 64;

/// The thread that appends steps to the store, in the order they came.
fn write_on_a_thread(store: Arc<Mutex<store::Store>>, changes: Arc<Changes>) -> SyncSender<Write> {
    let (send, receive) = std::sync::mpsc::sync_channel::<Write>(QUEUE);
    let spawned = std::thread::Builder::new()
        .name("recording".into())
        .spawn(move || {
            while let Ok(first) = receive.recv() {
                // What came meanwhile is written with it, then the
                // summaries once (a step alone waits for nothing).
                let mut store = lock(&store);
                let batch = std::iter::once(first).chain(receive.try_iter().take(BATCH - 1));
                for write in batch {
                    let written = match write {
                        Write::Step(step) => store.append(&step),
                        Write::Shot { session, n, jpeg } => store.add_shot(&session, n, &jpeg),
                    };
                    if let Err(error) = written {
                        tracing::warn!("cannot write a recording: {error}");
                    }
                }
                if let Err(error) = store.save_summaries() {
                    tracing::warn!("cannot write a recording's summary: {error}");
                }
                drop(store);
                changes.bump();
            }
        });
    if let Err(error) = spawned {
        tracing::warn!("no recording thread: {error}");
    }
    send
}

fn lock<T>(mutex: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    mutex.lock().unwrap_or_else(|e| e.into_inner())
}
