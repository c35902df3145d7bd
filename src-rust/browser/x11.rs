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
    pub(super) xtest: XTest,
}

extern "C" {
    // From libgdk-3, which the program links anyway.
    fn gdk_x11_display_get_xdisplay(display: *mut gdk_sys::GdkDisplay) -> *mut Display;
    fn gdk_x11_display_get_type() -> glib::ffi::GType;
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
