//! Tabs as every layer names them, and the state the main thread publishes
//! about each one from WebKit's own signals.

use super::context::{ContextId, ContextInfo, DEFAULT_CONTEXT};
use super::error::{ErrorCode, ToolError};
use serde::Serialize;
use serde_json::{json, Value};
use std::collections::BTreeSet;
use std::time::{Duration, Instant};

/// Stable identity of a tab (indexes shift when tabs close; ids do not).
pub type TabId = u64;

/// Counters of a tab's navigations. A navigation is done when as many
/// main-frame loads finished (or failed) as started.
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct NavCounters {
    /// Navigations asked for: by the browser (open, back, reload...) or by
    /// a person's or agent's gesture in the page (a link, a form), counted
    /// when WebKit asks whether to follow them, before any load starts.
    pub requested: u64,
    pub started: u64,
    pub committed: u64,
    pub finished: u64,
    /// Loads that became downloads (the response was a file to save).
    pub diverted: u64,
    /// New windows a gesture asked for (a target=_blank link): WebKit
    /// decides on them before the tab for them opens.
    pub windows: u64,
    /// Moves within the document (a fragment, pushState, a history step
    /// between such entries): the address changed with no load.
    pub moved_within: u64,
    /// The `started` count of the newest load that was cancelled (a newer
    /// navigation superseded it; 0: none): its end is no navigation's end.
    pub cancelled: u64,
}

/// The last load that failed: the `started` count it belongs to, and why.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct LoadFailure {
    pub seq: u64,
    pub message: String,
}

/// A JavaScript dialog waiting for an answer.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct DialogInfo {
    /// alert, confirm, prompt or beforeunload.
    #[serde(rename = "type")]
    pub kind: &'static str,
    pub message: String,
    pub default_text: Option<String>,
}

/// Requests of the tab's pages: in flight, and the newest in its log.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct NetworkInfo {
    pub inflight: u32,
    /// When a request last started or ended.
    pub last_change: Instant,
    /// The id of the newest request in the tab's network log (0: none yet).
    pub newest_request: u64,
    /// The id of the newest request still in flight (0: none is): the
    /// requests started after id N have all ended when this is at most N.
    pub newest_inflight: u64,
}

impl NetworkInfo {
    /// How long no request has been in flight (zero while one is).
    pub fn quiet_for(&self) -> Duration {
        if self.inflight == 0 {
            self.last_change.elapsed()
        } else {
            Duration::ZERO
        }
    }
}

impl Default for NetworkInfo {
    fn default() -> Self {
        NetworkInfo {
            inflight: 0,
            last_change: Instant::now(),
            newest_request: 0,
            newest_inflight: 0,
        }
    }
}

/// What happened to one of a tab's requests (by its id in the tab's log).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum NetworkChange {
    Started(u64),
    Ended(u64),
    /// Its next hop is a new entry in the log; it is still in flight.
    Redirected {
        from: u64,
        to: u64,
    },
}

/// How many requests in flight a tab keeps count of.
const REQUESTS_IN_FLIGHT_MAX: usize = 4096;

/// The log ids of a tab's requests in flight: an action waits for those
/// newer than its start.
#[derive(Debug, Default)]
pub struct RequestsInFlight {
    ids: BTreeSet<u64>,
}

impl RequestsInFlight {
    pub fn apply(&mut self, change: NetworkChange) {
        match change {
            NetworkChange::Started(id) => {
                // Bounded: a request WebKit never reports ended is forgotten
                // first (waits only look at requests newer than an action).
                if self.ids.len() >= REQUESTS_IN_FLIGHT_MAX {
                    self.ids.pop_first();
                }
                self.ids.insert(id);
            }
            NetworkChange::Ended(id) => {
                self.ids.remove(&id);
            }
            NetworkChange::Redirected { from, to } => {
                self.ids.remove(&from);
                self.ids.insert(to);
            }
        }
    }

    pub fn count(&self) -> u32 {
        u32::try_from(self.ids.len()).unwrap_or(u32::MAX)
    }

