//! `subscriptions/listen` (2026-07-28): a long-lived SSE response that
//! carries the change notifications a client opted in to. The only change
//! this server has to tell is of the tools offered (a person allows or
//! forbids one in the control panel).

use super::super::jsonrpc::INVALID_PARAMS;
use super::wire::rpc_error;
use crate::tools::app::App;
use axum::http::{header, StatusCode};
use axum::response::sse::{Event, KeepAlive, Sse};
use axum::response::{IntoResponse, Response};
use futures_util::stream::{self, StreamExt};
use serde_json::{json, Value};
use std::convert::Infallible;
use std::sync::Arc;

const SUBSCRIPTION_KEY: &str = "io.modelcontextprotocol/subscriptionId";

/// What a client may listen for here, of what it asked: `None` when the
/// filter is not an object.
fn agreed(asked: Option<&Value>) -> Option<Value> {
    let asked = match asked {
        None => return Some(json!({})),
        Some(Value::Object(asked)) => asked,
        Some(_) => return None,
    };
    // Prompts and resources are not served: those types are left out.
    Some(
        if asked.get("toolsListChanged") == Some(&Value::Bool(true)) {
            json!({"toolsListChanged": true})
        } else {
            json!({})
        },
    )
}

/// Opens the stream: first the acknowledgement, then each notification,
/// all tagged with the subscription's id (the request's id).
pub(super) fn open(app: &Arc<App>, id: Value, params: &Value, accepts_sse: bool) -> Response {
    if !accepts_sse {
        return (
            StatusCode::NOT_ACCEPTABLE,
            [(header::CONTENT_TYPE, "text/plain")],
            "subscriptions/listen answers with a stream: send Accept: text/event-stream",
        )
            .into_response();
    }
    let Some(filter) = agreed(params.get("notifications")) else {
        return rpc_error(
            StatusCode::BAD_REQUEST,
            id,
            INVALID_PARAMS,
            "params.notifications must be an object",
            None,
        );
    };
    let meta = json!({ SUBSCRIPTION_KEY: id });
    let ack = json!({
        "jsonrpc": "2.0",
        "method": "notifications/subscriptions/acknowledged",
        "params": {"_meta": meta, "notifications": filter},
    });
    let first = stream::once(async move { Ok::<_, Infallible>(message(&ack)) });
    let wants_tools = filter.get("toolsListChanged").is_some();
    let tools = app.sessions.watch_tools();
    let changes = stream::unfold((tools, meta), move |(mut tools, meta)| async move {
        if !wants_tools {
            // Nothing to tell: the stream stays open (kept alive) until the
            // client closes it.
            std::future::pending::<()>().await;
        }
        tools.changed().await.ok()?;
        let notification = json!({
            "jsonrpc": "2.0",
            "method": "notifications/tools/list_changed",
            "params": {"_meta": meta},
        });
        Some((Ok(message(&notification)), (tools, meta)))
    });
    Sse::new(first.chain(changes))
        .keep_alive(KeepAlive::default())
        .into_response()
}

fn message(value: &Value) -> Event {
    Event::default().event("message").data(value.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_what_is_served_is_agreed() {
        assert_eq!(agreed(None), Some(json!({})));
        assert_eq!(
            agreed(Some(
                &json!({"toolsListChanged": true, "promptsListChanged": true})
            )),
            Some(json!({"toolsListChanged": true}))
        );
        assert_eq!(
            agreed(Some(&json!({"resourceSubscriptions": ["file:///x"]}))),
            Some(json!({}))
        );
        assert_eq!(agreed(Some(&json!([1]))), None);
    }
}
