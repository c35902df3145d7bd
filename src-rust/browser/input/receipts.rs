//! The input a tab's pages received: the agent's world in every frame
//! (`assets/input-seen.js`) reports each trusted event its document gets,
//! on a handler no page can post to. `delivery` waits on these receipts.

use crate::browser::webkit::agent_world;
use std::cell::{Cell, RefCell};
use std::rc::Rc;
use webkit2gtk::{UserContentManager, UserScript};

/// The message handler `input-seen.js` posts to.
const HANDLER: &str = "sovereignInput";
pub(crate) const SOURCE: &str = include_str!("../../../assets/input-seen.js");

/// Kinds of trusted input event, as a page receives them.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    MouseMove,
    MouseDown,
    MouseUp,
    Wheel,
    KeyDown,
    KeyUp,
}

/// The event a page receives for each kind (see `input-seen.js`).
const KINDS: [(Kind, &str); 6] = [
    (Kind::MouseMove, "pointermove"),
    (Kind::MouseDown, "pointerdown"),
    (Kind::MouseUp, "pointerup"),
    (Kind::Wheel, "wheel"),
    (Kind::KeyDown, "keydown"),
    (Kind::KeyUp, "keyup"),
];

/// How many events of each kind: sent by agents, or received by a page.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Tally([u64; 6]);

impl Tally {
    /// A target no page reaches: for waits that only a release ends.
    pub(crate) const NEVER: Tally = Tally([u64::MAX; 6]);

    pub fn add(&mut self, kind: Kind) {
        self.0[kind as usize] += 1;
    }

    /// What `self` has beyond `earlier` (the events sent in between).
    pub fn since(&self, earlier: &Tally) -> Tally {
        Tally(std::array::from_fn(|i| self.0[i] - earlier.0[i]))
    }

    pub(crate) fn plus(&self, other: &Tally) -> Tally {
        Tally(std::array::from_fn(|i| self.0[i] + other.0[i]))
    }

    /// Whether every kind reached `target`.
    pub(crate) fn reached(&self, target: &Tally) -> bool {
        self.0.iter().zip(target.0.iter()).all(|(a, b)| a >= b)
    }

    /// Whether the page got the input of `sent`, `self` being what it
    /// received since: every key and wheel event as itself, and as many
    /// pointer events as were sent, whatever their kind (a page hears of a
    /// press as a move while it thinks another button is down).
    pub(crate) fn got_all(&self, sent: &Tally) -> bool {
        let n = |t: &Tally, kind: Kind| t.0[kind as usize];
        let pointer =
            |t: &Tally| n(t, Kind::MouseMove) + n(t, Kind::MouseDown) + n(t, Kind::MouseUp);
        pointer(self) >= pointer(sent)
            && [Kind::Wheel, Kind::KeyDown, Kind::KeyUp]
                .iter()
                .all(|&kind| n(self, kind) >= n(sent, kind))
    }

    pub(crate) fn is_empty(&self) -> bool {
        self.0.iter().all(|&n| n == 0)
    }
}

/// What to do once the page has what it was sent; called at most once.
pub(crate) type Done = Rc<RefCell<Option<Box<dyn FnOnce()>>>>;

/// The input one tab's pages received, and the commands waiting for theirs.
#[derive(Default)]
pub struct Receipts {
    pub(crate) seen: Cell<Tally>,
    pub(crate) waiting: RefCell<Vec<(Tally, Done)>>,
}

impl Receipts {
    fn received(&self, kind: Kind) {
        let mut seen = self.seen.get();
        seen.add(kind);
        self.seen.set(seen);
        let arrived: Vec<Done> = {
            let mut waiting = self.waiting.borrow_mut();
            let (arrived, still): (Vec<_>, Vec<_>) = waiting
                .drain(..)
                .partition(|(target, done)| seen.reached(target) || done.borrow().is_none());
            *waiting = still;
            arrived.into_iter().map(|(_, done)| done).collect()
        };
        arrived.iter().for_each(finish);
    }

    /// The page is blocked (a dialog) or gone (its process ended): nothing
    /// more will arrive, so nobody waits for it.
    pub fn release(&self) {
        let waiting: Vec<(Tally, Done)> = self.waiting.borrow_mut().drain(..).collect();
        waiting.iter().for_each(|(_, done)| finish(done));
    }
}

/// The receipts script for a tab's pages (every frame, the agent's world).
pub fn script() -> UserScript {
    agent_world::script_in_every_frame(SOURCE)
}

/// Hears one tab's pages.
pub fn listen(manager: &UserContentManager, receipts: &Rc<Receipts>) {
    let receipts = receipts.clone();
    agent_world::hear(manager, HANDLER, move |name| {
        if let Some((kind, _)) = KINDS.iter().find(|(_, n)| *n == name) {
            receipts.received(*kind);
        }
    });
}

pub(crate) fn finish(done: &Done) {
    let then = done.borrow_mut().take();
    if let Some(then) = then {
        then();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_tally_is_reached_kind_by_kind() {
        let mut sent = Tally::default();
        sent.add(Kind::MouseDown);
        sent.add(Kind::MouseUp);
        let target = Tally::default().plus(&sent);
        let mut seen = Tally::default();
        seen.add(Kind::MouseDown);
        seen.add(Kind::MouseMove);
        assert!(!seen.reached(&target), "the mouseup has not arrived");
        seen.add(Kind::MouseUp);
        assert!(seen.reached(&target));
        assert_eq!(seen.since(&Tally::default()), seen);
    }

    #[test]
    fn a_press_may_arrive_as_a_move_but_every_event_must_arrive() {
        let mut sent = Tally::default();
        sent.add(Kind::MouseMove);
        sent.add(Kind::MouseDown);
        let mut seen = Tally::default();
        seen.add(Kind::MouseMove);
        assert!(!seen.got_all(&sent), "the press has not arrived");
        seen.add(Kind::MouseMove);
        assert!(seen.got_all(&sent), "the press arrived as a move");
        assert!(!Tally::default().got_all(&sent), "nothing arrived");
        let mut keys = Tally::default();
        keys.add(Kind::KeyDown);
        keys.add(Kind::KeyUp);
        let mut down = Tally::default();
        down.add(Kind::KeyDown);
        assert!(!down.got_all(&keys), "the key's release is missing");
        assert!(keys.got_all(&keys));
    }
}
