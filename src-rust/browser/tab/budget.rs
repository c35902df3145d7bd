//! The browser-wide budget of what pages make the browser keep: the bytes
//! of every tab's network entries and of every tab's console entries. Each
//! log has its own bounds (entries and bytes per tab); past the budget of
//! all tabs together, the oldest entry of any tab goes, counted in that
//! tab's `dropped`. Entries are numbered in one sequence across tabs, so
//! "oldest" means the same in every log. Main thread only: the browser
//! owns the [`Budget`] and hands it to each tab's logs.

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

/// The browser's budget: every tab's two logs, counted while they live,
/// and the one sequence their entries are numbered in. The browser owns
/// one; each log holds it (a log made alone, as in tests, has its own).
#[derive(Default)]
pub struct Budget {
    network: Pool,
    console: Pool,
    sequence: Cell<u64>,
}

/// The logs of one kind the budget counts.
type Pool = RefCell<Vec<Weak<dyn Budgeted>>>;

impl Budget {
    /// The next number of the one sequence of kept entries.
    pub fn next(&self) -> u64 {
        self.sequence.set(self.sequence.get() + 1);
        self.sequence.get()
    }

    /// Counts a tab's network log from now on (until it is gone).
    pub fn count_network(&self, log: Rc<dyn Budgeted>) {
        keep(&self.network, log);
    }

    /// Counts a tab's console log from now on (until it is gone).
    pub fn count_console(&self, log: Rc<dyn Budgeted>) {
        keep(&self.console, log);
    }

    /// After a tab's network log grew: keeps all tabs' within the budget.
    pub fn settle_network(&self) {
        settle_pool(&self.network, NETWORK_BYTES);
    }

    /// After a tab's console log grew: keeps all tabs' within the budget.
    pub fn settle_console(&self) {
        settle_pool(&self.console, CONSOLE_BYTES);
    }
}

fn keep(pool: &Pool, log: Rc<dyn Budgeted>) {
    let mut logs = pool.borrow_mut();
    logs.retain(|l| l.strong_count() > 0);
    logs.push(Rc::downgrade(&log));
}

fn settle_pool(pool: &Pool, max: usize) {
    let logs: Vec<Rc<dyn Budgeted>> = pool.borrow().iter().filter_map(Weak::upgrade).collect();
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

#[cfg(test)]
mod tests {
    use super::*;

    /// A log of entries of `size` bytes, numbered in a budget's sequence.
    #[derive(Default)]
    struct Log {
        entries: RefCell<std::collections::VecDeque<u64>>,
        size: usize,
    }

    impl Budgeted for Log {
        fn bytes(&self) -> usize {
            self.entries.borrow().len() * self.size
        }
        fn oldest(&self) -> Option<u64> {
            self.entries.borrow().front().copied()
        }
        fn drop_oldest(&self) {
            self.entries.borrow_mut().pop_front();
        }
    }

    fn counted(budget: &Budget, size: usize) -> Rc<Log> {
        let log = Rc::new(Log {
            size,
            ..Log::default()
        });
        budget.count_network(log.clone());
        log
    }

    #[test]
    fn entries_are_numbered_in_one_sequence_and_the_oldest_of_any_tab_goes() {
        let budget = Budget::default();
        let per = NETWORK_BYTES / 4;
        let (a, b) = (counted(&budget, per), counted(&budget, per));
        for log in [&a, &b, &a, &b, &a] {
            log.entries.borrow_mut().push_back(budget.next());
        }
        assert_eq!(*a.entries.borrow(), [1, 3, 5]);
        budget.settle_network();
        // Five entries of a quarter each: the oldest (a's 1) went.
        assert_eq!(*a.entries.borrow(), [3, 5]);
        assert_eq!(*b.entries.borrow(), [2, 4]);
        // The console's budget is another.
        budget.settle_console();
        assert_eq!(a.entries.borrow().len() + b.entries.borrow().len(), 4);
    }

    #[test]
    fn a_closed_tabs_log_is_no_longer_counted() {
        let budget = Budget::default();
        let per = NETWORK_BYTES / 2;
        let gone = counted(&budget, per);
        gone.entries
            .borrow_mut()
            .extend([budget.next(), budget.next()]);
        drop(gone);
        let kept = counted(&budget, per);
        kept.entries
            .borrow_mut()
            .extend([budget.next(), budget.next()]);
        budget.settle_network();
        assert_eq!(*kept.entries.borrow(), [3, 4], "within the budget alone");
        assert_eq!(
            budget.network.borrow().len(),
            1,
            "the closed tab's log forgotten"
        );
    }

    #[test]
    fn two_budgets_share_nothing() {
        let (one, other) = (Budget::default(), Budget::default());
        assert_eq!((one.next(), one.next(), other.next()), (1, 2, 1));
    }
}
