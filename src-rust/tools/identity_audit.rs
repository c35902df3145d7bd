//! Logins and logouts in the identity audit: which identity, in which
//! context, by whom (the person in the panel, or an agent's session), and
//! how it ended. The audit itself is `identity::audit`; the tools that
//! show and clear it are the person's (`audit_log`, `audit_clear`).

use super::{tool, Ctx, ToolDef, ToolOutput, ACTION, READ_ONLY};
use crate::base::caller::Principal;
use crate::base::context::{ContextId, DEFAULT_NAME};
use crate::base::error::ToolError;
use crate::identity::audit::{Action, Agent, Decision, Use};
use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::{json, Value};

/// The newest entries audit_log gives unless asked for fewer.
const DEFAULT_LIMIT: usize = 500;

pub fn tools() -> Vec<ToolDef> {
    vec![
        tool(
            "audit_log",
            "What was done in each identity's name: pages' window.nostr uses, logins and logouts, vault secrets filled; who asked and how it was decided.",
            READ_ONLY,
            |ctx: Ctx, p: LogParams| async move {
                let limit = p.limit.unwrap_or(DEFAULT_LIMIT).clamp(1, crate::identity::audit::KEPT);
                let uses = ctx.app.audit.list(p.identity.as_deref(), limit);
                Ok(ToolOutput::json(json!({"uses": uses})))
            },
        )
        .ungated()
        .person_only(),
        tool(
            "audit_clear",
            "Forget the identity audit, on disk too.",
            ACTION,
            |ctx: Ctx, _: ClearParams| async move {
                ctx.app.audit.clear();
                tracing::info!("the identity audit was cleared in the panel");
                Ok(ToolOutput::json(json!({"cleared": true})))
            },
        )
        .ungated()
        .person_only(),
    ]
}

#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ClearParams {}

#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct LogParams {
    /// One identity's uses (its npub).
    #[serde(default)]
    identity: Option<String>,
    #[serde(default)]
    limit: Option<usize>,
}

/// Keeps a login (`status` is its answer) or a logout of `npub` in
/// `context`, called by this call's session.
pub fn identity_changed(
    ctx: &Ctx,
    context: ContextId,
    action: Action,
    npub: Option<String>,
    outcome: Result<&Value, &ToolError>,
) {
    let npub = npub.or_else(|| {
        outcome
            .ok()
            .and_then(|status| status["npub"].as_str())
            .map(str::to_string)
    });
    let detail = outcome
        .ok()
        .map(|status| json!({"method": status["method"]}));
    record(
        ctx,
        context,
        Use::new(action, npub, "", Decision::Called),
        detail,
        outcome.err(),
    );
}

/// A vault entry's `field` filled (or refused) on the page at `url` of
/// the caller's context, in the name of that context's identity: which
/// entry, never its value.
pub fn vault_used(
    ctx: &Ctx,
    url: &str,
    (entry, field): (&str, Value),
    refused: Option<&ToolError>,
) {
    let Ok(context) = ctx.context() else {
        return;
    };
    let npub = ctx.app.identities.of(context).npub();
    let mut used = Use::new(Action::VaultFill, npub, "", Decision::Called);
    used.origin = crate::address::origin_of(url);
    record(
        ctx,
        context,
        used,
        Some(json!({"entry": entry, "field": field})),
        refused,
    );
}

/// Records `entry` in the audit, with its context's name, who called (the
/// person, or which agent's session), its detail and how it ended.
fn record(
    ctx: &Ctx,
    context: ContextId,
    mut entry: Use,
    detail: Option<Value>,
    refused: Option<&ToolError>,
) {
    let (name, ephemeral) = ctx.app.browser.peek(|state| {
        state
            .context(context)
            .map_or((DEFAULT_NAME.to_string(), false), |c| {
                (c.name.clone(), c.ephemeral)
            })
    });
    entry.context = name;
    let by_person = ctx.session.transport.principal() == Principal::Person;
    if by_person {
        entry.decided = Decision::Person;
    } else {
        let client = ctx
            .session
            .client_name()
            .unwrap_or_else(|| ctx.session.transport.as_str().to_string());
        entry.agent = Some(Agent {
            session: Some(ctx.session.id.clone()),
            client,
        });
    }
    if let Some(detail) = detail {
        entry.detail = detail;
    }
    if let Some(error) = refused {
        entry.allowed = false;
        entry.error = Some(error.message.clone());
    }
    let signer = ctx.app.identities.of(context).current();
    ctx.app.audit.record(entry, !ephemeral, signer.as_deref());
}
