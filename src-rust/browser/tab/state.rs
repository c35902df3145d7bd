//! One tab: its web view and the per-tab state that WebKit signals update
//! (navigation counters, refs, a pending dialog, calls awaiting a reply).

use super::budget::Budget;
use super::console::ConsoleLog;
use super::form_posts::FormPosts;
use super::frame_relay::FrameRelay;
use super::network_log::NetworkLog;
use super::related::Related;
use crate::base::error::{ErrorCode, ToolError};
use crate::base::tab::{
    BrowserState, DialogInfo, LoadFailure, NavCounters, NetworkChange, NetworkInfo, PageEnd,
    RequestsInFlight, TabId, TabInfo,
};
use crate::bridge::{DialogAction, Output, Reply};
use crate::browser::input::receipts::Receipts;
use crate::browser::input::seat::Seat;
use crate::browser::input::trusted::Hands;
use glib::object::ObjectExt as _;
use glib::Cast as _;
use serde_json::{json, Value};
use std::cell::{Cell, RefCell};
use std::collections::HashMap;
use std::rc::Rc;
use std::sync::Arc;
use std::time::Instant;
use tokio::sync::watch;
use webkit2gtk::FileChooserRequestExt as _;
use webkit2gtk::WebViewExt as _;
use webkit2gtk::{
    LoadEvent, NavigationPolicyDecision, NavigationPolicyDecisionExt as _, PolicyDecisionExt as _,
    PolicyDecisionType, ResponsePolicyDecision, ResponsePolicyDecisionExt as _, ScriptDialog,
    ScriptDialogType, URIRequestExt as _, WebProcessTerminationReason, WebView,
};

/// Where the main thread publishes every tab's state for tokio code.
pub type Publisher = Arc<watch::Sender<BrowserState>>;

/// State shared between the tab and its signal handlers (main thread only).
pub struct TabState {
    id: TabId,
    nav: Cell<NavCounters>,
    /// The last failed load.
    failure: RefCell<Option<LoadFailure>>,
    dialog: RefCell<Option<ScriptDialog>>,
    /// Script calls awaiting their GLib callback, failed at once when a
    /// dialog blocks the page.
    inflight: RefCell<HashMap<u64, Reply>>,
    next_call: Cell<u64>,
    /// Highest ref number handed out + 1, and the first number the current
    /// document may use (refs below it belong to earlier documents).
    ref_next: Cell<u64>,
    ref_floor: Cell<u64>,
    /// Its page's web process ended, and why (until a load starts).
    crashed: Cell<Option<PageEnd>>,
    /// The web process its page lives in, as the web extension told it.
    web_process: Cell<Option<u32>>,
    /// Its process passed the page memory bound and is being ended.
    memory_exceeded: Cell<bool>,
    /// Answers from the agents of cross-origin frames (shared like `input`).
    frames: Rc<FrameRelay>,
    /// The trusted input its pages received, for commands awaiting theirs.
    /// Shared with the tabs it opened or was opened by: WebKit delivers the
    /// script messages of related views to the opener's handlers.
    input: Rc<Receipts>,
    /// What agents hold down on its page, and where its pointer is.
    hands: Hands,
    /// The tabs related to it by opener, itself included (see `related`).
    related: Rc<Related>,
    /// Requests of the tab's pages in flight, for waits on a quiet network.
    network: Cell<NetworkInfo>,
    /// The log ids of the requests in flight: an action waits for those it started.
    requests_in_flight: RefCell<RequestsInFlight>,
    /// A site's HTTP authentication challenge nobody answered: where, realm.
    auth: RefCell<Option<String>>,
    console: Rc<ConsoleLog>,
    requests: Rc<NetworkLog>,
    /// Files for the next file chooser this tab opens (the upload tool).
    upload: RefCell<Option<Vec<String>>>,
    /// Whether the last navigation the browser started here carried the
    /// agent's extra headers: a reload must not repeat them once removed.
    sent_headers: Cell<bool>,
    /// Forms its pages submitted, until their POST starts (shared like `input`).
    forms: Rc<FormPosts>,
    /// The page's own address: set at each commit and same-document move.
    page_url: RefCell<String>,
    /// The address changed while loading, when `nav.started` was this: a
    /// load that then never starts was a move within the document.
    address_before_start: Cell<Option<u64>>,
    /// A beforeunload prompt was answered "stay": WebKit keeps the abandoned
    /// target as its URI, so the page's own address is the truth.
    stayed: Cell<bool>,
    /// For tabs a page opened: the URL it asked for, until WebKit has one.
    requested_url: RefCell<Option<String>>,
    /// Where WebKit's own error page for a failed load is.
    error_page: Cell<ErrorPage>,
    publisher: Publisher,
}

