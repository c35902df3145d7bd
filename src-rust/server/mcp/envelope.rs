//! Which era a request posted to `/mcp` speaks, and for a modern one
//! (2026-07-28: no `initialize`, everything in each request) the checks its
//! envelope passes before any method runs: the `_meta` fields, the headers
//! that mirror the body, the version, the log level. Pure (values in,
//! verdict out), so it is unit tested and fuzzed on its own.

use super::super::jsonrpc::INVALID_PARAMS;
use base64::Engine;
use serde_json::{json, Value};

/// Revisions served statelessly, from each request's own `_meta`.
pub const MODERN_VERSIONS: [&str; 1] = ["2026-07-28"];
/// Revisions served in sessions opened by `initialize`, oldest first.
pub const LEGACY_VERSIONS: [&str; 4] = ["2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25"];

// Error codes the 2026-07-28 revision defines.
pub const HEADER_MISMATCH: i64 = -32020;
pub const MISSING_CLIENT_CAPABILITY: i64 = -32021;
pub const UNSUPPORTED_VERSION: i64 = -32022;

const VERSION_KEY: &str = "io.modelcontextprotocol/protocolVersion";
const CAPABILITIES_KEY: &str = "io.modelcontextprotocol/clientCapabilities";
const CLIENT_INFO_KEY: &str = "io.modelcontextprotocol/clientInfo";
const LOG_LEVEL_KEY: &str = "io.modelcontextprotocol/logLevel";

/// Every revision served, newest first (what `server/discover` lists).
pub fn supported_versions() -> Vec<&'static str> {
    MODERN_VERSIONS
        .iter()
        .rev()
        .chain(LEGACY_VERSIONS.iter().rev())
        .copied()
        .collect()
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Era {
    /// Sessions opened by `initialize` (2025-11-25 and before).
    Legacy,
    /// Stateless requests (2026-07-28).
    Modern,
}

/// The era of a request: modern when its `MCP-Protocol-Version` header or
/// the version in its `_meta` names anything but a legacy revision (an
/// unknown version is told which ones are served, the modern way).
pub fn era(version_header: Option<&str>, params: &Value) -> Era {
    let legacy = |v: &str| LEGACY_VERSIONS.contains(&v);
    if version_header.is_some_and(|v| !legacy(v)) {
        return Era::Modern;
    }
    match params.get("_meta").and_then(|m| m.get(VERSION_KEY)) {
        Some(Value::String(v)) if legacy(v) => Era::Legacy,
        Some(_) => Era::Modern,
        None => Era::Legacy,
    }
}

/// The routing headers of a POST, as the client sent them.
#[derive(Debug, Default, Clone)]
pub struct RoutingHeaders {
    pub protocol_version: Option<String>,
    pub method: Option<String>,
    pub name: Option<String>,
    /// A routing header sent twice (readers of the first and of the last
    /// copy would disagree), or one that is not visible ASCII.
    pub malformed: Option<String>,
}

/// The syslog levels of MCP logging, least severe first.
pub const LOG_LEVELS: [&str; 8] = [
    "debug",
    "info",
    "notice",
    "warning",
    "error",
    "critical",
    "alert",
    "emergency",
];

/// What a modern request says about itself.
#[derive(Debug, Clone, PartialEq)]
pub struct Envelope {
    pub version: String,
    pub client_info: Option<Value>,
    pub capabilities: Value,
    /// The least severe log level the client wants messages of, as an
    /// index into [`LOG_LEVELS`]; none means no log messages at all.
    pub log_level: Option<usize>,
}

/// A request refused before its method runs.
#[derive(Debug, Clone, PartialEq)]
pub struct Refusal {
    pub code: i64,
    pub message: String,
    pub data: Option<Value>,
}

impl Refusal {
    fn new(code: i64, message: impl Into<String>) -> Self {
        Refusal {
            code,
            message: message.into(),
            data: None,
        }
    }
}

/// The body parameter `Mcp-Name` mirrors, for the methods that have one.
fn named_param(method: &str) -> Option<&'static str> {
    match method {
        "tools/call" | "prompts/get" => Some("name"),
        "resources/read" => Some("uri"),
        _ => None,
    }
}

