//! MCP Streamable HTTP on `/mcp`, in both eras of the protocol on the one
//! endpoint: sessions opened by `initialize` (2024-11-05 to 2025-11-25,
//! [`legacy`]) and stateless requests that carry everything in their own
//! `_meta` (2026-07-28, [`modern`]). Which one a request speaks is read from
//! the request itself ([`envelope::era`]). Tool calls of both go to the
//! shared dispatch.

mod ask_elicit;
pub mod envelope;
mod legacy;
mod listen;
mod login_wait;
mod long_call;
mod modern;
mod tool_calls;
mod wire;

use super::body::wipe;
use super::jsonrpc::{self, Incoming};
use crate::base::secret::Wiped;
use crate::tools::app::App;
use axum::body::Bytes;
use axum::extract::State;
use axum::http::{header, HeaderMap, StatusCode};
use axum::response::{IntoResponse, Response};
use envelope::Era;
use serde_json::Value;
use std::sync::Arc;
use wire::{is_json, rpc_error};

pub use envelope::{LEGACY_VERSIONS, MODERN_VERSIONS};

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
        Ok(Incoming::Reply { id, message }) => {
            legacy::client_reply(&app, &headers, &id, message);
            return StatusCode::ACCEPTED.into_response();
        }
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

#[cfg(test)]
mod tests {
    use super::*;
    use axum::http::HeaderValue;

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