/// After a load fails, WebKit loads an error page in its place: a load
/// nobody asked for, which must not be taken for the next one.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum ErrorPage {
    None,
    /// The failure was reported; the error page's load has not started.
    Expected,
    Loading,
}

impl Drop for TabState {
    fn drop(&mut self) {
        // What a closed tab held goes with it (a tab whose state lives on
        // holds its logs and WebKit's objects: a leak worth seeing).
        tracing::debug!(tab = self.id, "a tab's state was released");
    }
}

impl TabState {
    /// A tab's state; `related` is the opener's, for a tab a page opened.
    /// `marks` is where agents' scripts in page worlds are noted.
    pub fn new(
        id: TabId,
        publisher: Publisher,
        related: Option<&TabState>,
        marks: &Arc<crate::agent_scripts::AgentScripted>,
        budget: &Rc<Budget>,
        seat: &Rc<Seat>,
    ) -> Self {
        TabState {
            id,
            nav: Cell::new(NavCounters::default()),
            failure: RefCell::new(None),
            dialog: RefCell::new(None),
            inflight: RefCell::new(HashMap::new()),
            next_call: Cell::new(1),
            ref_next: Cell::new(1),
            ref_floor: Cell::new(1),
            crashed: Cell::new(None),
            web_process: Cell::new(None),
            memory_exceeded: Cell::new(false),
            frames: related.map_or_else(Rc::default, |r| r.frames.clone()),
            input: related.map_or_else(Rc::default, |r| r.input.clone()),
            hands: Hands::new(seat),
            related: related.map_or_else(
                || Related::new(id, marks),
                |r| {
                    r.related.join(id);
                    r.related.clone()
                },
            ),
            network: Cell::new(NetworkInfo::default()),
            requests_in_flight: RefCell::default(),
            auth: RefCell::new(None),
            console: ConsoleLog::counted_in(budget),
            requests: NetworkLog::counted_in(budget),
            upload: RefCell::new(None),
            sent_headers: Cell::new(false),
            forms: related.map_or_else(Rc::default, |r| r.forms.clone()),
            page_url: RefCell::new(String::new()),
            address_before_start: Cell::new(None),
            stayed: Cell::new(false),
            requested_url: RefCell::new(None),
            error_page: Cell::new(ErrorPage::None),
            publisher,
        }
    }

    /// Parks a reply until its callback fires; returns the call's key.
    pub fn park(&self, reply: Reply) -> u64 {
        let key = self.next_call.get();
        self.next_call.set(key + 1);
        self.inflight.borrow_mut().insert(key, reply);
        key
    }

    /// Answers a parked call (no-op when it was already failed).
    pub fn answer(&self, key: u64, result: Result<Output, ToolError>) {
        let reply = self.inflight.borrow_mut().remove(&key);
        if let Some(reply) = reply {
            let _ = reply.send(result);
        }
    }

    fn fail_inflight(&self, error: ToolError) {
        let pending: Vec<Reply> = self.inflight.borrow_mut().drain().map(|(_, r)| r).collect();
        for reply in pending {
            let _ = reply.send(Err(error.clone()));
        }
    }

    /// The error tools get while a dialog blocks this tab, if one does.
    pub fn blocked(&self) -> Option<ToolError> {
        if let Some(dialog) = self.dialog.borrow().as_ref() {
            return Some(dialog_open_error(dialog));
        }
        if let Some(end) = self.crashed.get() {
            return Some(end.error(self.id));
        }
        None
    }

    pub fn note_next_ref(&self, value: &Value) {
        if let Some(next) = value.get("next").and_then(Value::as_u64) {
            if next > self.ref_next.get() {
                self.ref_next.set(next);
            }
        }
    }

    pub fn id(&self) -> TabId {
        self.id
    }

    /// Its navigation counters now.
    pub fn nav(&self) -> NavCounters {
        self.nav.get()
    }

