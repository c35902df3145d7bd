//! state_save, state_load: the profile's cookies and the local storage,
//! session storage and IndexedDB of the open pages, written to a state file (owner-only: it holds logins)
//! and restored into another run, another profile even, so a site stays
//! logged in.

use super::families::Family;
use super::{tab_tool, Ctx, ToolDef, ToolOutput, ToolResult, ACTION};
use crate::base::error::{ErrorCode, ToolError};
use crate::bridge::{Command, CookieOp, CookieSpec, Navigation, TabId};
use crate::page_protocol::ops::{IndexedDb, Storage, StorageAction, StorageArea};
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
            "Save cookies, and open tabs' origins' localStorage, sessionStorage and IndexedDB, to a state file (name default \"default\"). Lists cookies_only, not_saved.",
            ACTION,
            |ctx: Ctx, tab: TabId, p: StateParams| async move { save(&ctx, tab, p).await },
        )
        .in_family(Family::Storage),
        tab_tool(
            "state_load",
            "Restore a state_save file: cookies, localStorage, IndexedDB, and sessionStorage into open tabs of its origin. Lists not_restored.",
            ACTION,
            |ctx: Ctx, tab: TabId, p: StateParams| async move { load(&ctx, tab, p).await },
        )
        .in_family(Family::Storage),
    ]
}

#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct StateParams {
    /// A file in the profile (letters, digits, - and _).
    #[serde(default)]
    name: Option<String>,
    /// Or an absolute path in the files folder (login_status).
    #[serde(default)]
    path: Option<String>,
}

/// Where a state file is: by name in the profile, or by path in the files
/// folder (`saving`: a file to write, else one to read).
fn state_path(ctx: &Ctx, p: &StateParams, saving: bool) -> Result<PathBuf, ToolError> {
    match (&p.name, &p.path) {
        (Some(_), Some(_)) => Err(ToolError::invalid_params("give name or path, not both")),
        (_, Some(path)) if saving => ctx.app.files.new_file(path).map_err(ToolError::from),
        (_, Some(path)) => ctx.app.files.agents_file(path).map_err(ToolError::from),
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
    let mut site = SiteData::default();
    for id in ctx.tab_ids() {
        site.read_tab(ctx, id).await;
    }
    let cookies_only = cookies_only(&cookies["cookies"], &site.read);
    let state = json!({
        "format": FORMAT,
        "version": VERSION,
        "saved": std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map_or(0, |d| d.as_secs()),
        "cookies": cookies["cookies"],
        "local_storage": site.local,
        "session_storage": site.session,
        "indexeddb": site.indexeddb,
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
        "origins": site.read,
        "cookies_only": cookies_only,
        "not_saved": site.not_saved,
    })))
}

/// What state_save read of the open tabs' pages, by origin.
#[derive(Default)]
struct SiteData {
    /// The origins whose storage was read.
    read: Vec<String>,
    local: Map<String, Value>,
    session: Map<String, Value>,
    indexeddb: Map<String, Value>,
    /// Why some of an origin's data is not in the file.
    not_saved: Map<String, Value>,
}

impl SiteData {
    async fn read_tab(&mut self, ctx: &Ctx, tab: TabId) {
        // Pages without storage (about:blank, errors) have nothing to save.
        let Ok(local) = storage_get(ctx, tab, StorageArea::Local).await else {
            return;
        };
        let Some(origin) = local["origin"].as_str().filter(|o| o.starts_with("http")) else {
            return;
        };
        let origin = origin.to_string();
        // sessionStorage is each tab's own: tabs of one origin are merged.
        match storage_get(ctx, tab, StorageArea::Session).await {
            Ok(found) => merge_items(&mut self.session, &origin, &found["items"]),
            Err(e) => self.note(&origin, format!("sessionStorage: {}", e.message)),
        }
        if self.read.contains(&origin) {
            return;
        }
        self.read.push(origin.clone());
        merge_items(&mut self.local, &origin, &local["items"]);
        match ctx.page_now(tab, IndexedDb::Dump).await {
            Ok(dump) => {
                if dump["databases"].as_array().is_some_and(|d| !d.is_empty()) {
                    self.indexeddb
                        .insert(origin.clone(), dump["databases"].clone());
                }
                for why in dump["skipped"].as_array().into_iter().flatten() {
                    let why = why.as_str().unwrap_or_default();
                    self.note(&origin, format!("IndexedDB {why}"));
                }
            }
            Err(e) => self.note(&origin, format!("IndexedDB: {}", e.message)),
        }
    }

