//! Answering an input or editing command only once the page has it.
//!
//! `gtk::main_do_event` returns as soon as WebKit's UI process has queued
//! an event; the web process gets it later, one event at a time. So an
//! input command counts the events it sends by kind, and the agent's
//! isolated world in every frame (`assets/input-seen.js`) reports each
//! trusted event its document receives. The command answers once as many
//! of each kind arrived as it sent (pages cannot post these reports).
//!
//! Editing commands (copy, paste, insert) go to the web process in order
//! with script calls, so one script round trip after them proves the page
//! ran them, and that a copy reached the clipboard the UI process keeps.

use super::clipboard::{self, Selection};
use super::script::AGENT_WORLD;
use super::tab::TabState;
use crate::bridge::{Output, Reply};
use javascriptcore::ValueExt as _;
use std::cell::{Cell, RefCell};
use std::rc::Rc;
use std::time::Duration;
use webkit2gtk::{UserContentInjectedFrames, UserScript, UserScriptInjectionTime};
use webkit2gtk::{UserContentManager, UserContentManagerExt as _};
use webkit2gtk::{WebView, WebViewExt as _};

/// The message handler `input-seen.js` posts to.
const HANDLER: &str = "sovereignInput";
const SOURCE: &str = include_str!("../../assets/input-seen.js");

/// A page that takes longer than this to handle what it was sent (a page
/// script stuck in a loop), or that never gets an event (GTK gave it to a
/// popup menu), gets its answer anyway: no input command hangs.
pub const LIMIT: Duration = Duration::from_secs(3);

/// Kinds of trusted input event, as a page receives them.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    MouseMove,
    MouseDown,
    MouseUp,
    Wheel,
    KeyDown,
    KeyUp,
}

/// The event a page receives for each kind (see `input-seen.js`).
const KINDS: [(Kind, &str); 6] = [
    (Kind::MouseMove, "pointermove"),
    (Kind::MouseDown, "pointerdown"),
    (Kind::MouseUp, "pointerup"),
    (Kind::Wheel, "wheel"),
    (Kind::KeyDown, "keydown"),
    (Kind::KeyUp, "keyup"),
];

/// How many events of each kind: sent by agents, or received by a page.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Tally([u64; 6]);

impl Tally {
    pub const ZERO: Tally = Tally([0; 6]);
    /// A target no page reaches: for waits that only a release ends.
    const NEVER: Tally = Tally([u64::MAX; 6]);

    pub fn add(&mut self, kind: Kind) {
        self.0[kind as usize] += 1;
    }

    /// What `self` has beyond `earlier` (the events sent in between).
    pub fn since(&self, earlier: &Tally) -> Tally {
        Tally(std::array::from_fn(|i| self.0[i] - earlier.0[i]))
    }

    fn plus(&self, other: &Tally) -> Tally {
        Tally(std::array::from_fn(|i| self.0[i] + other.0[i]))
    }

    /// Whether every kind reached `target`.
    fn reached(&self, target: &Tally) -> bool {
        self.0.iter().zip(target.0.iter()).all(|(a, b)| a >= b)
    }

    /// Whether the page got the input of `sent`, `self` being what it
    /// received since: every key and wheel event as itself, and as many
    /// pointer events as were sent, whatever their kind (a page hears of a
    /// press as a move while it thinks another button is down).
    fn got_all(&self, sent: &Tally) -> bool {
        let n = |t: &Tally, kind: Kind| t.0[kind as usize];
        let pointer =
            |t: &Tally| n(t, Kind::MouseMove) + n(t, Kind::MouseDown) + n(t, Kind::MouseUp);
        pointer(self) >= pointer(sent)
            && [Kind::Wheel, Kind::KeyDown, Kind::KeyUp]
                .iter()
                .all(|&kind| n(self, kind) >= n(sent, kind))
    }

    fn is_empty(&self) -> bool {
        self.0.iter().all(|&n| n == 0)
    }
}

/// What to do once the page has what it was sent; called at most once.
type Done = Rc<RefCell<Option<Box<dyn FnOnce()>>>>;

/// The input one tab's pages received, and the commands waiting for theirs.
#[derive(Default)]
pub struct Receipts {
    seen: Cell<Tally>,
    waiting: RefCell<Vec<(Tally, Done)>>,
}

