//! The person's standing decisions: per identity (the public key that
//! signs), origin (scheme, host, port) and capability, allow or deny, kept
//! in the profile. A site allowed for one identity is asked again for
//! another. Also whether assistants may answer prompts. Decisions "just
//! this time" are never stored.

use super::request::Capability;
use crate::base::changes::Changes;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::path::PathBuf;
use std::sync::Mutex;
use std::time::{SystemTime, UNIX_EPOCH};

/// One remembered decision, as stored and as the panel lists it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Decision {
    /// The identity's public key, hex ("" in a file of an earlier
    /// release, which kept no identity: such a decision answers nobody).
    #[serde(default)]
    pub pubkey: String,
    pub origin: String,
    pub capability: String,
    pub allow: bool,
    /// Unix seconds.
    pub decided_at: u64,
}

#[derive(Default, Serialize, Deserialize)]
struct Stored {
    #[serde(default)]
    decisions: Vec<Decision>,
    #[serde(default)]
    assistant_answers: bool,
}

/// Whose decision for what: the identity's public key, the origin, the capability.
type Key = (String, String, Capability);

/// Decisions in memory, written through to a file (none: not kept).
pub struct Permissions {
    path: Option<PathBuf>,
    decisions: Mutex<BTreeMap<Key, Decision>>,
    assistant_answers: Mutex<bool>,
    /// Bumped at each change (each one is saved).
    changes: Changes,
}

impl Permissions {
    /// Reads the file if there is one; a damaged file is set aside, not fatal.
    pub fn load(path: Option<PathBuf>) -> Permissions {
        let stored = path
            .as_ref()
            .and_then(|p| std::fs::read(p).ok())
            .and_then(|bytes| match serde_json::from_slice::<Stored>(&bytes) {
                Ok(stored) => Some(stored),
                Err(error) => {
                    tracing::warn!(
                        "ignoring the unreadable window.nostr permissions file: {error}"
                    );
                    None
                }
            })
            .unwrap_or_default();
        let decisions = stored
            .decisions
            .into_iter()
            .filter_map(|d| {
                let capability = Capability::parse(&d.capability)?;
                Some(((d.pubkey.clone(), d.origin.clone(), capability), d))
            })
            .collect();
        Permissions {
            path,
            decisions: Mutex::new(decisions),
            assistant_answers: Mutex::new(stored.assistant_answers),
            changes: Changes::default(),
        }
    }

    /// Wakes whenever a decision or the assistants' switch changes.
    pub fn watch(&self) -> tokio::sync::watch::Receiver<u64> {
        self.changes.watch()
    }

    /// The standing decision of identity `pubkey` (hex) for `origin` and
    /// `capability`: allow, deny, or none (ask).
    pub fn decision(&self, pubkey: &str, origin: &str, capability: Capability) -> Option<bool> {
        if pubkey.is_empty() {
            return None;
        }
        let decisions = self.decisions.lock().unwrap_or_else(|e| e.into_inner());
        decisions
            .get(&(pubkey.to_string(), origin.to_string(), capability))
            .map(|d| d.allow)
    }

    pub fn remember(&self, pubkey: &str, origin: &str, capability: Capability, allow: bool) {
        let decided_at = SystemTime::now()
            .duration_since(UNIX_EPOCH)
            .map_or(0, |d| d.as_secs());
        let decision = Decision {
            pubkey: pubkey.to_string(),
            origin: origin.to_string(),
            capability: capability.key(),
            allow,
            decided_at,
        };
        self.decisions
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .insert(
                (pubkey.to_string(), origin.to_string(), capability),
                decision,
            );
        self.save();
    }

    /// Forgets the decisions for `origin` (one capability, or all of them;
    /// one identity's, or every identity's); returns how many went.
    pub fn revoke(
        &self,
        origin: &str,
        capability: Option<Capability>,
        pubkey: Option<&str>,
    ) -> usize {
        let removed = {
            let mut decisions = self.decisions.lock().unwrap_or_else(|e| e.into_inner());
            let before = decisions.len();
            decisions.retain(|(k, o, c), _| {
                let named = o == origin
                    && capability.is_none_or(|only| only == *c)
                    && pubkey.is_none_or(|only| only == k);
                !named
            });
            before - decisions.len()
        };
        if removed > 0 {
            self.save();
        }
        removed
    }

