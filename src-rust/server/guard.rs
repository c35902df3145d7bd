//! Request guards: loopback Host names (no DNS rebinding), the server's own
//! Origin only (no page can drive it), and the credential each route needs:
//! the person's panel key for the panel's connection, the agents' bearer
//! token for /mcp and /agent. Neither opens the other's door, and both come
//! in headers only (a URL ends up in logs, history and process lists).

use crate::tools::app::{App, Security};
use axum::extract::{Request, State};
use axum::http::{header, HeaderMap, StatusCode};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use std::sync::Arc;

pub async fn guard(State(app): State<Arc<App>>, request: Request, next: Next) -> Response {
    let security = &app.security;
    let headers = request.headers();
    if !host_allowed(headers, security) {
        return refuse(StatusCode::FORBIDDEN, "Host is not a loopback name");
    }
    if !origin_allowed(headers, security) {
        return refuse(StatusCode::FORBIDDEN, "cross-origin requests are refused");
    }
    let path = request.uri().path();
    let allowed = match path {
        // The panel's own files hold no secrets; the probes say one word.
        // The hello proves the server; it takes no credential.
        "/" | HEALTHZ | READYZ | HELLO => true,
        _ if path.starts_with("/panel/") => true,
        PANEL_API => is_person(headers, security),
        METRICS => token_ok(headers, security) || metrics_ok(headers, security),
        _ => token_ok(headers, security),
    };
    if !allowed {
        let why = if path == PANEL_API {
            "the control panel's connection takes the person's panel key, not an agent's token"
        } else {
            "missing or wrong bearer token (send it as Authorization: Bearer <token>)"
        };
        let mut response = refuse(StatusCode::UNAUTHORIZED, why);
        response.headers_mut().insert(
            header::WWW_AUTHENTICATE,
            "Bearer".parse().expect("static header"),
        );
        return response;
    }
    next.run(request).await
}

/// What a monitoring system reads, with its own read-only credential.
pub const METRICS: &str = "/metrics";

/// The probes an orchestrator sends without credentials.
pub const HEALTHZ: &str = "/healthz";
pub const READYZ: &str = "/readyz";

/// The control panel's WebSocket: the person's connection.
pub const PANEL_API: &str = "/api/panel";

/// Where the server proves itself before a client proves it holds the
/// key or the token (`base::proof`).
pub const HELLO: &str = "/api/hello";

/// The WebSocket subprotocol the panel page asks for; the server answers
/// with it. Beside it the page sends `nonce.<S>` and `proof.<P>`: a nonce
/// the server gave in its hello and the page's proof over it, never the
/// key (a WebSocket from a page can set no header but this one).
pub const PANEL_PROTOCOL: &str = "sovereign-panel";
const NONCE_PROTOCOL: &str = "nonce.";
const PROOF_PROTOCOL: &str = "proof.";

/// The scheme of an Authorization header that carries a proof instead of
/// the secret: `Proof <nonce> <proof>` (the `sovereign` command's).
const PROOF_SCHEME: &str = "Proof ";

/// The name of the cookie that earlier releases carried the panel key in.
/// Cookies ignore ports, so every other loopback server received it; the
/// key is no longer a cookie, and the browser clears what is left of it.
pub fn legacy_cookie_name(security: &Security) -> String {
    format!("sovereign-panel-{}", security.addr.port())
}

/// Whether the request is the person's: their key as a bearer header (a
/// program the person runs), or a proof of it over a nonce this server
/// gave, beside the panel's WebSocket subprotocol (the panel page) or in
/// the Authorization header. Never the key in a page's request, nor a
/// cookie: a cookie for 127.0.0.1 goes to every port of it.
fn is_person(headers: &HeaderMap, security: &Security) -> bool {
    let key = &security.panel_key;
    bearer(headers).is_some_and(|given| crate::base::secret::same(given, key))
        || proven(headers, security, key)
}

