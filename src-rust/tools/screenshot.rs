//! screenshot: the viewport, the whole page or one element, as PNG or
//! JPEG, returned or written to the files folder, with its pixel size (an
//! image a model reads costs tokens by its size).

use super::files::write_private;
use super::interaction::act;
use super::{tab_tool, Ctx, ToolDef, ToolOutput, ToolResult, READ_ONLY};
use crate::base::error::ToolError;
use crate::base::tab::TabId;
use crate::bridge::{Command, ElementInput, Shot, ShotArea};
use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::{json, Value};

/// JPEG quality when none is given.
const DEFAULT_QUALITY: u8 = 80;

pub fn tools() -> Vec<ToolDef> {
    vec![tab_tool(
        "screenshot",
        "An image of this tab: what the viewport shows, the whole page (full_page) or one element (ref or selector); png or jpeg; path writes it to the files folder instead. Says its size in pixels.",
        READ_ONLY,
        |ctx: Ctx, tab: TabId, p: ScreenshotParams| async move { screenshot(&ctx, tab, p).await },
    )]
}

#[derive(Deserialize, JsonSchema, Clone, Copy, PartialEq, Eq)]
#[serde(rename_all = "lowercase")]
pub enum Format {
    Png,
    Jpeg,
}

#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ScreenshotParams {
    #[serde(default)]
    r#ref: Option<String>,
    #[serde(default)]
    selector: Option<String>,
    /// The whole page, not only what the viewport shows.
    #[serde(default)]
    full_page: Option<bool>,
    /// png (default) or jpeg.
    #[serde(default)]
    format: Option<Format>,
    /// jpeg: 1 to 100 (default 80).
    #[serde(default)]
    quality: Option<u8>,
    /// Write it here (a path in the files folder) and answer where.
    #[serde(default)]
    path: Option<String>,
}

async fn screenshot(ctx: &Ctx, tab: TabId, p: ScreenshotParams) -> ToolResult {
    let format = p.format.unwrap_or(Format::Png);
    let jpeg_quality = match (format, p.quality) {
        (Format::Png, Some(_)) => {
            return Err(ToolError::invalid_field("quality", "only jpeg takes it"))
        }
        (Format::Jpeg, Some(q)) if !(1..=100).contains(&q) => {
            return Err(ToolError::invalid_field("quality", "from 1 to 100"))
        }
        (Format::Jpeg, quality) => Some(quality.unwrap_or(DEFAULT_QUALITY)),
        (Format::Png, None) => None,
    };
    let element = p.r#ref.is_some() || p.selector.is_some();
    if element && p.full_page == Some(true) {
        return Err(ToolError::invalid_params(
            "give full_page or an element (ref, selector), not both",
        ));
    }
    let path = p
        .path
        .as_deref()
        .map(|given| ctx.app.files.new_file(given))
        .transpose()
        .map_err(|e| e.at("path"))?;
    let area = match (element, p.full_page.unwrap_or(false)) {
        (true, _) => {
            // As a person would: scrolled into view once it shows.
            let target = super::page::element(&p.r#ref, &p.selector)?;
            let shown = act(ctx, tab, target, ElementInput::ScrollIntoView, None).await?;
            element_area(&shown.into_json())?
        }
        (false, true) => ShotArea::Page,
        (false, false) => ShotArea::Viewport,
    };
    let shot = Shot { area, jpeg_quality };
    let picture = ctx
        .app
        .browser
        .call_picture(Command::Picture { tab, shot })
        .await?;
    let kind = if jpeg_quality.is_some() {
        "jpeg"
    } else {
        "png"
    };
    let Some(path) = path else {
        let text = format!("{kind}, {} x {} px", picture.width, picture.height);
        return Ok(ToolOutput::Image {
            data: picture.data,
            mime: picture.mime,
            text,
        });
    };
    let bytes = picture.data.len();
    write_private(&path, picture.data).await?;
    Ok(ToolOutput::json(json!({
        "path": path.to_string_lossy(),
        "format": kind,
        "width": picture.width,
        "height": picture.height,
        "bytes": bytes,
    })))
}

/// The element's box, as scroll_into_view reports it.
fn element_area(shown: &Value) -> Result<ShotArea, ToolError> {
    let number = |key: &str| {
        shown[key]
            .as_f64()
            .ok_or_else(|| ToolError::internal(format!("the element's box has no {key}")))
    };
    Ok(ShotArea::Element {
        x: number("x")?,
        y: number("y")?,
        width: number("width")?,
        height: number("height")?,
        page_x: number("page_x")?,
        page_y: number("page_y")?,
    })
}
