//! Script message handlers whose posts get an answer: a script in the
//! agent's isolated world posts text and awaits the browser's reply. WebKit
//! lends the reply object with the signal; it is answered at most once and
//! released when dropped (WebKit then rejects the post if nobody answered).

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
