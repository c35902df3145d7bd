//! What reaches a page as the person's own input: trusted GDK events,
//! XTEST's real pointer, the clipboards, the person's own typing and
//! clicks, and the receipts of what each page received.

pub(super) mod clipboard;
pub(super) mod person_input;
pub(super) mod receipts;
pub(super) mod seat;
pub(super) mod trusted;
pub(super) mod x11;
pub(super) mod xtest;
