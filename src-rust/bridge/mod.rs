//! The one way off-main-thread code reaches the browser: a command sent to
//! the event loop with a oneshot for the reply, under a timeout.

use crate::base::error::{ErrorCode, ToolError};
use serde_json::Value;
use std::sync::Arc;
use std::time::Duration;
use tokio::sync::{oneshot, watch};

use crate::base::context::ContextId;
pub use crate::base::tab::TabId;
use crate::base::tab::{BrowserState, NavCounters, TabInfo};
use crate::page_protocol::{Args, PageOp};

mod element_input;
pub use element_input::{check, Acted, ElementInput, Landed, Outcome, VaultFill, CARET_TO_END};

/// What a browser command gives back.
#[derive(Debug)]
pub enum Output {
    Value(Value),
    /// What an element input did (`Command::Act`).
    Acted(Acted),
    Png(Vec<u8>),
    /// A small JPEG (a recording's picture of the page).
    Jpeg(Vec<u8>),
    /// A screenshot as asked (`Command::Picture`).
    Picture(Picture),
    /// A navigation began: the tab's counters from just before it, and
    /// whether it stays in the document (a fragment: no load follows).
    Navigation {
        before: NavCounters,
        same_document: bool,
    },
    /// A recorded response's body.
    Body(Body),
}

/// What a screenshot takes, and how it is encoded.
#[derive(Debug, Clone, Copy)]
pub struct Shot {
    pub area: ShotArea,
    /// JPEG of this quality (1 to 100); none: PNG.
    pub jpeg_quality: Option<u8>,
}

#[derive(Debug, Clone, Copy)]
pub enum ShotArea {
    /// What the viewport shows.
    Viewport,
    /// The whole page, scrolled parts included.
    Page,
    /// An element's box in CSS px: in the viewport, and in the page (its
    /// scroll added), for a box the viewport does not hold whole.
    Element {
        x: f64,
        y: f64,
        width: f64,
        height: f64,
        page_x: f64,
        page_y: f64,
    },
}

/// An encoded screenshot and its size in pixels.
pub struct Picture {
    pub data: Vec<u8>,
    pub mime: &'static str,
    pub width: i32,
    pub height: i32,
}

impl std::fmt::Debug for Picture {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "Picture({}, {}x{}, {} bytes)",
            self.mime,
            self.width,
            self.height,
            self.data.len()
        )
    }
}

/// A response body read back: its bytes, or none with the reason.
#[derive(Default)]
pub struct Body {
    pub bytes: Option<Vec<u8>>,
    /// Cut short where the browser stops keeping one body.
    pub truncated: bool,
    /// What the reader should know: why there is none, or how it was kept.
    pub note: Option<String>,
    /// The body the request sent, as the page sent it (fetch() and
    /// XMLHttpRequest), when its copy is kept.
    pub sent: Option<Sent>,
}

/// A request's body as the page sent it.
pub struct Sent {
    /// None: withheld (the note says why).
    pub bytes: Option<Vec<u8>>,
    pub truncated: bool,
    pub note: Option<String>,
    /// Its type when it is not the request's Content-Type (a form's fields).
    pub mime: Option<&'static str>,
}

impl std::fmt::Debug for Body {
    // The length, not the bytes: a body can be megabytes.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Body")
            .field("bytes", &self.bytes.as_ref().map(Vec::len))
            .field("truncated", &self.truncated)
            .field("note", &self.note)
            .field(
                "sent",
                &self.sent.as_ref().map(|s| s.bytes.as_ref().map(Vec::len)),
            )
            .finish()
    }
}

impl Output {
    pub fn into_value(self) -> Result<Value, ToolError> {
        match self {
            Output::Value(v) => Ok(v),
            other => Err(ToolError::internal(format!(
                "expected a value, got {other:?}"
            ))),
        }
    }

    pub fn into_acted(self) -> Result<Acted, ToolError> {
        match self {
            Output::Acted(acted) => Ok(acted),
            other => Err(ToolError::internal(format!(
                "expected what an input did, got {other:?}"
            ))),
        }
    }
}

pub type Reply = oneshot::Sender<Result<Output, ToolError>>;

