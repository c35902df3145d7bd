//! Main-thread side: the window and its tabs (`window`), the executor of
//! the commands tokio code sends through the bridge (`executor`, routing
//! only), and one file per concern it routes to. Nothing here blocks: a
//! command starts work and a GLib callback sends the reply.

// The rooms, from the ground up: a room may use the rooms below it, never
// one above (tests/layers.rs holds it).
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

use gtk::prelude::*;
use tao::event_loop::EventLoopWindowTarget;
use tao::platform::unix::WindowExtUnix;
pub use window::browser::{Browser, SharedBrowser, PANEL_WINDOW_SIZE};
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
        UserEvent::TabChanged(id) => {
            let b = browser.borrow();
            b.refresh_chrome(id);
            if let (Ok(tab), Ok(ctx)) = (b.tab(id), b.context_of(id)) {
                if ctx.front.get() == id {
                    ctx.window
                        .gtk_window()
                        .set_title(&window::browser::window_title(&ctx.info, &tab.webkit));
                }
            }
        }
        UserEvent::Chrome(context, action) => {
            window::chrome_actions::run(browser, context, action, target)
        }
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
                let line = routes.and_then(|(_, routes)| window::routes_bar::line(routes));
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
