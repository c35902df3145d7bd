//! click, fill, type, press, scroll, hover, focus: real (trusted) input.

use super::devices::Button;
use super::inspection::TargetParams;
use super::page::{element, Before, START_GRACE};
use super::vault_use::{secret_for, YES_WAIT};
use super::{identity_audit, tab_tool, Ctx, Replay, ToolDef, ToolOutput, ToolResult, ACTION};
use crate::base::error::{ErrorCode, ToolError};
use crate::bridge::{Acted, Command, ElementInput, Outcome, TabId};
use crate::page_protocol::ops::{Direction, Scroll};
use crate::page_protocol::{Located, Object, Target};
use crate::vault::Field;
use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::{json, Value};
use std::time::Duration;

pub fn tools() -> Vec<ToolDef> {
    vec![
        tab_tool(
            "click",
            "Click with a real mouse once visible, stable, enabled and on top (waits timeout ms, 5000); reports navigation and new tabs. A select's option is chosen. Like all key and pointer input, brings the tab to the front.",
            ACTION,
            |ctx: Ctx, tab: TabId, p: ClickParams| async move { click(&ctx, tab, &p).await },
        )
        .replayed(Replay::OnElement { value: false })
        .changes_the_page(),
        tab_tool(
            "fill",
            "Replace a field's value (once visible, enabled, editable) as one edit: input events, no key events (type sends keys). Selects, date/time/color/range inputs are set by script (trusted_events: false). Returns the value.",
            ACTION,
            |ctx: Ctx, tab: TabId, p: FillParams| async move { fill(&ctx, tab, &p).await },
        )
        .replayed(Replay::OnElement { value: true })
        .changes_the_page(),
        tab_tool(
            "type",
            "Type text key by key after a field's value (waits as fill). Returns the value, and a navigation a \"\\n\" or submit starts.",
            ACTION,
            |ctx: Ctx, tab: TabId, p: ValueParams| async move { type_text(&ctx, tab, &p).await },
        )
        .replayed(Replay::OnElement { value: true })
        .changes_the_page(),
        tab_tool(
            "press",
            "Press a key or chord (Enter, Tab, Control+a...) in the focused element. Reports a navigation it starts.",
            ACTION,
            |ctx: Ctx, tab: TabId, p: PressParams| async move { press(&ctx, tab, p.key).await },
        )
        .replayed(Replay::AsCalled)
        .changes_the_page(),
        tab_tool(
            "scroll",
            "Scroll the page. Returns the scroll position.",
            ACTION,
            |ctx: Ctx, tab: TabId, p: ScrollParams| async move {
                let asked = Scroll { direction: p.direction, amount: p.amount.unwrap_or(500) };
                Ok(ToolOutput::json(ctx.page(tab, asked).await?))
            },
        )
        .changes_the_page(),
        tab_tool(
            "hover",
            "Move the mouse over an element (waits as click; hover effects run).",
            ACTION,
            |ctx: Ctx, tab: TabId, p: TargetParams| async move {
                act(&ctx, tab, element(&p.r#ref, &p.selector)?, ElementInput::Hover, None).await?;
                Ok(ToolOutput::json(json!({"hovered": true})))
            },
        )
        .replayed(Replay::OnElement { value: false })
        .changes_the_page(),
        tab_tool(
            "dblclick",
            "Double-click an element with a real mouse (waits as click). Reports a navigation it starts.",
            ACTION,
            |ctx: Ctx, tab: TabId, p: TargetParams| async move {
                let mut result = click_target(&ctx, tab, element(&p.r#ref, &p.selector)?, ClickPress::left(2), None).await?;
                result.insert("double_clicked".into(), true.into());
                Ok(ToolOutput::json(Value::Object(result)))
            },
        )
        .replayed(Replay::OnElement { value: false })
        .changes_the_page(),
        tab_tool(
            "drag",
            "Drag with a real mouse from src_ref/src_selector onto tgt_ref/tgt_selector (waits as click): drag and drop, sliders, lists.",
            ACTION,
            |ctx: Ctx, tab: TabId, p: DragParams| async move { drag(&ctx, tab, p).await },
        )
        .changes_the_page(),
        tab_tool(
            "scroll_into_view",
            "Scroll an element to the middle of the view (scrolling boxes too) once visible. Returns its box.",
            ACTION,
            |ctx: Ctx, tab: TabId, p: TargetParams| async move {
                let shown = act(&ctx, tab, element(&p.r#ref, &p.selector)?, ElementInput::ScrollIntoView, None).await?;
                Ok(ToolOutput::json(shown.into_json()))
            },
        ),
        tab_tool(
            "focus",
            "Focus an element; a text field's caret goes after its value (keyboard_type adds to it).",
            ACTION,
            |ctx: Ctx, tab: TabId, p: TargetParams| async move { focus(&ctx, tab, &p).await },
        )
        .replayed(Replay::OnElement { value: false }),
    ]
}

#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ClickParams {
    #[serde(default)]
    r#ref: Option<String>,
    #[serde(default)]
    selector: Option<String>,
    /// left, right or middle.
    #[serde(default)]
    #[schemars(extend("default" = "left"))]
    button: Option<Button>,
    /// Keys held during the click.
    #[serde(default)]
    modifiers: Option<Vec<Modifier>>,
    #[serde(default)]
    timeout: Option<u64>,
}

#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ValueParams {
    #[serde(default)]
    r#ref: Option<String>,
    #[serde(default)]
    selector: Option<String>,
    /// The text (fill: or an option, a date...).
    value: String,
    /// Press Enter after.
    #[serde(default)]
    submit: Option<bool>,
    #[serde(default)]
    timeout: Option<u64>,
}

#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct FillParams {
    #[serde(default)]
    r#ref: Option<String>,
    #[serde(default)]
    selector: Option<String>,
    /// The text (or an option, a date...).
    #[serde(default)]
    value: Option<String>,
    /// Instead of value: a vault entry's name (secrets_list); its field is filled unseen.
    #[serde(default)]
    secret: Option<String>,
    /// With secret.
    #[serde(default)]
    field: Option<Field>,
    /// Press Enter after.
    #[serde(default)]
    submit: Option<bool>,
    #[serde(default)]
    timeout: Option<u64>,
}

#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct DragParams {
    /// What to drag (ref).
    #[serde(default)]
    src_ref: Option<String>,
    /// What to drag (CSS).
    #[serde(default)]
    src_selector: Option<String>,
    /// Where to drop (ref).
    #[serde(default)]
    tgt_ref: Option<String>,
    /// Where to drop (CSS).
    #[serde(default)]
    tgt_selector: Option<String>,
}

#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct PressParams {
    /// Enter, Tab, a, Control+a...
    pub key: String,
}

#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ScrollParams {
    /// up, down, left or right.
    direction: Direction,
    /// CSS px.
    #[serde(default)]
    #[schemars(extend("default" = 500))]
    amount: Option<u32>,
}

