//! network_route, network_unroute, network_routes: block, mock or change
//! a context's requests (see `crate::routes` for how). The person's own
//! context (the default one, their window) takes agents' routes only while
//! the person says yes in the panel (`network_routes_allow`); a context
//! sends its requests through the proxy while it has a route, and straight
//! to the sites once its last route went.

use super::families::Family;
use super::network::Kind;
use super::{tool, Ctx, ToolDef, ToolOutput, ToolResult, ACTION, READ_ONLY};
use crate::base::caller::Principal;
use crate::base::context::{ContextId, DEFAULT_CONTEXT};
use crate::base::error::{ErrorCode, ToolError};
use crate::base::url_pattern::UrlPattern;
use crate::bridge::Command;
use crate::routes::har::Archive;
use crate::routes::rule::{AbortReason, Action, Change, HeaderChanges, Replay, Reply, RouteSpec};
use axum::http::{HeaderName, HeaderValue, Method};
use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::{json, Map, Value};
use std::sync::Arc;
use std::time::Duration;

/// The longest delay a route may add.
const DELAY_MAX_MS: u64 = 60_000;
/// The largest body a route answers with.
const BODY_MAX: u64 = 10 << 20;
/// The largest HAR file a route answers from.
const HAR_MAX: u64 = 64 << 20;

pub fn tools() -> Vec<ToolDef> {
    vec![
        tool(
            "network_route",
            "Answer this context's requests matching url (and method, type) yourself: abort (a network error), fulfill (status, headers, body/json/body_file), or continue (changed request headers, response status and headers); after delay_ms, at most times. Newest route wins.",
            ACTION,
            |ctx: Ctx, p: RouteParams| async move { route(&ctx, p).await },
        )
        .in_family(Family::Network),
        tool(
            "network_route_har",
            "Answer this context's requests (those matching url) from a HAR file in the files folder, by method and URL; not_found abort (default: offline) or pass to the network.",
            ACTION,
            |ctx: Ctx, p: HarRouteParams| async move { route_har(&ctx, p).await },
        )
        .in_family(Family::Network),
        tool(
            "network_unroute",
            "Remove a route by id, or all of this context's.",
            ACTION,
            |ctx: Ctx, p: UnrouteParams| async move { unroute(&ctx, p).await },
        )
        .in_family(Family::Network),
        tool(
            "network_routes_allow",
            "The person's yes or no to agents' routes in their own window (the default context); no removes those routes.",
            ACTION,
            |ctx: Ctx, p: AllowParams| async move { allow(&ctx, p).await },
        )
        .person_only(),
        tool(
            "network_routes",
            "This context's routes, oldest first, with how often each matched.",
            READ_ONLY,
            |ctx: Ctx, p: RoutesParams| async move {
                let context = ctx.context_named(p.context.as_deref())?;
                let routes = ctx.app.routing.list(context);
                Ok(ToolOutput::json(json!({"routes": routes})))
            },
        )
        .in_family(Family::Network),
    ]
}

#[derive(Deserialize, JsonSchema, Clone, Copy, PartialEq, Eq)]
#[serde(rename_all = "lowercase")]
pub enum RouteAction {
    Abort,
    Fulfill,
    Continue,
}

#[derive(Deserialize, JsonSchema, Clone, Copy)]
#[serde(rename_all = "snake_case")]
pub enum Reason {
    Failed,
    Blocked,
    TimedOut,
    Refused,
}

#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct RouteParams {
    /// A pattern, as wait_for_url's.
    url: String,
    /// Only requests with this method.
    #[serde(default)]
    method: Option<String>,
    /// Only requests of this type, as network_requests names them.
    #[serde(default, rename = "type")]
    kind: Option<Kind>,
    /// abort, fulfill or continue.
    action: RouteAction,
    /// abort: failed (default), blocked, timed_out or refused.
    #[serde(default)]
    reason: Option<Reason>,
    /// fulfill: the status (default 200); continue: the response's instead of the server's.
    #[serde(default)]
    status: Option<u16>,
    /// Response headers, name to value; continue: null removes one.
    #[serde(default)]
    headers: Option<Map<String, Value>>,
    /// continue: request headers to set, name to value; null removes one.
    #[serde(default)]
    request_headers: Option<Map<String, Value>>,
    /// fulfill: the body, as text.
    #[serde(default)]
    body: Option<String>,
    /// fulfill: the body from a file in the files folder (its type from its name).
    #[serde(default)]
    body_file: Option<String>,
    /// fulfill: a JSON body.
    #[serde(default)]
    json: Option<Value>,
    /// Wait this long first, up to 60000 ms.
    #[serde(default)]
    delay_ms: Option<u64>,
    /// Apply at most this many times.
    #[serde(default)]
    times: Option<u32>,
    #[serde(default)]
    context: Option<String>,
}