    /// The newest id in flight (0: none is).
    pub fn newest(&self) -> u64 {
        self.ids.last().copied().unwrap_or(0)
    }
}

/// One tab as the tools see it.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct TabInfo {
    pub id: TabId,
    /// The context it belongs to (its website data and window).
    pub context: ContextId,
    /// Its place in its window's tab strip.
    pub index: usize,
    pub url: String,
    pub title: String,
    pub loading: bool,
    /// A beforeunload prompt was answered "stay": the page was not left.
    pub stayed: bool,
    /// The tab shown in its window.
    pub front: bool,
    /// The tab whose page opened this one.
    pub opener: Option<TabId>,
    pub nav: NavCounters,
    pub failure: Option<LoadFailure>,
    pub dialog: Option<DialogInfo>,
    /// The page's web process ended, and why; until the tab loads a page again.
    pub crashed: Option<PageEnd>,
    pub network: NetworkInfo,
    /// A site asks for HTTP authentication nobody answered: where, and its realm.
    pub auth_required: Option<String>,
    /// Files are armed for the tab's next file chooser.
    pub upload_pending: bool,
    /// A load failed and WebKit's error page for it has not loaded yet.
    pub error_page_pending: bool,
}

/// Why a tab's page is gone: its web process ended under it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PageEnd {
    Crashed,
    /// Ended for holding more memory than a page may (`--page-memory-mb`).
    OutOfMemory,
    /// Ended on purpose (by the browser, or killed from outside).
    Ended,
}

impl PageEnd {
    pub fn as_str(self) -> &'static str {
        match self {
            PageEnd::Crashed => "crashed",
            PageEnd::OutOfMemory => "out_of_memory",
            PageEnd::Ended => "ended",
        }
    }

    /// What happened to the page, for a sentence: "the page {why}".
    pub fn why(self) -> &'static str {
        match self {
            PageEnd::Crashed => "crashed",
            PageEnd::OutOfMemory => "ran out of memory",
            PageEnd::Ended => "was ended",
        }
    }

    /// What an agent acting on the tab's page gets, and how to go on.
    pub fn error(self, tab: TabId) -> ToolError {
        let why = self.why();
        ToolError::new(
            ErrorCode::PageCrashed,
            format!("tab {tab}'s page {why} (its web process is gone) and there is nothing to act on: reload or open a page in it, or close it (tab_close); the other tabs are unharmed"),
        )
    }
}

impl TabInfo {
    /// The entry tab_list and the panel show.
    pub fn json(&self) -> Value {
        let mut entry = json!({
            "id": self.id,
            "index": self.index,
            "url": self.url,
            "title": self.title,
            "loading": self.loading,
            "stayed": self.stayed,
            "front": self.front,
            "opener": self.opener,
        });
        if let Some(end) = self.crashed {
            entry["crashed"] = end.as_str().into();
        }
        entry
    }

    /// Whether a main-frame load is still under way. A tab that never
    /// finished a load is still loading its first page (every tab starts one).
    pub fn is_busy(&self) -> bool {
        self.nav.finished == 0 || self.nav.finished < self.nav.started || self.error_page_pending
    }
}

/// How a download went.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum DownloadState {
    InProgress,
    Done,
    Failed,
}

/// One download of this run.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct DownloadInfo {
    pub id: u64,
    /// The context whose page started it.
    #[serde(skip)]
    pub context: crate::base::context::ContextId,
    pub url: String,
    pub path: String,
    pub state: DownloadState,
    /// Bytes received so far (all of them once done).
    pub bytes: u64,
    /// The size the server announced, when it did.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub total: Option<u64>,
    /// Why it failed.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub failure: Option<String>,
}

/// Everything the main thread publishes: the open contexts, the tabs (by
/// context, each in strip order), and the downloads of this run in the
/// order they started.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BrowserState {
    pub contexts: Vec<ContextInfo>,
    pub tabs: Vec<TabInfo>,
    pub downloads: Vec<DownloadInfo>,
}

impl Default for BrowserState {
    fn default() -> Self {
        BrowserState {
            contexts: vec![ContextInfo::default_context()],
            tabs: Vec::new(),
            downloads: Vec::new(),
        }
    }
}

