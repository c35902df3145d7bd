//! Answering an input or editing command only once the page has it.
//!
//! `gtk::main_do_event` returns as soon as WebKit's UI process has queued
//! an event; the web process gets it later, one event at a time. So an
//! input command counts the events it sends by kind, and the tab's
//! [`crate::browser::input::receipts`] count what its pages received. The command answers
//! once as many of each kind arrived as it sent.
//!
//! Editing commands (copy, paste, insert) go to the web process in order
//! with script calls, so one script round trip after them proves the page
//! ran them, and that a copy reached the clipboard the UI process keeps.

use crate::bridge::{Output, Reply};
use crate::browser::input::clipboard::{self, Selection};
use crate::browser::input::receipts::{finish, Done, Tally, SOURCE};
use crate::browser::tab::state::TabState;
use crate::browser::webkit::agent_world::AGENT_WORLD;
use std::cell::{Cell, RefCell};
use std::rc::Rc;
use std::time::Duration;
use webkit2gtk::{WebView, WebViewExt as _};

/// A page that takes longer than this to handle what it was sent (a page
/// script stuck in a loop), or that never gets an event (GTK gave it to a
/// popup menu), gets its answer anyway: no input command hangs.
pub const LIMIT: Duration = Duration::from_secs(3);

/// Installs the receipts in the tab's main document when the user script
/// did not reach it (the first blank page of a tab), then calls `then`.
pub fn ensure_listening(view: &WebView, then: impl FnOnce() + 'static) {
    view.evaluate_javascript(
        SOURCE,
        Some(AGENT_WORLD),
        Some("sovereign-input-seen.js"),
        None::<&gio::Cancellable>,
        move |_| then(),
    );
}

/// Calls `done` once the tab's pages received the `sent` events just handed
/// to GTK and ran one task more, or once they cannot: a dialog opened by
/// one of them blocks the page, the web process ended, or [`LIMIT`] passed.
/// `done` hears whether the page got them: false only when [`LIMIT`] passed
/// before they all arrived (they went elsewhere, or the page is too busy to
/// take them; see [`Tally::got_all`]).
pub fn after_input(
    view: &WebView,
    state: &Rc<TabState>,
    sent: Tally,
    done: impl FnOnce(bool) + 'static,
) {
    let (view, turn_state) = (view.clone(), state.clone());
    let arrived = Rc::new(Cell::new(true));
    let heard = arrived.clone();
    let done: Done = Rc::new(RefCell::new(Some(Box::new(move || {
        after_turn(&view, &turn_state, move || done(heard.get()))
    }))));
    if sent.is_empty() || state.blocked().is_some() {
        finish(&done);
        return;
    }
    let base = state.receipts().seen.get();
    let target = base.plus(&sent);
    state
        .receipts()
        .waiting
        .borrow_mut()
        .push((target, done.clone()));
    let (id, input) = (state.id(), state.receipts().clone());
    glib::timeout_add_local_once(LIMIT, move || {
        if done.borrow().is_some() {
            tracing::debug!(
                tab = id,
                ?sent,
                received = ?input.seen.get().since(&base), "the page did not receive all the input in time"
            );
            arrived.set(input.seen.get().since(&base).got_all(&sent));
            finish(&done);
        }
    });
}

/// Calls `done` after one more task of the page's event loop: the events
/// just received have been dispatched with everything they cause at once
/// (a click after its pointerup, a form's submission), and a navigation
/// they asked for has reached WebKit's policy check, where the tab counts
/// it. A blocked page (a dialog, a crash) releases the wait.
fn after_turn(view: &WebView, state: &Rc<TabState>, done: impl FnOnce() + 'static) {
    let done: Done = Rc::new(RefCell::new(Some(Box::new(done))));
    if state.blocked().is_some() {
        finish(&done);
        return;
    }
    state
        .receipts()
        .waiting
        .borrow_mut()
        .push((Tally::NEVER, done.clone()));
    let turned = done.clone();
    view.call_async_javascript_function(
        "return new Promise(resolve => setTimeout(resolve, 0));",
        None,
        Some(AGENT_WORLD),
        None,
        None::<&gio::Cancellable>,
        // An error (the document went on the way) also means the task ran.
        move |_| finish(&turned),
    );
    glib::timeout_add_local_once(LIMIT, move || finish(&done));
}

/// Runs a WebKit editing command (copy, paste, insert text...) and answers
/// once the page ran it: a copy is then on the clipboard, and the agents'.
/// A paste gives the page only what agents put on the clipboard.
pub fn edit(
    view: &WebView,
    state: &TabState,
    command: &'static str,
    argument: Option<String>,
    reply: Reply,
) {
    let view = view.clone();
    let clipboards = state.hands().seat().clipboards().clone();
    clipboard::when_counted(move || {
        if command == "Paste" && !clipboards.agents_own(Selection::Clipboard) {
            let _ = reply.send(Err(clipboard::not_agents(Selection::Clipboard)));
            return;
        }
        let mark = clipboards.mark();
        match argument {
            Some(argument) => view.execute_editing_command_with_argument(command, &argument),
            None => view.execute_editing_command(command),
        }
        after_edit(&view, move || {
            clipboards.attribute_since(mark, move || {
                let _ = reply.send(Ok(Output::Value(serde_json::json!({}))));
            })
        });
    });
}

/// Calls `done` once the page ran the editing command just given to `view`.
pub fn after_edit(view: &WebView, done: impl FnOnce() + 'static) {
    view.call_async_javascript_function(
        "return 0;",
        None,
        Some(AGENT_WORLD),
        None,
        None::<&gio::Cancellable>,
        // An error (a document torn down on the way) still means the web
        // process got that far.
        move |_| done(),
    );
}
