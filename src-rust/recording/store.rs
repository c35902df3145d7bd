//! The recordings on disk: a folder per session under the profile's
//! `recordings/`, holding its steps (`steps.jsonl`) and a summary
//! (`summary.json`), owner-only. The folder is bounded: past the bound the
//! oldest sessions go first, and a session that alone fills it stops
//! being written (its summary says so). The writer appends each step as
//! it comes and saves the summaries once its queue is empty: at a
//! thousand steps a second, rewriting a summary per step cost more than
//! the steps.

use super::step::Step;
use super::unread::SessionUnread;
use serde::{Deserialize, Serialize};
use std::collections::{HashMap, HashSet};
use std::fs::File;
use std::io::Write;
use std::os::unix::fs::{DirBuilderExt, OpenOptionsExt};
use std::path::{Path, PathBuf};

const STEPS: &str = "steps.jsonl";
const SUMMARY: &str = "summary.json";

/// A recorded session, as lists show it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SessionSummary {
    pub session: String,
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub client: Option<String>,
    pub transport: String,
    /// Unix milliseconds of its first and last step.
    pub started: u64,
    pub last: u64,
    pub steps: u64,
    pub failed: u64,
    /// Kept in the profile (false: in memory, an ephemeral context's).
    pub on_disk: bool,
    /// Bytes on disk.
    #[serde(default)]
    pub bytes: u64,
    /// It filled the recordings' bound alone: later steps were not kept.
    #[serde(skip_serializing_if = "std::ops::Not::not", default)]
    pub cut: bool,
}

impl SessionSummary {
    pub fn first(step: &Step, on_disk: bool) -> SessionSummary {
        let mut summary = SessionSummary {
            session: step.session.clone(),
            client: step.client.clone(),
            transport: step.transport.clone(),
            started: step.time,
            last: step.time,
            steps: 0,
            failed: 0,
            on_disk,
            bytes: 0,
            cut: false,
        };
        summary.add(step);
        summary
    }

    pub fn add(&mut self, step: &Step) {
        self.steps += 1;
        self.failed += u64::from(!step.ok);
        self.last = step.time;
        if step.client.is_some() {
            self.client = step.client.clone();
        }
    }
}

pub struct Store {
    dir: PathBuf,
    max_bytes: u64,
    used: u64,
    sessions: HashMap<String, SessionSummary>,
    /// The steps file last appended to, kept open for the next step.
    appending: Option<(String, File)>,
    /// Sessions whose summary on disk is behind.
    unsaved: HashSet<String>,
}

impl Store {
    /// Opens (makes, owner-only) the folder and reads the sessions' summaries.
    pub fn open(dir: PathBuf, max_bytes: u64) -> std::io::Result<Store> {
        std::fs::DirBuilder::new()
            .recursive(true)
            .mode(0o700)
            .create(&dir)?;
        let mut sessions = HashMap::new();
        let mut used = 0;
        for entry in std::fs::read_dir(&dir)?.flatten() {
            let folder = entry.path();
            let summary = std::fs::read(folder.join(SUMMARY))
                .ok()
                .and_then(|bytes| serde_json::from_slice::<SessionSummary>(&bytes).ok());
            match summary {
                Some(mut summary) => {
                    summary.bytes = size_of(&folder);
                    used += summary.bytes;
                    sessions.insert(summary.session.clone(), summary);
                }
                // Half written, or not ours: not kept.
                None => {
                    let _ = std::fs::remove_dir_all(&folder);
                }
            }
        }
        Ok(Store {
            dir,
            max_bytes,
            used,
            sessions,
            appending: None,
            unsaved: HashSet::new(),
        })
    }

    /// Appends a step to its session, then keeps the folder in its bound.
    /// Its summary is saved by [`Store::save_summaries`].
    pub fn append(&mut self, step: &Step) -> std::io::Result<()> {
        if self.sessions.get(&step.session).is_some_and(|s| s.cut) {
            return Ok(());
        }
        let mut line = serde_json::to_vec(step).map_err(std::io::Error::other)?;
        line.push(b'\n');
        self.steps_file(&step.session)?.write_all(&line)?;
        let summary = match self.sessions.get_mut(&step.session) {
            Some(summary) => {
                summary.add(step);
                summary
            }
            None => self
                .sessions
                .entry(step.session.clone())
                .or_insert_with(|| SessionSummary::first(step, true)),
        };
        summary.bytes += line.len() as u64;
        self.used += line.len() as u64;
        self.unsaved.insert(step.session.clone());
        self.keep_bound(&step.session)
    }

    /// The session's steps file, open for appending (its folder made).
    fn steps_file(&mut self, session: &str) -> std::io::Result<&mut File> {
        let open = match self.appending.take() {
            Some((kept, file)) if kept == session => (kept, file),
            _ => (session.to_string(), self.open_steps(session)?),
        };
        Ok(&mut self.appending.insert(open).1)
    }

