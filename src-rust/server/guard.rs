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
use subtle::ConstantTimeEq;

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
        "/" | HEALTHZ | READYZ => true,
        _ if path.starts_with("/panel/") => true,
        PANEL_API => is_person(headers, security),
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

/// The probes an orchestrator sends without credentials.
pub const HEALTHZ: &str = "/healthz";
pub const READYZ: &str = "/readyz";

/// The control panel's WebSocket: the person's connection.
pub const PANEL_API: &str = "/api/panel";

/// The WebSocket subprotocol the panel page asks for; the server answers
/// with it. The key travels beside it as `key.<hex of the key>`, a
/// protocol the server never echoes: a WebSocket from a page can set no
/// header but this one.
pub const PANEL_PROTOCOL: &str = "sovereign-panel";
const PANEL_KEY_PROTOCOL: &str = "key.";

/// The name of the cookie that earlier releases carried the panel key in.
/// Cookies ignore ports, so every other loopback server received it; the
/// key is no longer a cookie, and the browser clears what is left of it.
pub fn legacy_cookie_name(security: &Security) -> String {
    format!("sovereign-panel-{}", security.addr.port())
}

/// Whether the request carries the person's key: as a bearer header (a
/// program the person runs) or beside the panel's WebSocket subprotocol
/// (the panel page, whose WebSocket cannot set other headers). Never in a
/// cookie: a cookie for 127.0.0.1 goes to every port of it.
fn is_person(headers: &HeaderMap, security: &Security) -> bool {
    let from_protocol = headers
        .get_all(header::SEC_WEBSOCKET_PROTOCOL)
        .iter()
        .filter_map(|v| v.to_str().ok())
        .flat_map(|v| v.split(','))
        .filter_map(|p| p.trim().strip_prefix(PANEL_KEY_PROTOCOL))
        .filter_map(from_hex);
    let from_bearer = bearer(headers).map(|b| zeroize::Zeroizing::new(b.to_string()));
    from_bearer
        .into_iter()
        .chain(from_protocol)
        .any(|given| same_secret(&given, &security.panel_key))
}

/// The text a hex string spells, wiped when dropped.
fn from_hex(hex: &str) -> Option<zeroize::Zeroizing<String>> {
    if hex.len() % 2 != 0 || hex.len() > 1024 {
        return None;
    }
    let bytes: Option<Vec<u8>> = (0..hex.len())
        .step_by(2)
        .map(|i| u8::from_str_radix(hex.get(i..i + 2)?, 16).ok())
        .collect();
    String::from_utf8(bytes?).ok().map(zeroize::Zeroizing::new)
}

fn bearer(headers: &HeaderMap) -> Option<&str> {
    headers
        .get(header::AUTHORIZATION)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.strip_prefix("Bearer "))
        .map(str::trim)
}

/// Compares in constant time.
pub fn same_secret(given: &str, expected: &str) -> bool {
    given.as_bytes().ct_eq(expected.as_bytes()).into()
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

fn token_ok(headers: &HeaderMap, security: &Security) -> bool {
    let Some(expected) = &security.token else {
        return true;
    };
    bearer(headers).is_some_and(|given| same_secret(given, expected))
}

#[cfg(test)]
mod tests {
    use super::*;
    use axum::http::HeaderValue;

    fn security(token: Option<&str>) -> Security {
        Security {
            token: token.map(String::from),
            panel_key: "the-persons-panel-key-0123456789".into(),
            addr: "127.0.0.1:17777".parse().unwrap(),
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
    }

    #[test]
    fn the_panel_takes_the_persons_key_never_the_agents_token() {
        let s = security(Some("secret-token-123456"));
        let key = "the-persons-panel-key-0123456789";
        assert!(is_person(
            &headers(&[(header::AUTHORIZATION, &format!("Bearer {key}"))]),
            &s
        ));
        let hex: String = key.bytes().map(|b| format!("{b:02x}")).collect();
        assert!(is_person(
            &headers(&[(
                header::SEC_WEBSOCKET_PROTOCOL,
                &format!("sovereign-panel, key.{hex}")
            )]),
            &s
        ));
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
