//! The X server behind GDK, for the two things GDK has no word for: the
//! stacking of every window on the screen (where a real pointer lands) and
//! the raw input events the server sends this program (the person's keys
//! and clicks, as opposed to the events agents hand to GTK). libX11 and
//! libXtst are loaded at run time; without them, or on a display that is
//! not X11, these answer `None`.

use glib::translate::ToGlibPtr;
use std::sync::OnceLock;
use x11_dl::xlib::{Display, Xlib};
use x11_dl::xtest::Xf86vmode as XTest;

pub(super) struct Libraries {
    pub(super) xlib: Xlib,
    pub(crate) xtest: XTest,
}

extern "C" {
    // From libgdk-3, which the program links anyway. Main thread only, on
    // a live display; the X display returned is the GdkDisplay's (not ours
    // to close), alive as long as it is.
    fn gdk_x11_display_get_xdisplay(display: *mut gdk_sys::GdkDisplay) -> *mut Display;
    fn gdk_x11_display_get_type() -> glib::ffi::GType;
    // Traps the X errors of the requests between push and pop (GDK's own
    // handler would otherwise end the program on one). Pops must match
    // pushes, on the same display; pop_ignored syncs with the server first.
    fn gdk_x11_display_error_trap_push(display: *mut gdk_sys::GdkDisplay);
    fn gdk_x11_display_error_trap_pop_ignored(display: *mut gdk_sys::GdkDisplay);
}

pub(super) fn libraries() -> Option<&'static Libraries> {
    static LIBRARIES: OnceLock<Option<Libraries>> = OnceLock::new();
    LIBRARIES
        .get_or_init(|| {
            Some(Libraries {
                xlib: Xlib::open().ok()?,
                xtest: XTest::open().ok()?,
            })
        })
        .as_ref()
}

/// The X display a GDK display wraps, when it is an X11 one.
pub(super) fn xdisplay(display: &gdk::Display) -> Option<*mut Display> {
    let raw: *mut gdk_sys::GdkDisplay = display.to_glib_none().0;
    // SAFETY: a type check on a live GObject, then the X display it wraps.
    unsafe {
        let is_x11 = glib::gobject_ffi::g_type_check_instance_is_a(
            raw as *mut glib::gobject_ffi::GTypeInstance,
            gdk_x11_display_get_type(),
        ) != 0;
        is_x11.then(|| gdk_x11_display_get_xdisplay(raw))
    }
}

/// Runs `requests` with X errors trapped and ignored: a window that is
/// gone by the time the server reads a request about it (another
/// program's, closed meanwhile) costs that answer, not the program. GDK's
/// handler ends the program on an X error nobody trapped.
pub(super) fn trapping_errors<T>(display: &gdk::Display, requests: impl FnOnce() -> T) -> T {
    let raw: *mut gdk_sys::GdkDisplay = display.to_glib_none().0;
    // SAFETY: a live X11 display (callers reached it through `xdisplay`);
    // the push is matched by the pop below on the same display and thread.
    unsafe { gdk_x11_display_error_trap_push(raw) };
    let result = requests();
    // SAFETY: as above.
    unsafe { gdk_x11_display_error_trap_pop_ignored(raw) };
    result
}

#[cfg(test)]
pub(crate) mod ffi_edges {
    use super::*;

    pub fn run(display: &gdk::Display) {
        let first = libraries().expect("libX11 and libXtst load") as *const Libraries;
        let again = libraries().expect("a second call") as *const Libraries;
        assert_eq!(first, again, "loaded once");
        let xdisplay = xdisplay(display).expect("an X11 display");
        assert!(!xdisplay.is_null());
        let x11 = libraries().expect("loaded");
        // A window that never was: the server answers BadWindow, which GDK
        // would end the program on; trapped, the request just fails.
        let status = trapping_errors(display, || {
            let mut a: x11_dl::xlib::XWindowAttributes = unsafe { std::mem::zeroed() };
            // SAFETY: a live X display; the attributes are written or left.
            unsafe { (x11.xlib.XGetWindowAttributes)(xdisplay, 0x1ff_ffff, &mut a) }
        });
        assert_eq!(status, 0, "no attributes of a window that never was");
        // Traps nest, and the display works on after them.
        let nested = trapping_errors(display, || trapping_errors(display, || 7));
        assert_eq!(nested, 7);
        display.sync();
    }
}
