//! What was done in an identity's name: every public key read, signature,
//! encryption and decryption a page asked for, and every login and logout,
//! with who asked (the page's origin and frame, the agent acting in its
//! tab), how it was decided and when. Never a secret, never the text of a
//! message: a signed event by kind, id, time and a digest of its content;
//! an encryption or decryption by peer and length.
//!
//! Kept in the profile as JSON lines, owner-only, bounded (past
//! [`FILE_MAX`] the file becomes `audit.1.jsonl`, replacing the one
//! before); an ephemeral context's uses stay in memory only. The newest
//! [`KEPT`] are in memory for the panel, after a restart too.

use super::Signer;
use crate::audit_chain::{self, Head};
use crate::base::changes::Changes;
use serde::{Deserialize, Serialize};
use serde_json::Value;
use std::collections::VecDeque;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::Mutex;
use std::time::{SystemTime, UNIX_EPOCH};

/// Entries kept in memory (the panel's list).
pub const KEPT: usize = 2_000;
/// Size of the file past which it is rotated.
pub const FILE_MAX: u64 = 4 * 1024 * 1024;
/// Characters kept of the text fields (origins, errors, clients).
const TEXT_MAX: usize = 512;

/// What was done.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Action {
    PublicKey,
    Sign,
    Encrypt,
    Decrypt,
    Login,
    Logout,
    /// A field filled with a secret from the person's vault.
    VaultFill,
}

/// How it came to be done, or not.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Decision {
    /// The person answered a prompt.
    Person,
    /// An assistant answered a prompt (the person allowed assistants to).
    Assistant,
    /// A decision the person kept ("always").
    Standing,
    /// Nobody answered in time.
    Unanswered,
    /// Not asked: refused before (no identity, a read-only one, a bad origin).
    Refused,
    /// A login or logout by whoever called the tool.
    Called,
}

/// An agent at work in the asking tab, or the one that called a tool.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Agent {
    /// Its session, while one of its calls ran in the tab (none: its own
    /// script in the page, left from an earlier call).
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub session: Option<String>,
    pub client: String,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Use {
    /// Unix time in milliseconds.
    pub time: u64,
    /// The identity's npub (none: none was logged in).
    pub identity: Option<String>,
    pub context: String,
    pub action: Action,
    /// kind, id, created_at, content_sha256 (sign); peer, length
    /// (encrypt, decrypt); method (login).
    #[serde(default)]
    pub detail: Value,
    /// The asking page's origin, and its top page's when it is a frame.
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub origin: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub frame_of: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub agent: Option<Agent>,
    pub decided: Decision,
    pub allowed: bool,
    /// Why it failed or was refused.
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub error: Option<String>,
    /// Its place in the file's hash chain (`crate::audit_chain`): its
    /// number and the hash of the line before. None: kept in memory only.
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub seq: Option<u64>,
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub prev: Option<String>,
    /// The identity's BIP-340 signature of the line without it, when its
    /// signer holds its key here (`crate::audit_chain`). Always last.
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub sig: Option<String>,
}

impl Use {
    pub fn new(action: Action, identity: Option<String>, context: &str, decided: Decision) -> Use {
        let time = SystemTime::now()
            .duration_since(UNIX_EPOCH)
            .map_or(0, |d| d.as_millis() as u64);
        Use {
            time,
            identity,
            context: context.to_string(),
            action,
            detail: Value::Null,
            origin: None,
            frame_of: None,
            agent: None,
            decided,
            allowed: true,
            error: None,
            seq: None,
            prev: None,
            sig: None,
        }
    }

    /// Cuts what came from outside to its bound.
    fn bounded(mut self) -> Use {
        let cut = |text: &mut String| *text = crate::base::bounded::one_line(text, TEXT_MAX);
        for text in [&mut self.origin, &mut self.frame_of, &mut self.error]
            .into_iter()
            .flatten()
        {
            cut(text);
        }
        if let Some(agent) = &mut self.agent {
            cut(&mut agent.client);
        }
        self
    }
}

