//! Each page's memory, bounded: a web process whose resident memory passes
//! `--page-memory-mb` is ended, and its tabs say they ran out of memory,
//! before a page that allocates without end takes the machine's memory
//! (and the kernel picks what to kill, the browser perhaps).
//!
//! WebKit's own bound (the kill threshold of its memory pressure settings)
//! is off by default and set only where a WebKit context is made, which
//! wry does; and WebKit does not tell a view's process. So the web
//! extension has each new page tell its view which process it lives in
//! (`web-extension/process.c`), and the main thread reads those processes'
//! resident size from /proc once a second. A page cannot fool this into
//! harming anything but itself: the browser only ends the process of the
//! views that named it.
//!
//! Below that bound, what an agent's operations leave in a page's process
//! comes back as they go: as each one answers, the page is asked to collect
//! and return its free memory once it has grown enough (`ask_relief`,
//! `web-extension/relief.c`).

use crate::browser::tab::state::TabState;
use std::collections::HashMap;
use std::rc::Rc;
use std::time::Duration;
use webkit2gtk::{UserMessageExt as _, WebView, WebViewExt as _};

/// The message the extension sends each new page's view (process.c).
const PROCESS_MESSAGE: &str = "sovereign-process";
/// The message that asks a page's process to give back what an agent's
/// operation left (web-extension/relief.c).
const RELIEF_MESSAGE: &str = "sovereign-relief";

/// How often the processes are measured.
const EVERY: Duration = Duration::from_secs(1);

/// Hears which web process the tab's pages live in.
pub fn listen(view: &WebView, state: &Rc<TabState>) {
    let state = state.clone();
    view.connect_user_message_received(move |_, message| {
        if message.name().as_deref() != Some(PROCESS_MESSAGE) {
            return false;
        }
        if let Some(pid) = message.parameters().and_then(|p| p.get::<u32>()) {
            state.set_web_process(pid);
        }
        true
    });
}

/// Tells the tab's page that an agent's operation (a call of the agent
/// library, an eval) has answered: its process, done with it even when the
/// operation awaited (a script's fetches), collects the garbage and returns
/// free memory once it has grown enough since it last did
/// (web-extension/relief.c). Nothing waits for the answer; a process
/// without the extension does not answer.
pub fn ask_relief(view: &WebView) {
    view.send_message_to_page(
        &webkit2gtk::UserMessage::new(RELIEF_MESSAGE, None),
        None::<&gio::Cancellable>,
        |_| {},
    );
}

/// The tabs' pages as the watch sees them at a tick.
pub enum Pages {
    /// The browser is gone: the watch ends.
    Gone,
    /// The browser is busy (a command is being carried out): the next tick
    /// measures.
    Busy,
    /// Each tab's state and view.
    Live(Vec<(Rc<TabState>, WebView)>),
}

/// Measures the tabs' web processes once a second, for as long as `pages`
/// gives them, and ends those past `limit_mib`.
pub fn watch(limit_mib: u32, pages: impl Fn() -> Pages + 'static) {
    let limit = u64::from(limit_mib) << 20;
    glib::timeout_add_local(EVERY, move || {
        let tabs = match pages() {
            Pages::Gone => return glib::ControlFlow::Break,
            Pages::Busy => return glib::ControlFlow::Continue,
            Pages::Live(tabs) => tabs,
        };
        let live = tabs
            .into_iter()
            .filter(|(state, _)| state.crashed().is_none())
            .map(|(state, view)| (state.web_process(), (state, view)));
        // Ended once `pages` let go of the browser: the termination's
        // signals reach code that borrows it.
        for (state, view) in past_limit(live, limit, resident_bytes) {
            tracing::warn!(
                tab = state.id(),
                limit_mib,
                "a tab's web process passed the page memory bound and is ended"
            );
            state.passed_memory_bound();
            view.terminate_web_process();
        }
        glib::ControlFlow::Continue
    });
}

