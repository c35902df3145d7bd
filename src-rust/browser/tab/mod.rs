//! One tab's state and the parts it holds: its console, network log,
//! submitted forms, the relay of its frames' answers, the tabs related by
//! opener, and the budget all tabs' logs share.

pub(super) mod budget;
pub(super) mod console;
pub mod form_posts;
pub(super) mod frame_relay;
pub(super) mod network_log;
pub(super) mod related;
pub(super) mod state;
