//! The person's actions in the panel (not in tools/list, refused to agents):
//! end a session, pause or resume the agents, and the window as the person
//! sees it (its layout and a picture of it, chrome included).

use super::tabs::ContextParams;
use super::{tool, Ctx, ToolDef, ToolOutput, ACTION, READ_ONLY};
use crate::base::error::{ErrorCode, ToolError};
use crate::bridge::Command;
use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::json;

pub fn tools() -> Vec<ToolDef> {
    vec![tool(
        "session_end",
        "End an MCP session or close an /agent connection (by session id).",
        ACTION,
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
    .person_only(),
    tool(
        "agents_pause",
        "Pause (paused: true) or resume the agents' browser tools; while paused they answer PAUSED.",
        ACTION,
        |ctx: Ctx, p: PauseParams| async move {
            ctx.app.paused.set(p.paused);
            ctx.app.browser.notify(Command::SetPaused { paused: p.paused });
            tracing::info!(paused = p.paused, by = %ctx.session.id, "agents paused from the panel");
            Ok(ToolOutput::json(json!({"paused": p.paused})))
        },
    )
    .ungated()
    .person_only(),
    tool(
        "window_layout",
        "Where a context's window's address bar, buttons and tabs are (default: the person's window), and what they show.",
        READ_ONLY,
        |ctx: Ctx, p: ContextParams| async move {
            let context = ctx.context_named(p.context.as_deref())?;
            let layout = Command::ChromeLayout { context };
            Ok(ToolOutput::json(ctx.app.browser.call_value(layout).await?))
        },
    )
    .ungated()
    .person_only(),
    tool(
        "window_screenshot",
        "A PNG of a context's whole window as a person sees it (chrome and page; default: the person's window).",
        READ_ONLY,
        |ctx: Ctx, p: ContextParams| async move {
            let context = ctx.context_named(p.context.as_deref())?;
            let png = ctx
                .app
                .browser
                .call_png(Command::WindowScreenshot { context })
                .await?;
            Ok(ToolOutput::Png(png))
        },
    )
    .ungated()
    .person_only()]
}

#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct PauseParams {
    /// true to pause the agents, false to resume.
    paused: bool,
}

#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct EndParams {
    /// Session id (from the panel's session list).
    id: String,
}
