//! The registry of MCP sessions and /agent connections: each has its own
//! current tab, and the panel lists them. Clients of the stateless MCP
//! revision have no session; each one seen (by its clientInfo) gets a
//! record here too, so the panel and the call log can name it.
//!
//! All of it is bounded (docs/security.md, "Bounds"): a client's
//! self-reported name, version and title are cut and kept on one line, the
//! rest of its clientInfo is dropped; stateless records are found by a hash
//! of those and the least recently used goes past [`STATELESS_MAX`];
//! sessions and connections past [`SESSIONS_MAX`] are refused.

use crate::base::bounded;
use crate::base::changes::Changes;
use crate::base::client_requests::ClientRequests;
use crate::base::context::{ContextId, DEFAULT_CONTEXT};
use crate::base::error::{ErrorCode, ToolError};
use crate::base::tab::TabId;
use crate::profile::random_hex;
use serde_json::{json, Map, Value};
use std::collections::HashMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};
use tokio::sync::watch;

/// Characters kept of each of a client's name, version and title.
pub const CLIENT_FIELD_MAX: usize = 64;
/// Stateless clients' records kept; past it the least recently used goes.
pub const STATELESS_MAX: usize = 256;
/// Sessions open at once on each transport: MCP sessions opened by
/// `initialize`, and `/agent` connections.
pub const SESSIONS_MAX: usize = 64;

/// The part of a clientInfo the browser keeps: name, version and title,
/// each a string cut to [`CLIENT_FIELD_MAX`] characters on one line.
pub fn kept_client_info(info: Option<&Value>) -> Value {
    let mut kept = Map::new();
    for field in ["name", "version", "title"] {
        if let Some(text) = info.and_then(|i| i.get(field)).and_then(Value::as_str) {
            kept.insert(
                field.into(),
                bounded::one_line(text, CLIENT_FIELD_MAX).into(),
            );
        }
    }
    Value::Object(kept)
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Transport {
    Mcp,
    Agent,
    /// The control panel's own connection.
    Panel,
}

/// Who is calling. The person owns the key and decides; agents are useful
/// but read untrusted pages, so they never answer for the person.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Principal {
    Person,
    Agent,
}

impl Transport {
    /// Only the control panel's connection, which takes the person's own
    /// key (see `server::guard`), speaks for the person.
    pub fn principal(self) -> Principal {
        match self {
            Transport::Panel => Principal::Person,
            Transport::Mcp | Transport::Agent => Principal::Agent,
        }
    }

    pub fn as_str(self) -> &'static str {
        match self {
            Transport::Mcp => "mcp",
            Transport::Agent => "agent",
            Transport::Panel => "panel",
        }
    }
}

/// What tools remember about tabs between calls: the frame they act in
/// (frame_switch) and the last snapshot (for `diff`). A session has its
/// own; stateless clients share one, the state of the tab itself.
#[derive(Default)]
pub struct TabMemory {
    /// The frame's ref, by tab, and the document it was chosen in.
    frames: Mutex<HashMap<TabId, (String, u64)>>,
    /// The snapshots of each tab `diff` and paging compare with.
    snapshots: Mutex<HashMap<TabId, KeptSnapshots>>,
    /// network_requests lists what came after this request id, by tab.
    network_marks: Mutex<HashMap<TabId, u64>>,
}

/// Tabs whose snapshots a session keeps (two each, up to the snapshot's
/// largest size): past it, the tab snapshotted longest ago is forgotten.
const KEPT_SNAPSHOT_TABS: usize = 16;

struct KeptSnapshots {
    /// What the newest snapshot is compared with.
    base: Option<(String, String)>,
    latest: Option<(String, String)>,
    /// Higher for the tab snapshotted more recently.
    stamp: u64,
}

pub struct Session {
    pub id: String,
    pub transport: Transport,
    /// A stateless client's record: no tab of its own (a call acts on the
    /// tab it names, else on the front tab), and the shared tab memory.
    pub stateless: bool,
    created: SystemTime,
    last_active: Mutex<Instant>,
    calls: AtomicU64,
    tab: Mutex<Option<TabId>>,
    /// The context its tab belongs to (the tab defines it; this remembers
    /// it once the tab has closed).
    context: Mutex<ContextId>,
    memory: Arc<TabMemory>,
    /// clientInfo and protocol version (from MCP initialize, or from a
    /// stateless request's _meta).
    client: Mutex<Option<(Value, String)>>,
    /// The tab whose requests the panel shows live (the panel's own
    /// session), and how many times it asked: each ask gets a fresh push.
    watched_requests: Mutex<(Option<TabId>, u64)>,
    /// The newest download it was given (wait_for_download, downloads).
    downloads_seen: AtomicU64,
    closed: watch::Sender<bool>,
    /// The sessions' signal to the panel (what it lists of this one changed).
    changes: Arc<Changes>,
    /// What the server asks this session's client (elicitation).
    pub client_requests: ClientRequests,
}

fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|e| e.into_inner())
}

impl Session {
    /// The newest download this session was given.
    pub fn downloads_seen(&self) -> u64 {
        self.downloads_seen.load(Ordering::Relaxed)
    }

    pub fn saw_download(&self, id: u64) {
        self.downloads_seen.fetch_max(id, Ordering::Relaxed);
    }

    fn new(transport: Transport, changes: Arc<Changes>) -> Session {
        Session {
            // 128 random bits: unguessable.
            id: random_hex(16),
            transport,
            stateless: false,
            created: SystemTime::now(),
            last_active: Mutex::new(Instant::now()),
            calls: AtomicU64::new(0),
            downloads_seen: AtomicU64::new(0),
            tab: Mutex::new(None),
            context: Mutex::new(DEFAULT_CONTEXT),
            memory: Arc::default(),
            client: Mutex::new(None),
            watched_requests: Mutex::new((None, 0)),
            closed: watch::channel(false).0,
            changes,
            client_requests: ClientRequests::default(),
        }
    }

    #[cfg(test)]
    pub fn for_tests() -> Session {
        Session::new(Transport::Mcp, Arc::default())
    }

    pub fn tab(&self) -> Option<TabId> {
        *lock(&self.tab)
    }

    /// Makes `tab` this session's (a stateless client has none to set).
    pub fn set_tab(&self, tab: Option<TabId>) {
        if !self.stateless {
            *lock(&self.tab) = tab;
        }
    }

    /// The context this session works in.
    pub fn context(&self) -> ContextId {
        *lock(&self.context)
    }

    /// Makes `context` this session's (a stateless client has none to set).
    pub fn set_context(&self, context: ContextId) {
        if !self.stateless {
            *lock(&self.context) = context;
        }
    }

    /// The ref of the frame this session's tools act in on `tab`, if any,
    /// while the tab shows the `document` (its count of committed loads)
    /// the frame was chosen in: a new document ends the choice.
    pub fn frame(&self, tab: TabId, document: u64) -> Option<String> {
        let mut frames = lock(&self.memory.frames);
        match frames.get(&tab) {
            Some((frame, chosen_in)) if *chosen_in == document => Some(frame.clone()),
            Some(_) => {
                frames.remove(&tab);
                None
            }
            None => None,
        }
    }

    /// Chooses the frame tools act in on `tab`, with the document it is in
    /// (none: the page itself). A session acts in one frame at a time; for
    /// stateless clients each tab keeps its own.
    pub fn set_frame(&self, tab: TabId, frame: Option<(String, u64)>) {
        let mut frames = lock(&self.memory.frames);
        if self.stateless {
            frames.remove(&tab);
        } else {
            frames.clear();
        }
        if let Some(frame) = frame {
            frames.insert(tab, frame);
        }
    }

    /// Forgets what this client kept of tabs that are closed (snapshots
    /// above all: on a big page two of them are hundreds of kilobytes).
    pub fn forget_closed_tabs(&self, is_open: impl Fn(TabId) -> bool) {
        lock(&self.memory.snapshots).retain(|tab, _| is_open(*tab));
        lock(&self.memory.frames).retain(|tab, _| is_open(*tab));
        lock(&self.memory.network_marks).retain(|tab, _| is_open(*tab));
    }

    /// Keeps this snapshot of a tab (of `document`) and gives back the one
    /// it is compared with, with its document: the previous one, or while
    /// the caller pages through a snapshot (`paging`), the one its first
    /// part was compared with, so every part shows the same changes.
    pub fn remember_snapshot(
        &self,
        tab: TabId,
        document: &str,
        text: &str,
        paging: bool,
    ) -> Option<(String, String)> {
        let mut kept = lock(&self.memory.snapshots);
        let stamp = kept.values().map(|k| k.stamp).max().unwrap_or(0) + 1;
        if kept.len() >= KEPT_SNAPSHOT_TABS && !kept.contains_key(&tab) {
            if let Some(oldest) = kept.iter().min_by_key(|(_, k)| k.stamp).map(|(t, _)| *t) {
                kept.remove(&oldest);
            }
        }
        let now = (document.to_string(), text.to_string());
        let entry = kept.entry(tab).or_insert_with(|| KeptSnapshots {
            base: None,
            latest: None,
            stamp,
        });
        entry.stamp = stamp;
        let latest = entry.latest.replace(now);
        if !paging {
            entry.base = latest;
        }
        entry.base.clone()
    }

