//! state_save, state_load: the profile's cookies and the local storage of
//! the open pages, written to a state file (owner-only: it holds logins)
//! and restored into another run, another profile even, so a site stays
//! logged in.

use super::{tab_tool, Ctx, ToolDef, ToolOutput, ToolResult, DESTRUCTIVE};
use crate::base::error::{ErrorCode, ToolError};
use crate::bridge::{Command, CookieOp, CookieSpec, Navigation, TabId};
use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::{json, Map, Value};
use std::path::PathBuf;
use std::time::Duration;

const FORMAT: &str = "sovereign-browser-state";
const VERSION: u64 = 1;
/// A document of an origin, made without asking the site, to restore its storage.
const RESTORE_PAGE: &str = "<!doctype html><title>Restoring saved state</title>";

pub fn tools() -> Vec<ToolDef> {
    vec![
        tab_tool(
            "state_save",
            "Save the profile's cookies and the localStorage of the open pages to a state file: by name (in the profile, default \"default\") or absolute path in the files folder. The file is readable by its owner only.",
            DESTRUCTIVE,
            |ctx: Ctx, tab: TabId, p: StateParams| async move { save(&ctx, tab, p).await },
        ),
        tab_tool(
            "state_load",
            "Restore cookies and localStorage from a state file written by state_save (by name, or absolute path in the files folder), e.g. to stay logged in to a site in a fresh profile.",
            DESTRUCTIVE,
            |ctx: Ctx, tab: TabId, p: StateParams| async move { load(&ctx, tab, p).await },
        ),
    ]
}

#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct StateParams {
    /// A name (letters, digits, - and _) for a file in the profile.
    #[serde(default)]
    name: Option<String>,
    /// An absolute path in the files folder instead.
    #[serde(default)]
    path: Option<String>,
}

/// Where a state file is: by name in the profile, or by path in the files
/// folder (`saving`: a file to write, else one to read).
fn state_path(ctx: &Ctx, p: &StateParams, saving: bool) -> Result<PathBuf, ToolError> {
    match (&p.name, &p.path) {
        (Some(_), Some(_)) => Err(ToolError::invalid_params("give name or path, not both")),
        (_, Some(path)) if saving => ctx
            .app
            .files
            .new_file(path)
            .map_err(ToolError::invalid_params),
        (_, Some(path)) => ctx
            .app
            .files
            .existing_file(path)
            .map_err(ToolError::invalid_params),
        (name, None) => {
            let name = name.as_deref().unwrap_or("default");
            let valid = !name.is_empty()
                && name.len() <= 64
                && name
                    .bytes()
                    .all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'_');
            if !valid {
                return Err(ToolError::invalid_params(
                    "name may have letters, digits, - and _ only (up to 64)",
                ));
            }
            Ok(ctx.app.states_dir.join(format!("{name}.json")))
        }
    }
}

async fn save(ctx: &Ctx, tab: TabId, p: StateParams) -> ToolResult {
    let path = state_path(ctx, &p, true)?;
    let op = CookieOp::Get { url: None };
    let cookies = ctx
        .app
        .browser
        .call_value(Command::Cookies { tab, op })
        .await?;
    let mut origins = Map::new();
    for id in ctx.tab_ids() {
        let args = json!({"area": "local", "action": "get"});
        let command = Command::Agent {
            tab: id,
            op: "storage",
            args,
        };
        // Pages without storage (about:blank, errors) have nothing to save.
        if let Ok(found) = ctx.app.browser.call_value(command).await {
            if let (Some(origin), Some(items)) =
                (found["origin"].as_str(), found["items"].as_object())
            {
                if origin.starts_with("http") && !items.is_empty() {
                    origins.insert(origin.to_string(), Value::Object(items.clone()));
                }
            }
        }
    }
    let state = json!({
        "format": FORMAT,
        "version": VERSION,
        "saved": std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map_or(0, |d| d.as_secs()),
        "cookies": cookies["cookies"],
        "local_storage": origins,
    });
    if path.starts_with(&ctx.app.states_dir) {
        std::fs::create_dir_all(&ctx.app.states_dir).map_err(|e| file_error(&path, e))?;
    }
    let bytes =
        serde_json::to_vec_pretty(&state).map_err(|e| ToolError::internal(e.to_string()))?;
    crate::profile::write_private(&path, &bytes).map_err(|e| file_error(&path, e))?;
    Ok(ToolOutput::json(json!({
        "path": path,
        "cookies": state["cookies"].as_array().map_or(0, Vec::len),
        "origins": origins.keys().collect::<Vec<_>>(),
    })))
}

