//! The agent library's isolated script world: its name, and how its
//! answers read. Below every file that talks to the agent (calls, frames,
//! receipts), so none of them needs another to know it.

use crate::base::error::{ErrorCode, ToolError};
use javascriptcore::ValueExt as _;
use serde_json::Value;
use webkit2gtk::{UserContentInjectedFrames, UserScript, UserScriptInjectionTime};
use webkit2gtk::{UserContentManager, UserContentManagerExt as _};

/// The isolated script world the agent library lives in.
pub const AGENT_WORLD: &str = "sovereign";

/// The agent's `{"ok":...}` reply as a value or a tool error.
pub fn agent_outcome(reply: &Value) -> Result<Value, ToolError> {
    if reply.get("ok").and_then(Value::as_bool) == Some(true) {
        return Ok(reply.get("value").cloned().unwrap_or(Value::Null));
    }
    let code = reply
        .get("code")
        .and_then(Value::as_str)
        .and_then(ErrorCode::parse)
        .unwrap_or(ErrorCode::JsError);
    let message = reply
        .get("message")
        .and_then(Value::as_str)
        .unwrap_or("the page operation failed");
    Err(ToolError::new(code, message))
}

/// `source` injected into every frame's agent world, before page scripts.
pub fn script_in_every_frame(source: &str) -> UserScript {
    UserScript::for_world(
        source,
        UserContentInjectedFrames::AllFrames,
        UserScriptInjectionTime::Start,
        AGENT_WORLD,
        &[],
        &[],
    )
}

/// Registers handler `name` in the agent's world (no page can post to it)
/// and calls `heard` with each post that is a string.
pub fn hear(manager: &UserContentManager, name: &str, heard: impl Fn(&str) + 'static) {
    manager.register_script_message_handler_in_world(name, AGENT_WORLD);
    manager.connect_script_message_received(Some(name), move |_, result| {
        if let Some(value) = result.js_value().filter(|v| v.is_string()) {
            heard(&value.to_str());
        }
    });
}