/// The checks of a modern request, first failure wins: the required
/// `_meta` fields (INVALID_PARAMS), then the headers against the body
/// (HEADER_MISMATCH: a client that disagrees with itself is told so before
/// being told its version is not served), then the version, then the log
/// level.
pub fn check(method: &str, params: &Value, headers: &RoutingHeaders) -> Result<Envelope, Refusal> {
    let Some(meta) = params.get("_meta").and_then(Value::as_object) else {
        return Err(Refusal::new(
            INVALID_PARAMS,
            format!("params._meta must be an object with {VERSION_KEY} and {CAPABILITIES_KEY}"),
        ));
    };
    let missing: Vec<&str> = [VERSION_KEY, CAPABILITIES_KEY]
        .into_iter()
        .filter(|key| !meta.contains_key(*key))
        .collect();
    if !missing.is_empty() {
        return Err(Refusal::new(
            INVALID_PARAMS,
            format!("params._meta lacks {}", missing.join(" and ")),
        ));
    }
    if let Some(header) = &headers.malformed {
        return Err(Refusal::new(
            HEADER_MISMATCH,
            format!("the {header} header is sent twice or is not plain ASCII"),
        ));
    }
    let version = &meta[VERSION_KEY];
    if headers.protocol_version.as_deref() != version.as_str() {
        let why = match &headers.protocol_version {
            None => "the MCP-Protocol-Version header is missing".to_string(),
            Some(h) => {
                format!("the MCP-Protocol-Version header ({h}) differs from _meta's {version}")
            }
        };
        return Err(Refusal::new(HEADER_MISMATCH, why));
    }
    if headers.method.as_deref() != Some(method) {
        let why = match &headers.method {
            None => "the Mcp-Method header is missing".to_string(),
            Some(h) => format!("the Mcp-Method header ({h}) differs from the method {method}"),
        };
        return Err(Refusal::new(HEADER_MISMATCH, why));
    }
    if let Some(key) = named_param(method) {
        if let Some(body) = params.get(key).and_then(Value::as_str) {
            match headers.name.as_deref().map(decode_header_value) {
                None => {
                    let why = format!("the Mcp-Name header is missing (params.{key} is {body:?})");
                    return Err(Refusal::new(HEADER_MISMATCH, why));
                }
                Some(Err(why)) => return Err(Refusal::new(HEADER_MISMATCH, why)),
                Some(Ok(header)) if header != body => {
                    let why = format!(
                        "the Mcp-Name header ({header:?}) differs from params.{key} ({body:?})"
                    );
                    return Err(Refusal::new(HEADER_MISMATCH, why));
                }
                Some(Ok(_)) => {}
            }
        }
    }
    let Some(version) = version.as_str() else {
        return Err(Refusal::new(
            INVALID_PARAMS,
            format!("{VERSION_KEY} must be a string"),
        ));
    };
    if !MODERN_VERSIONS.contains(&version) {
        return Err(Refusal {
            code: UNSUPPORTED_VERSION,
            message: format!(
                "Unsupported protocol version {version}; this server speaks {} without a session, \
                 and {} after initialize",
                MODERN_VERSIONS.join(", "),
                LEGACY_VERSIONS.join(", ")
            ),
            data: Some(json!({"supported": supported_versions(), "requested": version})),
        });
    }
    let capabilities = meta[CAPABILITIES_KEY].clone();
    if !capabilities.is_object() {
        return Err(Refusal::new(
            INVALID_PARAMS,
            format!("{CAPABILITIES_KEY} must be an object"),
        ));
    }
    let log_level = match meta.get(LOG_LEVEL_KEY) {
        None => None,
        Some(level) => Some(
            level
                .as_str()
                .and_then(|l| LOG_LEVELS.iter().position(|known| *known == l))
                .ok_or_else(|| {
                    Refusal::new(
                        INVALID_PARAMS,
                        format!("{LOG_LEVEL_KEY} must be one of {}", LOG_LEVELS.join(", ")),
                    )
                })?,
        ),
    };
    Ok(Envelope {
        version: version.to_string(),
        client_info: meta.get(CLIENT_INFO_KEY).filter(|v| v.is_object()).cloned(),
        capabilities,
        log_level,
    })
}