const SETTLE_LIMIT: Duration = Duration::from_secs(20);
/// How long an action that did not navigate waits for the requests it started.
const REQUESTS_LIMIT: Duration = Duration::from_secs(2);

/// How long an input waits for its element unless told otherwise.
pub const INPUT_WAIT: Duration = Duration::from_secs(5);
/// What an input may take once its element is ready (the page handling it).
const INPUT_MARGIN: Duration = Duration::from_secs(10);

/// Runs `input` on the element `target` names, as one step of the browser:
/// it waits (up to `timeout` ms) until the element can take it, then sends it.
pub async fn act(
    ctx: &Ctx,
    tab: TabId,
    target: Target,
    input: ElementInput,
    timeout: Option<u64>,
) -> Result<Outcome, ToolError> {
    ctx.wait_until_loaded(tab, Duration::from_secs(10)).await?;
    let given_ref = target.reference().map(str::to_string);
    // In the frame the session works in.
    let target = Located {
        target,
        frame: ctx.frame(tab),
    };
    let wait = timeout.map_or(INPUT_WAIT, Duration::from_millis);
    let command = Command::Act {
        tab,
        target,
        input,
        wait,
    };
    let Acted { outcome, element } = ctx
        .app
        .browser
        .call_with_timeout(command, wait + INPUT_MARGIN)
        .await?
        .into_acted()?;
    // Which element it was: for the recording, not the result.
    if let Some(mut element) = element {
        element.r#ref = given_ref;
        ctx.acted_on_element(element);
    }
    Ok(outcome)
}

/// An outcome as the object the tools answer (every outcome is one).
fn into_object(outcome: Outcome) -> Object {
    match outcome.into_json() {
        Value::Object(object) => object,
        _ => Object::new(),
    }
}

/// Runs an input action, then reports the navigation and new tabs it caused.
pub async fn act_and_settle<F>(ctx: &Ctx, tab: TabId, action: F) -> Result<Object, ToolError>
where
    F: std::future::Future<Output = Result<(), ToolError>>,
{
    let before = ctx.before(tab)?;
    action.await?;
    settle_after(ctx, tab, before).await
}

