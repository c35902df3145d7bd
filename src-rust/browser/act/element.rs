//! An input on an element as one step of the main thread: the page waits
//! until the element can take it (the `actionable` checks, retried on each
//! animation frame), and the input follows at once, with no crossing back
//! to the tools in between.

use super::delivery;
use super::front::{bring_forward, deliver};
use crate::base::error::{ErrorCode, ToolError};
use crate::base::tab::TabId;
use crate::bridge::{
    ElementInput, MouseAction, Output, Reply, BUTTON_LEFT, BUTTON_MIDDLE, CARET_TO_END,
};
use crate::browser::input::trusted;
use crate::browser::page::script;
use crate::browser::tab::state::TabState;
use crate::browser::window::browser::SharedBrowser;
use crate::browser::window::context::Turn;
use crate::page_protocol::{
    self, ActionPoint, Args, Checkable, ChosenFiles, FileInput, Intercepted, Located, Object,
    PageOp, PointOrChosen, Prepared,
};
use serde::Deserialize;
use serde_json::{json, Value};
use std::cell::RefCell;
use std::rc::Rc;
use std::time::{Duration, Instant};
use webkit2gtk::WebView;

/// Starts `input` on the element `target` names; answers `reply` once the
/// page has handled the input (or the element never became ready).
pub(crate) fn run(
    browser: &SharedBrowser,
    tab: TabId,
    target: Located,
    input: ElementInput,
    wait: Duration,
    reply: Reply,
    limit: Duration,
) {
    let browser = browser.clone();
    glib::MainContext::default().spawn_local(async move {
        let answer = match place_for(&browser, tab, &input).await {
            // Its caller stopped waiting while it waited its turn at the
            // front: the input is not sent late.
            Ok((_, _, Some(_))) if reply.is_closed() => return,
            Ok((view, state, turn)) => {
                let answer = act(view, state, target, input, wait, limit).await;
                drop(turn);
                answer
            }
            Err(error) => Err(error),
        };
        let _ = reply.send(answer.map(Output::Value));
    });
}

/// The tab, brought to the front for inputs that need it (pointer and
/// keys), with the window's turn at the front for as long as the input
/// runs; a field filled or an option chosen by script stays where it is.
async fn place_for(
    browser: &SharedBrowser,
    tab: TabId,
    input: &ElementInput,
) -> Result<(WebView, Rc<TabState>, Option<Turn>), ToolError> {
    match input {
        ElementInput::Fill { submit: false, .. }
        | ElementInput::Select { .. }
        | ElementInput::ScrollIntoView
        | ElementInput::Focus => browser
            .borrow()
            .tab(tab)
            .map(|t| (t.webkit.clone(), t.state.clone(), None)),
        _ => {
            let (view, state, turn) = bring_forward(browser, tab).await?;
            Ok((view, state, Some(turn)))
        }
    }
}

/// What `actionable` answers when another op ran after its checks.
#[derive(Deserialize)]
struct After<T> {
    result: T,
}

/// Runs the input, and says in the reply's `element` which element the
/// checks found (its role, name, and whether it is a password field): the
/// recording keeps it, and the tools take it out of their results.
async fn act(
    view: WebView,
    state: Rc<TabState>,
    target: Located,
    input: ElementInput,
    wait: Duration,
    limit: Duration,
) -> Result<Value, ToolError> {
    let seen = Rc::new(RefCell::new(None));
    let done = act_on(view, state, target, input, wait, limit, &seen).await?;
    let element = seen.take();
    Ok(match (done, element) {
        (Value::Object(mut reply), Some(element)) => {
            reply.insert("element".into(), element);
            Value::Object(reply)
        }
        (done, _) => done,
    })
}

/// The element an `actionable` reply describes (its point, or the point
/// before the op that ran after the checks).
fn element_of(reply: &Value) -> Option<Value> {
    let point = reply.get("point").unwrap_or(reply);
    let role = point.get("role")?.as_str()?;
    Some(json!({
        "role": role,
        "name": point.get("name").and_then(Value::as_str).unwrap_or_default(),
        "secret": point.get("secret").and_then(Value::as_bool).unwrap_or(false),
        "testid": point.get("testid").and_then(Value::as_str),
    }))
}

