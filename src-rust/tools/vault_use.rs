//! An agent's use of a vault entry (`fill {secret, field}`): every rule
//! checked, and, for an entry the person marked "ask me each time", their
//! yes to this use, asked in the window's bar and the panel. The value is
//! taken only once all of it holds, and again after the yes: the vault or
//! the page may have changed meanwhile, and a one-time code is fresh.

use super::Ctx;
use crate::asks::shown_name;
use crate::base::error::{ErrorCode, ToolError};
use crate::base::tab::TabId;
use crate::bridge::VaultFill;
use crate::vault::{Asking, Field, TooMany, UseAsked, WAITING_MAX};
use std::time::Duration;
use zeroize::Zeroizing;

/// How long a use waits for the person's yes when the fill names no
/// timeout (within the call's own limit).
pub const YES_WAIT: Duration = Duration::from_secs(20);

/// The secret `field` of the vault entry `name`, for a fill in `tab`, once
/// every rule holds: the vault is open, the tab's page has one of the
/// entry's origins (https, or http on this machine), nothing an agent
/// supplied (a script, a route, a HAR) ever reached the tab's pages, and,
/// when the entry asks each time, the person said yes within `yes_within`.
/// The page itself checks that the field's own document has one of the
/// origins too.
pub async fn secret_for(
    ctx: &Ctx,
    tab: TabId,
    name: &str,
    field: Option<Field>,
    yes_within: Duration,
) -> Result<VaultFill, ToolError> {
    let field = field.ok_or_else(|| {
        ToolError::invalid_field(
            "field",
            "with secret, say which field: user, password or totp",
        )
    })?;
    let fill = checked(ctx, tab, name, field)?;
    if !ctx.app.vault.asks_each_time(name)? {
        return Ok(fill);
    }
    // Wiped now; taken again after the yes.
    drop(fill);
    persons_yes(ctx, tab, name, field, yes_within).await?;
    checked(ctx, tab, name, field)
}

fn refused(rule: &str, why: String) -> ToolError {
    ToolError::new(ErrorCode::SecretRefused, format!("{rule}: {why}"))
}

/// The rules that hold whoever answers: open, untouched, the right origin.
fn checked(ctx: &Ctx, tab: TabId, name: &str, field: Field) -> Result<VaultFill, ToolError> {
    let vault = &ctx.app.vault;
    if !vault.is_open() {
        return Err(refused(
            "locked",
            "the person's vault is locked (or not made yet): ask the person to open it in the panel".into(),
        ));
    }
    let origins = vault.origins_of(name)?;
    if ctx.app.nip07.agent_scripted.contains(tab) {
        return Err(refused(
            "touched",
            "an agent's script, route or HAR reached this tab's pages, and whatever an agent supplies is the agent's: no secret goes there. A new tab in a context without routes takes it".into(),
        ));
    }
    let url = ctx.tab_info(tab)?.url;
    let now = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_secs());
    let Some(value) = vault.value_for(name, field, &url, now)? else {
        let here = crate::address::origin_of(&url).unwrap_or_else(|| "not a web page".into());
        return Err(refused(
            "origin",
            format!(
                "{name} may be used on {} only, and this page is {here}",
                origins.join(", ")
            ),
        ));
    };
    Ok(VaultFill {
        value: Zeroizing::new(value.expose().to_string()),
        origins,
    })
}

/// Waits for the person's yes to this use (the window's bar, the panel).
/// The request goes when the call ends, however it ends.
async fn persons_yes(
    ctx: &Ctx,
    tab: TabId,
    name: &str,
    field: Field,
    within: Duration,
) -> Result<(), ToolError> {
    let url = ctx.tab_info(tab)?.url;
    let asked = UseAsked {
        id: 0,
        entry: name.to_string(),
        field: serde_json::to_value(field)
            .ok()
            .and_then(|v| v.as_str().map(String::from))
            .unwrap_or_default(),
        origin: crate::address::origin_of(&url).unwrap_or_default(),
        tab,
        asker: shown_name(&ctx.session.client_name().unwrap_or_default()),
        started: 0,
    };
    let consents = &ctx.app.vault_uses;
    let (id, answered) = consents.ask(asked).map_err(|TooMany| {
        ToolError::new(
            ErrorCode::Busy,
            format!("{WAITING_MAX} uses of the vault wait for the person's yes already: ask again once they answered"),
        )
    })?;
    let _asking = Asking { consents, id };
    tracing::info!(
        entry = name,
        tab,
        request = id,
        "a use of the vault waits for the person's yes"
    );
    match tokio::time::timeout(within, answered).await {
        Ok(Ok(true)) => Ok(()),
        Ok(Ok(false)) => Err(refused(
            "asked",
            format!("the person said no to this use of {name}"),
        )),
        Ok(Err(_)) => Err(refused(
            "asked",
            "the request for the person's yes ended unanswered".into(),
        )),
        Err(_) => Err(refused(
            "asked",
            format!(
                "{name} asks the person each time, and they did not answer within {} s; give fill a longer timeout (ms) to wait longer",
                within.as_secs()
            ),
        )),
    }
}
