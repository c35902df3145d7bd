//! Main-thread side: the window and its tabs (`window`), the executor of
//! the commands tokio code sends through the bridge (`executor`, routing
//! only), and one file per concern it routes to. Nothing here blocks: a
//! command starts work and a GLib callback sends the reply.

mod act;
mod ask_bar;
mod budget;
pub mod capture;
pub mod chrome;
mod chrome_actions;
mod clipboard;
mod console;
mod cookies;
mod delivery;
pub mod downloads;
mod executor;
mod expiry;
mod frames;
mod front;
pub mod input;
mod message_reply;
mod network;
mod network_body;
mod network_watch;
mod nostr;
mod person_input;
mod person_typed;
mod related;
pub mod script;
mod settings;
pub mod tab;
mod web_extension;
mod window;
mod x11;
mod xtest;

use crate::base::tab::TabId;
use crate::bridge::{Command, Reply};
use gtk::prelude::*;
use std::path::PathBuf;
use tab::Publisher;
use tao::event_loop::EventLoopWindowTarget;
use tao::platform::unix::WindowExtUnix;
pub use window::{Browser, SharedBrowser, PANEL_WINDOW_SIZE};

/// Events the tao loop receives from other threads and from signal handlers.
pub enum UserEvent {
    /// A command, its reply and the time it may take.
    Command(Command, Reply, std::time::Duration),
    /// A page called `window.close()`.
    TabClosedByPage(TabId),
    /// A tab's title, address or loading state changed.
    TabChanged(TabId),
    /// The person used the window's chrome.
    Chrome(chrome::ChromeAction),
    /// The identity in use changed (method and short npub, or "Not logged in").
    Identity(String),
    /// window.nostr requests wait for the person ("" when none does).
    NostrPrompts(String),
    /// A download ended: path, and whether it succeeded.
    DownloadDone(String, bool),
    Shutdown,
}

pub struct BrowserOptions {
    pub web_data: PathBuf,
    pub start_url: String,
    pub downloads: PathBuf,
    pub window_size: (u32, u32),
    /// Accept invalid TLS certificates (for testing only).
    pub ignore_certificate_errors: bool,
    /// Let tabs open file: URLs (off: agents would read local files).
    pub allow_file_urls: bool,
    /// Proxy for all requests, e.g. http://127.0.0.1:3128 or socks5://...
    pub proxy: Option<String>,
    /// Search page for address-bar text that is not an address (`%s` = the words).
    pub search_url: Option<String>,
    /// Set while a person has paused the agents.
    pub paused: std::sync::Arc<crate::base::pause::Pause>,
    /// What the agents are doing (shown in the toolbar).
    pub activity: std::sync::Arc<crate::activity::Activity>,
    /// Agents' requests for the person: shown over their tab, answered here.
    pub asks: std::sync::Arc<crate::asks::Asks>,
    /// Where the pages' window.nostr calls go.
    pub nostr_calls: crate::base::page_event::PageCalls,
    /// Tabs an agent ran its own script in (in a page's world): marked here.
    pub agent_scripted: std::sync::Arc<crate::agent_scripts::AgentScripted>,
    /// Where the tabs' and downloads' state is published for tokio code.
    pub publisher: Publisher,
    /// Place the panel's window beside the browser's: a private display
    /// has no window manager, and would stack it over the tabs.
    pub panel_beside: bool,
}

/// Handles one event of the loop.
pub fn handle_event(
    browser: &SharedBrowser,
    event: UserEvent,
    target: &EventLoopWindowTarget<UserEvent>,
) {
    match event {
        UserEvent::Command(command, reply, limit) => {
            executor::execute(browser, command, reply, limit)
        }
        UserEvent::TabClosedByPage(id) => {
            let _ = browser.borrow_mut().close_tab(id);
        }
        UserEvent::TabChanged(id) => {
            let b = browser.borrow();
            b.refresh_chrome(id);
            if b.front.get() == id {
                if let Ok(tab) = b.tab(id) {
                    b.window
                        .gtk_window()
                        .set_title(&window::window_title(&tab.webkit));
                }
            }
        }
        UserEvent::Chrome(action) => chrome_actions::run(browser, action, target),
        UserEvent::Identity(summary) => browser.borrow().chrome.set_identity(&summary),
        UserEvent::NostrPrompts(line) => browser.borrow().chrome.show_nostr_prompts(&line),
        UserEvent::DownloadDone(path, ok) => browser.borrow().chrome.download_done(&path, ok),
        UserEvent::Shutdown => {}
    }
}
