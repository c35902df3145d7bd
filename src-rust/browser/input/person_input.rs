//! When the person last pressed a key or a button in one of this
//! program's windows. Agents' input never goes through the X server (it is
//! handed to GTK as GDK events, or, for a drag, to XTEST, which counts as
//! a person's: the safe side), so a raw key or button press the server
//! sends this program is the person's. A copy made near such a press may
//! be the person's, and never counts as an agent's (see `clipboard`).

use super::x11;
use std::cell::Cell;
use x11_dl::{xinput2, xlib};

/// The person's presses as the X server reports them, watched by a GDK
/// filter for as long as this lives (the browser's [`super::seat::Seat`]
/// holds it for the program's life).
pub struct PersonInput {
    /// What the filter writes: boxed, so its address (the filter's data)
    /// stays put while this moves.
    heard: Box<Heard>,
    /// Whether the filter is installed (an X11 display was there).
    filtering: bool,
}

struct Heard {
    /// Monotonic µs of the last raw key or button press; 0 for none yet.
    last_press: Cell<i64>,
    /// The XInput extension's major opcode (its events are generic
    /// ones); -1 without it.
    xinput: i32,
}

impl PersonInput {
    /// Starts watching `display`'s input (on the main thread). Without an
    /// X11 display nothing is watched, and callers assume the person.
    pub fn watch(display: Option<&gdk::Display>) -> PersonInput {
        let mut heard = Box::new(Heard {
            last_press: Cell::new(0),
            xinput: -1,
        });
        let found = display.and_then(|d| Some((x11::libraries()?, x11::xdisplay(d)?)));
        let Some((libraries, xdisplay)) = found else {
            return PersonInput {
                heard,
                filtering: false,
            };
        };
        let (mut opcode, mut event, mut error) = (0, 0, 0);
        // SAFETY: a live X display and a NUL-terminated name.
        let has_xinput = unsafe {
            (libraries.xlib.XQueryExtension)(
                xdisplay,
                c"XInputExtension".as_ptr(),
                &mut opcode,
                &mut event,
                &mut error,
            ) != 0
        };
        if has_xinput {
            heard.xinput = opcode;
        }
        // SAFETY: a filter for every window (null) whose data is the boxed
        // `Heard`, which outlives it: `drop` removes the filter before the
        // box goes. The filter only reads the event.
        unsafe {
            gdk_sys::gdk_window_add_filter(std::ptr::null_mut(), Some(filter), heard.data());
        }
        PersonInput {
            heard,
            filtering: true,
        }
    }

    /// Monotonic µs of the person's last key or button press here (0: none).
    pub fn last_press(&self) -> i64 {
        self.heard.last_press.get()
    }

    /// Whether the server reports input to us that this can see; when not,
    /// nothing can be told apart and callers must assume the person.
    pub fn watched(&self) -> bool {
        self.filtering
    }
}

impl Heard {
    fn data(&self) -> glib::ffi::gpointer {
        self as *const Heard as glib::ffi::gpointer
    }
}

impl Drop for PersonInput {
    fn drop(&mut self) {
        if self.filtering {
            // SAFETY: the filter and data `watch` added (removing one that
            // is gone does nothing); after this GDK never calls it with
            // the box about to be freed.
            unsafe {
                gdk_sys::gdk_window_remove_filter(
                    std::ptr::null_mut(),
                    Some(filter),
                    self.heard.data(),
                );
            }
        }
    }
}

/// GDK's filter: `data` is the live `Heard` of a `PersonInput` (see `watch`).
unsafe extern "C" fn filter(
    xevent: *mut gdk_sys::GdkXEvent,
    _event: *mut gdk_sys::GdkEvent,
    data: glib::ffi::gpointer,
) -> gdk_sys::GdkFilterReturn {
    // SAFETY: GDK hands every filter a live XEvent; for a generic event it
    // has read the cookie's header (extension, evtype) already. `data` is
    // the box `watch` registered, alive until the filter is removed.
    let (event, heard) = (&*(xevent as *const xlib::XEvent), &*(data as *const Heard));
    let pressed = match event.get_type() {
        xlib::KeyPress | xlib::ButtonPress => true,
        xlib::GenericEvent => {
            let cookie = &event.generic_event_cookie;
            cookie.extension == heard.xinput
                && matches!(
                    cookie.evtype,
                    xinput2::XI_KeyPress | xinput2::XI_ButtonPress | xinput2::XI_TouchBegin
                )
        }
        _ => false,
    };
    if pressed {
        heard.last_press.set(glib::monotonic_time());
    }
    gdk_sys::GDK_FILTER_CONTINUE
}

#[cfg(test)]
pub(crate) mod ffi_edges {
    use super::*;

    pub fn run(display: &gdk::Display) {
        let person = PersonInput::watch(Some(display));
        assert!(person.watched(), "X11 input is watched");
        // Without a display nothing is watched, and nothing breaks.
        let blind = PersonInput::watch(None);
        assert!(!blind.watched() && blind.last_press() == 0);
        drop(blind);
        // A second watcher has a filter of its own; dropping it leaves the
        // first one's.
        let second = PersonInput::watch(Some(display));
        drop(second);
        let before = person.last_press();
        // SAFETY: each event is a whole XEvent the filter only reads, and
        // the data is the live watcher's.
        let heard = |event: &mut xlib::XEvent| unsafe {
            filter(
                (event as *mut xlib::XEvent).cast(),
                std::ptr::null_mut(),
                person.heard.data(),
            )
        };
        let mut motion = xlib::XEvent {
            type_: xlib::MotionNotify,
        };
        assert_eq!(heard(&mut motion), gdk_sys::GDK_FILTER_CONTINUE);
        // A generic event of another extension is nobody's press.
        let mut generic = xlib::XEvent {
            generic_event_cookie: xlib::XGenericEventCookie {
                type_: xlib::GenericEvent,
                serial: 0,
                send_event: 0,
                display: std::ptr::null_mut(),
                extension: -7,
                evtype: xinput2::XI_KeyPress,
                cookie: 0,
                data: std::ptr::null_mut(),
            },
        };
        assert_eq!(heard(&mut generic), gdk_sys::GDK_FILTER_CONTINUE);
        assert_eq!(person.last_press(), before, "neither is a press");
        let mut key = xlib::XEvent {
            type_: xlib::KeyPress,
        };
        heard(&mut key);
        assert!(person.last_press() > before, "a key press is the person's");
    }
}
