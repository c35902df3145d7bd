//! The seat agents and the person share on this program's display: what
//! agents' input handed to GTK (counted, so an input answers once the page
//! has it), and whose text the clipboards hold. One for the browser, owned
//! by it and handed to each tab's hands and each window's chrome.

use super::clipboard::Clipboards;
use super::receipts::{Kind, Tally};
use gtk::prelude::*;
use std::cell::Cell;
use std::rc::Rc;

/// What agents' input has done on this program's display so far, and the
/// clipboards: the display's, not a tab's (GTK's grab, the windows' key
/// handlers, the selections). Only the main thread touches it.
pub struct Seat {
    /// The events handed to GTK, by the kind a page receives, for the
    /// element actions (`act` room) to wait until the page has them.
    sent: Cell<Tally>,
    /// How many events went to a popup (a `<select>`'s menu) that held
    /// GTK's grab when they were sent: the page never hears of those.
    diverted: Cell<u64>,
    /// Set while an agent's event is in `gtk::main_do_event`: the window
    /// then sees it first-hand, and must not take it for a shortcut.
    delivering: Cell<bool>,
    /// Until when (monotonic µs) a context menu belongs to an agent's
    /// right click.
    context_menu_until: Cell<i64>,
    /// Whose text each selection holds.
    clipboards: Rc<Clipboards>,
}

impl Seat {
    /// The seat of this program's display (at start-up, on the main
    /// thread): starts watching the clipboards and the person's presses.
    pub fn watch() -> Seat {
        Seat {
            sent: Cell::default(),
            diverted: Cell::default(),
            delivering: Cell::default(),
            context_menu_until: Cell::default(),
            clipboards: Clipboards::watch(),
        }
    }

    /// Whose text the clipboards hold.
    pub fn clipboards(&self) -> &Rc<Clipboards> {
        &self.clipboards
    }

    /// The running count of events agents handed to GTK.
    pub fn sent(&self) -> Tally {
        self.sent.get()
    }

    /// The running count of events a popup took from the page.
    pub fn diverted(&self) -> u64 {
        self.diverted.get()
    }

    /// Whether an agent's event is being handed to GTK right now (the
    /// window's key handlers ask, so that agents' keys never trigger its
    /// shortcuts).
    pub fn delivering(&self) -> bool {
        self.delivering.get()
    }

    /// Whether a context menu about to open comes from an agent: its right
    /// click, or its key (`Menu`, `Shift+F10`: the event that opens the
    /// menu is the agent's marked key, handed back by the page). It is not
    /// shown: a GTK menu would grab the pointer and keyboard, and its Paste
    /// would put the person's clipboard into the page. The page still got
    /// its event.
    pub fn context_menu_is_agents(&self, event: &gdk::Event) -> bool {
        let marked = event
            .state()
            .is_some_and(|state| state.bits() & AGENT_KEY_MARK != 0);
        marked || self.context_menu_until.get() > glib::monotonic_time()
    }

    pub(super) fn count(&self, kind: Kind) {
        let mut tally = self.sent.get();
        tally.add(kind);
        self.sent.set(tally);
    }

    pub(super) fn note_right_press(&self, button: u32) {
        if button == 3 {
            self.context_menu_until
                .set(glib::monotonic_time() + 1_000_000);
        }
    }

    /// Hands `event` to GTK and counts it; `held` is what was held down as
    /// it was sent.
    pub(super) fn dispatch(&self, mut event: gdk::Event, held: u32) {
        if popup_has_grab() {
            self.diverted.set(self.diverted.get() + 1);
        }
        // Agents' keys must not trigger the window's shortcuts (Ctrl+W...).
        self.delivering.set(true);
        gtk::main_do_event(&mut event);
        self.delivering.set(false);
        match event.event_type() {
            gdk::EventType::ButtonPress | gdk::EventType::DoubleButtonPress => {
                self.count(button_kind(&event, Kind::MouseDown, held))
            }
            // WebKit gives the right button's release to the context menu
            // its press opened, and the page hears nothing of it.
            gdk::EventType::ButtonRelease if event.button() != Some(3) => {
                self.count(button_kind(&event, Kind::MouseUp, held))
            }
            gdk::EventType::Scroll => self.count(Kind::Wheel),
            gdk::EventType::KeyPress => self.count(Kind::KeyDown),
            gdk::EventType::KeyRelease => self.count(Kind::KeyUp),
            _ => {}
        }
    }
}

/// Whether a popup window (a `<select>`'s menu) holds GTK's grab, so that
/// events handed to GTK now go there rather than to the page.
fn popup_has_grab() -> bool {
    gtk::grab_get_current()
        .and_then(|grab| grab.downcast::<gtk::Window>().ok())
        .is_some_and(|window| window.window_type() == gtk::WindowType::Popup)
}

/// A bit GDK reserves and never sets, put on every key event an agent
/// sends. WebKit hands a key the page did not use back to the window later,
/// as a copy of the event: the mark tells the window it is an agent's, which
/// goes to the page only and never to the window's shortcuts or widgets.
pub const AGENT_KEY_MARK: u32 = gdk_sys::GDK_MODIFIER_RESERVED_25_MASK;

pub(super) fn button_mask(button: u32) -> u32 {
    match button {
        2 => gdk_sys::GDK_BUTTON2_MASK,
        3 => gdk_sys::GDK_BUTTON3_MASK,
        _ => gdk_sys::GDK_BUTTON1_MASK,
    }
}

/// A page hears of a press as pointerdown and of a release as pointerup
/// only when no other button is down; otherwise as a pointermove.
fn button_kind(event: &gdk::Event, kind: Kind, held: u32) -> Kind {
    let this = event.button().map(button_mask).unwrap_or(0);
    let buttons = gdk_sys::GDK_BUTTON1_MASK | gdk_sys::GDK_BUTTON2_MASK | gdk_sys::GDK_BUTTON3_MASK;
    if held & buttons & !this != 0 {
        Kind::MouseMove
    } else {
        kind
    }
}
