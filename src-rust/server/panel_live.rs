//! What the control panel sees live: the state (identity, sessions, tabs,
//! remembered identities, server addresses) when it changes, every tool
//! call as it happens, and the requests of the tab it watches. Pushed over
//! the panel's own WebSocket.

use crate::base::caller::Session;
use crate::base::tab::{NetworkInfo, TabId};
use crate::bridge::Command;
use crate::tools::app::App;
use serde_json::{json, Value};
use std::sync::Arc;
use std::time::{Duration, Instant};
use tokio::sync::broadcast::error::RecvError;
use tokio::sync::mpsc::Sender;

/// How often the state is looked at, and the longest silence between pushes.
const CHECK_EVERY: Duration = Duration::from_millis(500);
const REFRESH_EVERY: Duration = Duration::from_secs(5);
/// The newest requests of a watched tab that a push carries.
const REQUESTS_SHOWN: usize = 300;

/// What the last push of a tab's requests showed: the tab and the panel's
/// ask, and the tab's requests' state then (none once it closed).
type RequestsSeen = Option<((TabId, u64), Option<NetworkInfo>)>;

/// Pushes to the panel's connection; each push waits for room in its
/// bounded queue (a panel that stops reading is sent nothing more).
pub async fn push(app: Arc<App>, me: Arc<Session>, out: Sender<String>) {
    let send = |event: &str, data: Value| {
        let out = out.clone();
        let text = json!({"event": event, "data": data}).to_string();
        async move { out.send(text).await.is_ok() }
    };
    let mut calls = app.calls.subscribe();
    if !send("calls", json!(app.calls.recent())).await {
        return;
    }
    let mut last_seen = Value::Null;
    let mut last_sent = Instant::now() - REFRESH_EVERY;
    let mut requests_seen: RequestsSeen = None;
    let mut tick = tokio::time::interval(CHECK_EVERY);
    loop {
        tokio::select! {
            _ = tick.tick() => {
                let state = state(&app, &me).await;
                let seen = without_clocks(&state);
                if seen != last_seen || last_sent.elapsed() >= REFRESH_EVERY {
                    if !send("state", state).await {
                        return;
                    }
                    last_seen = seen;
                    last_sent = Instant::now();
                }
                if let Some(update) = requests(&app, me.watched_requests(), &mut requests_seen).await {
                    if !send("requests", update).await {
                        return;
                    }
                }
            }
            call = calls.recv() => match call {
                Ok(call) => {
                    if !send("call", json!(call)).await {
                        return;
                    }
                }
                Err(RecvError::Lagged(_)) => continue,
                Err(RecvError::Closed) => return,
            },
        }
    }
}

/// The watched tab's newest requests, when they changed since `seen`.
async fn requests(
    app: &App,
    watched: Option<(TabId, u64)>,
    seen: &mut RequestsSeen,
) -> Option<Value> {
    let Some((tab, ask)) = watched else {
        *seen = None;
        return None;
    };
    let now = (
        (tab, ask),
        app.browser.tab_info(tab).ok().map(|t| t.network),
    );
    if *seen == Some(now) {
        return None;
    }
    *seen = Some(now);
    if now.1.is_none() {
        return Some(json!({"tab": tab, "closed": true, "requests": []}));
    }
    // Only the newest leave the main thread; each one's URL is cut already.
    let command = Command::NetworkList {
        tab,
        after: 0,
        all: true,
        last: REQUESTS_SHOWN,
    };
    let mut log = app.browser.call_value(command).await.ok()?;
    let shown = log["requests"]
        .as_array_mut()
        .map(std::mem::take)
        .unwrap_or_default();
    let matched = log["matched"].as_u64().unwrap_or(0) as usize;
    let left_out = matched.saturating_sub(shown.len());
    Some(json!({
        "tab": tab,
        "requests": shown,
        "left_out": left_out,
        "dropped": log["dropped"],
    }))
}

async fn state(app: &App, me: &Session) -> Value {
    let tabs: Vec<Value> = app.browser.state().tabs.iter().map(|t| t.json()).collect();
    let addr = app.security.addr;
    json!({
        "identity": app.identity.status().await,
        "sessions": app.sessions.list(),
        "tabs": tabs,
        "remembered": app.remembered.list()["identities"],
        "remembered_damaged": app.remembered.damaged(),
        "server": {
            "address": format!("http://{addr}"),
            "mcp_url": format!("http://{addr}/mcp"),
            "agent_url": format!("ws://{addr}/agent"),
            "version": env!("CARGO_PKG_VERSION"),
            "token_required": app.security.token.is_some(),
            // For the clients' set-up snippets: only the person's panel is sent this.
            "agent_token": app.security.token,
        },
        "you": me.id,
        "paused": app.paused.load(std::sync::atomic::Ordering::SeqCst),
        "asks": asks(app),
        "nostr": app.nip07.state(),
    })
}

/// Agents' requests for the person, with the time each has left.
fn asks(app: &App) -> Vec<Value> {
    app.asks
        .list()
        .into_iter()
        .map(|ask| {
            let left = ask.left().as_millis() as u64;
            // An agent ran its own script in the tab: what the person types may reach it.
            let scripted = app.nip07.agent_scripted.contains(ask.tab);
            let mut entry = json!(ask);
            entry["expires_in_ms"] = left.into();
            entry["agent_scripted"] = scripted.into();
            entry
        })
        .collect()
}

/// The state without what changes on its own (idle times, time left), to
/// tell a real change.
fn without_clocks(state: &Value) -> Value {
    let mut copy = state.clone();
    remove_from_each(&mut copy["sessions"], "idle_ms");
    remove_from_each(&mut copy["nostr"]["prompts"], "expires_in_ms");
    remove_from_each(&mut copy["asks"], "expires_in_ms");
    copy
}

/// Removes `field` from each object of the array `list`.
fn remove_from_each(list: &mut Value, field: &str) {
    for item in list.as_array_mut().into_iter().flatten() {
        if let Value::Object(map) = item {
            map.remove(field);
        }
    }
}