/// What an input that began at `before` caused: a navigation, new tabs, downloads.
pub(super) async fn settle_after(
    ctx: &Ctx,
    tab: TabId,
    before: Before,
) -> Result<Object, ToolError> {
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
    let mut result = Object::from_iter([("navigated".into(), navigated.into())]);
    if !navigated
        && !ctx
            .requests_settled(tab, before.requests, REQUESTS_LIMIT)
            .await
    {
        let said = format!(
            "requests it started were still in flight after {} ms (wait_for_load state networkidle waits for them)",
            REQUESTS_LIMIT.as_millis()
        );
        result.insert("requests_in_flight".into(), said.into());
    }
    // The address and title the agent already has are not said again: only
    // a navigation's, or what the page changed in place (history.pushState).
    let summary = ctx.page_summary(tab).await?;
    let (url, title) = (summary["url"].as_str(), summary["title"].as_str());
    if navigated || url != Some(before.url.as_str()) || title != Some(before.title.as_str()) {
        result.insert("url".into(), summary["url"].clone());
        result.insert("title".into(), summary["title"].clone());
    }
    if !new_tabs.is_empty() {
        result.insert("new_tabs".into(), new_tabs.into());
    }
    let downloads = ctx.downloads_since(before.downloads, SETTLE_LIMIT).await;
    if !downloads.is_empty() {
        result.insert("downloads".into(), json!(downloads));
    }
    Ok(result)
}

/// How a click presses: how many times, which button, which keys held.
pub struct ClickPress {
    pub count: u32,
    pub button: Button,
    pub modifiers: Vec<Modifier>,
}

impl ClickPress {
    /// A plain left click (2: a double click).
    pub fn left(count: u32) -> ClickPress {
        ClickPress {
            count,
            button: Button::Left,
            modifiers: Vec::new(),
        }
    }
}

/// A key held while clicking.
#[derive(Deserialize, JsonSchema, Clone, Copy, PartialEq, Eq)]
pub enum Modifier {
    Alt,
    Control,
    Meta,
    Shift,
}

/// The held keys as a chord ("Control+Shift"), none for none.
fn modifier_chord(modifiers: &[Modifier]) -> Option<String> {
    let names: Vec<&str> = modifiers
        .iter()
        .map(|m| match m {
            Modifier::Alt => "Alt",
            Modifier::Control => "Control",
            Modifier::Meta => "Meta",
            Modifier::Shift => "Shift",
        })
        .collect();
    (!names.is_empty()).then(|| names.join("+"))
}

