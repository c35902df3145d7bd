//! downloads, wait_for_download, download_cancel: the files this context's
//! pages download (into the files folder), waiting for one a page starts
//! later, and stopping one.

use super::families::Family;
use super::{tool, Ctx, ToolDef, ToolOutput, ToolResult, ACTION, READ_ONLY};
use crate::base::error::ToolError;
use crate::base::tab::{BrowserState, DownloadInfo, DownloadState};
use crate::bridge::Command;
use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::{json, Value};
use std::time::Duration;

const DEFAULT_TIMEOUT_MS: u64 = 30_000;
const MAX_TIMEOUT_MS: u64 = 300_000;

pub fn tools() -> Vec<ToolDef> {
    vec![
        tool(
            "downloads",
            "This context's downloads, oldest first: id, name, URL, path in the files folder, state, bytes (and total), why one failed.",
            READ_ONLY,
            |ctx: Ctx, _: super::identity::NoParams| async move {
                let context = ctx.context()?;
                let state = ctx.app.browser.state();
                let listed: Vec<Value> = of_context(&state, context).map(shown).collect();
                // Those that ended were given: wait_for_download waits past them.
                let ended = of_context(&state, context).filter(|d| d.state != DownloadState::InProgress);
                if let Some(last) = ended.map(|d| d.id).max() {
                    ctx.session.saw_download(last);
                }
                Ok(ToolOutput::json(json!({"downloads": listed})))
            },
        )
        .in_family(Family::Downloads),
        tool(
            "wait_for_download",
            "Wait for the next download of this context you were not given yet (by this tool or downloads) to end, whether it started before the call or starts during it. Returns it (done, or failed and why).",
            ACTION,
            |ctx: Ctx, p: WaitParams| async move { wait(&ctx, p).await },
        )
        .in_family(Family::Downloads),
        tool(
            "download_cancel",
            "Stop a download under way (its id from downloads).",
            ACTION,
            |ctx: Ctx, p: CancelParams| async move {
                let context = ctx.context()?;
                let cancelled = ctx
                    .app
                    .browser
                    .call_value(Command::CancelDownload { context, id: p.id })
                    .await?;
                Ok(ToolOutput::json(cancelled))
            },
        )
        .in_family(Family::Downloads),
    ]
}

#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct WaitParams {
    #[serde(default)]
    #[schemars(extend("default" = 30000))]
    timeout: Option<u64>,
}

#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct CancelParams {
    /// The download's id.
    id: u64,
}

fn of_context(state: &BrowserState, context: u64) -> impl Iterator<Item = &DownloadInfo> {
    state.downloads.iter().filter(move |d| d.context == context)
}

/// A download as the tools show it: its file's name first.
fn shown(download: &DownloadInfo) -> Value {
    let name = std::path::Path::new(&download.path)
        .file_name()
        .map(|n| n.to_string_lossy().into_owned());
    let mut out = json!({"name": name});
    if let (Value::Object(map), Ok(Value::Object(rest))) =
        (&mut out, serde_json::to_value(download))
    {
        map.extend(rest);
    }
    out
}

async fn wait(ctx: &Ctx, p: WaitParams) -> ToolResult {
    let context = ctx.context()?;
    let timeout = p.timeout.unwrap_or(DEFAULT_TIMEOUT_MS);
    if timeout > MAX_TIMEOUT_MS {
        return Err(ToolError::invalid_field(
            "timeout",
            format!("at most {MAX_TIMEOUT_MS} ms"),
        ));
    }
    // The oldest this session was not given, under way or ended, else the
    // first a page starts from now on.
    let seen = ctx.session.downloads_seen();
    let deadline = tokio::time::Instant::now() + Duration::from_millis(timeout);
    let ended = ctx
        .app
        .browser
        .wait_until(deadline, |state| {
            let awaited = of_context(state, context).find(|d| d.id > seen)?;
            (awaited.state != DownloadState::InProgress).then(|| (awaited.id, shown(awaited)))
        })
        .await;
    let Some((id, download)) = ended else {
        return Err(ToolError::timeout(format!(
            "no download ended within {timeout} ms"
        )));
    };
    ctx.session.saw_download(id);
    Ok(ToolOutput::json(download))
}
