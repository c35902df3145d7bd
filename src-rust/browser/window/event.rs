//! The events the tao loop receives from other threads and from signal
//! handlers, in a file of their own so that every part of the browser can
//! post one without importing the loop that handles them.

use crate::base::context::ContextId;
use crate::base::tab::TabId;
use crate::bridge::{Command, Reply};

/// Events the tao loop receives from other threads and from signal handlers.
pub enum UserEvent {
    /// A command, its reply and the time it may take.
    Command(Command, Reply, std::time::Duration),
    /// A page called `window.close()`.
    TabClosedByPage(TabId),
    /// A tab's title, address or loading state changed.
    TabChanged(TabId),
    /// The person used a context's window's chrome.
    Chrome(ContextId, ChromeAction),
    /// An identity changed: each context's (method and short npub, or
    /// "Not logged in").
    Identity(Vec<(ContextId, String)>),
    /// window.nostr requests wait for the person ("" when none does).
    NostrPrompts(String),
    /// A download ended: path, and whether it succeeded.
    DownloadDone(String, bool),
    /// Agents' routes changed: each routed context's routes.
    Routes(Vec<(ContextId, Vec<serde_json::Value>)>),
    /// The uses of the person's vault waiting for their yes changed.
    VaultUses(Vec<crate::vault::UseAsked>),
    Shutdown,
}

/// What a person asked for through the chrome.
#[derive(Debug, Clone)]
pub enum ChromeAction {
    Back,
    Forward,
    ReloadOrStop,
    Navigate(String),
    NewTab,
    Select(TabId),
    Close(TabId),
    CloseFront,
    Cycle(i32),
    FocusAddress,
    OpenPanel,
    /// Remove every route agents made in the window's context.
    RemoveRoutes,
}
