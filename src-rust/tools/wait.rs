//! wait, wait_for, wait_for_text, wait_for_url, wait_for_load, wait_for_fn.
//!
//! Every wait polls without holding anything else up (other sessions,
//! other tools and the page keep going), ends at its timeout exactly, and
//! fails with TIMEOUT saying what it awaited and what it saw last.

use super::page::POLL;
use super::{tab_tool, tool, Ctx, Replay, ToolDef, ToolOutput, ToolResult, READ_ONLY};
use crate::base::error::{ErrorCode, ToolError};
use crate::base::tab::TabInfo;
use crate::base::url_pattern::UrlPattern;
use crate::bridge::{tab_closed, TabId};
use crate::page_protocol::ops::{HasText, Query};
use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::{json, Value};
use std::future::Future;
use std::time::{Duration, Instant};

/// Longest wait of any kind.
const MAX_WAIT_MS: u64 = 300_000;
const DEFAULT_TIMEOUT_MS: u64 = 10_000;
/// How long the network must stay quiet for `networkidle`.
const NETWORK_IDLE_MS: u64 = 500;

pub fn tools() -> Vec<ToolDef> {
    vec![
        tool(
            "wait",
            "Wait ms milliseconds (for the page, use wait_for*).",
            READ_ONLY,
            |_: Ctx, p: WaitParams| async move {
                let ms = p.ms.unwrap_or(1000).min(MAX_WAIT_MS);
                tokio::time::sleep(Duration::from_millis(ms)).await;
                Ok(ToolOutput::json(json!({"waited_ms": ms})))
            },
        ),
        tab_tool(
            "wait_for",
            "Wait until an element matching selector is present and visible. Returns its ref.",
            READ_ONLY,
            |ctx: Ctx, tab: TabId, p: WaitForParams| async move { wait_for(&ctx, tab, p).await },
        ),
        tab_tool(
            "wait_for_text",
            "Wait until the page shows text (visible text, same-origin frames included).",
            READ_ONLY,
            |ctx: Ctx, tab: TabId, p: WaitTextParams| async move { wait_for_text(&ctx, tab, p).await },
        )
        .replayed(Replay::AsCalled),
        tab_tool(
            "wait_for_url",
            "Wait until this tab's URL matches url_pattern.",
            READ_ONLY,
            |ctx: Ctx, tab: TabId, p: WaitUrlParams| async move { wait_for_url(&ctx, tab, p).await },
        )
        .replayed(Replay::AsCalled),
        tab_tool(
            "wait_for_load",
            "Wait for load, domcontentloaded or networkidle (500 ms quiet); at once if already there (after a script navigates, wait_for_url first).",
            READ_ONLY,
            |ctx: Ctx, tab: TabId, p: WaitLoadParams| async move { wait_for_load(&ctx, tab, p).await },
        )
        .replayed(Replay::AsCalled),
        tab_tool(
            "wait_for_fn",
            "Wait until a script (as eval; a function is called) gives a truthy value; returns it.",
            READ_ONLY,
            |ctx: Ctx, tab: TabId, p: WaitFnParams| async move { wait_for_fn(&ctx, tab, p).await },
        ),
    ]
}

#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct WaitParams {
    /// Milliseconds, at most 300000.
    #[serde(default)]
    #[schemars(extend("default" = 1000))]
    ms: Option<u64>,
}

#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct WaitForParams {
    /// CSS.
    selector: String,
    #[serde(default)]
    #[schemars(extend("default" = 10000))]
    timeout: Option<u64>,
}

#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct WaitTextParams {
    /// Text to wait for (same case).
    text: String,
    #[serde(default)]
    #[schemars(extend("default" = 10000))]
    timeout: Option<u64>,
}

#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct WaitUrlParams {
    /// A regex searched in the URL, /regex/i, or a glob of the whole URL (* in a segment, ** across, ? one character).
    url_pattern: String,
    #[serde(default)]
    #[schemars(extend("default" = 10000))]
    timeout: Option<u64>,
}

#[derive(Deserialize, serde::Serialize, JsonSchema, Clone, Copy, PartialEq, Eq, Debug)]
#[serde(rename_all = "lowercase")]
pub enum LoadState {
    Load,
    Domcontentloaded,
    Networkidle,
}

#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct WaitLoadParams {
    /// load, domcontentloaded or networkidle.
    #[serde(default)]
    #[schemars(extend("default" = "load"))]
    state: Option<LoadState>,
    #[serde(default)]
    #[schemars(extend("default" = 10000))]
    timeout: Option<u64>,
}