    /// Whether a page's dialog is open.
    pub fn has_dialog(&self) -> bool {
        self.dialog.borrow().is_some()
    }

    /// The refs the current document may use: from the first (`floor`) to
    /// the next to hand out.
    pub fn refs(&self) -> (u64, u64) {
        (self.ref_floor.get(), self.ref_next.get())
    }

    /// Its page's web process ended, and why (until a load starts).
    pub fn crashed(&self) -> Option<PageEnd> {
        self.crashed.get()
    }

    /// The web process its page lives in, as the web extension told it.
    pub fn web_process(&self) -> Option<u32> {
        self.web_process.get()
    }

    /// The web extension told which process the page lives in (0 and 1
    /// are no process of a page's).
    pub fn set_web_process(&self, pid: u32) {
        self.web_process.set(Some(pid).filter(|&pid| pid > 1));
    }

    /// The site whose HTTP authentication prompt lies over the page.
    pub fn auth_prompt(&self) -> Option<String> {
        self.auth.borrow().clone()
    }

    /// A site asks for a user name and password in a prompt over the page.
    pub fn auth_asked(&self, site: String) {
        *self.auth.borrow_mut() = Some(site);
    }

    /// The prompt `site` asked for ended; a later prompt is left alone.
    /// Whether it was the one shown.
    pub fn auth_ended(&self, site: &str) -> bool {
        let ours = self.auth.borrow().as_deref() == Some(site);
        if ours {
            self.auth.borrow_mut().take();
        }
        ours
    }

    /// A navigation starts: a challenge left unanswered belongs to the page
    /// being left, and an earlier "stay" to an earlier navigation.
    pub fn leaving_page(&self) {
        self.auth.borrow_mut().take();
        self.stayed.set(false);
    }

    /// For a tab a page opened: the URL it asked for, until WebKit has one.
    pub fn set_requested_url(&self, url: String) {
        *self.requested_url.borrow_mut() = Some(url);
    }

    /// Whether the last navigation the browser started here carried the
    /// agent's extra headers.
    pub fn sent_headers(&self) -> bool {
        self.sent_headers.get()
    }

    pub fn set_sent_headers(&self, sent: bool) {
        self.sent_headers.set(sent);
    }

    /// Its process passed the page memory bound and is being ended: its
    /// end is told as out of memory.
    pub fn passed_memory_bound(&self) {
        self.memory_exceeded.set(true);
    }

    /// Whether files wait for the tab's next file chooser.
    pub fn upload_pending(&self) -> bool {
        self.upload.borrow().is_some()
    }

    /// Answers from the agents of cross-origin frames.
    pub fn frames(&self) -> &Rc<FrameRelay> {
        &self.frames
    }

    /// The trusted input its pages received.
    pub fn receipts(&self) -> &Rc<Receipts> {
        &self.input
    }

    /// What agents hold down on its page, and where its pointer is.
    pub fn hands(&self) -> &Hands {
        &self.hands
    }

    /// The tabs related to it by opener, itself included.
    pub fn related(&self) -> &Rc<Related> {
        &self.related
    }

    pub fn console(&self) -> &Rc<ConsoleLog> {
        &self.console
    }

    /// Its requests, from the tab's start.
    pub fn requests(&self) -> &Rc<NetworkLog> {
        &self.requests
    }

    /// Forms its pages submitted, until their POST starts.
    pub fn forms(&self) -> &Rc<FormPosts> {
        &self.forms
    }

    /// Files for the next file chooser of the tab (none: the person chooses).
    pub fn arm_upload(&self, view: &WebView, files: Option<Vec<String>>) {
        *self.upload.borrow_mut() = files;
        self.publish(view);
    }

    /// Counts a navigation asked for, before WebKit starts loading it.
    pub fn note_requested(&self) {
        let mut nav = self.nav.get();
        nav.requested += 1;
        self.nav.set(nav);
    }

    /// Publishes a change of the tab's requests: waits and the panel hear of it.
    pub(crate) fn network_changed(&self, change: NetworkChange) {
        let mut network = self.network.get();
        let mut in_flight = self.requests_in_flight.borrow_mut();
        in_flight.apply(change);
        network.inflight = in_flight.count();
        network.newest_inflight = in_flight.newest();
        drop(in_flight);
        network.last_change = Instant::now();
        network.newest_request = self.requests.newest();
        self.network.set(network);
        self.update(|info| info.network = network);
    }

