//! A click as a person makes it: once the element is ready, at the point
//! the checks found; a click the page moved another element under (the
//! page's interceptor stopped it before the page saw it) is tried again
//! while the wait lasts. Checking a box is clicking it until it is so.

use super::attempt::{ready, Attempt};
use super::front::deliver;
use crate::base::error::{ErrorCode, ToolError};
use crate::bridge::{ElementInput, Landed, MouseAction, Outcome, BUTTON_LEFT, BUTTON_MIDDLE};
use crate::browser::input::trusted;
use crate::browser::page::script;
use crate::page_protocol::ops::{Checkable, Click, Intercepted};
use crate::page_protocol::{self, ActionPoint, Located, PointOrChosen};
use serde_json::json;
use std::time::Duration;

/// A click as the tool asked for it: how many, which button, and the
/// modifier keys held around it.
pub(super) struct Press {
    pub count: u32,
    pub button: u32,
    pub keys: Option<trusted::Chord>,
    /// It opens a file chooser: it may land on a file input the page laid
    /// over the control.
    pub opens_chooser: bool,
}

impl Press {
    /// One plain left click.
    pub fn left(opens_chooser: bool) -> Press {
        Press {
            count: 1,
            button: BUTTON_LEFT,
            keys: None,
            opens_chooser,
        }
    }
}

/// How long the page may take to say what the click reached.
const ASK_LIMIT: Duration = Duration::from_secs(2);

/// Clicks once the element is ready; a click the page stopped is tried
/// again while the wait lasts, and its error says what each try reached.
pub(super) async fn click(
    attempt: &Attempt,
    target: &Located,
    press: Press,
) -> Result<Outcome, ToolError> {
    let Press {
        count,
        button,
        keys,
        opens_chooser,
    } = press;
    if button == BUTTON_MIDDLE {
        // A middle click pastes the primary selection: never the person's.
        let (allowed, answer) = tokio::sync::oneshot::channel();
        let clipboards = attempt.state.hands().seat().clipboards();
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
    // What each stopped click would have reached, in turn: said if none got through.
    let mut reached: Vec<String> = Vec::new();
    loop {
        // Only a plain left click chooses a drop-down's option.
        let click = Click::new(count, button == BUTTON_LEFT, opens_chooser);
        let point = match attempt
            .ask(&attempt.checks(target, &input, Some(click)))
            .await?
        {
            PointOrChosen::Chosen { chosen } => {
                attempt.note(None);
                return Ok(Outcome::Chosen { options: chosen });
            }
            PointOrChosen::Point(point) => point,
        };
        attempt.note(Some(&point.element));
        attempt.step(ready(&point.element, Some(&point)));
        let action = MouseAction::Click { button, count };
        let at = pointer(attempt, &point, action, keys.clone()).await?;
        attempt.step("clicked");
        let landed = |landed| Ok(Outcome::Clicked { at, landed });
        if attempt.state.blocked().is_some() {
            // The click opened a dialog: it reached the page's handler.
            return landed(Landed::OnTarget);
        }
        let asked = Intercepted(target.clone());
        let reply = script::ask(&attempt.view, &attempt.state, &asked, ASK_LIMIT).await;
        // No answer: the document the click reached is going (it navigated):
        // an interceptor dies with its document, and a stopped click navigates nowhere.
        let Ok(page_protocol::Intercepted {
            missed,
            lost,
            ended_on,
        }) = reply
        else {
            return landed(Landed::OnTarget);
        };
        match (missed, ended_on) {
            (None, Some(other)) => return landed(Landed::EndedOn(other)),
            (None, None) if lost => return landed(Landed::Lost),
            (None, None) => return landed(Landed::OnTarget),
            (Some(other), _) if attempt.in_time() => {
                attempt.step("the click stopped before the page saw it");
                reached.push(other);
            }
            (Some(other), _) => {
                reached.push(other.clone());
                return Err(ToolError::new(
                    ErrorCode::NotInteractable,
                    format!(
                        "the click would have reached {other}: the page moved it there as the pointer came, so the click was stopped before the page saw it (waited {} ms; {})",
                        attempt.wait().as_millis(),
                        attempts(&reached)
                    ),
                ));
            }
        }
    }
}

/// Clicks a checkbox or radio button until it is `want`: once, unless it
/// is so already; the control itself is clicked (the target may be its
/// label) and read back. A click that started a navigation (a control that
/// submits) is not read back: the page is going, and the tool reports the
/// navigation.
pub(super) async fn check(
    attempt: &Attempt,
    target: &Located,
    want: bool,
) -> Result<Outcome, ToolError> {
    let before = attempt.ask(&Checkable(target.clone())).await?;
    if before.checked == json!(want) {
        return Ok(Outcome::Checked {
            checked: Some(want),
            changed: false,
        });
    }
    if !want && before.radio {
        return Err(ToolError::invalid_params(
            "a radio button cannot be unchecked by clicking it; check another option of its group",
        ));
    }
    attempt.step(format!("read it: checked {}", before.checked));
    let control = target.in_same_frame(before.r#ref);
    let requested = attempt.state.nav().requested;
    click(attempt, &control, Press::left(false)).await?;
    if attempt.state.nav().requested != requested {
        return Ok(Outcome::Checked {
            checked: None,
            changed: true,
        });
    }
    let after = attempt.ask(&Checkable(control)).await?;
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
    Ok(Outcome::Checked {
        checked: Some(want),
        changed: true,
    })
}

/// A mouse action at the point the checks found, sent at once, with
/// `keys` (modifiers) pressed before it and released after; answers the
/// point.
pub(super) async fn pointer(
    attempt: &Attempt,
    point: &ActionPoint,
    action: MouseAction,
    keys: Option<trusted::Chord>,
) -> Result<(f64, f64), ToolError> {
    let at = (point.x, point.y);
    let (view, state) = (attempt.view.clone(), attempt.state.clone());
    deliver(view, state, move |view, hands| {
        if let Some(keys) = &keys {
            trusted::key_phase(view, hands, keys, true)?;
        }
        let done = trusted::mouse(view, hands, at, &action);
        if let Some(keys) = &keys {
            trusted::key_phase(view, hands, keys, false)?;
        }
        done.map(|_| json!({}))
    })
    .await?;
    Ok(at)
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
