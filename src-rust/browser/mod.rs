//! Main-thread side: seven rooms, from the ground up webkit, input, tab,
//! page, network, window and act (each folder's mod.rs says what it holds;
//! a room uses only the rooms below it, as tests/layers.rs holds), and on
//! top the executor of the commands tokio code sends through the bridge
//! (`executor`) and the loop's events (here): both only route. Nothing here
//! blocks: a command starts work and a GLib callback sends the reply.

mod act;
mod executor;
#[cfg(test)]
mod ffi_edges;
mod input;
mod network;
mod page;
mod tab;
mod webkit;
mod window;

use tao::event_loop::EventLoopWindowTarget;
pub use window::browser::{Browser, SharedBrowser, PANEL_WINDOW_SIZE};
// What a page reports of a submitted form, read by the fuzzing of requests.
pub use tab::form_posts;
pub use window::event::UserEvent;
pub use window::options::BrowserOptions;

/// Handles one event of the loop.
pub fn handle_event(
    browser: &SharedBrowser,
    event: UserEvent,
    target: &EventLoopWindowTarget<UserEvent>,
) {
    match event {
        UserEvent::Command(command, reply, limit) => {
            executor::execute(browser, command, reply, limit, target)
        }
        UserEvent::TabClosedByPage(id) => {
            let _ = browser.borrow_mut().close_tab(id);
        }
        UserEvent::TabChanged(id) => browser.borrow().tab_changed(id),
        UserEvent::Chrome(context, action) => {
            window::chrome_actions::run(browser, context, action, target)
        }
        UserEvent::Identity(summaries) => browser.borrow().show_identities(&summaries),
        UserEvent::NostrPrompts(line) => browser.borrow().show_nostr_prompts(&line),
        UserEvent::Routes(routed) => browser.borrow().show_routes(&routed),
        UserEvent::VaultUses(waiting) => browser.borrow().show_vault_uses(&waiting),
        UserEvent::DownloadDone(path, ok) => browser.borrow().download_done(&path, ok),
        UserEvent::Shutdown => {}
    }
}
