//! The agent library's isolated script world: its name, and how its
//! answers read. Below every file that talks to the agent (calls, frames,
//! receipts), so none of them needs another to know it.

use crate::base::error::{ErrorCode, ToolError};
use serde_json::Value;

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
