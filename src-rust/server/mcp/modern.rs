//! MCP 2026-07-28: every request stands alone. Its version, capabilities
//! and client come in its `_meta` and are checked against the headers that
//! mirror them ([`envelope::check`]); no session exists, so a tool acts on
//! the tab its `tab` argument names or on the tab in front. Results carry
//! `resultType` and the server's identity; a tool call still running after
//! a moment turns into an SSE stream ([`long_call`]), and a client that
//! closes it cancels the call.

use super::super::jsonrpc::{INVALID_PARAMS, INVALID_REQUEST, METHOD_NOT_FOUND, PARSE_ERROR};
use super::envelope::{self, Envelope, Refusal, RoutingHeaders, LOG_LEVELS};
use super::listen;
use super::login_wait::{self, Instead};
use super::long_call::{self, json_response, Progress};
use super::tool_calls::{
    call_tool, describe_call, named_tool, server_info, tools_list, INSTRUCTIONS, TAB_INSTRUCTIONS,
};
use super::wire::{accepts_sse, rpc_error};
use crate::base::caller::Session;
use crate::base::secret::Wiped;
use crate::tools::app::App;
use axum::http::{HeaderMap, StatusCode};
use axum::response::Response;
use futures_util::future::BoxFuture;
use serde_json::{json, Value};
use std::sync::Arc;
use std::time::{Duration, Instant};

/// How long `tools/list` and `server/discover` stay fresh for a client:
/// the tools change only when the person allows or forbids one, and
/// `subscriptions/listen` tells a listening client at once.
const LIST_TTL_MS: u64 = 60_000;

const SERVER_INFO_KEY: &str = "io.modelcontextprotocol/serverInfo";

/// A request of the stateless era.
pub(super) async fn post(
    app: &Arc<App>,
    headers: &HeaderMap,
    id: Value,
    method: String,
    params: Wiped,
) -> Response {
    let envelope = match envelope::check(&method, &params, &routing_headers(headers)) {
        Ok(envelope) => envelope,
        Err(refusal) => return refuse(id, refusal),
    };
    match method.as_str() {
        "server/discover" => complete(id, discover()),
        "tools/list" => complete(id, cacheable(json!({"tools": tools_list(app, true)}))),
        // No prompts or resources are offered: empty lists, and nothing
        // to get or read (what sessions have always been told too).
        "prompts/list" => complete(id, cacheable(json!({"prompts": []}))),
        "resources/list" => complete(id, cacheable(json!({"resources": []}))),
        "resources/templates/list" => complete(id, cacheable(json!({"resourceTemplates": []}))),
        "prompts/get" | "resources/read" => {
            let (key, what) = if method == "prompts/get" {
                ("name", "prompt")
            } else {
                ("uri", "resource")
            };
            let named = params[key].as_str().unwrap_or_default();
            refuse(
                id,
                Refusal {
                    code: INVALID_PARAMS,
                    message: format!("no {what} {named:?}: this server offers none"),
                    data: Some(json!({ key: named })),
                },
            )
        }
        "tools/call" => {
            let session = app
                .sessions
                .stateless_client(envelope.client_info.as_ref(), &envelope.version);
            call(app.clone(), session, envelope, id, params).await
        }
        "subscriptions/listen" => listen::open(app, id, &params, accepts_sse(headers)),
        other => refuse(
            id,
            Refusal {
                code: METHOD_NOT_FOUND,
                message: format!("method not found: {other}"),
                data: None,
            },
        ),
    }
}

fn discover() -> Value {
    cacheable(json!({
        "supportedVersions": envelope::supported_versions(),
        "capabilities": {
            "tools": {"listChanged": true},
            "prompts": {},
            "resources": {},
            "logging": {},
        },
        "instructions": format!("{INSTRUCTIONS}{TAB_INSTRUCTIONS}"),
    }))
}

/// Adds the cache hints: the same for every caller (nothing in these
/// lists depends on who asks).
fn cacheable(mut result: Value) -> Value {
    result["ttlMs"] = LIST_TTL_MS.into();
    result["cacheScope"] = "public".into();
    result
}

/// The routing headers, as sent (a copy sent twice is malformed).
fn routing_headers(headers: &HeaderMap) -> RoutingHeaders {
    let mut routing = RoutingHeaders::default();
    for (name, slot) in [
        ("mcp-protocol-version", &mut routing.protocol_version),
        ("mcp-method", &mut routing.method),
        ("mcp-name", &mut routing.name),
    ] {
        let mut values = headers.get_all(name).iter();
        let first = values.next();
        if values.next().is_some() {
            routing.malformed.get_or_insert_with(|| name.to_string());
            continue;
        }
        match first.map(|v| v.to_str()) {
            None => {}
            Some(Ok(value)) => *slot = Some(value.to_string()),
            Some(Err(_)) => {
                routing.malformed.get_or_insert_with(|| name.to_string());
            }
        }
    }
    routing
}

/// The HTTP status of a JSON-RPC error, as the revision maps them.
fn status_of(code: i64) -> StatusCode {
    match code {
        PARSE_ERROR
        | INVALID_REQUEST
        | INVALID_PARAMS
        | envelope::HEADER_MISMATCH
        | envelope::MISSING_CLIENT_CAPABILITY
        | envelope::UNSUPPORTED_VERSION => StatusCode::BAD_REQUEST,
        METHOD_NOT_FOUND => StatusCode::NOT_FOUND,
        _ => StatusCode::INTERNAL_SERVER_ERROR,
    }
}

fn refuse(id: Value, refusal: Refusal) -> Response {
    rpc_error(
        status_of(refusal.code),
        id,
        refusal.code,
        &refusal.message,
        refusal.data,
    )
}