async fn act_on(
    view: WebView,
    state: Rc<TabState>,
    target: Located,
    input: ElementInput,
    wait: Duration,
    limit: Duration,
    seen: &Rc<RefCell<Option<Value>>>,
) -> Result<Value, ToolError> {
    let ready = |input: &ElementInput| {
        let args = actionable_args(&target, input, wait);
        let (view, state, seen) = (view.clone(), state.clone(), seen.clone());
        async move {
            let reply = script::agent_value(&view, &state, PageOp::Actionable, args, limit).await?;
            *seen.borrow_mut() = element_of(&reply);
            Ok::<Value, ToolError>(reply)
        }
    };
    let op = PageOp::Actionable;
    match input {
        ElementInput::Click {
            count,
            button,
            ref modifiers,
        } => {
            let press = Press {
                count,
                button,
                keys: modifiers.as_deref().map(trusted::parse_chord).transpose()?,
                opens_chooser: false,
            };
            click(view, state, target, press, (wait, limit), seen).await
        }
        ElementInput::Hover => {
            let point: ActionPoint = page_protocol::parse(op, ready(&input).await?)?;
            pointer(view, state, point, MouseAction::Move, None).await
        }
        ElementInput::Check { want } => check(view, state, target, want, (wait, limit), seen).await,
        ElementInput::Upload {
            ref files,
            ref expect,
        } => {
            let chosen = (files.clone(), expect.clone());
            upload(view, state, target, chosen, (wait, limit), seen).await
        }
        ElementInput::Drag {
            ref to,
            real_pointer,
        } => {
            // One deadline for both ends: each waits only what is left.
            let started = Instant::now();
            let left = || wait.saturating_sub(started.elapsed());
            let to = Located {
                target: to.clone(),
                frame: target.frame.clone(),
            };
            let point = |target: &Located, wait: Duration| {
                let args = actionable_args(target, &input, wait);
                let (view, state) = (view.clone(), state.clone());
                async move {
                    let reply = script::agent_value(&view, &state, op, args, limit).await?;
                    Ok::<_, ToolError>((
                        page_protocol::parse::<ActionPoint>(op, reply.clone())?,
                        reply,
                    ))
                }
            };
            // The goal scrolled into view first, then the source found:
            // both must be on screen together.
            point(&to, left()).await?;
            let (from, described) = point(&target, left()).await?;
            *seen.borrow_mut() = element_of(&described);
            let (onto, _) = point(&to, left()).await?;
            super::drag::drag(view, state, from, onto, real_pointer).await
        }
        ElementInput::Fill { ref value, submit } => {
            // The page puts the value in (typed text with the engine's own
            // editing command) and reads it back, all in the checks' turn.
            let prepared: After<Prepared> = page_protocol::parse(op, ready(&input).await?)?;
            let Prepared {
                mode,
                input_type,
                read,
                ..
            } = prepared.result;
            let mut reply = read.ok_or_else(|| {
                ToolError::internal("prepare_fill answered without the field's value")
            })?;
            let typed = mode == "text";
            if typed && !value.is_empty() && reply.get("value") == Some(&Value::from("")) {
                return Err(refused(value, input_type.as_deref()));
            }
            if !typed {
                // Set by script: the page's input and change events are not trusted ones.
                reply.insert("trusted_events".into(), false.into());
            }
            if submit {
                press_enter(&view, &state).await?;
            }
            Ok(Value::Object(reply))
        }
        ElementInput::Type { ref text, submit } => {
            let prepared: After<Prepared> = page_protocol::parse(op, ready(&input).await?)?;
            if prepared.result.caret_by_engine {
                // WebKit selected the field's content on focus: keys would replace it.
                edit(&view, &state, CARET_TO_END, None).await?;
            }
            let text = text.clone();
            deliver(view.clone(), state.clone(), move |view, hands| {
                trusted::focus(view, hands)?;
                trusted::type_text(view, hands, &text).map(|_| json!({}))
            })
            .await?;
            // The input answers once the page has handled every key. A key
            // (Enter) may have submitted the form: the field is then gone,
            // and the tool reports the navigation instead.
            let value = field_value(&view, &state, target, limit)
                .await
                .map_or_else(|_| json!({}), Value::Object);
            if submit {
                press_enter(&view, &state).await?;
            }
            Ok(value)
        }
        ElementInput::Select { .. } => {
            let chosen: After<Object> = page_protocol::parse(op, ready(&input).await?)?;
            let mut reply = chosen.result;
            // Script-set options: the page's input and change events are not trusted ones.
            reply.insert("trusted_events".into(), false.into());
            Ok(Value::Object(reply))
        }
        ElementInput::ScrollIntoView => {
            let shown: After<Object> = page_protocol::parse(op, ready(&input).await?)?;
            Ok(Value::Object(shown.result))
        }
        ElementInput::Focus => {
            let focused: After<Object> = page_protocol::parse(op, ready(&input).await?)?;
            let mut reply = focused.result;
            if reply.remove("caret_by_engine") == Some(Value::Bool(true)) {
                // WebKit selected the field's content on focus, and only the
                // engine moves the caret in email and number fields.
                edit(&view, &state, CARET_TO_END, None).await?;
            }
            Ok(Value::Object(reply))
        }
    }
}

