//! keyboard_type, insert_text, keydown, keyup: the keyboard, aimed at
//! whatever has focus (press is with the other input tools).

use super::interaction::PressParams;
use super::{tab_tool, Ctx, Replay, ToolDef, ToolOutput, ToolResult, ACTION};
use crate::base::error::{ErrorCode, ToolError};
use crate::base::tab::TabId;
use crate::bridge::Command;
use crate::page_protocol::ops::Focused;
use crate::recording::Element;
use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::{json, Value};

pub fn tools() -> Vec<ToolDef> {
    vec![
        tab_tool(
            "keyboard_type",
            "Type text with real key presses into whatever has focus. Returns the focused element and value.",
            ACTION,
            |ctx: Ctx, tab: TabId, p: TextParams| async move { keyboard_type(&ctx, tab, p.value).await },
        )
        .replayed(Replay::Typed)
        .changes_the_page(),
        tab_tool(
            "insert_text",
            "Insert text at the focused field's caret in one input event, as a paste does. Returns the value.",
            ACTION,
            |ctx: Ctx, tab: TabId, p: TextParams| async move { insert_text(&ctx, tab, p.value).await },
        )
        .changes_the_page(),
        tab_tool(
            "keydown",
            "Press and hold a key; held modifiers apply to later keys and clicks until keyup.",
            ACTION,
            |ctx: Ctx, tab: TabId, p: PressParams| async move { key_phase(&ctx, tab, p.key, true).await },
        ),
        tab_tool(
            "keyup",
            "Release a key held by keydown.",
            ACTION,
            |ctx: Ctx, tab: TabId, p: PressParams| async move { key_phase(&ctx, tab, p.key, false).await },
        ),
    ]
}

#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct TextParams {
    /// Text to type.
    value: String,
}

/// The focused element and its value; notes the element for the
/// recording (what is typed into a password field is not kept).
async fn focused(ctx: &Ctx, tab: u64) -> Result<Value, ToolError> {
    let now = ctx.page(tab, Focused {}).await?;
    let element = now
        .get("element")
        .cloned()
        .map(serde_json::from_value::<Element>);
    if let Some(Ok(element)) = element {
        ctx.acted_on_element(element);
    }
    Ok(now)
}

async fn keyboard_type(ctx: &Ctx, tab: TabId, text: String) -> ToolResult {
    let typed = text.chars().count();
    ctx.app
        .browser
        .call_value(Command::TypeText {
            tab,
            text: text.clone(),
        })
        .await?;
    // The command answers once the page has handled every key.
    let now = focused(ctx, tab).await?;
    let mut result = json!({"typed": typed, "focused": now["focused"]});
    if let Some(value) = now.get("value") {
        result["value"] = value.clone();
    }
    Ok(ToolOutput::json(result))
}

async fn insert_text(ctx: &Ctx, tab: TabId, text: String) -> ToolResult {
    let before = focused(ctx, tab).await?;
    if before.get("value").is_none() {
        return Err(ToolError::new(
            ErrorCode::NotInteractable,
            "no text field has focus; click or focus one first",
        ));
    }
    ctx.app
        .browser
        .call_value(Command::Edit {
            tab,
            command: "InsertText",
            argument: Some(text),
        })
        .await?;
    let now = focused(ctx, tab).await?;
    Ok(ToolOutput::json(
        json!({"focused": now["focused"], "value": now["value"]}),
    ))
}

async fn key_phase(ctx: &Ctx, tab: TabId, key: String, down: bool) -> ToolResult {
    let state = ctx
        .app
        .browser
        .call_value(Command::KeyPhase {
            tab,
            combo: key.clone(),
            down,
        })
        .await?;
    let verb = if down { "down" } else { "up" };
    Ok(ToolOutput::json(
        json!({"key": key, verb: true, "held": state["held"]}),
    ))
}
