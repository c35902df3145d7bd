//! What the FFI edge cases (`ffi_edges`) stand on: a GLib loop turned
//! until something holds, and web views of their own, shown or not.

use gtk::prelude::*;
use std::time::{Duration, Instant};
use webkit2gtk::{WebView, WebViewExt as _};
/// Turns GLib's default context until `done` holds; false when `limit`
/// passed first.
pub fn spin_until(limit: Duration, mut done: impl FnMut() -> bool) -> bool {
    let end = Instant::now() + limit;
    let context = glib::MainContext::default();
    while !done() {
        if Instant::now() > end {
            return false;
        }
        if !context.iteration(false) {
            std::thread::sleep(Duration::from_millis(2));
        }
    }
    true
}

/// A web view of its own ephemeral context (never WebKit's default one,
/// which the process would release at exit, from another thread than the
/// one that used WebKit: WebKit aborts on that).
pub fn new_view() -> WebView {
    WebView::with_context(&webkit2gtk::WebContext::new_ephemeral())
}

/// A mapped window holding one web view with `html` loaded.
pub fn shown_view(html: &str) -> (gtk::Window, WebView) {
    let window = gtk::Window::new(gtk::WindowType::Toplevel);
    window.set_default_size(400, 300);
    let view = new_view();
    window.add(&view);
    window.show_all();
    let loaded = std::rc::Rc::new(std::cell::Cell::new(false));
    let seen = loaded.clone();
    view.connect_load_changed(move |_, event| {
        if event == webkit2gtk::LoadEvent::Finished {
            seen.set(true);
        }
    });
    view.load_html(html, Some("http://127.0.0.1/"));
    assert!(
        spin_until(Duration::from_secs(20), || loaded.get()
            && view.window().is_some_and(|w| w.is_viewable())),
        "the view loads and shows"
    );
    (window, view)
}

/// A display of the test's own: an Xvfb that reports its number once it
/// accepts clients, and ends when dropped (nothing secret is ever shown on
/// it, so it asks no authority cookie).
pub struct TestDisplay {
    child: std::process::Child,
    pub name: String,
}

impl TestDisplay {
    pub fn start() -> TestDisplay {
        use std::io::Read as _;
        let mut child = std::process::Command::new("Xvfb")
            .args([
                "-displayfd",
                "1",
                "-nolisten",
                "tcp",
                "-screen",
                "0",
                "1024x768x24",
            ])
            .stdin(std::process::Stdio::null())
            .stdout(std::process::Stdio::piped())
            .stderr(std::process::Stdio::null())
            .spawn()
            .expect("Xvfb (the xvfb package)");
        let mut out = child.stdout.take().expect("piped");
        let mut number = String::new();
        let mut byte = [0u8; 1];
        while out.read(&mut byte).unwrap_or(0) == 1 && byte[0] != b'\n' {
            number.push(byte[0] as char);
        }
        assert!(!number.trim().is_empty(), "Xvfb reported its display");
        TestDisplay {
            child,
            name: format!(":{}", number.trim()),
        }
    }
}

impl Drop for TestDisplay {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}