#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct WaitFnParams {
    /// JavaScript, as for eval.
    script: String,
    #[serde(default)]
    #[schemars(extend("default" = 10000))]
    timeout: Option<u64>,
    /// ms between tries.
    #[serde(default)]
    #[schemars(extend("default" = 100))]
    polling: Option<u64>,
}

/// One look at the page: done with a value, or what was seen instead.
enum Look {
    Done(Value),
    Seen(String),
}

fn limit(timeout: Option<u64>) -> Duration {
    Duration::from_millis(timeout.unwrap_or(DEFAULT_TIMEOUT_MS).min(MAX_WAIT_MS))
}

/// Errors no amount of waiting fixes.
fn is_final(error: &ToolError) -> bool {
    matches!(
        error.code,
        ErrorCode::InvalidParams
            | ErrorCode::DialogOpen
            | ErrorCode::NoTab
            | ErrorCode::NotLoggedIn
            | ErrorCode::Paused
            | ErrorCode::NotAllowed
    )
}

/// Looks until `look` is done or `limit` is up, every `every`. The value
/// that ended it comes back with `waited_ms`.
async fn poll<F, Fut>(limit: Duration, every: Duration, what: &str, mut look: F) -> ToolResult
where
    F: FnMut() -> Fut,
    Fut: Future<Output = Result<Look, ToolError>>,
{
    let start = Instant::now();
    let deadline = start + limit;
    let mut last = String::from("nothing yet");
    loop {
        let remaining = deadline.saturating_duration_since(Instant::now());
        match tokio::time::timeout(remaining, look()).await {
            Ok(Ok(Look::Done(mut value))) => {
                let waited = start.elapsed().as_millis() as u64;
                if let Value::Object(map) = &mut value {
                    map.insert("waited_ms".into(), waited.into());
                }
                return Ok(ToolOutput::json(value));
            }
            Ok(Ok(Look::Seen(seen))) => last = seen,
            Ok(Err(error)) if is_final(&error) => return Err(error),
            Ok(Err(error)) => last = error.message,
            Err(_) => {}
        }
        let remaining = deadline.saturating_duration_since(Instant::now());
        if remaining.is_zero() {
            return Err(ToolError::timeout(format!(
                "{what} within {} ms (last seen: {last})",
                limit.as_millis()
            )));
        }
        tokio::time::sleep(every.min(remaining)).await;
    }
}

