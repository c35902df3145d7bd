//! context_new, context_list, context_close: isolated browsing contexts,
//! each with its own cookies, storage, cache, tabs and window, so that
//! agents work side by side without seeing each other's logins.

use super::families::Family;
use super::{tool, Ctx, ToolDef, ToolOutput, ACTION, READ_ONLY};
use crate::base::context::{ContextId, DEFAULT_CONTEXT};
use crate::base::error::{ErrorCode, ToolError};
use crate::bridge::{Command, TabId};
use crate::hold::Reach;
use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::{json, Value};

pub fn tools() -> Vec<ToolDef> {
    vec![
        tool(
            "context_new",
            "Work in a new context: own cookies, storage, tabs, window; ephemeral false keeps it by name.",
            ACTION,
            |ctx: Ctx, p: NewParams| async move { open(&ctx, p).await },
        )
        .in_family(Family::Contexts),
        tool(
            "context_list",
            "Open contexts; current is this session's.",
            READ_ONLY,
            |ctx: Ctx, _: super::identity::NoParams| async move {
                let current = ctx.context().ok();
                let state = ctx.app.browser.state();
                let contexts: Vec<Value> = state
                    .contexts
                    .iter()
                    .map(|c| {
                        let mut entry = c.json(state.tabs_in(c.id).count());
                        entry["current"] = (Some(c.id) == current).into();
                        entry
                    })
                    .collect();
                Ok(ToolOutput::json(json!({"contexts": contexts})))
            },
        )
        .in_family(Family::Contexts),
        tool(
            "context_close",
            "Close a context and its tabs.",
            ACTION,
            |ctx: Ctx, p: CloseParams| async move { close(&ctx, &p.context).await },
        )
        .in_family(Family::Contexts),
        tool(
            "context_logout",
            "Log a context agents opened out (the person's, from the panel).",
            ACTION,
            |ctx: Ctx, p: CloseParams| async move {
                let context = ctx.context_named(Some(&p.context))?;
                if context == DEFAULT_CONTEXT {
                    return Err(ToolError::invalid_params(
                        "context: that is your own; log out with logout",
                    ));
                }
                let identity = ctx.app.identities.of(context);
                let npub = identity.npub();
                identity.set(None);
                tracing::info!(context = %p.context, "a context logged out from the panel");
                let status = identity.status().await;
                let logout = crate::identity::audit::Action::Logout;
                super::identity_audit::identity_changed(&ctx, context, logout, npub, Ok(&status));
                Ok(ToolOutput::json(status))
            },
        )
        .ungated()
        .person_only(),
    ]
}

#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct NewParams {
    /// a-z, 0-9, - and _.
    #[serde(default)]
    name: Option<String>,
    /// Nothing kept on disk; gone at close.
    #[serde(default = "yes")]
    #[schemars(extend("default" = true))]
    ephemeral: bool,
}

fn yes() -> bool {
    true
}

#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct CloseParams {
    context: String,
}

async fn open(ctx: &Ctx, p: NewParams) -> Result<ToolOutput, ToolError> {
    let opened = ctx
        .app
        .browser
        .call_value(Command::NewContext {
            name: p.name,
            ephemeral: p.ephemeral,
            max: ctx.app.contexts_max,
        })
        .await?;
    let tab: TabId = opened["tab"]
        .as_u64()
        .ok_or_else(|| ToolError::internal("a context without a tab"))?;
    // The session works in the new context from now on.
    ctx.session.set_tab(Some(tab));
    let info = ctx.tab_info(tab)?;
    ctx.session.set_context(info.context);
    ctx.acted_on(tab);
    let mut opened = opened;
    opened["logged_in"] = false.into();
    opened["note"] =
        "a context has its own identity: log in here (login) before browser tools work in it"
            .into();
    Ok(ToolOutput::json(opened))
}

async fn close(ctx: &Ctx, name: &str) -> Result<ToolOutput, ToolError> {
    let context: ContextId = ctx.context_named(Some(name))?;
    if context == DEFAULT_CONTEXT {
        return Err(ToolError::new(
            ErrorCode::NotAllowed,
            "context: the default context is the person's; agents do not close it",
        ));
    }
    let tabs: Vec<TabId> = ctx
        .app
        .browser
        .state()
        .tabs_in(context)
        .map(|t| t.id)
        .collect();
    // A tab the person works in for an agent is theirs until they are done.
    for tab in tabs {
        ctx.check_hold(Reach::Tab(tab))?;
    }
    let own = ctx.context().ok() == Some(context);
    let closed = ctx
        .app
        .browser
        .call_value(Command::CloseContext { context })
        .await?;
    if own {
        // The session closed its own context: it works in the person's again.
        ctx.session.set_tab(None);
        ctx.session.set_context(DEFAULT_CONTEXT);
    }
    Ok(ToolOutput::json(closed))
}
