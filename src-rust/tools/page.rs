//! Shared steps of the tools that act on a page: which tab, waiting for
//! loads, calling the agent library, naming a target element.

use super::Ctx;
use crate::base::context::{ContextId, DEFAULT_CONTEXT};
use crate::base::error::{ErrorCode, ToolError};
use crate::base::tab::{BrowserState, DownloadInfo, DownloadState, NavCounters, TabInfo};
use crate::bridge::{tab_closed, Command, TabId};
use crate::identity::IdentityState;
use crate::page_protocol::{self, ops, Operation, PageInfo, Target};
use serde_json::{json, Value};
use std::sync::Arc;
use std::time::Duration;

/// How often waits that look at the page itself look again.
pub const POLL: Duration = Duration::from_millis(25);

/// How long a navigation asked for may take to start loading: WebKit
/// decides on it, then the page's process (or a new one) begins the load.
/// A gesture that navigated only a frame never starts a tab load, and
/// waits this long.
pub const START_GRACE: Duration = Duration::from_millis(500);

impl Ctx {
    /// The tab a call names by its id, else this session's tab.
    pub async fn tab_for(&self, handle: Option<TabId>) -> Result<TabId, ToolError> {
        let Some(tab) = handle else {
            return self.tab().await;
        };
        match self.app.browser.tab_info(tab) {
            Ok(_) => Ok(tab),
            Err(_) => Err(ToolError::new(
                ErrorCode::NoTab,
                format!("no tab {tab} is open (it closed, or never was); tab_list gives the open tabs' ids"),
            )),
        }
    }

    /// This session's tab: the one it switched to, else the front tab of
    /// its context. A stateless client has none of its own and always gets
    /// the front tab of the person's context.
    pub async fn tab(&self) -> Result<TabId, ToolError> {
        if let Some(tab) = self.session.tab() {
            if self.app.browser.tab_info(tab).is_ok() {
                return Ok(tab);
            }
            // Closed since the session's last call (by its page, the person
            // or another session): the session moves to the front tab.
            self.session.set_tab(None);
        }
        let context = self.context()?;
        self.front_tab_of(context)
    }

    /// The tab this session acts on in `context`: its own tab when it is
    /// there, else the front tab of the context's window (made its own).
    pub fn tab_in(&self, context: ContextId) -> Result<TabId, ToolError> {
        let own = self.session.tab().and_then(|t| {
            self.app
                .browser
                .peek(|state| state.tab(t).map(|tab| (tab.id, tab.context)))
        });
        match own {
            Some((tab, there)) if there == context => Ok(tab),
            _ => self.front_tab_of(context),
        }
    }

    fn front_tab_of(&self, context: ContextId) -> Result<TabId, ToolError> {
        let front = self
            .app
            .browser
            .peek(|state| state.front_in(context).map(|t| t.id));
        let id = front.ok_or_else(|| ToolError::new(ErrorCode::NoTab, "no tab is open"))?;
        // Pin it: tabs that pages open later must not steal this session.
        self.session.set_tab(Some(id));
        self.session.set_context(context);
        Ok(id)
    }

    /// The context this session works in: its tab's (the tab defines it),
    /// else the one its tab was in. A context closed under it ends its
    /// calls there once, with NO_CONTEXT; it then works in the person's.
    pub fn context(&self) -> Result<ContextId, ToolError> {
        let own_tab = self.session.tab();
        let remembered = self.session.context();
        let (of_tab, open) = self.app.browser.peek(|state| {
            let of_tab = own_tab.and_then(|t| state.tab(t)).map(|t| t.context);
            (of_tab, state.context(remembered).is_some())
        });
        if let Some(context) = of_tab {
            self.session.set_context(context);
            return Ok(context);
        }
        if open {
            return Ok(remembered);
        }
        self.session.set_context(DEFAULT_CONTEXT);
        self.session.set_tab(None);
        Err(ToolError::new(
            ErrorCode::NoContext,
            "the context this session worked in was closed, and its tabs with it; the next call works in the default context (context_list gives the open ones)",
        ))
    }

    /// The identity of this session's context.
    pub fn identity(&self) -> Result<Arc<IdentityState>, ToolError> {
        Ok(self.app.identities.of(self.context()?))
    }