    fn open_steps(&self, session: &str) -> std::io::Result<File> {
        let folder = self.dir.join(folder_name(session));
        std::fs::DirBuilder::new()
            .recursive(true)
            .mode(0o700)
            .create(&folder)?;
        std::fs::OpenOptions::new()
            .create(true)
            .append(true)
            .mode(0o600)
            .open(folder.join(STEPS))
    }

    /// Writes the summaries that are behind their steps.
    pub fn save_summaries(&mut self) -> std::io::Result<()> {
        for session in std::mem::take(&mut self.unsaved) {
            if let Some(summary) = self.sessions.get(&session) {
                write_summary(&self.dir.join(folder_name(&session)), summary)?;
            }
        }
        Ok(())
    }

    /// Forgets a session's open file and unsaved summary (it is gone).
    fn forget(&mut self, session: &str) {
        if self.appending.as_ref().is_some_and(|(s, _)| s == session) {
            self.appending = None;
        }
        self.unsaved.remove(session);
    }

    /// Removes the oldest sessions (never `current`) until the folder is
    /// in its bound; if `current` alone is over it, it is no longer written.
    fn keep_bound(&mut self, current: &str) -> std::io::Result<()> {
        while self.used > self.max_bytes {
            let oldest = self
                .sessions
                .values()
                .filter(|s| s.session != current)
                .min_by_key(|s| s.last)
                .map(|s| s.session.clone());
            let Some(oldest) = oldest else {
                if let Some(summary) = self.sessions.get_mut(current) {
                    if !summary.cut {
                        summary.cut = true;
                        tracing::warn!(session = %current, "a recording filled the recordings' bound: its later steps are not kept");
                        let folder = self.dir.join(folder_name(current));
                        write_summary(&folder, summary)?;
                    }
                }
                return Ok(());
            };
            if let Some(gone) = self.sessions.remove(&oldest) {
                self.forget(&oldest);
                self.used = self.used.saturating_sub(gone.bytes);
                std::fs::remove_dir_all(self.dir.join(folder_name(&oldest)))?;
            }
        }
        Ok(())
    }

    pub fn sessions(&self) -> Vec<SessionSummary> {
        self.sessions.values().cloned().collect()
    }

    /// Keeps the picture of the page after step `n` of a session whose
    /// steps are kept (then keeps the folder in its bound).
    pub fn add_shot(&mut self, session: &str, n: u64, jpeg: &[u8]) -> std::io::Result<()> {
        let Some(summary) = self.sessions.get_mut(session).filter(|s| !s.cut) else {
            return Ok(());
        };
        let folder = self.dir.join(folder_name(session));
        let mut file = std::fs::OpenOptions::new()
            .write(true)
            .create(true)
            .truncate(true)
            .mode(0o600)
            .open(folder.join(shot_name(n)))?;
        file.write_all(jpeg)?;
        summary.bytes += jpeg.len() as u64;
        self.used += jpeg.len() as u64;
        self.keep_bound(session)
    }

    /// The picture of the page after step `n`, if one was kept.
    pub fn shot(&self, session: &str, n: u64) -> Option<Vec<u8>> {
        if !self.sessions.contains_key(session) {
            return None;
        }
        std::fs::read(self.dir.join(folder_name(session)).join(shot_name(n))).ok()
    }

    /// A session's steps numbered after `after`, at most `limit`.
    pub fn steps(&self, session: &str, after: u64, limit: usize) -> Vec<Step> {
        if !self.sessions.contains_key(session) {
            return Vec::new();
        }
        let path = self.dir.join(folder_name(session)).join(STEPS);
        let Ok(text) = std::fs::read_to_string(path) else {
            return Vec::new();
        };
        text.lines()
            .filter_map(|line| serde_json::from_str::<Step>(line).ok())
            .filter(|step| step.n > after)
            .take(limit)
            .collect()
    }

    /// Bytes used, and the bound.
    pub fn usage(&self) -> (u64, u64) {
        (self.used, self.max_bytes)
    }

    pub fn clear(&mut self) -> std::io::Result<()> {
        for session in std::mem::take(&mut self.sessions).into_keys() {
            self.forget(&session);
            std::fs::remove_dir_all(self.dir.join(folder_name(&session)))?;
        }
        self.used = 0;
        Ok(())
    }
}

fn shot_name(n: u64) -> String {
    format!("{n}.jpg")
}

