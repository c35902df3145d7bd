//! window.nostr in every frame of every tab. The provider runs in the
//! page's world (`assets/nostr-provider.js`); the bridge runs in the agent's
//! isolated world (`assets/nostr-bridge.js`), reads the frame's origin and
//! posts each call to a message handler registered only in that world. The
//! handler's reply resolves the bridge's post in that very frame, so an
//! answer reaches the frame that asked, cross-origin frames included.

use super::script::AGENT_WORLD;
use crate::base::page_event::{PageCalls, PageEvent};
use crate::bridge::TabId;
use glib::translate::ToGlibPtr as _;
use glib::ObjectExt as _;
use glib::ToValue as _;
use javascriptcore::ValueExt as _;
use serde_json::json;
use webkit2gtk::ffi::{
    webkit_script_message_reply_ref, webkit_script_message_reply_return_value,
    webkit_script_message_reply_unref, WebKitScriptMessageReply,
};
use webkit2gtk::{
    LoadEvent, UserContentInjectedFrames, UserContentManagerExt as _, UserScript,
    UserScriptInjectionTime, WebView, WebViewExt as _,
};

/// The message handler's name, as the bridge calls it.
const HANDLER: &str = "sovereignNostr";
const PROVIDER: &str = include_str!("../../assets/nostr-provider.js");
const BRIDGE: &str = include_str!("../../assets/nostr-bridge.js");

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
            bridge: UserScript::for_world(
                BRIDGE,
                UserContentInjectedFrames::AllFrames,
                UserScriptInjectionTime::Start,
                AGENT_WORLD,
                &[],
                &[],
            ),
        }
    }
}

impl Default for NostrScripts {
    fn default() -> Self {
        Self::new()
    }
}

/// A reply WebKit lent us; answered at most once, released when dropped.
struct Reply(*mut WebKitScriptMessageReply);

impl Reply {
    fn answer(self, message: &javascriptcore::Value, text: &str) {
        if let Some(context) = message.context() {
            let value = javascriptcore::Value::new_string(&context, Some(text));
            // SAFETY: self.0 holds a reference taken in `install`.
            unsafe { webkit_script_message_reply_return_value(self.0, value.to_glib_none().0) };
        }
    }
}

impl Drop for Reply {
    fn drop(&mut self) {
        // SAFETY: releases the reference taken in `install`; WebKit rejects
        // the page's promise if it was never answered.
        unsafe { webkit_script_message_reply_unref(self.0) };
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
    manager.register_script_message_handler_with_reply(HANDLER, AGENT_WORLD);
    let calls = calls.clone();
    let signal = format!("script-message-with-reply-received::{HANDLER}");
    manager.connect_local(&signal, false, move |values| {
        let handled = (|| {
            let message = values.get(1)?.get::<javascriptcore::Value>().ok()?;
            // SAFETY: the third argument is the WebKitScriptMessageReply
            // boxed value; we take our own reference to keep it past the signal.
            let reply = unsafe {
                let raw = glib::gobject_ffi::g_value_get_boxed(values.get(2)?.to_glib_none().0);
                if raw.is_null() {
                    return None;
                }
                Reply(webkit_script_message_reply_ref(raw as *mut _))
            };
            let text = if message.is_string() {
                message.to_str().to_string()
            } else {
                String::new()
            };
            let (tx, rx) = tokio::sync::oneshot::channel();
            let sent = calls
                .send(PageEvent::Call {
                    text,
                    tab,
                    reply: tx,
                })
                .is_ok();
            glib::MainContext::default().spawn_local(async move {
                let answer = match rx.await {
                    Ok(answer) if sent => answer,
                    _ => json!({"ok": false, "error": "Sovereign Browser: the request could not be handled"})
                        .to_string(),
                };
                reply.answer(&message, &answer);
            });
            Some(())
        })();
        Some(handled.is_some().to_value())
    });
}