    /// The context `name` names, else this session's.
    pub fn context_named(&self, name: Option<&str>) -> Result<ContextId, ToolError> {
        let Some(name) = name else {
            return self.context();
        };
        let found = self
            .app
            .browser
            .peek(|state| state.context_named(name).map(|c| c.id));
        found.ok_or_else(|| {
            ToolError::new(
                ErrorCode::NoContext,
                format!(
                    "context: no context named {name} is open; context_list gives the open ones"
                ),
            )
        })
    }

    /// The ids of this session's context's tabs, in strip order.
    pub fn tab_ids(&self) -> Vec<TabId> {
        let Ok(context) = self.context() else {
            return Vec::new();
        };
        self.app
            .browser
            .peek(|state| state.tabs_in(context).map(|t| t.id).collect())
    }

    /// The tab as the browser last published it.
    pub fn tab_info(&self, tab: TabId) -> Result<TabInfo, ToolError> {
        self.app.browser.tab_info(tab)
    }

    /// The frame this session chose on `tab` with frame_switch, while the
    /// document it was chosen in lasts (however the tab left it).
    pub fn frame(&self, tab: TabId) -> Option<String> {
        let document = self.app.browser.state().tab(tab)?.nav.committed;
        self.session.frame(tab, document)
    }

    /// The tab's document, by its count of committed loads.
    pub fn document(&self, tab: TabId) -> Result<u64, ToolError> {
        Ok(self.tab_info(tab)?.nav.committed)
    }

    /// Runs an operation of the agent library once the page is ready for
    /// it, in the frame this session chose with frame_switch, if any.
    pub async fn page<O: Operation>(&self, tab: TabId, op: O) -> Result<O::Reply, ToolError> {
        self.wait_until_loaded(tab, Duration::from_secs(10)).await?;
        self.page_in(tab, op, self.frame(tab)).await
    }

    /// Runs an operation at once in the tab's top document, even mid-load.
    pub async fn page_now<O: Operation>(&self, tab: TabId, op: O) -> Result<O::Reply, ToolError> {
        self.page_in(tab, op, None).await
    }

    async fn page_in<O: Operation>(
        &self,
        tab: TabId,
        op: O,
        frame: Option<String>,
    ) -> Result<O::Reply, ToolError> {
        let mut args = op.args();
        if let Some(frame) = frame {
            args.insert("frame".into(), frame.into());
        }
        let agent = Command::Agent {
            tab,
            op: O::OP,
            args,
        };
        let reply = self.app.browser.call_value(agent).await?;
        page_protocol::parse(O::OP, reply)
    }

    /// Runs a user script (eval, wait_for_fn) in the page's own world, in
    /// the frame this session chose with frame_switch, if any. Gives
    /// `{"type": ..., "value": ...}`.
    pub async fn run_script(&self, tab: TabId, script: String) -> Result<Value, ToolError> {
        self.check_hold(crate::hold::Reach::PageScripts)?;
        if self.frame(tab).is_some() {
            return self.page(tab, ops::Eval { script }).await;
        }
        self.app
            .browser
            .call_value(Command::Eval { tab, script })
            .await
    }

    /// Waits (bounded) while the tab is mid-navigation, so page operations
    /// see the new document rather than the old one or none.
    pub async fn wait_until_loaded(&self, tab: TabId, limit: Duration) -> Result<(), ToolError> {
        let deadline = tokio::time::Instant::now() + limit;
        let settled = self
            .app
            .browser
            .wait_until(deadline, |state| match state.tab(tab) {
                None => Some(Err(tab_closed())),
                Some(info) if !info.is_busy() => Some(Ok(())),
                // A load held by an authentication nobody answers never ends.
                Some(info) if info.auth_required.is_some() => Some(Ok(())),
                Some(_) => None,
            })
            .await;
        // Still loading at the limit: go on with the page as it is.
        settled.unwrap_or(Ok(()))
    }

    /// What an action's effects are measured against: the tab's counters,
    /// the downloads and the tabs from before it.
    pub fn before(&self, tab: TabId) -> Result<Before, ToolError> {
        let state = self.app.browser.state();
        let info = state.tab(tab).ok_or_else(tab_closed)?;
        Ok(Before {
            nav: info.nav,
            downloads: newest_download(&state),
            tabs: state.tab_ids(),
            requests: info.network.newest_request,
            url: info.url.clone(),
            title: info.title.clone(),
        })
    }

