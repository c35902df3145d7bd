//! The person's vault of sites' credentials. The person makes, opens,
//! locks and fills it from the panel (tools refused to agents); agents
//! list what it holds by name and origin (`secrets_list`), never a value.

use super::families::Family;
use super::identity::NoParams;
use super::{tool, Ctx, ToolDef, ToolOutput, ToolResult, ACTION, READ_ONLY};
use crate::base::error::ToolError;
use crate::vault::{Entry, Vault, VaultError};
use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::{json, Value};
use std::sync::Arc;
use zeroize::Zeroizing;

pub fn tools() -> Vec<ToolDef> {
    vec![
        tool(
            "secrets_list",
            "The person's vault entries you may have filled by name: name, origins (exact), fields (user, password, totp). Never their values.",
            READ_ONLY,
            |ctx: Ctx, _: NoParams| async move { Ok(ToolOutput::json(listed(&ctx.app.vault, false))) },
        )
        .in_family(Family::Secrets),
        tool(
            "vault_status",
            "The vault: whether it exists and is open, its entries (names, origins, fields), and the uses waiting for the person's yes.",
            READ_ONLY,
            |ctx: Ctx, _: NoParams| async move {
                let mut status = listed(&ctx.app.vault, true);
                status["waiting"] = json!(ctx.app.vault_uses.list());
                Ok(ToolOutput::json(status))
            },
        )
        .ungated()
        .person_only(),
        tool(
            "vault_create",
            "Make the vault, sealed under a password of at least 8 characters; it stays open.",
            ACTION,
            |ctx: Ctx, p: PasswordParams| async move {
                let password = Zeroizing::new(p.password);
                sealing(&ctx, move |vault| vault.create(&password)).await
            },
        )
        .ungated()
        .person_only(),
        tool(
            "vault_unlock",
            "Open the vault with its password.",
            ACTION,
            |ctx: Ctx, p: PasswordParams| async move {
                let password = Zeroizing::new(p.password);
                sealing(&ctx, move |vault| vault.unlock(&password)).await
            },
        )
        .ungated()
        .person_only(),
        tool(
            "vault_lock",
            "Lock the vault: its entries leave memory until it is opened again.",
            ACTION,
            |ctx: Ctx, _: NoParams| async move {
                ctx.app.vault.lock();
                Ok(ToolOutput::json(listed(&ctx.app.vault, true)))
            },
        )
        .ungated()
        .person_only(),
        tool(
            "vault_put",
            "Add an entry, or replace the one of its name: exact origins it may be used on, and a user name, a password and/or a TOTP secret (otpauth:// URI or base32).",
            ACTION,
            |ctx: Ctx, p: PutParams| async move {
                let (user, password) = (p.user, p.password);
                let totp = p.totp.map(Zeroizing::new);
                let entry = Entry::new(&p.name, &p.origins, user, password, totp.as_deref().map(String::as_str))?
                    .asking(p.ask_each_time.unwrap_or(false));
                sealing(&ctx, move |vault| vault.put(entry)).await
            },
        )
        .ungated()
        .person_only(),
        tool(
            "vault_answer",
            "Allow or deny one waiting use of an entry that asks each time (by id).",
            ACTION,
            |ctx: Ctx, p: UseAnswerParams| async move {
                if !ctx.app.vault_uses.answer(p.id, p.allow) {
                    return Err(ToolError::invalid_field(
                        "id",
                        format!("no use {} waits for an answer (it was answered, timed out, or its agent left)", p.id),
                    ));
                }
                Ok(ToolOutput::json(json!({"answered": p.id, "allowed": p.allow})))
            },
        )
        .ungated()
        .person_only(),
        tool(
            "vault_remove",
            "Remove an entry by name.",
            ACTION,
            |ctx: Ctx, p: RemoveParams| async move {
                let name = p.name;
                sealing(&ctx, move |vault| vault.remove(&name)).await
            },
        )
        .ungated()
        .person_only(),
    ]
}

#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct PasswordParams {
    /// The vault's password.
    password: String,
}

#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct PutParams {
    /// The entry's name, as agents name it (github, work mail).
    name: String,
    /// Exact origins it may be used on (https://github.com).
    origins: Vec<String>,
    #[serde(default)]
    user: Option<String>,
    #[serde(default)]
    password: Option<String>,
    /// An otpauth:// URI or its base32 secret.
    #[serde(default)]
    totp: Option<String>,
    /// Each use waits for the person's yes (in the window's bar or the panel).
    #[serde(default)]
    ask_each_time: Option<bool>,
}

#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct UseAnswerParams {
    /// The waiting use's id (vault_status lists them).
    id: u64,
    allow: bool,
}

#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct RemoveParams {
    name: String,
}

