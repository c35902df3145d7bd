//! One tab: its web view and the per-tab state that WebKit signals update
//! (navigation counters, refs, a pending dialog, calls awaiting a reply).

use super::console::ConsoleLog;
use super::delivery::Receipts;
use super::frames::FrameRelay;
use crate::base::error::{ErrorCode, ToolError};
use crate::bridge::{Output, Reply, TabId};
use glib::Cast as _;
use serde_json::{json, Value};
use std::cell::{Cell, RefCell};
use std::collections::HashMap;
use std::rc::Rc;
use std::time::Instant;
use webkit2gtk::FileChooserRequestExt as _;
use webkit2gtk::WebResourceExt as _;
use webkit2gtk::WebViewExt as _;
use webkit2gtk::{
    LoadEvent, NavigationPolicyDecision, NavigationPolicyDecisionExt as _, PolicyDecisionExt as _,
    PolicyDecisionType, ResponsePolicyDecision, ResponsePolicyDecisionExt as _, ScriptDialog,
    ScriptDialogType, URIRequestExt as _, WebView,
};

/// Counters of the tab's main-frame loads. A navigation is done when as
/// many loads finished (or failed) as started.
#[derive(Debug, Default, Clone, Copy)]
pub struct NavCounters {
    pub started: u64,
    pub committed: u64,
    pub finished: u64,
}

/// State shared between the tab and its signal handlers (main thread only).
pub struct TabState {
    pub id: TabId,
    pub nav: Cell<NavCounters>,
    /// The last failed load: (the `started` count it belongs to, message).
    pub failure: RefCell<Option<(u64, String)>>,
    pub dialog: RefCell<Option<ScriptDialog>>,
    /// Script calls awaiting their GLib callback, failed at once when a
    /// dialog blocks the page.
    pub inflight: RefCell<HashMap<u64, Reply>>,
    next_call: Cell<u64>,
    /// Highest ref number handed out + 1, and the first number the current
    /// document may use (refs below it belong to earlier documents).
    pub ref_next: Cell<u64>,
    pub ref_floor: Cell<u64>,
    pub crashed: Cell<bool>,
    /// Answers from the agents of cross-origin frames.
    pub frames: Rc<FrameRelay>,
    /// The trusted input its pages received, for commands awaiting theirs.
    pub input: Receipts,
    pub network: NetworkActivity,
    /// A site's HTTP authentication challenge nobody answered: where, realm.
    pub auth: RefCell<Option<String>>,
    pub console: ConsoleLog,
    /// Files for the next file chooser this tab opens (the upload tool).
    pub upload: RefCell<Option<Vec<String>>>,
    /// The page's own address: set at each commit and same-document move.
    pub page_url: RefCell<String>,
    /// A beforeunload prompt was answered "stay": WebKit keeps the abandoned
    /// target as its URI, so the page's own address is the truth.
    pub stayed: Cell<bool>,
}

/// Requests of the tab's pages in flight, for waits on a quiet network.
pub struct NetworkActivity {
    inflight: Cell<u32>,
    last_change: Cell<Instant>,
}

impl NetworkActivity {
    fn new() -> Self {
        NetworkActivity {
            inflight: Cell::new(0),
            last_change: Cell::new(Instant::now()),
        }
    }

    fn started(&self) {
        self.inflight.set(self.inflight.get() + 1);
        self.last_change.set(Instant::now());
    }

    fn ended(&self) {
        self.inflight.set(self.inflight.get().saturating_sub(1));
        self.last_change.set(Instant::now());
    }

    /// `inflight` requests, and for how long none has been (0 while busy).
    pub fn json(&self) -> Value {
        let inflight = self.inflight.get();
        let quiet_ms = if inflight == 0 {
            self.last_change.get().elapsed().as_millis() as u64
        } else {
            0
        };
        json!({"inflight": inflight, "quiet_ms": quiet_ms})
    }
}

