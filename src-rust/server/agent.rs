//! `/agent`: one JSON object per WebSocket message, several requests in
//! flight, replies carry their id. Same dispatch, same errors as MCP.
//! Each connection is bounded: requests in flight, replies queued (past
//! either it stops reading), and the connections themselves.

use super::body::{self, MAX_BODY};
use crate::base::caller::Transport;
use crate::base::error::ToolError;
use crate::base::secret::Wiped;
use crate::tools::app::App;
use crate::tools::dispatch;
use axum::body::Bytes;
use axum::extract::ws::{Message, WebSocket, WebSocketUpgrade};
use axum::extract::State;
use axum::http::StatusCode;
use axum::response::{IntoResponse as _, Response};
use futures_util::{SinkExt, StreamExt};
use serde_json::{json, Value};
use std::sync::Arc;
use tokio::sync::{mpsc, Semaphore};

/// Requests of one connection being handled at once; while this many are,
/// the connection's next message is not read (the client waits).
pub const IN_FLIGHT_MAX: usize = 16;
/// Replies of one connection waiting to be written; while this many wait,
/// finished requests wait for room, and so reading stops too.
pub const REPLIES_MAX: usize = 32;
/// Characters of a tool name: a longer one names no tool.
const TOOL_NAME_MAX: usize = 64;

pub async fn upgrade(State(app): State<Arc<App>>, ws: WebSocketUpgrade) -> Response {
    // Refused before the upgrade while the connections are all taken.
    if app.sessions.open(Transport::Agent) >= crate::base::caller::SESSIONS_MAX {
        let why = format!(
            "BUSY: {} /agent connections are open, the most the browser keeps; close one first",
            crate::base::caller::SESSIONS_MAX
        );
        return (StatusCode::SERVICE_UNAVAILABLE, why).into_response();
    }
    ws.max_message_size(MAX_BODY)
        .on_upgrade(move |socket| connection(app, socket, Transport::Agent))
}

/// One WebSocket connection: requests in, replies (and, for the panel,
/// live pushes) out, until the client leaves or the session is ended.
/// Bounded: at most [`IN_FLIGHT_MAX`] requests handled and
/// [`REPLIES_MAX`] replies queued; past that it stops reading.
pub async fn connection(app: Arc<App>, socket: WebSocket, transport: Transport) {
    let (mut sink, mut incoming) = socket.split();
    let session = match app.sessions.create(transport) {
        Ok(session) => session,
        Err(error) => {
            // Taken between the upgrade's check and now.
            let _ = sink
                .send(Message::Text(
                    error_reply(Value::Null, &error).to_string().into(),
                ))
                .await;
            let _ = sink.close().await;
            return;
        }
    };
    tracing::info!(session = %session.id, transport = transport.as_str(), "WebSocket connection opened");
    let (tx, mut rx) = mpsc::channel::<String>(REPLIES_MAX);
    let writer = tokio::spawn(async move {
        while let Some(text) = rx.recv().await {
            if sink.send(Message::Text(text.into())).await.is_err() {
                break;
            }
        }
    });
    let pusher = (transport == Transport::Panel).then(|| {
        tokio::spawn(super::panel_live::push(
            app.clone(),
            session.clone(),
            tx.clone(),
        ))
    });
    let in_flight = Arc::new(Semaphore::new(IN_FLIGHT_MAX));
    loop {
        // Room for one more request first: until then nothing is read.
        let permit = tokio::select! {
            permit = in_flight.clone().acquire_owned() => permit,
            _ = session.closed() => break,
        };
        let Ok(permit) = permit else { break };
        let message = tokio::select! {
            message = incoming.next() => message,
            // Ended from the panel.
            _ = session.closed() => break,
        };
        let Some(Ok(message)) = message else { break };
        let text = match message {
            Message::Text(text) => Bytes::from(text),
            Message::Binary(_) => {
                let error = ToolError::invalid_params("send JSON text messages, not binary");
                if tx
                    .send(error_reply(Value::Null, &error).to_string())
                    .await
                    .is_err()
                {
                    break;
                }
                continue;
            }
            Message::Close(_) => break,
            _ => continue,
        };
        let (app, session, tx) = (app.clone(), session.clone(), tx.clone());
        tokio::spawn(async move {
            let reply = handle(&app, &session, text).await;
            let _ = tx.send(reply.to_string()).await;
            drop(permit);
        });
    }
    app.sessions.remove(&session.id);
    if let Some(pusher) = pusher {
        pusher.abort();
    }
    drop(tx);
    writer.abort();
    tracing::info!(session = %session.id, "WebSocket connection closed");
}

