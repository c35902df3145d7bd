//! MCP Streamable HTTP on `/mcp`, in both eras of the protocol on the one
//! endpoint: sessions opened by `initialize` (2024-11-05 to 2025-11-25,
//! [`legacy`]) and stateless requests that carry everything in their own
//! `_meta` (2026-07-28, [`modern`]). Which one a request speaks is read from
//! the request itself ([`envelope::era`]). Tool calls of both go to the
//! shared dispatch.

pub mod envelope;
mod legacy;
mod listen;
mod login_wait;
mod long_call;
mod modern;

use super::jsonrpc::{self, Incoming, INVALID_PARAMS};
use crate::base::caller::Session;
use crate::base::error::ToolError;
use crate::base::secret::Wiped;
use crate::tools::app::App;
use crate::tools::{dispatch_found, Found, ToolOutput};
use axum::body::{Body, Bytes};
use axum::extract::State;
use axum::http::{header, HeaderMap, HeaderValue, StatusCode};
use axum::response::{IntoResponse, Response};
use envelope::Era;
use serde_json::{json, Value};
use std::sync::Arc;

pub use envelope::{LEGACY_VERSIONS, MODERN_VERSIONS};

const INSTRUCTIONS: &str = "Sovereign Browser: a real browser with a Nostr identity. \
Call login first (browser tools answer NOT_LOGGED_IN until then). Then open a URL, take a snapshot \
to see the page with element refs ([ref=e5]: pass e5), and act with click/fill/type/press using those refs. \
Take a new snapshot after the page changes; errors carry a code (STALE_REF, DIALOG_OPEN...) and say what to do.";

/// Said to stateless clients besides: they have no tab of their own.
const TAB_INSTRUCTIONS: &str =
    " Tools act on the tab in front unless given tab: a tab id from open, \
tab_new, tab_list or any result that acted on a tab.";

const VERSION_HEADER: &str = "mcp-protocol-version";

pub async fn post(State(app): State<Arc<App>>, headers: HeaderMap, body: Bytes) -> Response {
    if !is_json(&headers) {
        return (
            StatusCode::UNSUPPORTED_MEDIA_TYPE,
            "Content-Type must be application/json",
        )
            .into_response();
    }
    let classified = jsonrpc::classify(&body);
    // Arguments may hold secrets (a login's nsec): wipe the raw body now,
    // and the parsed params whenever their handling ends.
    wipe(body);
    let (id, method, params) = match classified {
        Ok(Incoming::Request { id, method, params }) => (id, method, Wiped(params)),
        Ok(Incoming::Accepted) => return StatusCode::ACCEPTED.into_response(),
        Err(rejection) => {
            return rpc_error(
                StatusCode::BAD_REQUEST,
                rejection.id,
                rejection.code,
                &rejection.message,
                None,
            )
        }
    };
    match envelope::era(version_header(&headers), &params) {
        Era::Legacy => legacy::post(&app, &headers, id, method, params).await,
        Era::Modern => modern::post(&app, &headers, id, method, params).await,
    }
}

/// GET: the legacy server-to-client stream. The modern revision has none.
pub async fn get(state: State<Arc<App>>, headers: HeaderMap) -> Response {
    if is_modern_header(&headers) {
        return post_only();
    }
    legacy::get(state, headers).await
}

/// DELETE: ends a legacy session. The modern revision has none.
pub async fn delete(state: State<Arc<App>>, headers: HeaderMap) -> Response {
    if is_modern_header(&headers) {
        return post_only();
    }
    legacy::delete(state, headers).await
}

fn version_header(headers: &HeaderMap) -> Option<&str> {
    headers.get(VERSION_HEADER).and_then(|v| v.to_str().ok())
}

fn is_modern_header(headers: &HeaderMap) -> bool {
    envelope::era(version_header(headers), &Value::Null) == Era::Modern
}

