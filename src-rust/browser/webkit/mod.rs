//! The thin layer over WebKit that every other room stands on: the
//! agent's isolated script world, script messages that get an answer, and
//! work in WebKit that ends when its time is up.

pub(super) mod agent_world;
pub(super) mod expiry;
#[cfg(test)]
pub(super) mod ffi_harness;
pub(super) mod message_reply;