    /// Publishes this tab's state as WebKit and the signal handlers left it.
    /// Every handler that changes it calls this, so waiting tools wake.
    /// The address moved within the document: a fragment, pushState, or a
    /// history step between such entries.
    fn moved_within(&self, view: &WebView) {
        *self.page_url.borrow_mut() = view.uri().map(|u| u.to_string()).unwrap_or_default();
        let mut nav = self.nav.get();
        nav.moved_within += 1;
        self.nav.set(nav);
    }

    pub fn publish(&self, view: &WebView) {
        let stayed = self.stayed.get();
        let url = if stayed {
            Some(self.page_url.borrow().clone())
        } else {
            view.uri().map(|u| u.to_string())
        };
        let url = url
            .or_else(|| self.requested_url.borrow().clone())
            .unwrap_or_default();
        let published = TabInfo {
            id: self.id,
            url,
            title: view.title().map(|t| t.to_string()).unwrap_or_default(),
            loading: view.is_loading() && !stayed,
            stayed,
            nav: self.nav.get(),
            failure: self.failure.borrow().clone(),
            dialog: self.dialog.borrow().as_ref().map(dialog_info),
            crashed: self.crashed.get(),
            network: self.network.get(),
            auth_required: self.auth.borrow().clone(),
            upload_pending: self.upload.borrow().is_some(),
            error_page_pending: self.error_page.get() != ErrorPage::None,
            // The tab strip's part, which the browser publishes.
            context: 0,
            index: 0,
            front: false,
            opener: None,
        };
        self.update(move |info| {
            *info = TabInfo {
                context: info.context,
                index: info.index,
                front: info.front,
                opener: info.opener,
                ..published
            }
        });
    }

    /// Changes this tab's published entry; waiting tools wake only when
    /// something changed.
    fn update(&self, change: impl FnOnce(&mut TabInfo)) {
        self.publisher.send_if_modified(|state| {
            let Some(info) = state.tabs.iter_mut().find(|t| t.id == self.id) else {
                return false;
            };
            let before = info.clone();
            change(info);
            *info != before
        });
    }
}

