//! Work started in WebKit ends when its time is up. Each asynchronous call
//! gets a cancellable that fires at the command's time limit: WebKit drops
//! the work and runs its callback with a cancellation, so no reply stays
//! parked and no callback waits for a caller who has gone.

use gio::prelude::CancellableExt as _;
use std::sync::{Arc, Mutex};
use std::time::Duration;

pub struct Expiry {
    cancellable: gio::Cancellable,
    /// The timer, until it fires or the work ends first. (Shared as
    /// `Send`: some WebKit bindings want their callbacks `Send`.)
    timer: Arc<Mutex<Option<glib::SourceId>>>,
}

impl Expiry {
    /// A cancellable that fires after `limit`. Keep the expiry in the
    /// work's callback: dropping it there stops the timer.
    pub fn after(limit: Duration) -> Expiry {
        Expiry::then(limit, || {})
    }

    /// The same, and `expired` runs when the time is up first. WebKit
    /// checks the cancellable only once the page answers, so work the page
    /// never finishes (a promise that never settles) is answered here.
    pub fn then(limit: Duration, expired: impl FnOnce() + 'static) -> Expiry {
        let cancellable = gio::Cancellable::new();
        let timer = Arc::new(Mutex::new(None));
        let (fire, fired) = (cancellable.clone(), timer.clone());
        let id = glib::timeout_add_local_once(limit, move || {
            // The source ends with this call: it must not be removed again.
            take(&fired);
            fire.cancel();
            expired();
        });
        *timer.lock().unwrap_or_else(|e| e.into_inner()) = Some(id);
        Expiry { cancellable, timer }
    }

    pub fn cancellable(&self) -> &gio::Cancellable {
        &self.cancellable
    }
}

impl Drop for Expiry {
    fn drop(&mut self) {
        if let Some(id) = take(&self.timer) {
            id.remove();
        }
    }
}

fn take(timer: &Mutex<Option<glib::SourceId>>) -> Option<glib::SourceId> {
    timer.lock().unwrap_or_else(|e| e.into_inner()).take()
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::cell::Cell;
    use std::rc::Rc;

    /// Runs `body` owning the default main context, where GLib's timers
    /// go; one test at a time, since a context has one owner.
    fn on_own_context(body: impl FnOnce(&glib::MainContext)) {
        static ONE_AT_A_TIME: Mutex<()> = Mutex::new(());
        let _turn = ONE_AT_A_TIME.lock().unwrap_or_else(|e| e.into_inner());
        let context = glib::MainContext::default();
        let _owned = context.acquire().expect("no other thread owns it");
        body(&context);
    }

    #[test]
    fn an_expiry_cancels_and_runs_its_end_once() {
        on_own_context(|context| {
            let fired = Rc::new(Cell::new(0));
            let count = fired.clone();
            let expiry = Expiry::then(Duration::from_millis(5), move || count.set(count.get() + 1));
            while fired.get() == 0 {
                context.iteration(true);
            }
            assert!(expiry.cancellable().is_cancelled());
            // Dropping it after it fired removes nothing twice.
            drop(expiry);
            assert_eq!(fired.get(), 1);
        });
    }

    #[test]
    fn work_that_ends_first_stops_the_timer() {
        on_own_context(|context| {
            let fired = Rc::new(Cell::new(false));
            let flag = fired.clone();
            let expiry = Expiry::then(Duration::from_millis(1), move || flag.set(true));
            let cancellable = expiry.cancellable().clone();
            drop(expiry);
            // A later timer: by the time it runs, the first would have fired.
            let later = Rc::new(Cell::new(false));
            let done = later.clone();
            glib::timeout_add_local_once(Duration::from_millis(20), move || done.set(true));
            while !later.get() {
                context.iteration(true);
            }
            assert!(!fired.get());
            assert!(!cancellable.is_cancelled());
        });
    }
}
