//! window.nostr in every frame of every tab. The provider runs in the
//! page's world (`assets/nostr-provider.js`); the bridge runs in the agent's
//! isolated world (`assets/nostr-bridge.js`), reads the frame's origin and
//! posts each call to a message handler registered only in that world. The
//! handler's reply resolves the bridge's post in that very frame, so an
//! answer reaches the frame that asked, cross-origin frames included.

use crate::base::page_event::{PageCalls, PageEvent};
use crate::bridge::TabId;
use crate::browser::webkit::agent_world::AGENT_WORLD;
use crate::browser::webkit::message_reply;
use serde_json::json;
use webkit2gtk::{
    LoadEvent, UserContentInjectedFrames, UserContentManagerExt as _, UserScript,
    UserScriptInjectionTime, WebView, WebViewExt as _,
};

/// The message handler's name, as the bridge calls it.
const HANDLER: &str = "sovereignNostr";
const PROVIDER: &str = include_str!("../../../assets/nostr-provider.js");
const BRIDGE: &str = include_str!("../../../assets/nostr-bridge.js");

/// The two scripts, made once and added to each tab.
pub struct NostrScripts {
    provider: UserScript,
    bridge: UserScript,
}

impl NostrScripts {
    pub fn new() -> NostrScripts {
        NostrScripts {
            provider: UserScript::new(
                PROVIDER,
                UserContentInjectedFrames::AllFrames,
                UserScriptInjectionTime::Start,
                &[],
                &[],
            ),
            bridge: crate::browser::webkit::agent_world::script_in_every_frame(BRIDGE),
        }
    }
}

impl Default for NostrScripts {
    fn default() -> Self {
        Self::new()
    }
}

/// Adds window.nostr to one tab and passes its calls to `calls`; a new
/// page in the tab withdraws the old page's waiting prompts.
pub fn install(view: &WebView, tab: TabId, scripts: &NostrScripts, calls: &PageCalls) {
    let Some(manager) = view.user_content_manager() else {
        return;
    };
    let gone = calls.clone();
    view.connect_load_changed(move |_, event| {
        if event == LoadEvent::Committed {
            let _ = gone.send(PageEvent::PageGone { tab });
        }
    });
    manager.add_script(&scripts.provider);
    manager.add_script(&scripts.bridge);
    let calls = calls.clone();
    message_reply::listen(&manager, HANDLER, AGENT_WORLD, move |text, answer| {
        let (tx, rx) = tokio::sync::oneshot::channel();
        let sent = calls
            .send(PageEvent::Call {
                text,
                tab,
                reply: tx,
            })
            .is_ok();
        glib::MainContext::default().spawn_local(async move {
            let reply = match rx.await {
                Ok(reply) if sent => reply,
                _ => json!({"ok": false, "error": "Sovereign Browser: the request could not be handled"})
                    .to_string(),
            };
            answer.send(&reply);
        });
    });
}
