//! Tabs related by opener: a page's `window.open` (or `target=_blank`) and
//! the tab that opened it share a web process and can script one another
//! (`window.opener`, named windows), and WebKit may deliver the script
//! messages of one to the other's handlers. So what concerns the scripts
//! that can reach a tab is kept for the whole group: whether an agent ran
//! its own script in a page's world in any of them, and which of them hold
//! a page the person typed into while an agent's request waited.

use crate::agent_scripts::AgentScripted;
use crate::base::tab::TabId;
use std::cell::{Cell, RefCell};
use std::rc::Rc;
use std::sync::Arc;

/// One group of related tabs (main thread only).
pub struct Related {
    members: RefCell<Vec<TabId>>,
    /// An agent ran its own script in a page's world in one of them.
    agent_scripted: Cell<bool>,
    /// Members whose page holds fields the person typed into while an
    /// agent's request (ask_person) waited, until each leaves that page.
    person_typed: RefCell<Vec<TabId>>,
    /// Where the mark is published for window.nostr and the ask bar.
    marks: Arc<AgentScripted>,
}

impl Related {
    /// The group of a tab nobody opened.
    pub fn new(first: TabId, marks: &Arc<AgentScripted>) -> Rc<Related> {
        Rc::new(Related {
            members: RefCell::new(vec![first]),
            agent_scripted: Cell::new(false),
            person_typed: RefCell::new(Vec::new()),
            marks: marks.clone(),
        })
    }

    /// A tab opened from one of the group: marked at once when the group is.
    pub fn join(&self, tab: TabId) {
        self.members.borrow_mut().push(tab);
        if self.agent_scripted.get() {
            self.marks.mark([tab]);
        }
    }

    /// A tab of the group closed.
    pub fn leave(&self, tab: TabId) {
        self.members.borrow_mut().retain(|t| *t != tab);
        self.page_left(tab);
        self.marks.forget(tab);
    }

    pub fn members(&self) -> Vec<TabId> {
        self.members.borrow().clone()
    }

    /// `tab`'s page now holds what the person typed during an ask.
    pub fn note_person_typed(&self, tab: TabId) {
        let mut typed = self.person_typed.borrow_mut();
        if !typed.contains(&tab) {
            typed.push(tab);
        }
    }

    /// `tab` left its page (a new document, or the tab closed).
    pub fn page_left(&self, tab: TabId) {
        self.person_typed.borrow_mut().retain(|t| *t != tab);
    }

    /// A member whose page holds what the person typed during an ask.
    pub fn person_typed_in(&self) -> Option<TabId> {
        self.person_typed.borrow().first().copied()
    }

    /// An agent is about to run its own script in a page's world in one of
    /// the group's tabs: every tab of the group is marked, now and for good.
    pub fn mark_agent_scripted(&self) {
        self.agent_scripted.set(true);
        self.marks.mark(self.members.borrow().iter().copied());
    }
}
