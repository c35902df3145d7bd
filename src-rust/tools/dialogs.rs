//! dialog_accept, dialog_dismiss, dialog_status: answering alert, confirm,
//! prompt and beforeunload, which block a page until answered.

use super::identity::NoParams;
use super::{
    tab_tool, tab_tool_without_page, Ctx, ToolDef, ToolOutput, ToolResult, ACTION, READ_ONLY,
};
use crate::base::tab::TabId;
use crate::bridge::{Command, DialogAction};
use schemars::JsonSchema;
use serde::Deserialize;

pub fn tools() -> Vec<ToolDef> {
    vec![
        tab_tool(
            "dialog_accept",
            "Accept this tab's open JavaScript dialog; text answers a prompt.",
            ACTION,
            |ctx: Ctx, tab: TabId, p: AcceptParams| async move {
                answer(&ctx, tab, DialogAction::Accept(p.text)).await
            },
        ),
        tab_tool(
            "dialog_dismiss",
            "Dismiss (cancel) this tab's open JavaScript dialog.",
            ACTION,
            |ctx: Ctx, tab: TabId, _: NoParams| async move {
                answer(&ctx, tab, DialogAction::Dismiss).await
            },
        ),
        tab_tool_without_page(
            "dialog_status",
            "This tab's open JavaScript dialog, if any: its type (alert, confirm, prompt, beforeunload), message and a prompt's default text.",
            READ_ONLY,
            |ctx: Ctx, tab: TabId, _: NoParams| async move {
                answer(&ctx, tab, DialogAction::Status).await
            },
        ),
    ]
}

#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct AcceptParams {
    /// A prompt's answer (default: its default).
    #[serde(default)]
    text: Option<String>,
}

async fn answer(ctx: &Ctx, tab: TabId, action: DialogAction) -> ToolResult {
    let value = ctx
        .app
        .browser
        .call_value(Command::Dialog { tab, action })
        .await?;
    Ok(ToolOutput::json(value))
}
