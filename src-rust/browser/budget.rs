//! The browser-wide budget of what pages make the browser keep: the bytes
//! of every tab's network entries and of every tab's console entries. Each
//! log has its own bounds (entries and bytes per tab); past the budget of
//! all tabs together, the oldest entry of any tab goes, counted in that
//! tab's `dropped`. Entries are numbered in one sequence across tabs, so
//! "oldest" means the same in every log. Main thread only.

use super::tab::TabState;
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
    static TABS: RefCell<Vec<Weak<TabState>>> = const { RefCell::new(Vec::new()) };
    static SEQUENCE: Cell<u64> = const { Cell::new(0) };
}

/// The next number of the one sequence of kept entries.
pub fn next() -> u64 {
    SEQUENCE.with(|s| {
        s.set(s.get() + 1);
        s.get()
    })
}

/// Counts `state`'s logs in the budget from now on (until the tab is gone).
pub fn register(state: &Rc<TabState>) {
    TABS.with(|tabs| {
        let mut tabs = tabs.borrow_mut();
        tabs.retain(|t| t.strong_count() > 0);
        tabs.push(Rc::downgrade(state));
    });
}

/// After a tab's network log grew: keeps all tabs' within the budget.
pub fn settle_network() {
    settle_tabs(|t| &t.requests, NETWORK_BYTES);
}

/// After a tab's console log grew: keeps all tabs' within the budget.
pub fn settle_console() {
    settle_tabs(|t| &t.console, CONSOLE_BYTES);
}

fn settle_tabs<L: Budgeted>(log: impl Fn(&TabState) -> &L, max: usize) {
    let tabs: Vec<Rc<TabState>> =
        TABS.with(|tabs| tabs.borrow().iter().filter_map(Weak::upgrade).collect());
    let logs: Vec<&dyn Budgeted> = tabs.iter().map(|t| log(t) as &dyn Budgeted).collect();
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
