//! What runs in a tab's pages: the agent's scripts and their calls,
//! frames, captures, the accessibility audit, `window.nostr`, what the
//! person typed, and a page's memory.

pub(super) mod audit;
pub(super) mod capture;
pub(super) mod frames;
pub(super) mod nostr;
pub(super) mod page_memory;
pub(super) mod person_typed;
pub(super) mod script;
