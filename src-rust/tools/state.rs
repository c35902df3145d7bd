//! get_value, get_count, get_box, get_styles, is_visible, is_enabled,
//! is_checked: what an element holds, and whether a person could see and
//! use it.

use super::inspection::TargetParams;
use super::page::{target, with};
use super::{tab_tool, Ctx, ToolDef, ToolOutput, ToolResult, READ_ONLY};
use crate::base::error::ErrorCode;
use crate::base::tab::TabId;
use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::{json, Value};

pub fn tools() -> Vec<ToolDef> {
    vec![
        tab_tool(
            "get_value",
            "The current value of a form field (by ref or CSS selector): the text of an input or text area, the chosen option(s) of a select, value and checked state of a checkbox. Passwords come back masked.",
            READ_ONLY,
            |ctx: Ctx, tab: TabId, p: TargetParams| async move { element_state(&ctx, tab, &p, "value", json!({})).await },
        ),
        tab_tool(
            "get_count",
            "How many elements match a CSS selector.",
            READ_ONLY,
            |ctx: Ctx, tab: TabId, p: CountParams| async move {
                let args = json!({"what": "count", "selector": p.selector});
                Ok(ToolOutput::json(ctx.agent(tab, "state", args).await?))
            },
        ),
        tab_tool(
            "get_box",
            "Position and size of an element in CSS pixels: x and y in the viewport, page_x and page_y in the page, width, height, and whether it is in the viewport.",
            READ_ONLY,
            |ctx: Ctx, tab: TabId, p: TargetParams| async move { element_state(&ctx, tab, &p, "box", json!({})).await },
        ),
        tab_tool(
            "get_styles",
            "Computed CSS styles of an element (by ref or CSS selector): a useful default set, or the properties you name.",
            READ_ONLY,
            |ctx: Ctx, tab: TabId, p: StylesParams| async move {
                let target = TargetParams { r#ref: p.r#ref, selector: p.selector };
                element_state(&ctx, tab, &target, "styles", json!({"properties": p.properties})).await
            },
        ),
        tab_tool(
            "is_visible",
            "Whether a person could see an element, and if not, why: display, visibility, opacity 0, zero size, clipped or off-screen, inert, behind a modal dialog. A selector matching nothing is not visible.",
            READ_ONLY,
            |ctx: Ctx, tab: TabId, p: TargetParams| async move {
                match element_state(&ctx, tab, &p, "visible", json!({})).await {
                    Err(e) if e.code == ErrorCode::ElementNotFound && p.selector.is_some() => Ok(
                        ToolOutput::json(json!({"visible": false, "reason": "no element matches the selector"})),
                    ),
                    other => other,
                }
            },
        ),
        tab_tool(
            "is_enabled",
            "Whether a control can be used: not disabled (itself or by a disabled fieldset), not aria-disabled, not inert.",
            READ_ONLY,
            |ctx: Ctx, tab: TabId, p: TargetParams| async move { element_state(&ctx, tab, &p, "enabled", json!({})).await },
        ),
        tab_tool(
            "is_checked",
            "Whether a checkbox, radio button, switch or toggle button is checked: true, false or \"mixed\".",
            READ_ONLY,
            |ctx: Ctx, tab: TabId, p: TargetParams| async move { element_state(&ctx, tab, &p, "checked", json!({})).await },
        ),
    ]
}

#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct CountParams {
    /// CSS selector to count.
    selector: String,
}

#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct StylesParams {
    /// Element ref from snapshot, e.g. @e5.
    #[serde(default)]
    r#ref: Option<String>,
    /// CSS selector (first match).
    #[serde(default)]
    selector: Option<String>,
    /// CSS property names, e.g. ["color", "display"]; default a useful set.
    #[serde(default)]
    properties: Option<Vec<String>>,
}

async fn element_state(
    ctx: &Ctx,
    tab: TabId,
    p: &TargetParams,
    what: &str,
    extra: Value,
) -> ToolResult {
    let args = with(
        target(&p.r#ref, &p.selector)?,
        with(json!({"what": what}), extra),
    );
    Ok(ToolOutput::json(ctx.agent(tab, "state", args).await?))
}
