//! Tabs related by opener: a page's `window.open` (or `target=_blank`) and
//! the tab that opened it share a web process and can script one another
//! (`window.opener`, named windows), and WebKit may deliver the script
//! messages of one to the other's handlers. So what concerns the scripts
//! that can reach a tab is kept for the whole group: whether an agent ran
//! its own script in a page's world in any of them, and which of them hold
//! a page the person typed into while an agent's request waited, or a page
//! someone typed a password into.

use crate::agent_scripts::AgentScripted;
use crate::authorship::Way;
use crate::base::tab::TabId;
use std::cell::{Cell, RefCell};
use std::rc::Rc;
use std::sync::Arc;

/// Why what a request sends is withheld from agents, for good.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Secret {
    /// It started while a page of its group held what the person typed
    /// during an agent's request (ask_person).
    PersonTyped,
    /// It started while a page of its group had a password typed into it,
    /// or it is the post of a form with a password in it.
    Password,
    /// It started while a page of its group held a secret the browser
    /// filled from the person's vault.
    Vault,
}

impl Secret {
    /// Said where the body would be.
    pub fn note(self) -> &'static str {
        match self {
            Secret::PersonTyped => "withheld, for good: this request started while a page that can reach it held what the person typed during an agent's request (ask_person), and it may carry it; no agent gets what it sent",
            Secret::Password => "withheld, for good: this request started while a page that can reach it had a password typed into it (or it posted a form holding one), and it may carry it; no agent gets what it sent",
            Secret::Vault => "withheld, for good: this request started while a page that can reach it held a secret filled from the person's vault, and it may carry it; no agent gets what it sent",
        }
    }
}

/// One group of related tabs (main thread only).
pub struct Related {
    members: RefCell<Vec<TabId>>,
    /// An agent ran its own script in a page's world in one of them.
    agent_scripted: Cell<bool>,
    /// Members whose page holds fields the person typed into while an
    /// agent's request (ask_person) waited, until each leaves that page.
    person_typed: RefCell<Vec<TabId>>,
    /// Members whose page had a password typed into it, until each leaves it.
    password_typed: RefCell<Vec<TabId>>,
    /// Members whose page holds a secret filled from the person's vault,
    /// until each leaves it.
    vault_filled: RefCell<Vec<TabId>>,
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
            password_typed: RefCell::new(Vec::new()),
            vault_filled: RefCell::new(Vec::new()),
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
        add(&self.person_typed, tab);
    }

    /// Someone typed into a password field of `tab`'s page.
    pub fn note_password_typed(&self, tab: TabId) {
        add(&self.password_typed, tab);
    }

    /// A field of `tab`'s page took a secret from the person's vault.
    pub fn note_vault_filled(&self, tab: TabId) {
        add(&self.vault_filled, tab);
    }

    /// `tab` left its page (a new document, or the tab closed).
    pub fn page_left(&self, tab: TabId) {
        self.person_typed.borrow_mut().retain(|t| *t != tab);
        self.password_typed.borrow_mut().retain(|t| *t != tab);
        self.vault_filled.borrow_mut().retain(|t| *t != tab);
    }

    /// What a request a page of the group starts now may carry, that no
    /// agent may read: the group's scripts can reach every member's fields.
    pub fn secret_held(&self) -> Option<Secret> {
        if !self.person_typed.borrow().is_empty() {
            return Some(Secret::PersonTyped);
        }
        if !self.vault_filled.borrow().is_empty() {
            return Some(Secret::Vault);
        }
        if !self.password_typed.borrow().is_empty() {
            return Some(Secret::Password);
        }
        None
    }

    /// A member whose page holds a secret filled from the vault.
    pub fn vault_filled_in(&self) -> Option<TabId> {
        self.vault_filled.borrow().first().copied()
    }

    /// A member whose page holds what the person typed during an ask.
    pub fn person_typed_in(&self) -> Option<TabId> {
        self.person_typed.borrow().first().copied()
    }

    /// Content is about to reach a page of the group `way`: when an agent
    /// wrote it (`authorship`), every tab of the group is marked, now and
    /// for good.
    pub fn about_to_reach(&self, way: Way) {
        if !way.marks_tab() {
            return;
        }
        self.agent_scripted.set(true);
        self.marks.mark(self.members.borrow().iter().copied());
    }
}

fn add(tabs: &RefCell<Vec<TabId>>, tab: TabId) {
    let mut tabs = tabs.borrow_mut();
    if !tabs.contains(&tab) {
        tabs.push(tab);
    }
}