/// A navigation of a tab's history or location.
#[derive(Debug, Clone)]
pub enum Navigation {
    /// A document from text, with the origin of `base` (no request is made).
    Html {
        html: String,
        base: String,
    },
    Load(String),
    Back,
    Forward,
    Reload,
}

/// Mouse buttons as GDK numbers them.
pub const BUTTON_LEFT: u32 = 1;
pub const BUTTON_MIDDLE: u32 = 2;

/// A mouse action at viewport coordinates (CSS pixels).
#[derive(Debug, Clone, Copy)]
pub enum MouseAction {
    Move,
    Click {
        button: u32,
        count: u32,
    },
    /// Press without release (a drag's start), and the release.
    Down {
        button: u32,
    },
    Up {
        button: u32,
    },
    /// A wheel turn, in CSS pixels to scroll.
    Wheel {
        dx: f64,
        dy: f64,
    },
}

/// A box drawn on an annotated screenshot, with its label.
#[derive(Debug, Clone)]
pub struct Mark {
    pub label: String,
    pub x: f64,
    pub y: f64,
    pub width: f64,
    pub height: f64,
}

/// One cookie to add, every attribute given.
#[derive(Debug, Clone)]
pub struct CookieSpec {
    pub name: String,
    pub value: String,
    pub domain: String,
    pub path: String,
    /// Unix seconds; none: a session cookie.
    pub expires: Option<i64>,
    pub secure: bool,
    pub http_only: bool,
    /// "strict", "lax" or "none".
    pub same_site: String,
}

/// What to do with the profile's cookies.
#[derive(Debug, Clone)]
pub enum CookieOp {
    /// Those a request to the URL would carry; none: every cookie.
    Get {
        url: Option<String>,
    },
    Set(CookieSpec),
    /// Every cookie, or one domain's.
    Clear {
        domain: Option<String>,
    },
}

/// What set_credentials answers, and the origin it answers.
#[derive(Debug, Clone)]
pub struct SiteCredentials {
    /// `scheme://host:port`, as `address::origin_of` writes it.
    pub origin: String,
    pub user: String,
    pub password: String,
}

/// How set_credentials changes what sites get.
#[derive(Debug, Clone)]
pub enum CredentialsChange {
    Answer(SiteCredentials),
    /// One origin's, or (none) every origin's.
    Forget(Option<String>),
}

/// A setting agents change for the whole browser.
#[derive(Debug, Clone)]
pub enum SettingsChange {
    /// Extra request headers on the navigations the browser starts.
    Headers(Vec<(String, String)>),
    /// User name and password for one site's HTTP authentication (kept
    /// beside other sites'), or forget a site's (none: every site's) so
    /// that the person answers.
    Credentials(CredentialsChange),
    Offline(bool),
    /// prefers-color-scheme: dark (true) or light.
    DarkScheme(bool),
    /// The size of the page's viewport in CSS pixels.
    Viewport {
        width: u32,
        height: u32,
    },
    /// The User-Agent the context's tabs send and show (none: WebKit's own).
    UserAgent(Option<String>),
    /// The language pages are asked in and read (Accept-Language,
    /// navigator.language); none: the system's.
    Locale(Option<String>),
    /// Where pages of the context find themselves, granted to them while
    /// set (none: no position, and pages are refused it again).
    Geolocation(Option<Position>),
    /// The IANA time zone pages see (Date, Intl) from their next load;
    /// none: the machine's.
    Timezone(Option<String>),
    /// The screen, pixel ratio and touch support scripts see from their
    /// next load; none: this machine's.
    DeviceLook(Option<DeviceLook>),
}

/// What scripts read of a device set_device emulates.
#[derive(Debug, Clone, Copy, PartialEq, serde::Serialize)]
pub struct DeviceLook {
    /// The screen in CSS px.
    pub width: u32,
    pub height: u32,
    /// devicePixelRatio.
    pub scale: f64,
    /// Touch events and navigator.maxTouchPoints.
    pub touch: bool,
}

/// A position pages get from navigator.geolocation.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Position {
    pub latitude: f64,
    pub longitude: f64,
    /// Metres.
    pub accuracy: f64,
}

/// How to answer a JavaScript dialog.
#[derive(Debug, Clone)]
pub enum DialogAction {
    Status,
    Accept(Option<String>),
    Dismiss,
}

