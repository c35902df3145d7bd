//! The browser-wide budget of what pages make the browser keep: the bytes
//! of every tab's network entries and of every tab's console entries. Each
//! log has its own bounds (entries and bytes per tab); past the budget of
//! all tabs together, the oldest entry of any tab goes, counted in that
//! tab's `dropped`. Entries are numbered in one sequence across tabs, so
//! "oldest" means the same in every log. Main thread only.

use std::cell::{Cell, RefCell};
use std::rc::{Rc, Weak};

/// Bytes of network entries (URLs, headers, the rest) of all tabs.
pub const NETWORK_BYTES: usize = 32 << 20;
/// Bytes of console and error entries of all tabs.
pub const CONSOLE_BYTES: usize = 16 << 20;

/// A log the budget can shrink.
pub trait Budgeted {
    /// The bytes its entries hold (as counted when kept).
    fn bytes(&self) -> usize;
    /// The sequence number of its oldest entry.
    fn oldest(&self) -> Option<u64>;
    /// Drops its oldest entry, counted.
    fn drop_oldest(&self);
}

thread_local! {
    /// Every tab's network log and console log, while the tab lives.
    static NETWORK: RefCell<Vec<Weak<dyn Budgeted>>> = const { RefCell::new(Vec::new()) };
    static CONSOLE: RefCell<Vec<Weak<dyn Budgeted>>> = const { RefCell::new(Vec::new()) };
    static SEQUENCE: Cell<u64> = const { Cell::new(0) };
}

/// The next number of the one sequence of kept entries.
pub fn next() -> u64 {
    SEQUENCE.with(|s| {
        s.set(s.get() + 1);
        s.get()
    })
}

/// Counts a tab's two logs in the budget from now on (until they are gone).
pub fn register(network: &Rc<impl Budgeted + 'static>, console: &Rc<impl Budgeted + 'static>) {
    keep(&NETWORK, network.clone());
    keep(&CONSOLE, console.clone());
}

fn keep(
    pool: &'static std::thread::LocalKey<RefCell<Vec<Weak<dyn Budgeted>>>>,
    log: Rc<dyn Budgeted>,
) {
    pool.with(|logs| {
        let mut logs = logs.borrow_mut();
        logs.retain(|l| l.strong_count() > 0);
        logs.push(Rc::downgrade(&log));
    });
}

/// After a tab's network log grew: keeps all tabs' within the budget.
pub fn settle_network() {
    settle_pool(&NETWORK, NETWORK_BYTES);
}

/// After a tab's console log grew: keeps all tabs' within the budget.
pub fn settle_console() {
    settle_pool(&CONSOLE, CONSOLE_BYTES);
}

fn settle_pool(pool: &'static std::thread::LocalKey<RefCell<Vec<Weak<dyn Budgeted>>>>, max: usize) {
    let logs: Vec<Rc<dyn Budgeted>> =
        pool.with(|logs| logs.borrow().iter().filter_map(Weak::upgrade).collect());
    let logs: Vec<&dyn Budgeted> = logs.iter().map(|l| l.as_ref()).collect();
    settle(&logs, max);
}

/// Drops the oldest entries of `logs` until they hold at most `max` bytes.
pub fn settle(logs: &[&dyn Budgeted], max: usize) {
    let mut total: usize = logs.iter().map(|l| l.bytes()).sum();
    while total > max {
        let Some((seq, oldest)) = logs
            .iter()
            .filter_map(|l| l.oldest().map(|seq| (seq, l)))
            .min_by_key(|(seq, _)| *seq)
        else {
            return;
        };
        let before = oldest.bytes();
        oldest.drop_oldest();
        if oldest.oldest() == Some(seq) {
            return; // nothing went: never loop
        }
        total = (total - before) + oldest.bytes();
    }
}
