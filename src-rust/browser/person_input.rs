//! When the person last pressed a key or a button in one of this
//! program's windows. Agents' input never goes through the X server (it is
//! handed to GTK as GDK events, or, for a drag, to XTEST, which counts as
//! a person's: the safe side), so a raw key or button press the server
//! sends this program is the person's. A copy made near such a press may
//! be the person's, and never counts as an agent's (see `clipboard`).

use super::x11;
use std::cell::Cell;
use x11_dl::{xinput2, xlib};

thread_local! {
    /// Monotonic µs of the last raw key or button press; 0 for none yet.
    static LAST_PRESS: Cell<i64> = const { Cell::new(0) };
    /// The XInput extension's major opcode (its events are generic ones).
    static XINPUT: Cell<i32> = const { Cell::new(-1) };
}

/// Monotonic µs of the person's last key or button press here (0: none).
pub fn last_press() -> i64 {
    LAST_PRESS.with(Cell::get)
}

/// Whether the server reports input to us that this module can see; when
/// not, nothing can be told apart and callers must assume the person.
pub fn watched() -> bool {
    WATCHED.with(Cell::get)
}

thread_local! {
    static WATCHED: Cell<bool> = const { Cell::new(false) };
}

/// Starts watching (at start-up, on the main thread; a second call adds
/// no second filter).
pub fn watch(display: &gdk::Display) {
    if watched() {
        return;
    }
    let (Some(libraries), Some(xdisplay)) = (x11::libraries(), x11::xdisplay(display)) else {
        return;
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
        XINPUT.with(|x| x.set(opcode));
    }
    // SAFETY: a filter for every window (null), which only reads the event
    // and lives as long as the program.
    unsafe {
        gdk_sys::gdk_window_add_filter(std::ptr::null_mut(), Some(filter), std::ptr::null_mut());
    }
    WATCHED.with(|w| w.set(true));
}

unsafe extern "C" fn filter(
    xevent: *mut gdk_sys::GdkXEvent,
    _event: *mut gdk_sys::GdkEvent,
    _data: glib::ffi::gpointer,
) -> gdk_sys::GdkFilterReturn {
    // SAFETY: GDK hands every filter a live XEvent; for a generic event it
    // has read the cookie's header (extension, evtype) already.
    let event = &*(xevent as *const xlib::XEvent);
    let pressed = match event.get_type() {
        xlib::KeyPress | xlib::ButtonPress => true,
        xlib::GenericEvent => {
            let cookie = &event.generic_event_cookie;
            cookie.extension == XINPUT.with(Cell::get)
                && matches!(
                    cookie.evtype,
                    xinput2::XI_KeyPress | xinput2::XI_ButtonPress | xinput2::XI_TouchBegin
                )
        }
        _ => false,
    };
    if pressed {
        LAST_PRESS.with(|t| t.set(glib::monotonic_time()));
    }
    gdk_sys::GDK_FILTER_CONTINUE
}

#[cfg(test)]
pub(super) mod ffi_edges {
    use super::*;

    pub fn run(display: &gdk::Display) {
        watch(display);
        assert!(watched(), "X11 input is watched");
        // A second call adds no second filter (and changes nothing).
        watch(display);
        let before = last_press();
        // SAFETY: each event is a whole XEvent the filter only reads.
        let heard = |event: &mut xlib::XEvent| unsafe {
            filter(
                (event as *mut xlib::XEvent).cast(),
                std::ptr::null_mut(),
                std::ptr::null_mut(),
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
        assert_eq!(last_press(), before, "neither is a press");
        let mut key = xlib::XEvent {
            type_: xlib::KeyPress,
        };
        heard(&mut key);
        assert!(last_press() > before, "a key press is the person's");
    }
}