    /// Every decision, by origin then capability.
    pub fn list(&self) -> Vec<Decision> {
        let decisions = self.decisions.lock().unwrap_or_else(|e| e.into_inner());
        decisions.values().cloned().collect()
    }

    pub fn assistant_answers(&self) -> bool {
        *self
            .assistant_answers
            .lock()
            .unwrap_or_else(|e| e.into_inner())
    }

    pub fn set_assistant_answers(&self, allowed: bool) {
        *self
            .assistant_answers
            .lock()
            .unwrap_or_else(|e| e.into_inner()) = allowed;
        self.save();
    }

    fn save(&self) {
        self.changes.bump();
        let Some(path) = &self.path else { return };
        let stored = Stored {
            decisions: self.list(),
            assistant_answers: self.assistant_answers(),
        };
        let bytes = serde_json::to_vec_pretty(&stored).unwrap_or_default();
        let temporary = path.with_extension("tmp");
        let written = crate::profile::write_private(&temporary, &bytes)
            .and_then(|()| std::fs::rename(&temporary, path));
        if let Err(error) = written {
            tracing::warn!("cannot save the window.nostr permissions: {error}");
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn file() -> PathBuf {
        let dir = std::env::temp_dir().join(format!(
            "sovereign-permissions-{}",
            crate::profile::random_hex(6)
        ));
        std::fs::create_dir_all(&dir).unwrap();
        dir.join("nostr-permissions.json")
    }

    const ADA: &str = "a1";
    const GRACE: &str = "b2";

    #[test]
    fn decisions_persist_per_identity_origin_and_capability() {
        let path = file();
        let p = Permissions::load(Some(path.clone()));
        p.remember(ADA, "http://a.test:80", Capability::Sign(1), true);
        p.remember(ADA, "http://a.test:80", Capability::Decrypt, false);
        p.set_assistant_answers(true);
        let again = Permissions::load(Some(path.clone()));
        let of = |pubkey, origin, capability| again.decision(pubkey, origin, capability);
        assert_eq!(of(ADA, "http://a.test:80", Capability::Sign(1)), Some(true));
        assert_eq!(of(ADA, "http://a.test:80", Capability::Sign(4)), None);
        assert_eq!(
            of(ADA, "http://a.test:80", Capability::Decrypt),
            Some(false)
        );
        assert_eq!(of(ADA, "http://a.test:8080", Capability::Sign(1)), None);
        // Another identity is asked again.
        assert_eq!(of(GRACE, "http://a.test:80", Capability::Sign(1)), None);
        assert!(again.assistant_answers());
        again.remember(GRACE, "http://a.test:80", Capability::Sign(1), false);
        assert_eq!(
            again.revoke("http://a.test:80", Some(Capability::Sign(1)), Some(ADA)),
            1
        );
        assert_eq!(
            again.decision(GRACE, "http://a.test:80", Capability::Sign(1)),
            Some(false),
            "one identity's revoke leaves the other's"
        );
        assert_eq!(Permissions::load(Some(path.clone())).list().len(), 2);
        assert_eq!(again.revoke("http://a.test:80", None, None), 2);
        assert!(Permissions::load(Some(path.clone())).list().is_empty());
        let _ = std::fs::remove_dir_all(path.parent().unwrap());
    }

    #[test]
    fn a_decision_an_earlier_release_kept_answers_no_identity() {
        let path = file();
        let old = r#"{"decisions":[{"origin":"http://a.test:80","capability":"sign:1","allow":true,"decided_at":1}]}"#;
        std::fs::write(&path, old).unwrap();
        let p = Permissions::load(Some(path.clone()));
        assert_eq!(p.list().len(), 1, "listed, so the person can revoke it");
        assert_eq!(
            p.decision(ADA, "http://a.test:80", Capability::Sign(1)),
            None
        );
        assert_eq!(
            p.decision("", "http://a.test:80", Capability::Sign(1)),
            None
        );
        let _ = std::fs::remove_dir_all(path.parent().unwrap());
    }

    #[test]
    fn a_damaged_file_starts_empty() {
        let path = file();
        std::fs::write(&path, b"{not json").unwrap();
        assert!(Permissions::load(Some(path.clone())).list().is_empty());
        let _ = std::fs::remove_dir_all(path.parent().unwrap());
    }
}