    /// After an action that may navigate: waits for the navigation it
    /// caused to end. A navigation asked for since `before` gets up to
    /// `grace` to start (or to turn into a download). Returns whether one
    /// loaded.
    pub async fn settle(
        &self,
        tab: TabId,
        before: &Before,
        grace: Duration,
        limit: Duration,
    ) -> Result<bool, ToolError> {
        let start = tokio::time::Instant::now();
        let (grace_end, deadline) = (start + grace, start + limit);
        let diversion_end = start + DIVERSION_GRACE;
        loop {
            let now = tokio::time::Instant::now();
            // Until the grace ends, a navigation asked for may still start.
            let waiting_start = now < grace_end;
            let download_may_start = now < diversion_end;
            let until = [grace_end, diversion_end]
                .into_iter()
                .filter(|end| *end > now)
                .min()
                .unwrap_or(deadline)
                .min(deadline);
            let outcome = self
                .app
                .browser
                .wait_until(until, |state| {
                    let Some(info) = state.tab(tab) else {
                        return Some(Err(tab_closed()));
                    };
                    let downloaded = downloaded_since(state, info.context, before.downloads);
                    // A new window asked for: its tab opens after WebKit's
                    // decision, and learns its address a moment later.
                    let mut opened = state.tabs.iter().filter(|t| !before.tabs.contains(&t.id));
                    let window_pending = match opened.next() {
                        None => info.nav.windows > before.nav.windows,
                        Some(tab) => tab.url.is_empty(),
                    };
                    if window_pending && waiting_start {
                        return None;
                    }
                    let waits = Waits {
                        start: waiting_start,
                        download: download_may_start,
                    };
                    settled(info, before.nav, waits, downloaded)
                })
                .await;
            match outcome {
                Some(result) => return result,
                None if tokio::time::Instant::now() >= deadline => {
                    return Err(ToolError::timeout(format!(
                        "the page was still loading after {} ms",
                        limit.as_millis()
                    )))
                }
                // The grace ended: look again without it.
                None => {}
            }
        }
    }

    /// After an action that did not navigate: waits until the requests the
    /// page started since request `since` have ended, and no next one
    /// follows within a moment (a menu that fetches its items, a form that
    /// saves by fetch), so the answer comes after their effect. Returns
    /// false when some were still in flight at `limit` (a long poll).
    pub async fn requests_settled(&self, tab: TabId, since: u64, limit: Duration) -> bool {
        let deadline = tokio::time::Instant::now() + limit;
        let mut seen = since;
        loop {
            let ended = self
                .app
                .browser
                .wait_until(deadline, |state| match state.tab(tab) {
                    None => Some(None),
                    Some(info) if info.network.newest_inflight <= since => {
                        Some(Some(info.network.newest_request))
                    }
                    Some(_) => None,
                })
                .await;
            let newest = match ended {
                None => return false,
                Some(None) => return true,
                Some(Some(newest)) => newest,
            };
            if newest == seen {
                return true;
            }
            // The page takes the answers, and may ask for more: a moment's
            // quiet ends the wait.
            seen = newest;
            let quiet_end = (tokio::time::Instant::now() + REQUESTS_QUIET).min(deadline);
            let more = self
                .app
                .browser
                .wait_until(quiet_end, |state| match state.tab(tab) {
                    Some(info) if info.network.newest_request > seen => Some(()),
                    _ => None,
                })
                .await;
            if more.is_none() {
                return true;
            }
        }
    }

    /// The document's URL, title and readyState, asked at once (even mid-load).
    pub async fn page_info(&self, tab: TabId) -> Result<PageInfo, ToolError> {
        self.page_now(tab, ops::PageInfo {}).await
    }

    /// URL and title of the tab's current page.
    pub async fn page_summary(&self, tab: TabId) -> Result<Value, ToolError> {
        let info = self.tab_info(tab)?;
        let mut title = info.title;
        if title.is_empty() {
            // The title notification can lag the load; ask the document.
            if let Ok(page) = self.page_info(tab).await {
                title = page.title;
            }
        }
        Ok(json!({"url": info.url, "title": title}))
    }