impl TabState {
    pub fn new(id: TabId) -> Self {
        TabState {
            id,
            nav: Cell::new(NavCounters::default()),
            failure: RefCell::new(None),
            dialog: RefCell::new(None),
            inflight: RefCell::new(HashMap::new()),
            next_call: Cell::new(1),
            ref_next: Cell::new(1),
            ref_floor: Cell::new(1),
            crashed: Cell::new(false),
            frames: Rc::new(FrameRelay::default()),
            input: Receipts::default(),
            network: NetworkActivity::new(),
            auth: RefCell::new(None),
            console: ConsoleLog::default(),
            upload: RefCell::new(None),
            page_url: RefCell::new(String::new()),
            stayed: Cell::new(false),
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
        if self.crashed.get() {
            return Some(ToolError::new(
                ErrorCode::NavigationFailed,
                "the page's web process crashed; reload the tab or open a page",
            ));
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

    pub fn nav_json(&self) -> Value {
        let nav = self.nav.get();
        let failure = self.failure.borrow();
        json!({
            "started": nav.started,
            "committed": nav.committed,
            "finished": nav.finished,
            "failure": failure.as_ref().map(|(seq, msg)| json!({"seq": seq, "message": msg})),
        })
    }
}

/// Connects the WebKit signals that keep `state` current. Pages of the
/// browser's own server (on `server_port`) are never loaded in a tab or its
/// frames: that is the person's panel, and a tab is where agents act.
pub fn connect(view: &WebView, state: &Rc<TabState>, server_port: Rc<Cell<u16>>) {
    let s = state.clone();
    view.connect_resource_load_started(move |_, resource, _| {
        s.network.started();
        // A failed request also reports finished: count each one end once.
        let ended = Rc::new(Cell::new(false));
        let (s2, ended2) = (s.clone(), ended.clone());
        resource.connect_finished(move |_| {
            if !ended2.replace(true) {
                s2.network.ended();
            }
        });
        let s3 = s.clone();
        resource.connect_failed(move |_, _| {
            if !ended.replace(true) {
                s3.network.ended();
            }
        });
    });

    let s = state.clone();
    view.connect_uri_notify(move |view| {
        // Moves within the document (pushState, fragments) commit nothing.
        if !view.is_loading() {
            *s.page_url.borrow_mut() = view.uri().map(|u| u.to_string()).unwrap_or_default();
        }
    });

    let s = state.clone();
    view.connect_load_changed(move |view, event| {
        let mut nav = s.nav.get();
        match event {
            LoadEvent::Started => {
                nav.started += 1;
                s.stayed.set(false);
                s.auth.borrow_mut().take();
                s.crashed.set(false);
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
            }
            LoadEvent::Finished => nav.finished = nav.started,
            _ => {}
        }
        s.nav.set(nav);
        tracing::trace!(tab = s.id, ?event, ?nav, "load event");
    });

    let s = state.clone();
    view.connect_load_failed(move |_, _, uri, error| {
        tracing::debug!(tab = s.id, uri, error = %error, "load failed");
        if !is_cancellation(error) {
            let started = s.nav.get().started;
            *s.failure.borrow_mut() = Some((started, format!("{uri}: {}", error.message())));
        }
        false
    });

    // Responses the engine cannot show (archives, binaries) become downloads.
    view.connect_decide_policy(move |_, decision, kind| {
        if kind != PolicyDecisionType::Response {
            let own = decision
                .downcast_ref::<NavigationPolicyDecision>()
                .and_then(|d| d.navigation_action())
                .and_then(|action| action.request())
                .and_then(|request| request.uri())
                .is_some_and(|uri| crate::address::is_own_server(&uri, server_port.get()));
            if own {
                tracing::info!("a page's navigation to the browser's own server was refused");
                decision.ignore();
            }
            return own;
        }
        let Some(response) = decision.downcast_ref::<ResponsePolicyDecision>() else {
            return false;
        };
        if response.is_mime_type_supported() {
            return false;
        }
        decision.download();
        true
    });

    view.connect_context_menu(|_, _, _, _| super::input::context_menu_is_agents());

    let s = state.clone();
    view.connect_run_file_chooser(move |_, request| {
        // Files an agent armed go in; otherwise the person gets the dialog.
        let Some(files) = s.upload.borrow_mut().take() else {
            return false;
        };
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
    view.connect_script_dialog(move |_, dialog| {
        *s.dialog.borrow_mut() = Some(dialog.clone());
        s.fail_inflight(dialog_open_error(dialog));
        s.input.release();
        // true: we answer later, through dialog_accept / dialog_dismiss.
        true
    });

    let s = state.clone();
    view.connect_web_process_terminated(move |_, reason| {
        s.crashed.set(true);
        s.fail_inflight(ToolError::new(
            ErrorCode::NavigationFailed,
            format!("the page's web process ended ({reason:?}); reload the tab"),
        ));
        s.input.release();
    });
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

/// Describes and, if asked, answers the pending dialog.
pub fn dialog_status(state: &TabState) -> Value {
    match state.dialog.borrow().as_ref() {
        None => json!({"open": false}),
        Some(d) => json!({
            "open": true,
            "type": dialog_kind(d),
            "message": d.message().map(|m| m.to_string()).unwrap_or_default(),
            "default_text": (d.dialog_type() == ScriptDialogType::Prompt)
                .then(|| d.prompt_get_default_text().map(|m| m.to_string()))
                .flatten(),
        }),
    }
}

pub fn answer_dialog(
    state: &TabState,
    accept: bool,
    text: Option<&str>,
) -> Result<Value, ToolError> {
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
