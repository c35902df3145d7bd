//! session_end: a panel action (not in tools/list) that ends an MCP
//! session or closes an /agent connection.

use super::error::{ErrorCode, ToolError};
use super::{tool, Ctx, ToolDef, ToolOutput, DESTRUCTIVE};
use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::json;

pub fn tools() -> Vec<ToolDef> {
    vec![tool(
        "session_end",
        "End an MCP session or close an /agent connection (by session id).",
        DESTRUCTIVE,
        |ctx: Ctx, p: EndParams| async move {
            if p.id == ctx.session.id {
                return Err(ToolError::invalid_params("id: that is this session itself"));
            }
            if !ctx.app.sessions.remove(&p.id) {
                return Err(ToolError::new(
                    ErrorCode::InvalidParams,
                    format!("id: no session {}", p.id),
                ));
            }
            tracing::info!(session = %p.id, by = %ctx.session.id, "session ended from the panel");
            Ok(ToolOutput::json(json!({"ended": p.id})))
        },
    )
    .ungated()
    .hidden()]
}

#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct EndParams {
    /// Session id (from the panel's session list).
    id: String,
}
