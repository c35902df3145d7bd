//! The GTK clipboard, read and written from the browser's side (pages
//! never read it: see the tabs' clipboard setting in `window`).

use crate::bridge::{Output, Reply};
use serde_json::json;

/// Writes `text` to the clipboard, or reads what it holds.
pub(super) fn run(write: Option<String>, reply: Reply) {
    let clipboard = gtk::Clipboard::get(&gdk::SELECTION_CLIPBOARD);
    match write {
        Some(text) => {
            clipboard.set_text(&text);
            let _ = reply.send(Ok(Output::Value(json!({"written": text.chars().count()}))));
        }
        None => clipboard.request_text(move |_, text| {
            let text = text.map(|t| t.to_string());
            let _ = reply.send(Ok(Output::Value(json!({"text": text}))));
        }),
    }
}