    fn note(&mut self, origin: &str, why: String) {
        note(&mut self.not_saved, origin, why);
    }
}

fn note(notes: &mut Map<String, Value>, origin: &str, why: String) {
    if let Value::Array(list) = notes
        .entry(origin.to_string())
        .or_insert_with(|| Value::Array(Vec::new()))
    {
        list.push(why.into());
    }
}

async fn storage_get(ctx: &Ctx, tab: TabId, area: StorageArea) -> Result<Value, ToolError> {
    let action = StorageAction::Get;
    ctx.page_now(tab, Storage { area, action }).await
}

/// A saved item written back (a value that is not a string: empty).
fn set_item(key: &str, value: &Value) -> StorageAction {
    StorageAction::Set {
        key: key.to_string(),
        value: value.as_str().unwrap_or_default().to_string(),
    }
}

/// Adds `items` under `origin`, keeping items already there.
fn merge_items(into: &mut Map<String, Value>, origin: &str, items: &Value) {
    let Some(items) = items.as_object().filter(|i| !i.is_empty()) else {
        return;
    };
    if let Value::Object(kept) = into
        .entry(origin.to_string())
        .or_insert_with(|| Value::Object(Map::new()))
    {
        for (key, value) in items {
            kept.entry(key.clone()).or_insert_with(|| value.clone());
        }
    }
}

/// The cookies' domains that no origin in `read` is on: sites whose
/// storage was not read, as no tab had them open.
fn cookies_only(cookies: &Value, read: &[String]) -> Vec<String> {
    let hosts: Vec<String> = read.iter().filter_map(|o| host_of(o)).collect();
    let mut domains: Vec<String> = cookies
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|c| c["domain"].as_str())
        .map(|d| d.trim_start_matches('.').to_ascii_lowercase())
        .filter(|d| {
            !d.is_empty()
                && !hosts
                    .iter()
                    .any(|h| h == d || h.ends_with(&format!(".{d}")))
        })
        .collect();
    domains.sort();
    domains.dedup();
    domains
}

/// The host of `scheme://host[:port]` (IPv6 without brackets).
fn host_of(origin: &str) -> Option<String> {
    let rest = origin.split_once("://")?.1;
    let host = match rest.strip_prefix('[') {
        Some(v6) => v6.split(']').next()?,
        None => rest.rsplit_once(':').map_or(rest, |(h, _)| h),
    };
    Some(host.to_ascii_lowercase())
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
    let saved = |area: &str| state[area].as_object().cloned().unwrap_or_default();
    let (local, session, indexeddb) = (
        saved("local_storage"),
        saved("session_storage"),
        saved("indexeddb"),
    );
    let mut not_restored = Map::new();
    let mut idb_restored = Vec::new();
    if !local.is_empty() || !indexeddb.is_empty() {
        idb_restored = restore_storage(ctx, &local, &indexeddb, &mut not_restored).await?;
        // Back to the caller's tab, unless the person works in the tab in
        // front for an agent: the work tab opened behind it, and so stays.
        let context = ctx.tab_info(tab)?.context;
        if super::person::person_front(ctx, context).is_none() {
            ctx.app
                .browser
                .call_value(Command::BringToFront { tab })
                .await?;
        }
    }
    let session = restore_session(ctx, &session, &mut not_restored).await?;
    Ok(ToolOutput::json(json!({
        "path": path,
        "cookies": cookies.len(),
        "origins": local.keys().collect::<Vec<_>>(),
        "session_storage": session,
        "indexeddb": idb_restored,
        "not_restored": not_restored,
    })))
}

