//! What one JSON-RPC message posted to `/mcp` is: a request to answer,
//! something to accept silently, or a rejection with its error code.
//! Pure (bytes in, value out), so it is fuzzed on its own.

use crate::base::secret::Wiped;
use serde_json::Value;

// JSON-RPC error codes.
pub const PARSE_ERROR: i64 = -32700;
pub const INVALID_REQUEST: i64 = -32600;
pub const METHOD_NOT_FOUND: i64 = -32601;
pub const INVALID_PARAMS: i64 = -32602;

/// A message the server must act on.
#[derive(Debug, PartialEq)]
pub enum Incoming {
    /// A request: answered with its id.
    Request {
        /// A string or a number, never null.
        id: Value,
        method: String,
        params: Value,
    },
    /// The client's response to a request of the server (elicitation):
    /// its id, and the whole message (`result` or `error`). 202, no body.
    Reply { id: Value, message: Value },
    /// A notification: 202, no body.
    Accepted,
}

/// A message refused before any method runs.
#[derive(Debug, PartialEq)]
pub struct Rejection {
    /// The request's id when it could be read, otherwise null.
    pub id: Value,
    pub code: i64,
    pub message: String,
}

impl Rejection {
    fn new(id: Value, code: i64, message: impl Into<String>) -> Self {
        Rejection {
            id,
            code,
            message: message.into(),
        }
    }
}

/// Reads one message. Batches are refused: the 2025 protocol dropped them.
pub fn classify(body: &[u8]) -> Result<Incoming, Rejection> {
    let message = serde_json::from_slice::<Value>(body)
        .map_err(|e| Rejection::new(Value::Null, PARSE_ERROR, format!("parse error: {e}")))?;
    // A refused message is wiped too (its params may hold a login's nsec).
    let mut message = Wiped(message);
    let Value::Object(obj) = &mut *message else {
        let why = if message.is_array() {
            "batch requests are not supported"
        } else {
            "a JSON-RPC message must be an object"
        };
        return Err(Rejection::new(Value::Null, INVALID_REQUEST, why));
    };
    let id = obj.get("id").cloned().filter(|id| !id.is_null());
    if id
        .as_ref()
        .is_some_and(|id| !id.is_string() && !id.is_number())
    {
        let why = "id must be a string or a number";
        return Err(Rejection::new(Value::Null, INVALID_REQUEST, why));
    }
    let method = match obj.get("method") {
        None => None,
        Some(Value::String(method)) => Some(method.clone()),
        Some(_) => {
            let id = id.unwrap_or(Value::Null);
            return Err(Rejection::new(
                id,
                INVALID_REQUEST,
                "method must be a string",
            ));
        }
    };
    let is_response = obj.contains_key("result") || obj.contains_key("error");
    let (Some(method), Some(id)) = (method.clone(), id.clone()) else {
        if method.is_none() && !is_response {
            let id = id.unwrap_or(Value::Null);
            return Err(Rejection::new(
                id,
                INVALID_REQUEST,
                "a request needs \"method\"",
            ));
        }
        return Ok(match (method, id) {
            (None, Some(id)) => Incoming::Reply {
                id,
                message: Value::Object(std::mem::take(obj)),
            },
            _ => Incoming::Accepted,
        });
    };
    if obj.get("jsonrpc").and_then(Value::as_str) != Some("2.0") {
        return Err(Rejection::new(
            id,
            INVALID_REQUEST,
            "jsonrpc must be \"2.0\"",
        ));
    }
    // Moved, not copied: the arguments end up (and are wiped) in the tool's params.
    let params = obj.remove("params").unwrap_or(Value::Null);
    Ok(Incoming::Request { id, method, params })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn code(body: &str) -> i64 {
        classify(body.as_bytes()).unwrap_err().code
    }

    #[test]
    fn a_request_keeps_its_id_method_and_params() {
        let body = br#"{"jsonrpc":"2.0","id":"a","method":"tools/call","params":{"name":"open"}}"#;
        assert_eq!(
            classify(body),
            Ok(Incoming::Request {
                id: "a".into(),
                method: "tools/call".into(),
                params: serde_json::json!({"name": "open"}),
            })
        );
    }

    #[test]
    fn notifications_are_accepted() {
        for body in [
            r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#,
            r#"{"jsonrpc":"2.0","id":null,"method":"notifications/initialized"}"#,
            r#"{"jsonrpc":"2.0","id":null,"error":{"code":1,"message":"no"}}"#,
        ] {
            assert_eq!(classify(body.as_bytes()), Ok(Incoming::Accepted), "{body}");
        }
    }

    #[test]
    fn responses_to_the_server_keep_their_id_and_message() {
        for body in [
            r#"{"jsonrpc":"2.0","id":3,"result":{}}"#,
            r#"{"jsonrpc":"2.0","id":3,"error":{"code":1,"message":"no"}}"#,
        ] {
            let message: Value = serde_json::from_str(body).unwrap();
            let id = serde_json::json!(3);
            assert_eq!(
                classify(body.as_bytes()),
                Ok(Incoming::Reply { id, message }),
                "{body}"
            );
        }
    }

    #[test]
    fn malformed_messages_get_their_codes() {
        assert_eq!(code("{"), PARSE_ERROR);
        assert_eq!(
            code(&format!("{}{}", "[".repeat(500), "]".repeat(500))),
            PARSE_ERROR
        );
        assert_eq!(code("[]"), INVALID_REQUEST);
        assert_eq!(code("null"), INVALID_REQUEST);
        assert_eq!(
            code(r#"{"jsonrpc":"2.0","id":{},"method":"ping"}"#),
            INVALID_REQUEST
        );
        assert_eq!(
            code(r#"{"jsonrpc":"2.0","id":1,"method":2}"#),
            INVALID_REQUEST
        );
        assert_eq!(code(r#"{"jsonrpc":"2.0","id":1}"#), INVALID_REQUEST);
        assert_eq!(
            code(r#"{"jsonrpc":"1.0","id":1,"method":"ping"}"#),
            INVALID_REQUEST
        );
    }

    #[test]
    fn a_rejection_names_the_id_when_it_is_valid() {
        let r = classify(br#"{"jsonrpc":"1.0","id":7,"method":"ping"}"#).unwrap_err();
        assert_eq!(r.id, 7);
        let r = classify(br#"{"jsonrpc":"2.0","id":[7],"method":"ping"}"#).unwrap_err();
        assert_eq!(r.id, Value::Null);
    }
}
