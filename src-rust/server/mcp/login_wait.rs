//! A browser tool called before anyone logged in, by a 2026-07-28 client
//! that can show its user a form (elicitation): instead of NOT_LOGGED_IN
//! at once, an `input_required` result asks the person to log in, in the
//! browser's own window or panel, and to say so; the client then calls
//! again. The answer only lets the call go on: whether someone is logged in
//! is read from the browser itself, so a client's "accept" logs nobody in.

use super::envelope::Envelope;
use super::tool_calls::{error_result, server_info};
use crate::base::error::{ErrorCode, ToolError};
use crate::tools::app::App;
use crate::tools::ToolDef;
use serde_json::{json, Value};

/// The key of the one input this server asks for.
const LOGIN: &str = "login";

const MESSAGE: &str = "Sovereign Browser has no identity logged in, and its browser tools \
wait for one. Log in in the browser's control panel (its own window, or the panel address \
it printed when it started), then accept; decline to stop.";

/// What a call gets instead of running.
pub(super) enum Instead {
    /// The question, an `input_required` result.
    Ask(Value),
    /// The person said no: the tool's error, as a complete result.
    Refuse(Value),
}

/// What to answer instead of running the call, if anything. None: run it.
pub(super) fn before_call(
    app: &App,
    envelope: &Envelope,
    tool: &ToolDef,
    params: &Value,
) -> Option<Instead> {
    if !tool.gated || app.identity.is_logged_in() {
        return None;
    }
    if let Some(answer) = params.pointer(&format!("/inputResponses/{LOGIN}")) {
        return match answer["action"].as_str() {
            // Run it: the login gate tells whether someone did log in.
            Some("accept") => None,
            _ => Some(Instead::Refuse(error_result(&ToolError::new(
                ErrorCode::NotLoggedIn,
                "no identity is logged in, and the person chose not to log in now",
            )))),
        };
    }
    if !shows_forms(envelope) {
        return None;
    }
    let mut meta = json!({});
    meta["io.modelcontextprotocol/serverInfo"] = server_info();
    Some(Instead::Ask(json!({
        "resultType": "input_required",
        "inputRequests": {
            LOGIN: {
                "method": "elicitation/create",
                "params": {
                    "mode": "form",
                    "message": MESSAGE,
                    "requestedSchema": {"type": "object", "properties": {}},
                },
            },
        },
        "_meta": meta,
    })))
}

/// Whether the client declared form elicitation (an empty `elicitation`
/// capability means forms).
fn shows_forms(envelope: &Envelope) -> bool {
    match envelope.capabilities.get("elicitation") {
        Some(Value::Object(modes)) => modes.is_empty() || modes.contains_key("form"),
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn envelope(capabilities: Value) -> Envelope {
        Envelope {
            version: "2026-07-28".into(),
            client_info: None,
            capabilities,
            log_level: None,
        }
    }

    #[test]
    fn forms_are_declared_by_an_empty_or_a_form_elicitation() {
        assert!(shows_forms(&envelope(json!({"elicitation": {}}))));
        assert!(shows_forms(&envelope(json!({"elicitation": {"form": {}}}))));
        assert!(!shows_forms(&envelope(json!({"elicitation": {"url": {}}}))));
        assert!(!shows_forms(&envelope(json!({"sampling": {}}))));
        assert!(!shows_forms(&envelope(json!({}))));
    }
}