/// A header value as the client meant it: plain, or `=?base64?...?=` for
/// what a header cannot carry (non-ASCII, surrounding spaces).
pub fn decode_header_value(value: &str) -> Result<String, String> {
    let Some(encoded) = value
        .strip_prefix("=?base64?")
        .and_then(|rest| rest.strip_suffix("?="))
    else {
        return Ok(value.to_string());
    };
    base64::engine::general_purpose::STANDARD
        .decode(encoded)
        .ok()
        .and_then(|bytes| String::from_utf8(bytes).ok())
        .ok_or_else(|| format!("the header value {value:?} is not valid base64 of UTF-8 text"))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn meta() -> Value {
        json!({
            "io.modelcontextprotocol/protocolVersion": "2026-07-28",
            "io.modelcontextprotocol/clientCapabilities": {},
            "io.modelcontextprotocol/clientInfo": {"name": "t", "version": "1"},
        })
    }

    fn headers(method: &str, name: Option<&str>) -> RoutingHeaders {
        RoutingHeaders {
            protocol_version: Some("2026-07-28".into()),
            method: Some(method.into()),
            name: name.map(String::from),
            malformed: None,
        }
    }

    fn code(method: &str, params: Value, headers: &RoutingHeaders) -> i64 {
        check(method, &params, headers).unwrap_err().code
    }

    #[test]
    fn the_era_follows_the_header_or_the_meta_version() {
        assert_eq!(era(None, &json!({})), Era::Legacy);
        assert_eq!(era(Some("2025-11-25"), &json!({})), Era::Legacy);
        assert_eq!(era(Some("2026-07-28"), &json!({})), Era::Modern);
        assert_eq!(era(Some("v999"), &json!({})), Era::Modern);
        assert_eq!(era(None, &json!({"_meta": meta()})), Era::Modern);
        assert_eq!(
            era(None, &json!({"_meta": {VERSION_KEY: "2025-06-18"}})),
            Era::Legacy
        );
        assert_eq!(era(None, &json!({"_meta": {VERSION_KEY: 7}})), Era::Modern);
        assert_eq!(
            era(None, &json!({"_meta": {"progressToken": 1}})),
            Era::Legacy
        );
    }

    #[test]
    fn a_complete_envelope_is_read() {
        let params = json!({"_meta": meta()});
        let envelope = check("tools/list", &params, &headers("tools/list", None)).unwrap();
        assert_eq!(envelope.version, "2026-07-28");
        assert_eq!(envelope.client_info.as_ref().unwrap()["name"], "t");
        assert_eq!(envelope.log_level, None);
    }

    #[test]
    fn missing_meta_fields_are_invalid_params() {
        let h = headers("server/discover", None);
        assert_eq!(code("server/discover", json!({}), &h), INVALID_PARAMS);
        let mut m = meta();
        m.as_object_mut().unwrap().remove(VERSION_KEY);
        assert_eq!(
            code("server/discover", json!({"_meta": m}), &h),
            INVALID_PARAMS
        );
        let mut m = meta();
        m.as_object_mut().unwrap().remove(CAPABILITIES_KEY);
        assert_eq!(
            code("server/discover", json!({"_meta": m}), &h),
            INVALID_PARAMS
        );
        let mut m = meta();
        m.as_object_mut().unwrap().remove(CLIENT_INFO_KEY);
        assert!(check("server/discover", &json!({"_meta": m}), &h).is_ok());
    }

    #[test]
    fn headers_must_mirror_the_body() {
        let params = json!({"_meta": meta(), "name": "get_url"});
        let mut h = headers("tools/call", Some("get_url"));
        assert!(check("tools/call", &params, &h).is_ok());
        h.name = Some("open".into());
        assert_eq!(code("tools/call", params.clone(), &h), HEADER_MISMATCH);
        h.name = None;
        assert_eq!(code("tools/call", params.clone(), &h), HEADER_MISMATCH);
        h.name = Some("=?base64?Z2V0X3VybA==?=".into());
        assert!(check("tools/call", &params, &h).is_ok(), "base64 sentinel");
        h.method = Some("tools/list".into());
        assert_eq!(code("tools/call", params.clone(), &h), HEADER_MISMATCH);
        let mut h = headers("tools/call", Some("get_url"));
        h.protocol_version = None;
        assert_eq!(code("tools/call", params.clone(), &h), HEADER_MISMATCH);
        h.protocol_version = Some("2025-11-25".into());
        assert_eq!(code("tools/call", params.clone(), &h), HEADER_MISMATCH);
        let mut h = headers("tools/call", Some("get_url"));
        h.malformed = Some("Mcp-Method".into());
        assert_eq!(code("tools/call", params, &h), HEADER_MISMATCH);
    }

    #[test]
    fn an_unserved_version_lists_the_served_ones() {
        let mut m = meta();
        m[VERSION_KEY] = "v999".into();
        let mut h = headers("server/discover", None);
        h.protocol_version = Some("v999".into());
        let refusal = check("server/discover", &json!({"_meta": m}), &h).unwrap_err();
        assert_eq!(refusal.code, UNSUPPORTED_VERSION);
        let data = refusal.data.unwrap();
        assert_eq!(data["requested"], "v999");
        assert_eq!(data["supported"][0], "2026-07-28");
        assert!(data["supported"]
            .as_array()
            .unwrap()
            .contains(&json!("2025-11-25")));
    }

    #[test]
    fn log_levels_are_checked() {
        let mut m = meta();
        m[LOG_LEVEL_KEY] = "warning".into();
        let h = headers("tools/list", None);
        let envelope = check("tools/list", &json!({"_meta": m.clone()}), &h).unwrap();
        assert_eq!(envelope.log_level, Some(3));
        m[LOG_LEVEL_KEY] = "loud".into();
        assert_eq!(code("tools/list", json!({"_meta": m}), &h), INVALID_PARAMS);
    }

    #[test]
    fn header_values_decode() {
        assert_eq!(decode_header_value("us-west1").unwrap(), "us-west1");
        assert_eq!(
            decode_header_value("=?base64?SGVsbG8sIOS4lueVjA==?=").unwrap(),
            "Hello, 世界"
        );
        assert!(decode_header_value("=?base64?***?=").is_err());
    }
}
