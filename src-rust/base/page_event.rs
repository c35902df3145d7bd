//! What the browser's main thread tells the `window.nostr` provider: the
//! calls pages make, and pages going away.

use tokio::sync::{mpsc, oneshot};

/// What the browser's main thread tells the provider.
pub enum PageEvent {
    /// A call from a frame of `tab`: its JSON, and where the answer's JSON
    /// (`{"ok": true, "result": ...}` or `{"ok": false, "error": "..."}`) goes.
    Call {
        text: String,
        tab: u64,
        reply: oneshot::Sender<String>,
    },
    /// The tab's page went (a new page, or the tab closed): its waiting
    /// prompts are withdrawn, since nobody would receive the answer.
    PageGone { tab: u64 },
}

pub type PageCalls = mpsc::UnboundedSender<PageEvent>;
