//! The person's yes to each use of an entry they marked "ask me each
//! time". An agent's fill from such an entry waits here until the person
//! allows or denies it, in the window's bar or the panel (native buttons
//! and the panel's connection: no agent can answer), or its time runs out.
//! A few at once: an agent cannot bury the person in questions.

use crate::base::changes::Changes;
use crate::base::tab::TabId;
use serde::Serialize;
use std::sync::Mutex;
use std::time::{SystemTime, UNIX_EPOCH};
use tokio::sync::oneshot;

/// Uses that may wait for the person at once, across agents.
pub const WAITING_MAX: usize = 8;

/// One use waiting for the person's yes, as the window and the panel show it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct UseAsked {
    pub id: u64,
    /// The entry and which of its fields.
    pub entry: String,
    pub field: String,
    /// The page's origin it would go into, and its tab.
    pub origin: String,
    pub tab: TabId,
    /// The name the asking client gives itself (its own claim, shown as such).
    pub asker: String,
    /// Unix time in ms.
    pub started: u64,
}

struct Waiting {
    asked: UseAsked,
    answer: oneshot::Sender<bool>,
}

#[derive(Default)]
pub struct Consents {
    state: Mutex<(u64, Vec<Waiting>)>,
    changes: Changes,
}

/// Too many uses wait for the person already.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct TooMany;

impl Consents {
    fn lock(&self) -> std::sync::MutexGuard<'_, (u64, Vec<Waiting>)> {
        self.state.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Asks the person about a use: its id and where the answer comes.
    /// `asked.id` and `asked.started` are set here.
    pub fn ask(&self, mut asked: UseAsked) -> Result<(u64, oneshot::Receiver<bool>), TooMany> {
        let mut state = self.lock();
        if state.1.len() >= WAITING_MAX {
            return Err(TooMany);
        }
        state.0 += 1;
        asked.id = state.0;
        asked.started = SystemTime::now()
            .duration_since(UNIX_EPOCH)
            .map_or(0, |d| d.as_millis() as u64);
        let (answer, answered) = oneshot::channel();
        let id = asked.id;
        state.1.push(Waiting { asked, answer });
        self.changes.bump();
        Ok((id, answered))
    }

    /// The person's answer to use `id`; false when it no longer waits.
    pub fn answer(&self, id: u64, allow: bool) -> bool {
        let mut state = self.lock();
        let Some(at) = state.1.iter().position(|w| w.asked.id == id) else {
            return false;
        };
        let waiting = state.1.remove(at);
        self.changes.bump();
        // The agent may have gone at this very moment: then nobody hears it.
        waiting.answer.send(allow).is_ok()
    }

    /// Ends use `id` however it ended (answered, timed out, the agent gone).
    pub fn end(&self, id: u64) {
        let mut state = self.lock();
        let before = state.1.len();
        state.1.retain(|w| w.asked.id != id);
        if state.1.len() != before {
            self.changes.bump();
        }
    }

    /// Every waiting use, oldest first.
    pub fn list(&self) -> Vec<UseAsked> {
        self.lock().1.iter().map(|w| w.asked.clone()).collect()
    }

    /// Moves whenever a use starts or stops waiting.
    pub fn version(&self) -> u64 {
        self.changes.version()
    }

    pub fn watch(&self) -> tokio::sync::watch::Receiver<u64> {
        self.changes.watch()
    }
}

/// Ends a waiting use when the agent's call ends, whichever way it ends
/// (its future dropped when the client goes, included).
pub struct Asking<'a> {
    pub consents: &'a Consents,
    pub id: u64,
}

impl Drop for Asking<'_> {
    fn drop(&mut self) {
        self.consents.end(self.id);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn asked(entry: &str) -> UseAsked {
        UseAsked {
            id: 0,
            entry: entry.into(),
            field: "password".into(),
            origin: "https://github.com:443".into(),
            tab: 1,
            asker: "agent".into(),
            started: 0,
        }
    }

    #[tokio::test]
    async fn the_first_answer_counts_and_a_gone_use_takes_none() {
        let consents = Consents::default();
        let (id, answered) = consents.ask(asked("github")).unwrap();
        assert_eq!(consents.list().len(), 1);
        assert!(consents.answer(id, true));
        assert!(answered.await.unwrap());
        assert!(!consents.answer(id, false), "answered already");
        assert!(consents.list().is_empty());
        let (id, answered) = consents.ask(asked("github")).unwrap();
        drop(answered);
        consents.end(id);
        assert!(!consents.answer(id, true), "ended");
    }

    #[test]
    fn at_most_a_few_wait_at_once() {
        let consents = Consents::default();
        let held: Vec<_> = (0..WAITING_MAX)
            .map(|_| consents.ask(asked("a")).unwrap())
            .collect();
        assert_eq!(consents.ask(asked("a")).unwrap_err(), TooMany);
        consents.end(held[0].0);
        assert!(
            consents.ask(asked("a")).is_ok(),
            "room again once one ended"
        );
    }
}