#[derive(Deserialize, JsonSchema, Clone, Copy, PartialEq, Eq)]
#[serde(rename_all = "lowercase")]
pub enum NotFound {
    Abort,
    Pass,
}

#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct HarRouteParams {
    /// The HAR file: a path in the files folder.
    path: String,
    /// A request the file lacks: abort (default) or pass.
    #[serde(default)]
    not_found: Option<NotFound>,
    /// Only requests matching this pattern, as wait_for_url's (default: all).
    #[serde(default)]
    url: Option<String>,
    #[serde(default)]
    context: Option<String>,
}

#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct UnrouteParams {
    /// The route's id.
    #[serde(default)]
    id: Option<u64>,
    /// Every route of the context.
    #[serde(default)]
    all: Option<bool>,
    #[serde(default)]
    context: Option<String>,
}

#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct AllowParams {
    /// Whether agents may route the requests of the person's window.
    allowed: bool,
}

#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct RoutesParams {
    #[serde(default)]
    context: Option<String>,
}

async fn route(ctx: &Ctx, p: RouteParams) -> ToolResult {
    let context = ctx.context_named(p.context.as_deref())?;
    let spec = spec_of(ctx, p)?;
    let _turn = ctx.app.routing.turn().await;
    persons_yes(ctx, context)?;
    may_route(ctx, context).await?;
    engage(ctx, context).await?;
    let route = ctx.app.routing.add(context, spec)?;
    Ok(ToolOutput::json(json!({"route": route})))
}

async fn route_har(ctx: &Ctx, p: HarRouteParams) -> ToolResult {
    let context = ctx.context_named(p.context.as_deref())?;
    let url_text = p.url.unwrap_or_else(|| "**".to_string());
    let url = UrlPattern::parse("url", &url_text)?;
    let (_, bytes) = read_bounded(ctx, "path", &p.path, HAR_MAX)?;
    let text = String::from_utf8(bytes)
        .map_err(|_| ToolError::invalid_field("path", "not UTF-8 text: not a HAR file"))?;
    let archive = Archive::parse(&text).map_err(|e| ToolError::invalid_field("path", e))?;
    let spec = RouteSpec {
        url,
        url_text,
        method: None,
        kind: None,
        action: Action::Har(Replay {
            archive: Arc::new(archive),
            path: p.path,
            pass_unknown: p.not_found == Some(NotFound::Pass),
        }),
        delay: Duration::ZERO,
        times: None,
    };
    let _turn = ctx.app.routing.turn().await;
    persons_yes(ctx, context)?;
    may_route(ctx, context).await?;
    engage(ctx, context).await?;
    let route = ctx.app.routing.add(context, spec)?;
    Ok(ToolOutput::json(json!({"route": route})))
}

/// Routes in the person's own context need their yes; an agent's own
/// contexts are the agent's to route.
fn persons_yes(ctx: &Ctx, context: ContextId) -> Result<(), ToolError> {
    let person = ctx.session.transport.principal() == Principal::Person;
    if context != DEFAULT_CONTEXT || person || ctx.app.routing.persons_yes() {
        return Ok(());
    }
    Err(ToolError::new(
        ErrorCode::NotAllowed,
        "routes in the person's own window (the default context) answer for the sites they use, so they need the person's yes: they give it in the panel (Network: let agents route my window). Route in a context of your own instead: context_new, then network_route there",
    ))
}

/// The person's yes or no; a no takes the routes away and sends the
/// window's requests straight to the sites again.
async fn allow(ctx: &Ctx, p: AllowParams) -> ToolResult {
    let _turn = ctx.app.routing.turn().await;
    let removed = ctx.app.routing.set_persons_yes(p.allowed);
    disengage_if_unrouted(ctx, DEFAULT_CONTEXT).await?;
    Ok(ToolOutput::json(
        json!({"allowed": p.allowed, "removed": removed}),
    ))
}

/// No new route while a page of the context holds the person's secrets.
async fn may_route(ctx: &Ctx, context: ContextId) -> Result<(), ToolError> {
    ctx.app
        .browser
        .call_value(Command::MayRoute { context })
        .await
        .map(drop)
}

