//! open, back, forward, reload, get_url, get_title.

use super::error::ToolError;
use super::identity::NoParams;
use super::page::normalize_url;
use super::{tool, Ctx, ToolDef, ToolOutput, ToolResult, NAVIGATES, READ_ONLY};
use crate::bridge::{Command, Navigation};
use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::json;
use std::time::Duration;

pub fn tools() -> Vec<ToolDef> {
    vec![
        tool(
            "open",
            "Navigate this session's tab to a URL and wait for the page to load. Returns the final URL and title; a failed load is an error.",
            NAVIGATES,
            |ctx: Ctx, p: OpenParams| async move {
                let url = normalize_url(&p.url)?;
                navigate(&ctx, Navigation::Load(url)).await
            },
        ),
        tool(
            "back",
            "Go back in this tab's history and wait for the page. Returns URL and title.",
            NAVIGATES,
            |ctx: Ctx, _: NoParams| async move { navigate(&ctx, Navigation::Back).await },
        ),
        tool(
            "forward",
            "Go forward in this tab's history and wait for the page. Returns URL and title.",
            NAVIGATES,
            |ctx: Ctx, _: NoParams| async move { navigate(&ctx, Navigation::Forward).await },
        ),
        tool(
            "reload",
            "Reload the current page, bypassing the cache, and wait for it. Returns URL and title.",
            NAVIGATES,
            |ctx: Ctx, _: NoParams| async move { navigate(&ctx, Navigation::Reload).await },
        ),
        tool(
            "get_url",
            "The URL of this session's tab.",
            READ_ONLY,
            |ctx: Ctx, _: NoParams| async move {
                let tab = ctx.tab().await?;
                let state = ctx.tab_state(tab).await?;
                Ok(ToolOutput::json(json!({"url": state["url"]})))
            },
        ),
        tool(
            "get_title",
            "The page title of this session's tab.",
            READ_ONLY,
            |ctx: Ctx, _: NoParams| async move {
                let tab = ctx.tab().await?;
                let summary = ctx.page_summary(tab).await?;
                Ok(ToolOutput::json(json!({"title": summary["title"]})))
            },
        ),
    ]
}

#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct OpenParams {
    /// URL to open (a bare host name gets https://).
    url: String,
}

/// Time allowed for a page to load.
pub const LOAD_LIMIT: Duration = Duration::from_secs(25);

async fn navigate(ctx: &Ctx, nav: Navigation) -> ToolResult {
    let tab = ctx.tab().await?;
    let started = ctx
        .app
        .browser
        .call_value(Command::Navigate { tab, nav })
        .await?;
    let before = started["started_before"].as_u64().unwrap_or(0);
    if !started["same_document"].as_bool().unwrap_or(false) {
        ctx.settle(tab, before, Duration::from_secs(3), LOAD_LIMIT)
            .await?;
    }
    page_result(ctx, tab).await
}

async fn page_result(ctx: &Ctx, tab: u64) -> Result<ToolOutput, ToolError> {
    Ok(ToolOutput::json(ctx.page_summary(tab).await?))
}
