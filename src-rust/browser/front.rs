//! Trusted input goes to the tab in front: a mapped, allocated view. The
//! command answers once the page has handled every event it sent.

use super::{clipboard, delivery, input, SharedBrowser};
use crate::base::error::{ErrorCode, ToolError};
use crate::base::tab::TabId;
use crate::bridge::{Output, Reply};
use serde_json::Value;
use std::time::Duration;
use webkit2gtk::WebViewExt as _;

/// [`with_front_tab`] for a key chord, refused before anything happens
/// when it does not parse.
pub(super) fn with_chord(
    browser: &SharedBrowser,
    tab: TabId,
    combo: &str,
    reply: Reply,
    action: impl FnOnce(&webkit2gtk::WebView, &input::Chord) -> Result<Value, ToolError> + 'static,
) {
    match input::parse_chord(combo) {
        Ok(chord) => with_front_tab(browser, tab, reply, move |view| action(view, &chord)),
        Err(error) => {
            let _ = reply.send(Err(error));
        }
    }
}

/// Runs trusted input on a tab, bringing it to the front first (input needs
/// a mapped, allocated view; give GTK a moment to lay it out), and answers
/// once the page has handled every event the input sent.
pub(super) fn with_front_tab(
    browser: &SharedBrowser,
    tab: TabId,
    reply: Reply,
    action: impl FnOnce(&webkit2gtk::WebView) -> Result<Value, ToolError> + 'static,
) {
    let (view, state, was_front) = {
        let mut b = browser.borrow_mut();
        let (view, state) = match b.tab(tab) {
            Ok(t) => (t.webkit.clone(), t.state.clone()),
            Err(e) => {
                let _ = reply.send(Err(e));
                return;
            }
        };
        if let Some(error) = b.tab(tab).ok().and_then(|t| t.state.blocked()) {
            let _ = reply.send(Err(error));
            return;
        }
        let was_front = b.front.get() == tab;
        if !was_front {
            // Input would bring this tab to the front, over the one the
            // person works in for an agent.
            if let Some(message) = b.chrome.ask_waiting(b.front.get()) {
                let _ = reply.send(Err(ToolError::new(
                    ErrorCode::Paused,
                    format!("the person is working in the tab in front for an agent (\"{message}\"); input on another tab would take it from them. Wait until they finish."),
                )));
                return;
            }
            b.show(tab);
        }
        (view, state, was_front)
    };
    // A tab's first blank page has no user scripts: give it the receipts.
    let blank = view.uri().is_none_or(|uri| uri == "about:blank");
    let target = view.clone();
    let run = move || {
        let (before, diverted) = (input::sent(), input::diverted());
        // A page's copy while it handles this input is the agents' to read.
        let copies = clipboard::mark();
        match action(&view) {
            Ok(value) => {
                // Input a popup took never reaches the page: wait for none.
                let sent = if input::diverted() == diverted {
                    input::sent().since(&before)
                } else {
                    Default::default()
                };
                delivery::after_input(&view, &state, sent, move |arrived| {
                    clipboard::attribute_since(copies, move || {
                        let answer = match arrived {
                            true => Ok(Output::Value(value)),
                            false => Err(not_received()),
                        };
                        let _ = reply.send(answer);
                    })
                });
            }
            Err(error) => {
                let _ = reply.send(Err(error));
            }
        }
    };
    // A key that would paste is checked against a copy the person just made.
    let run = move || clipboard::when_counted(run);
    let run: Box<dyn FnOnce()> = if blank {
        Box::new(move || delivery::ensure_listening(&target, run))
    } else {
        Box::new(run)
    };
    if was_front {
        run();
    } else {
        glib::timeout_add_local_once(Duration::from_millis(60), run);
    }
}

/// The input was sent but the page did not report it within the limit.
fn not_received() -> ToolError {
    ToolError::timeout(format!(
        "the page did not receive the input within {} s (it is busy, or something outside the page took it); it may still arrive: check the page before sending it again",
        delivery::LIMIT.as_secs()
    ))
}