async fn handle(
    app: &Arc<App>,
    session: &Arc<crate::base::caller::Session>,
    message: Bytes,
) -> Value {
    // A text message is UTF-8 already: read where it is, with no copy.
    let parsed = std::str::from_utf8(&message)
        .map_err(|e| (Value::Null, ToolError::invalid_params(e.to_string())))
        .and_then(parse_request);
    // Arguments may hold secrets (a login's nsec): wipe the raw message now
    // (the dispatch wipes the parsed arguments).
    body::wipe(message);
    let request = match parsed {
        Ok(request) => request,
        Err((id, error)) => return error_reply(id, &error),
    };
    match dispatch(app, session, &request.tool, request.params).await {
        Ok(output) => json!({"id": request.id, "ok": true, "result": output.to_agent()}),
        Err(error) => error_reply(request.id, &error),
    }
}

/// One `/agent` message: `{"id": any, "tool": name, "params": {...}}`.
#[derive(Debug, PartialEq)]
pub struct AgentRequest {
    /// Echoed in the reply as it came (null when absent).
    pub id: Value,
    pub tool: String,
    pub params: Value,
}

/// Reads one message; a refusal carries the id when there was one.
/// Pure, so it is fuzzed on its own.
pub fn parse_request(text: &str) -> Result<AgentRequest, (Value, ToolError)> {
    let request = serde_json::from_str::<Value>(text).map_err(|e| {
        let error = ToolError::invalid_params(format!("message is not JSON: {e}"));
        (Value::Null, error)
    })?;
    // A refused message is wiped too (its params may hold a login's nsec).
    let mut request = Wiped(request);
    let id = request.get("id").cloned().unwrap_or(Value::Null);
    let Some(tool) = request.get("tool").and_then(Value::as_str).map(|tool| {
        // No tool has a longer name: keep none of it (the call log and the
        // refusal say it was unknown).
        if tool.chars().count() > TOOL_NAME_MAX {
            crate::base::call_log::UNKNOWN_TOOL.to_string()
        } else {
            tool.to_string()
        }
    }) else {
        let error = ToolError::invalid_params(
            "message needs \"tool\" (a tool name) and optional \"params\"",
        );
        return Err((id, error));
    };
    let params = request
        .as_object_mut()
        .and_then(|o| o.remove("params"))
        .unwrap_or(Value::Null);
    Ok(AgentRequest { id, tool, params })
}

fn error_reply(id: Value, error: &ToolError) -> Value {
    json!({"id": id, "ok": false, "error": error.json()})
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::base::error::ErrorCode;

    #[test]
    fn a_message_gives_its_id_tool_and_params() {
        let r = parse_request(r#"{"id":[1],"tool":"open","params":{"url":"x"}}"#).unwrap();
        assert_eq!(r.id, json!([1]));
        assert_eq!(r.tool, "open");
        assert_eq!(r.params, json!({"url": "x"}));
        let r = parse_request(r#"{"tool":"get_url"}"#).unwrap();
        assert_eq!((r.id, r.params), (Value::Null, Value::Null));
    }

    #[test]
    fn malformed_messages_are_invalid_params_with_their_id() {
        for (text, id) in [
            ("not json", Value::Null),
            ("[1,2]", Value::Null),
            (r#"{"id":2,"tool":5}"#, json!(2)),
            (r#"{"id":"x"}"#, json!("x")),
        ] {
            let (got, error) = parse_request(text).unwrap_err();
            assert_eq!(got, id, "{text}");
            assert_eq!(error.code, ErrorCode::InvalidParams, "{text}");
        }
    }
}