pub struct Audit {
    /// The file (none: nothing is kept on disk).
    file: Option<PathBuf>,
    /// The newest line of the file's chain: one writer at a time links to it.
    head: Mutex<Head>,
    recent: Mutex<VecDeque<Use>>,
    changes: Changes,
}

impl Default for Audit {
    /// Kept in memory only.
    fn default() -> Self {
        Audit::open(None)
    }
}

impl Audit {
    /// Reads what the profile kept (the rotated file, then the current).
    pub fn open(file: Option<PathBuf>) -> Audit {
        let mut recent = VecDeque::with_capacity(KEPT);
        let mut head = Head::start();
        if let Some(path) = &file {
            for part in [rotated(path), path.clone()] {
                let Ok(text) = std::fs::read_to_string(&part) else {
                    continue;
                };
                if let Some(last) = audit_chain::last_head(text.lines()) {
                    head = last;
                }
                for entry in text.lines().filter_map(|l| serde_json::from_str(l).ok()) {
                    if recent.len() == KEPT {
                        recent.pop_front();
                    }
                    recent.push_back(entry);
                }
            }
        }
        Audit {
            file,
            head: Mutex::new(head),
            recent: Mutex::new(recent),
            changes: Changes::default(),
        }
    }

    /// Keeps one use; on disk too unless its context is in memory only,
    /// signed there by `signer` when it is the entry's identity and holds
    /// its key here.
    pub fn record(&self, entry: Use, on_disk: bool, signer: Option<&dyn Signer>) {
        let mut entry = entry.bounded();
        if let (Some(path), true) = (&self.file, on_disk) {
            let mut head = self.head.lock().unwrap_or_else(|e| e.into_inner());
            entry.seq = Some(head.seq + 1);
            entry.prev = Some(head.hash.clone());
            match append(path, &mut entry, signer) {
                Ok(next) => *head = next,
                Err(error) => {
                    tracing::warn!("cannot write the identity audit log: {error}");
                    (entry.seq, entry.prev, entry.sig) = (None, None, None);
                }
            }
        }
        {
            let mut recent = self.lock();
            if recent.len() == KEPT {
                recent.pop_front();
            }
            recent.push_back(entry);
        }
        self.changes.bump();
    }

    /// The newest `limit` uses (of one identity, by npub), oldest first.
    pub fn list(&self, identity: Option<&str>, limit: usize) -> Vec<Use> {
        let recent = self.lock();
        let mut chosen: Vec<Use> = recent
            .iter()
            .rev()
            .filter(|u| identity.is_none_or(|npub| u.identity.as_deref() == Some(npub)))
            .take(limit)
            .cloned()
            .collect();
        chosen.reverse();
        chosen
    }

    /// Forgets everything, on disk too.
    pub fn clear(&self) {
        self.lock().clear();
        if let Some(path) = &self.file {
            let mut head = self.head.lock().unwrap_or_else(|e| e.into_inner());
            for part in [path.clone(), rotated(path), audit_chain::head_path(path)] {
                let _ = std::fs::remove_file(part);
            }
            *head = Head::start();
        }
        self.changes.bump();
    }

    pub fn watch(&self) -> tokio::sync::watch::Receiver<u64> {
        self.changes.watch()
    }

