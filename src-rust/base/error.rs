//! The one error type every tool returns: a stable code a model can act on
//! and a message saying what to do next.

use serde::{Deserialize, Serialize};
use std::fmt;

/// Stable error codes, shared by MCP, /agent and the panel.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "SCREAMING_SNAKE_CASE")]
pub enum ErrorCode {
    NotLoggedIn,
    InvalidParams,
    UnknownTool,
    NoTab,
    /// No context of that name is open (or it was closed meanwhile).
    NoContext,
    ElementNotFound,
    StaleRef,
    NotInteractable,
    Timeout,
    JsError,
    DialogOpen,
    NavigationFailed,
    /// The tab's page crashed or was killed (its web process ended): only
    /// a navigation (reload, open, back, forward) or closing the tab helps.
    PageCrashed,
    SignerUnavailable,
    SignerRejected,
    Paused,
    /// The person's, never an agent's: what they copied, for one.
    NotAllowed,
    /// A vault entry's secret may not go where it was asked to: the
    /// message starts with the rule (`locked:`, `origin:`, `frame:`,
    /// `touched:`).
    SecretRefused,
    Unsupported,
    /// A bound on what agents may hold open is reached (sessions,
    /// connections, contexts): end one and try again.
    Busy,
    /// The client went away before the call ended (call log only: nobody
    /// is left to read it).
    Cancelled,
    Internal,
}

impl ErrorCode {
    pub const ALL: [ErrorCode; 22] = [
        ErrorCode::NotLoggedIn,
        ErrorCode::InvalidParams,
        ErrorCode::UnknownTool,
        ErrorCode::NoTab,
        ErrorCode::NoContext,
        ErrorCode::ElementNotFound,
        ErrorCode::StaleRef,
        ErrorCode::NotInteractable,
        ErrorCode::Timeout,
        ErrorCode::JsError,
        ErrorCode::DialogOpen,
        ErrorCode::NavigationFailed,
        ErrorCode::PageCrashed,
        ErrorCode::SignerUnavailable,
        ErrorCode::SignerRejected,
        ErrorCode::Paused,
        ErrorCode::NotAllowed,
        ErrorCode::SecretRefused,
        ErrorCode::Unsupported,
        ErrorCode::Busy,
        ErrorCode::Cancelled,
        ErrorCode::Internal,
    ];

    pub fn as_str(self) -> &'static str {
        match self {
            ErrorCode::NotLoggedIn => "NOT_LOGGED_IN",
            ErrorCode::InvalidParams => "INVALID_PARAMS",
            ErrorCode::UnknownTool => "UNKNOWN_TOOL",
            ErrorCode::NoTab => "NO_TAB",
            ErrorCode::NoContext => "NO_CONTEXT",
            ErrorCode::ElementNotFound => "ELEMENT_NOT_FOUND",
            ErrorCode::StaleRef => "STALE_REF",
            ErrorCode::NotInteractable => "NOT_INTERACTABLE",
            ErrorCode::Timeout => "TIMEOUT",
            ErrorCode::JsError => "JS_ERROR",
            ErrorCode::DialogOpen => "DIALOG_OPEN",
            ErrorCode::NavigationFailed => "NAVIGATION_FAILED",
            ErrorCode::PageCrashed => "PAGE_CRASHED",
            ErrorCode::SignerUnavailable => "SIGNER_UNAVAILABLE",
            ErrorCode::SignerRejected => "SIGNER_REJECTED",
            ErrorCode::Paused => "PAUSED",
            ErrorCode::NotAllowed => "NOT_ALLOWED",
            ErrorCode::SecretRefused => "SECRET_REFUSED",
            ErrorCode::Unsupported => "UNSUPPORTED",
            ErrorCode::Busy => "BUSY",
            ErrorCode::Cancelled => "CANCELLED",
            ErrorCode::Internal => "INTERNAL",
        }
    }

    /// Parses a code sent back by the agent library.
    pub fn parse(code: &str) -> Option<ErrorCode> {
        ErrorCode::ALL.into_iter().find(|c| c.as_str() == code)
    }
}

impl fmt::Display for ErrorCode {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// A failed tool call.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{code}: {message}")]
pub struct ToolError {
    pub code: ErrorCode,
    pub message: String,
    /// The parameter at fault, when one is (forms put the message beside it).
    pub field: Option<Box<str>>,
}

impl ToolError {
    pub fn new(code: ErrorCode, message: impl Into<String>) -> Self {
        ToolError {
            code,
            message: message.into(),
            field: None,
        }
    }

    pub fn invalid_params(message: impl Into<String>) -> Self {
        ToolError::new(ErrorCode::InvalidParams, message)
    }

    /// INVALID_PARAMS naming the parameter: "field: why", with `field` set.
    pub fn invalid_field(field: &str, why: impl fmt::Display) -> Self {
        ToolError {
            field: Some(field.into()),
            ..ToolError::invalid_params(format!("{field}: {why}"))
        }
    }

    /// The error as transports send it: code, message and the field if any.
    pub fn json(&self) -> serde_json::Value {
        let mut error = serde_json::json!({"code": self.code, "message": self.message});
        if let Some(field) = &self.field {
            error["field"] = field.as_ref().into();
        }
        error
    }

    pub fn internal(message: impl Into<String>) -> Self {
        ToolError::new(ErrorCode::Internal, message)
    }

    pub fn timeout(message: impl Into<String>) -> Self {
        ToolError::new(ErrorCode::Timeout, message)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn codes_round_trip_through_their_names() {
        for code in ErrorCode::ALL {
            assert_eq!(ErrorCode::parse(code.as_str()), Some(code));
            let json = serde_json::to_value(code).unwrap();
            assert_eq!(json, code.as_str());
        }
        assert_eq!(ErrorCode::parse("NOPE"), None);
    }

    #[test]
    fn a_field_error_names_its_parameter() {
        let e = ToolError::invalid_field("nsec", "not bech32");
        assert_eq!(e.message, "nsec: not bech32");
        assert_eq!(
            e.json(),
            serde_json::json!({"code": "INVALID_PARAMS", "message": "nsec: not bech32", "field": "nsec"})
        );
        assert!(ToolError::internal("x").json().get("field").is_none());
    }

    #[test]
    fn display_starts_with_the_code() {
        let e = ToolError::new(ErrorCode::StaleRef, "gone");
        assert_eq!(e.to_string(), "STALE_REF: gone");
    }
}