/// Connects the WebKit signals that keep `state` current. Pages of the
/// browser's own server (on `server_port`) are never loaded in a tab or its
/// frames: that is the person's panel, and a tab is where agents act.
pub fn connect(view: &WebView, state: &Rc<TabState>, server_port: Rc<Cell<u16>>) {
    let s = state.clone();
    view.connect_uri_notify(move |view| {
        // Moves within the document (pushState, fragments) commit nothing.
        // The address coming back to the page's own (a load that never
        // committed was cancelled or superseded) is no move.
        if !view.is_loading() {
            let back_home = view.uri().as_deref() == Some(s.page_url.borrow().as_str());
            if !back_home {
                s.moved_within(view);
            }
        } else {
            // A load starts after its address is known, or (a history step
            // between entries of one document) never does.
            s.address_before_start.set(Some(s.nav.get().started));
        }
        s.publish(view);
    });

    let s = state.clone();
    view.connect_notify_local(None, move |view, spec| {
        if spec.name() == "is-loading" && !view.is_loading() {
            let started = s.address_before_start.take();
            if started.is_some_and(|started| started == s.nav.get().started) {
                s.moved_within(view);
            }
        }
        if matches!(spec.name(), "title" | "is-loading") {
            s.publish(view);
        }
    });

    let s = state.clone();
    view.connect_load_changed(move |view, event| {
        let mut nav = s.nav.get();
        match event {
            LoadEvent::Started => {
                nav.started += 1;
                if s.error_page.get() == ErrorPage::Expected {
                    s.error_page.set(ErrorPage::Loading);
                }
                s.stayed.set(false);
                s.auth.borrow_mut().take();
                s.crashed.set(None);
            }
            LoadEvent::Committed => {
                nav.committed += 1;
                // Calls still waiting were sent to the document just left:
                // one suspended or swapped out (a new web process) never
                // answers, so its caller would wait out its whole timeout.
                s.fail_inflight(ToolError::new(
                    ErrorCode::JsError,
                    "the page changed (a new document loaded) while this call ran; call it again",
                ));
                s.stayed.set(false);
                *s.page_url.borrow_mut() = view.uri().map(|u| u.to_string()).unwrap_or_default();
                // Refs of the old document must never name elements of the new one.
                s.ref_floor.set(s.ref_next.get());
                // What the person typed into the old page went with it.
                s.related.page_left(s.id);
            }
            LoadEvent::Finished => {
                nav.finished = nav.started;
                if s.error_page.get() == ErrorPage::Loading {
                    s.error_page.set(ErrorPage::None);
                }
            }
            _ => {}
        }
        s.nav.set(nav);
        tracing::trace!(tab = s.id, ?event, ?nav, "load event");
        s.publish(view);
    });

    let s = state.clone();
    view.connect_load_failed(move |view, _, uri, error| {
        tracing::debug!(tab = s.id, uri, error = %error, "load failed");
        // A load that failed (one a new navigation superseded, whose address
        // the view already shows) ends in no move within the document.
        s.address_before_start.take();
        if error.matches(webkit2gtk::PolicyError::FrameLoadInterruptedByPolicyChange) {
            // The response is saved as a download instead.
            let mut nav = s.nav.get();
            nav.diverted += 1;
            s.nav.set(nav);
            s.publish(view);
        } else if error.matches(webkit2gtk::NetworkError::Cancelled) {
            // Superseded (a navigation asked for while a page's own was on
            // its way): the load that follows is the one to wait for.
            let mut nav = s.nav.get();
            nav.cancelled = nav.started;
            s.nav.set(nav);
            s.publish(view);
        } else if !is_cancellation(error) {
            // WebKit shows its error page unless told not to (false below).
            s.error_page.set(ErrorPage::Expected);
            *s.failure.borrow_mut() = Some(LoadFailure {
                seq: s.nav.get().started,
                message: format!("{uri}: {}", error.message()),
            });
            s.publish(view);
        }
        false
    });

    let s = state.clone();
    view.connect_decide_policy(move |view, decision, kind| {
        if kind != PolicyDecisionType::Response {
            let action = decision
                .downcast_ref::<NavigationPolicyDecision>()
                .and_then(|d| d.navigation_action());
            let uri = action
                .as_ref()
                .and_then(|a| a.request())
                .and_then(|request| request.uri());
            let own = uri
                .as_deref()
                .is_some_and(|uri| crate::address::is_own_server(uri, server_port.get()));
            if own {
                tracing::info!("a page's navigation to the browser's own server was refused");
                decision.ignore();
                return true;
            }
            // A gesture's navigation (a link, a form, a script on a click):
            // tools that gave the input wait for it to start.
            let gesture = action.as_ref().is_some_and(|a| a.is_user_gesture());
            let same_document = uri
                .as_deref()
                .is_some_and(|uri| is_same_document(view.uri().as_deref(), uri));
            if kind == PolicyDecisionType::NavigationAction && gesture && !same_document {
                s.note_requested();
                s.publish(view);
            } else if kind == PolicyDecisionType::NewWindowAction && gesture {
                let mut nav = s.nav.get();
                nav.windows += 1;
                s.nav.set(nav);
                s.publish(view);
            }
            return false;
        }
        // Responses the engine cannot show (archives, binaries) become downloads.
        let Some(response) = decision.downcast_ref::<ResponsePolicyDecision>() else {
            return false;
        };
        if response.is_mime_type_supported() {
            return false;
        }
        decision.download();
        true
    });

    let s = state.clone();
    view.connect_run_file_chooser(move |view, request| {
        // Files an agent armed go in; otherwise the person gets the dialog.
        let Some(files) = s.upload.borrow_mut().take() else {
            return false;
        };
        s.publish(view);
        let names: Vec<&str> = files.iter().map(String::as_str).collect();
        let allowed = if request.selects_multiple() {
            &names[..]
        } else {
            &names[..1]
        };
        request.select_files(allowed);
        true
    });

    let s = state.clone();
    view.connect_script_dialog(move |view, dialog| {
        *s.dialog.borrow_mut() = Some(dialog.clone());
        s.fail_inflight(dialog_open_error(dialog));
        s.input.release();
        s.publish(view);
        // true: we answer later, through dialog_accept / dialog_dismiss.
        true
    });

    let s = state.clone();
    view.connect_web_process_terminated(move |view, reason| {
        // The page memory bound ends a process with WebKit's API; a tab
        // sharing it may hear of it as a crash.
        let end = if s.memory_exceeded.take() {
            PageEnd::OutOfMemory
        } else {
            match reason {
                WebProcessTerminationReason::ExceededMemoryLimit => PageEnd::OutOfMemory,
                WebProcessTerminationReason::TerminatedByApi => PageEnd::Ended,
                _ => PageEnd::Crashed,
            }
        };
        tracing::warn!(
            tab = s.id,
            why = end.as_str(),
            "a tab's page ended with its web process"
        );
        s.crashed.set(Some(end));
        s.fail_inflight(end.error(s.id));
        s.input.release();
        s.publish(view);
    });
}

