//! What the control panel sees live: the state (identity, sessions, tabs,
//! remembered identities, server addresses) when it changes, and every
//! tool call as it happens. Pushed over the panel's own WebSocket.

use crate::base::caller::Session;
use crate::tools::app::App;
use serde_json::{json, Value};
use std::sync::Arc;
use std::time::{Duration, Instant};
use tokio::sync::broadcast::error::RecvError;
use tokio::sync::mpsc::UnboundedSender;

/// How often the state is looked at, and the longest silence between pushes.
const CHECK_EVERY: Duration = Duration::from_millis(500);
const REFRESH_EVERY: Duration = Duration::from_secs(5);

pub async fn push(app: Arc<App>, me: Arc<Session>, out: UnboundedSender<String>) {
    let send = |event: &str, data: Value| {
        out.send(json!({"event": event, "data": data}).to_string())
            .is_ok()
    };
    let mut calls = app.calls.subscribe();
    if !send("calls", json!(app.calls.recent())) {
        return;
    }
    let mut last_seen = Value::Null;
    let mut last_sent = Instant::now() - REFRESH_EVERY;
    let mut tick = tokio::time::interval(CHECK_EVERY);
    loop {
        tokio::select! {
            _ = tick.tick() => {
                let state = state(&app, &me).await;
                let seen = without_clocks(&state);
                if seen != last_seen || last_sent.elapsed() >= REFRESH_EVERY {
                    if !send("state", state) {
                        return;
                    }
                    last_seen = seen;
                    last_sent = Instant::now();
                }
            }
            call = calls.recv() => match call {
                Ok(call) => {
                    if !send("call", json!(call)) {
                        return;
                    }
                }
                Err(RecvError::Lagged(_)) => continue,
                Err(RecvError::Closed) => return,
            },
        }
    }
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
        "nostr": app.nip07.state(),
    })
}

/// The state without what changes on its own (idle times), to tell a real change.
fn without_clocks(state: &Value) -> Value {
    let mut copy = state.clone();
    for session in copy["sessions"].as_array_mut().into_iter().flatten() {
        if let Value::Object(map) = session {
            map.remove("idle_ms");
        }
    }
    for prompt in copy["nostr"]["prompts"]
        .as_array_mut()
        .into_iter()
        .flatten()
    {
        if let Value::Object(map) = prompt {
            map.remove("expires_in_ms");
        }
    }
    copy
}