/// Clicks a checkbox or radio button until it is `want`: once, unless it
/// is so already; the control itself is clicked (the target may be its
/// label) and read back. A click that started a navigation (a control that
/// submits) is not read back: the page is going, and the tool reports the
/// navigation.
async fn check(
    view: WebView,
    state: Rc<TabState>,
    target: Located,
    want: bool,
    (wait, limit): (Duration, Duration),
    seen: &Rc<RefCell<Option<Value>>>,
) -> Result<Value, ToolError> {
    let read = |target: Located| {
        let (view, state) = (view.clone(), state.clone());
        async move {
            let reply =
                script::agent_value(&view, &state, PageOp::Checkable, target.args(), limit).await?;
            page_protocol::parse::<Checkable>(PageOp::Checkable, reply)
        }
    };
    let before = read(target.clone()).await?;
    if before.checked == json!(want) {
        return Ok(json!({"checked": want, "changed": false}));
    }
    if !want && before.radio {
        return Err(ToolError::invalid_params(
            "a radio button cannot be unchecked by clicking it; check another option of its group",
        ));
    }
    let control = target.in_same_frame(before.r#ref);
    let requested = state.nav().requested;
    click_once(&view, &state, &control, false, (wait, limit), seen).await?;
    if state.nav().requested != requested {
        return Ok(json!({"checked": null, "changed": true}));
    }
    let after = read(control).await?;
    if after.checked != json!(want) {
        let verb = if want { "check" } else { "uncheck" };
        return Err(ToolError::new(
            ErrorCode::NotInteractable,
            format!(
                "clicking did not {verb} it (a page script may have undone it); it is now {}",
                after.checked
            ),
        ));
    }
    Ok(json!({"checked": want, "changed": true}))
}

/// One plain left click on `control`, as `click` does it.
async fn click_once(
    view: &WebView,
    state: &Rc<TabState>,
    control: &Located,
    opens_chooser: bool,
    budget: (Duration, Duration),
    seen: &Rc<RefCell<Option<Value>>>,
) -> Result<Value, ToolError> {
    let press = Press {
        count: 1,
        button: BUTTON_LEFT,
        keys: None,
        opens_chooser,
    };
    click(
        view.clone(),
        state.clone(),
        control.clone(),
        press,
        budget,
        seen,
    )
    .await
}

/// How long a clicked file input may take to open its chooser.
const CHOOSER_WAIT: Duration = Duration::from_secs(3);
/// How often the chooser is looked for meanwhile.
const CHOOSER_LOOK: Duration = Duration::from_millis(10);

/// Puts `files` in the file input `target` names (or the one the control
/// it names opens) as a person does: the tab is armed with them, the
/// control clicked, and the chooser that click opens answered with them;
/// answers once the input holds them and the page heard its change event.
async fn upload(
    view: WebView,
    state: Rc<TabState>,
    target: Located,
    (files, expect): (Vec<String>, Value),
    (wait, limit): (Duration, Duration),
    seen: &Rc<RefCell<Option<Value>>>,
) -> Result<Value, ToolError> {
    let mut asked = target.args();
    asked.insert("expect".into(), expect);
    let found = script::agent_value(&view, &state, PageOp::FileInput, asked, limit).await?;
    let input: FileInput = page_protocol::parse(PageOp::FileInput, found)?;
    if files.len() > 1 && input.multiple == Some(false) {
        return Err(ToolError::invalid_params(format!(
            "this file input takes one file, and {} were given",
            files.len()
        )));
    }
    let control = target.in_same_frame(input.r#ref.clone());
    let count = files.len();
    state.arm_upload(&view, Some(files));
    // Its click may land on a file input the page laid over it, as a
    // person's does.
    let opens_chooser = input.opener.is_some();
    let clicked = click_once(&view, &state, &control, opens_chooser, (wait, limit), seen).await;
    let opened = clicked.is_ok() && chooser_answered(&state).await;
    if !opened {
        state.arm_upload(&view, None);
        clicked?;
        let why = match &input.opener {
            Some(what) => format!(
                "clicking {what} did not open a file chooser; give the file input's ref, or the control that opens it"
            ),
            None => "the click did not open a file chooser (a page script may prevent it)".into(),
        };
        return Err(ToolError::new(ErrorCode::NotInteractable, why));
    }
    // The input takes the files a moment after the chooser is answered.
    // The ref routes the question to the input's frame; the watch answers it.
    let mut asked = control.args();
    asked.insert("watch".into(), json!(input.watch));
    let held = script::agent_value(&view, &state, PageOp::ChosenFiles, asked, limit).await?;
    let chosen: ChosenFiles = page_protocol::parse(PageOp::ChosenFiles, held)?;
    let mut reply = json!({"ref": input.r#ref, "files": chosen.files});
    if input.opener.is_some() {
        reply["input"] = chosen.input.into();
    }
    if chosen.files.len() < count {
        reply["note"] = format!(
            "the chooser took {} of the {count} files (it takes one at a time)",
            chosen.files.len(),
        )
        .into();
    }
    Ok(reply)
}

/// Whether the tab's chooser took the armed files within [`CHOOSER_WAIT`]
/// (the chooser's handler takes them as it answers).
async fn chooser_answered(state: &TabState) -> bool {
    let deadline = Instant::now() + CHOOSER_WAIT;
    while state.upload_pending() {
        if Instant::now() >= deadline {
            return false;
        }
        glib::timeout_future(CHOOSER_LOOK).await;
    }
    true
}

/// Presses Enter in the focused field (a fill or type that submits), and
/// answers once the page has handled it.
async fn press_enter(view: &WebView, state: &Rc<TabState>) -> Result<Value, ToolError> {
    let enter = trusted::parse_chord("Enter")?;
    deliver(view.clone(), state.clone(), move |view, hands| {
        trusted::press(view, hands, &enter).map(|_| json!({}))
    })
    .await
}

/// A value the field did not take (a number field given letters): said,
/// never reported as filled.
fn refused(value: &str, input_type: Option<&str>) -> ToolError {
    let why = match input_type {
        Some("number") => " (an <input type=number> takes only a number, e.g. 42 or -1.5)",
        _ => "",
    };
    ToolError::new(
        ErrorCode::InvalidParams,
        format!("the field did not take {value:?}: its value is empty{why}"),
    )
}

/// How long the page may take to say what the click reached.
const ASK_LIMIT: Duration = Duration::from_secs(2);

/// The arguments of `actionable` for `input` on `target`.
fn actionable_args(target: &Located, input: &ElementInput, wait: Duration) -> Args {
    let mut args = target.args();
    args.insert("checks".into(), json!(input.checks()));
    args.insert("wait_ms".into(), (wait.as_millis() as u64).into());
    if let Some(then) = input.then() {
        args.insert("then".into(), then.name().into());
    }
    match input {
        ElementInput::Click { count, button, .. } => {
            // Only a plain left click chooses a drop-down's option.
            args.insert("choose".into(), (*button == BUTTON_LEFT).into());
            args.insert("intercept".into(), true.into());
            args.insert("count".into(), (*count).into());
        }
        ElementInput::Fill { value, .. } => {
            args.insert("value".into(), value.as_str().into());
        }
        ElementInput::Select { values } => {
            args.insert("values".into(), json!(values));
        }
        _ => {}
    }
    args
}

/// A click as the tool asked for it: how many, which button, and the
/// modifier keys held around it.
struct Press {
    count: u32,
    button: u32,
    keys: Option<trusted::Chord>,
    /// It opens a file chooser: it may land on a file input the page laid
    /// over the control.
    opens_chooser: bool,
}

/// Clicks once the element is ready; a click the page moved another
/// element under (the interceptor stopped it) is tried again while time is left.
async fn click(
    view: WebView,
    state: Rc<TabState>,
    target: Located,
    press: Press,
    (wait, limit): (Duration, Duration),
    seen: &Rc<RefCell<Option<Value>>>,
) -> Result<Value, ToolError> {
    let op = PageOp::Actionable;
    let Press {
        count,
        button,
        keys,
        opens_chooser,
    } = press;
    if button == BUTTON_MIDDLE {
        // A middle click pastes the primary selection: never the person's.
        let (allowed, answer) = tokio::sync::oneshot::channel();
        let clipboards = state.hands().seat().clipboards();
        clipboards.check_middle_click(move |result| {
            let _ = allowed.send(result);
        });
        answer
            .await
            .map_err(|_| ToolError::internal("the clipboard check was dropped"))??;
    }
    let input = ElementInput::Click {
        count,
        button,
        modifiers: None,
    };
    let deadline = Instant::now() + wait;
    // What each stopped click would have reached, in turn: said if none got through.
    let mut reached: Vec<String> = Vec::new();
    loop {
        let left = deadline.saturating_duration_since(Instant::now());
        let mut args = actionable_args(&target, &input, left);
        if opens_chooser {
            args.insert("opens_chooser".into(), true.into());
        }
        let ready = script::agent_value(&view, &state, op, args, limit).await?;
        *seen.borrow_mut() = element_of(&ready);
        let point = match page_protocol::parse(op, ready)? {
            PointOrChosen::Chosen { chosen } => {
                return Ok(json!({"chosen": chosen, "trusted_events": false}))
            }
            PointOrChosen::Point(point) => point,
        };
        let action = MouseAction::Click { button, count };
        let clicked = pointer(view.clone(), state.clone(), point, action, keys.clone()).await?;
        if state.blocked().is_some() {
            // The click opened a dialog: it reached the page's handler.
            return Ok(clicked);
        }
        let asked = PageOp::Intercepted;
        let reply = script::agent_value(&view, &state, asked, target.args(), ASK_LIMIT).await;
        // No answer: the document the click reached is going (it navigated):
        // an interceptor dies with its document, and a stopped click navigates nowhere.
        let (missed, lost, ended_on) =
            match reply.and_then(|r| page_protocol::parse::<Intercepted>(asked, r)) {
                Ok(Intercepted {
                    missed,
                    lost,
                    ended_on,
                }) => (missed, lost, ended_on),
                Err(_) => (None, false, None),
            };
        match missed {
            None if ended_on.is_some() => return Ok(ended_on_another(clicked, ended_on)),
            None if lost => return Ok(lost_click(clicked)),
            None => return Ok(clicked),
            Some(other) if Instant::now() < deadline => reached.push(other),
            Some(other) => {
                reached.push(other.clone());
                return Err(ToolError::new(
                    ErrorCode::NotInteractable,
                    format!(
                        "the click would have reached {other}: the page moved it there as the pointer came, so the click was stopped before the page saw it (waited {} ms; {})",
                        wait.as_millis(),
                        attempts(&reached)
                    ),
                ));
            }
        }
    }
}

/// How many of a click's stopped tries its error names.
const TRIES_SAID: usize = 4;

/// The tries of a click that never got through, as its error says them.
/// At most the last [`TRIES_SAID`] are named: a long wait may try often.
fn attempts(reached: &[String]) -> String {
    let said = &reached[reached.len().saturating_sub(TRIES_SAID)..];
    let earlier = if said.len() < reached.len() {
        "..., then "
    } else {
        ""
    };
    match reached {
        [] | [_] => "tried once".into(),
        _ => format!(
            "tried {} times: it would have reached {earlier}{}",
            reached.len(),
            said.join(", then ")
        ),
    }
}

/// A click whose element replaced itself as it was pressed (it took focus
/// and became an editor, say): the release landed on what replaced it, as
/// a person's would, and the result says what that is.
fn ended_on_another(mut clicked: Value, ended_on: Option<String>) -> Value {
    if let Value::Object(reply) = &mut clicked {
        reply.insert("ended_on".into(), ended_on.into());
        let note = "the element replaced itself as it was pressed; the release landed on what replaced it (ended_on), as a person's would";
        reply.insert("note".into(), note.into());
    }
    clicked
}

/// A click the page took away: not pressed again (the press and release
/// did reach the element, and may have done something), but said, so that
/// the agent knows the page did not hear a click.
fn lost_click(mut clicked: Value) -> Value {
    if let Value::Object(reply) = &mut clicked {
        let note = "the page replaced the element between press and release (it rendered it anew), so no click event fired; take a snapshot and click again if nothing happened";
        reply.insert("note".into(), note.into());
    }
    clicked
}

/// A mouse action at the point the checks found, sent at once, with
/// `keys` (modifiers) pressed before it and released after.
async fn pointer(
    view: WebView,
    state: Rc<TabState>,
    point: ActionPoint,
    action: MouseAction,
    keys: Option<trusted::Chord>,
) -> Result<Value, ToolError> {
    let at = json!({"x": point.x, "y": point.y});
    deliver(view, state, move |view, hands| {
        if let Some(keys) = &keys {
            trusted::key_phase(view, hands, keys, true)?;
        }
        let done = trusted::mouse(view, hands, (point.x, point.y), &action);
        if let Some(keys) = &keys {
            trusted::key_phase(view, hands, keys, false)?;
        }
        done.map(|_| at)
    })
    .await
}

async fn field_value(
    view: &WebView,
    state: &Rc<TabState>,
    target: Located,
    limit: Duration,
) -> Result<Object, ToolError> {
    let value = script::agent_value(view, state, PageOp::Value, target.args(), limit).await?;
    page_protocol::parse(PageOp::Value, value)
}

async fn edit(
    view: &WebView,
    state: &TabState,
    command: &'static str,
    argument: Option<String>,
) -> Result<(), ToolError> {
    let (reply, answer) = tokio::sync::oneshot::channel();
    delivery::edit(view, state, command, argument, reply);
    match answer.await {
        Ok(result) => result.map(|_| ()),
        Err(_) => Err(ToolError::internal("the editing command was dropped")),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_click_that_never_got_through_says_its_tries() {
        assert_eq!(attempts(&[]), "tried once");
        assert_eq!(attempts(&["button \"Ad\"".into()]), "tried once");
        let two = [
            "button \"Ad\"".to_string(),
            "generic (#overlay)".to_string(),
        ];
        assert_eq!(
            attempts(&two),
            "tried 2 times: it would have reached button \"Ad\", then generic (#overlay)"
        );
        let many: Vec<String> = (1..=9).map(|n| format!("generic (#ad{n})")).collect();
        assert_eq!(
            attempts(&many),
            "tried 9 times: it would have reached ..., then generic (#ad6), then generic (#ad7), then generic (#ad8), then generic (#ad9)"
        );
    }
}