/// The pages (each with its process, when known) whose process holds more
/// than `limit` bytes; each process is measured once, as pages may share one.
fn past_limit<T>(
    pages: impl Iterator<Item = (Option<u32>, T)>,
    limit: u64,
    measure: impl Fn(u32) -> Option<u64>,
) -> Vec<T> {
    let mut sizes: HashMap<u32, Option<u64>> = HashMap::new();
    pages
        .filter(|(pid, _)| {
            pid.is_some_and(|pid| {
                sizes
                    .entry(pid)
                    .or_insert_with(|| measure(pid))
                    .is_some_and(|size| size > limit)
            })
        })
        .map(|(_, page)| page)
        .collect()
}

/// A process's resident memory (VmRSS), or None once it is gone.
pub fn resident_bytes(pid: u32) -> Option<u64> {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).ok()?;
    rss_of_status(&status)
}

fn rss_of_status(status: &str) -> Option<u64> {
    let line = status.lines().find(|l| l.starts_with("VmRSS:"))?;
    let kib: u64 = line
        .trim_start_matches("VmRSS:")
        .trim()
        .trim_end_matches("kB")
        .trim()
        .parse()
        .ok()?;
    Some(kib << 10)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn resident_size_is_read_from_the_status_and_a_gone_process_has_none() {
        let status =
            "Name:\tWebKitWebProces\nVmPeak:\t 9000 kB\nVmRSS:\t  204800 kB\nThreads:\t12\n";
        assert_eq!(rss_of_status(status), Some(200 << 20));
        assert_eq!(
            rss_of_status("Name:\tzombie\n"),
            None,
            "a zombie has no VmRSS"
        );
        assert_eq!(rss_of_status("VmRSS:\tlots kB\n"), None);
        assert!(resident_bytes(std::process::id()).is_some_and(|b| b > 0));
        assert_eq!(resident_bytes(u32::MAX), None);
    }

    #[test]
    fn only_pages_of_a_process_past_the_limit_are_ended_each_process_measured_once() {
        let measured = std::cell::RefCell::new(Vec::new());
        let measure = |pid: u32| {
            measured.borrow_mut().push(pid);
            match pid {
                10 => Some(900),
                20 => Some(100),
                _ => None,
            }
        };
        let pages = [
            (Some(10), "hog"),
            (Some(20), "calm"),
            (Some(10), "hog's sibling"),
            (None, "not yet told"),
            (Some(30), "gone"),
        ];
        let ended = past_limit(pages.into_iter(), 500, measure);
        assert_eq!(ended, ["hog", "hog's sibling"]);
        assert_eq!(*measured.borrow(), [10, 20, 30]);
        assert!(
            past_limit(pages.into_iter(), 900, |_| Some(900)).is_empty(),
            "at the limit is within it"
        );
    }
}

#[cfg(test)]
pub(crate) mod ffi_edges {
    use crate::browser::webkit::ffi_harness::{new_view, shown_view, spin_until};
    use gtk::prelude::GtkWindowExt as _;
    use std::cell::RefCell;
    use std::rc::Rc;
    use std::time::Duration;
    use webkit2gtk::{WebProcessTerminationReason, WebViewExt as _};

    /// `webkit_web_view_terminate_web_process` on a view with no page yet,
    /// twice on one (the second time its process is already gone), and on
    /// a view whose window is being torn down.
    pub fn run() {
        new_view().terminate_web_process();

        let (window, view) = shown_view("<title>alive</title>");
        let heard: Rc<RefCell<Vec<WebProcessTerminationReason>>> = Rc::default();
        let ends = heard.clone();
        view.connect_web_process_terminated(move |_, reason| ends.borrow_mut().push(reason));
        view.terminate_web_process();
        assert!(
            spin_until(Duration::from_secs(10), || !heard.borrow().is_empty()),
            "the end is heard"
        );
        view.terminate_web_process();
        spin_until(Duration::from_millis(300), || false);
        assert_eq!(
            *heard.borrow(),
            [WebProcessTerminationReason::TerminatedByApi],
            "one end, by the API, however often it is asked"
        );

        let (window_2, view_2) = shown_view("<title>going</title>");
        window_2.close();
        view_2.terminate_web_process();
        drop(view_2);
        window.close();
        drop(view);
        spin_until(Duration::from_millis(300), || false);
    }
}
