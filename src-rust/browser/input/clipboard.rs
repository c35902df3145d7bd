//! The GTK clipboard, read and written from the browser's side (pages
//! never read it: see the tabs' clipboard setting in `window`), and whose
//! text it holds.
//!
//! Agents read and paste only what agents put there: text written with
//! clipboard_write, copied with clipboard_copy, or copied by a page while it
//! handled an agent's input (a Copy button the agent clicked). What the
//! person copies, in this browser or in any other program, stays theirs: an
//! nsec, seed words, a bunker URL, the token from the panel's Copy buttons.
//! The same holds for the text the person last selected (X11's primary
//! selection), which a middle click pastes.
//!
//! GTK reports each change of a selection's owner (XFixes selection
//! notification). The browser counts them and notes the count when an agent
//! put the current text there; a change after that is someone else's. A
//! page's copy while it handles an agent's input is the agents' only when
//! the person pressed no key or button in this program's windows from a
//! few seconds before that input until the page had it (`person_input`):
//! however long a busy page makes the agent's action last, a copy the
//! person makes meanwhile in a tab, the address bar or the panel stays
//! theirs.

use super::person_input::PersonInput;
use crate::base::error::{ErrorCode, ToolError};
use crate::bridge::{Output, Reply};
use glib::prelude::ObjectExt as _;
use serde_json::json;
use std::cell::Cell;
use std::rc::{Rc, Weak};

/// The two X11 selections a paste takes text from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Selection {
    /// What Copy put there; Control+V pastes it.
    Clipboard,
    /// The text last selected; a middle click pastes it.
    Primary,
}

impl Selection {
    const BOTH: [Selection; 2] = [Selection::Clipboard, Selection::Primary];

    fn atom(self) -> gdk::Atom {
        match self {
            Selection::Clipboard => gdk::SELECTION_CLIPBOARD,
            Selection::Primary => gdk::SELECTION_PRIMARY,
        }
    }

    fn index(self) -> usize {
        self as usize
    }
}

/// Whose text each selection holds: owner changes counted from GTK's
/// reports, and the count at which agents put the text there. One for
/// the browser (the selections are the display's), owned by its
/// [`super::seat::Seat`]; only the main thread touches it.
pub struct Clipboards {
    /// Owner changes of each selection seen since the browser started.
    changes: [Cell<u64>; 2],
    /// The count at which agents put each selection's text there.
    agents_at: [Cell<Option<u64>>; 2],
    /// Whether the display reports owner changes (without that, nothing an
    /// agent reads can be told from what the person copied).
    watched: bool,
    /// When the person last pressed a key or button here.
    person: PersonInput,
    /// The owner-change handlers, disconnected when this goes.
    handlers: Vec<(gtk::Clipboard, glib::SignalHandlerId)>,
}

impl Clipboards {
    /// Starts counting the selections' owner changes (at start-up, on the
    /// main thread).
    pub fn watch() -> Rc<Clipboards> {
        let display = gdk::Display::default();
        let watched = display
            .as_ref()
            .is_some_and(|d| d.supports_selection_notification());
        if !watched {
            tracing::warn!(
                "the display does not report clipboard changes: agents cannot read or paste the clipboard"
            );
        }
        let person = PersonInput::watch(display.as_ref().filter(|_| watched));
        Rc::new_cyclic(|me: &Weak<Clipboards>| {
            let handlers = Selection::BOTH
                .into_iter()
                .filter(|_| watched)
                .map(|selection| {
                    let me = me.clone();
                    let clipboard = gtk::Clipboard::get(&selection.atom());
                    // gtk-rs binds no owner-change handler (its event type):
                    // connect by name.
                    let id = clipboard.connect_local("owner-change", false, move |_| {
                        if let Some(me) = me.upgrade() {
                            let count = &me.changes[selection.index()];
                            count.set(count.get() + 1);
                        }
                        None
                    });
                    (clipboard, id)
                })
                .collect();
            Clipboards {
                changes: Default::default(),
                agents_at: Default::default(),
                watched,
                person,
                handlers,
            }
        })
    }

    fn changes(&self, selection: Selection) -> u64 {
        self.changes[selection.index()].get()
    }

    /// Where the counts stand before an agent's action that may copy or
    /// select, and when it began (monotonic µs).
    pub fn mark(&self) -> Mark {
        Mark {
            counts: Selection::BOTH.map(|s| self.changes(s)),
            at: glib::monotonic_time(),
        }
    }

    /// Whether the person may have made a copy during an action begun at
    /// `mark`.
    fn person_pressed_since(&self, mark: Mark) -> bool {
        !self.person.watched() || self.person.last_press() >= mark.at - PERSON_PRESS_REACH_US
    }

    /// Whether the selection holds what agents put there, and nothing since.
    pub fn agents_own(&self, selection: Selection) -> bool {
        self.watched && self.agents_at[selection.index()].get() == Some(self.changes(selection))
    }

