//! A tab's traffic beyond its log: watching WebKit's loads, reading a
//! response's body, HAR, cookies, and the web process extension that
//! records what the engine alone sees.

pub(super) mod cookies;
pub(super) mod har;
pub(super) mod network_body;
pub(super) mod network_watch;
pub(super) mod web_extension;
