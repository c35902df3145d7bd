//! MCP Streamable HTTP on `/mcp`: JSON-RPC over POST (answered as SSE or
//! JSON), a GET notification stream, DELETE to end a session. Tool calls go
//! to the shared dispatch.

use super::jsonrpc::{self, Incoming, INVALID_PARAMS, INVALID_REQUEST, METHOD_NOT_FOUND};
use crate::base::caller::{Session, Transport};
use crate::base::error::ToolError;
use crate::tools::app::App;
use crate::tools::dispatch;
use axum::body::{Body, Bytes};
use axum::extract::State;
use axum::http::{header, HeaderMap, HeaderValue, StatusCode};
use axum::response::sse::{Event, KeepAlive, Sse};
use axum::response::{IntoResponse, Response};
use futures_util::stream::{self, StreamExt};
use serde_json::{json, Value};
use std::convert::Infallible;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

/// Protocol versions spoken, oldest first; the last is offered by default.
pub const PROTOCOL_VERSIONS: [&str; 4] = ["2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25"];
const LATEST: &str = "2025-11-25";
const SESSION_HEADER: &str = "mcp-session-id";

const INSTRUCTIONS: &str = "Sovereign Browser: a real browser with a Nostr identity. \
Call login first (browser tools answer NOT_LOGGED_IN until then). Then open a URL, take a snapshot \
to see the page with element refs ([ref=e5]: pass e5), and act with click/fill/type/press using those refs. \
Take a new snapshot after the page changes; errors carry a code (STALE_REF, DIALOG_OPEN...) and say what to do.";

/// JSON-RPC error code of a request naming a session that has ended.
const SESSION_NOT_FOUND: i64 = -32001;

pub async fn post(State(app): State<Arc<App>>, headers: HeaderMap, body: Bytes) -> Response {
    if !is_json(&headers) {
        return (
            StatusCode::UNSUPPORTED_MEDIA_TYPE,
            "Content-Type must be application/json",
        )
            .into_response();
    }
    let classified = jsonrpc::classify(&body);
    // Arguments may hold secrets (a login's nsec): wipe the raw body now.
    wipe(body);
    let (id, method, params) = match classified {
        Ok(Incoming::Request { id, method, params }) => (id, method, params),
        Ok(Incoming::Accepted) => return StatusCode::ACCEPTED.into_response(),
        Err(rejection) => {
            return rpc_error(
                StatusCode::BAD_REQUEST,
                rejection.id,
                rejection.code,
                &rejection.message,
            )
        }
    };
    let sse = accepts_sse(&headers);
    if method == "initialize" {
        let session = app.sessions.create(Transport::Mcp);
        let result = initialize(&session, &params);
        tracing::info!(session = %session.id, client = %params["clientInfo"]["name"], "MCP session started");
        let mut response = reply(sse, json!({"jsonrpc": "2.0", "id": id, "result": result}));
        if let Ok(value) = HeaderValue::from_str(&session.id) {
            response.headers_mut().insert(SESSION_HEADER, value);
        }
        return response;
    }
    let session = match session_of(&app, &headers) {
        Ok(session) => session,
        Err(response) => return *response,
    };
    if let Some(version) = headers
        .get("mcp-protocol-version")
        .and_then(|v| v.to_str().ok())
    {
        if !PROTOCOL_VERSIONS.contains(&version) {
            let why = format!("unsupported MCP-Protocol-Version {version}");
            return rpc_error(StatusCode::BAD_REQUEST, id, INVALID_REQUEST, &why);
        }
    }
    let body = match handle(&app, &session, &method, params).await {
        Ok(result) => json!({"jsonrpc": "2.0", "id": id, "result": result}),
        Err((code, message)) => {
            json!({"jsonrpc": "2.0", "id": id, "error": {"code": code, "message": message}})
        }
    };
    reply(sse, body)
}

/// The session named by the header; lenient mode when there is none.
fn session_of(app: &App, headers: &HeaderMap) -> Result<Arc<Session>, Box<Response>> {
    match headers.get(SESSION_HEADER).and_then(|v| v.to_str().ok()) {
        Some(id) => app.sessions.get_on(id, Transport::Mcp).ok_or_else(|| {
            Box::new(rpc_error(
                StatusCode::NOT_FOUND,
                Value::Null,
                SESSION_NOT_FOUND,
                "session not found; initialize a new one",
            ))
        }),
        None => {
            static WARNED: AtomicBool = AtomicBool::new(false);
            if !WARNED.swap(true, Ordering::Relaxed) {
                tracing::warn!("MCP request without Mcp-Session-Id accepted (lenient mode)");
            }
            Ok(app.sessions.lenient())
        }
    }
}

fn initialize(session: &Session, params: &Value) -> Value {
    let asked = params["protocolVersion"].as_str().unwrap_or(LATEST);
    let version = if PROTOCOL_VERSIONS.contains(&asked) {
        asked
    } else {
        LATEST
    };
    session.set_client(params["clientInfo"].clone(), version.to_string());
    json!({
        "protocolVersion": version,
        "capabilities": {"tools": {"listChanged": true}, "logging": {}},
        "serverInfo": {"name": "sovereign-browser", "title": "Sovereign Browser", "version": env!("CARGO_PKG_VERSION")},
        "instructions": INSTRUCTIONS,
    })
}