async fn click(ctx: &Ctx, tab: TabId, p: &ClickParams) -> ToolResult {
    let press = ClickPress {
        count: 1,
        button: p.button.unwrap_or_default(),
        modifiers: p.modifiers.clone().unwrap_or_default(),
    };
    let target = element(&p.r#ref, &p.selector)?;
    let mut result = click_target(ctx, tab, target, press, p.timeout).await?;
    result.insert("clicked".into(), true.into());
    Ok(ToolOutput::json(Value::Object(result)))
}

/// Clicks `count` times (2: a double click) once the element can take it,
/// and reports what the clicks caused.
pub async fn click_target(
    ctx: &Ctx,
    tab: TabId,
    target: Target,
    press: ClickPress,
    timeout: Option<u64>,
) -> Result<Object, ToolError> {
    let before = ctx.before(tab)?;
    let input = ElementInput::Click {
        count: press.count,
        button: press.button.number(),
        modifiers: modifier_chord(&press.modifiers),
    };
    let done = act(ctx, tab, target, input, timeout).await?;
    // An option of a drop-down <select> is chosen, as from its menu.
    if let chosen @ Outcome::Chosen { .. } = done {
        return Ok(into_object(chosen));
    }
    let mut result = settle_after(ctx, tab, before).await?;
    // What the act said of the click itself: where it ended, and why.
    let said = into_object(done);
    for key in ["ended_on", "note"] {
        if let Some(value) = said.get(key) {
            result.insert(key.into(), value.clone());
        }
    }
    Ok(result)
}

/// A drag is one input on the main thread (`ElementInput::Drag`): both
/// ends found under one deadline, the button pressed, moved and released
/// there; then what it caused is reported as for a click.
async fn drag(ctx: &Ctx, tab: TabId, p: DragParams) -> ToolResult {
    let source = element(&p.src_ref, &p.src_selector)
        .map_err(|e| ToolError::invalid_params(format!("source: {}", e.message)))?;
    let goal = element(&p.tgt_ref, &p.tgt_selector)
        .map_err(|e| ToolError::invalid_params(format!("target: {}", e.message)))?;
    // Both ends in the frame the session works in.
    let input = ElementInput::Drag {
        to: goal,
        real_pointer: ctx.app.private_display,
    };
    let mut dragged = None;
    let mut result = act_and_settle(ctx, tab, async {
        dragged = Some(act(ctx, tab, source, input, None).await?);
        Ok(())
    })
    .await?;
    if let Some(dragged) = dragged {
        result.extend(into_object(dragged));
    }
    Ok(ToolOutput::json(Value::Object(result)))
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
    result.insert("key".into(), key.into());
    Ok(ToolOutput::json(Value::Object(result)))
}

async fn focus(ctx: &Ctx, tab: TabId, p: &TargetParams) -> ToolResult {
    // The focus and, where only the engine can, the caret: one input.
    let target = element(&p.r#ref, &p.selector)?;
    let focused = act(ctx, tab, target, ElementInput::Focus, None).await?;
    Ok(ToolOutput::json(focused.into_json()))
}

async fn fill(ctx: &Ctx, tab: TabId, p: &FillParams) -> ToolResult {
    let target = element(&p.r#ref, &p.selector)?;
    let submit = p.submit.unwrap_or(false);
    let value = match (&p.value, &p.secret) {
        (Some(value), None) => value.clone(),
        (None, Some(name)) => {
            let vault = Unseen {
                name,
                field: p.field,
            };
            return fill_secret(ctx, tab, target, vault, submit, p.timeout)
                .await
                .map(ToolOutput::json);
        }
        (Some(_), Some(_)) => {
            return Err(ToolError::invalid_params("give value or secret, not both"))
        }
        (None, None) => {
            return Err(ToolError::invalid_params(
                "give value (or secret and field, to fill from the person's vault)",
            ))
        }
    };
    let input = ElementInput::Fill {
        value,
        submit,
        vault: None,
    };
    filled(ctx, tab, target, input, p.timeout)
        .await
        .map(ToolOutput::json)
}

/// A vault entry's field, named by an agent (fill, fill_form).
pub struct Unseen<'a> {
    pub name: &'a str,
    pub field: Option<Field>,
}

/// Fills `target` with a secret of the person's vault, unseen: the answer
/// says which entry and field, never the value. Each use, done or
/// refused, is in the identity audit.
pub(super) async fn fill_secret(
    ctx: &Ctx,
    tab: TabId,
    target: Target,
    unseen: Unseen<'_>,
    submit: bool,
    timeout: Option<u64>,
) -> Result<Value, ToolError> {
    let url = ctx.tab_info(tab)?.url;
    let filled = async {
        let yes_within = timeout.map_or(YES_WAIT, Duration::from_millis);
        let vault = Some(secret_for(ctx, tab, unseen.name, unseen.field, yes_within).await?);
        let input = ElementInput::Fill {
            value: String::new(),
            submit,
            vault,
        };
        let mut answer = filled(ctx, tab, target, input, timeout).await?;
        if let Value::Object(answer) = &mut answer {
            answer.insert("secret".into(), unseen.name.into());
            answer.insert("field".into(), json!(unseen.field));
        }
        Ok(answer)
    }
    .await;
    let used = (unseen.name, json!(unseen.field));
    identity_audit::vault_used(ctx, &url, used, filled.as_ref().err());
    filled
}

/// Runs a fill, and reports what its Enter caused when it submits.
async fn filled(
    ctx: &Ctx,
    tab: TabId,
    target: Target,
    input: ElementInput,
    timeout: Option<u64>,
) -> Result<Value, ToolError> {
    let before = ctx.before(tab)?;
    let submit = matches!(input, ElementInput::Fill { submit: true, .. });
    let filled = act(ctx, tab, target, input, timeout).await?.into_json();
    match submit {
        true => entered(ctx, tab, before, filled, true).await,
        false => Ok(filled),
    }
}

async fn type_text(ctx: &Ctx, tab: TabId, p: &ValueParams) -> ToolResult {
    let args = element(&p.r#ref, &p.selector)?;
    let text = p.value.clone();
    let before = ctx.before(tab)?;
    let submit = p.submit.unwrap_or(false);
    let typed = act(
        ctx,
        tab,
        args,
        ElementInput::Type { text, submit },
        p.timeout,
    )
    .await?;
    let result = entered(ctx, tab, before, typed.into_json(), submit).await?;
    Ok(ToolOutput::json(result))
}

/// After a field took text (and `submitted`: an Enter pressed in it),
/// reports what the keys caused (a "\n" or the Enter may submit a form),
/// as press does, so that no agent submits twice.
pub async fn entered(
    ctx: &Ctx,
    tab: TabId,
    before: Before,
    reply: Value,
    submitted: bool,
) -> Result<Value, ToolError> {
    let mut result = settle_after(ctx, tab, before).await?;
    if let Value::Object(field) = reply {
        result.extend(field);
    }
    if submitted {
        result.insert("submitted".into(), true.into());
    }
    Ok(Value::Object(result))
}

/// Presses Enter in the focused field of the tab (fill_form's submit).
pub async fn press_enter(ctx: &Ctx, tab: TabId) -> Result<(), ToolError> {
    let combo = "Enter".to_string();
    let pressed = Command::PressKey { tab, combo };
    ctx.app.browser.call_value(pressed).await.map(drop)
}