    /// Downloads started since `from`, after waiting (bounded) for them to end.
    pub async fn downloads_since(&self, from: u64, limit: Duration) -> Vec<DownloadInfo> {
        // A big download is not waited for: it is reported under way, and
        // wait_for_download waits for it.
        let deadline = tokio::time::Instant::now() + limit.min(DOWNLOAD_GRACE);
        // This session's context's only: another agent's are not its doing.
        let context = self.context().ok();
        let mine = move |d: &&DownloadInfo| d.id > from && Some(d.context) == context;
        let since = |state: &BrowserState| state.downloads.iter().filter(mine).cloned().collect();
        let ended = self
            .app
            .browser
            .wait_until(deadline, |state| {
                let busy = state
                    .downloads
                    .iter()
                    .filter(mine)
                    .any(|d| d.state == DownloadState::InProgress);
                (!busy).then(|| since(state))
            })
            .await;
        ended.unwrap_or_else(|| since(&self.app.browser.state()))
    }
}

/// The id of the newest download of this run (0: none yet), to tell the
/// ones an action starts.
/// Whether a download began in `context` since download `since`. Only
/// the tab's own context counts: other agents' downloads in other contexts
/// (the soak met them) say nothing of this tab's navigation.
fn downloaded_since(state: &BrowserState, context: ContextId, since: u64) -> bool {
    state
        .downloads
        .iter()
        .any(|d| d.id > since && d.context == context)
}

pub fn newest_download(state: &BrowserState) -> u64 {
    state.downloads.iter().map(|d| d.id).max().unwrap_or(0)
}

/// How long the page may be quiet after the requests an action started
/// ended, before the action's answer: time to take their answers and ask
/// for the next.
const REQUESTS_QUIET: Duration = Duration::from_millis(50);

/// How long an action's result waits for a download it started to end.
const DOWNLOAD_GRACE: Duration = Duration::from_secs(2);

/// The state an action started from.
#[derive(Debug, Clone)]
pub struct Before {
    pub nav: NavCounters,
    /// The newest download's id.
    pub downloads: u64,
    pub tabs: Vec<TabId>,
    /// The newest request in the tab's log: those after it are the action's.
    pub requests: u64,
    /// The page's address and title: an answer repeats them only when they changed.
    pub url: String,
    pub title: String,
}

/// Whether the tab settled after an action: Some(loaded) once it did,
/// an error when the navigation failed, None while it has not.
/// How long a load WebKit reported as turned into a download is waited for
/// before it is taken for one another navigation interrupted (WebKit
/// reports both alike; the download's start follows within moments).
const DIVERSION_GRACE: Duration = Duration::from_secs(3);

/// What a settling navigation may still wait for.
#[derive(Debug, Clone, Copy)]
struct Waits {
    /// The load asked for may still start.
    start: bool,
    /// A download the load turned into may still be told.
    download: bool,
}

fn settled(
    info: &TabInfo,
    before: NavCounters,
    waits: Waits,
    downloaded: bool,
) -> Option<Result<bool, ToolError>> {
    let waiting_start = waits.start;
    let nav = info.nav;
    // The page asks before it is left: nothing moves until someone answers.
    if let Some(dialog) = info.dialog.as_ref().filter(|d| d.kind == "beforeunload") {
        return Some(Err(asks_before_leaving(&dialog.message)));
    }
    if nav.started <= before.started {
        // A move within the document (back to a fragment's entry) is all
        // the navigation there will be: no load follows.
        if nav.moved_within > before.moved_within {
            return Some(Ok(true));
        }
        // The page asked to stay (beforeunload) and was answered so: no
        // load will start.
        if info.stayed {
            return Some(Ok(false));
        }
        let asked = nav.requested > before.requested;
        return (!(asked && waiting_start) || downloaded).then_some(Ok(false));
    }
    // A load that became a download ends when the download is known. WebKit
    // reports a load that another navigation interrupted the same way, and
    // no download follows that one: past its grace, it is not waited for.
    if nav.diverted > before.diverted && !downloaded && waits.download {
        return None;
    }
    if let Some(site) = &info.auth_required {
        return Some(Err(ToolError::new(
            ErrorCode::NavigationFailed,
            format!("{site} asks for a user name and password (HTTP authentication); call set_credentials, then open the page again"),
        )));
    }
    if let Some(failure) = info.failure.as_ref().filter(|f| f.seq > before.started) {
        return Some(Err(ToolError::new(
            ErrorCode::NavigationFailed,
            failure.message.clone(),
        )));
    }
    // The newest load was cancelled: a navigation asked for superseded it
    // (a page's own, started before, ends so as ours begins), and the
    // one asked for is on its way.
    if nav.cancelled == nav.started && nav.requested > before.requested && waiting_start {
        return None;
    }
    // Another load may have begun meanwhile (a redirect, a superseding
    // navigation): done only when the view has stopped loading too.
    (nav.finished >= nav.started && !info.loading).then_some(Ok(true))
}