/// Runs a change that seals the vault (scrypt takes a fraction of a
/// second and 64 MiB: off the server's threads), then answers the status.
async fn sealing<F>(ctx: &Ctx, change: F) -> ToolResult
where
    F: FnOnce(&Vault) -> Result<(), VaultError> + Send + 'static,
{
    let vault = Arc::clone(&ctx.app.vault);
    let worker = vault.clone();
    tokio::task::spawn_blocking(move || change(&worker))
        .await
        .map_err(|_| ToolError::internal("the vault's work stopped"))??;
    Ok(ToolOutput::json(listed(&vault, true)))
}

/// The vault as the person (`person`) or an agent sees it: whether it
/// exists and is open, and its entries' names, origins and fields.
fn listed(vault: &Vault, person: bool) -> Value {
    let entries = vault.list().unwrap_or_default();
    let mut shown = json!({"open": vault.is_open(), "entries": entries});
    if person {
        shown["exists"] = vault.exists().into();
    } else if !vault.is_open() {
        shown["note"] =
            "the vault is locked (or not made yet): ask the person to open it in the panel".into();
    }
    shown
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::base::caller::Transport;
    use crate::base::error::ErrorCode;
    use crate::tools::dispatch::dispatch;
    use crate::tools::fake_browser::{agent_session, log_in, FakeBrowser};

    fn json_of(output: ToolOutput) -> Value {
        match output {
            ToolOutput::Json(map) => Value::Object(map),
            _ => Value::Null,
        }
    }

    #[tokio::test]
    async fn the_person_fills_the_vault_and_agents_see_names_never_values() {
        let (app, _fake) = FakeBrowser::app();
        log_in(&app);
        let agent = agent_session(&app);
        let person = app.sessions.create(Transport::Panel).unwrap();
        let listed = dispatch(&app, &agent, "secrets_list", json!({}))
            .await
            .unwrap();
        let listed = json_of(listed);
        assert_eq!(listed["open"], false);
        assert!(listed["note"].as_str().unwrap().contains("ask the person"));
        // Every vault tool is the person's: an agent cannot make, open or fill it.
        for (tool, args) in [
            ("vault_create", json!({"password": "a long password"})),
            ("vault_unlock", json!({"password": "a long password"})),
            (
                "vault_put",
                json!({"name": "x", "origins": ["https://x.example"], "password": "p"}),
            ),
            ("vault_status", json!({})),
            ("vault_lock", json!({})),
            ("vault_remove", json!({"name": "x"})),
        ] {
            let refused = dispatch(&app, &agent, tool, args).await.unwrap_err();
            assert_eq!(refused.code, ErrorCode::UnknownTool, "{tool}");
        }
        dispatch(
            &app,
            &person,
            "vault_create",
            json!({"password": "a long password"}),
        )
        .await
        .unwrap();
        let put = json!({
            "name": "github",
            "origins": ["https://github.com"],
            "user": "ada-lovelace",
            "password": "correct-horse-battery",
            "totp": "GEZDGNBVGY3TQOJQGEZDGNBVGY3TQOJQ",
        });
        let status = json_of(dispatch(&app, &person, "vault_put", put).await.unwrap());
        assert_eq!(
            status["entries"][0]["fields"],
            json!(["user", "password", "totp"])
        );
        let seen = json_of(
            dispatch(&app, &agent, "secrets_list", json!({}))
                .await
                .unwrap(),
        );
        assert_eq!(
            seen,
            json!({"open": true, "entries": [{"name": "github", "origins": ["https://github.com:443"], "fields": ["user", "password", "totp"]}]})
        );
        for value in ["ada-lovelace", "correct-horse", "GEZD"] {
            assert!(!seen.to_string().contains(value));
            assert!(!status.to_string().contains(value));
        }
        // Locked, the vault answers nothing but that it is locked; the
        // wrong password opens nothing.
        dispatch(&app, &person, "vault_lock", json!({}))
            .await
            .unwrap();
        let locked = json_of(
            dispatch(&app, &agent, "secrets_list", json!({}))
                .await
                .unwrap(),
        );
        assert_eq!(locked["entries"], json!([]));
        let wrong = dispatch(
            &app,
            &person,
            "vault_unlock",
            json!({"password": "not the one"}),
        )
        .await
        .unwrap_err();
        assert_eq!(wrong.code, ErrorCode::InvalidParams);
        assert!(!wrong.message.contains("not the one"));
        dispatch(
            &app,
            &person,
            "vault_unlock",
            json!({"password": "a long password"}),
        )
        .await
        .unwrap();
        let bad = json!({"name": "evil", "origins": ["https://*.example"], "password": "p"});
        let refused = dispatch(&app, &person, "vault_put", bad).await.unwrap_err();
        assert_eq!(refused.code, ErrorCode::InvalidParams);
        assert!(
            refused.message.contains("never a pattern"),
            "{}",
            refused.message
        );
    }
}