async fn wait_for(ctx: &Ctx, tab: TabId, p: WaitForParams) -> ToolResult {
    let what = format!("no visible element matched {:?}", p.selector);
    poll(limit(p.timeout), POLL * 2, &what, || async {
        let selector = p.selector.clone();
        let found = ctx.page(tab, Query { selector }).await?;
        Ok(match (found.found, found.visible) {
            (true, true) => Look::Done(json!({"found": true, "ref": found.r#ref})),
            (true, false) => Look::Seen("present but hidden".into()),
            _ => Look::Seen("absent".into()),
        })
    })
    .await
}

async fn wait_for_text(ctx: &Ctx, tab: TabId, p: WaitTextParams) -> ToolResult {
    let what = format!("the page did not show {:?}", p.text);
    poll(limit(p.timeout), POLL * 2, &what, || async {
        let text = p.text.clone();
        let seen = ctx.page(tab, HasText { text }).await?;
        Ok(if seen.found {
            Look::Done(json!({"found": true}))
        } else {
            Look::Seen(format!(
                "{} characters of text, starting {:?}",
                seen.length, seen.start
            ))
        })
    })
    .await
}

async fn wait_for_url(ctx: &Ctx, tab: TabId, p: WaitUrlParams) -> ToolResult {
    let pattern = UrlPattern::parse("url_pattern", &p.url_pattern)?;
    let limit = limit(p.timeout);
    let start = Instant::now();
    let mut last = String::new();
    // Woken by every change the browser publishes: no polling.
    let matched = ctx
        .app
        .browser
        .wait_until(tokio::time::Instant::now() + limit, |state| {
            match state.tab(tab) {
                None => Some(Err(tab_closed())),
                Some(info) if pattern.matches(&info.url) => Some(Ok(info.url.clone())),
                Some(info) => {
                    last.clone_from(&info.url);
                    None
                }
            }
        })
        .await;
    match matched {
        Some(url) => Ok(ToolOutput::json(
            json!({"url": url?, "waited_ms": start.elapsed().as_millis() as u64}),
        )),
        None => Err(ToolError::timeout(format!(
            "the URL did not match {:?} within {} ms (last seen: {last})",
            p.url_pattern,
            limit.as_millis()
        ))),
    }
}

async fn wait_for_load(ctx: &Ctx, tab: TabId, p: WaitLoadParams) -> ToolResult {
    let state = p.state.unwrap_or(LoadState::Load);
    let name = serde_json::to_value(state).unwrap_or_default();
    let what = format!("the page did not reach {}", name.as_str().unwrap_or("load"));
    let every = match state {
        // Asks the document itself.
        LoadState::Domcontentloaded => POLL,
        // Quiet is a matter of time: look again as it passes.
        LoadState::Networkidle => Duration::from_millis(NETWORK_IDLE_MS / 10),
        LoadState::Load => Duration::ZERO,
    };
    poll_state(ctx, tab, limit(p.timeout), every, &what, |info| {
        let name = name.clone();
        async move {
            let loaded = !info.is_busy() && !info.loading;
            let reached = match state {
                LoadState::Load => loaded,
                LoadState::Networkidle => {
                    loaded && info.network.quiet_for() >= Duration::from_millis(NETWORK_IDLE_MS)
                }
                LoadState::Domcontentloaded => {
                    loaded
                        || matches!(ctx.page_info(tab).await, Ok(page) if page.ready != "loading")
                }
            };
            if reached {
                Look::Done(json!({"state": name, "url": info.url}))
            } else {
                Look::Seen(format!(
                    "loading {}, {} requests in flight",
                    !loaded, info.network.inflight
                ))
            }
        }
    })
    .await
}

/// Looks at the tab's published state at every change, and also every
/// `every` (zero: only at changes), until `look` is done or `limit` is up.
async fn poll_state<F, Fut>(
    ctx: &Ctx,
    tab: TabId,
    limit: Duration,
    every: Duration,
    what: &str,
    mut look: F,
) -> ToolResult
where
    F: FnMut(TabInfo) -> Fut,
    Fut: Future<Output = Look>,
{
    let start = Instant::now();
    let deadline = tokio::time::Instant::now() + limit;
    let mut changes = ctx.app.browser.watch();
    let mut last;
    loop {
        let info = changes
            .borrow_and_update()
            .tab(tab)
            .cloned()
            .ok_or_else(tab_closed)?;
        match look(info).await {
            Look::Done(mut value) => {
                value["waited_ms"] = (start.elapsed().as_millis() as u64).into();
                return Ok(ToolOutput::json(value));
            }
            Look::Seen(seen) => last = seen,
        }
        let next = if every.is_zero() {
            deadline
        } else {
            (tokio::time::Instant::now() + every).min(deadline)
        };
        let changed = tokio::time::timeout_at(next, changes.changed()).await;
        if tokio::time::Instant::now() >= deadline || matches!(changed, Ok(Err(_))) {
            return Err(ToolError::timeout(format!(
                "{what} within {} ms (last seen: {last})",
                limit.as_millis()
            )));
        }
    }
}

async fn wait_for_fn(ctx: &Ctx, tab: TabId, p: WaitFnParams) -> ToolResult {
    let every = Duration::from_millis(p.polling.unwrap_or(100).clamp(10, 10_000));
    let what = "the script did not give a truthy value".to_string();
    let script = p.script;
    poll(limit(p.timeout), every, &what, || async {
        let result = ctx.run_script(tab, script.clone()).await;
        match result {
            Ok(result) if truthy(&result["value"], &result["type"]) => {
                Ok(Look::Done(json!({"value": result["value"]})))
            }
            Ok(result) => Ok(Look::Seen(format!("{}", result["value"]))),
            // A syntax error will not go away; other exceptions may (the page is still changing).
            Err(e) if e.message.contains("SyntaxError") => {
                Err(ToolError::invalid_params(e.message))
            }
            // Refused (PAUSED, NOT_ALLOWED...): no script runs to become truthy.
            Err(e) if is_final(&e) => Err(e),
            Err(e) => Ok(Look::Seen(format!("an exception: {}", e.message))),
        }
    })
    .await
}

/// JavaScript truthiness of an eval result (`type` tells undefined from null).
fn truthy(value: &Value, kind: &Value) -> bool {
    if kind == "undefined" {
        return false;
    }
    match value {
        Value::Null => false,
        Value::Bool(b) => *b,
        Value::Number(n) => n.as_f64().is_some_and(|f| f != 0.0 && !f.is_nan()),
        Value::String(s) => !s.is_empty(),
        Value::Array(_) | Value::Object(_) => true,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn truthiness_follows_javascript() {
        assert!(!truthy(&json!(null), &json!("undefined")));
        assert!(!truthy(&json!(null), &json!("null")));
        assert!(!truthy(&json!(0), &json!("number")));
        assert!(!truthy(&json!(""), &json!("string")));
        assert!(!truthy(&json!(false), &json!("boolean")));
        assert!(truthy(&json!("0"), &json!("string")));
        assert!(truthy(&json!([]), &json!("object")));
        assert!(truthy(&json!(2), &json!("number")));
    }
}
