//! Everything the browser reads from a client before a tool runs: the
//! JSON-RPC message posted to /mcp, the /agent message, and the arguments
//! of each tool; and a web page's window.nostr call. Any input must end in
//! a value or a clear error, never a panic or a hang.
//!
//! The whole input is read as an /mcp body (and, for the stateless
//! revision, its envelope checked against headers that mirror it and
//! against none), as an /agent message, as a page's call and as the report
//! of a submitted form (whose names and values a page chooses); then its
//! first byte picks a tool and the rest is that tool's arguments, so every
//! tool's parameters are reached directly too.

#![no_main]

use libfuzzer_sys::fuzz_target;
use serde_json::Value;
use sovereign_browser::base::error::ErrorCode;
use sovereign_browser::browser::form_posts::{self, FormPost};
use sovereign_browser::nip07::{request, PageCall};
use sovereign_browser::server::agent::parse_request;
use sovereign_browser::server::jsonrpc::{self, classify, Incoming};
use sovereign_browser::server::mcp::envelope::{self, RoutingHeaders};
use sovereign_browser::tools::Registry;
use std::sync::OnceLock;

fn tools() -> &'static Registry {
    static TOOLS: OnceLock<Registry> = OnceLock::new();
    TOOLS.get_or_init(Registry::new)
}

/// A tool call's arguments: accepted, or refused as INVALID_PARAMS.
fn check_call(name: &str, arguments: Value) {
    if let Some(tool) = tools().get(name) {
        if let Err(error) = tool.check_params(arguments) {
            assert_eq!(error.code, ErrorCode::InvalidParams, "{name}: {error}");
            assert!(!error.message.is_empty());
        }
    }
}

/// A modern request's envelope: read, or refused with one of the codes
/// the revision gives for it.
fn modern_envelope(method: &str, params: &Value) {
    let _ = envelope::era(None, params);
    let mirrored = RoutingHeaders {
        protocol_version: params
            .pointer("/_meta/io.modelcontextprotocol~1protocolVersion")
            .and_then(Value::as_str)
            .map(String::from),
        method: Some(method.to_string()),
        name: params.get("name").and_then(Value::as_str).map(String::from),
        malformed: None,
    };
    for headers in [mirrored, RoutingHeaders::default()] {
        if let Err(refusal) = envelope::check(method, params, &headers) {
            assert!(
                [
                    jsonrpc::INVALID_PARAMS,
                    envelope::HEADER_MISMATCH,
                    envelope::UNSUPPORTED_VERSION
                ]
                .contains(&refusal.code),
                "code {}",
                refusal.code
            );
            assert!(!refusal.message.is_empty());
        }
    }
}

fn mcp_message(data: &[u8]) {
    match classify(data) {
        Ok(Incoming::Request { id, method, params }) => {
            assert!(id.is_string() || id.is_number(), "request id {id}");
            modern_envelope(&method, &params);
            if method == "tools/call" {
                if let Some(name) = params.get("name").and_then(Value::as_str) {
                    let arguments = params.get("arguments").cloned().unwrap_or(Value::Null);
                    check_call(name, arguments);
                }
            }
        }
        Ok(Incoming::Reply { id, .. }) => {
            assert!(id.is_string() || id.is_number(), "reply id {id}");
        }
        Ok(Incoming::Accepted) => {}
        Err(rejection) => {
            assert!(
                [jsonrpc::PARSE_ERROR, jsonrpc::INVALID_REQUEST].contains(&rejection.code),
                "code {}",
                rejection.code
            );
            assert!(rejection.id.is_null() || rejection.id.is_string() || rejection.id.is_number());
            assert!(!rejection.message.is_empty());
        }
    }
}

fn agent_message(text: &str) {
    match parse_request(text) {
        Ok(request) => check_call(&request.tool, request.params),
        Err((_, error)) => assert_eq!(error.code, ErrorCode::InvalidParams),
    }
}

fn page_call(data: &[u8]) {
    if let Ok(call) = serde_json::from_slice::<PageCall>(data) {
        if let Err(why) = request::parse(&call.method, &call.params) {
            assert!(!why.to_string().is_empty());
        }
    }
}

/// A form's report: refused, or kept within the bounds, and written out.
fn form_report(text: &str) {
    if let Some(form) = FormPost::parse(text) {
        assert!(form.fields.len() <= form_posts::FIELDS_MAX);
        let chars: usize = form
            .fields
            .iter()
            .map(|f| f.name.chars().count() + f.value.chars().count())
            .sum();
        assert!(chars <= form_posts::CHARS_MAX);
        let body = form.urlencoded();
        assert!(body.is_ascii(), "urlencoded text is ASCII");
        assert!(form.bytes() >= form.fields.len());
    }
}

fn tool_arguments(data: &[u8]) {
    let Some((&pick, rest)) = data.split_first() else {
        return;
    };
    let all = tools().all();
    let tool = &all[pick as usize % all.len()];
    if let Ok(arguments) = serde_json::from_slice::<Value>(rest) {
        check_call(tool.name, arguments);
    }
}

fuzz_target!(|data: &[u8]| {
    mcp_message(data);
    if let Ok(text) = std::str::from_utf8(data) {
        agent_message(text);
        form_report(text);
    }
    page_call(data);
    tool_arguments(data);
});
