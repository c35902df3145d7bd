//! Tabs an agent has run its own script in, in a page's own world (`eval`,
//! `wait_for_fn`), and the tabs of a context whose requests an agent's
//! routes may answer (a routed page is the agent's script as much as an
//! `eval`). Such a script can call `window.nostr` as the page, and
//! can leave timers and listeners behind that call it later, or script the
//! windows related to its tab by opener; so once marked, a tab stays marked
//! for the rest of its life, and the tabs related to it are marked with it
//! (the browser's main thread decides which those are). `window.nostr`
//! applies no standing "allow" to a call from a marked tab, and marks its
//! prompt as possibly the agent's; the ask bar warns the person.
//!
//! A cheap lock like `asks`, and a signal at each change for the window
//! and the panel. Bounded by the open tabs: a closed tab
//! is forgotten.

use crate::base::changes::Changes;
use crate::base::tab::TabId;
use std::collections::HashSet;
use std::sync::Mutex;

#[derive(Default)]
pub struct AgentScripted {
    tabs: Mutex<HashSet<TabId>>,
    changes: Changes,
}

impl AgentScripted {
    fn lock(&self) -> std::sync::MutexGuard<'_, HashSet<TabId>> {
        self.tabs.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Marks `tabs` (a tab and the tabs related to it).
    pub fn mark(&self, tabs: impl IntoIterator<Item = TabId>) {
        let mut marked = self.lock();
        let mut changed = false;
        for tab in tabs {
            changed |= marked.insert(tab);
        }
        if changed {
            self.changes.bump();
        }
    }

    /// Whether an agent may have run its own script in `tab`'s page world.
    pub fn contains(&self, tab: TabId) -> bool {
        self.lock().contains(&tab)
    }

    /// Forgets a tab that closed (tab ids are never reused).
    pub fn forget(&self, tab: TabId) {
        if self.lock().remove(&tab) {
            self.changes.bump();
        }
    }

    /// Moves whenever a tab is marked or forgotten.
    pub fn version(&self) -> u64 {
        self.changes.version()
    }

    /// Wakes whenever a tab is marked or forgotten.
    pub fn watch(&self) -> tokio::sync::watch::Receiver<u64> {
        self.changes.watch()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_mark_holds_until_the_tab_closes() {
        let marks = AgentScripted::default();
        assert!(!marks.contains(1));
        marks.mark([1, 2]);
        let version = marks.version();
        assert!(marks.contains(1) && marks.contains(2) && !marks.contains(3));
        marks.mark([1]);
        assert_eq!(marks.version(), version, "marking again changes nothing");
        marks.forget(1);
        assert!(!marks.contains(1) && marks.contains(2));
        assert!(marks.version() > version);
    }
}