/// Whether the request answers a nonce this server gave with the proof
/// that its sender holds `secret` (the nonce is spent).
fn proven(headers: &HeaderMap, security: &Security, secret: &str) -> bool {
    let protocols: Vec<&str> = headers
        .get_all(header::SEC_WEBSOCKET_PROTOCOL)
        .iter()
        .filter_map(|v| v.to_str().ok())
        .flat_map(|v| v.split(','))
        .map(str::trim)
        .collect();
    let named = |prefix: &str| protocols.iter().find_map(|p| p.strip_prefix(prefix));
    let from_header = headers
        .get(header::AUTHORIZATION)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.strip_prefix(PROOF_SCHEME))
        .and_then(|v| v.trim().split_once(' '));
    let given = match (named(NONCE_PROTOCOL), named(PROOF_PROTOCOL)) {
        (Some(nonce), Some(proof)) => Some((nonce, proof)),
        _ => from_header,
    };
    given.is_some_and(|(nonce, proof)| security.proofs.check(nonce, proof.trim(), secret))
}

fn bearer(headers: &HeaderMap) -> Option<&str> {
    headers
        .get(header::AUTHORIZATION)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.strip_prefix("Bearer "))
        .map(str::trim)
}

fn refuse(status: StatusCode, why: &'static str) -> Response {
    tracing::debug!(%status, why, "request refused");
    (status, why).into_response()
}

const LOOPBACK_NAMES: [&str; 4] = ["127.0.0.1", "localhost", "[::1]", "::1"];

fn host_allowed(headers: &HeaderMap, security: &Security) -> bool {
    if !security.addr.ip().is_loopback() {
        // A public bind is protected by the required token instead.
        return true;
    }
    let Some(host) = headers.get(header::HOST).and_then(|h| h.to_str().ok()) else {
        return false;
    };
    LOOPBACK_NAMES.contains(&strip_port(host))
}

fn strip_port(host: &str) -> &str {
    if host.starts_with('[') {
        return host
            .split_once(']')
            .map(|(h, _)| &host[..h.len() + 1])
            .unwrap_or(host);
    }
    match host.rsplit_once(':') {
        Some((name, port)) if port.chars().all(|c| c.is_ascii_digit()) && !name.contains(':') => {
            name
        }
        _ => host,
    }
}

/// No Origin (non-browser clients) passes; a browser's must be ours.
fn origin_allowed(headers: &HeaderMap, security: &Security) -> bool {
    let Some(origin) = headers.get(header::ORIGIN) else {
        return true;
    };
    let Ok(origin) = origin.to_str() else {
        return false;
    };
    let port = security.addr.port();
    let mut allowed: Vec<String> = LOOPBACK_NAMES[..3]
        .iter()
        .map(|name| format!("http://{name}:{port}"))
        .collect();
    if !security.addr.ip().is_loopback() {
        allowed.push(format!("http://{}", security.addr));
    }
    allowed.iter().any(|a| a == origin)
}

/// Whether the request carries the metrics token, which opens `/metrics`
/// and nothing else.
fn metrics_ok(headers: &HeaderMap, security: &Security) -> bool {
    security.metrics_token.as_deref().is_some_and(|expected| {
        bearer(headers).is_some_and(|given| crate::base::secret::same(given, expected))
    })
}

fn token_ok(headers: &HeaderMap, security: &Security) -> bool {
    let Some(expected) = &security.token else {
        return true;
    };
    bearer(headers).is_some_and(|given| crate::base::secret::same(given, expected))
        || proven(headers, security, expected)
}

#[cfg(test)]
mod tests {
    use super::*;
    use axum::http::HeaderValue;

    fn security(token: Option<&str>) -> Security {
        Security {
            token: token.map(String::from),
            panel_key: "the-persons-panel-key-0123456789".into(),
            metrics_token: token.map(|_| "the-metrics-token-0123456789".to_string()),
            addr: "127.0.0.1:17777".parse().unwrap(),
            panel_address: "http://127.0.0.1:17777/".into(),
            proofs: Default::default(),
        }
    }

    fn headers(pairs: &[(header::HeaderName, &str)]) -> HeaderMap {
        let mut h = HeaderMap::new();
        for (k, v) in pairs {
            h.insert(k.clone(), HeaderValue::from_str(v).unwrap());
        }
        h
    }

    #[test]
    fn only_loopback_hosts_pass() {
        let s = security(None);
        for ok in [
            "127.0.0.1:17777",
            "localhost:17777",
            "localhost",
            "[::1]:17777",
        ] {
            assert!(host_allowed(&headers(&[(header::HOST, ok)]), &s), "{ok}");
        }
        for bad in [
            "evil.example:17777",
            "127.0.0.1.evil.example",
            "localhost.evil:17777",
        ] {
            assert!(!host_allowed(&headers(&[(header::HOST, bad)]), &s), "{bad}");
        }
        assert!(!host_allowed(&HeaderMap::new(), &s));
    }

