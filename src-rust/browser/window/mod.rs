//! The windows and what frames them: the `Browser` with its contexts
//! and tabs, the chrome (tab strip, ask bar, notices), settings, downloads,
//! and the events of the loop.

pub(super) mod ask_bar;
pub(super) mod browser;
pub(super) mod chrome;
pub(super) mod chrome_actions;
pub(super) mod chrome_updates;
pub(super) mod context;
pub(super) mod contexts;
pub(super) mod downloads;
pub(super) mod event;
pub(super) mod notice_bar;
pub(super) mod options;
pub(super) mod routes_bar;
pub(super) mod settings;
pub(super) mod tab_making;
pub(super) mod vault_bar;