    /// Moves with every change.
    pub fn version(&self) -> u64 {
        self.changes.version()
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, VecDeque<Use>> {
        self.recent.lock().unwrap_or_else(|e| e.into_inner())
    }
}

fn rotated(path: &Path) -> PathBuf {
    audit_chain::rotated_path(path)
}

/// Appends one line (owner-only file), rotating a full file first, and
/// keeps the chain's new head beside it: that head, once written.
fn append(path: &Path, entry: &mut Use, signer: Option<&dyn Signer>) -> std::io::Result<Head> {
    if std::fs::metadata(path).is_ok_and(|m| m.len() >= FILE_MAX) {
        std::fs::rename(path, rotated(path))?;
    }
    let mut line = serde_json::to_string(&*entry).map_err(std::io::Error::other)?;
    let own = |s: &&dyn Signer| {
        let npub = nostr::ToBech32::to_bech32(&s.public_key()).ok();
        npub.is_some() && npub == entry.identity
    };
    if let Some(signer) = signer.filter(own) {
        entry.sig = signer.sign_digest(&audit_chain::digest(&line));
        if entry.sig.is_some() {
            line = serde_json::to_string(&*entry).map_err(std::io::Error::other)?;
        }
    }
    use std::os::unix::fs::OpenOptionsExt;
    let mut file = std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .mode(0o600)
        .open(path)?;
    file.write_all(format!("{line}\n").as_bytes())?;
    let head = Head {
        seq: entry.seq.unwrap_or_default(),
        hash: audit_chain::hash(&line),
    };
    // Written in place, not synced: an entry is recorded on the way of a
    // page's call, which must not wait for the disk. A head torn by a
    // crash reads as none, and the chain is checked without it.
    let text = serde_json::to_vec(&head).map_err(std::io::Error::other)?;
    let mut kept = std::fs::OpenOptions::new()
        .create(true)
        .write(true)
        .truncate(true)
        .mode(0o600)
        .open(audit_chain::head_path(path))?;
    kept.write_all(&text)?;
    Ok(head)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn folder() -> PathBuf {
        let dir =
            std::env::temp_dir().join(format!("sovereign-audit-{}", crate::profile::random_hex(6)));
        std::fs::create_dir_all(&dir).unwrap();
        dir
    }

    #[test]
    fn uses_are_kept_across_a_restart_but_an_ephemeral_contexts_are_not() {
        let dir = folder();
        let path = dir.join("audit.jsonl");
        let audit = Audit::open(Some(path.clone()));
        let mut sign = Use::new(
            Action::Sign,
            Some("npub1a".into()),
            "default",
            Decision::Person,
        );
        sign.origin = Some("http://a.test:80".into());
        audit.record(sign, true, None);
        audit.record(
            Use::new(
                Action::Login,
                Some("npub1b".into()),
                "bot",
                Decision::Called,
            ),
            false,
            None,
        );
        assert_eq!(audit.list(None, 10).len(), 2);
        assert_eq!(audit.list(Some("npub1b"), 10).len(), 1);

        let again = Audit::open(Some(path.clone()));
        let kept = again.list(None, 10);
        assert_eq!(
            kept.len(),
            1,
            "the ephemeral context's login stayed in memory"
        );
        assert_eq!(kept[0].action, Action::Sign);
        assert_eq!(kept[0].origin.as_deref(), Some("http://a.test:80"));
        use std::os::unix::fs::PermissionsExt;
        let mode = std::fs::metadata(&path).unwrap().permissions().mode();
        assert_eq!(mode & 0o077, 0, "owner-only");
        let head = audit_chain::head_path(&path);
        let mode = std::fs::metadata(&head).unwrap().permissions().mode();
        assert_eq!(mode & 0o077, 0, "the chain's head owner-only too");
        assert_eq!(audit_chain::read_head(&path).map(|h| h.seq), Some(1));
        again.clear();
        assert!(Audit::open(Some(path)).list(None, 10).is_empty());
        let _ = std::fs::remove_dir_all(dir);
    }

    #[test]
    fn a_full_file_is_rotated_and_text_from_outside_is_bounded() {
        let dir = folder();
        let path = dir.join("audit.jsonl");
        std::fs::write(&path, vec![b' '; FILE_MAX as usize]).unwrap();
        let audit = Audit::open(Some(path.clone()));
        let mut entry = Use::new(Action::PublicKey, None, "default", Decision::Refused);
        entry.origin = Some("x".repeat(100_000));
        audit.record(entry, true, None);
        assert!(rotated(&path).exists());
        assert!(std::fs::metadata(&path).unwrap().len() < 2_000);
        assert!(audit.list(None, 1)[0].origin.as_ref().unwrap().len() < TEXT_MAX + 64);
        let _ = std::fs::remove_dir_all(dir);
    }
}
