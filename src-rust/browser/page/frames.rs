//! Answers from agents in cross-origin frames.
//!
//! WebKit runs the browser's scripts in the main frame only. For an element
//! in a cross-origin frame the main frame's agent posts a signed request to
//! the frame's window (see `assets/agent/54-cross-origin-frames.js`), and the frame's agent answers
//! here, through a message handler that exists only in the agent's script
//! world, so no page sees the answer. An agent value that points at such a
//! request (a forwarded element operation, or a snapshot with frame markers)
//! is completed from these answers before it goes back to the tool.

use crate::browser::tab::frame_relay::{Outcome, Then};
use crate::browser::tab::state::TabState;
use serde_json::Value;
use std::cell::{Cell, RefCell};
use std::collections::HashMap;
use std::rc::Rc;
use std::time::Duration;

/// How a snapshot marks the place of a cross-origin frame's lines.
const FRAME_MARK: &str = "\u{1}frame ";
/// An element operation runs at once in the frame; a frame that does not
/// answer in this time is gone or still loading.
const FORWARD_TIMEOUT: Duration = Duration::from_secs(5);
/// A user script (eval) may await for long: as long as in the top document.
const SCRIPT_TIMEOUT: Duration = crate::bridge::DEFAULT_COMMAND_TIMEOUT;
/// A frame left out of a snapshot must not hold the whole page's snapshot up.
const SNAPSHOT_TIMEOUT: Duration = Duration::from_millis(2500);
/// Completes an agent's value: follows a forwarded operation to the frame
/// that runs it, and fills a snapshot's frame markers with the frames' own
/// snapshots (which may have frames of their own).
pub fn complete(state: &Rc<TabState>, value: Value, done: Then) {
    state.note_next_ref(&value);
    if let Some(nonce) = value.get("__forwarded").and_then(Value::as_str) {
        let state2 = state.clone();
        let then: Then = Box::new(move |outcome| match outcome {
            Ok(value) => complete(&state2, value, done),
            Err(error) => done(Err(error)),
        });
        let script = value.get("script").and_then(Value::as_bool) == Some(true);
        let timeout = if script {
            SCRIPT_TIMEOUT
        } else {
            FORWARD_TIMEOUT
        };
        state.frames().expect(nonce.to_string(), timeout, then);
        return;
    }
    let nonces: Vec<String> = match value.get("frames").and_then(Value::as_array) {
        Some(list) if !list.is_empty() => list
            .iter()
            .filter_map(|n| n.as_str().map(str::to_string))
            .collect(),
        _ => {
            done(Ok(value));
            return;
        }
    };
    let gather = Rc::new(Gather {
        value: RefCell::new(value),
        left: Cell::new(nonces.len()),
        texts: RefCell::new(HashMap::new()),
        done: RefCell::new(Some(done)),
    });
    for nonce in nonces {
        let (gather, state2) = (gather.clone(), state.clone());
        let key = nonce.clone();
        let then: Then = Box::new(move |outcome| match outcome {
            Ok(frame) => {
                let gather2 = gather.clone();
                complete(
                    &state2,
                    frame,
                    Box::new(move |outcome| gather2.record(key, frame_lines(outcome))),
                );
            }
            Err(error) => gather.record(key, frame_lines(Err(error))),
        });
        state.frames().expect(nonce, SNAPSHOT_TIMEOUT, then);
    }
}

/// A snapshot waiting for its frames' snapshots.
struct Gather {
    value: RefCell<Value>,
    left: Cell<usize>,
    texts: RefCell<HashMap<String, String>>,
    done: RefCell<Option<Then>>,
}

impl Gather {
    fn record(&self, nonce: String, text: String) {
        self.texts.borrow_mut().insert(nonce, text);
        self.left.set(self.left.get().saturating_sub(1));
        if self.left.get() > 0 {
            return;
        }
        let mut value = self.value.take();
        let texts = self.texts.take();
        if let Value::Object(map) = &mut value {
            map.remove("frames");
            let limit = map.get("limit").and_then(Value::as_u64).map(|n| n as usize);
            let tree = map.get("text").and_then(Value::as_str).unwrap_or_default();
            let spliced = splice(tree, &texts);
            let interactive = map.get("interactive").and_then(Value::as_bool) != Some(false);
            let text = match limit {
                Some(limit) => cut(&spliced, limit, interactive),
                None => spliced,
            };
            map.insert("text".into(), text.into());
        }
        let done = self.done.borrow_mut().take();
        if let Some(done) = done {
            done(Ok(value));
        }
    }
}

/// What a frame contributes to its parent's snapshot.
fn frame_lines(outcome: Outcome) -> String {
    match outcome {
        Ok(value) if value.get("count").and_then(Value::as_u64) == Some(0) => String::new(),
        Ok(value) => value["text"].as_str().unwrap_or_default().to_string(),
        Err(error) => format!("(frame content unavailable: {})", error.message),
    }
}

/// Puts each frame's lines where its marker is, indented like the marker.
fn splice(tree: &str, texts: &HashMap<String, String>) -> String {
    let mut out: Vec<String> = Vec::new();
    for line in tree.lines() {
        let body = line.trim_start_matches(' ');
        let Some(nonce) = body.strip_prefix(FRAME_MARK) else {
            out.push(line.to_string());
            continue;
        };
        let indent = &line[..line.len() - body.len()];
        if let Some(text) = texts.get(nonce) {
            out.extend(
                text.lines()
                    .filter(|l| !l.is_empty())
                    .map(|l| format!("{indent}{l}")),
            );
        }
    }
    out.join("\n")
}

/// Cuts at a line boundary, as the agent does, and says so.
fn cut(text: &str, limit: usize, interactive: bool) -> String {
    if text.chars().count() <= limit {
        return text.to_string();
    }
    let lines: Vec<&str> = text.lines().collect();
    let mut used = 0;
    let mut kept = 0;
    for (i, line) in lines.iter().enumerate() {
        let cost = line.chars().count() + usize::from(i > 0);
        if used + cost > limit {
            break;
        }
        used += cost;
        kept += 1;
    }
    let hint = if interactive {
        "scope the snapshot with ref or selector"
    } else {
        "scope it with ref or selector, or interactive=true"
    };
    let mut out = lines[..kept].join("\n");
    out.push_str(&format!(
        "\n[... truncated: {} more lines; {hint}]",
        lines.len() - kept
    ));
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn frame_lines_go_where_their_marker_is_with_its_indent() {
        let tree = "e1 button \"Top\"\niframe \"Ad\"\n  \u{1}frame abc\ne2 link \"After\"";
        let texts = HashMap::from([(
            "abc".to_string(),
            "f1e9 button \"Inner\"\ntext: hi".to_string(),
        )]);
        assert_eq!(
            splice(tree, &texts),
            "e1 button \"Top\"\niframe \"Ad\"\n  f1e9 button \"Inner\"\n  text: hi\ne2 link \"After\""
        );
    }

    #[test]
    fn a_marker_nobody_answered_for_is_dropped() {
        let tree = "iframe \"Ad\"\n\u{1}frame unknown";
        assert_eq!(splice(tree, &HashMap::new()), "iframe \"Ad\"");
    }

    #[test]
    fn an_assembled_snapshot_over_the_limit_is_cut_visibly() {
        let text = "- a\n- b\n- c\n- d";
        assert_eq!(
            cut(text, 7, true),
            "- a\n- b\n[... truncated: 2 more lines; scope the snapshot with ref or selector]"
        );
        assert_eq!(cut(text, 100, true), text);
    }
}