/// Work for the main thread. Each variant names the tab it acts on.
#[derive(Debug)]
pub enum Command {
    /// The pause state changed elsewhere (the panel): update the window's button.
    SetPaused {
        paused: bool,
    },
    /// Where the chrome's parts are in a context's window (for tests and tools).
    ChromeLayout {
        context: ContextId,
    },
    /// A context's whole window, chrome included, as PNG.
    WindowScreenshot {
        context: ContextId,
    },
    /// A tab of `context`, in front of its window unless `behind` (the
    /// person works in the front tab).
    NewTab {
        url: Option<String>,
        behind: bool,
        context: ContextId,
    },
    /// A context with its window and one blank tab (answers its name and
    /// tab's id). Without a name, the main thread picks the first free
    /// `context-N`: agents opening contexts at once each get their own.
    /// Refused BUSY when `max` contexts besides the person's are open.
    NewContext {
        name: Option<String>,
        ephemeral: bool,
        max: usize,
    },
    /// Closes a context's tabs and window.
    CloseContext {
        context: ContextId,
    },
    /// Sends a context's requests through the routing proxy from now on
    /// (`access`), or straight to the sites again (none: its last route went).
    RouteContext {
        context: ContextId,
        access: Option<crate::routes::ProxyAccess>,
    },
    /// Whether an agent may add a route in a context now: refused while a
    /// page of it holds a secret from the person's vault or what the person
    /// typed during an ask (a route could answer a script that page loads).
    MayRoute {
        context: ContextId,
    },
    /// Has a context's engine accept the routing proxy's certificate (PEM)
    /// for one site (host).
    TrustSite {
        context: ContextId,
        host: String,
        pem: String,
    },
    BringToFront {
        tab: TabId,
    },
    CloseTab {
        tab: TabId,
    },
    Navigate {
        tab: TabId,
        nav: Navigation,
    },
    /// An operation of the agent library, in its isolated world.
    Agent {
        tab: TabId,
        op: PageOp,
        args: Args,
    },
    /// An input on an element, done whole on the main thread: the page
    /// waits (up to `wait`) until the element can take it, and the input
    /// follows in the same turn of the event loop.
    Act {
        tab: TabId,
        target: crate::page_protocol::Located,
        input: ElementInput,
        wait: Duration,
    },
    /// A user script in the page's own world.
    Eval {
        tab: TabId,
        script: String,
    },
    /// A pointer action at (x, y) of the viewport; none: where the pointer is.
    Mouse {
        tab: TabId,
        at: Option<(f64, f64)>,
        action: MouseAction,
    },
    /// The GTK clipboard: read its text, or write text to it.
    Clipboard {
        write: Option<String>,
    },
    TypeText {
        tab: TabId,
        text: String,
    },
    PressKey {
        tab: TabId,
        combo: String,
    },
    /// Only the press (`down`) or only the release of a chord.
    KeyPhase {
        tab: TabId,
        combo: String,
        down: bool,
    },
    /// A WebKit editing command (InsertText, Delete, SelectAll...).
    Edit {
        tab: TabId,
        command: &'static str,
        argument: Option<String>,
    },
    /// The visible area as PNG, with `marks` (label, x, y, width, height
    /// in viewport pixels) drawn on it.
    Screenshot {
        tab: TabId,
        marks: Vec<Mark>,
    },
    /// Cancels a download of `context` still under way.
    CancelDownload {
        context: ContextId,
        id: u64,
    },
    /// axe-core's accessibility audit of the tab's page (`selector` in args).
    Audit {
        tab: TabId,
        asked: crate::page_protocol::ops::Audit,
    },
    /// The viewport, the whole page or an element, as PNG or JPEG.
    Picture {
        tab: TabId,
        shot: Shot,
    },
    /// The visible area as a small JPEG, for a recording's step.
    Thumbnail {
        tab: TabId,
    },
    /// The page as a PDF file at `path` (none: a new file in the downloads folder).
    Pdf {
        tab: TabId,
        path: std::path::PathBuf,
    },
    Settings {
        tab: TabId,
        change: SettingsChange,
    },
    /// The tab's console messages (or uncaught errors): the newest `limit`.
    Console {
        tab: TabId,
        errors: bool,
        level: Option<String>,
        limit: usize,
        clear: bool,
    },
    /// The profile's cookies (the tab only locates the profile).
    Cookies {
        tab: TabId,
        op: CookieOp,
    },
    Dialog {
        tab: TabId,
        action: DialogAction,
    },
    /// The tab's requests after id `after`: of its current page, or all
    /// kept; the newest `last` of them.
    NetworkList {
        tab: TabId,
        after: u64,
        all: bool,
        last: usize,
    },
    /// The tab's requests as HAR 1.2 pages and entries (of its current
    /// page, or all kept).
    NetworkHar {
        tab: TabId,
        all: bool,
    },
    /// One recorded request, headers included.
    NetworkRequest {
        tab: TabId,
        id: u64,
    },
    /// One recorded request's response body.
    NetworkBody {
        tab: TabId,
        id: u64,
    },
}

