//! A `tools/call` answered on the POST that asked it, however long it runs
//! (an `ask_person` waits minutes for the person). Ended within a few
//! seconds, it is one JSON body (or, with messages before the result, an
//! SSE body). Longer, it becomes an SSE stream that carries every ten
//! seconds a `notifications/progress` (when the request gave a progress
//! token, as both eras define it) or else a keep-alive comment, and then
//! the messages it ends with. A message the call tells its client while it
//! runs (an `ask_person`'s elicitation) starts the stream at once. The call
//! runs inside the response: a client that goes away drops the stream, and
//! that ends the call.

use super::wire::sse_event;
use axum::body::Body;
use axum::http::{header, StatusCode};
use axum::response::{IntoResponse, Response};
use futures_util::future::BoxFuture;
use futures_util::stream;
use serde_json::{json, Value};
use std::convert::Infallible;
use std::time::{Duration, Instant};
use tokio::sync::mpsc;

/// A call that has not ended by then is answered as an SSE stream.
pub const ANSWER_AS_JSON_WITHIN: Duration = Duration::from_secs(5);
/// How often a long call's stream says it is still running.
pub const TICK: Duration = Duration::from_secs(10);

/// What a long call reports while it runs.
pub struct Progress {
    /// The request's `_meta.progressToken`.
    pub token: Value,
    /// A line for the person at the client (what the call waits for).
    pub describe: Box<dyn Fn() -> String + Send + Sync>,
}

/// The progress token of a request's params: a string or an integer.
pub fn progress_token(params: &Value) -> Option<Value> {
    let token = params.get("_meta")?.get("progressToken")?;
    (token.is_string() || token.is_i64() || token.is_u64()).then(|| token.clone())
}

/// Messages a call sends its client while it runs (an elicitation), in order.
pub type Told = Option<mpsc::UnboundedReceiver<Value>>;

/// Answers with what `work` ends with (the JSON-RPC response last). A
/// short call's one message is a JSON body in both eras: clients must take
/// either, and the official TypeScript SDK reads it faster than the same
/// message as a one-event SSE stream. A message told while the call runs
/// turns the answer into an SSE stream at once: the client may need it to
/// let the call end.
pub async fn respond(
    mut work: BoxFuture<'static, Vec<Value>>,
    progress: Option<Progress>,
    mut told: Told,
) -> Response {
    let started = Instant::now();
    let first = tokio::select! {
        biased;
        message = next_told(&mut told) => Some(message),
        ended = tokio::time::timeout(ANSWER_AS_JSON_WITHIN, &mut work) => match ended {
            Ok(messages) => {
                let messages = drained(&mut told, messages);
                return match messages.as_slice() {
                    [only] => json_response(only),
                    _ => sse_response(Body::from(
                        messages.iter().map(sse_event).collect::<String>(),
                    )),
                };
            }
            Err(_) => None,
        },
    };
    let running = Running {
        work,
        progress,
        told,
        first,
    };
    let stream = stream::unfold(Some(running), move |running| async move {
        let mut running = running?;
        if let Some(message) = running.first.take() {
            return Some((Ok::<_, Infallible>(sse_event(&message)), Some(running)));
        }
        tokio::select! {
            biased;
            message = next_told(&mut running.told) => Some((Ok(sse_event(&message)), Some(running))),
            ended = tokio::time::timeout(TICK, &mut running.work) => match ended {
                Err(_) => {
                    let event = match &running.progress {
                        Some(p) => sse_event(&notification(p, started.elapsed())),
                        None => ": still running\n\n".to_string(),
                    };
                    Some((Ok(event), Some(running)))
                }
                Ok(messages) => {
                    let messages = drained(&mut running.told, messages);
                    Some((Ok(messages.iter().map(sse_event).collect()), None))
                }
            },
        }
    });
    sse_response(Body::from_stream(stream))
}

/// A call answered as a stream, while it runs.
struct Running {
    work: BoxFuture<'static, Vec<Value>>,
    progress: Option<Progress>,
    told: Told,
    /// A message told before the stream began.
    first: Option<Value>,
}

/// The next message told; never, once nothing more can be.
async fn next_told(told: &mut Told) -> Value {
    if let Some(receiver) = told.as_mut() {
        if let Some(message) = receiver.recv().await {
            return message;
        }
        *told = None;
    }
    std::future::pending().await
}

/// The messages still told, then those the call ended with.
fn drained(told: &mut Told, ended: Vec<Value>) -> Vec<Value> {
    let mut messages = Vec::new();
    if let Some(receiver) = told.as_mut() {
        while let Ok(message) = receiver.try_recv() {
            messages.push(message);
        }
    }
    messages.extend(ended);
    messages
}

/// Progress as the seconds waited: it grows with every notification.
fn notification(progress: &Progress, waited: Duration) -> Value {
    json!({
        "jsonrpc": "2.0",
        "method": "notifications/progress",
        "params": {
            "progressToken": progress.token,
            "progress": waited.as_secs(),
            "message": (progress.describe)(),
        },
    })
}

pub fn json_response(message: &Value) -> Response {
    (
        StatusCode::OK,
        [(header::CONTENT_TYPE, "application/json")],
        message.to_string(),
    )
        .into_response()
}

pub fn sse_response(body: Body) -> Response {
    Response::builder()
        .status(StatusCode::OK)
        .header(header::CONTENT_TYPE, "text/event-stream")
        .header(header::CACHE_CONTROL, "no-cache")
        .header("x-accel-buffering", "no")
        .body(body)
        .unwrap_or_else(|_| StatusCode::INTERNAL_SERVER_ERROR.into_response())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn progress_tokens_are_strings_or_integers() {
        assert_eq!(
            progress_token(&json!({"_meta": {"progressToken": "a1"}})),
            Some(json!("a1"))
        );
        assert_eq!(
            progress_token(&json!({"_meta": {"progressToken": 7}})),
            Some(json!(7))
        );
        assert_eq!(
            progress_token(&json!({"_meta": {"progressToken": 1.5}})),
            None
        );
        assert_eq!(progress_token(&json!({"name": "x"})), None);
    }

    #[test]
    fn a_progress_notification_counts_the_seconds_waited() {
        let progress = Progress {
            token: json!("t"),
            describe: Box::new(|| "waiting for the person".into()),
        };
        let n = notification(&progress, Duration::from_millis(20_400));
        assert_eq!(n["method"], "notifications/progress");
        assert_eq!(n["params"]["progressToken"], "t");
        assert_eq!(n["params"]["progress"], 20);
        assert_eq!(n["params"]["message"], "waiting for the person");
    }
}
