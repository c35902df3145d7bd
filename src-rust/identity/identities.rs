//! One identity per context: the person's in their own (default) context,
//! and one for each context agents open, logged out until someone logs in
//! there. An agent can then work with a bot key in its context while the
//! person's identity stays in theirs, untouched.

use super::IdentityState;
use crate::base::context::{ContextId, DEFAULT_CONTEXT};
use std::collections::HashMap;
use std::sync::{Arc, Mutex};

pub struct Identities {
    person: Arc<IdentityState>,
    contexts: Mutex<HashMap<ContextId, Arc<IdentityState>>>,
}

impl Identities {
    pub fn new(person: Arc<IdentityState>) -> Identities {
        Identities {
            person,
            contexts: Mutex::default(),
        }
    }

    /// The identity of `context` (a context's first look makes it, logged
    /// out). Every one bumps the person's status signal when it changes,
    /// so that what shows identities (the panel, the windows) hears of it.
    pub fn of(&self, context: ContextId) -> Arc<IdentityState> {
        if context == DEFAULT_CONTEXT {
            return self.person.clone();
        }
        let mut contexts = self.contexts.lock().unwrap_or_else(|e| e.into_inner());
        contexts
            .entry(context)
            .or_insert_with(|| Arc::new(IdentityState::sharing(self.person.changes.clone())))
            .clone()
    }

    /// Closed contexts' identities end: each signer is dropped (secrets
    /// wiped, connections closed). `open` are the contexts still open.
    pub fn keep_only(&self, open: &[ContextId]) {
        let gone: Vec<Arc<IdentityState>> = {
            let mut contexts = self.contexts.lock().unwrap_or_else(|e| e.into_inner());
            let closed: Vec<ContextId> = contexts
                .keys()
                .filter(|id| !open.contains(id))
                .copied()
                .collect();
            closed.iter().filter_map(|id| contexts.remove(id)).collect()
        };
        for identity in gone {
            identity.set(None);
        }
    }

    /// Each context's identity summary ("local · npub1…"), the person's first.
    pub fn summaries(&self) -> Vec<(ContextId, String)> {
        let mut all = vec![(DEFAULT_CONTEXT, self.person.summary())];
        let contexts = self.contexts.lock().unwrap_or_else(|e| e.into_inner());
        all.extend(contexts.iter().map(|(id, state)| (*id, state.summary())));
        all
    }

    /// Wakes whenever any context's identity changes.
    pub fn watch(&self) -> tokio::sync::watch::Receiver<u64> {
        self.person.changes.watch()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::identity::local::KeySigner;

    fn key(hex_byte: &str) -> Arc<KeySigner> {
        Arc::new(KeySigner::from_hex(&hex_byte.repeat(32)).expect("a valid test key"))
    }

    #[test]
    fn each_context_has_its_own_identity_and_a_closed_one_ends() {
        let person = Arc::new(IdentityState::default());
        let identities = Identities::new(person.clone());
        person.set(Some(key("01")));
        assert!(Arc::ptr_eq(&identities.of(DEFAULT_CONTEXT), &person));
        let bot = identities.of(3);
        assert!(!bot.is_logged_in(), "a new context starts logged out");
        let mut heard = identities.watch();
        heard.mark_unchanged();
        bot.set(Some(key("02")));
        assert!(
            heard.has_changed().unwrap(),
            "the shared signal hears a context's login"
        );
        assert!(
            Arc::ptr_eq(&identities.of(3), &bot),
            "the same context, the same identity"
        );
        let summaries = identities.summaries();
        assert_eq!(summaries.len(), 2);
        assert_ne!(summaries[0].1, summaries[1].1);

        identities.keep_only(&[DEFAULT_CONTEXT]);
        assert!(!bot.is_logged_in(), "a closed context's signer is dropped");
        assert!(person.is_logged_in(), "the person's stays");
        assert!(!identities.of(3).is_logged_in());
    }
}