/// Writes each origin's sessionStorage into the open tabs of that origin
/// (it belongs to a tab); returns the origins written.
async fn restore_session(
    ctx: &Ctx,
    session: &Map<String, Value>,
    not_restored: &mut Map<String, Value>,
) -> Result<Vec<String>, ToolError> {
    let mut restored = Vec::new();
    for (origin, items) in session {
        let want = crate::address::origin_of(origin);
        let tabs: Vec<TabId> = ctx
            .tab_ids()
            .into_iter()
            .filter(|id| {
                ctx.tab_info(*id)
                    .ok()
                    .and_then(|info| crate::address::origin_of(&info.url))
                    .is_some_and(|o| Some(o) == want)
            })
            .collect();
        if tabs.is_empty() {
            let why =
                "sessionStorage: no tab of this origin is open; open it and call state_load again";
            note(not_restored, origin, why.into());
            continue;
        }
        for tab in tabs {
            for (key, value) in items.as_object().into_iter().flatten() {
                let area = StorageArea::Session;
                let action = set_item(key, value);
                ctx.page_now(tab, Storage { area, action }).await?;
            }
        }
        restored.push(origin.clone());
    }
    Ok(restored)
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

/// Writes each origin's localStorage items and IndexedDB databases from a
/// document of that origin, made in a tab of its own (no request reaches
/// the site), then closes the tab. Returns the origins whose databases
/// were all written.
async fn restore_storage(
    ctx: &Ctx,
    local: &Map<String, Value>,
    indexeddb: &Map<String, Value>,
    not_restored: &mut Map<String, Value>,
) -> Result<Vec<String>, ToolError> {
    let mut idb_restored = Vec::new();
    let context = ctx.context()?;
    let opened = ctx
        .app
        .browser
        .call_value(Command::NewTab {
            url: None,
            behind: super::person::person_front(ctx, context).is_some(),
            context,
        })
        .await?;
    let tab: TabId = opened["id"]
        .as_u64()
        .ok_or_else(|| ToolError::internal("tab without id"))?;
    let mut origins: Vec<&String> = local.keys().chain(indexeddb.keys()).collect();
    origins.sort();
    origins.dedup();
    let result = async {
        ctx.wait_until_loaded(tab, Duration::from_secs(10)).await?;
        for origin in origins {
            if !(origin.starts_with("http://") || origin.starts_with("https://")) {
                note(not_restored, origin, "not an http(s) origin".into());
                continue;
            }
            let mut before = ctx.before(tab)?;
            let nav = Navigation::Html {
                html: RESTORE_PAGE.into(),
                base: format!("{origin}/"),
            };
            before.nav = match ctx.app.browser.navigate(tab, nav).await {
                Ok(navigation) => navigation.0,
                // An origin no tab may open (the browser's own server).
                Err(e) if e.code == ErrorCode::InvalidParams => {
                    note(not_restored, origin, e.message);
                    continue;
                }
                Err(e) => return Err(e),
            };
            ctx.settle(
                tab,
                &before,
                Duration::from_secs(3),
                Duration::from_secs(10),
            )
            .await?;
            for (key, value) in local
                .get(origin)
                .and_then(Value::as_object)
                .into_iter()
                .flatten()
            {
                let (area, action) = (StorageArea::Local, set_item(key, value));
                ctx.page_now(tab, Storage { area, action }).await?;
            }
            if let Some(databases) = indexeddb.get(origin) {
                let databases = databases.clone();
                let done = ctx.page_now(tab, IndexedDb::Restore { databases }).await;
                match done {
                    Ok(done) => {
                        let failed = done["failed"].as_array().filter(|f| !f.is_empty());
                        if failed.is_none() {
                            idb_restored.push(origin.clone());
                        }
                        for why in failed.into_iter().flatten() {
                            note(
                                not_restored,
                                origin,
                                format!("IndexedDB {}", why.as_str().unwrap_or_default()),
                            );
                        }
                    }
                    Err(e) => note(not_restored, origin, format!("IndexedDB: {}", e.message)),
                }
            }
        }
        Ok::<(), ToolError>(())
    }
    .await;
    let closed = ctx.app.browser.call_value(Command::CloseTab { tab }).await;
    result.and(closed.map(|_| idb_restored))
}

fn file_error(path: &std::path::Path, e: std::io::Error) -> ToolError {
    ToolError::new(ErrorCode::Internal, format!("{}: {e}", path.display()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cookie_domains_without_an_open_origin_are_listed() {
        let cookies = json!([
            {"name": "a", "domain": "127.0.0.1"},
            {"name": "b", "domain": ".example.test"},
            {"name": "c", "domain": "elsewhere.test"},
            {"name": "d", "domain": ".elsewhere.test"},
        ]);
        let read = [
            "http://127.0.0.1:8080".into(),
            "https://www.example.test".into(),
        ];
        assert_eq!(cookies_only(&cookies, &read), ["elsewhere.test"]);
        assert_eq!(host_of("http://[::1]:80").as_deref(), Some("::1"));
    }
}