fn post_only() -> Response {
    (
        StatusCode::METHOD_NOT_ALLOWED,
        [(header::ALLOW, "POST")],
        "MCP 2026-07-28 is spoken with POST only",
    )
        .into_response()
}

fn server_info() -> Value {
    json!({"name": "sovereign-browser", "title": "Sovereign Browser", "version": env!("CARGO_PKG_VERSION")})
}

/// The tools offered, in the registry's fixed order. With `tab_handles`,
/// tab tools show their optional `tab` argument.
fn tools_list(app: &App, tab_handles: bool) -> Vec<Value> {
    app.tools
        .listed(app)
        .map(|t| t.mcp_json(tab_handles))
        .collect()
}

/// Runs `tools/call`. With `tab_handles`, the result names the tab the call
/// acted on: in a JSON result as `tab`, otherwise in the result's `_meta`.
/// The arguments are taken out of `params` (no copy of a secret stays
/// behind) and go to the dispatch, which wipes them.
async fn call_tool(
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
fn named_tool(app: &App, params: &Value) -> Result<Found, (i64, String)> {
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
pub fn error_result(error: &ToolError) -> Value {
    json!({
        "content": [{"type": "text", "text": error.to_string()}],
        "isError": true,
        "structuredContent": {"error": error.json()},
    })
}

/// Zeroes a request body (or /agent message) when we hold the only
/// reference to its bytes. The server's read buffer usually still shares
/// them, and then they stay until it reuses or frees that memory: what is
/// parsed from them is wiped on its own (see `base::secret`).
pub(in crate::server) fn wipe(body: Bytes) {
    if let Ok(mut bytes) = body.try_into_mut() {
        zeroize::Zeroize::zeroize(&mut bytes[..]);
    }
}

fn is_json(headers: &HeaderMap) -> bool {
    headers
        .get(header::CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .map(|v| {
            v.split(';')
                .next()
                .unwrap_or("")
                .trim()
                .eq_ignore_ascii_case("application/json")
        })
        .unwrap_or(false)
}

fn accepts_sse(headers: &HeaderMap) -> bool {
    headers
        .get_all(header::ACCEPT)
        .iter()
        .filter_map(|v| v.to_str().ok())
        .any(|v| v.contains("text/event-stream"))
}

/// What a long call waits for, in a line for the person at the client.
fn describe_call(
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

/// One SSE event carrying a JSON-RPC message.
fn sse_event(message: &Value) -> String {
    format!("event: message\ndata: {message}\n\n")
}

/// One JSON-RPC message, as a one-event SSE stream or a JSON body.
fn reply(sse: bool, message: Value) -> Response {
    let (content_type, body) = if sse {
        ("text/event-stream", sse_event(&message))
    } else {
        ("application/json", message.to_string())
    };
    Response::builder()
        .status(StatusCode::OK)
        .header(header::CONTENT_TYPE, content_type)
        .header(header::CACHE_CONTROL, "no-cache")
        .body(Body::from(body))
        .unwrap_or_else(|_| StatusCode::INTERNAL_SERVER_ERROR.into_response())
}

fn rpc_error(
    status: StatusCode,
    id: Value,
    code: i64,
    message: &str,
    data: Option<Value>,
) -> Response {
    let mut error = json!({"code": code, "message": message});
    if let Some(data) = data {
        error["data"] = data;
    }
    let body = json!({"jsonrpc": "2.0", "id": id, "error": error});
    (
        status,
        [(
            header::CONTENT_TYPE,
            HeaderValue::from_static("application/json"),
        )],
        body.to_string(),
    )
        .into_response()
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

    #[test]
    fn get_and_delete_are_refused_to_modern_clients() {
        let mut headers = HeaderMap::new();
        headers.insert(VERSION_HEADER, HeaderValue::from_static("2026-07-28"));
        assert!(is_modern_header(&headers));
        headers.insert(VERSION_HEADER, HeaderValue::from_static("2025-11-25"));
        assert!(!is_modern_header(&headers));
        assert!(!is_modern_header(&HeaderMap::new()));
    }
}
