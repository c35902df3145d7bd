//! Script message handlers whose posts get an answer: a script in the
//! agent's isolated world posts text and awaits the browser's reply. WebKit
//! lends the reply object with the signal; it is answered at most once and
//! released when dropped (WebKit then settles the post with `undefined` if
//! nobody answered: the page's scripts read that as no answer).

use glib::translate::ToGlibPtr as _;
use glib::ObjectExt as _;
use glib::ToValue as _;
use javascriptcore::ValueExt as _;
use webkit2gtk::ffi::{
    webkit_script_message_reply_ref, webkit_script_message_reply_return_value,
    webkit_script_message_reply_unref, WebKitScriptMessageReply,
};
use webkit2gtk::{UserContentManager, UserContentManagerExt as _};

/// Where the answer to one post goes.
pub struct Answer {
    message: javascriptcore::Value,
    reply: Reply,
}

impl Answer {
    /// Resolves the post with `text`.
    pub fn send(self, text: &str) {
        if let Some(context) = self.message.context() {
            let value = javascriptcore::Value::new_string(&context, Some(text));
            // SAFETY: self.reply.0 holds a reference taken in `listen`.
            unsafe {
                webkit_script_message_reply_return_value(self.reply.0, value.to_glib_none().0)
            };
        }
    }
}

/// A reply WebKit lent us, released when dropped.
struct Reply(*mut WebKitScriptMessageReply);

impl Drop for Reply {
    fn drop(&mut self) {
        // SAFETY: releases the reference taken in `listen`.
        unsafe { webkit_script_message_reply_unref(self.0) };
    }
}

/// Registers handler `name` in `world` and calls `handle` with each post's
/// text (empty when not a string) and where its answer goes.
pub fn listen(
    manager: &UserContentManager,
    name: &str,
    world: &str,
    handle: impl Fn(String, Answer) + 'static,
) {
    manager.register_script_message_handler_with_reply(name, world);
    let signal = format!("script-message-with-reply-received::{name}");
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
            handle(text, Answer { message, reply });
            Some(())
        })();
        Some(handled.is_some().to_value())
    });
}

#[cfg(test)]
pub(crate) mod ffi_edges {
    use super::*;
    use crate::browser::webkit::ffi_harness::{shown_view, spin_until};
    use gtk::prelude::GtkWindowExt as _;
    use std::cell::RefCell;
    use std::rc::Rc;
    use std::time::Duration;
    use webkit2gtk::WebViewExt as _;

    const WORLD: &str = "edges";

    /// What a post from the page's `world` settled as, read back.
    fn post(view: &webkit2gtk::WebView, what: &str) -> String {
        let script = format!(
            "window.webkit.messageHandlers.edge.postMessage({what}).then((v) => document.title = 'resolved:' + v, (e) => document.title = 'rejected')"
        );
        view.evaluate_javascript(
            &script,
            Some(WORLD),
            None,
            None::<&gio::Cancellable>,
            |_| {},
        );
        let mut title = String::new();
        spin_until(Duration::from_secs(10), || {
            title = view.title().map(|t| t.to_string()).unwrap_or_default();
            title.starts_with("resolved") || title == "rejected"
        });
        view.evaluate_javascript(
            "document.title = ''",
            Some(WORLD),
            None,
            None::<&gio::Cancellable>,
            |_| {},
        );
        spin_until(Duration::from_secs(5), || {
            view.title().is_none_or(|t| t.is_empty())
        });
        title
    }

    pub fn run() {
        let (window, view) = shown_view("<title></title>");
        let manager = view.user_content_manager().expect("a content manager");
        let kept: Rc<RefCell<Vec<Answer>>> = Rc::default();
        let held = kept.clone();
        listen(&manager, "edge", WORLD, move |text, answer| {
            match text.as_str() {
                "keep" => held.borrow_mut().push(answer),
                "drop" => drop(answer),
                other => answer.send(&format!("[{other}]")),
            }
        });
        assert_eq!(post(&view, "'hi'"), "resolved:[hi]");
        assert_eq!(post(&view, "42"), "resolved:[]", "not a string: empty text");
        assert_eq!(post(&view, "''"), "resolved:[]");
        assert_eq!(
            post(&view, "'drop'"),
            "resolved:undefined",
            "an answer dropped unsent settles as no answer"
        );
        // Answered after the view is gone: WebKit's reply outlives the page.
        view.evaluate_javascript(
            "window.webkit.messageHandlers.edge.postMessage('keep')",
            Some(WORLD),
            None,
            None::<&gio::Cancellable>,
            |_| {},
        );
        assert!(
            spin_until(Duration::from_secs(10), || !kept.borrow().is_empty()),
            "the post arrives"
        );
        window.close();
        drop(view);
        spin_until(Duration::from_millis(200), || false);
        for answer in kept.borrow_mut().drain(..) {
            answer.send("too late");
        }
        spin_until(Duration::from_millis(200), || false);
    }
}
