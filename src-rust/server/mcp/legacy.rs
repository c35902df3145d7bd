//! MCP of the session era (2024-11-05 to 2025-11-25): `initialize` opens
//! a session (its id in `Mcp-Session-Id`), JSON-RPC over POST answered as
//! SSE or JSON (a long tool call as a stream with its progress), a GET
//! notification stream, DELETE to end the session.

use super::super::jsonrpc::{INVALID_REQUEST, METHOD_NOT_FOUND};
use super::ask_elicit::{Elicitor, ASKING_TOOL};
use super::long_call::{self, Progress};
use super::tool_calls::{
    call_tool, describe_call, named_tool, server_info, tools_list, INSTRUCTIONS,
};
use super::wire::{accepts_sse, reply, rpc_error};
use crate::base::caller::{Session, Transport};
use crate::base::client_requests::ElicitModes;
use crate::base::secret::Wiped;
use crate::tools::app::App;
use axum::extract::State;
use axum::http::{HeaderMap, HeaderValue, StatusCode};
use axum::response::sse::{Event, KeepAlive, Sse};
use axum::response::{IntoResponse, Response};
use futures_util::future::BoxFuture;
use futures_util::stream::{self, StreamExt};
use serde_json::{json, Value};
use std::convert::Infallible;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

/// Protocol versions spoken, oldest first; the last is offered by default.
pub const PROTOCOL_VERSIONS: [&str; 4] = super::envelope::LEGACY_VERSIONS;
const LATEST: &str = "2025-11-25";
const SESSION_HEADER: &str = "mcp-session-id";

/// JSON-RPC error code of an `initialize` refused because the sessions
/// are all taken.
const SERVER_BUSY: i64 = -32000;

/// JSON-RPC error code of a request naming a session that has ended.
const SESSION_NOT_FOUND: i64 = -32001;

/// A request of a session opened by `initialize` (or of lenient mode).
pub(super) async fn post(
    app: &Arc<App>,
    headers: &HeaderMap,
    id: Value,
    method: String,
    params: Wiped,
) -> Response {
    let sse = accepts_sse(headers);
    if method == "initialize" {
        let session = match app.sessions.create(Transport::Mcp) {
            Ok(session) => session,
            Err(error) => {
                let why = format!("{}: {}", error.code, error.message);
                let data = Some(json!({"code": error.code}));
                return rpc_error(StatusCode::SERVICE_UNAVAILABLE, id, SERVER_BUSY, &why, data);
            }
        };
        let result = initialize(&session, &params);
        tracing::info!(session = %session.id, client = ?session.client_name(), "MCP session started");
        let mut response = reply(sse, json!({"jsonrpc": "2.0", "id": id, "result": result}));
        if let Ok(value) = HeaderValue::from_str(&session.id) {
            response.headers_mut().insert(SESSION_HEADER, value);
        }
        return response;
    }
    let session = match session_of(app, headers) {
        Ok(session) => session,
        Err(response) => return *response,
    };
    if let Some(version) = headers
        .get("mcp-protocol-version")
        .and_then(|v| v.to_str().ok())
    {
        if !PROTOCOL_VERSIONS.contains(&version) {
            let why = format!("unsupported MCP-Protocol-Version {version}");
            return rpc_error(StatusCode::BAD_REQUEST, id, INVALID_REQUEST, &why, None);
        }
    }
    if method == "tools/call" && sse {
        return long_tool_call(app, session, id, params).await;
    }
    let body = match handle(app, &session, &method, params).await {
        Ok(result) => json!({"jsonrpc": "2.0", "id": id, "result": result}),
        Err((code, message)) => {
            json!({"jsonrpc": "2.0", "id": id, "error": {"code": code, "message": message}})
        }
    };
    reply(sse, body)
}

/// A tool call, however long it runs, with progress when the client asked
/// for it ([`long_call`]).
async fn long_tool_call(
    app: &Arc<App>,
    session: Arc<Session>,
    id: Value,
    mut params: Wiped,
) -> Response {
    let found = match named_tool(app, &params) {
        Ok(found) => found,
        Err((code, message)) => {
            let error =
                json!({"jsonrpc": "2.0", "id": id, "error": {"code": code, "message": message}});
            return reply(false, error);
        }
    };
    let tool = app.tools.def(found).name;
    let progress = long_call::progress_token(&params).map(|token| Progress {
        token,
        describe: describe_call(app, &session, tool),
    });
    // An ask_person asks through the client too, when it can (ask_elicit).
    let (elicitor, told) = match tool {
        ASKING_TOOL => Elicitor::for_call(app, &session).unzip(),
        _ => (None, None),
    };
    let app = app.clone();
    let work: BoxFuture<'static, Vec<Value>> = Box::pin(async move {
        let call = call_tool(&app, &session, found, &mut params, false);
        let (result, mut messages) = match elicitor {
            Some(elicitor) => elicitor.beside(call).await,
            None => (call.await, Vec::new()),
        };
        messages.push(json!({"jsonrpc": "2.0", "id": id, "result": result}));
        messages
    });
    long_call::respond(work, progress, told).await
}

/// The client's response to a request of the server (an elicitation),
/// for the session it names. One no request awaits is dropped.
pub(super) fn client_reply(app: &App, headers: &HeaderMap, id: &Value, message: Value) {
    let session = headers
        .get(SESSION_HEADER)
        .and_then(|v| v.to_str().ok())
        .and_then(|named| app.sessions.get_on(named, Transport::Mcp));
    let settled = session.is_some_and(|s| s.client_requests.settle(id, message));
    if !settled {
        tracing::debug!(%id, "a client's response that no request awaits: dropped");
    }
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
                None,
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
    session.set_client(&params["clientInfo"], version);
    let modes = ElicitModes::declared(&params["capabilities"]);
    session.client_requests.set_modes(modes);
    json!({
        "protocolVersion": version,
        "capabilities": {"tools": {"listChanged": true}, "logging": {}},
        "serverInfo": server_info(),
        "instructions": INSTRUCTIONS,
    })
}

async fn handle(
    app: &Arc<App>,
    session: &Arc<Session>,
    method: &str,
    mut params: Wiped,
) -> Result<Value, (i64, String)> {
    match method {
        "ping" | "logging/setLevel" => Ok(json!({})),
        "tools/list" => Ok(json!({"tools": tools_list(app, false)})),
        "tools/call" => {
            let found = named_tool(app, &params)?;
            Ok(call_tool(app, session, found, &mut params, false).await)
        }
        "resources/list" => Ok(json!({"resources": []})),
        "resources/templates/list" => Ok(json!({"resourceTemplates": []})),
        "prompts/list" => Ok(json!({"prompts": []})),
        other => Err((METHOD_NOT_FOUND, format!("method not found: {other}"))),
    }
}

/// GET: the server-to-client stream, open until the session ends.
pub(super) async fn get(State(app): State<Arc<App>>, headers: HeaderMap) -> Response {
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
pub(super) async fn delete(State(app): State<Arc<App>>, headers: HeaderMap) -> Response {
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

#[cfg(test)]
mod tests {
    use super::*;

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
}