async fn handle(
    app: &Arc<App>,
    session: &Arc<Session>,
    method: &str,
    params: Value,
) -> Result<Value, (i64, String)> {
    match method {
        "ping" | "logging/setLevel" => Ok(json!({})),
        "tools/list" => {
            let tools: Vec<Value> = app.tools.listed(app).map(|t| t.mcp_json()).collect();
            Ok(json!({"tools": tools}))
        }
        "tools/call" => {
            let name = params["name"]
                .as_str()
                .ok_or((INVALID_PARAMS, "tools/call needs params.name".to_string()))?;
            if app.tools.get(name).is_none() {
                return Err((INVALID_PARAMS, app.tools.why_missing(name)));
            }
            let arguments = params.get("arguments").cloned().unwrap_or(Value::Null);
            Ok(match dispatch(app, session, name, arguments).await {
                Ok(output) => output.to_mcp(),
                Err(error) => error_result(&error),
            })
        }
        "resources/list" => Ok(json!({"resources": []})),
        "resources/templates/list" => Ok(json!({"resourceTemplates": []})),
        "prompts/list" => Ok(json!({"prompts": []})),
        other => Err((METHOD_NOT_FOUND, format!("method not found: {other}"))),
    }
}

/// A failed tool call, as a result the model can read and act on.
pub fn error_result(error: &ToolError) -> Value {
    json!({
        "content": [{"type": "text", "text": error.to_string()}],
        "isError": true,
        "structuredContent": {"error": error.json()},
    })
}

/// GET: the server-to-client stream, open until the session ends.
pub async fn get(State(app): State<Arc<App>>, headers: HeaderMap) -> Response {
    if !accepts_sse(&headers) {
        return (
            StatusCode::NOT_ACCEPTABLE,
            "GET /mcp needs Accept: text/event-stream",
        )
            .into_response();
    }
    let session = match session_of(&app, &headers) {
        Ok(session) => session,
        Err(response) => return *response,
    };
    let connected =
        stream::once(async { Ok::<_, Infallible>(Event::default().comment("connected")) });
    // Tells the client when the tools offered change, until the session ends.
    let changes = stream::unfold(
        (session, app.sessions.watch_tools(), false),
        |(session, mut tools, ended)| async move {
            if ended {
                return None;
            }
            tokio::select! {
                _ = session.closed() => {
                    let event = Event::default().comment("session ended");
                    Some((Ok::<_, Infallible>(event), (session, tools, true)))
                }
                changed = tools.changed() => {
                    let event = match changed {
                        Ok(()) => Event::default().event("message").data(
                            json!({"jsonrpc": "2.0", "method": "notifications/tools/list_changed"}).to_string(),
                        ),
                        Err(_) => Event::default().comment("session ended"),
                    };
                    Some((Ok(event), (session, tools, changed.is_err())))
                }
            }
        },
    );
    Sse::new(connected.chain(changes))
        .keep_alive(KeepAlive::default())
        .into_response()
}

/// DELETE: ends a session.
pub async fn delete(State(app): State<Arc<App>>, headers: HeaderMap) -> Response {
    let Some(id) = headers.get(SESSION_HEADER).and_then(|v| v.to_str().ok()) else {
        return (StatusCode::BAD_REQUEST, "Mcp-Session-Id header required").into_response();
    };
    if app.sessions.remove_on(id, Transport::Mcp) {
        tracing::info!(session = %id, "MCP session ended by the client");
        StatusCode::OK.into_response()
    } else {
        (StatusCode::NOT_FOUND, "session not found").into_response()
    }
}

/// Zeroes a request body we hold the only reference to.
fn wipe(body: Bytes) {
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

/// One JSON-RPC message, as a one-event SSE stream or a JSON body.
fn reply(sse: bool, message: Value) -> Response {
    let (content_type, body) = if sse {
        (
            "text/event-stream",
            format!("event: message\ndata: {message}\n\n"),
        )
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

fn rpc_error(status: StatusCode, id: Value, code: i64, message: &str) -> Response {
    let body = json!({"jsonrpc": "2.0", "id": id, "error": {"code": code, "message": message}});
    (
        status,
        [(header::CONTENT_TYPE, "application/json")],
        body.to_string(),
    )
        .into_response()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::base::error::ErrorCode;

    #[test]
    fn versions_are_echoed_or_the_latest_is_offered() {
        let session = Session::for_tests();
        for v in PROTOCOL_VERSIONS {
            assert_eq!(
                initialize(&session, &json!({"protocolVersion": v}))["protocolVersion"],
                v
            );
        }
        assert_eq!(
            initialize(&session, &json!({"protocolVersion": "1999-01-01"}))["protocolVersion"],
            LATEST
        );
    }

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
}