/// A final result: `resultType` and the server's identity added.
fn finished(mut result: Value) -> Value {
    result["resultType"] = "complete".into();
    result["_meta"][SERVER_INFO_KEY] = server_info();
    result
}

fn complete(id: Value, result: Value) -> Response {
    json_response(&json!({"jsonrpc": "2.0", "id": id, "result": finished(result)}))
}

/// `tools/call`: answered as [`long_call`] answers, its log messages
/// before its result.
async fn call(
    app: Arc<App>,
    session: Arc<Session>,
    envelope: Envelope,
    id: Value,
    mut params: Wiped,
) -> Response {
    let found = match named_tool(&app, &params) {
        Ok(found) => found,
        Err((code, message)) => {
            let refusal = Refusal {
                code,
                message,
                data: None,
            };
            return refuse(id, refusal);
        }
    };
    match login_wait::before_call(&app, &envelope, app.tools.def(found), &params) {
        Some(Instead::Ask(question)) => {
            return json_response(&json!({"jsonrpc": "2.0", "id": id, "result": question}))
        }
        Some(Instead::Refuse(error)) => return complete(id, error),
        None => {}
    }
    let tool = app.tools.def(found).name;
    let progress = long_call::progress_token(&params).map(|token| Progress {
        token,
        describe: describe_call(&app, &session, tool),
    });
    let log_level = envelope.log_level;
    let work: BoxFuture<'static, Vec<Value>> = Box::pin(async move {
        let started = Instant::now();
        let outcome = Ok(finished(
            call_tool(&app, &session, found, &mut params, true).await,
        ));
        let mut messages = log_messages(tool, &outcome, started.elapsed(), log_level);
        messages.push(response(&id, outcome));
        messages
    });
    long_call::respond(work, progress, None).await
}

/// A call's result, or the JSON-RPC error it ended in.
type Outcome = Result<Value, (i64, String)>;

/// The JSON-RPC response carrying a call's outcome.
fn response(id: &Value, outcome: Outcome) -> Value {
    match outcome {
        Ok(result) => json!({"jsonrpc": "2.0", "id": id, "result": result}),
        Err((code, message)) => {
            json!({"jsonrpc": "2.0", "id": id, "error": {"code": code, "message": message}})
        }
    }
}

/// What the call did, as log messages at or above the client's level
/// (none unless the request asked for a level).
fn log_messages(tool: &str, outcome: &Outcome, took: Duration, level: Option<usize>) -> Vec<Value> {
    let (Some(wanted), Ok(outcome)) = (level, outcome) else {
        return Vec::new();
    };
    let ms = took.as_millis() as u64;
    let failed = outcome["isError"] == true;
    let (severity, data) = if failed {
        let code = outcome["structuredContent"]["error"]["code"].clone();
        (
            "warning",
            json!({"tool": tool, "ms": ms, "ok": false, "code": code}),
        )
    } else {
        ("info", json!({"tool": tool, "ms": ms, "ok": true}))
    };
    let rank = LOG_LEVELS.iter().position(|l| *l == severity).unwrap_or(0);
    if rank < wanted {
        return Vec::new();
    }
    vec![json!({
        "jsonrpc": "2.0",
        "method": "notifications/message",
        "params": {"level": severity, "logger": "sovereign-browser", "data": data},
    })]
}

#[cfg(test)]
mod tests {
    use super::*;
    use axum::http::HeaderValue;

    #[test]
    fn errors_map_to_the_revisions_statuses() {
        assert_eq!(status_of(INVALID_PARAMS), StatusCode::BAD_REQUEST);
        assert_eq!(
            status_of(envelope::HEADER_MISMATCH),
            StatusCode::BAD_REQUEST
        );
        assert_eq!(
            status_of(envelope::UNSUPPORTED_VERSION),
            StatusCode::BAD_REQUEST
        );
        assert_eq!(status_of(METHOD_NOT_FOUND), StatusCode::NOT_FOUND);
    }

    #[test]
    fn a_routing_header_sent_twice_is_malformed() {
        let mut headers = HeaderMap::new();
        headers.append("mcp-method", HeaderValue::from_static("tools/list"));
        assert_eq!(
            routing_headers(&headers).method.as_deref(),
            Some("tools/list")
        );
        assert_eq!(routing_headers(&headers).malformed, None);
        headers.append("mcp-method", HeaderValue::from_static("tools/call"));
        assert_eq!(
            routing_headers(&headers).malformed.as_deref(),
            Some("mcp-method")
        );
    }

    #[test]
    fn results_say_they_are_complete_and_who_answered() {
        let result = finished(json!({"tools": []}));
        assert_eq!(result["resultType"], "complete");
        assert_eq!(
            result["_meta"][SERVER_INFO_KEY]["name"],
            "sovereign-browser"
        );
    }

    #[test]
    fn log_messages_follow_the_asked_level() {
        let ok = Ok(json!({"content": []}));
        let failed =
            Ok(json!({"isError": true, "structuredContent": {"error": {"code": "STALE_REF"}}}));
        let took = Duration::from_millis(12);
        assert!(log_messages("click", &ok, took, None).is_empty());
        let info = log_messages("click", &ok, took, Some(0));
        assert_eq!(info[0]["params"]["level"], "info");
        assert_eq!(info[0]["params"]["data"]["tool"], "click");
        assert!(log_messages("click", &ok, took, Some(3)).is_empty());
        let warning = log_messages("click", &failed, took, Some(3));
        assert_eq!(warning[0]["params"]["data"]["code"], "STALE_REF");
        assert!(log_messages("click", &failed, took, Some(4)).is_empty());
    }
}
