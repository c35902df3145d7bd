//! The tool catalogue and the one dispatch every transport calls.
//!
//! Each family file declares its tools once (name, description, typed
//! parameters whose JSON Schema feeds tools/list, annotations, handler) and
//! exports them as a list: `declaration` holds what a declaration is,
//! `registry` joins the lists, `dispatch` runs a call.

pub mod app;
mod audit;
pub mod batch;
pub mod contexts;
pub mod debug;
mod declaration;
pub mod devices;
pub mod dialogs;
mod dispatch;
mod downloads;
mod emulation;
#[cfg(test)]
pub(crate) mod fake_browser;
pub mod families;
pub mod files;
pub mod find;
pub mod forms;
pub mod frames;
pub mod identity;
pub mod identity_audit;
pub mod inspection;
pub mod interaction;
pub mod keyboard;
pub mod login;
pub mod navigation;
pub mod network;
pub mod nostr;
pub mod output;
pub mod page;
pub mod person;
mod record_step;
pub mod recordings;
pub mod reference;
mod registry;
pub mod routes;
pub mod saved_state;
pub mod schema;
mod screenshot;
pub mod sessions;
pub mod settings;
pub mod snapshot_diff;
mod snapshot_pages;
pub mod state;
pub mod storage;
pub mod tabs;
mod tools_enable;
mod vault;
mod vault_use;
pub mod wait;

pub use declaration::{
    tab_tool, tab_tool_without_page, tool, Ctx, Hints, Replay, ToolDef, ToolResult, ACTION,
    READ_ONLY,
};
pub use dispatch::{dispatch, dispatch_at, dispatch_found, Call, DEFAULT_TOOL_TIMEOUT};
pub use output::ToolOutput;
pub use registry::{Found, Registry, CORE_TOOLS};