    /// Which tab's requests the panel shows live (none: no tab's), and
    /// the number of its ask.
    pub fn watched_requests(&self) -> Option<(TabId, u64)> {
        let (tab, ask) = *lock(&self.watched_requests);
        tab.map(|tab| (tab, ask))
    }

    pub fn watch_requests(&self, tab: Option<TabId>) {
        {
            let mut watched = lock(&self.watched_requests);
            *watched = (tab, watched.1 + 1);
        }
        self.changes.bump();
    }

    /// The newest request id this client marked on `tab` (0: none).
    pub fn network_mark(&self, tab: TabId) -> u64 {
        lock(&self.memory.network_marks)
            .get(&tab)
            .copied()
            .unwrap_or(0)
    }

    pub fn set_network_mark(&self, tab: TabId, id: u64) {
        lock(&self.memory.network_marks).insert(tab, id);
    }

    /// Counts one more call; answers its number in the session, from 1.
    pub fn record_call(&self) -> u64 {
        let n = self.calls.fetch_add(1, Ordering::Relaxed) + 1;
        self.touch();
        self.changes.bump();
        n
    }

    pub fn touch(&self) {
        *lock(&self.last_active) = Instant::now();
    }

    pub fn idle_for(&self) -> Duration {
        lock(&self.last_active).elapsed()
    }

    /// The MCP client's name, when it gave one.
    pub fn client_name(&self) -> Option<String> {
        lock(&self.client)
            .as_ref()
            .and_then(|(info, _)| info["name"].as_str().map(String::from))
    }

    /// Keeps what the client says of itself (see [`kept_client_info`]).
    pub fn set_client(&self, info: &Value, protocol: &str) {
        let protocol = bounded::one_line(protocol, CLIENT_FIELD_MAX);
        *lock(&self.client) = Some((kept_client_info(Some(info)), protocol));
        self.changes.bump();
    }

    /// Resolves when the session ends.
    pub async fn closed(&self) {
        let mut rx = self.closed.subscribe();
        let _ = rx.wait_for(|closed| *closed).await;
    }

    fn close(&self) {
        self.closed.send_replace(true);
    }

    /// Public description for the panel.
    pub fn describe(&self) -> Value {
        let client = lock(&self.client).clone();
        let created = self
            .created
            .duration_since(UNIX_EPOCH)
            .map(|d| d.as_secs())
            .unwrap_or(0);
        json!({
            "id": self.id,
            "transport": self.transport.as_str(),
            "client": client.as_ref().map(|c| c.0.clone()),
            "protocol_version": client.as_ref().map(|c| c.1.clone()),
            "stateless": self.stateless,
            "created": created,
            "idle_ms": self.idle_for().as_millis() as u64,
            "calls": self.calls.load(Ordering::Relaxed),
            // Its id: whoever shows it names it (see the browser's contexts).
            "context": self.context(),
        })
    }
}

/// What finds a stateless client's record: its kept clientInfo and
/// protocol version.
type ClientKey = (String, String);

pub struct Sessions {
    map: Mutex<HashMap<String, Arc<Session>>>,
    /// Stateless records by client (their ids, in `map`).
    stateless: Mutex<HashMap<ClientKey, String>>,
    idle_limit: Duration,
    /// Shared by MCP requests that carry no session id (lenient mode).
    lenient: Arc<Session>,
    /// What stateless clients remember about tabs, shared by them all.
    stateless_memory: Arc<TabMemory>,
    /// Bumped when the tools offered change (MCP notifies its clients).
    tool_list: watch::Sender<u64>,
    /// Bumped when what [`Sessions::list`] shows changes (not idle times).
    changes: Arc<Changes>,
}

impl Sessions {
    pub fn new(idle_limit: Duration) -> Self {
        let changes = Arc::<Changes>::default();
        Sessions {
            map: Mutex::new(HashMap::new()),
            stateless: Mutex::new(HashMap::new()),
            idle_limit,
            lenient: Arc::new(Session::new(Transport::Mcp, changes.clone())),
            stateless_memory: Arc::default(),
            tool_list: watch::channel(0).0,
            changes,
        }
    }

