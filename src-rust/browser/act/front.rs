//! Trusted input goes to the tab in front: a mapped, allocated view. The
//! command answers once the page has handled every event it sent.
//!
//! A window has one front tab, and agents side by side in its tabs take
//! turns at it: a command's turn lasts from bringing its tab forward until
//! its page has its input, so no other agent's tab comes in front between.

use super::delivery;
use crate::base::caller::Principal;
use crate::base::error::{ErrorCode, ToolError};
use crate::base::tab::TabId;
use crate::bridge::{Output, Reply};
use crate::browser::input::clipboard::when_counted;
use crate::browser::input::trusted;
use crate::browser::input::trusted::Hands;
use crate::browser::tab::state::TabState;
use crate::browser::window::browser::SharedBrowser;
use crate::browser::window::context::Turn;
use crate::hold::Reach;
use serde_json::Value;
use std::rc::Rc;
use std::time::Duration;
use webkit2gtk::{WebView, WebViewExt as _};

/// [`with_front_tab`] for a key chord, refused before anything happens
/// when it does not parse.
pub(crate) fn with_chord(
    browser: &SharedBrowser,
    tab: TabId,
    combo: &str,
    reply: Reply,
    action: impl FnOnce(&webkit2gtk::WebView, &Hands, &trusted::Chord) -> Result<Value, ToolError>
        + 'static,
) {
    match trusted::parse_chord(combo) {
        Ok(chord) => with_front_tab(browser, tab, reply, move |view, hands| {
            action(view, hands, &chord)
        }),
        Err(error) => {
            let _ = reply.send(Err(error));
        }
    }
}

/// Runs trusted input on a tab, bringing it to the front first, and
/// answers once the page has handled every event it sent.
pub(crate) fn with_front_tab(
    browser: &SharedBrowser,
    tab: TabId,
    reply: Reply,
    action: impl FnOnce(&webkit2gtk::WebView, &Hands) -> Result<Value, ToolError> + 'static,
) {
    let forward = bring_forward(browser, tab);
    glib::MainContext::default().spawn_local(async move {
        let answer = match forward.await {
            // Its caller stopped waiting while it waited its turn: the
            // input is not sent late.
            Ok(_) if reply.is_closed() => return,
            Ok((view, state, turn)) => {
                let answer = deliver(view, state, action).await;
                drop(turn);
                answer
            }
            Err(error) => Err(error),
        };
        let _ = reply.send(answer.map(Output::Value));
    });
}

/// Waits for the window's turn, then brings a tab to the front for input
/// (input needs a mapped, allocated view: GTK is given a moment to lay out
/// one that was behind). Refused while the tab is blocked (a dialog), or
/// when it would take the front from a tab the person works in for an
/// agent. The front is the command's until it drops the [`Turn`].
pub(super) fn bring_forward(
    browser: &SharedBrowser,
    tab: TabId,
) -> impl std::future::Future<Output = Result<(WebView, Rc<TabState>, Turn), ToolError>> {
    let turns = browser
        .borrow()
        .context_of(tab)
        .map(|ctx| ctx.input_turn().clone());
    let browser = browser.clone();
    async move {
        let turn = turns?.lock_owned().await;
        // Checked when the turn comes: the tab may have closed meanwhile,
        // or a dialog opened.
        let (view, state, was_front) = show_for_input(&browser, tab)?;
        if !was_front {
            glib::timeout_future(LAYOUT_PAUSE).await;
        }
        Ok((view, state, turn))
    }
}

/// How long a tab brought to the front gets to be laid out before input.
const LAYOUT_PAUSE: Duration = Duration::from_millis(60);

fn show_for_input(
    browser: &SharedBrowser,
    tab: TabId,
) -> Result<(WebView, Rc<TabState>, bool), ToolError> {
    let mut b = browser.borrow_mut();
    let (view, state) = {
        let t = b.tab(tab)?;
        (t.webkit.clone(), t.state.clone())
    };
    if let Some(error) = state.blocked() {
        return Err(error);
    }
    // WebKit's password prompt lies over the page and would take the input.
    if let Some(site) = state.auth_prompt() {
        return Err(ToolError::new(
            ErrorCode::NotInteractable,
            format!("{site} asks for a user name and password in a prompt over the page (HTTP authentication); call set_credentials, then open the page again"),
        ));
    }
    let ctx = b.context_of(tab)?;
    let front = ctx.front();
    let was_front = front == tab;
    if !was_front {
        // Input would bring this tab to the front of its window, over the
        // one the person works in for an agent.
        ctx.chrome()
            .holds()
            .check(Principal::Agent, Reach::Front { front, to: tab })?;
        b.show(tab);
    }
    Ok((view, state, was_front))
}

/// Sends `action`'s input to a tab in front, and answers once the page has
/// handled every event it sent.
pub(crate) async fn deliver(
    view: WebView,
    state: Rc<TabState>,
    action: impl FnOnce(&WebView, &Hands) -> Result<Value, ToolError> + 'static,
) -> Result<Value, ToolError> {
    let (reply, answer) = tokio::sync::oneshot::channel();
    // A tab's first blank page has no user scripts: give it the receipts.
    let blank = view.uri().is_none_or(|uri| uri == "about:blank");
    let target = view.clone();
    let run = move || {
        let out = state.hands().seat();
        let (before, diverted) = (out.sent(), out.diverted());
        // A page's copy while it handles this input is the agents' to read.
        let clipboards = out.clipboards().clone();
        let copies = clipboards.mark();
        match action(&view, state.hands()) {
            Ok(value) => {
                // Input a popup took never reaches the page: wait for none.
                let sent = if out.diverted() == diverted {
                    out.sent().since(&before)
                } else {
                    Default::default()
                };
                delivery::after_input(&view, &state, sent, move |arrived| {
                    clipboards.attribute_since(copies, move || {
                        let _ = reply.send(if arrived {
                            Ok(value)
                        } else {
                            Err(not_received())
                        });
                    })
                });
            }
            Err(error) => {
                let _ = reply.send(Err(error));
            }
        }
    };
    // A key that would paste is checked against a copy the person just made.
    let run = move || when_counted(run);
    if blank {
        delivery::ensure_listening(&target, run);
    } else {
        run();
    }
    answer
        .await
        .unwrap_or_else(|_| Err(ToolError::internal("the input was dropped on its way")))
}

/// The input was sent but the page did not report it within the limit.
fn not_received() -> ToolError {
    ToolError::timeout(format!(
        "the page did not receive the input within {} s (it is busy, or something outside the page took it); it may still arrive: check the page before sending it again",
        delivery::LIMIT.as_secs()
    ))
}
