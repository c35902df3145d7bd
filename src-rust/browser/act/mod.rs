//! An agent's input on an element, as one step of the main thread: wait
//! until the element can take it, bring its tab forward, deliver the input
//! and answer once the page has it. Every input runs in one [`Attempt`]
//! (attempt.rs): one deadline, the element found, a typed outcome.
//!
//! [`Attempt`]: attempt::Attempt

mod attempt;
mod click;
pub(super) mod delivery;
pub(super) mod drag;
pub(super) mod element;
pub(super) mod front;
mod steps;
mod upload;