/// Starts the proxy and sends the context's requests through it (once).
async fn engage(ctx: &Ctx, context: ContextId) -> Result<(), ToolError> {
    let routing = &ctx.app.routing;
    if routing.engaged(context) {
        return Ok(());
    }
    crate::routes::proxy::listen(routing)
        .await
        .map_err(|e| ToolError::internal(format!("the routing proxy cannot listen: {e}")))?;
    let access = routing
        .access(context)
        .ok_or_else(|| ToolError::internal("the routing proxy has no address"))?;
    ctx.app
        .browser
        .call_value(Command::RouteContext {
            context,
            access: Some(access),
        })
        .await?;
    routing.set_engaged(context, true);
    Ok(())
}

/// Sends the context's requests straight to the sites again once its
/// last route went: no proxy stays between them and the network.
async fn disengage_if_unrouted(ctx: &Ctx, context: ContextId) -> Result<(), ToolError> {
    let routing = &ctx.app.routing;
    if !routing.engaged(context) || routing.has_routes(context) {
        return Ok(());
    }
    ctx.app
        .browser
        .call_value(Command::RouteContext {
            context,
            access: None,
        })
        .await?;
    routing.set_engaged(context, false);
    Ok(())
}

async fn unroute(ctx: &Ctx, p: UnrouteParams) -> ToolResult {
    let context = ctx.context_named(p.context.as_deref())?;
    let routing = &ctx.app.routing;
    let _turn = routing.turn().await;
    let removed = match (p.id, p.all.unwrap_or(false)) {
        (Some(_), true) => return Err(ToolError::invalid_params("give id or all, not both")),
        (Some(id), false) if routing.remove(context, id) => 1,
        (Some(id), false) => {
            return Err(ToolError::invalid_params(format!(
                "id: this context has no route {id}; network_routes lists them"
            )))
        }
        (None, true) => routing.clear(context),
        (None, false) => return Err(ToolError::invalid_params("give id, or all: true")),
    };
    disengage_if_unrouted(ctx, context).await?;
    Ok(ToolOutput::json(json!({"removed": removed})))
}

/// Checks what the agent gave and makes the route of it.
fn spec_of(ctx: &Ctx, p: RouteParams) -> Result<RouteSpec, ToolError> {
    let url = UrlPattern::parse("url", &p.url)?;
    let method = p.method.as_deref().map(method_of).transpose()?;
    let delay_ms = p.delay_ms.unwrap_or(0);
    if delay_ms > DELAY_MAX_MS {
        return Err(ToolError::invalid_field(
            "delay_ms",
            format!("at most {DELAY_MAX_MS}"),
        ));
    }
    if p.times == Some(0) {
        return Err(ToolError::invalid_field("times", "at least 1"));
    }
    let status = p.status.map(status_of).transpose()?;
    let only = |given: bool, field: &str, action: &str| {
        if given {
            return Err(ToolError::invalid_field(
                field,
                format!("only {action} takes it"),
            ));
        }
        Ok(())
    };
    let bodies = [p.body.is_some(), p.body_file.is_some(), p.json.is_some()];
    let action = match p.action {
        RouteAction::Abort => {
            only(status.is_some(), "status", "fulfill or continue")?;
            only(p.headers.is_some(), "headers", "fulfill or continue")?;
            only(p.request_headers.is_some(), "request_headers", "continue")?;
            only(bodies.contains(&true), "body", "fulfill")?;
            Action::Abort(match p.reason.unwrap_or(Reason::Failed) {
                Reason::Failed => AbortReason::Failed,
                Reason::Blocked => AbortReason::Blocked,
                Reason::TimedOut => AbortReason::TimedOut,
                Reason::Refused => AbortReason::Refused,
            })
        }
        RouteAction::Fulfill => {
            only(p.reason.is_some(), "reason", "abort")?;
            only(p.request_headers.is_some(), "request_headers", "continue")?;
            if bodies.iter().filter(|b| **b).count() > 1 {
                return Err(ToolError::invalid_params(
                    "give one of body, body_file, json",
                ));
            }
            let headers = header_changes("headers", p.headers.as_ref())?;
            let mut headers: Vec<(String, String)> = headers
                .into_iter()
                .filter_map(|(name, value)| value.map(|v| (name, v)))
                .collect();
            let (body, mime) = body_of(ctx, p.body, p.body_file.as_deref(), p.json)?;
            if !headers
                .iter()
                .any(|(n, _)| n.eq_ignore_ascii_case("content-type"))
            {
                headers.push(("content-type".into(), mime));
            }
            Action::Fulfill(Reply {
                status: status.unwrap_or(200),
                headers,
                body: body.into(),
            })
        }
        RouteAction::Continue => {
            only(p.reason.is_some(), "reason", "abort")?;
            only(bodies.contains(&true), "body", "fulfill")?;
            Action::Continue(Change {
                request_headers: header_changes("request_headers", p.request_headers.as_ref())?,
                status,
                response_headers: header_changes("headers", p.headers.as_ref())?,
            })
        }
    };
    Ok(RouteSpec {
        url,
        url_text: p.url,
        method,
        kind: p.kind.map(|k| k.as_str().to_string()),
        action,
        delay: Duration::from_millis(delay_ms),
        times: p.times,
    })
}

