//! click, fill, type, press, scroll, hover, focus: real (trusted) input.

use super::inspection::TargetParams;
use super::page::{target, with, START_GRACE};
use super::{tab_tool, Ctx, ToolDef, ToolOutput, ToolResult, ACTION};
use crate::base::error::{ErrorCode, ToolError};
use crate::bridge::BUTTON_LEFT;
use crate::bridge::{Command, MouseAction, TabId};
use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::{json, Value};
use std::time::Duration;

pub fn tools() -> Vec<ToolDef> {
    vec![
        tab_tool(
            "click",
            "Click an element with a real mouse; waits for a navigation it starts and reports it and new tabs. On a select's option, chooses it.",
            ACTION,
            |ctx: Ctx, tab: TabId, p: TargetParams| async move { click(&ctx, tab, target(&p.r#ref, &p.selector)?).await },
        ),
        tab_tool(
            "fill",
            "Clear a field and type a value; selects and date/time/color/range inputs are set by script (trusted_events: false). Returns the value.",
            ACTION,
            |ctx: Ctx, tab: TabId, p: ValueParams| async move { fill(&ctx, tab, &p).await },
        ),
        tab_tool(
            "type",
            "Type text key by key into a field, after its value. Returns the value.",
            ACTION,
            |ctx: Ctx, tab: TabId, p: ValueParams| async move { type_text(&ctx, tab, &p).await },
        ),
        tab_tool(
            "press",
            "Press a key or chord (Enter, Tab, Control+a...) in the focused element. Reports a navigation it starts.",
            ACTION,
            |ctx: Ctx, tab: TabId, p: PressParams| async move { press(&ctx, tab, p.key).await },
        ),
        tab_tool(
            "scroll",
            "Scroll the page. Returns the scroll position.",
            ACTION,
            |ctx: Ctx, tab: TabId, p: ScrollParams| async move {
                let args = json!({"direction": p.direction, "amount": p.amount.unwrap_or(500)});
                Ok(ToolOutput::json(ctx.agent(tab, "scroll", args).await?))
            },
        ),
        tab_tool(
            "hover",
            "Move the mouse over an element (hover effects run).",
            ACTION,
            |ctx: Ctx, tab: TabId, p: TargetParams| async move {
                let point = ctx.agent(tab, "point", target(&p.r#ref, &p.selector)?).await?;
                mouse(&ctx, tab, &point, MouseAction::Move).await?;
                Ok(ToolOutput::json(json!({"hovered": true})))
            },
        ),
        tab_tool(
            "dblclick",
            "Double-click an element with a real mouse. Reports a navigation it starts.",
            ACTION,
            |ctx: Ctx, tab: TabId, p: TargetParams| async move {
                let mut result = click_target(&ctx, tab, target(&p.r#ref, &p.selector)?, 2).await?;
                result["double_clicked"] = true.into();
                Ok(ToolOutput::json(result))
            },
        ),
        tab_tool(
            "drag",
            "Drag with a real mouse from src_ref/src_selector onto tgt_ref/tgt_selector: drag and drop, sliders, sortable lists.",
            ACTION,
            |ctx: Ctx, tab: TabId, p: DragParams| async move { drag(&ctx, tab, p).await },
        ),
        tab_tool(
            "scroll_into_view",
            "Scroll an element to the middle of the view (scrolling boxes too). Returns its box.",
            ACTION,
            |ctx: Ctx, tab: TabId, p: TargetParams| async move {
                let args = target(&p.r#ref, &p.selector)?;
                Ok(ToolOutput::json(ctx.agent(tab, "scroll_into_view", args).await?))
            },
        ),
        tab_tool(
            "focus",
            "Focus an element.",
            ACTION,
            |ctx: Ctx, tab: TabId, p: TargetParams| async move {
                Ok(ToolOutput::json(ctx.agent(tab, "focus", target(&p.r#ref, &p.selector)?).await?))
            },
        ),
    ]
}

#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ValueParams {
    #[serde(default)]
    r#ref: Option<String>,
    #[serde(default)]
    selector: Option<String>,
    value: String,
}

#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct DragParams {
    #[serde(default)]
    src_ref: Option<String>,
    #[serde(default)]
    src_selector: Option<String>,
    #[serde(default)]
    tgt_ref: Option<String>,
    #[serde(default)]
    tgt_selector: Option<String>,
}

#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct PressParams {
    pub key: String,
}

#[derive(Deserialize, serde::Serialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum Direction {
    Up,
    Down,
    Left,
    Right,
}

#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ScrollParams {
    direction: Direction,
    #[serde(default)]
    #[schemars(extend("default" = 500))]
    amount: Option<u32>,
}

const SETTLE_LIMIT: Duration = Duration::from_secs(20);

pub async fn mouse(
    ctx: &Ctx,
    tab: TabId,
    point: &Value,
    action: MouseAction,
) -> Result<(), ToolError> {
    let (x, y) = (
        point["x"].as_f64().unwrap_or(0.0),
        point["y"].as_f64().unwrap_or(0.0),
    );
    ctx.app
        .browser
        .call_value(Command::Mouse {
            tab,
            at: Some((x, y)),
            action,
        })
        .await?;
    Ok(())
}

/// Runs an input action, then reports the navigation and new tabs it caused.
pub async fn act_and_settle<F>(ctx: &Ctx, tab: TabId, action: F) -> Result<Value, ToolError>
where
    F: std::future::Future<Output = Result<(), ToolError>>,
{
    let before = ctx.before(tab)?;
    action.await?;
    let navigated = ctx
        .settle(tab, &before, START_GRACE, SETTLE_LIMIT)
        .await
        .map_err(|e| match e.code {
            ErrorCode::NoTab => ToolError::new(
                ErrorCode::NoTab,
                "the tab closed after the input reached it (its page closed itself, as sign-in popups do); the next call acts on the tab in front",
            ),
            _ => e,
        })?;
    let new_tabs: Vec<Value> = ctx
        .app
        .browser
        .state()
        .tabs
        .iter()
        .filter(|t| !before.tabs.contains(&t.id))
        .map(|t| json!({"index": t.index, "url": t.url}))
        .collect();
    let summary = ctx.page_summary(tab).await?;
    let mut result = json!({"navigated": navigated, "url": summary["url"], "title": summary["title"], "new_tabs": new_tabs});
    let downloads = ctx.downloads_since(before.downloads, SETTLE_LIMIT).await;
    if !downloads.is_empty() {
        result["downloads"] = json!(downloads);
    }
    Ok(result)
}

async fn click(ctx: &Ctx, tab: TabId, target: Value) -> ToolResult {
    let mut result = click_target(ctx, tab, target, 1).await?;
    result["clicked"] = true.into();
    Ok(ToolOutput::json(result))
}

/// Clicks `count` times (2: a double click) where the agent says the
/// element is, and reports what the clicks caused.
pub async fn click_target(
    ctx: &Ctx,
    tab: TabId,
    target: Value,
    count: u32,
) -> Result<Value, ToolError> {
    // An option of a drop-down <select> is chosen, as from its menu.
    let point = ctx
        .agent(tab, "point", with(target, json!({"choose": true})))
        .await?;
    if let Some(chosen) = point.get("chosen") {
        return Ok(json!({"chosen": chosen, "trusted_events": false}));
    }
    let click = MouseAction::Click {
        button: BUTTON_LEFT,
        count,
    };
    act_and_settle(ctx, tab, mouse(ctx, tab, &point, click)).await
}

/// Moves a drag makes between press and release: enough for pages that
/// track the pointer to see it travel.
const DRAG_STEPS: u32 = 12;
const DRAG_STEP_PAUSE: Duration = Duration::from_millis(16);

async fn drag(ctx: &Ctx, tab: TabId, p: DragParams) -> ToolResult {
    let source_target = target(&p.src_ref, &p.src_selector)
        .map_err(|e| ToolError::invalid_params(format!("source: {}", e.message)))?;
    let goal_target = target(&p.tgt_ref, &p.tgt_selector)
        .map_err(|e| ToolError::invalid_params(format!("target: {}", e.message)))?;
    // Scroll the target into view first, then find the source: both must be on screen.
    ctx.agent(tab, "point", goal_target.clone()).await?;
    let source = ctx.agent(tab, "point", source_target).await?;
    let goal = ctx.agent(tab, "point", goal_target).await?;
    let at = |v: &Value, axis: &str| v[axis].as_f64().unwrap_or(0.0);
    let (sx, sy, gx, gy) = (
        at(&source, "x"),
        at(&source, "y"),
        at(&goal, "x"),
        at(&goal, "y"),
    );
    let mut note = None;
    if source["draggable"] == true {
        // GTK's drag and drop follows the X pointer itself: move the real one.
        match real_drag(ctx, tab, (sx, sy), (gx, gy)).await {
            Ok(mut result) => {
                result["dragged"] = true.into();
                result["input"] = "xtest".into();
                return Ok(ToolOutput::json(result));
            }
            Err(error) => {
                note = Some(format!(
                    "HTML drag and drop needs the real pointer, which is unavailable ({}); mouse events were sent instead, so pages that rely on drop events did not get them",
                    error.message
                ));
            }
        }
    }
    let action = async {
        let button = BUTTON_LEFT;
        mouse(ctx, tab, &source, MouseAction::Down { button }).await?;
        let moved = async {
            for step in 1..=DRAG_STEPS {
                tokio::time::sleep(DRAG_STEP_PAUSE).await;
                let f = f64::from(step) / f64::from(DRAG_STEPS);
                let point = json!({"x": sx + (gx - sx) * f, "y": sy + (gy - sy) * f});
                mouse(ctx, tab, &point, MouseAction::Move).await?;
            }
            tokio::time::sleep(DRAG_STEP_PAUSE).await;
            Ok::<(), ToolError>(())
        }
        .await;
        // Never leave the button held, whatever happened on the way.
        let released = mouse(ctx, tab, &goal, MouseAction::Up { button }).await;
        moved.and(released)
    };
    let mut result = act_and_settle(ctx, tab, action).await?;
    result["dragged"] = true.into();
    result["input"] = "gdk".into();
    if let Some(note) = note {
        result["note"] = note.into();
    }
    Ok(ToolOutput::json(result))
}

/// A drag with the X server's pointer, in steps the drag machinery sees.
async fn real_drag(
    ctx: &Ctx,
    tab: TabId,
    (sx, sy): (f64, f64),
    (gx, gy): (f64, f64),
) -> Result<Value, ToolError> {
    let pointer = |x: f64, y: f64, button: Option<(u32, bool)>| {
        ctx.app
            .browser
            .call_value(Command::RealPointer { tab, x, y, button })
    };
    // Fails at once where XTEST is missing, before anything was pressed.
    pointer(sx, sy, None).await?;
    let action = async {
        tokio::time::sleep(DRAG_STEP_PAUSE * 2).await;
        pointer(sx, sy, Some((BUTTON_LEFT, true))).await?;
        let moved = async {
            for step in 1..=DRAG_STEPS {
                tokio::time::sleep(DRAG_STEP_PAUSE * 2).await;
                let f = f64::from(step) / f64::from(DRAG_STEPS);
                pointer(sx + (gx - sx) * f, sy + (gy - sy) * f, None).await?;
            }
            // The drop target answers the drag's last move before the release.
            tokio::time::sleep(Duration::from_millis(120)).await;
            Ok::<(), ToolError>(())
        }
        .await;
        let released = pointer(gx, gy, Some((BUTTON_LEFT, false))).await;
        tokio::time::sleep(Duration::from_millis(120)).await;
        moved.and(released).map(|_| ())
    };
    act_and_settle(ctx, tab, action).await
}

async fn press(ctx: &Ctx, tab: TabId, key: String) -> ToolResult {
    let combo = key.clone();
    let action = async {
        ctx.app
            .browser
            .call_value(Command::PressKey { tab, combo })
            .await
            .map(|_| ())
    };
    let mut result = act_and_settle(ctx, tab, action).await?;
    result["key"] = key.into();
    Ok(ToolOutput::json(result))
}

async fn fill(ctx: &Ctx, tab: TabId, p: &ValueParams) -> ToolResult {
    let args = with(target(&p.r#ref, &p.selector)?, json!({"value": p.value}));
    let prepared = ctx.agent(tab, "prepare_fill", args.clone()).await?;
    if prepared["mode"] == "text" {
        // The engine's own text insertion: trusted beforeinput/input events.
        let (command, argument) = if p.value.is_empty() {
            ("Delete", None)
        } else {
            ("InsertText", Some(p.value.clone()))
        };
        ctx.app
            .browser
            .call_value(Command::Edit {
                tab,
                command,
                argument,
            })
            .await?;
    }
    let mut value = ctx.agent(tab, "value", args).await?;
    if prepared["mode"] != "text" {
        // Set by script (as select does): the page's input and change events are not trusted ones.
        value["trusted_events"] = false.into();
    }
    Ok(ToolOutput::json(value))
}

async fn type_text(ctx: &Ctx, tab: TabId, p: &ValueParams) -> ToolResult {
    let args = target(&p.r#ref, &p.selector)?;
    ctx.agent(tab, "prepare_type", args.clone()).await?;
    ctx.app
        .browser
        .call_value(Command::TypeText {
            tab,
            text: p.value.clone(),
        })
        .await?;
    // The command answers once the page has handled every key.
    Ok(ToolOutput::json(ctx.agent(tab, "value", args).await?))
}
