//! mouse_move, mouse_down, mouse_up, mouse_wheel (trusted pointer events at
//! viewport coordinates) and clipboard_read, clipboard_write, clipboard_copy,
//! clipboard_paste (the real GTK clipboard).

use super::families::Family;
use super::identity::NoParams;
use super::{tab_tool, tool, Ctx, ToolDef, ToolOutput, ToolResult, ACTION, READ_ONLY};
use crate::base::error::ToolError;
use crate::base::tab::TabId;
use crate::bridge::{Command, MouseAction};
use crate::page_protocol::ops::Settle;
use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::json;

pub fn tools() -> Vec<ToolDef> {
    vec![
        tab_tool(
            "mouse_move",
            "Move the mouse to viewport x, y (CSS px) with trusted events; a held button drags.",
            ACTION,
            |ctx: Ctx, tab: TabId, p: PointParams| async move { pointer(&ctx, tab, Some((p.x, p.y)), MouseAction::Move).await },
        )
        .in_family(Family::Mouse),
        tab_tool(
            "mouse_down",
            "Press a mouse button where the mouse is, held until mouse_up.",
            ACTION,
            |ctx: Ctx, tab: TabId, p: ButtonParams| async move {
                pointer(&ctx, tab, None, MouseAction::Down { button: p.button.number() }).await
            },
        )
        .in_family(Family::Mouse),
        tab_tool(
            "mouse_up",
            "Release a mouse button where the mouse is.",
            ACTION,
            |ctx: Ctx, tab: TabId, p: ButtonParams| async move {
                pointer(&ctx, tab, None, MouseAction::Up { button: p.button.number() }).await
            },
        )
        .changes_the_page()
        .in_family(Family::Mouse),
        tab_tool(
            "mouse_wheel",
            "Turn the wheel where the mouse is (dy px down, dx right; negative: up, left). Returns the page's scroll position, and the pane's (ref, scrollTop) when it scrolled a box.",
            ACTION,
            |ctx: Ctx, tab: TabId, p: WheelParams| async move { wheel(&ctx, tab, p).await },
        )
        .changes_the_page()
        .in_family(Family::Mouse),
        tool(
            "clipboard_read",
            "The clipboard's text if agents put it there (clipboard_write/copy, a page's copy on their click); the person's copies: NOT_ALLOWED.",
            READ_ONLY,
            |ctx: Ctx, _: NoParams| async move {
                Ok(ToolOutput::json(ctx.app.browser.call_value(Command::Clipboard { write: None }).await?))
            },
        )
        .in_family(Family::Clipboard),
        tool(
            "clipboard_write",
            "Put text on the system clipboard.",
            ACTION,
            |ctx: Ctx, p: TextParams| async move {
                let write = Some(p.text);
                Ok(ToolOutput::json(ctx.app.browser.call_value(Command::Clipboard { write }).await?))
            },
        )
        .in_family(Family::Clipboard),
        tab_tool(
            "clipboard_copy",
            "Copy the page's selection, as Ctrl+C does (the page sees copy).",
            ACTION,
            |ctx: Ctx, tab: TabId, _: NoParams| async move { edit(&ctx, tab, "Copy").await },
        )
        .in_family(Family::Clipboard),
        tab_tool(
            "clipboard_paste",
            "Paste what agents put on the clipboard into the focused field, as Ctrl+V does (the page sees paste).",
            ACTION,
            |ctx: Ctx, tab: TabId, _: NoParams| async move { edit(&ctx, tab, "Paste").await },
        )
        .changes_the_page()
        .in_family(Family::Clipboard),
    ]
}

#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct PointParams {
    /// CSS px from the viewport's left.
    x: f64,
    /// CSS px from the viewport's top.
    y: f64,
}

#[derive(Deserialize, JsonSchema, Default, Clone, Copy)]
#[serde(rename_all = "lowercase")]
pub enum Button {
    #[default]
    Left,
    Middle,
    Right,
}

impl Button {
    pub fn number(self) -> u32 {
        match self {
            Button::Left => 1,
            Button::Middle => 2,
            Button::Right => 3,
        }
    }
}

#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ButtonParams {
    /// left, right or middle.
    #[schemars(extend("default" = "left"))]
    #[serde(default)]
    button: Button,
}

#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct WheelParams {
    /// px down (negative: up).
    dy: f64,
    /// px right (negative: left).
    #[serde(default)]
    dx: Option<f64>,
}

#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct TextParams {
    /// Text for the clipboard.
    text: String,
}

async fn pointer(ctx: &Ctx, tab: TabId, at: Option<(f64, f64)>, action: MouseAction) -> ToolResult {
    if let Some((x, y)) = at {
        let page = ctx.page_info(tab).await?;
        let inside = |v: f64, size: f64| v.is_finite() && v >= 0.0 && (size <= 0.0 || v < size);
        if !inside(x, page.width) || !inside(y, page.height) {
            return Err(ToolError::invalid_params(format!(
                "x and y must be CSS pixels inside the viewport: 0 <= x < {}, 0 <= y < {}; scroll to bring the place into view",
                page.width, page.height
            )));
        }
    }
    let command = Command::Mouse { tab, at, action };
    Ok(ToolOutput::json(ctx.app.browser.call_value(command).await?))
}

async fn wheel(ctx: &Ctx, tab: TabId, p: WheelParams) -> ToolResult {
    let (dx, dy) = (p.dx.unwrap_or(0.0), p.dy);
    if !dx.is_finite() || !dy.is_finite() {
        return Err(ToolError::invalid_params("dx and dy must be numbers"));
    }
    let action = MouseAction::Wheel { dx, dy };
    ctx.app
        .browser
        .call_value(Command::Mouse {
            tab,
            at: None,
            action,
        })
        .await?;
    // The page scrolls after the event, perhaps smoothly: report where it
    // comes to rest, as its scroll events tell.
    let settled = Settle::Scroll {
        start_ms: SCROLL_START,
        limit_ms: SCROLL_LIMIT,
    };
    let view = ctx.page(tab, settled).await?;
    let mut result = json!({
        "dx": dx,
        "dy": dy,
        "scrollX": view.scroll_x,
        "scrollY": view.scroll_y,
    });
    if let Some(pane) = view.pane {
        result["pane"] = pane;
    }
    Ok(ToolOutput::json(result))
}

/// How long after a wheel turn a scroll may take to begin, and to end (ms).
const SCROLL_START: u64 = 250;
const SCROLL_LIMIT: u64 = 3000;

async fn edit(ctx: &Ctx, tab: TabId, command: &'static str) -> ToolResult {
    ctx.app
        .browser
        .call_value(Command::Edit {
            tab,
            command,
            argument: None,
        })
        .await?;
    Ok(ToolOutput::json(json!({"done": command.to_lowercase()})))
}
