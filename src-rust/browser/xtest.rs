//! Real pointer events through the X server's XTEST extension, for the one
//! case synthesized GDK events cannot serve: HTML drag and drop, where
//! GTK's drag machinery follows the X pointer itself. libXtst is loaded at
//! run time; without it, or on a display that is not X11, drags fall back
//! to GDK events.

use super::input::not_ready;
use crate::base::error::{ErrorCode, ToolError};
use glib::translate::ToGlibPtr;
use gtk::prelude::*;
use std::ffi::{c_int, c_uint, c_ulong, c_void, CStr};
use std::sync::OnceLock;
use webkit2gtk::WebView;

type FakeMotion = unsafe extern "C" fn(*mut c_void, c_int, c_int, c_int, c_ulong) -> c_int;
type FakeButton = unsafe extern "C" fn(*mut c_void, c_uint, c_int, c_ulong) -> c_int;

struct XTest {
    motion: FakeMotion,
    button: FakeButton,
}

extern "C" {
    // From libgdk-3, which the program links anyway.
    fn gdk_x11_display_get_xdisplay(display: *mut gdk_sys::GdkDisplay) -> *mut c_void;
    fn gdk_x11_display_get_type() -> glib::ffi::GType;
}

fn library() -> Option<&'static XTest> {
    static LIBRARY: OnceLock<Option<XTest>> = OnceLock::new();
    LIBRARY.get_or_init(load).as_ref()
}

fn load() -> Option<XTest> {
    const NAME: &CStr = c"libXtst.so.6";
    // SAFETY: dlopen/dlsym with valid C strings; the library stays loaded
    // for the life of the process, so the function pointers stay valid.
    unsafe {
        let handle = libc::dlopen(NAME.as_ptr(), libc::RTLD_NOW | libc::RTLD_LOCAL);
        if handle.is_null() {
            return None;
        }
        let motion = libc::dlsym(handle, c"XTestFakeMotionEvent".as_ptr());
        let button = libc::dlsym(handle, c"XTestFakeButtonEvent".as_ptr());
        if motion.is_null() || button.is_null() {
            return None;
        }
        Some(XTest {
            motion: std::mem::transmute::<*mut c_void, FakeMotion>(motion),
            button: std::mem::transmute::<*mut c_void, FakeButton>(button),
        })
    }
}

/// Moves the X pointer to (x, y) of the view and optionally presses
/// (`Some((button, true))`) or releases a button there.
pub fn pointer(
    view: &WebView,
    x: f64,
    y: f64,
    button: Option<(u32, bool)>,
) -> Result<(), ToolError> {
    let xtest =
        library().ok_or_else(|| not_ready("the XTEST library (libXtst.so.6) is not installed"))?;
    let widget = view.upcast_ref::<gtk::Widget>();
    let window = widget
        .window()
        .ok_or_else(|| not_ready("the tab is not shown yet"))?;
    let display = window.display();
    let raw: *mut gdk_sys::GdkDisplay = display.to_glib_none().0;
    // SAFETY: a type check on a live GObject, then the X display it wraps.
    let xdisplay = unsafe {
        let is_x11 = glib::gobject_ffi::g_type_check_instance_is_a(
            raw as *mut glib::gobject_ffi::GTypeInstance,
            gdk_x11_display_get_type(),
        ) != 0;
        if !is_x11 {
            return Err(not_ready("the display is not an X11 display"));
        }
        gdk_x11_display_get_xdisplay(raw)
    };
    let (dx, dy) = if widget.has_window() {
        (0, 0)
    } else {
        let a = widget.allocation();
        (a.x(), a.y())
    };
    // The real pointer could reach the window's own controls (the bar
    // where the person answers an agent): keep it on the page.
    let size = widget.allocation();
    if !(0.0..f64::from(size.width())).contains(&x) || !(0.0..f64::from(size.height())).contains(&y)
    {
        return Err(ToolError::new(
            ErrorCode::NotInteractable,
            format!(
                "({x}, {y}) is outside the page's {}x{} viewport",
                size.width(),
                size.height()
            ),
        ));
    }
    let (_, ox, oy) = window.origin();
    let rx = ox + dx + x.round() as i32;
    let ry = oy + dy + y.round() as i32;
    // SAFETY: the X display of a live GDK display; XTEST only queues requests.
    unsafe {
        (xtest.motion)(xdisplay, -1, rx, ry, 0);
        if let Some((number, press)) = button {
            (xtest.button)(xdisplay, number, c_int::from(press), 0);
        }
    }
    display.flush();
    Ok(())
}
