//! upload, pdf, screenshot_annotated: files in and out of pages, and a
//! screenshot a model can match to refs.

use super::identity::NoParams;
use super::interaction::{click_target, ClickPress};
use super::page::{target, with};
use super::{tab_tool, Ctx, ToolDef, ToolOutput, ToolResult, ACTION, READ_ONLY};
use crate::base::error::{ErrorCode, ToolError};
use crate::base::tab::TabId;
use crate::bridge::{Command, Mark};
use crate::page_protocol::{Annotations, Args, ChosenFiles, FileInput, PageOp};
use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::{json, Value};
use std::time::Duration;

/// How long a clicked file input may take to open its chooser.
const CHOOSER_WAIT: Duration = Duration::from_secs(3);

pub fn tools() -> Vec<ToolDef> {
    vec![
        tab_tool(
            "upload",
            "Choose files as a person would: a file input, its label, or a control that opens a chooser. Several need a multiple input.",
            ACTION,
            |ctx: Ctx, tab: TabId, p: UploadParams| async move { upload(&ctx, tab, p).await },
        ),
        tab_tool(
            "pdf",
            "Print the page to a PDF file. Returns its path and bytes.",
            ACTION,
            |ctx: Ctx, tab: TabId, p: PdfParams| async move {
                let ms = std::time::SystemTime::now()
                    .duration_since(std::time::UNIX_EPOCH)
                    .map_or(0, |d| d.as_millis());
                // By default a new file of the files folder (not where pages' downloads land).
                let given = p.path.unwrap_or_else(|| {
                    ctx.app.files.root().join(format!("page-{ms}.pdf")).to_string_lossy().into_owned()
                });
                let path = ctx.app.files.new_file(&given).map_err(ToolError::invalid_params)?;
                Ok(ToolOutput::json(ctx.app.browser.call_value(Command::Pdf { tab, path }).await?))
            },
        ),
        tab_tool(
            "screenshot_annotated",
            "A screenshot with interactive elements in view boxed and labelled with their refs, and a legend.",
            READ_ONLY,
            |ctx: Ctx, tab: TabId, _: NoParams| async move { annotated(&ctx, tab).await },
        ),
    ]
}

#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct UploadParams {
    #[serde(default)]
    r#ref: Option<String>,
    #[serde(default)]
    selector: Option<String>,
    /// Absolute paths in the files folder (login_status).
    files: Vec<String>,
}

#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct PdfParams {
    /// Absolute, in the files folder (login_status; default: a new file there).
    #[serde(default)]
    path: Option<String>,
}

async fn upload(ctx: &Ctx, tab: TabId, p: UploadParams) -> ToolResult {
    if p.files.is_empty() {
        return Err(ToolError::invalid_params(
            "files is empty; give at least one path",
        ));
    }
    let files = p
        .files
        .iter()
        .map(|f| ctx.app.files.existing_file(f))
        .map(|f| f.map(|p| p.to_string_lossy().into_owned()))
        .collect::<Result<Vec<_>, _>>()
        .map_err(ToolError::invalid_params)?;
    // What the input will hold, for the page to tell when it holds it.
    let expect: Vec<Value> = files
        .iter()
        .map(|f| {
            let path = std::path::Path::new(f);
            let name = path.file_name().map(|n| n.to_string_lossy().into_owned());
            let size = std::fs::metadata(path).map(|m| m.len()).unwrap_or(0);
            json!({"name": name, "size": size})
        })
        .collect();
    let args = with(target(&p.r#ref, &p.selector)?, json!({"expect": expect}));
    let input: FileInput = ctx.page(tab, PageOp::FileInput, args).await?;
    if files.len() > 1 && input.multiple == Some(false) {
        return Err(ToolError::invalid_params(format!(
            "this file input takes one file, and {} were given",
            files.len()
        )));
    }
    let mut control = Args::from_iter([("ref".into(), input.r#ref.clone().into())]);
    if input.opener.is_some() {
        // Its click may land on a file input the page laid over it, as a person's does.
        control.insert("opens_chooser".into(), true.into());
    }
    let arm = |files| {
        ctx.app
            .browser
            .call_value(Command::ArmUpload { tab, files })
    };
    arm(Some(files.clone())).await?;
    // A person's click opens the chooser; the armed files answer it.
    let clicked = click_target(ctx, tab, control.clone(), ClickPress::left(1), None).await;
    let deadline = tokio::time::Instant::now() + CHOOSER_WAIT;
    let opened = clicked.is_ok()
        && ctx
            .app
            .browser
            .wait_until(deadline, |state| {
                state
                    .tab(tab)
                    .is_none_or(|t| !t.upload_pending)
                    .then_some(())
            })
            .await
            .is_some();
    if !opened {
        arm(None).await?;
        clicked?;
        let why = match &input.opener {
            Some(what) => format!(
                "clicking {what} did not open a file chooser; give the file input's ref, or the control that opens it"
            ),
            None => "the click did not open a file chooser (a page script may prevent it)".into(),
        };
        return Err(ToolError::new(ErrorCode::NotInteractable, why));
    }
    // The input takes the files a moment after the chooser is answered:
    // answer once it holds them and the page has heard its change event.
    // The ref routes the question to the input's frame; the watch answers it.
    let watch = with(control, json!({"watch": input.watch}));
    let chosen: ChosenFiles = ctx.page(tab, PageOp::ChosenFiles, watch).await?;
    let mut reply = json!({"ref": input.r#ref, "files": chosen.files});
    if input.opener.is_some() {
        reply["input"] = chosen.input.into();
    }
    if chosen.files.len() < files.len() {
        reply["note"] = format!(
            "the chooser took {} of the {} files (it takes one at a time)",
            chosen.files.len(),
            files.len()
        )
        .into();
    }
    Ok(ToolOutput::json(reply))
}

async fn annotated(ctx: &Ctx, tab: TabId) -> ToolResult {
    let found: Annotations = ctx.page(tab, PageOp::Annotations, Args::new()).await?;
    let marks: Vec<Mark> = found
        .marks
        .iter()
        .map(|m| Mark {
            label: m.r#ref.clone(),
            x: m.x,
            y: m.y,
            width: m.width,
            height: m.height,
        })
        .collect();
    let legend: Vec<&str> = found.marks.iter().map(|m| m.line.as_str()).collect();
    let legend = if legend.is_empty() {
        "(no interactive elements in view)".to_string()
    } else {
        legend.join("\n")
    };
    let png = ctx
        .app
        .browser
        .call_png(Command::Screenshot { tab, marks })
        .await?;
    Ok(ToolOutput::PngWithText(png, legend))
}

/// Writes `bytes` to `path` (a file in the files folder), owner-only and
/// off the async threads; a link at the name is replaced, never followed.
pub async fn write_private(path: &std::path::Path, bytes: Vec<u8>) -> Result<(), ToolError> {
    let target = path.to_path_buf();
    tokio::task::spawn_blocking(move || crate::profile::write_private(&target, &bytes))
        .await
        .map_err(|e| ToolError::internal(e.to_string()))?
        .map_err(|e| ToolError::internal(format!("cannot write {}: {e}", path.display())))
}