async fn load(ctx: &Ctx, tab: TabId, p: StateParams) -> ToolResult {
    let path = state_path(ctx, &p, false)?;
    let bytes = std::fs::read(&path).map_err(|e| {
        let code = if e.kind() == std::io::ErrorKind::NotFound {
            ErrorCode::InvalidParams
        } else {
            ErrorCode::Internal
        };
        ToolError::new(code, format!("{}: {e}", path.display()))
    })?;
    let state: Value = serde_json::from_slice(&bytes).map_err(|e| {
        ToolError::invalid_params(format!("{} is not a state file: {e}", path.display()))
    })?;
    if state["format"] != FORMAT || state["version"] != VERSION {
        return Err(ToolError::invalid_params(format!(
            "{} is not a state file of this browser",
            path.display()
        )));
    }
    let cookies = state["cookies"].as_array().cloned().unwrap_or_default();
    for cookie in &cookies {
        let spec = cookie_spec(cookie)?;
        let op = CookieOp::Set(spec);
        ctx.app
            .browser
            .call_value(Command::Cookies { tab, op })
            .await?;
    }
    let origins = state["local_storage"]
        .as_object()
        .cloned()
        .unwrap_or_default();
    if !origins.is_empty() {
        restore_storage(ctx, &origins).await?;
        ctx.app
            .browser
            .call_value(Command::BringToFront { tab })
            .await?;
    }
    Ok(ToolOutput::json(json!({
        "path": path,
        "cookies": cookies.len(),
        "origins": origins.keys().collect::<Vec<_>>(),
    })))
}

fn cookie_spec(cookie: &Value) -> Result<CookieSpec, ToolError> {
    let text = |k: &str| cookie[k].as_str().map(str::to_string);
    let name =
        text("name").ok_or_else(|| ToolError::invalid_params("a saved cookie has no name"))?;
    Ok(CookieSpec {
        name,
        value: text("value").unwrap_or_default(),
        domain: text("domain").unwrap_or_default(),
        path: text("path").unwrap_or_else(|| "/".into()),
        expires: cookie["expires"].as_i64(),
        secure: cookie["secure"].as_bool().unwrap_or(false),
        http_only: cookie["httpOnly"].as_bool().unwrap_or(false),
        same_site: text("sameSite")
            .unwrap_or_else(|| "Lax".into())
            .to_ascii_lowercase(),
    })
}

/// Writes each origin's items from a document of that origin, made in a
/// tab of its own (no request reaches the site), then closes the tab.
async fn restore_storage(ctx: &Ctx, origins: &Map<String, Value>) -> Result<(), ToolError> {
    let opened = ctx
        .app
        .browser
        .call_value(Command::NewTab { url: None })
        .await?;
    let tab: TabId = opened["id"]
        .as_u64()
        .ok_or_else(|| ToolError::internal("tab without id"))?;
    let result = async {
        ctx.wait_until_loaded(tab, Duration::from_secs(10)).await?;
        for (origin, items) in origins {
            if !(origin.starts_with("http://") || origin.starts_with("https://")) {
                continue;
            }
            let mut before = ctx.before(tab)?;
            let nav = Navigation::Html { html: RESTORE_PAGE.into(), base: format!("{origin}/") };
            before.nav = ctx.app.browser.navigate(tab, nav).await?.0;
            ctx.settle(tab, &before, Duration::from_secs(3), Duration::from_secs(10)).await?;
            for (key, value) in items.as_object().into_iter().flatten() {
                let args = json!({"area": "local", "action": "set", "key": key, "value": value.as_str().unwrap_or_default()});
                ctx.app.browser.call_value(Command::Agent { tab, op: "storage", args }).await?;
            }
        }
        Ok::<(), ToolError>(())
    }
    .await;
    let closed = ctx.app.browser.call_value(Command::CloseTab { tab }).await;
    result.and(closed.map(|_| ()))
}

fn file_error(path: &std::path::Path, e: std::io::Error) -> ToolError {
    ToolError::new(ErrorCode::Internal, format!("{}: {e}", path.display()))
}
