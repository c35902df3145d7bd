//! open, back, forward, reload, get_url, get_title.

use super::identity::NoParams;
use super::page::normalize_url;
use super::{
    tab_tool, tab_tool_without_page, Ctx, Replay, ToolDef, ToolOutput, ToolResult, ACTION,
    READ_ONLY,
};
use crate::base::error::{ErrorCode, ToolError};
use crate::base::tab::TabId;
use crate::bridge::{Command, DialogAction, Navigation};
use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::json;
use std::time::Duration;

pub fn tools() -> Vec<ToolDef> {
    vec![
        tab_tool_without_page(
            "open",
            "Go to a URL and wait for the load. Returns the final URL and title; a failed load is an error.",
            ACTION,
            |ctx: Ctx, tab: TabId, p: OpenParams| async move {
                let url = normalize_url(&p.url)?;
                let limit = p.timeout.map_or(LOAD_LIMIT, |ms| {
                    Duration::from_millis(ms.clamp(100, MAX_LOAD_MS))
                });
                navigate(&ctx, tab, Navigation::Load(url), limit, p.leave.unwrap_or(false)).await
            },
        )
        .replayed(Replay::AsCalled)
        .changes_the_page(),
        tab_tool_without_page(
            "back",
            "Go back in history and wait for the page. Returns URL and title.",
            ACTION,
            |ctx: Ctx, tab: TabId, p: LeaveParams| async move { navigate(&ctx, tab, Navigation::Back, LOAD_LIMIT, p.leave()).await },
        )
        .replayed(Replay::AsCalled)
        .changes_the_page(),
        tab_tool_without_page(
            "forward",
            "Go forward in history and wait for the page. Returns URL and title.",
            ACTION,
            |ctx: Ctx, tab: TabId, p: LeaveParams| async move { navigate(&ctx, tab, Navigation::Forward, LOAD_LIMIT, p.leave()).await },
        )
        .replayed(Replay::AsCalled)
        .changes_the_page(),
        tab_tool_without_page(
            "reload",
            "Reload, bypassing the cache, and wait for the page. Returns URL and title.",
            ACTION,
            |ctx: Ctx, tab: TabId, p: LeaveParams| async move { navigate(&ctx, tab, Navigation::Reload, LOAD_LIMIT, p.leave()).await },
        )
        .replayed(Replay::AsCalled)
        .changes_the_page(),
        tab_tool(
            "get_url",
            "This tab's URL.",
            READ_ONLY,
            |ctx: Ctx, tab: TabId, _: NoParams| async move {
                Ok(ToolOutput::json(json!({"url": ctx.tab_info(tab)?.url})))
            },
        ),
        tab_tool(
            "get_title",
            "This tab's page title.",
            READ_ONLY,
            |ctx: Ctx, tab: TabId, _: NoParams| async move {
                let summary = ctx.page_summary(tab).await?;
                Ok(ToolOutput::json(json!({"title": summary["title"]})))
            },
        ),
    ]
}

#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct OpenParams {
    /// A bare host gets https:// (localhost and IP addresses: http://).
    url: String,
    #[serde(default)]
    #[schemars(extend("default" = 25000))]
    timeout: Option<u64>,
    #[serde(default)]
    #[allow(dead_code)] // read before parsing, to choose the tab
    context: Option<String>,
    /// Leave even if the page asks first (beforeunload), as a person answering "Leave".
    #[serde(default)]
    leave: Option<bool>,
}

#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct LeaveParams {
    /// Leave even if the page asks first (beforeunload), as a person answering "Leave".
    #[serde(default)]
    leave: Option<bool>,
}

impl LeaveParams {
    fn leave(&self) -> bool {
        self.leave.unwrap_or(false)
    }
}

/// Time allowed for a page to load.
pub const LOAD_LIMIT: Duration = Duration::from_secs(25);
const MAX_LOAD_MS: u64 = 300_000;

async fn navigate(
    ctx: &Ctx,
    tab: TabId,
    nav: Navigation,
    limit: Duration,
    leave: bool,
) -> ToolResult {
    // A new page: the frame chosen on the old one is gone.
    ctx.session.set_frame(tab, None);
    let target = match &nav {
        Navigation::Load(url) => Some(url.clone()),
        _ => None,
    };
    // A navigation an earlier call left asking is abandoned for this one:
    // answered "stay", so it cannot race this one (had it resumed, it could
    // commit before a history step and move what "back" means).
    if leave {
        answer_if_asked(ctx, tab, DialogAction::Dismiss).await?;
    }
    // Let a tab's first load (a new tab's blank page) end first, or it
    // would be taken for this navigation.
    ctx.wait_until_loaded(tab, Duration::from_secs(10)).await?;
    let mut before = ctx.before(tab)?;
    let (nav_before, same_document) = ctx.app.browser.navigate(tab, nav).await?;
    before.nav = nav_before;
    let grace = start_grace(target.as_deref(), limit);
    let mut loaded = same_document;
    while !loaded {
        match ctx.settle(tab, &before, grace, limit).await {
            Ok(done) => {
                loaded = done;
                break;
            }
            // The page asks before it is left, and the agent said leave.
            Err(e) if e.code == ErrorCode::DialogOpen && leave => {
                answer_if_asked(ctx, tab, DialogAction::Accept(None)).await?
            }
            Err(e) => return Err(e),
        }
    }
    if !loaded && ctx.tab_info(tab)?.stayed {
        return Err(ToolError::new(
            ErrorCode::NavigationFailed,
            "the page asked to stay (beforeunload) and the dialog was dismissed, so it was not left",
        ));
    }
    let mut summary = ctx.page_summary(tab).await?;
    // A URL that downloads a file leaves the page as it was: report the file.
    let downloads = ctx.downloads_since(before.downloads, LOAD_LIMIT).await;
    if !downloads.is_empty() {
        summary["downloads"] = json!(downloads);
        return Ok(ToolOutput::json(summary));
    }
    if let Some(target) = target {
        refused_silently(&target, loaded, &summary)?;
    }
    Ok(ToolOutput::json(summary))
}

/// Answers the page's beforeunload dialog ("leave": accept; "stay":
/// dismiss), if it shows one.
async fn answer_if_asked(ctx: &Ctx, tab: TabId, action: DialogAction) -> Result<(), ToolError> {
    let asking = ctx
        .tab_info(tab)?
        .dialog
        .is_some_and(|d| d.kind == "beforeunload");
    if asking {
        ctx.app
            .browser
            .call_value(Command::Dialog { tab, action })
            .await?;
    }
    Ok(())
}

/// How long a load may take to start before it is taken for one WebKit
/// dropped without a word: a few seconds where it may (a blocked port, an
/// unsupported scheme, a history step), else the whole time (on a busy
/// machine a load can take longer than that to start).
pub fn start_grace(target: Option<&str>, limit: Duration) -> Duration {
    match target {
        Some(url) if !crate::address::may_be_dropped_silently(url) => limit,
        _ => Duration::from_secs(3),
    }
}

/// WebKit drops loads of blocked ports and unknown schemes without an
/// error, leaving the tab on about:blank: say so instead.
pub fn refused_silently(
    target: &str,
    loaded: bool,
    summary: &serde_json::Value,
) -> Result<(), ToolError> {
    if !loaded || (summary["url"] == "about:blank" && target != "about:blank") {
        return Err(ToolError::new(
            ErrorCode::NavigationFailed,
            format!(
                "the browser refused to load {target} (a blocked port or an unsupported scheme)"
            ),
        ));
    }
    Ok(())
}
