//! What both eras of `/mcp` answer alike: who the server is, the tools it
//! offers, and a tools/call run through the shared dispatch, its result or
//! error as a model reads it.

use super::super::jsonrpc::INVALID_PARAMS;
use crate::base::caller::Session;
use crate::base::error::ToolError;
use crate::tools::app::App;
use crate::tools::{dispatch_found, Found, ToolOutput};
use serde_json::{json, Value};
use std::sync::Arc;

pub(super) const INSTRUCTIONS: &str = "Sovereign Browser: a real browser with a Nostr identity. \
Call login first (browser tools answer NOT_LOGGED_IN until then). Then open a URL, take a snapshot \
to see the page (each element's line starts with its ref, e5), and act with click/fill/type/press using those refs. \
Take a new snapshot after the page changes; errors carry a code (STALE_REF, DIALOG_OPEN...) and say what to do. \
More tools (finders, cookies and storage, mouse, clipboard, network, emulation, contexts) come with tools_enable.";

/// Said to stateless clients besides: they have no tab of their own.
pub(super) const TAB_INSTRUCTIONS: &str =
    " Tools act on the tab in front unless given tab: a tab id from open, \
tab_new, tab_list or any result that acted on a tab.";

pub(super) fn server_info() -> Value {
    json!({"name": "sovereign-browser", "title": "Sovereign Browser", "version": env!("CARGO_PKG_VERSION")})
}

/// The tools offered, in the registry's fixed order: the public ones, then
/// the conditional ones whose condition holds now. With `tab_handles`, tab
/// tools show their optional `tab` argument.
pub(super) fn tools_list(app: &App, tab_handles: bool) -> Vec<Value> {
    let conditional = app
        .tools
        .all()
        .iter()
        .filter(|t| !t.hidden && t.shown_when.is_some_and(|shown| shown(app)));
    app.tools
        .listed(&app.families)
        .chain(conditional)
        .map(|t| t.mcp_json(tab_handles))
        .collect()
}

/// Runs `tools/call`. With `tab_handles`, the result names the tab the call
/// acted on: in a JSON result as `tab`, otherwise in the result's `_meta`.
/// The arguments are taken out of `params` (no copy of a secret stays
/// behind) and go to the dispatch, which wipes them.
pub(super) async fn call_tool(
    app: &Arc<App>,
    session: &Arc<Session>,
    found: Found,
    params: &mut Value,
    tab_handles: bool,
) -> Value {
    let arguments = params
        .get_mut("arguments")
        .map(Value::take)
        .unwrap_or(Value::Null);
    let call = dispatch_found(app, session, found, arguments).await;
    let tab = call.tab.filter(|_| tab_handles);
    match call.result {
        Ok(ToolOutput::Json(mut map)) if tab.is_some() => {
            map.insert("tab".into(), tab.into());
            ToolOutput::Json(map).to_mcp()
        }
        Ok(output) => {
            let mut result = output.to_mcp();
            if let Some(tab) = tab {
                result["_meta"] = json!({ TAB_META: tab });
            }
            result
        }
        Err(error) => error_result(&error),
    }
}

/// The tool a tools/call names, looked up once for the whole call. No
/// name, or one no offered tool has, is a JSON-RPC error, not a result.
pub(super) fn named_tool(app: &App, params: &Value) -> Result<Found, (i64, String)> {
    let name = params["name"]
        .as_str()
        .ok_or((INVALID_PARAMS, "tools/call needs params.name".to_string()))?;
    app.tools
        .find(name)
        .ok_or_else(|| (INVALID_PARAMS, app.tools.why_missing(name)))
}

/// The `_meta` key naming the tab a text or image result comes from.
const TAB_META: &str = "browser.sovereign/tab";

/// A failed tool call, as a result the model can read and act on.
pub(super) fn error_result(error: &ToolError) -> Value {
    json!({
        "content": [{"type": "text", "text": error.to_string()}],
        "isError": true,
        "structuredContent": {"error": error.json()},
    })
}

/// What a long call waits for, in a line for the person at the client.
pub(super) fn describe_call(
    app: &Arc<App>,
    session: &Arc<Session>,
    tool: &str,
) -> Box<dyn Fn() -> String + Send + Sync> {
    let (app, session, tool) = (app.clone(), session.clone(), tool.to_string());
    Box::new(move || {
        let asked = app
            .asks
            .list()
            .into_iter()
            .find(|a| a.session == session.id);
        match asked {
            Some(ask) => format!("waiting for the person: {}", ask.message),
            None => format!("{tool} is still running"),
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::base::error::ErrorCode;

    #[test]
    fn tool_errors_are_results_with_their_code() {
        let r = error_result(&ToolError::new(ErrorCode::StaleRef, "gone"));
        assert_eq!(r["isError"], true);
        assert_eq!(r["structuredContent"]["error"]["code"], "STALE_REF");
        assert!(r["content"][0]["text"]
            .as_str()
            .unwrap()
            .starts_with("STALE_REF"));
    }

    // Regression: the arguments (a login's nsec, seed words, password) were
    // cloned out of the params, and the params dropped without a wipe.
    #[tokio::test]
    async fn a_calls_arguments_are_taken_out_of_its_params_not_copied() {
        let (app, _fake) = crate::tools::fake_browser::FakeBrowser::app();
        let session = crate::tools::fake_browser::agent_session(&app);
        let npub = "npub16sdj9zv4f8sl85e45vgq9n7nsgt5qphpvmf7vk8r5hhvmdjxx4es8rq74h";
        let mut params =
            json!({"name": "login", "arguments": {"method": "readonly", "npub": npub}});
        let found = named_tool(&app, &params).unwrap();
        let result = call_tool(&app, &session, found, &mut params, false).await;
        assert_eq!(result["structuredContent"]["npub"], npub, "{result}");
        assert_eq!(
            params["arguments"],
            Value::Null,
            "nothing of them stays behind"
        );
    }
}
