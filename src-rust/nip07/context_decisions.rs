//! The standing window.nostr decisions of the contexts agents open, one
//! set per context: a kept context's in its own folder (they come back
//! with it after a restart), an ephemeral context's in memory only (gone
//! when it closes). The person's own context's are [`super::Nip07`]'s
//! `permissions`, in the profile. A decision never crosses contexts.

use super::permissions::{Decision, Permissions};
use super::request::Capability;
use crate::base::changes::Changes;
use crate::base::context::{ContextId, ContextInfo};
use std::collections::HashMap;
use std::path::PathBuf;
use std::sync::{Arc, Mutex};

/// The file, in a kept context's folder, that holds its decisions.
const FILE: &str = "nostr-permissions.json";

struct Opened {
    name: String,
    permissions: Arc<Permissions>,
}

pub struct ContextDecisions {
    /// The profile's folder of kept contexts (none: nothing is kept).
    dir: Option<PathBuf>,
    open: Mutex<HashMap<ContextId, Opened>>,
    /// Bumped when a decision of any context changes or a context's go.
    changes: Changes,
}

impl ContextDecisions {
    pub fn new(dir: Option<PathBuf>) -> ContextDecisions {
        ContextDecisions {
            dir,
            open: Mutex::default(),
            changes: Changes::default(),
        }
    }

    /// The decisions of `context` (an agent's), read from its folder the
    /// first time when it is kept.
    pub fn of(&self, context: &ContextInfo) -> Arc<Permissions> {
        let mut open = self.open.lock().unwrap_or_else(|e| e.into_inner());
        let opened = open.entry(context.id).or_insert_with(|| {
            let path = match (&self.dir, context.ephemeral) {
                (Some(dir), false) => Some(dir.join(&context.name).join(FILE)),
                _ => None,
            };
            Opened {
                name: context.name.clone(),
                permissions: Arc::new(Permissions::load(path)),
            }
        });
        opened.permissions.clone()
    }

    /// The decisions of an open context, by id (none: it never asked, or closed).
    pub fn get(&self, context: ContextId) -> Option<Arc<Permissions>> {
        let open = self.open.lock().unwrap_or_else(|e| e.into_inner());
        open.get(&context).map(|o| o.permissions.clone())
    }

    /// The decisions of an open context, by name.
    pub fn named(&self, name: &str) -> Option<Arc<Permissions>> {
        let open = self.open.lock().unwrap_or_else(|e| e.into_inner());
        open.values()
            .find(|o| o.name == name)
            .map(|o| o.permissions.clone())
    }

    /// Keeps a decision the person made for a page of `context`, for the
    /// identity `pubkey` that was asked.
    pub fn remember(
        &self,
        context: ContextId,
        pubkey: &str,
        origin: &str,
        capability: Capability,
        allow: bool,
    ) {
        if let Some(permissions) = self.get(context) {
            permissions.remember(pubkey, origin, capability, allow);
            self.changes.bump();
        }
    }

    /// Forgets decisions of the context named `name`; how many went.
    pub fn revoke(
        &self,
        name: &str,
        origin: &str,
        capability: Option<Capability>,
        pubkey: Option<&str>,
    ) -> usize {
        let revoked = self
            .named(name)
            .map_or(0, |p| p.revoke(origin, capability, pubkey));
        if revoked > 0 {
            self.changes.bump();
        }
        revoked
    }

    /// Closed contexts' decisions leave memory (a kept one's stay on disk).
    pub fn keep_only(&self, open_contexts: &[ContextId]) {
        let mut open = self.open.lock().unwrap_or_else(|e| e.into_inner());
        let before = open.len();
        open.retain(|id, _| open_contexts.contains(id));
        if open.len() != before {
            self.changes.bump();
        }
    }

    /// Every open context's decisions, each with its context's name.
    pub fn list(&self) -> Vec<(String, Decision)> {
        let open = self.open.lock().unwrap_or_else(|e| e.into_inner());
        let mut all: Vec<(String, Decision)> = open
            .values()
            .flat_map(|o| {
                o.permissions
                    .list()
                    .into_iter()
                    .map(|d| (o.name.clone(), d))
            })
            .collect();
        all.sort_by(|a, b| (&a.0, &a.1.origin).cmp(&(&b.0, &b.1.origin)));
        all
    }

    pub fn watch(&self) -> tokio::sync::watch::Receiver<u64> {
        self.changes.watch()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn context(id: ContextId, name: &str, ephemeral: bool) -> ContextInfo {
        ContextInfo {
            id,
            name: name.into(),
            ephemeral,
        }
    }

    #[test]
    fn a_kept_context_keeps_its_decisions_and_an_ephemeral_one_does_not() {
        let dir = std::env::temp_dir().join(format!(
            "sovereign-context-decisions-{}",
            crate::profile::random_hex(6)
        ));
        std::fs::create_dir_all(dir.join("lab")).unwrap();
        std::fs::create_dir_all(dir.join("errand")).unwrap();
        let origin = "http://a.test:80";
        let first = ContextDecisions::new(Some(dir.clone()));
        first.of(&context(1, "lab", false));
        first.of(&context(2, "errand", true));
        first.remember(1, "a1", origin, Capability::Sign(1), true);
        first.remember(2, "a1", origin, Capability::Sign(1), false);
        assert_eq!(first.list().len(), 2);
        assert!(!dir.join("errand").join(FILE).exists(), "nothing on disk");

        // After a restart (new ids): the kept one's are back, alone.
        let again = ContextDecisions::new(Some(dir.clone()));
        let lab = again.of(&context(7, "lab", false));
        assert_eq!(lab.decision("a1", origin, Capability::Sign(1)), Some(true));
        let errand = again.of(&context(8, "errand", true));
        assert_eq!(errand.decision("a1", origin, Capability::Sign(1)), None);

        assert_eq!(again.revoke("lab", origin, None, None), 1);
        again.keep_only(&[8]);
        assert!(again.get(7).is_none() && again.get(8).is_some());
        let _ = std::fs::remove_dir_all(dir);
    }
}
