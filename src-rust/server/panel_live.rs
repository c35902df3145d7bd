//! What the control panel sees live: the state (identity, sessions, tabs,
//! remembered identities, server addresses) when it changes, every tool
//! call as it happens, and the requests of the tab it watches. Pushed over
//! the panel's own WebSocket, woken by each part's own signal.

use crate::base::caller::Session;
use crate::base::context::DEFAULT_CONTEXT;
use crate::base::tab::{BrowserState, NetworkInfo, TabId};
use crate::tools::app::App;
use futures_util::future::BoxFuture;
use serde_json::{json, Value};
use std::sync::Arc;
use std::time::Duration;
use tokio::sync::broadcast::error::RecvError;
use tokio::sync::mpsc::Sender;
use tokio::sync::watch;
use tokio::time::Instant;

/// How often what has no signal of its own is looked at (a remote
/// signer's reachability), and the longest silence between pushes (the
/// idle times and the time requests have left move on their own).
const LOOK_EVERY: Duration = Duration::from_secs(2);
const REFRESH_EVERY: Duration = Duration::from_secs(5);
/// The shortest gap between two looks at the state: a burst of changes
/// (an agent's calls in a loop) costs the panel at most this many looks.
const LOOK_GAP: Duration = Duration::from_millis(50);
/// The newest requests of a watched tab that a push carries.
const REQUESTS_SHOWN: usize = 300;

/// What the last push of a tab's requests showed: the tab and the panel's
/// ask, and the tab's requests' state then (none once it closed).
type RequestsSeen = Option<((TabId, u64), Option<NetworkInfo>)>;

/// Pushes to the panel's connection: the state each time a part of it
/// changes, each call as it is logged. Each push waits for room in its
/// bounded queue (a panel that stops reading is sent nothing more), and
/// changes made meanwhile are pushed as one.
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
    let mut signals = Signals::new(&app);
    let mut last_seen = Value::Null;
    let mut last_sent = Instant::now() - REFRESH_EVERY;
    let mut requests_seen: RequestsSeen = None;
    let mut look = tokio::time::interval(LOOK_EVERY);
    look.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
    let mut looked = Instant::now() - LOOK_GAP;
    loop {
        tokio::select! {
            () = signals.changed() => {}
            _ = look.tick() => {}
            call = calls.recv() => {
                match call {
                    Ok(call) => {
                        if !send("call", json!(call)).await {
                            return;
                        }
                    }
                    Err(RecvError::Lagged(_)) => {}
                    Err(RecvError::Closed) => return,
                }
                continue;
            }
        }
        tokio::time::sleep_until(looked + LOOK_GAP).await;
        looked = Instant::now();
        // Whatever changed up to now is in what follows.
        signals.mark_seen();
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
}

/// The signals of everything the panel's state shows.
struct Signals {
    /// Tabs and their requests, as the main thread publishes them.
    browser: watch::Receiver<BrowserState>,
    paused: watch::Receiver<bool>,
    /// The identity, sessions, remembered identities, agents' requests for
    /// the person, window.nostr prompts and decisions, agent-scripted tabs.
    counters: Vec<watch::Receiver<u64>>,
}

impl Signals {
    fn new(app: &App) -> Signals {
        Signals {
            browser: app.browser.watch(),
            paused: app.paused.watch(),
            counters: vec![
                app.identity.watch_status(),
                app.sessions.watch(),
                app.remembered.watch(),
                app.asks.watch(),
                app.nip07.prompts.watch_list(),
                app.nip07.permissions.watch(),
                app.nip07.contexts.watch(),
                app.audit.watch(),
                app.recorder.watch(),
                app.nip07.agent_scripted.watch(),
                app.routing.watch(),
                app.vault_uses.watch(),
            ],
        }
    }

    /// Resolves at the next change of any of them (one not yet seen counts).
    async fn changed(&mut self) {
        let mut waits: Vec<BoxFuture<'_, ()>> = vec![
            Box::pin(changed(&mut self.browser)),
            Box::pin(changed(&mut self.paused)),
        ];
        waits.extend(
            self.counters
                .iter_mut()
                .map(|c| Box::pin(changed(c)) as BoxFuture<'_, ()>),
        );
        futures_util::future::select_all(waits).await;
    }

    /// Marks every change so far as seen.
    fn mark_seen(&mut self) {
        self.browser.mark_unchanged();
        self.paused.mark_unchanged();
        self.counters.iter_mut().for_each(|c| c.mark_unchanged());
    }
}

