//! One step of a recording: a tool call as it is kept.

use crate::base::call_log::RequestRange;
use crate::base::error::ErrorCode;
use crate::base::tab::TabId;
use serde::{Deserialize, Serialize};
use serde_json::Value;

/// A page as a step saw it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct PageSeen {
    pub url: String,
    pub title: String,
}

/// The element a step acted on, as the page showed it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Element {
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub r#ref: Option<String>,
    pub role: String,
    pub name: String,
    /// A password field: what was typed into it is not kept.
    #[serde(skip_serializing_if = "std::ops::Not::not", default)]
    pub secret: bool,
    /// Its data-testid, if it has one (a replay finds it by that too).
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub testid: Option<String>,
}

/// One tool call.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Step {
    /// Its place in the session, from 1.
    pub n: u64,
    /// Unix time in milliseconds when it started.
    pub time: u64,
    pub session: String,
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub client: Option<String>,
    pub transport: String,
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub context: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub tab: Option<TabId>,
    pub tool: String,
    pub args: Value,
    pub ok: bool,
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub code: Option<ErrorCode>,
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub message: Option<String>,
    #[serde(skip_serializing_if = "Value::is_null", default)]
    pub result: Value,
    pub ms: f64,
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub before: Option<PageSeen>,
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub after: Option<PageSeen>,
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub element: Option<Element>,
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub requests: Option<RequestRange>,
    /// A picture of the page after it was taken (record_shot gives it).
    #[serde(skip_serializing_if = "std::ops::Not::not", default)]
    pub shot: bool,
}