/// Sends one command to the main thread with the time it may take (work
/// it starts in WebKit is cancelled then); false when the loop is gone.
pub type Sender = Arc<dyn Fn(Command, Reply, Duration) -> bool + Send + Sync>;

/// A `Send + Clone` handle on the browser for tokio code: commands go to
/// the main thread; the state it publishes is read here without one.
#[derive(Clone)]
pub struct BrowserHandle {
    send: Sender,
    state: watch::Receiver<BrowserState>,
}

/// How long a single browser command may take unless told otherwise.
pub const DEFAULT_COMMAND_TIMEOUT: Duration = Duration::from_secs(30);

impl BrowserHandle {
    pub fn new(send: Sender, state: watch::Receiver<BrowserState>) -> Self {
        BrowserHandle { send, state }
    }

    /// The tabs and downloads as last published.
    pub fn state(&self) -> BrowserState {
        self.state.borrow().clone()
    }

    /// Looks at the published state without copying it (every call asks
    /// which context it is in: a copy of every tab each time is waste).
    pub fn peek<T>(&self, look: impl FnOnce(&BrowserState) -> T) -> T {
        look(&self.state.borrow())
    }

    /// Each tab's newest request id, as last published.
    pub fn newest_requests(&self) -> Vec<(TabId, u64)> {
        let state = self.state.borrow();
        state
            .tabs
            .iter()
            .map(|t| (t.id, t.network.newest_request))
            .collect()
    }

    /// One tab as last published; NO_TAB once it closed.
    pub fn tab_info(&self, tab: TabId) -> Result<TabInfo, ToolError> {
        self.state.borrow().tab(tab).cloned().ok_or_else(tab_closed)
    }

    /// Waits until `look` finds what it wants in the published state, or
    /// `deadline` passes (None then). Looks again at every change.
    pub async fn wait_until<T>(
        &self,
        deadline: tokio::time::Instant,
        mut look: impl FnMut(&BrowserState) -> Option<T>,
    ) -> Option<T> {
        let mut state = self.state.clone();
        loop {
            if let Some(found) = look(&state.borrow_and_update()) {
                return Some(found);
            }
            match tokio::time::timeout_at(deadline, state.changed()).await {
                Ok(Ok(())) => {}
                // Timed out, or the browser is gone: nothing more will change.
                Ok(Err(_)) | Err(_) => return None,
            }
        }
    }

    /// A receiver of every change, for those who push state on (the panel).
    pub fn watch(&self) -> watch::Receiver<BrowserState> {
        self.state.clone()
    }

    /// Sends a command without waiting for its answer.
    pub fn notify(&self, command: Command) {
        let (tx, _rx) = oneshot::channel();
        let _ = (self.send)(command, tx, DEFAULT_COMMAND_TIMEOUT);
    }

    pub async fn call(&self, command: Command) -> Result<Output, ToolError> {
        self.call_with_timeout(command, DEFAULT_COMMAND_TIMEOUT)
            .await
    }

    pub async fn call_value(&self, command: Command) -> Result<Value, ToolError> {
        self.call(command).await?.into_value()
    }

    /// Runs a command that answers with an image.
    pub async fn call_png(&self, command: Command) -> Result<Vec<u8>, ToolError> {
        match self.call(command).await? {
            Output::Png(png) => Ok(png),
            other => Err(ToolError::internal(format!(
                "expected an image, got {other:?}"
            ))),
        }
    }

