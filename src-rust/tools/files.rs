//! upload, pdf, screenshot_annotated: files in and out of pages, and a
//! screenshot a model can match to refs.

use super::identity::NoParams;
use super::interaction::act;
use super::page::element;
use super::{tab_tool, Ctx, ToolDef, ToolOutput, ToolResult, ACTION, READ_ONLY};
use crate::base::error::ToolError;
use crate::base::tab::TabId;
use crate::bridge::{Command, ElementInput, Mark};
use crate::page_protocol::ops::Annotations;
use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::{json, Value};

pub fn tools() -> Vec<ToolDef> {
    vec![
        tab_tool(
            "upload",
            "Choose files as a person would: a file input, its label, or a control that opens a chooser. Several need a multiple input.",
            ACTION,
            |ctx: Ctx, tab: TabId, p: UploadParams| async move { upload(&ctx, tab, p).await },
        )
        .changes_the_page(),
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
                let path = ctx.app.files.new_file(&given)?;
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
        .collect::<Result<Vec<_>, _>>()?;
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
    // One input on the main thread: find the input, arm the tab, click,
    // answer the chooser, read what the input holds.
    let input = ElementInput::Upload {
        files,
        expect: Value::Array(expect),
    };
    let reply = act(ctx, tab, element(&p.r#ref, &p.selector)?, input, None).await?;
    Ok(ToolOutput::json(reply.into_json()))
}

async fn annotated(ctx: &Ctx, tab: TabId) -> ToolResult {
    let found = ctx.page(tab, Annotations {}).await?;
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
