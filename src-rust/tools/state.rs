//! get_value, get_count, get_box, get_styles, is_visible, is_enabled,
//! is_checked: what an element holds, and whether a person could see and
//! use it.

use super::families::Family;
use super::inspection::TargetParams;
use super::page::element;
use super::{tab_tool, Ctx, ToolDef, ToolOutput, ToolResult, READ_ONLY};
use crate::base::error::ErrorCode;
use crate::base::tab::TabId;
use crate::page_protocol::ops::State;
use crate::page_protocol::Target;
use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::json;

pub fn tools() -> Vec<ToolDef> {
    vec![
        tab_tool(
            "get_value",
            "A form field's value: text, chosen options, or checkbox value and state. Passwords masked.",
            READ_ONLY,
            |ctx: Ctx, tab: TabId, p: TargetParams| async move { element_state(&ctx, tab, &p, State::Value).await },
        ),
        tab_tool(
            "get_count",
            "How many elements match a CSS selector.",
            READ_ONLY,
            |ctx: Ctx, tab: TabId, p: CountParams| async move {
                Ok(ToolOutput::json(ctx.page(tab, State::Count { selector: p.selector }).await?))
            },
        )
        .in_family(Family::Inspect),
        tab_tool(
            "get_box",
            "An element's box (CSS px) in the viewport and the page, and whether it is in view.",
            READ_ONLY,
            |ctx: Ctx, tab: TabId, p: TargetParams| async move { element_state(&ctx, tab, &p, State::Box).await },
        )
        .in_family(Family::Inspect),
        tab_tool(
            "get_styles",
            "An element's computed CSS: a useful set, or the properties named.",
            READ_ONLY,
            |ctx: Ctx, tab: TabId, p: StylesParams| async move {
                let asked = State::Styles { target: element(&p.r#ref, &p.selector)?, properties: p.properties };
                Ok(ToolOutput::json(ctx.page(tab, asked).await?))
            },
        )
        .in_family(Family::Inspect),
        tab_tool(
            "is_visible",
            "Whether a person could see an element; if not, why (hidden, transparent, empty, clipped, off-screen, inert, under a modal).",
            READ_ONLY,
            |ctx: Ctx, tab: TabId, p: TargetParams| async move {
                match element_state(&ctx, tab, &p, State::Visible).await {
                    Err(e) if e.code == ErrorCode::ElementNotFound && p.selector.is_some() => Ok(
                        ToolOutput::json(json!({"visible": false, "reason": "no element matches the selector"})),
                    ),
                    other => other,
                }
            },
        )
        .in_family(Family::Inspect),
        tab_tool(
            "is_enabled",
            "Whether a control is usable: not disabled (itself or by fieldset), aria-disabled or inert.",
            READ_ONLY,
            |ctx: Ctx, tab: TabId, p: TargetParams| async move { element_state(&ctx, tab, &p, State::Enabled).await },
        )
        .in_family(Family::Inspect),
        tab_tool(
            "is_checked",
            "Whether a checkbox, radio, switch or toggle button is checked: true, false or \"mixed\".",
            READ_ONLY,
            |ctx: Ctx, tab: TabId, p: TargetParams| async move { element_state(&ctx, tab, &p, State::Checked).await },
        )
        .in_family(Family::Inspect),
    ]
}

#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct CountParams {
    /// CSS.
    selector: String,
}

#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct StylesParams {
    #[serde(default)]
    r#ref: Option<String>,
    #[serde(default)]
    selector: Option<String>,
    /// CSS properties (default: a common set).
    #[serde(default)]
    properties: Option<Vec<String>>,
}

async fn element_state(
    ctx: &Ctx,
    tab: TabId,
    p: &TargetParams,
    what: fn(Target) -> State,
) -> ToolResult {
    let asked = what(element(&p.r#ref, &p.selector)?);
    Ok(ToolOutput::json(ctx.page(tab, asked).await?))
}
