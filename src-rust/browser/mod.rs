//! Main-thread side: the window and its tabs (`window`), the executor of
//! the commands tokio code sends through the bridge (`executor`, routing
//! only), and one file per concern it routes to. Nothing here blocks: a
//! command starts work and a GLib callback sends the reply.

mod act;
mod agent_world;
mod ask_bar;
mod audit;
mod budget;
pub mod capture;
pub mod chrome;
mod chrome_actions;
mod clipboard;
mod console;
mod context;
mod contexts;
mod cookies;
mod delivery;
pub mod downloads;
mod drag;
mod event;
mod executor;
mod expiry;
#[cfg(test)]
mod ffi_edges;
#[cfg(test)]
mod ffi_harness;
pub mod form_posts;
mod frame_relay;
mod frames;
mod front;
mod har;
pub mod input;
mod message_reply;
mod network;
mod network_body;
mod network_watch;
mod nostr;
mod notice_bar;
mod options;
mod page_memory;
mod person_input;
mod person_typed;
mod receipts;
mod related;
mod routes_bar;
pub mod script;
mod settings;
pub mod tab;
mod web_extension;
mod window;
mod x11;
mod xtest;

pub use event::UserEvent;
use gtk::prelude::*;
pub use options::BrowserOptions;
use tao::event_loop::EventLoopWindowTarget;
use tao::platform::unix::WindowExtUnix;
pub use window::{Browser, SharedBrowser, PANEL_WINDOW_SIZE};

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
        UserEvent::TabChanged(id) => {
            let b = browser.borrow();
            b.refresh_chrome(id);
            if let (Ok(tab), Ok(ctx)) = (b.tab(id), b.context_of(id)) {
                if ctx.front.get() == id {
                    ctx.window
                        .gtk_window()
                        .set_title(&window::window_title(&ctx.info, &tab.webkit));
                }
            }
        }
        UserEvent::Chrome(context, action) => chrome_actions::run(browser, context, action, target),
        UserEvent::Identity(summaries) => {
            for ctx in &browser.borrow().contexts {
                let summary = summaries.iter().find(|(id, _)| *id == ctx.info.id);
                ctx.chrome
                    .set_identity(summary.map_or("Not logged in", |(_, s)| s.as_str()));
            }
        }
        UserEvent::NostrPrompts(line) => {
            for ctx in &browser.borrow().contexts {
                ctx.chrome.show_nostr_prompts(&line);
            }
        }
        UserEvent::Routes(lines) => {
            for ctx in &browser.borrow().contexts {
                let routes = lines.iter().find(|(id, _)| *id == ctx.info.id);
                let line = routes.and_then(|(_, routes)| routes_bar::line(routes));
                ctx.chrome.show_routes(line.as_deref());
            }
        }
        UserEvent::DownloadDone(path, ok) => {
            for ctx in &browser.borrow().contexts {
                ctx.chrome.download_done(&path, ok);
            }
        }
        UserEvent::Shutdown => {}
    }
}