/// A session's folder: its id when it is a plain name, else a digest of it.
/// Reads a session's steps from a recordings folder without changing it
/// (another program, the browser, may be writing there): `last` names the
/// session that recorded most recently.
pub fn read_session(dir: &Path, session: &str) -> Result<(String, Vec<Step>), SessionUnread> {
    let session = match session {
        "last" => latest_session(dir).ok_or_else(|| SessionUnread::NoSession {
            dir: dir.to_path_buf(),
        })?,
        named => named.to_string(),
    };
    let path = dir.join(folder_name(&session)).join(STEPS);
    let text = match std::fs::read_to_string(&path) {
        Ok(text) => text,
        Err(e) => {
            return Err(SessionUnread::NoRecording {
                session,
                path,
                why: e.to_string(),
            })
        }
    };
    let steps = text
        .lines()
        .filter_map(|line| serde_json::from_str::<Step>(line).ok())
        .collect();
    Ok((session, steps))
}

/// The session whose summary says it recorded last.
fn latest_session(dir: &Path) -> Option<String> {
    std::fs::read_dir(dir)
        .ok()?
        .flatten()
        .filter_map(|entry| std::fs::read(entry.path().join(SUMMARY)).ok())
        .filter_map(|bytes| serde_json::from_slice::<SessionSummary>(&bytes).ok())
        .max_by_key(|summary| summary.last)
        .map(|summary| summary.session)
}

fn folder_name(session: &str) -> String {
    let plain = !session.is_empty()
        && session.len() <= 64
        && session
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'_');
    if plain {
        return session.to_string();
    }
    use nostr::hashes::{sha256, Hash as _};
    sha256::Hash::hash(session.as_bytes()).to_string()
}

/// Writes the summary beside, then over the old one (a reader sees a
/// whole one); not synced to disk at each step: a summary lost in a crash
/// takes its session's folder with it at the next start, nothing else.
fn write_summary(folder: &Path, summary: &SessionSummary) -> std::io::Result<()> {
    let bytes = serde_json::to_vec(summary).map_err(std::io::Error::other)?;
    let temporary = folder.join(".summary.json.tmp");
    let mut file = std::fs::OpenOptions::new()
        .write(true)
        .create(true)
        .truncate(true)
        .mode(0o600)
        .open(&temporary)?;
    file.write_all(&bytes)?;
    std::fs::rename(temporary, folder.join(SUMMARY))
}

fn size_of(folder: &Path) -> u64 {
    std::fs::read_dir(folder)
        .map(|entries| {
            entries
                .flatten()
                .filter_map(|e| e.metadata().ok())
                .map(|m| m.len())
                .sum()
        })
        .unwrap_or(0)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn step(session: &str, n: u64, payload: usize) -> Step {
        Step {
            n,
            time: n * 1000,
            session: session.into(),
            client: Some("tests".into()),
            transport: "mcp".into(),
            context: Some("default".into()),
            tab: Some(1),
            tool: "click".into(),
            args: json!({"ref": "e1", "pad": "x".repeat(payload)}),
            ok: n % 2 == 1,
            code: None,
            message: None,
            result: json!({"clicked": true}),
            ms: 1.5,
            before: None,
            after: None,
            element: None,
            requests: None,
            shot: false,
        }
    }

    fn folder() -> PathBuf {
        std::env::temp_dir().join(format!(
            "sovereign-recordings-{}",
            crate::profile::random_hex(6)
        ))
    }

    #[test]
    fn sessions_are_kept_read_back_and_the_oldest_go_past_the_bound() {
        let dir = folder();
        let mut store = Store::open(dir.clone(), 20_000).unwrap();
        for n in 1..=3 {
            store.append(&step("aaaa", n, 1000)).unwrap();
        }
        assert_eq!(
            store
                .steps("aaaa", 1, 10)
                .iter()
                .map(|s| s.n)
                .collect::<Vec<_>>(),
            [2, 3]
        );
        // Read again after a restart, once the summaries are saved.
        store.save_summaries().unwrap();
        let mut store = Store::open(dir.clone(), 20_000).unwrap();
        let summary = &store.sessions()[0];
        assert_eq!(
            (summary.steps, summary.failed, summary.on_disk),
            (3, 1, true)
        );
        // A second session fills the bound: the first goes.
        for n in 1..=15 {
            store.append(&step("bbbb", n, 1000)).unwrap();
        }
        let names: Vec<_> = store.sessions().into_iter().map(|s| s.session).collect();
        assert_eq!(names, ["bbbb"]);
        assert!(!dir.join("aaaa").exists());
        // Alone past the bound: no longer written.
        for n in 16..=40 {
            store.append(&step("bbbb", n, 1000)).unwrap();
        }
        let (used, max) = store.usage();
        assert!(used <= max + 2_000, "{used} > {max}");
        assert!(store.sessions()[0].cut);
        store.clear().unwrap();
        assert!(store.sessions().is_empty());
        let _ = std::fs::remove_dir_all(dir);
    }

    #[test]
    fn an_odd_session_id_names_no_path() {
        assert_eq!(folder_name("abc-123"), "abc-123");
        assert_eq!(folder_name("../../etc").len(), 64);
    }
}
