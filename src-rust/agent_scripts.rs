//! Tabs an agent has run its own script in, in a page's own world (`eval`,
//! `wait_for_fn`). Such a script can call `window.nostr` as the page, and
//! can leave timers and listeners behind that call it later, or script the
//! windows related to its tab by opener; so once marked, a tab stays marked
//! for the rest of its life, and the tabs related to it are marked with it
//! (the browser's main thread decides which those are). `window.nostr`
//! applies no standing "allow" to a call from a marked tab, and marks its
//! prompt as possibly the agent's; the ask bar warns the person.
//!
//! A cheap lock like `asks`: the window looks a few times a second and
//! redraws when the version moved. Bounded by the open tabs: a closed tab
//! is forgotten.

use crate::base::tab::TabId;
use std::collections::HashSet;
use std::sync::Mutex;

#[derive(Default)]
struct State {
    tabs: HashSet<TabId>,
    version: u64,
}

#[derive(Default)]
pub struct AgentScripted {
    state: Mutex<State>,
}

impl AgentScripted {
    fn lock(&self) -> std::sync::MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Marks `tabs` (a tab and the tabs related to it).
    pub fn mark(&self, tabs: impl IntoIterator<Item = TabId>) {
        let mut s = self.lock();
        let mut changed = false;
        for tab in tabs {
            changed |= s.tabs.insert(tab);
        }
        if changed {
            s.version += 1;
        }
    }

    /// Whether an agent may have run its own script in `tab`'s page world.
    pub fn contains(&self, tab: TabId) -> bool {
        self.lock().tabs.contains(&tab)
    }

    /// Forgets a tab that closed (tab ids are never reused).
    pub fn forget(&self, tab: TabId) {
        let mut s = self.lock();
        if s.tabs.remove(&tab) {
            s.version += 1;
        }
    }

    /// Moves whenever a tab is marked or forgotten.
    pub fn version(&self) -> u64 {
        self.lock().version
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
