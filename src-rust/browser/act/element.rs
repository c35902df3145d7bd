//! An input on an element as one step of the main thread: the page waits
//! until the element can take it (the `actionable` checks, retried on each
//! animation frame), and the input follows at once, with no crossing back
//! to the tools in between.

use super::attempt::Attempt;
use super::click::{self, Press};
use super::delivery;
use super::front::{bring_forward, deliver};
use super::upload::upload;
use crate::base::error::{ErrorCode, ToolError};
use crate::base::tab::TabId;
use crate::bridge::{Acted, ElementInput, MouseAction, Outcome, Output, Reply, CARET_TO_END};
use crate::browser::input::trusted;
use crate::browser::tab::state::TabState;
use crate::browser::window::browser::SharedBrowser;
use crate::browser::window::context::Turn;
use crate::page_protocol::ops::{
    Focus, PrepareFill, PrepareType, ReadValue, ScrollIntoView, Select,
};
use crate::page_protocol::{Located, Prepared};
use serde_json::{json, Value};
use std::rc::Rc;
use std::time::Duration;
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
        let _ = reply.send(answer.map(Output::Acted));
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

/// Runs the input in one [`Attempt`], and says which element the checks
/// found (its role, name, and whether it is a password field): the
/// recording keeps it, and the tools leave it out of their results.
async fn act(
    view: WebView,
    state: Rc<TabState>,
    target: Located,
    input: ElementInput,
    wait: Duration,
    limit: Duration,
) -> Result<Acted, ToolError> {
    let attempt = Attempt::new(view, state, wait, limit);
    let outcome = act_on(&attempt, &target, input)
        .await
        .map_err(|error| attempt.explain(error))?;
    Ok(Acted {
        outcome,
        element: attempt.found(),
    })
}

async fn act_on(
    attempt: &Attempt,
    target: &Located,
    input: ElementInput,
) -> Result<Outcome, ToolError> {
    let (view, state) = (&attempt.view, &attempt.state);
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
            click::click(attempt, target, press).await
        }
        ElementInput::Hover => {
            let point = attempt.point(target, &input).await?;
            attempt.note(Some(&point.element));
            let at = click::pointer(attempt, &point, MouseAction::Move, None).await?;
            Ok(Outcome::Hovered { at })
        }
        ElementInput::Check { want } => click::check(attempt, target, want).await,
        ElementInput::Upload { files, expect } => upload(attempt, target, files, expect).await,
        ElementInput::Drag {
            ref to,
            real_pointer,
        } => {
            let goal = Located {
                target: to.clone(),
                frame: target.frame.clone(),
            };
            // The goal scrolled into view first, then the source found:
            // both must be on screen together.
            attempt.point(&goal, &input).await?;
            let from = attempt.point(target, &input).await?;
            attempt.note(Some(&from.element));
            let onto = attempt.point(&goal, &input).await?;
            super::drag::drag(view.clone(), state.clone(), from, onto, real_pointer).await
        }
        ElementInput::Fill {
            vault: Some(ref secret),
            submit,
            ..
        } => {
            let fill = PrepareFill {
                value: secret.value.clone(),
                vault_origins: Some(secret.origins.clone()),
            };
            let prepared = attempt.then(target, &input, fill).await?;
            let took = prepared.read.as_ref().and_then(|r| r.get("filled"));
            if took != Some(&Value::Bool(true)) {
                return Err(ToolError::new(
                    ErrorCode::NotInteractable,
                    "the field did not take the secret (its page emptied it, or it takes no text)",
                ));
            }
            // What this page's group sends from now on may carry it, and an
            // agent's script in a page's world could read it: both are refused
            // until the page is left, as for what the person typed.
            state.related().note_vault_filled(state.id());
            if submit {
                press_enter(view, state).await?;
            }
            Ok(Outcome::Field {
                value: json!({"filled": true}),
                by_script: prepared.mode != "text",
            })
        }
        ElementInput::Fill {
            ref value,
            submit,
            vault: None,
        } => {
            // The page puts the value in (typed text with the engine's own
            // editing command) and reads it back, all in the checks' turn.
            let fill = PrepareFill {
                value: value.clone().into(),
                vault_origins: None,
            };
            let Prepared {
                mode,
                input_type,
                read,
                ..
            } = attempt.then(target, &input, fill).await?;
            let read = read.ok_or_else(|| {
                ToolError::internal("prepare_fill answered without the field's value")
            })?;
            let typed = mode == "text";
            if typed && !value.is_empty() && read.get("value") == Some(&Value::from("")) {
                return Err(refused(value, input_type.as_deref()));
            }
            if submit {
                press_enter(view, state).await?;
            }
            Ok(Outcome::Field {
                value: Value::Object(read),
                by_script: !typed,
            })
        }
        ElementInput::Type { ref text, submit } => {
            let prepared = attempt.then(target, &input, PrepareType {}).await?;
            if prepared.caret_by_engine {
                // WebKit selected the field's content on focus: keys would replace it.
                edit(view, state, CARET_TO_END, None).await?;
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
            let value = attempt
                .ask(&ReadValue(target.clone()))
                .await
                .map_or_else(|_| json!({}), Value::Object);
            if submit {
                press_enter(view, state).await?;
            }
            Ok(Outcome::Field {
                value,
                by_script: false,
            })
        }
        ElementInput::Select { ref values } => {
            let values = values.clone();
            let chosen = attempt.then(target, &input, Select { values }).await?;
            // Script-set options: the page's input and change events are not trusted ones.
            Ok(Outcome::Field {
                value: Value::Object(chosen),
                by_script: true,
            })
        }
        ElementInput::ScrollIntoView => {
            let shown = attempt.then(target, &input, ScrollIntoView {}).await?;
            Ok(Outcome::Shown(Value::Object(shown)))
        }
        ElementInput::Focus => {
            let focused = attempt.then(target, &input, Focus {}).await?;
            if focused.caret_by_engine {
                // WebKit selected the field's content on focus, and only the
                // engine moves the caret in email and number fields.
                edit(view, state, CARET_TO_END, None).await?;
            }
            Ok(Outcome::Focused(Value::Object(focused.reply)))
        }
    }
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