/// The error for a navigation the page's beforeunload dialog holds: it
/// names the dialog and each way out.
pub fn asks_before_leaving(message: &str) -> ToolError {
    ToolError::new(
        ErrorCode::DialogOpen,
        format!(
            "the page asks before it is left (a beforeunload dialog, {message:?}), so it has not moved: dialog_accept leaves it (the navigation then goes on; wait_for_load waits for it), dialog_dismiss stays; open, back, forward and reload also take leave: true, to leave without being asked"
        ),
    )
}

/// The element a tool acts on: a snapshot ref or a CSS selector.
pub fn element(reference: &Option<String>, selector: &Option<String>) -> Result<Target, ToolError> {
    Target::named(reference.as_deref(), selector.as_deref())
}

pub use crate::address::normalize_url;

#[cfg(test)]
mod tests {
    use super::*;

    // Regression: a load that a page's own pending navigation interrupted
    // (WebKit reports it as a load turned into a download) made the next
    // open wait its whole time for a download that never came.
    #[test]
    fn an_interrupted_load_is_waited_for_only_while_a_download_may_still_start() {
        let mut info = crate::tools::fake_browser::loaded_tab(1, "http://127.0.0.1:9/");
        let before = info.nav;
        info.nav.requested += 1;
        info.nav.started += 1;
        info.nav.finished += 1;
        info.nav.diverted += 1;
        let waits = |download| Waits {
            start: true,
            download,
        };
        assert!(
            settled(&info, before, waits(true), false).is_none(),
            "a download may still start"
        );
        assert!(
            matches!(settled(&info, before, waits(false), false), Some(Ok(true))),
            "past its grace it is over"
        );
        assert!(
            matches!(settled(&info, before, waits(true), true), Some(Ok(true))),
            "the download is known"
        );
    }

    // Regression (soak): an open in one context failed "refused to load"
    // whenever an agent in another context had downloaded a file before
    // the open's load started.
    #[test]
    fn only_downloads_of_the_tabs_context_end_its_navigation() {
        let mut state = BrowserState::default();
        let download = |id, context| DownloadInfo {
            id,
            context,
            url: String::new(),
            path: String::new(),
            state: DownloadState::Done,
            bytes: 0,
            total: None,
            failure: None,
        };
        state.downloads = vec![download(4, 1), download(5, 2)];
        assert!(!downloaded_since(&state, 1, 4), "another context's");
        assert!(downloaded_since(&state, 2, 4));
        assert!(!downloaded_since(&state, 2, 5), "none since");
    }

    // Regression: a form a script submitted started its load just after an
    // open asked for another; WebKit cancelled it, and the open took the
    // end of that load for its own and answered with the old page.
    #[test]
    fn a_cancelled_load_is_not_the_end_of_the_navigation_asked_for() {
        let mut info = crate::tools::fake_browser::loaded_tab(1, "http://127.0.0.1:9/");
        let before = info.nav;
        info.nav.requested += 1;
        info.nav.started += 1;
        info.nav.finished += 1;
        info.nav.cancelled = info.nav.started;
        let waits = |start| Waits {
            start,
            download: start,
        };
        assert!(
            settled(&info, before, waits(true), false).is_none(),
            "the asked load is on its way"
        );
        info.nav.started += 1;
        assert!(
            settled(&info, before, waits(true), false).is_none(),
            "it started"
        );
        info.nav.committed += 1;
        info.nav.finished += 1;
        assert!(
            matches!(settled(&info, before, waits(true), false), Some(Ok(true))),
            "and ended"
        );
    }
}