    #[test]
    fn only_our_origin_passes() {
        let s = security(None);
        assert!(origin_allowed(&HeaderMap::new(), &s));
        assert!(origin_allowed(
            &headers(&[(header::ORIGIN, "http://127.0.0.1:17777")]),
            &s
        ));
        assert!(origin_allowed(
            &headers(&[(header::ORIGIN, "http://localhost:17777")]),
            &s
        ));
        for bad in [
            "null",
            "http://127.0.0.1:8080",
            "http://evil.example",
            "https://localhost:17777",
        ] {
            assert!(
                !origin_allowed(&headers(&[(header::ORIGIN, bad)]), &s),
                "{bad}"
            );
        }
    }

    #[test]
    fn the_token_is_required_when_set_and_only_in_the_header() {
        let s = security(Some("secret-token-123456"));
        assert!(!token_ok(&HeaderMap::new(), &s));
        assert!(token_ok(
            &headers(&[(header::AUTHORIZATION, "Bearer secret-token-123456")]),
            &s
        ));
        assert!(!token_ok(
            &headers(&[(header::AUTHORIZATION, "Bearer wrong")]),
            &s
        ));
        assert!(token_ok(&HeaderMap::new(), &security(None)));
        // The metrics token is no agents' token.
        let metrics = headers(&[(header::AUTHORIZATION, "Bearer the-metrics-token-0123456789")]);
        assert!(!token_ok(&metrics, &s));
        assert!(metrics_ok(&metrics, &s));
        assert!(!is_person(&metrics, &s));
        // A proof over a nonce the server gave, once (the sovereign command's).
        let hello = s
            .proofs
            .hello("01", "secret-token-123456")
            .expect("a hello");
        let proof = crate::base::proof::client_proof("secret-token-123456", &hello.nonce);
        let auth = format!("Proof {} {proof}", hello.nonce);
        assert!(token_ok(&headers(&[(header::AUTHORIZATION, &auth)]), &s));
        assert!(!token_ok(&headers(&[(header::AUTHORIZATION, &auth)]), &s));
    }

    #[test]
    fn the_panel_takes_the_persons_key_never_the_agents_token() {
        let s = security(Some("secret-token-123456"));
        let key = "the-persons-panel-key-0123456789";
        assert!(is_person(
            &headers(&[(header::AUTHORIZATION, &format!("Bearer {key}"))]),
            &s
        ));
        // The page: a proof over a nonce the server gave, never the key, taken once.
        let hello = s.proofs.hello("c0ffee", key).expect("a hello");
        let proof = crate::base::proof::client_proof(key, &hello.nonce);
        let protocols = format!("sovereign-panel, nonce.{}, proof.{proof}", hello.nonce);
        let page = headers(&[(header::SEC_WEBSOCKET_PROTOCOL, &protocols)]);
        assert!(is_person(&page, &s));
        assert!(!is_person(&page, &s), "a nonce answers once");
        // The key itself beside the subprotocol is not taken.
        let hex: String = key.bytes().map(|b| format!("{b:02x}")).collect();
        let raw = format!("sovereign-panel, key.{hex}");
        assert!(!is_person(
            &headers(&[(header::SEC_WEBSOCKET_PROTOCOL, &raw)]),
            &s
        ));
        // A proof made with the agents' token is not the person's.
        let hello = s.proofs.hello("c0ffee", key).expect("a hello");
        let theirs = crate::base::proof::client_proof("secret-token-123456", &hello.nonce);
        let auth = format!("Proof {} {theirs}", hello.nonce);
        assert!(!is_person(&headers(&[(header::AUTHORIZATION, &auth)]), &s));
        assert!(!is_person(
            &headers(&[(header::AUTHORIZATION, "Bearer secret-token-123456")]),
            &s
        ));
        // Never from a cookie: any loopback port receives those.
        assert!(!is_person(
            &headers(&[(header::COOKIE, &format!("sovereign-panel-17777={key}"))]),
            &s
        ));
        assert!(!is_person(
            &headers(&[(header::SEC_WEBSOCKET_PROTOCOL, "sovereign-panel, key.zz")]),
            &s
        ));
        assert!(!is_person(&HeaderMap::new(), &security(None)));
    }
}
