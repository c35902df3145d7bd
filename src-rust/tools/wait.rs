//! wait, wait_for.

use super::error::{ErrorCode, ToolError};
use super::page::POLL;
use super::{tool, Ctx, ToolDef, ToolOutput, ToolResult, READ_ONLY};
use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::json;
use std::time::{Duration, Instant};

/// Longest plain wait.
const MAX_WAIT_MS: u64 = 300_000;

pub fn tools() -> Vec<ToolDef> {
    vec![
        tool(
            "wait",
            "Wait a number of milliseconds (default 1000). Prefer wait_for when waiting for the page.",
            READ_ONLY,
            |_: Ctx, p: WaitParams| async move {
                let ms = p.ms.unwrap_or(1000).min(MAX_WAIT_MS);
                tokio::time::sleep(Duration::from_millis(ms)).await;
                Ok(ToolOutput::json(json!({"waited_ms": ms})))
            },
        ),
        tool(
            "wait_for",
            "Wait until an element matching a CSS selector is present and visible (default timeout 10000 ms). Returns its ref.",
            READ_ONLY,
            |ctx: Ctx, p: WaitForParams| async move { wait_for(&ctx, p).await },
        ),
    ]
}

#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct WaitParams {
    /// Milliseconds, default 1000.
    #[serde(default)]
    ms: Option<u64>,
}

#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct WaitForParams {
    /// CSS selector to wait for.
    selector: String,
    /// Milliseconds, default 10000.
    #[serde(default)]
    timeout: Option<u64>,
}

async fn wait_for(ctx: &Ctx, p: WaitForParams) -> ToolResult {
    let limit = Duration::from_millis(p.timeout.unwrap_or(10_000).min(MAX_WAIT_MS));
    let tab = ctx.tab().await?;
    let start = Instant::now();
    let mut last_seen;
    loop {
        match ctx
            .agent(tab, "query", json!({"selector": p.selector}))
            .await
        {
            Ok(found) if found["found"] == true && found["visible"] == true => {
                return Ok(ToolOutput::json(json!({
                    "found": true,
                    "ref": found["ref"],
                    "waited_ms": start.elapsed().as_millis() as u64,
                })));
            }
            Ok(found) if found["found"] == true => last_seen = "present but hidden",
            Ok(_) => last_seen = "absent",
            // A bad selector will not get better; a page mid-navigation will.
            Err(e) if e.code == ErrorCode::InvalidParams || e.code == ErrorCode::DialogOpen => {
                return Err(e)
            }
            Err(_) => last_seen = "page not ready",
        }
        if start.elapsed() >= limit {
            return Err(ToolError::timeout(format!(
                "no visible element matched {:?} within {} ms (last seen: {last_seen})",
                p.selector,
                limit.as_millis()
            )));
        }
        tokio::time::sleep(POLL.max(Duration::from_millis(50))).await;
    }
}