/// The next change of one signal; never, once its owner is gone.
async fn changed<T>(signal: &mut watch::Receiver<T>) {
    if signal.changed().await.is_err() {
        std::future::pending::<()>().await;
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
    let mut log = crate::tools::network::newest(app, tab, REQUESTS_SHOWN)
        .await
        .ok()?;
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
    let identities = app.identities.summaries();
    let mut sessions = app.sessions.list();
    let routed = app.routing.all();
    let engaged = app.routing.engaged_contexts();
    let (tabs, contexts, routes, proxied) = app.browser.peek(|browser| {
        let name_of = |id: u64| browser.context(id).map(|c| c.name.clone());
        // Each session and tab by its context's name.
        for session in &mut sessions {
            let id = session["context"].as_u64().unwrap_or(DEFAULT_CONTEXT);
            session["context"] = name_of(id).into();
        }
        let tabs: Vec<Value> = browser
            .tabs
            .iter()
            .map(|t| {
                let mut entry = t.json();
                entry["context"] = name_of(t.context).into();
                entry
            })
            .collect();
        let contexts: Vec<Value> = browser
            .contexts
            .iter()
            .map(|c| {
                let mut entry = c.json(browser.tabs_in(c.id).count());
                let identity = identities.iter().find(|(id, _)| *id == c.id);
                entry["identity"] = identity.map_or("Not logged in", |(_, s)| s).into();
                // The agents' sessions working there (panels are the person's).
                let bound = sessions
                    .iter()
                    .filter(|s| s["context"] == entry["context"] && s["transport"] != "panel")
                    .count();
                entry["sessions"] = bound.into();
                entry
            })
            .collect();
        // Each route, by its context's name: the person may remove any.
        let routes: Vec<Value> = routed
            .iter()
            .flat_map(|(context, list)| {
                list.iter().map(move |route| {
                    let mut entry = route.clone();
                    entry["context"] = name_of(*context).into();
                    entry
                })
            })
            .collect();
        // The contexts whose requests go through the routing proxy now.
        let proxied: Vec<Value> = engaged.iter().map(|c| name_of(*c).into()).collect();
        (tabs, contexts, routes, proxied)
    });
    let addr = app.security.addr;
    json!({
        "identity": app.identity.status().await,
        "sessions": sessions,
        "tabs": tabs,
        "contexts": contexts,
        "routes": {"persons_yes": app.routing.persons_yes(), "list": routes, "proxied": proxied},
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
        "paused": app.paused.is_paused(),
        "asks": asks(app),
        // Uses of the vault waiting for the person's yes.
        "vault_uses": app.vault_uses.list(),
        "nostr": app.nip07.state(),
        // The panel reads the audit (audit_log) when this moves.
        "audit_version": app.audit.version(),
        // And the recordings (record_sessions, record_steps).
        "record_version": app.recorder.version(),
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::base::caller::Transport;
    use crate::tools::fake_browser::FakeBrowser;
    use tokio::sync::mpsc;

    /// The next push of `event`, and how long it took to come.
    async fn next(pushed: &mut mpsc::Receiver<String>, event: &str) -> (Value, Duration) {
        let start = tokio::time::Instant::now();
        loop {
            let message: Value = serde_json::from_str(&pushed.recv().await.unwrap()).unwrap();
            if message["event"] == event {
                return (message["data"].clone(), start.elapsed());
            }
        }
    }

    // The panel's state was rebuilt and compared every 500 ms; now each
    // part's change wakes the push itself.
    #[tokio::test(start_paused = true)]
    async fn a_change_is_pushed_when_it_happens_not_at_the_next_look() {
        let (app, _fake) = FakeBrowser::app();
        let me = app.sessions.create(Transport::Panel).unwrap();
        let (out, mut pushed) = mpsc::channel(16);
        tokio::spawn(push(app.clone(), me, out));
        let (first, _) = next(&mut pushed, "state").await;
        assert_eq!(first["paused"], false);

        app.paused.set(true);
        let (state, took) = next(&mut pushed, "state").await;
        assert_eq!(state["paused"], true);
        assert!(took <= LOOK_GAP, "pushed after {took:?}");

        let (_id, _answer) = app
            .asks
            .start(
                1,
                "Enter the code",
                ("asker", "s1"),
                Duration::from_secs(60),
            )
            .unwrap();
        let (state, took) = next(&mut pushed, "state").await;
        assert_eq!(state["asks"][0]["message"], "Enter the code");
        assert!(took <= LOOK_GAP, "pushed after {took:?}");

        // Nothing changes: the next push is the refresh, not sooner.
        let (_, took) = next(&mut pushed, "state").await;
        assert!(took >= REFRESH_EVERY - LOOK_EVERY, "pushed after {took:?}");
    }
}