impl BrowserState {
    pub fn tab(&self, id: TabId) -> Option<&TabInfo> {
        self.tabs.iter().find(|t| t.id == id)
    }

    /// The tab in front of the person's (default) context's window.
    pub fn front(&self) -> Option<&TabInfo> {
        self.front_in(DEFAULT_CONTEXT)
    }

    /// The tab in front of a context's window.
    pub fn front_in(&self, context: ContextId) -> Option<&TabInfo> {
        self.tabs.iter().find(|t| t.front && t.context == context)
    }

    /// Every open tab, in order.
    pub fn tab_ids(&self) -> Vec<TabId> {
        self.tabs.iter().map(|t| t.id).collect()
    }

    /// A context's tabs, in its strip's order.
    pub fn tabs_in(&self, context: ContextId) -> impl Iterator<Item = &TabInfo> {
        self.tabs.iter().filter(move |t| t.context == context)
    }

    pub fn context(&self, id: ContextId) -> Option<&ContextInfo> {
        self.contexts.iter().find(|c| c.id == id)
    }

    pub fn context_named(&self, name: &str) -> Option<&ContextInfo> {
        self.contexts.iter().find(|c| c.name == name)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_tab_is_busy_until_its_loads_finished() {
        let mut tab = TabInfo::default();
        assert!(tab.is_busy(), "the first page is still loading");
        tab.nav = NavCounters {
            requested: 1,
            started: 1,
            committed: 1,
            finished: 1,
            diverted: 0,
            windows: 0,
            moved_within: 0,
            cancelled: 0,
        };
        assert!(!tab.is_busy());
        tab.nav.started = 2;
        assert!(tab.is_busy());
    }

    #[test]
    fn requests_in_flight_follow_starts_redirects_and_ends() {
        let mut r = RequestsInFlight::default();
        assert_eq!((r.count(), r.newest()), (0, 0));
        r.apply(NetworkChange::Started(3));
        r.apply(NetworkChange::Started(5));
        assert_eq!((r.count(), r.newest()), (2, 5));
        // A redirect's next hop is a newer entry, still in flight.
        r.apply(NetworkChange::Redirected { from: 3, to: 6 });
        assert_eq!((r.count(), r.newest()), (2, 6));
        r.apply(NetworkChange::Ended(6));
        assert_eq!((r.count(), r.newest()), (1, 5));
        // An end twice, or of a request never seen, changes nothing.
        r.apply(NetworkChange::Ended(6));
        r.apply(NetworkChange::Ended(99));
        assert_eq!((r.count(), r.newest()), (1, 5));
        r.apply(NetworkChange::Ended(5));
        assert_eq!((r.count(), r.newest()), (0, 0));
    }

    #[test]
    fn requests_in_flight_are_bounded_oldest_first() {
        let mut r = RequestsInFlight::default();
        for id in 1..=(REQUESTS_IN_FLIGHT_MAX as u64 + 10) {
            r.apply(NetworkChange::Started(id));
        }
        assert_eq!(r.count() as usize, REQUESTS_IN_FLIGHT_MAX);
        assert_eq!(r.newest(), REQUESTS_IN_FLIGHT_MAX as u64 + 10);
        // The oldest were forgotten: their ends change nothing.
        r.apply(NetworkChange::Ended(1));
        assert_eq!(r.count() as usize, REQUESTS_IN_FLIGHT_MAX);
    }

    #[test]
    fn quiet_time_counts_only_when_nothing_is_in_flight() {
        let earlier = Instant::now() - Duration::from_millis(50);
        let busy = NetworkInfo {
            inflight: 1,
            last_change: earlier,
            newest_request: 3,
            newest_inflight: 3,
        };
        assert_eq!(busy.quiet_for(), Duration::ZERO);
        let quiet = NetworkInfo {
            inflight: 0,
            last_change: earlier,
            newest_request: 3,
            newest_inflight: 0,
        };
        assert!(quiet.quiet_for() >= Duration::from_millis(50));
    }
}