    /// Wakes whenever what [`Sessions::list`] shows changes.
    pub fn watch(&self) -> watch::Receiver<u64> {
        self.changes.watch()
    }

    /// The record of a stateless MCP client, by the clientInfo it sends
    /// (self-reported: it names the client in the panel and the call log,
    /// and decides nothing). Created when first seen; expires when idle,
    /// as sessions do.
    pub fn stateless_client(&self, info: Option<&Value>, protocol: &str) -> Arc<Session> {
        let info = kept_client_info(info);
        let key = (
            info.to_string(),
            bounded::one_line(protocol, CLIENT_FIELD_MAX),
        );
        // Locked in this order everywhere: the index, then the map.
        let mut index = lock(&self.stateless);
        let mut map = lock(&self.map);
        if let Some(session) = index.get(&key).and_then(|id| map.get(id)) {
            session.touch();
            return session.clone();
        }
        index.retain(|_, id| map.contains_key(id));
        while index.len() >= STATELESS_MAX {
            let Some((oldest, id)) = index
                .iter()
                .filter_map(|(k, id)| Some((k, id, map.get(id)?.idle_for())))
                .max_by_key(|(_, _, idle)| *idle)
                .map(|(k, id, _)| (k.clone(), id.clone()))
            else {
                break;
            };
            index.remove(&oldest);
            if let Some(session) = map.remove(&id) {
                session.close();
            }
        }
        let session = Arc::new(Session {
            stateless: true,
            memory: self.stateless_memory.clone(),
            ..Session::new(Transport::Mcp, self.changes.clone())
        });
        *lock(&session.client) = Some((info, key.1.clone()));
        map.insert(session.id.clone(), session.clone());
        index.insert(key, session.id.clone());
        self.changes.bump();
        session
    }

    /// The tools offered changed: clients are told to list them again.
    pub fn tools_changed(&self) {
        self.tool_list.send_modify(|n| *n += 1);
    }

    /// Follows changes of the tools offered.
    pub fn watch_tools(&self) -> watch::Receiver<u64> {
        self.tool_list.subscribe()
    }

    /// A new session, unless [`SESSIONS_MAX`] of `transport`'s are open
    /// (the panel's own are not counted).
    pub fn create(&self, transport: Transport) -> Result<Arc<Session>, ToolError> {
        let mut map = lock(&self.map);
        if transport != Transport::Panel {
            let open = map
                .values()
                .filter(|s| s.transport == transport && !s.stateless)
                .count();
            if open >= SESSIONS_MAX {
                let what = match transport {
                    Transport::Agent => "/agent connections",
                    _ => "MCP sessions",
                };
                return Err(ToolError::new(
                    ErrorCode::Busy,
                    format!("{SESSIONS_MAX} {what} are open, the most the browser keeps; end one first (an idle MCP session ends after {} s)", self.idle_limit.as_secs()),
                ));
            }
        }
        let session = Arc::new(Session::new(transport, self.changes.clone()));
        map.insert(session.id.clone(), session.clone());
        self.changes.bump();
        Ok(session)
    }

    /// A live session by id (and marks it active).
    pub fn get(&self, id: &str) -> Option<Arc<Session>> {
        let session = lock(&self.map).get(id).cloned()?;
        session.touch();
        Some(session)
    }

    /// The session `id` if `transport` created it: an id never crosses
    /// transports (an MCP client that learnt the panel's session id must not
    /// speak as the panel, that is as the person).
    pub fn get_on(&self, id: &str, transport: Transport) -> Option<Arc<Session>> {
        let session = lock(&self.map)
            .get(id)
            .filter(|s| s.transport == transport && !s.stateless)
            .cloned()?;
        session.touch();
        Some(session)
    }

    /// Ends the session `id` if `transport` created it.
    pub fn remove_on(&self, id: &str, transport: Transport) -> bool {
        let ours = lock(&self.map)
            .get(id)
            .is_some_and(|s| s.transport == transport && !s.stateless);
        ours && self.remove(id)
    }

    pub fn remove(&self, id: &str) -> bool {
        let removed = lock(&self.map).remove(id);
        if removed.as_ref().is_some_and(|s| s.stateless) {
            lock(&self.stateless).retain(|_, kept| kept != id);
        }
        if let Some(session) = &removed {
            session.close();
            self.changes.bump();
        }
        removed.is_some()
    }

