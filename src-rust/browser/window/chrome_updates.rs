//! What the windows' chrome shows of the browser's state: a tab's title
//! and address, the identity in use, the pause, window.nostr's waiting
//! requests, agents' routes, a finished download. Each arrives as an event
//! of the loop or a command, and is drawn here, in every window it
//! concerns.

use super::browser::{window_title, Browser};
use super::routes_bar;
use crate::base::context::ContextId;
use crate::base::error::ToolError;
use crate::base::tab::TabId;
use gtk::prelude::*;
use serde_json::Value;
use tao::platform::unix::WindowExtUnix as _;

impl Browser {
    /// A tab's title, address or loading state changed: its strip entry,
    /// and its window's title when it is in front.
    pub fn tab_changed(&self, id: TabId) {
        self.refresh_chrome(id);
        if let (Ok(tab), Ok(ctx)) = (self.tab(id), self.context_of(id)) {
            if ctx.front.get() == id {
                ctx.window
                    .gtk_window()
                    .set_title(&window_title(&ctx.info, &tab.webkit));
            }
        }
    }

    /// Each context's identity (its method and short npub); a context
    /// missing from `summaries` is not logged in.
    pub fn show_identities(&self, summaries: &[(ContextId, String)]) {
        for ctx in &self.contexts {
            let summary = summaries.iter().find(|(id, _)| *id == ctx.info.id);
            ctx.chrome
                .set_identity(summary.map_or("Not logged in", |(_, s)| s.as_str()));
        }
    }

    /// The window.nostr requests waiting for the person ("" for none).
    pub fn show_nostr_prompts(&self, line: &str) {
        for ctx in &self.contexts {
            ctx.chrome.show_nostr_prompts(line);
        }
    }

    /// Each routed context's routes, in its window.
    pub fn show_routes(&self, routed: &[(ContextId, Vec<Value>)]) {
        for ctx in &self.contexts {
            let routes = routed.iter().find(|(id, _)| *id == ctx.info.id);
            let line = routes.and_then(|(_, routes)| routes_bar::line(routes));
            ctx.chrome.show_routes(line.as_deref());
        }
    }

    /// The uses of the person's vault waiting for their yes, each in the
    /// window of its tab.
    pub fn show_vault_uses(&self, waiting: &[crate::vault::UseAsked]) {
        for ctx in &self.contexts {
            let here: Vec<&crate::vault::UseAsked> = waiting
                .iter()
                .filter(|u| self.tab(u.tab).is_ok_and(|t| t.context == ctx.info.id))
                .collect();
            ctx.chrome.show_vault_uses(&here);
        }
    }

    /// A download ended: where, and whether it succeeded.
    pub fn download_done(&self, path: &str, ok: bool) {
        for ctx in &self.contexts {
            ctx.chrome.download_done(path, ok);
        }
    }

    /// The person's pause, as every window shows it.
    pub fn show_paused(&self, paused: bool) {
        for ctx in &self.contexts {
            ctx.chrome.set_paused(paused);
        }
    }

    /// A picture of a context's whole window, chrome and all.
    pub fn window_png(&self, context: ContextId) -> Result<Vec<u8>, ToolError> {
        let ctx = self.context(context)?;
        crate::browser::page::capture::window_png(ctx.window.gtk_window())
    }

    /// Where the chrome's parts of a context's window are, and what they show.
    pub fn chrome_layout(&self, context: ContextId) -> Result<Value, ToolError> {
        let ctx = self.context(context)?;
        Ok(ctx.chrome.layout(ctx.window.gtk_window()))
    }
}
