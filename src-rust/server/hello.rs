//! `/api/hello`: the server proves it holds the person's panel key
//! (`for=panel`) or the agents' token (`for=agents`) before a client sends
//! anything made from it (`base::proof`). It needs no credential and
//! gives nothing a listener could use: an HMAC over the client's nonce and
//! one of its own, which no connection takes as a credential.

use crate::base::proof::Hello;
use crate::tools::app::App;
use axum::extract::{Query, State};
use axum::http::{header, StatusCode};
use axum::response::{IntoResponse, Response};
use serde::Deserialize;
use serde_json::json;
use std::sync::Arc;

#[derive(Deserialize)]
pub struct HelloParams {
    nonce: String,
    #[serde(rename = "for")]
    secret: String,
}

pub async fn hello(State(app): State<Arc<App>>, Query(p): Query<HelloParams>) -> Response {
    let security = &app.security;
    let secret = match (p.secret.as_str(), &security.token) {
        ("panel", _) => security.panel_key.as_str(),
        ("agents", Some(token)) => token.as_str(),
        // No token to prove: agents connect without one.
        ("agents", None) => "",
        _ => return refuse("for must be panel or agents"),
    };
    let Some(Hello {
        instance,
        nonce,
        proof,
    }) = security.proofs.hello(&p.nonce, secret)
    else {
        return refuse("nonce must be 1 to 128 hex digits");
    };
    let body = json!({"instance": instance, "nonce": nonce, "proof": proof});
    (
        StatusCode::OK,
        [
            (header::CONTENT_TYPE, "application/json"),
            (header::CACHE_CONTROL, "no-store"),
        ],
        body.to_string(),
    )
        .into_response()
}

fn refuse(why: &'static str) -> Response {
    (StatusCode::BAD_REQUEST, why).into_response()
}