    pub fn lenient(&self) -> Arc<Session> {
        self.lenient.touch();
        self.lenient.clone()
    }

    /// Ends MCP sessions idle longer than the limit.
    pub fn expire(&self) -> usize {
        let expired: Vec<String> = lock(&self.map)
            .values()
            .filter(|s| s.transport == Transport::Mcp && s.idle_for() > self.idle_limit)
            .map(|s| s.id.clone())
            .collect();
        for id in &expired {
            tracing::info!(session = %id, "MCP session expired");
            self.remove(id);
        }
        expired.len()
    }

    pub fn idle_limit(&self) -> Duration {
        self.idle_limit
    }

    /// Sessions open on `transport` (stateless records not counted).
    pub fn open(&self, transport: Transport) -> usize {
        lock(&self.map)
            .values()
            .filter(|s| s.transport == transport && !s.stateless)
            .count()
    }

    pub fn list(&self) -> Vec<Value> {
        lock(&self.map).values().map(|s| s.describe()).collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sessions_are_found_removed_and_expired() {
        let sessions = Sessions::new(Duration::from_millis(10));
        let a = sessions.create(Transport::Mcp).unwrap();
        let b = sessions.create(Transport::Agent).unwrap();
        assert_ne!(a.id, b.id);
        assert_eq!(a.id.len(), 32);
        assert!(sessions.get(&a.id).is_some());
        std::thread::sleep(Duration::from_millis(20));
        assert_eq!(sessions.expire(), 1, "only the MCP session expires");
        assert!(sessions.get(&a.id).is_none());
        assert!(sessions.get(&b.id).is_some());
        assert!(sessions.remove(&b.id));
        assert!(!sessions.remove(&b.id));
    }

    #[test]
    fn each_session_has_its_own_tab() {
        let sessions = Sessions::new(Duration::from_secs(60));
        let a = sessions.create(Transport::Mcp).unwrap();
        let b = sessions.create(Transport::Mcp).unwrap();
        a.set_tab(Some(3));
        assert_eq!(a.tab(), Some(3));
        assert_eq!(b.tab(), None);
        a.set_tab(None);
        assert_eq!(a.tab(), None);
    }

    #[test]
    fn stateless_clients_get_one_record_each_and_share_tab_memory() {
        let sessions = Sessions::new(Duration::from_secs(60));
        let a = json!({"name": "a", "version": "1"});
        let first = sessions.stateless_client(Some(&a), "2026-07-28");
        let again = sessions.stateless_client(Some(&a), "2026-07-28");
        assert_eq!(first.id, again.id);
        let b = sessions.stateless_client(Some(&json!({"name": "b"})), "2026-07-28");
        assert_ne!(first.id, b.id);
        assert_eq!(sessions.list().len(), 2);
        assert_eq!(b.client_name().as_deref(), Some("b"));
        // No tab of their own; a frame chosen on a tab is the tab's.
        first.set_tab(Some(4));
        assert_eq!(first.tab(), None);
        first.set_frame(4, Some(("f1".into(), 1)));
        b.set_frame(5, Some(("f2".into(), 1)));
        assert_eq!(b.frame(4, 1).as_deref(), Some("f1"));
        assert_eq!(first.frame(5, 1).as_deref(), Some("f2"));
        b.set_frame(4, None);
        assert_eq!(first.frame(4, 1), None);
        assert_eq!(first.frame(5, 1).as_deref(), Some("f2"));
        // Not a session a legacy client could name.
        assert!(sessions.get_on(&first.id, Transport::Mcp).is_none());
        assert!(!sessions.remove_on(&first.id, Transport::Mcp));
    }

    #[test]
    fn what_a_session_kept_of_closed_tabs_goes() {
        let sessions = Sessions::new(Duration::from_secs(60));
        let s = sessions.create(Transport::Mcp).unwrap();
        for tab in 1..=3 {
            s.remember_snapshot(tab, "doc", "tree", false);
            s.set_network_mark(tab, 9);
        }
        s.set_frame(2, Some(("f".into(), 1)));
        s.forget_closed_tabs(|tab| tab == 2);
        assert_eq!(
            s.remember_snapshot(2, "doc", "new", false),
            Some(("doc".into(), "tree".into())),
            "the open tab keeps its snapshot"
        );
        assert_eq!(
            s.remember_snapshot(1, "doc", "new", false),
            None,
            "a closed tab's went"
        );
        assert_eq!(s.network_mark(3), 0, "a closed tab's mark went");
        assert_eq!(
            (s.frame(2, 1).as_deref(), s.network_mark(2)),
            (Some("f"), 9)
        );
    }

    #[test]
    fn a_session_acts_in_one_frame_at_a_time() {
        let sessions = Sessions::new(Duration::from_secs(60));
        let s = sessions.create(Transport::Mcp).unwrap();
        s.set_frame(1, Some(("f1".into(), 1)));
        s.set_frame(2, Some(("f2".into(), 1)));
        assert_eq!(s.frame(1, 1), None);
        assert_eq!(s.frame(2, 1).as_deref(), Some("f2"));
        s.set_frame(7, None);
        assert_eq!(s.frame(2, 1), None);
    }

    #[test]
    fn a_new_document_in_the_tab_ends_the_frame_choice() {
        let sessions = Sessions::new(Duration::from_secs(60));
        let s = sessions.create(Transport::Mcp).unwrap();
        s.set_frame(1, Some(("f1".into(), 3)));
        assert_eq!(s.frame(1, 3).as_deref(), Some("f1"));
        assert_eq!(s.frame(1, 4), None);
        assert_eq!(s.frame(1, 3), None, "ended for good");
    }

    #[test]
    fn a_session_id_never_crosses_transports() {
        let sessions = Sessions::new(Duration::from_secs(60));
        let panel = sessions.create(Transport::Panel).unwrap();
        assert!(sessions.get_on(&panel.id, Transport::Mcp).is_none());
        assert!(!sessions.remove_on(&panel.id, Transport::Mcp));
        assert!(sessions.get_on(&panel.id, Transport::Panel).is_some());
        let mcp = sessions.create(Transport::Mcp).unwrap();
        assert!(sessions.get_on(&mcp.id, Transport::Mcp).is_some());
        assert!(sessions.remove_on(&mcp.id, Transport::Mcp));
    }

    #[test]
    fn a_client_is_known_by_its_cut_name_version_and_title_and_the_rest_is_dropped() {
        let sessions = Sessions::new(Duration::from_secs(60));
        let padded = json!({"name": "a\nb", "version": "1", "pad": "x".repeat(1 << 20)});
        let first = sessions.stateless_client(Some(&padded), "2026-07-28");
        let other_pad = json!({"name": "a\nb", "version": "1", "pad": "y"});
        let again = sessions.stateless_client(Some(&other_pad), "2026-07-28");
        assert_eq!(
            first.id, again.id,
            "what is dropped does not tell clients apart"
        );
        let described = first.describe();
        assert_eq!(described["client"], json!({"name": "a b", "version": "1"}));
        let long = json!({"name": "n".repeat(10_000)});
        let named = sessions.stateless_client(Some(&long), "2026-07-28");
        assert!(named.client_name().unwrap().chars().count() < CLIENT_FIELD_MAX + 30);
    }

    #[test]
    fn stateless_records_are_bounded_and_the_least_recently_used_goes() {
        let sessions = Sessions::new(Duration::from_secs(60));
        let client = |i: usize| json!({"name": "flood", "version": i.to_string()});
        let first = sessions.stateless_client(Some(&client(0)), "2026-07-28");
        for i in 1..STATELESS_MAX + 50 {
            sessions.stateless_client(Some(&client(i)), "2026-07-28");
            // The first client stays in use.
            if i % 10 == 0 {
                sessions.stateless_client(Some(&client(0)), "2026-07-28");
            }
        }
        assert_eq!(sessions.list().len(), STATELESS_MAX);
        let still = sessions.stateless_client(Some(&client(0)), "2026-07-28");
        assert_eq!(still.id, first.id, "the client in use was kept");
    }

    #[test]
    fn sessions_past_the_bound_are_refused_busy_and_the_panel_is_not_counted() {
        let sessions = Sessions::new(Duration::from_secs(60));
        let open: Vec<_> = (0..SESSIONS_MAX)
            .map(|_| sessions.create(Transport::Agent).unwrap())
            .collect();
        let refused = sessions.create(Transport::Agent).err().unwrap();
        assert_eq!(refused.code, ErrorCode::Busy);
        assert!(sessions.create(Transport::Mcp).is_ok());
        assert!(sessions.create(Transport::Panel).is_ok());
        sessions.remove(&open[0].id);
        assert!(sessions.create(Transport::Agent).is_ok());
    }
}
