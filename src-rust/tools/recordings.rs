//! record_sessions, record_steps, record_clear: the recordings of agents'
//! work (see `recording`), for the person: a recording holds what every
//! agent did, so no agent reads or clears them.

use super::{tool, Ctx, ToolDef, ToolOutput, ToolResult, ACTION, READ_ONLY};
use crate::base::error::ToolError;
use crate::files_dir::FilesError;
use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::json;

/// Steps record_steps gives unless asked for fewer, and at most.
const DEFAULT_STEPS: usize = 200;
const MAX_STEPS: usize = 1_000;

pub fn tools() -> Vec<ToolDef> {
    vec![
        tool(
            "record_sessions",
            "Recorded sessions, newest first: client, times, steps, failures, kept on disk or in memory; and the disk the recordings use.",
            READ_ONLY,
            |ctx: Ctx, _: SessionsParams| async move {
                let recorder = &ctx.app.recorder;
                let disk = recorder.disk_use().map(|(used, max)| json!({"bytes": used, "max_bytes": max}));
                Ok(ToolOutput::json(json!({
                    "recording": recorder.enabled(),
                    "disk": disk,
                    "dropped": recorder.dropped(),
                    "sessions": recorder.sessions(),
                })))
            },
        )
        .ungated()
        .person_only(),
        tool(
            "record_steps",
            "A recorded session's steps after step `after`: tool, arguments (secrets replaced), outcome, page before and after, element, requests.",
            READ_ONLY,
            |ctx: Ctx, p: StepsParams| async move {
                let limit = p.limit.unwrap_or(DEFAULT_STEPS).clamp(1, MAX_STEPS);
                let steps = ctx.app.recorder.steps(&p.session, p.after.unwrap_or(0), limit);
                Ok(ToolOutput::json(json!({"session": p.session, "steps": steps})))
            },
        )
        .ungated()
        .person_only(),
        tool(
            "record_shot",
            "The picture of the page after a recorded step, as a JPEG (base64), when one was kept.",
            READ_ONLY,
            |ctx: Ctx, p: ShotParams| async move {
                let jpeg = ctx.app.recorder.shot(&p.session, p.n).ok_or_else(|| {
                    ToolError::invalid_params("no picture was kept for that step (only inputs and navigations have one, and not in ephemeral contexts)")
                })?;
                use base64::Engine as _;
                let data = base64::engine::general_purpose::STANDARD.encode(&jpeg);
                Ok(ToolOutput::json(json!({"session": p.session, "n": p.n, "bytes": jpeg.len(), "jpeg_base64": data})))
            },
        )
        .ungated()
        .person_only(),
        tool(
            "record_export",
            "A recorded session as a flow to replay (`sovereign replay`) or a Playwright test, written to the files folder.",
            ACTION,
            |ctx: Ctx, p: ExportParams| async move { export(&ctx, p).await },
        )
        .ungated()
        .person_only(),
        tool(
            "record_clear",
            "Forget every recording, on disk too.",
            ACTION,
            |ctx: Ctx, _: SessionsParams| async move {
                ctx.app.recorder.clear();
                tracing::info!("the recordings were cleared in the panel");
                Ok(ToolOutput::json(json!({"cleared": true})))
            },
        )
        .ungated()
        .person_only(),
    ]
}

#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct SessionsParams {}

#[derive(Deserialize, JsonSchema, Clone, Copy)]
#[serde(rename_all = "lowercase")]
pub enum ExportFormat {
    Flow,
    Playwright,
}

#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ExportParams {
    /// The session's id (record_sessions).
    session: String,
    #[serde(default)]
    #[schemars(extend("default" = "flow"))]
    format: Option<ExportFormat>,
}

/// Writes a session's flow (or its Playwright test) into the files folder.
async fn export(ctx: &Ctx, p: ExportParams) -> ToolResult {
    let steps = ctx.app.recorder.steps(&p.session, 0, usize::MAX);
    if steps.is_empty() {
        return Err(ToolError::invalid_params(format!(
            "no recorded steps for session {}",
            p.session
        )));
    }
    let flow = crate::flow::from_steps(&p.session, &steps);
    let (text, ext) = match p.format.unwrap_or(ExportFormat::Flow) {
        ExportFormat::Flow => (
            serde_json::to_string_pretty(&flow).unwrap_or_default(),
            "flow.json",
        ),
        ExportFormat::Playwright => (crate::flow::playwright::spec(&flow), "spec.ts"),
    };
    let short: String = p
        .session
        .chars()
        .filter(char::is_ascii_alphanumeric)
        .take(12)
        .collect();
    let files = &ctx.app.files;
    let name = files.root().join(format!("session-{short}.{ext}"));
    let path = files
        .new_file(&name.to_string_lossy())
        .map_err(FilesError::internal)?;
    super::files::write_private(&path, text.into_bytes()).await?;
    Ok(ToolOutput::json(json!({
        "path": path.to_string_lossy(),
        "steps": flow.steps.len(),
        "left_out": flow.left_out,
    })))
}

#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ShotParams {
    /// The session's id.
    session: String,
    /// The step's number.
    n: u64,
}

#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct StepsParams {
    /// The session's id (record_sessions).
    session: String,
    /// Only steps numbered after this one.
    #[serde(default)]
    after: Option<u64>,
    #[serde(default)]
    limit: Option<usize>,
}