/// `page#a` -> `page#b` moves within the document: no load starts.
pub fn is_same_document(current: Option<&str>, target: &str) -> bool {
    let strip = |u: &str| u.split('#').next().unwrap_or("").to_string();
    match current {
        Some(cur) => target.contains('#') && strip(cur) == strip(target),
        None => false,
    }
}

/// A navigation replaced by another one, or turned into a download, is not a failure.
fn is_cancellation(error: &glib::Error) -> bool {
    error.matches(webkit2gtk::NetworkError::Cancelled)
        || error.matches(webkit2gtk::PolicyError::FrameLoadInterruptedByPolicyChange)
}

pub fn dialog_kind(dialog: &ScriptDialog) -> &'static str {
    match dialog.dialog_type() {
        ScriptDialogType::Alert => "alert",
        ScriptDialogType::Confirm => "confirm",
        ScriptDialogType::Prompt => "prompt",
        ScriptDialogType::BeforeUnloadConfirm => "beforeunload",
        _ => "unknown",
    }
}

fn dialog_open_error(dialog: &ScriptDialog) -> ToolError {
    let message = dialog.message().map(|m| m.to_string()).unwrap_or_default();
    ToolError::new(
        ErrorCode::DialogOpen,
        format!(
            "a JavaScript {} dialog is open on this tab ({message:?}); answer it with dialog_accept or dialog_dismiss first",
            dialog_kind(dialog)
        ),
    )
}

fn dialog_info(dialog: &ScriptDialog) -> DialogInfo {
    DialogInfo {
        kind: dialog_kind(dialog),
        message: dialog.message().map(|m| m.to_string()).unwrap_or_default(),
        default_text: (dialog.dialog_type() == ScriptDialogType::Prompt)
            .then(|| dialog.prompt_get_default_text().map(|m| m.to_string()))
            .flatten(),
    }
}

/// The pending dialog, as dialog tools describe it.
pub fn dialog_status(state: &TabState) -> Value {
    match state.dialog.borrow().as_ref().map(dialog_info) {
        None => json!({"open": false}),
        Some(d) => json!({
            "open": true,
            "type": d.kind,
            "message": d.message,
            "default_text": d.default_text,
        }),
    }
}

/// Describes the pending dialog, or answers it.
pub fn dialog_action(
    view: &WebView,
    state: &TabState,
    action: DialogAction,
) -> Result<Value, ToolError> {
    let result = match action {
        DialogAction::Status => Ok(dialog_status(state)),
        DialogAction::Accept(text) => answer_dialog(state, true, text.as_deref()),
        DialogAction::Dismiss => answer_dialog(state, false, None).inspect(|answered| {
            // "Stay on the page": WebKit keeps the abandoned URI; the page's own is the truth.
            if answered["answered"] == "beforeunload" {
                state.stayed.set(true);
            }
        }),
    };
    state.publish(view);
    result
}

fn answer_dialog(state: &TabState, accept: bool, text: Option<&str>) -> Result<Value, ToolError> {
    let dialog =
        state.dialog.borrow_mut().take().ok_or_else(|| {
            ToolError::new(ErrorCode::InvalidParams, "no dialog is open on this tab")
        })?;
    let kind = dialog_kind(&dialog);
    match dialog.dialog_type() {
        ScriptDialogType::Confirm | ScriptDialogType::BeforeUnloadConfirm => {
            dialog.confirm_set_confirmed(accept)
        }
        ScriptDialogType::Prompt if accept => {
            let default = dialog.prompt_get_default_text().map(|t| t.to_string());
            dialog.prompt_set_text(text.or(default.as_deref()).unwrap_or(""));
        }
        _ => {}
    }
    dialog.close();
    Ok(json!({"answered": kind, "accepted": accept}))
}