    /// Runs a command that answers with a screenshot as asked.
    pub async fn call_picture(&self, command: Command) -> Result<Picture, ToolError> {
        match self.call(command).await? {
            Output::Picture(picture) => Ok(picture),
            other => Err(ToolError::internal(format!(
                "expected a screenshot, got {other:?}"
            ))),
        }
    }

    /// Runs a command that answers with a JPEG.
    pub async fn call_jpeg(&self, command: Command) -> Result<Vec<u8>, ToolError> {
        match self.call(command).await? {
            Output::Jpeg(jpeg) => Ok(jpeg),
            other => Err(ToolError::internal(format!(
                "expected a JPEG, got {other:?}"
            ))),
        }
    }

    /// Runs a command that answers with a response body.
    pub async fn call_body(&self, command: Command) -> Result<Body, ToolError> {
        match self.call(command).await? {
            Output::Body(body) => Ok(body),
            other => Err(ToolError::internal(format!(
                "expected a body, got {other:?}"
            ))),
        }
    }

    /// Starts a navigation: the tab's counters from just before it, and
    /// whether it stays within the document.
    pub async fn navigate(
        &self,
        tab: TabId,
        nav: Navigation,
    ) -> Result<(NavCounters, bool), ToolError> {
        match self.call(Command::Navigate { tab, nav }).await? {
            Output::Navigation {
                before,
                same_document,
            } => Ok((before, same_document)),
            other => Err(ToolError::internal(format!(
                "a navigation answered {other:?}"
            ))),
        }
    }

    pub async fn call_with_timeout(
        &self,
        command: Command,
        limit: Duration,
    ) -> Result<Output, ToolError> {
        let what = command_name(&command);
        let (tx, rx) = oneshot::channel();
        if !(self.send)(command, tx, limit) {
            return Err(shutting_down());
        }
        match tokio::time::timeout(limit, rx).await {
            Ok(Ok(result)) => result,
            Ok(Err(_)) => Err(shutting_down()),
            Err(_) => Err(ToolError::timeout(format!(
                "the browser did not finish {what} within {} ms",
                limit.as_millis()
            ))),
        }
    }
}

pub fn tab_closed() -> ToolError {
    ToolError::new(
        ErrorCode::NoTab,
        "that tab was closed; use tab_list to see the open tabs",
    )
}

fn shutting_down() -> ToolError {
    ToolError::new(ErrorCode::Internal, "the browser is shutting down")
}

fn command_name(command: &Command) -> &'static str {
    match command {
        Command::SetPaused { .. } => "showing the pause state",
        Command::ChromeLayout { .. } => "reading the window layout",
        Command::WindowScreenshot { .. } => "the window screenshot",
        Command::NewContext { .. } => "opening a context",
        Command::CloseContext { .. } => "closing the context",
        Command::RouteContext { .. } => "routing the context's requests",
        Command::MayRoute { .. } => "checking the context's pages before a route",
        Command::TrustSite { .. } => "accepting a routed site's certificate",
        Command::NewTab { .. } => "opening a tab",
        Command::BringToFront { .. } => "switching tabs",
        Command::CloseTab { .. } => "closing the tab",
        Command::Navigate { .. } => "starting the navigation",
        Command::Agent { .. } => "the page operation",
        Command::Act { .. } => "the input",
        Command::Eval { .. } => "the script",
        Command::Mouse { .. } => "the mouse action",
        Command::Clipboard { .. } => "the clipboard",
        Command::TypeText { .. } => "typing",
        Command::PressKey { .. } => "the key press",
        Command::KeyPhase { .. } => "the key press",
        Command::Edit { .. } => "the editing command",
        Command::Screenshot { .. } => "the screenshot",
        Command::Picture { .. } => "the screenshot",
        Command::Audit { .. } => "the accessibility audit",
        Command::CancelDownload { .. } => "cancelling the download",
        Command::Thumbnail { .. } => "the recording's picture",
        Command::Pdf { .. } => "printing to PDF",
        Command::Cookies { .. } => "the cookie operation",
        Command::Settings { .. } => "changing the setting",
        Command::Console { .. } => "reading the console",
        Command::Dialog { .. } => "the dialog action",
        Command::NetworkList { .. }
        | Command::NetworkRequest { .. }
        | Command::NetworkHar { .. } => "reading the network log",
        Command::NetworkBody { .. } => "reading the response body",
    }
}
