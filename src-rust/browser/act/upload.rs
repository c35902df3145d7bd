//! Files put in a file input as a person does it: the tab is armed with
//! them, the control clicked, and the chooser that click opens answered
//! with them; done once the input holds them and the page heard its
//! change event.

use super::attempt::Attempt;
use super::click::{click, Press};
use crate::base::error::{ErrorCode, ToolError};
use crate::bridge::Outcome;
use crate::browser::tab::state::TabState;
use crate::page_protocol::ops::{ChosenFiles, FileInput};
use crate::page_protocol::Located;
use serde_json::Value;
use std::time::{Duration, Instant};

/// How long a clicked file input may take to open its chooser.
const CHOOSER_WAIT: Duration = Duration::from_secs(3);
/// How often the chooser is looked for meanwhile.
const CHOOSER_LOOK: Duration = Duration::from_millis(10);

/// Puts `files` in the file input `target` names (or the one the control
/// it names opens); `expect` describes them for the page's watch.
pub(super) async fn upload(
    attempt: &Attempt,
    target: &Located,
    files: Vec<String>,
    expect: Value,
) -> Result<Outcome, ToolError> {
    let at = target.clone();
    let input = attempt.ask(&FileInput { at, expect }).await?;
    if files.len() > 1 && input.multiple == Some(false) {
        return Err(ToolError::invalid_params(format!(
            "this file input takes one file, and {} were given",
            files.len()
        )));
    }
    let control = target.in_same_frame(input.r#ref.clone());
    let given = files.len();
    let (view, state) = (&attempt.view, &attempt.state);
    state.arm_upload(view, Some(files));
    // Its click may land on a file input the page laid over it, as a
    // person's does.
    let opens_chooser = input.opener.is_some();
    let clicked = click(attempt, &control, Press::left(opens_chooser)).await;
    let opened = clicked.is_ok() && chooser_answered(state).await;
    if opened {
        attempt.step("the chooser took the files");
    }
    if !opened {
        state.arm_upload(view, None);
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
    let watch = input.watch;
    let chosen = attempt.ask(&ChosenFiles { at: control, watch }).await?;
    Ok(Outcome::Uploaded {
        input: input.r#ref,
        files: chosen.files,
        given,
        opened_by: input.opener.map(|_| chosen.input),
    })
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