fn method_of(method: &str) -> Result<String, ToolError> {
    let upper = method.to_ascii_uppercase();
    Method::from_bytes(upper.as_bytes())
        .map_err(|_| ToolError::invalid_field("method", "not an HTTP method"))?;
    Ok(upper)
}

fn status_of(status: u16) -> Result<u16, ToolError> {
    match status {
        200..=599 => Ok(status),
        _ => Err(ToolError::invalid_field("status", "from 200 to 599")),
    }
}

/// Header names to values (null: remove), each checked as HTTP allows;
/// the body's framing is the proxy's, never a route's.
fn header_changes(
    field: &str,
    given: Option<&Map<String, Value>>,
) -> Result<HeaderChanges, ToolError> {
    let mut out = Vec::new();
    for (name, value) in given.into_iter().flatten() {
        let lower = name.to_ascii_lowercase();
        if HeaderName::from_bytes(lower.as_bytes()).is_err() {
            return Err(ToolError::invalid_field(
                field,
                format!("{name:?} is not a header name"),
            ));
        }
        if matches!(
            lower.as_str(),
            "content-length" | "transfer-encoding" | "connection"
        ) {
            return Err(ToolError::invalid_field(
                field,
                format!("{name} is set by the body; leave it out"),
            ));
        }
        let value = match value {
            Value::Null => None,
            Value::String(text) => Some(text.clone()),
            Value::Number(_) | Value::Bool(_) => Some(value.to_string()),
            _ => {
                return Err(ToolError::invalid_field(
                    field,
                    format!("{name}: give a string (or null to remove it)"),
                ))
            }
        };
        if let Some(text) = &value {
            if HeaderValue::from_str(text).is_err() {
                return Err(ToolError::invalid_field(
                    field,
                    format!("{name}: not a header value"),
                ));
            }
        }
        out.push((lower, value));
    }
    Ok(out)
}

/// A fulfilled response's body and the type it has by default.
fn body_of(
    ctx: &Ctx,
    body: Option<String>,
    body_file: Option<&str>,
    json_body: Option<Value>,
) -> Result<(Vec<u8>, String), ToolError> {
    if let Some(value) = json_body {
        return Ok((value.to_string().into_bytes(), "application/json".into()));
    }
    if let Some(given) = body_file {
        let (path, bytes) = read_bounded(ctx, "body_file", given, BODY_MAX)?;
        return Ok((bytes, crate::routes::rule::mime_of_path(&path).into()));
    }
    let text = body.unwrap_or_default();
    if text.len() as u64 > BODY_MAX {
        return Err(ToolError::invalid_field(
            "body",
            format!("at most {} MiB", BODY_MAX >> 20),
        ));
    }
    Ok((text.into_bytes(), "text/plain; charset=utf-8".into()))
}

/// A file of the files folder (the parameter `field` names it), read if
/// it holds at most `max` bytes.
fn read_bounded(
    ctx: &Ctx,
    field: &str,
    given: &str,
    max: u64,
) -> Result<(std::path::PathBuf, Vec<u8>), ToolError> {
    let path = ctx.app.files.agents_file(given).map_err(|e| e.at(field))?;
    let size = std::fs::metadata(&path).map(|m| m.len()).unwrap_or(0);
    if size > max {
        return Err(ToolError::invalid_field(
            field,
            format!("at most {} MiB", max >> 20),
        ));
    }
    let bytes = std::fs::read(&path).map_err(|e| ToolError::invalid_field(field, e.to_string()))?;
    Ok((path, bytes))
}
