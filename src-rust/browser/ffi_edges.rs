//! The browser's calls into GTK, GDK, X11 and WebKit (docs/unsafe.md lists
//! each with the contract it relies on), held to their edges: nothing found
//! (empty lists, NULL out-values), objects already gone (a destroyed view
//! or window, an X window that never was), a second call, and a call that
//! comes while a view is torn down. One test, on a private Xvfb of its own,
//! all on the thread that set GTK up, as the browser's main thread is.
//! Each module with such calls keeps its cases in its own `ffi_edges`.

#[test]
fn every_ffi_call_holds_on_its_edges() {
    let xvfb = super::ffi_harness::TestDisplay::start();
    // Before GTK and WebKit start, on the one thread that uses them.
    std::env::set_var("DISPLAY", &xvfb.name);
    std::env::set_var("WEBKIT_DISABLE_DMABUF_RENDERER", "1");
    gtk::init().expect("GTK on the private display");
    let display = gdk::Display::default().expect("the display");

    super::x11::ffi_edges::run(&display);
    super::input::ffi_edges::run(&display);
    super::xtest::ffi_edges::run();
    super::person_input::ffi_edges::run(&display);
    super::cookies::ffi_edges::run();
    super::message_reply::ffi_edges::run();
    super::settings::ffi_edges::run();

    drop(xvfb);
}
