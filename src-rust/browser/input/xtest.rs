//! Real pointer events through the X server's XTEST extension, for the one
//! case synthesized GDK events cannot serve: HTML drag and drop, where
//! GTK's drag machinery follows the X pointer itself. libXtst and libX11
//! are loaded at run time; without them, or on a display that is not X11,
//! drags fall back to GDK events.
//!
//! The real pointer goes wherever the screen has a window at that point,
//! so each event is sent only after the X server has said that the
//! browser's own window is the topmost one there (the panel's window, a
//! menu or another program's window refuses it), with the server grabbed
//! from the check to the event so that no window can come between.

use super::trusted::not_ready;
use super::x11::{self, Libraries};
use crate::base::error::{ErrorCode, ToolError};
use glib::translate::ToGlibPtr;
use gtk::prelude::*;
use std::ffi::c_int;
use webkit2gtk::WebView;
use x11_dl::xlib::{self, Display};

extern "C" {
    // From libgdk-3, which the program links anyway.
    fn gdk_x11_window_get_xid(window: *mut gdk_sys::GdkWindow) -> xlib::Window;
    fn gdk_x11_window_lookup_for_display(
        display: *mut gdk_sys::GdkDisplay,
        window: xlib::Window,
    ) -> *mut gdk_sys::GdkWindow;
}

/// Moves the X pointer to (x, y) of the view and optionally presses
/// (`Some((button, true))`) or releases a button there.
pub fn pointer(
    view: &WebView,
    x: f64,
    y: f64,
    button: Option<(u32, bool)>,
) -> Result<(), ToolError> {
    let x11 = x11::libraries()
        .ok_or_else(|| not_ready("the XTEST library (libXtst.so.6) is not installed"))?;
    let widget = view.upcast_ref::<gtk::Widget>();
    let window = widget
        .window()
        .ok_or_else(|| not_ready("the tab is not shown yet"))?;
    let display = window.display();
    let raw: *mut gdk_sys::GdkDisplay = display.to_glib_none().0;
    let xdisplay =
        x11::xdisplay(&display).ok_or_else(|| not_ready("the display is not an X11 display"))?;
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
    let toplevel: *mut gdk_sys::GdkWindow = window.toplevel().to_glib_none().0;
    // SAFETY: the X display of a live GDK display and its live toplevel.
    // The server is grabbed from the check to the events, so no window is
    // mapped or raised between them; XSync before the ungrab makes sure
    // the events were processed while it held. A window gone before the
    // grab answers an error, trapped: it is then not ours, nothing is sent.
    let on_top = x11::trapping_errors(&display, || unsafe {
        let ours = gdk_x11_window_get_xid(toplevel);
        (x11.xlib.XGrabServer)(xdisplay);
        let on_top = topmost_at(x11, xdisplay, raw, ours, rx, ry);
        if on_top {
            (x11.xtest.XTestFakeMotionEvent)(xdisplay, -1, rx, ry, 0);
        }
        match button {
            Some((number, press)) if on_top => {
                (x11.xtest.XTestFakeButtonEvent)(xdisplay, number, c_int::from(press), 0);
            }
            // Never leave a button held: released where the pointer is,
            // on the page it was last allowed to reach.
            Some((number, false)) => {
                (x11.xtest.XTestFakeButtonEvent)(xdisplay, number, 0, 0);
            }
            _ => {}
        }
        (x11.xlib.XSync)(xdisplay, xlib::False);
        (x11.xlib.XUngrabServer)(xdisplay);
        on_top
    });
    display.flush();
    if !on_top {
        return Err(ToolError::new(
            ErrorCode::NotInteractable,
            format!(
                "({x}, {y}) of the page is covered on the screen by another window (the control panel's, a menu's or another program's): the real pointer a drag moves would land there, so nothing was sent"
            ),
        ));
    }
    Ok(())
}

/// Whether the browser's window `ours` is the topmost window at the root
/// point (x, y): the first viewable child of the root, from the top of the
/// stacking order, that holds the point is it (or the window manager's
/// frame around it). The icon GTK drags under the pointer is skipped: it
/// takes no input, and a drop goes to the window beneath it.
///
/// SAFETY: `xdisplay` is the live X display of `gdk_display`, `ours` a
/// window on it.
unsafe fn topmost_at(
    x11: &Libraries,
    xdisplay: *mut Display,
    gdk_display: *mut gdk_sys::GdkDisplay,
    ours: xlib::Window,
    x: i32,
    y: i32,
) -> bool {
    let root = (x11.xlib.XDefaultRootWindow)(xdisplay);
    let Some(ours) = child_of_root(x11, xdisplay, root, ours) else {
        return false;
    };
    let Some(stack) = children(x11, xdisplay, root) else {
        return false;
    };
    // Bottom to top: the topmost is last.
    for &window in stack.iter().rev() {
        let mut a: xlib::XWindowAttributes = std::mem::zeroed();
        if (x11.xlib.XGetWindowAttributes)(xdisplay, window, &mut a) == 0
            || a.map_state != xlib::IsViewable
        {
            continue;
        }
        let (w, h) = (a.width + 2 * a.border_width, a.height + 2 * a.border_width);
        if !(a.x..a.x + w).contains(&x) || !(a.y..a.y + h).contains(&y) {
            continue;
        }
        if is_own_drag_icon(gdk_display, window) {
            continue;
        }
        return window == ours;
    }
    false
}