impl Receipts {
    fn received(&self, kind: Kind) {
        let mut seen = self.seen.get();
        seen.add(kind);
        self.seen.set(seen);
        let arrived: Vec<Done> = {
            let mut waiting = self.waiting.borrow_mut();
            let (arrived, still): (Vec<_>, Vec<_>) = waiting
                .drain(..)
                .partition(|(target, done)| seen.reached(target) || done.borrow().is_none());
            *waiting = still;
            arrived.into_iter().map(|(_, done)| done).collect()
        };
        arrived.iter().for_each(finish);
    }

    /// The page is blocked (a dialog) or gone (its process ended): nothing
    /// more will arrive, so nobody waits for it.
    pub fn release(&self) {
        let waiting: Vec<(Tally, Done)> = self.waiting.borrow_mut().drain(..).collect();
        waiting.iter().for_each(|(_, done)| finish(done));
    }
}

/// The receipts script for a tab's pages (every frame, the agent's world).
pub fn script() -> UserScript {
    UserScript::for_world(
        SOURCE,
        UserContentInjectedFrames::AllFrames,
        UserScriptInjectionTime::Start,
        AGENT_WORLD,
        &[],
        &[],
    )
}

/// Hears one tab's pages.
pub fn listen(manager: &UserContentManager, state: &Rc<TabState>) {
    manager.register_script_message_handler_in_world(HANDLER, AGENT_WORLD);
    let state = state.clone();
    manager.connect_script_message_received(Some(HANDLER), move |_, result| {
        let Some(value) = result.js_value().filter(|v| v.is_string()) else {
            return;
        };
        let name = value.to_str();
        if let Some((kind, _)) = KINDS.iter().find(|(_, n)| *n == name.as_str()) {
            state.input.received(*kind);
        }
    });
}

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
    let base = state.input.seen.get();
    let target = base.plus(&sent);
    state
        .input
        .waiting
        .borrow_mut()
        .push((target, done.clone()));
    let (id, input) = (state.id, state.input.clone());
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
        .input
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
pub fn edit(view: &WebView, command: &'static str, argument: Option<String>, reply: Reply) {
    let view = view.clone();
    clipboard::when_counted(move || {
        if command == "Paste" && !clipboard::agents_own(Selection::Clipboard) {
            let _ = reply.send(Err(clipboard::not_agents(Selection::Clipboard)));
            return;
        }
        let mark = clipboard::mark();
        match argument {
            Some(argument) => view.execute_editing_command_with_argument(command, &argument),
            None => view.execute_editing_command(command),
        }
        after_edit(&view, move || {
            clipboard::attribute_since(mark, move || {
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

fn finish(done: &Done) {
    let then = done.borrow_mut().take();
    if let Some(then) = then {
        then();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_tally_is_reached_kind_by_kind() {
        let mut sent = Tally::default();
        sent.add(Kind::MouseDown);
        sent.add(Kind::MouseUp);
        let target = Tally::default().plus(&sent);
        let mut seen = Tally::default();
        seen.add(Kind::MouseDown);
        seen.add(Kind::MouseMove);
        assert!(!seen.reached(&target), "the mouseup has not arrived");
        seen.add(Kind::MouseUp);
        assert!(seen.reached(&target));
        assert_eq!(seen.since(&Tally::default()), seen);
    }

    #[test]
    fn a_press_may_arrive_as_a_move_but_every_event_must_arrive() {
        let mut sent = Tally::default();
        sent.add(Kind::MouseMove);
        sent.add(Kind::MouseDown);
        let mut seen = Tally::default();
        seen.add(Kind::MouseMove);
        assert!(!seen.got_all(&sent), "the press has not arrived");
        seen.add(Kind::MouseMove);
        assert!(seen.got_all(&sent), "the press arrived as a move");
        assert!(!Tally::default().got_all(&sent), "nothing arrived");
        let mut keys = Tally::default();
        keys.add(Kind::KeyDown);
        keys.add(Kind::KeyUp);
        let mut down = Tally::default();
        down.add(Kind::KeyDown);
        assert!(!down.got_all(&keys), "the key's release is missing");
        assert!(keys.got_all(&keys));
    }
}
