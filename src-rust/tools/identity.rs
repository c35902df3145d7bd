//! login_status, login, logout, switch_identity: the identity gate, and
//! the person's own: remembered identities and the login form. The
//! three that change the identity are the person's while the person holds
//! the browser (see `dispatch`).

use super::identity_audit::identity_changed;
use super::login::{login, LoginParams, FORM_FIELDS};
use super::{tool, Ctx, ToolDef, ToolOutput, ACTION, READ_ONLY};
use crate::identity::audit::Action;
use schemars::JsonSchema;
use serde::Deserialize;

pub fn tools() -> Vec<ToolDef> {
    vec![
        tool(
            "login_status",
            "Whether logged in: method, pubkey (hex), npub (never secrets); and files_folder, where upload, pdf and state files live.",
            READ_ONLY,
            |ctx: Ctx, _: NoParams| async move {
                let mut status = ctx.identity()?.status().await;
                status["files_folder"] = ctx.app.files.root().display().to_string().into();
                Ok(ToolOutput::json(status))
            },
        )
        .ungated(),
        tool(
            "login",
            "Log in with a Nostr identity (browser tools refuse until then): local nsec or privkey_hex; seed mnemonic; readonly npub or pubkey_hex; nip46 bunker_url (may answer pending with an auth_url to approve; login_status shows the end); nsigner transport and device; or remembered. Replaces a logged-in identity (replaced: its npub).",
            ACTION,
            |ctx: Ctx, p: LoginParams| async move { logged_in(&ctx, p, false).await },
        )
        .ungated()
        .changes_identity(),
        tool(
            "logout",
            "Log out; browser tools stop until the next login.",
            ACTION,
            |ctx: Ctx, _: NoParams| async move {
                let context = ctx.context()?;
                let identity = ctx.app.identities.of(context);
                let npub = identity.npub();
                identity.set(None);
                let status = identity.status().await;
                identity_changed(&ctx, context, Action::Logout, npub, Ok(&status));
                Ok(ToolOutput::json(status))
            },
        )
        .ungated()
        .changes_identity(),
        tool(
            "switch_identity",
            "Switch identity, with login's parameters; a failed login leaves you logged out.",
            ACTION,
            |ctx: Ctx, p: LoginParams| async move { logged_in(&ctx, p, true).await },
        )
        .ungated()
        .changes_identity()
        .terse_schema(),
        tool(
            "identity_list",
            "Identities remembered in this profile (public parts only).",
            READ_ONLY,
            |ctx: Ctx, _: NoParams| async move { Ok(ToolOutput::json(ctx.app.remembered.list())) },
        )
        .ungated()
        .person_only(),
        tool(
            "login_form",
            "The login form: the login tool's schema, as tools/list sends it, and each method's fields.",
            READ_ONLY,
            |ctx: Ctx, _: NoParams| async move {
                let login = ctx.app.tools.find("login").map(|found| ctx.app.tools.def(found));
                let schema = login.map(|def| def.input_schema.clone()).unwrap_or_default();
                Ok(ToolOutput::json(serde_json::json!({"schema": schema, "fields": FORM_FIELDS})))
            },
        )
        .ungated()
        .person_only(),
        tool(
            "identity_forget",
            "Forget a remembered identity (by npub or hex public key).",
            ACTION,
            |ctx: Ctx, p: ForgetParams| async move {
                let forgotten = ctx.app.remembered.forget(p.npub.trim())?;
                Ok(ToolOutput::json(serde_json::json!({"forgotten": forgotten})))
            },
        )
        .ungated()
        .person_only(),
    ]
}

#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ForgetParams {
    /// npub (or hex public key) of the identity to forget.
    npub: String,
}

/// Tools without parameters.
#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct NoParams {}

/// login and switch_identity: the login, kept in the identity audit with
/// its outcome (a bunker still waiting for approval is not a login yet).
async fn logged_in(ctx: &Ctx, p: LoginParams, switching: bool) -> super::ToolResult {
    let by = ctx.session.transport.principal();
    let context = ctx.context()?;
    let identity = ctx.app.identities.of(context);
    let before = identity.npub();
    let mut done = login(&ctx.app, &identity, p, switching, by).await;
    // A login while logged in replaces the identity: said, never silent.
    if let (Ok(status), Some(before)) = (done.as_mut(), before) {
        if status["logged_in"] == true {
            status["replaced"] = before.into();
        }
    }
    let waiting = done
        .as_ref()
        .is_ok_and(|status| status["logged_in"] != true);
    if !waiting {
        identity_changed(ctx, context, Action::Login, None, done.as_ref());
    }
    Ok(ToolOutput::json(done?))
}
