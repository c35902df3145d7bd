//! The nsigner line protocol (version 1), framing and messages only; the
//! byte transports live in `transport.rs`. Specified in docs/nsigner-protocol.md.
//!
//! One JSON object per line (UTF-8, `\n`-terminated, at most [`MAX_LINE`]
//! bytes). The host sends `{"v":1,"id":N,"method":"...","params":{...}}`;
//! the device answers `{"v":1,"id":N,"result":{...}}` or
//! `{"v":1,"id":N,"error":{"code":"...","message":"..."}}`. Lines that are
//! not such objects (boot banners, debug prints) are ignored.

use serde::{Deserialize, Serialize};
use serde_json::{json, Value};

pub const VERSION: u64 = 1;
/// Longest line either side may send, newline excluded.
pub const MAX_LINE: usize = 64 * 1024;
/// The qrexec service a Qubes signer VM offers by default.
pub const DEFAULT_QREXEC_SERVICE: &str = "qubes.NsignerRpc";

/// Methods of version 1.
pub mod method {
    pub const INFO: &str = "info";
    pub const LIST_KEYS: &str = "list_keys";
    pub const GET_PUBLIC_KEY: &str = "get_public_key";
    pub const SIGN_EVENT: &str = "sign_event";
    pub const NIP04_ENCRYPT: &str = "nip04_encrypt";
    pub const NIP04_DECRYPT: &str = "nip04_decrypt";
    pub const NIP44_ENCRYPT: &str = "nip44_encrypt";
    pub const NIP44_DECRYPT: &str = "nip44_decrypt";
}

/// Error codes a device answers with.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "SCREAMING_SNAKE_CASE")]
pub enum DeviceErrorCode {
    /// The person refused on the device.
    Rejected,
    /// No key at that index.
    NoSuchKey,
    /// The device must be unlocked first.
    Locked,
    /// The request was malformed or had bad parameters.
    BadRequest,
    /// The device does not speak this version.
    UnsupportedVersion,
    /// Anything else that went wrong on the device.
    Internal,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct DeviceError {
    pub code: DeviceErrorCode,
    #[serde(default)]
    pub message: String,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Request {
    pub v: u64,
    pub id: u64,
    pub method: String,
    #[serde(default)]
    pub params: Value,
}

impl Request {
    pub fn new(id: u64, method: &str, params: Value) -> Self {
        Request {
            v: VERSION,
            id,
            method: method.to_string(),
            params,
        }
    }

    /// The request as one line, newline included.
    pub fn to_line(&self) -> String {
        let mut line = serde_json::to_string(self).unwrap_or_default();
        line.push('\n');
        line
    }
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Response {
    pub v: u64,
    pub id: u64,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub result: Option<Value>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error: Option<DeviceError>,
}

impl Response {
    pub fn ok(id: u64, result: Value) -> Self {
        Response {
            v: VERSION,
            id,
            result: Some(result),
            error: None,
        }
    }

    pub fn err(id: u64, code: DeviceErrorCode, message: impl Into<String>) -> Self {
        Response {
            v: VERSION,
            id,
            result: None,
            error: Some(DeviceError {
                code,
                message: message.into(),
            }),
        }
    }

    pub fn to_line(&self) -> String {
        let mut line = serde_json::to_string(self).unwrap_or_default();
        line.push('\n');
        line
    }

    /// The result, or the device's error.
    pub fn into_result(self) -> Result<Value, DeviceError> {
        match (self.error, self.result) {
            (Some(e), _) => Err(e),
            (None, Some(v)) => Ok(v),
            (None, None) => Ok(json!({})),
        }
    }
}

/// Reads a device line: a response, or None for noise to skip.
pub fn parse_response(line: &str) -> Option<Response> {
    let line = line.trim();
    if !line.starts_with('{') {
        return None;
    }
    let response: Response = serde_json::from_str(line).ok()?;
    (response.result.is_some() || response.error.is_some()).then_some(response)
}

/// Reads a host line on the device side; Err is the answer to send back.
pub fn parse_request(line: &str) -> Result<Request, Response> {
    let value: Value = serde_json::from_str(line.trim())
        .map_err(|e| Response::err(0, DeviceErrorCode::BadRequest, format!("not JSON: {e}")))?;
    let id = value.get("id").and_then(Value::as_u64).unwrap_or(0);
    let request: Request = serde_json::from_value(value)
        .map_err(|e| Response::err(id, DeviceErrorCode::BadRequest, e.to_string()))?;
    if request.v != VERSION {
        return Err(Response::err(
            id,
            DeviceErrorCode::UnsupportedVersion,
            format!("this device speaks version {VERSION}"),
        ));
    }
    Ok(request)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn requests_and_responses_are_single_lines_that_round_trip() {
        let req = Request::new(
            7,
            method::SIGN_EVENT,
            json!({"index": 0, "event": {"content": "a\nb"}}),
        );
        let line = req.to_line();
        assert_eq!(line.matches('\n').count(), 1, "one newline, at the end");
        assert_eq!(parse_request(&line).unwrap(), req);
        let ok = Response::ok(7, json!({"pubkey": "ab"}));
        assert_eq!(
            parse_response(&ok.to_line())
                .unwrap()
                .into_result()
                .unwrap()["pubkey"],
            "ab"
        );
        let err = Response::err(7, DeviceErrorCode::Rejected, "no");
        let back = parse_response(&err.to_line())
            .unwrap()
            .into_result()
            .unwrap_err();
        assert_eq!(back.code, DeviceErrorCode::Rejected);
    }

    #[test]
    fn noise_is_skipped_and_bad_requests_are_answered() {
        assert!(parse_response("nsigner boot v0.3 ...").is_none());
        assert!(parse_response("{\"log\":\"hello\"}").is_none());
        assert!(parse_response("").is_none());
        assert_eq!(
            parse_request("garbage").unwrap_err().error.unwrap().code,
            DeviceErrorCode::BadRequest
        );
        let old = parse_request(r#"{"v":0,"id":3,"method":"info"}"#).unwrap_err();
        assert_eq!(old.id, 3);
        assert_eq!(old.error.unwrap().code, DeviceErrorCode::UnsupportedVersion);
    }
}
