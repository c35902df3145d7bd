//! close, close_all, tab_list, tab_new, tab_switch, tab_close. Each session
//! has its own current tab; switching also brings that tab to the front.

use super::identity::NoParams;
use super::navigation::{refused_silently, start_grace, LOAD_LIMIT};
use super::page::{normalize_url, Before};
use super::person;
use super::{
    tab_tool_without_page, tool, Ctx, Replay, ToolDef, ToolOutput, ToolResult, ACTION, READ_ONLY,
};
use crate::base::error::{ErrorCode, ToolError};
use crate::base::tab::NavCounters;
use crate::bridge::{Command, TabId};
use crate::hold::Reach;
use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::{json, Value};

pub fn tools() -> Vec<ToolDef> {
    vec![
        tab_tool_without_page(
            "close",
            "Close this session's tab; a last tab leaves a blank one.",
            ACTION,
            |ctx: Ctx, tab: TabId, _: NoParams| async move { close(&ctx, tab).await },
        ),
        tool(
            "close_all",
            "Close every tab of this session's context; one blank tab remains.",
            ACTION,
            |ctx: Ctx, _: NoParams| async move {
                for tab in ctx.tab_ids() {
                    ctx.check_hold(Reach::Tab(tab))?;
                }
                let mut closed = 0;
                for tab in ctx.tab_ids() {
                    match ctx.app.browser.call_value(Command::CloseTab { tab }).await {
                        Ok(_) => closed += 1,
                        // Closed meanwhile (by a page or another session): fine.
                        Err(e) if e.code == ErrorCode::NoTab => {}
                        Err(e) => return Err(e),
                    }
                }
                ctx.session.set_tab(None);
                let tabs = ctx.tab_ids().len();
                Ok(ToolOutput::json(json!({"closed": closed, "tabs": tabs})))
            },
        ),
        tool(
            "tab_list",
            "Open tabs (of this session's context): index, URL, title; current marks this session's, front the one shown.",
            READ_ONLY,
            |ctx: Ctx, p: ContextParams| async move {
                let current = ctx.tab().await?;
                let context = ctx.context_named(p.context.as_deref())?;
                let state = ctx.app.browser.state();
                let tabs: Vec<Value> = state
                    .tabs_in(context)
                    .map(|t| {
                        let mut entry = t.json();
                        entry["current"] = (t.id == current).into();
                        entry
                    })
                    .collect();
                let name = state.context(context).map(|c| c.name.clone());
                Ok(ToolOutput::json(json!({"context": name, "tabs": tabs})))
            },
        ),
        tool(
            "tab_new",
            "Open a tab (at url, waiting for the load) as this session's tab.",
            ACTION,
            |ctx: Ctx, p: NewTabParams| async move {
                let url = p.url.as_deref().map(normalize_url).transpose()?;
                let context = ctx.context_named(p.context.as_deref())?;
                let state = ctx.app.browser.state();
                let before = Before {
                    nav: NavCounters::default(),
                    downloads: super::page::newest_download(&state),
                    tabs: state.tab_ids(),
                    requests: 0,
                    url: String::new(),
                    title: String::new(),
                };
                // The person works in the tab in front for an agent: it stays there.
                let behind = person::person_front(&ctx, context).is_some();
                let opened = ctx
                    .app
                    .browser
                    .call_value(Command::NewTab {
                        url: url.clone(),
                        behind,
                        context,
                    })
                    .await?;
                let tab = tab_id(&opened)?;
                ctx.session.set_tab(Some(tab));
                if let Some(url) = url {
                    let grace = start_grace(Some(&url), LOAD_LIMIT);
                    let loaded = ctx.settle(tab, &before, grace, LOAD_LIMIT).await?;
                    // As open: a URL the engine drops without an error is said.
                    refused_silently(&url, loaded, &ctx.page_summary(tab).await?)?;
                }
                describe(&ctx, tab).await
            },
        )
        .replayed(Replay::AsCalled)
        .changes_the_page(),
        tool(
            "tab_switch",
            "Make the tab at index (tab_list) this session's, in front.",
            ACTION,
            |ctx: Ctx, p: IndexParams| async move {
                let tab = tab_at(&ctx, p.index).await?;
                let context = ctx.tab_info(tab)?.context;
                let front = ctx.app.browser.state().front_in(context).map(|t| t.id);
                if let Some(front) = front {
                    ctx.check_hold(Reach::Front { front, to: tab })?;
                }
                ctx.app
                    .browser
                    .call_value(Command::BringToFront { tab })
                    .await?;
                ctx.session.set_tab(Some(tab));
                describe(&ctx, tab).await
            },
        )
        .replayed(Replay::AsCalled),
        tool(
            "tab_close",
            "Close the tab at index (from tab_list), by default this session's.",
            ACTION,
            |ctx: Ctx, p: OptionalIndexParams| async move {
                let tab = match p.index {
                    Some(index) => tab_at(&ctx, index).await?,
                    None => ctx.tab().await?,
                };
                ctx.check_hold(Reach::Tab(tab))?;
                close(&ctx, tab).await
            },
        ),
    ]
}

#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct NewTabParams {
    /// Open this (default: blank).
    #[serde(default)]
    url: Option<String>,
    #[serde(default)]
    context: Option<String>,
}

#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ContextParams {
    #[serde(default)]
    pub context: Option<String>,
}

#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct IndexParams {
    index: u32,
}

#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct OptionalIndexParams {
    #[serde(default)]
    index: Option<u32>,
}

fn tab_id(state: &Value) -> Result<TabId, ToolError> {
    state["id"]
        .as_u64()
        .ok_or_else(|| ToolError::internal("tab without id"))
}

async fn tab_at(ctx: &Ctx, index: u32) -> Result<TabId, ToolError> {
    let tabs = ctx.tab_ids();
    tabs.get(index as usize).copied().ok_or_else(|| {
        ToolError::new(
            ErrorCode::InvalidParams,
            format!(
                "no tab at index {index}; there are {} tabs (0 to {})",
                tabs.len(),
                tabs.len().saturating_sub(1)
            ),
        )
    })
}

async fn describe(ctx: &Ctx, tab: TabId) -> ToolResult {
    ctx.acted_on(tab);
    let index = ctx.tab_info(tab)?.index;
    let summary = ctx.page_summary(tab).await?;
    Ok(ToolOutput::json(
        json!({"index": index, "url": summary["url"], "title": summary["title"]}),
    ))
}

async fn close(ctx: &Ctx, tab: TabId) -> ToolResult {
    let result = ctx
        .app
        .browser
        .call_value(Command::CloseTab { tab })
        .await?;
    if ctx.session.tab() == Some(tab) {
        ctx.session.set_tab(None);
    }
    Ok(ToolOutput::json(result))
}