    /// After an agent's action that began at `mark`: a selection this
    /// process took over meanwhile (a page's copy or selection, the agent's
    /// own write) is the agents'. Then calls `then`.
    pub fn attribute_since(self: &Rc<Self>, mark: Mark, then: impl FnOnce() + 'static) {
        self.attribute(mark, true, then)
    }

    /// `attribute_since` for `clipboard_write`, whose text the browser
    /// itself put there just now: the person's keys do not make it theirs.
    fn attribute_write(self: &Rc<Self>, mark: Mark, then: impl FnOnce() + 'static) {
        self.attribute(mark, false, then)
    }

    fn attribute(
        self: &Rc<Self>,
        mark: Mark,
        ask_person_input: bool,
        then: impl FnOnce() + 'static,
    ) {
        if !self.watched {
            then();
            return;
        }
        let me = self.clone();
        when_counted(move || {
            let person = ask_person_input && me.person_pressed_since(mark);
            for selection in Selection::BOTH {
                let now = me.changes(selection);
                let ours = gdk::selection_owner_get(&selection.atom()).is_some();
                if now != mark.counts[selection.index()] && ours {
                    if person {
                        tracing::debug!(?selection, "a copy during an agent's input, with the person's keys or clicks near it: the person's");
                        continue;
                    }
                    me.agents_at[selection.index()].set(Some(now));
                }
            }
            then();
        });
    }

    /// Whether an agent's middle click may go ahead: it pastes the primary
    /// selection, so only when that holds nothing, or what agents selected.
    pub fn check_middle_click(self: &Rc<Self>, then: impl FnOnce(Result<(), ToolError>) + 'static) {
        let me = self.clone();
        when_counted(move || {
            if me.agents_own(Selection::Primary) {
                return then(Ok(()));
            }
            gtk::Clipboard::get(&gdk::SELECTION_PRIMARY).request_text(move |_, text| {
                then(match text {
                    Some(_) => Err(not_agents(Selection::Primary)),
                    None => Ok(()),
                })
            });
        });
    }

    /// Writes `text` to the clipboard for an agent, or reads what agents
    /// put there.
    pub fn run(self: &Rc<Self>, write: Option<String>, reply: Reply) {
        let clipboard = gtk::Clipboard::get(&gdk::SELECTION_CLIPBOARD);
        match write {
            Some(text) => {
                let mark = self.mark();
                clipboard.set_text(&text);
                let written = text.chars().count();
                self.attribute_write(mark, move || {
                    let _ = reply.send(Ok(Output::Value(json!({"written": written}))));
                });
            }
            None => {
                let me = self.clone();
                when_counted(move || {
                    if !me.agents_own(Selection::Clipboard) {
                        let _ = reply.send(Err(not_agents(Selection::Clipboard)));
                        return;
                    }
                    clipboard.request_text(move |_, text| {
                        // The person may have copied while the text was on
                        // its way (the change is reported before the text
                        // arrives).
                        let answer = match me.agents_own(Selection::Clipboard) {
                            true => Ok(Output::Value(json!({"text": text.map(|t| t.to_string())}))),
                            false => Err(not_agents(Selection::Clipboard)),
                        };
                        let _ = reply.send(answer);
                    })
                });
            }
        }
    }
}

impl Drop for Clipboards {
    fn drop(&mut self) {
        for (clipboard, id) in self.handlers.drain(..) {
            clipboard.disconnect(id);
        }
    }
}

/// Where the counts stand before an agent's action that may copy or select,
/// and when it began (monotonic µs).
#[derive(Debug, Clone, Copy)]
pub struct Mark {
    counts: [u64; 2],
    at: i64,
}

/// How long before an agent's action a press of the person's still makes a
/// copy theirs: the copy it causes reaches the clipboard later (through the
/// page's web process, which may be busy).
const PERSON_PRESS_REACH_US: i64 = 2_000_000;

/// The refusal when a selection holds what someone else put there.
pub fn not_agents(selection: Selection) -> ToolError {
    let what = match selection {
        Selection::Clipboard => "the clipboard holds what the person (or another program) copied",
        Selection::Primary => {
            "a middle click pastes the text the person last selected (the primary selection)"
        }
    };
    ToolError::new(
        ErrorCode::NotAllowed,
        format!(
            "{what}, which agents may not read or paste; agents reach only what they put there: \
             clipboard_write, clipboard_copy, or a page's copy or selection on their input"
        ),
    )
}

/// Calls `then` once the owner changes the X server made so far have been
/// counted: the server reports them as events, so sync with it and let GDK
/// dispatch what came in (an idle callback runs after pending events). A
/// copy the person made a moment ago is then known before a check.
pub fn when_counted(then: impl FnOnce() + 'static) {
    if let Some(display) = gdk::Display::default() {
        display.sync();
    }
    glib::idle_add_local_once(then);
}
