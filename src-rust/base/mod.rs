//! The floor: the vocabulary every layer above shares and nothing here
//! looks up. Coded errors, who is calling (sessions and their principal),
//! the call log, typed tab state, the events pages send, and the types
//! that wipe secrets when dropped.
//!
//! Layers, lowest first; a module imports only from layers below it:
//!
//! 1. `base`, and the plain helpers `profile`, `address`, `files_dir`,
//!    `config`, `activity`, `asks`, `agent_scripts`
//! 2. `bridge`: the commands tokio code sends to the main thread; `hold`:
//!    whether the person holds what an agent's call would reach
//! 3. `browser` (the main thread's window and tabs) and `identity` (signers)
//! 4. `nip07`: pages' `window.nostr` calls, answered with an identity
//! 5. `tools` and `app`: the catalogue, its dispatch and the state it works on
//! 6. `server`, `cli`, `headless`: the transports and front ends

pub mod bounded;
pub mod call_log;
pub mod caller;
pub mod changes;
pub mod client_requests;
pub mod context;
pub mod error;
pub mod health;
pub mod metrics;
pub mod page_event;
pub mod pause;
pub mod proof;
pub mod secret;
pub mod tab;
pub mod url_pattern;
