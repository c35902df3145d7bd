//! Sovereign Browser: a desktop browser with a Nostr identity that AI
//! assistants drive over MCP and scripts drive over a WebSocket.
//!
//! The main thread runs the tao/GTK event loop and owns every web view
//! (`browser`); everything else runs on tokio and reaches the browser through
//! a [`bridge::BrowserHandle`]. Every transport calls [`tools::dispatch`].

pub mod activity;
pub mod address;
pub mod agent_scripts;
pub mod asks;
pub mod audit_chain;
pub mod authorship;
pub mod base;
pub mod bridge;
pub mod browser;
pub mod cli;
pub mod config;
pub mod files_dir;
pub mod flow;
pub mod headless;
pub mod hold;
pub mod identity;
pub mod loader_tables;
pub mod nip07;
pub mod no_gl_driver;
pub mod page_protocol;
pub mod profile;
pub mod recording;
pub mod routes;
pub mod server;
pub mod speech_stand_in;
pub mod tools;
pub mod vault;
pub mod web_bot_auth;
