//! The browser's calls into GTK, GDK, X11 and WebKit (docs/unsafe.md lists
//! each with the contract it relies on), held to their edges: nothing found
//! (empty lists, NULL out-values), objects already gone (a destroyed view
//! or window, an X window that never was), a second call, and a call that
//! comes while a view is torn down. Each module with such calls keeps its
//! cases in its own `ffi_edges`.
//!
//! The cases run in a process of their own, on a private Xvfb, all on the
//! one thread that set GTK up, as the browser's main thread is: GTK and
//! WebKit then share nothing with the other tests (nor the environment,
//! which is the child's from its start), and the thread that used WebKit
//! never ends (see `edges_in_a_process_of_their_own`).

use std::io::{BufRead as _, BufReader, Read as _};
use std::process::{Command, Stdio};
use std::sync::mpsc;
use std::time::Duration;

/// The line the child prints once every case held.
const HELD: &str = "ffi edges: every case held";
/// Set in the child's environment: only there do the cases run.
const CHILD: &str = "SOVEREIGN_FFI_EDGES_CHILD";
/// Far above the cases' own limits (each wait in them is bounded).
const LIMIT: Duration = Duration::from_secs(300);

#[test]
fn every_ffi_call_holds_on_its_edges() {
    let xvfb = super::webkit::ffi_harness::TestDisplay::start();
    let mut child = Command::new(std::env::current_exe().expect("the test binary"))
        .args([
            "browser::ffi_edges::edges_in_a_process_of_their_own",
            "--exact",
            "--ignored",
            "--nocapture",
            "--test-threads",
            "1",
        ])
        .env(CHILD, "1")
        .env("DISPLAY", &xvfb.name)
        .env("WEBKIT_DISABLE_DMABUF_RENDERER", "1")
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("the test binary runs again");

    let stdout = child.stdout.take().expect("piped");
    let (told, outcome) = mpsc::channel();
    std::thread::spawn(move || {
        let mut printed = Vec::new();
        for line in BufReader::new(stdout).lines().map_while(Result::ok) {
            // libtest's own "test … … " precedes it on the line.
            if line.ends_with(HELD) {
                let _ = told.send(Ok(()));
                return;
            }
            printed.push(line);
        }
        let _ = told.send(Err(printed.join("\n")));
    });
    let mut stderr = child.stderr.take().expect("piped");
    let errors = std::thread::spawn(move || {
        let mut text = String::new();
        let _ = stderr.read_to_string(&mut text);
        text
    });

    let outcome = outcome.recv_timeout(LIMIT);
    // The child parks once done; it ends here, whatever happened.
    let _ = child.kill();
    let _ = child.wait();
    let errors = errors.join().unwrap_or_default();
    drop(xvfb);
    match outcome {
        Ok(Ok(())) => {}
        Ok(Err(printed)) => panic!("an edge case failed:\n{printed}\n{errors}"),
        Err(_) => panic!("the edge cases did not end within {LIMIT:?}:\n{errors}"),
    }
}

/// The cases themselves, run only in the child that
/// `every_ffi_call_holds_on_its_edges` starts.
#[test]
#[ignore = "run in a process of its own by every_ffi_call_holds_on_its_edges"]
fn edges_in_a_process_of_their_own() {
    if std::env::var_os(CHILD).is_none() {
        println!("run by every_ffi_call_holds_on_its_edges, with a display of its own");
        return;
    }
    gtk::init().expect("GTK on the private display");
    let display = gdk::Display::default().expect("the display");

    super::input::x11::ffi_edges::run(&display);
    super::input::trusted::ffi_edges::run(&display);
    super::input::xtest::ffi_edges::run();
    super::input::person_input::ffi_edges::run(&display);
    super::network::cookies::ffi_edges::run();
    super::webkit::message_reply::ffi_edges::run();
    super::window::settings::ffi_edges::run();
    super::page::page_memory::ffi_edges::run();

    println!("{HELD}");
    // When the thread that used WebKit ends, WebKit tears its run loop down
    // and may wait there for a thread that is waiting for this one (seen:
    // a hang in RunLoop::threadWillExit). So this thread never ends: the
    // test that started the process ends it.
    loop {
        std::thread::park();
    }
}