/// The child of the root that holds `window` (itself, or a window
/// manager's frame around it).
unsafe fn child_of_root(
    x11: &Libraries,
    xdisplay: *mut Display,
    root: xlib::Window,
    mut window: xlib::Window,
) -> Option<xlib::Window> {
    // Nesting is shallow (root, frame, toplevel): a bound instead of trust.
    for _ in 0..16 {
        let (parent, _) = query_tree(x11, xdisplay, window)?;
        if parent == root {
            return Some(window);
        }
        window = parent;
    }
    None
}

/// The children of `window`, bottom of the stacking order first.
unsafe fn children(
    x11: &Libraries,
    xdisplay: *mut Display,
    window: xlib::Window,
) -> Option<Vec<xlib::Window>> {
    query_tree(x11, xdisplay, window).map(|(_, children)| children)
}

/// The parent of `window` and its children, bottom of the stacking order first.
unsafe fn query_tree(
    x11: &Libraries,
    xdisplay: *mut Display,
    window: xlib::Window,
) -> Option<(xlib::Window, Vec<xlib::Window>)> {
    let (mut root_return, mut parent) = (0, 0);
    let (mut list, mut count) = (std::ptr::null_mut(), 0);
    if (x11.xlib.XQueryTree)(
        xdisplay,
        window,
        &mut root_return,
        &mut parent,
        &mut list,
        &mut count,
    ) == 0
    {
        return None;
    }
    if list.is_null() {
        return Some((parent, Vec::new()));
    }
    let children = std::slice::from_raw_parts(list, count as usize).to_vec();
    (x11.xlib.XFree)(list.cast());
    Some((parent, children))
}

/// Whether the X window is this program's drag-and-drop icon.
unsafe fn is_own_drag_icon(gdk_display: *mut gdk_sys::GdkDisplay, window: xlib::Window) -> bool {
    let own = gdk_x11_window_lookup_for_display(gdk_display, window);
    !own.is_null() && gdk_sys::gdk_window_get_type_hint(own) == gdk_sys::GDK_WINDOW_TYPE_HINT_DND
}

#[cfg(test)]
pub(crate) mod ffi_edges {
    use super::*;
    use crate::browser::input::person_input::PersonInput;
    use crate::browser::webkit::ffi_harness::{shown_view, spin_until};
    use std::time::Duration;

    pub fn run() {
        let refused = |result: Result<(), ToolError>| {
            assert_eq!(
                result.expect_err("refused").code,
                ErrorCode::NotInteractable
            )
        };
        refused(pointer(
            &crate::browser::webkit::ffi_harness::new_view(),
            5.0,
            5.0,
            None,
        ));

        let display = gdk::Display::default().expect("display");
        let (window, view) = shown_view("<p>page</p>");
        window.move_(0, 0);
        let at_origin = || {
            view.window()
                .is_some_and(|w| (w.origin().1, w.origin().2) == (0, 0))
        };
        assert!(
            spin_until(Duration::from_secs(5), at_origin),
            "the page at the screen's corner"
        );
        // XTEST's press comes through the X server as a person's would:
        // the live watcher of the person's presses hears it, past the
        // filter of a watcher that is gone.
        let person = PersonInput::watch(Some(&display));
        drop(PersonInput::watch(Some(&display)));
        let before = person.last_press();
        pointer(&view, 20.0, 20.0, None).expect("the pointer moves over the page");
        pointer(&view, 20.0, 20.0, Some((1, true))).expect("a press");
        pointer(&view, 21.0, 21.0, Some((1, false))).expect("a release, again");
        assert!(
            spin_until(Duration::from_secs(5), || person.last_press() > before),
            "the press is heard as the person's"
        );
        for (x, y) in [(-1.0, 5.0), (5.0, -0.5), (1e9, 5.0), (f64::NAN, 5.0)] {
            refused(pointer(&view, x, y, None));
        }

        // Another window over the point: nothing is sent, a held button is let go.
        let cover = gtk::Window::new(gtk::WindowType::Toplevel);
        cover.set_default_size(200, 200);
        cover.move_(0, 0);
        cover.show_all();
        let on_top = || {
            let (_, x, y) = cover.window().map_or((0, -1, -1), |w| w.origin());
            cover.window().is_some_and(|w| w.is_viewable()) && (x, y) == (0, 0)
        };
        assert!(
            spin_until(Duration::from_secs(5), on_top),
            "the cover is shown"
        );
        let covered = pointer(&view, 20.0, 20.0, Some((1, false))).expect_err("covered");
        assert!(covered.message.contains("covered"), "{covered}");

        // The X tree of a window that never was: no answer, no end of the program.
        let x11 = x11::libraries().expect("X libraries");
        let xdisplay = x11::xdisplay(&display).expect("X11");
        // SAFETY: a live X display; errors are trapped.
        let tree = x11::trapping_errors(&display, || unsafe {
            query_tree(x11, xdisplay, 0x1ff_ffff)
        });
        assert!(tree.is_none());

        cover.close();
        window.close();
        assert!(spin_until(Duration::from_secs(5), || view
            .window()
            .is_none()));
        refused(pointer(&view, 20.0, 20.0, Some((1, false))));
    }
}
