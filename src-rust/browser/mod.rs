//! Main-thread side: the window, its tabs and the executor of the commands
//! that tokio code sends through the bridge. Nothing here blocks: a command
//! starts work and a GLib callback sends the reply.

pub mod capture;
pub mod chrome;
mod console;
mod cookies;
mod delivery;
pub mod downloads;
mod frames;
pub mod input;
mod nostr;
pub mod script;
mod settings;
pub mod tab;
mod web_extension;
mod xtest;

use crate::base::error::{ErrorCode, ToolError};
use crate::base::tab::{TabId, TabInfo};
use crate::bridge::{Command, CookieOp, DialogAction, Navigation, Output, Reply, SettingsChange};
use gtk::prelude::*;
use serde_json::{json, Value};
use std::cell::{Cell, RefCell};
use std::path::PathBuf;
use std::rc::{Rc, Weak};
use std::time::Duration;
use tab::{Publisher, TabState};
use tao::dpi::LogicalSize;
use tao::event_loop::{EventLoopProxy, EventLoopWindowTarget};
use tao::platform::unix::WindowExtUnix;
use tao::window::{Window, WindowBuilder};
use webkit2gtk::{UserContentInjectedFrames, UserScript, UserScriptInjectionTime};
use webkit2gtk::{
    UserContentManagerExt as _, WebContextExt as _, WebViewExt as _, WebsiteDataManagerExt as _,
};
use wry::{NewWindowResponse, WebContext, WebViewBuilder, WebViewBuilderExtUnix, WebViewExtUnix};

/// Events the tao loop receives from other threads and from signal handlers.
pub enum UserEvent {
    Command(Command, Reply),
    /// A page called `window.close()`.
    TabClosedByPage(TabId),
    /// A tab's title, address or loading state changed.
    TabChanged(TabId),
    /// The person used the window's chrome.
    Chrome(chrome::ChromeAction),
    /// The identity in use changed (method and short npub, or "Not logged in").
    Identity(String),
    /// window.nostr requests wait for the person ("" when none does).
    NostrPrompts(String),
    /// A download ended: path, and whether it succeeded.
    DownloadDone(String, bool),
    Shutdown,
}

pub struct BrowserOptions {
    pub web_data: PathBuf,
    pub start_url: String,
    pub downloads: PathBuf,
    pub window_size: (u32, u32),
    /// Accept invalid TLS certificates (for testing only).
    pub ignore_certificate_errors: bool,
    /// Let tabs open file: URLs (off: agents would read local files).
    pub allow_file_urls: bool,
    /// Proxy for all requests, e.g. http://127.0.0.1:3128 or socks5://...
    pub proxy: Option<String>,
    /// Search page for address-bar text that is not an address (`%s` = the words).
    pub search_url: Option<String>,
    /// Set while a person has paused the agents.
    pub paused: std::sync::Arc<std::sync::atomic::AtomicBool>,
    /// What the agents are doing (shown in the toolbar).
    pub activity: std::sync::Arc<crate::activity::Activity>,
    /// Where the pages' window.nostr calls go.
    pub nostr_calls: crate::base::page_event::PageCalls,
    /// Where the tabs' and downloads' state is published for tokio code.
    pub publisher: Publisher,
}

const APP_TITLE: &str = "Sovereign Browser";

/// Why a tab does not open the browser's own server.
const OWN_SERVER_REFUSED: &str =
    "url: that is this browser's own server (the person's control panel); tabs do not open it";

struct Tab {
    state: Rc<TabState>,
    /// Owns the web view: dropping it destroys the view.
    _view: wry::WebView,
    webkit: webkit2gtk::WebView,
    opener: Option<TabId>,
}

pub struct Browser {
    window: Window,
    stack: gtk::Stack,
    context: WebContext,
    tabs: Vec<Tab>,
    front: Rc<Cell<TabId>>,
    next_id: TabId,
    proxy: EventLoopProxy<UserEvent>,
    agent_script: UserScript,
    input_script: UserScript,
    console_script: UserScript,
    /// The web extension's folder, until the first tab hands it to WebKit.
    web_extension: Option<PathBuf>,
    nostr_scripts: nostr::NostrScripts,
    nostr_calls: crate::base::page_event::PageCalls,
    downloads: downloads::Downloads,
    /// The control panel's own window (not a tab: agents never see it).
    panel: Option<(Window, wry::WebView)>,
    panel_url: Option<String>,
    /// The port of the browser's own server: tabs never load its pages.
    server_port: Rc<Cell<u16>>,
    allow_file_urls: bool,
    chrome: Rc<chrome::Chrome>,
    search_url: Option<String>,
    settings: Rc<settings::AgentSettings>,
    publisher: Publisher,
    me: Weak<RefCell<Browser>>,
}

pub type SharedBrowser = Rc<RefCell<Browser>>;

impl Browser {
    /// Opens the window with one tab on the start page.
    pub fn create(
        target: &EventLoopWindowTarget<UserEvent>,
        proxy: EventLoopProxy<UserEvent>,
        options: BrowserOptions,
    ) -> anyhow::Result<SharedBrowser> {
        let (w, h) = options.window_size;
        let window = WindowBuilder::new()
            .with_title(APP_TITLE)
            .with_inner_size(LogicalSize::new(w, h))
            .build(target)?;
        let vbox = window
            .default_vbox()
            .ok_or_else(|| anyhow::anyhow!("the window has no content box"))?;
        let stack = gtk::Stack::new();
        stack.set_transition_type(gtk::StackTransitionType::None);
        gtk::prelude::BoxExt::pack_start(vbox, &stack, true, true, 0);
        gtk::prelude::WidgetExt::show(&stack);
        let chrome = chrome::Chrome::build(
            window.gtk_window(),
            vbox,
            &stack,
            proxy.clone(),
            options.paused.clone(),
        );

        let context = WebContext::new(Some(options.web_data.clone()));
        let agent_script = UserScript::for_world(
            script::agent_source(),
            UserContentInjectedFrames::AllFrames,
            UserScriptInjectionTime::Start,
            script::AGENT_WORLD,
            &[],
            &[],
        );
        let browser = Rc::new(RefCell::new(Browser {
            window,
            stack,
            context,
            tabs: Vec::new(),
            front: Rc::new(Cell::new(0)),
            next_id: 1,
            proxy: proxy.clone(),
            agent_script,
            input_script: delivery::script(),
            console_script: console::script(),
            web_extension: web_extension::install(&options.web_data)
                .inspect_err(|e| {
                    tracing::warn!("cannot write the web extension ({e}): console capture is off")
                })
                .ok(),
            nostr_scripts: nostr::NostrScripts::new(),
            nostr_calls: options.nostr_calls.clone(),
            downloads: downloads::Downloads::new(
                options.downloads.clone(),
                proxy.clone(),
                options.publisher.clone(),
            ),
            panel: None,
            panel_url: None,
            server_port: Rc::new(Cell::new(0)),
            allow_file_urls: options.allow_file_urls,
            chrome,
            search_url: options.search_url.clone(),
            settings: settings::AgentSettings::new(options.proxy.clone()),
            publisher: options.publisher.clone(),
            me: Weak::new(),
        }));
        browser.borrow_mut().me = Rc::downgrade(&browser);
        watch_activity(&browser, options.activity.clone());
        let first = browser.borrow_mut().add_tab(None)?;
        configure_network(&browser.borrow(), first, &options);
        browser.borrow_mut().show(first);
        browser.borrow().load(first, &options.start_url);
        Ok(browser)
    }

    /// Creates a tab. `related` is the opener for pages that open windows
    /// (they share its web process and `window.opener`).
    fn add_tab(&mut self, related: Option<webkit2gtk::WebView>) -> anyhow::Result<TabId> {
        let id = self.next_id;
        self.next_id += 1;
        let me = self.me.clone();
        // No clipboard for page scripts (wry's with_clipboard): a page would
        // read what the person copied, their nsec included, with
        // execCommand('paste'). A page still copies on a person's click, and
        // the clipboard tools work from the browser's side.
        let mut builder = WebViewBuilder::new_with_web_context(&mut self.context)
            .with_clipboard(false)
            .with_new_window_req_handler(move |url, features| {
                open_from_page(&me, url, features.opener.webview)
            });
        let opener_state = related.as_ref().and_then(|opener| {
            self.tabs
                .iter()
                .find(|t| &t.webkit == opener)
                .map(|t| t.state.clone())
        });
        if let Some(opener) = related {
            builder = builder.with_related_view(opener);
        }
        if self.tabs.is_empty() && self.next_id == 2 {
            // Download handlers belong to the shared context: connect them once.
            let (started, finished) = (self.downloads.clone(), self.downloads.clone());
            builder = builder
                .with_download_started_handler(move |url, path| started.start(url, path))
                .with_download_completed_handler(move |url, path, ok| {
                    finished.finish(&url, path, ok)
                });
        }
        let view = builder.build_gtk(&self.stack)?;
        let webkit = view.webview();
        if let (Some(dir), Some(context)) = (self.web_extension.take(), webkit.context()) {
            // Before the context's first load: the first tab's page.
            web_extension::load_in(&context, &dir);
        }
        if let Some(manager) = webkit.user_content_manager() {
            manager.add_script(&self.agent_script);
        }
        let state = Rc::new(TabState::new(
            id,
            self.publisher.clone(),
            opener_state.as_deref(),
        ));
        if let Some(manager) = webkit.user_content_manager() {
            manager.add_script(&self.console_script);
            manager.add_script(&self.input_script);
            delivery::listen(&manager, &state);
            frames::listen(&manager, &state);
            console::listen(&webkit, &manager, &state);
        }
        nostr::install(&webkit, id, &self.nostr_scripts, &self.nostr_calls);
        self.settings.connect(&webkit, &state);
        tab::connect(&webkit, &state, self.server_port.clone());
        self.connect_window_signals(&webkit, id);
        self.chrome.add_tab(id, self.tabs.len());
        self.tabs.push(Tab {
            state,
            _view: view,
            webkit,
            opener: None,
        });
        self.publish_tabs();
        Ok(id)
    }

    /// Keeps the window title on the front tab's title; hears `window.close()`.
    fn connect_window_signals(&self, webkit: &webkit2gtk::WebView, id: TabId) {
        let front = self.front.clone();
        let gtk_window = self.window.gtk_window().clone();
        webkit.connect_title_notify(move |view| {
            if front.get() == id {
                gtk_window.set_title(&window_title(view));
            }
        });
        // window.close(): wry answers WebKit's close signal by destroying
        // the view, which disconnects every later handler, so the tab
        // hears of it as the view's destruction.
        let proxy = self.proxy.clone();
        webkit.connect_destroy(move |_| {
            let _ = proxy.send_event(UserEvent::TabClosedByPage(id));
        });
        // The chrome follows title, address and loading state.
        let proxy = self.proxy.clone();
        webkit.connect_notify_local(None, move |_, spec| {
            if matches!(
                spec.name(),
                "title" | "uri" | "is-loading" | "estimated-load-progress"
            ) {
                let _ = proxy.send_event(UserEvent::TabChanged(id));
            }
        });
    }

    /// Opens the control panel in a window of its own.
    pub fn open_panel(
        &mut self,
        target: &EventLoopWindowTarget<UserEvent>,
        url: &str,
    ) -> anyhow::Result<()> {
        let window = WindowBuilder::new()
            .with_title("Sovereign Browser — Control panel")
            .with_inner_size(LogicalSize::new(1100, 820))
            .build(target)?;
        let vbox = window
            .default_vbox()
            .ok_or_else(|| anyhow::anyhow!("the panel window has no content box"))?;
        let view = WebViewBuilder::new_with_web_context(&mut self.context)
            .with_url(url)
            .build_gtk(vbox)?;
        self.panel = Some((window, view));
        Ok(())
    }

    /// Whether `id` is the panel's window.
    pub fn is_panel_window(&self, id: tao::window::WindowId) -> bool {
        self.panel.as_ref().is_some_and(|(w, _)| w.id() == id)
    }

    pub fn close_panel(&mut self) {
        self.panel = None;
    }

    /// Where the panel lives, for the window's Panel button.
    /// Refuses what no tab opens: the browser's own server (the person's
    /// panel) and, unless allowed at start-up, local files.
    fn may_open(&self, url: &str) -> Result<(), ToolError> {
        if crate::address::is_own_server(url, self.server_port.get()) {
            return Err(ToolError::invalid_params(OWN_SERVER_REFUSED));
        }
        if !self.allow_file_urls
            && url
                .get(..5)
                .is_some_and(|s| s.eq_ignore_ascii_case("file:"))
        {
            return Err(ToolError::invalid_params(
                "url: file: URLs are not opened (local files are the person's); start the browser with --allow-file-urls to allow them",
            ));
        }
        Ok(())
    }

    /// Where the browser's own server is, and the panel's address on it.
    pub fn set_server(&mut self, port: u16, panel_url: String) {
        self.server_port.set(port);
        self.panel_url = Some(panel_url);
    }

    fn index_of(&self, id: TabId) -> Option<usize> {
        self.tabs.iter().position(|t| t.state.id == id)
    }

    fn tab(&self, id: TabId) -> Result<&Tab, ToolError> {
        self.index_of(id).map(|i| &self.tabs[i]).ok_or_else(|| {
            ToolError::new(
                ErrorCode::NoTab,
                "that tab was closed; use tab_list to see the open tabs",
            )
        })
    }

    fn load(&self, id: TabId, url: &str) {
        if let Ok(tab) = self.tab(id) {
            tab.state.note_requested();
            self.settings.load(&tab.webkit, url);
            tab.state.publish(&tab.webkit);
        }
    }

    /// Publishes the tab strip: which tabs, in what order, which is in
    /// front, who opened whom; then each tab's own state.
    fn publish_tabs(&self) {
        let front = self.front.get();
        let order: Vec<(TabId, Option<TabId>)> =
            self.tabs.iter().map(|t| (t.state.id, t.opener)).collect();
        self.publisher.send_modify(|state| {
            let tabs = order
                .iter()
                .enumerate()
                .map(|(index, &(id, opener))| {
                    let mut info = state.tab(id).cloned().unwrap_or_else(|| TabInfo {
                        id,
                        ..TabInfo::default()
                    });
                    info.index = index;
                    info.front = id == front;
                    info.opener = opener;
                    info
                })
                .collect();
            state.tabs = tabs;
        });
        for tab in &self.tabs {
            tab.state.publish(&tab.webkit);
        }
    }

    /// Brings a tab to the front of the window.
    fn show(&mut self, id: TabId) {
        if let Ok(tab) = self.tab(id) {
            let view = tab.webkit.clone();
            let previous = self.front.replace(id);
            self.stack.set_visible_child(&view);
            self.window.gtk_window().set_title(&window_title(&view));
            self.refresh_chrome(previous);
            self.chrome.update_tab(id, &view, true, true);
            self.publish_tabs();
        }
    }

    /// Brings the chrome up to date with one tab.
    fn refresh_chrome(&self, id: TabId) {
        if let Ok(tab) = self.tab(id) {
            self.chrome
                .update_tab(id, &tab.webkit, self.front.get() == id, false);
        }
    }

    fn close_tab(&mut self, id: TabId) -> Result<Value, ToolError> {
        let index = self
            .index_of(id)
            .ok_or_else(|| ToolError::new(ErrorCode::NoTab, "that tab is already closed"))?;
        let tab = self.tabs.remove(index);
        let _ = self
            .nostr_calls
            .send(crate::base::page_event::PageEvent::PageGone { tab: id });
        self.stack.remove(&tab.webkit);
        self.chrome.remove_tab(id);
        drop(tab);
        if self.tabs.is_empty() {
            // Tools never end the program: the last tab becomes a blank one.
            let blank = self
                .add_tab(None)
                .map_err(|e| ToolError::internal(e.to_string()))?;
            self.load(blank, "about:blank");
        }
        if self.index_of(self.front.get()).is_none() {
            let next = self.tabs[index.min(self.tabs.len() - 1)].state.id;
            self.show(next);
        }
        self.publish_tabs();
        Ok(json!({"closed": index, "tabs": self.tabs.len()}))
    }

    fn change_setting(&self, id: TabId, change: SettingsChange) -> Result<Value, ToolError> {
        let view = self.tab(id)?.webkit.clone();
        match change {
            SettingsChange::Headers(headers) => Ok(self.settings.set_headers(headers)),
            SettingsChange::Credentials(credentials) => {
                Ok(self.settings.set_credentials(credentials))
            }
            SettingsChange::Offline(offline) => self.settings.set_offline(&view, offline),
            SettingsChange::DarkScheme(dark) => {
                // WebKitGTK answers prefers-color-scheme from the GTK theme variant.
                let gtk_settings = gtk::Settings::default()
                    .ok_or_else(|| ToolError::internal("no GTK settings"))?;
                gtk_settings.set_gtk_application_prefer_dark_theme(dark);
                Ok(json!({"color_scheme": if dark { "dark" } else { "light" }}))
            }
            SettingsChange::Viewport { width, height } => {
                // The window also holds the toolbar and tab strip: add their size.
                let allocation = view.allocation();
                let inner = self
                    .window
                    .inner_size()
                    .to_logical::<f64>(self.window.scale_factor());
                let extra_w = (inner.width - f64::from(allocation.width())).max(0.0);
                let extra_h = (inner.height - f64::from(allocation.height())).max(0.0);
                self.window.set_inner_size(LogicalSize::new(
                    f64::from(width) + extra_w,
                    f64::from(height) + extra_h,
                ));
                Ok(json!({"width": width, "height": height}))
            }
        }
    }
}

/// A few times a second, shows what the agents do (only when it changed).
fn watch_activity(browser: &SharedBrowser, activity: std::sync::Arc<crate::activity::Activity>) {
    let weak = Rc::downgrade(browser);
    let mut shown = 0;
    glib::timeout_add_local(Duration::from_millis(250), move || {
        let Some(browser) = weak.upgrade() else {
            return glib::ControlFlow::Break;
        };
        let seen = activity.seen();
        if seen.version != shown {
            shown = seen.version;
            if let Ok(b) = browser.try_borrow() {
                b.chrome.show_activity(&seen.label, &seen.tabs);
                for id in seen.tabs.keys() {
                    b.refresh_chrome(*id);
                }
            }
        }
        glib::ControlFlow::Continue
    });
}

/// Settings of the shared network session, reached through the first view.
fn configure_network(browser: &Browser, tab: TabId, options: &BrowserOptions) {
    let Some(manager) = browser
        .tab(tab)
        .ok()
        .and_then(|t| t.webkit.context())
        .and_then(|c| c.website_data_manager())
    else {
        tracing::warn!("no website data manager: network settings not applied");
        return;
    };
    if let Some(context) = browser.tab(tab).ok().and_then(|t| t.webkit.context()) {
        // Favicons for the tab strip.
        let dir = options.web_data.join("favicons");
        context.set_favicon_database_directory(dir.to_str());
    }
    if options.ignore_certificate_errors {
        tracing::warn!("TLS certificate errors are ignored (--ignore-certificate-errors)");
        manager.set_tls_errors_policy(webkit2gtk::TLSErrorsPolicy::Ignore);
    }
    if let Some(proxy) = &options.proxy {
        let mut settings = webkit2gtk::NetworkProxySettings::new(Some(proxy), &[]);
        manager
            .set_network_proxy_settings(webkit2gtk::NetworkProxyMode::Custom, Some(&mut settings));
    }
}

fn window_title(view: &webkit2gtk::WebView) -> String {
    match view.title().filter(|t| !t.is_empty()) {
        Some(title) => format!("{title} — {APP_TITLE}"),
        None => APP_TITLE.to_string(),
    }
}

/// `window.open` / `target=_blank`: a new tab related to its opener.
fn open_from_page(
    me: &Weak<RefCell<Browser>>,
    url: String,
    opener: webkit2gtk::WebView,
) -> NewWindowResponse {
    let Some(browser) = me.upgrade() else {
        return NewWindowResponse::Deny;
    };
    let Ok(mut b) = browser.try_borrow_mut() else {
        tracing::warn!("new window request while the browser was busy; denied");
        return NewWindowResponse::Deny;
    };
    let opener_id = b
        .tabs
        .iter()
        .find(|t| t.webkit == opener)
        .map(|t| t.state.id);
    match b.add_tab(Some(opener)) {
        Ok(id) => {
            if let Some(tab) = b.tabs.last_mut() {
                tab.opener = opener_id;
                *tab.state.requested_url.borrow_mut() = Some(url);
            }
            b.show(id);
            let webview = b.tabs.last().map(|t| t.webkit.clone());
            match webview {
                Some(webview) => NewWindowResponse::Create { webview },
                None => NewWindowResponse::Deny,
            }
        }
        Err(e) => {
            tracing::warn!("could not open a tab for a page: {e}");
            NewWindowResponse::Deny
        }
    }
}

/// Handles one event of the loop.
pub fn handle_event(
    browser: &SharedBrowser,
    event: UserEvent,
    target: &EventLoopWindowTarget<UserEvent>,
) {
    match event {
        UserEvent::Command(command, reply) => execute(browser, command, reply),
        UserEvent::TabClosedByPage(id) => {
            let _ = browser.borrow_mut().close_tab(id);
        }
        UserEvent::TabChanged(id) => {
            let b = browser.borrow();
            b.refresh_chrome(id);
            if b.front.get() == id {
                if let Ok(tab) = b.tab(id) {
                    b.window.gtk_window().set_title(&window_title(&tab.webkit));
                }
            }
        }
        UserEvent::Chrome(action) => chrome_action(browser, action, target),
        UserEvent::Identity(summary) => browser.borrow().chrome.set_identity(&summary),
        UserEvent::NostrPrompts(line) => browser.borrow().chrome.show_nostr_prompts(&line),
        UserEvent::DownloadDone(path, ok) => browser.borrow().chrome.download_done(&path, ok),
        UserEvent::Shutdown => {}
    }
}

/// Carries out what the person asked for in the chrome.
fn chrome_action(
    browser: &SharedBrowser,
    action: chrome::ChromeAction,
    target: &EventLoopWindowTarget<UserEvent>,
) {
    use chrome::ChromeAction as A;
    let front = browser.borrow().front.get();
    match action {
        A::Back => {
            let _ = navigate(&browser.borrow(), front, Navigation::Back);
        }
        A::Forward => {
            let _ = navigate(&browser.borrow(), front, Navigation::Forward);
        }
        A::ReloadOrStop => {
            let b = browser.borrow();
            if let Ok(tab) = b.tab(front) {
                if tab.webkit.is_loading() {
                    tab.webkit.stop_loading();
                } else {
                    tab.webkit.reload();
                }
            }
        }
        A::Navigate(text) => {
            let b = browser.borrow();
            match crate::address::from_typed(&text, b.search_url.as_deref()) {
                Ok(url) => {
                    b.chrome.clear_address_error();
                    let _ = navigate(&b, front, Navigation::Load(url));
                    if let Ok(tab) = b.tab(front) {
                        tab.webkit.grab_focus();
                    }
                }
                Err(message) => b.chrome.address_error(&message),
            }
        }
        A::NewTab => {
            let mut b = browser.borrow_mut();
            if let Ok(id) = b.add_tab(None) {
                b.show(id);
                b.load(id, "about:blank");
                b.chrome.focus_address();
            }
        }
        A::Select(id) => browser.borrow_mut().show(id),
        A::Close(id) => {
            let _ = browser.borrow_mut().close_tab(id);
        }
        A::CloseFront => {
            let _ = browser.borrow_mut().close_tab(front);
        }
        A::Cycle(step) => {
            let mut b = browser.borrow_mut();
            if let Some(i) = b.index_of(front) {
                let n = b.tabs.len() as i32;
                let next = b.tabs[((i as i32 + step).rem_euclid(n)) as usize].state.id;
                b.show(next);
            }
        }
        A::FocusAddress => browser.borrow().chrome.focus_address(),
        A::OpenPanel => {
            let url = browser.borrow().panel_url.clone();
            match url {
                Some(url) => {
                    if let Err(e) = browser.borrow_mut().open_panel(target, &url) {
                        tracing::warn!("cannot open the control panel window: {e}");
                    }
                }
                None => tracing::warn!("no panel address known"),
            }
        }
    }
}

/// Starts a command. Replies now, or from the callback of the work started.
fn execute(browser: &SharedBrowser, command: Command, reply: Reply) {
    let value = |r: Result<Value, ToolError>| r.map(Output::Value);
    match command {
        Command::SetPaused { paused } => {
            browser.borrow().chrome.set_paused(paused);
            let _ = reply.send(Ok(Output::Value(json!({"paused": paused}))));
        }
        Command::WindowScreenshot => {
            let png = capture::window_png(browser.borrow().window.gtk_window());
            let _ = reply.send(png.map(Output::Png));
        }
        Command::ChromeLayout => {
            let b = browser.borrow();
            let layout = b.chrome.layout(b.window.gtk_window());
            let _ = reply.send(Ok(Output::Value(layout)));
        }
        Command::NewTab { url } => {
            if let Some(Err(e)) = url.as_deref().map(|u| browser.borrow().may_open(u)) {
                let _ = reply.send(Err(e));
                return;
            }
            let mut b = browser.borrow_mut();
            let result = b
                .add_tab(None)
                .map_err(|e| ToolError::internal(format!("could not open a tab: {e}")))
                .map(|id| {
                    b.show(id);
                    b.load(id, url.as_deref().unwrap_or("about:blank"));
                    json!({"id": id})
                });
            let _ = reply.send(value(result));
        }
        Command::BringToFront { tab } => {
            let mut b = browser.borrow_mut();
            let result = b.tab(tab).map(|_| ());
            let result = result.map(|_| {
                b.show(tab);
                json!({"id": tab})
            });
            let _ = reply.send(value(result));
        }
        Command::CloseTab { tab } => {
            let result = browser.borrow_mut().close_tab(tab);
            let _ = reply.send(value(result));
        }
        Command::Navigate { tab, nav } => {
            let _ = reply.send(navigate(&browser.borrow(), tab, nav));
        }
        Command::Agent { tab, op, args } => {
            let b = browser.borrow();
            match b.tab(tab) {
                Ok(t) => script::call_agent(&t.webkit, &t.state, op, args, reply),
                Err(e) => {
                    let _ = reply.send(Err(e));
                }
            }
        }
        Command::Eval {
            tab,
            script: source,
        } => {
            let b = browser.borrow();
            match b.tab(tab) {
                Ok(t) => script::eval(&t.webkit, &t.state, &source, reply),
                Err(e) => {
                    let _ = reply.send(Err(e));
                }
            }
        }
        Command::Mouse { tab, at, action } => {
            with_front_tab(browser, tab, reply, move |view| {
                let (x, y) = at.unwrap_or_else(input::pointer_position);
                input::mouse(view, x, y, &action).map(|_| json!({"x": x, "y": y}))
            });
        }
        Command::Clipboard { write } => {
            let clipboard = gtk::Clipboard::get(&gdk::SELECTION_CLIPBOARD);
            match write {
                Some(text) => {
                    clipboard.set_text(&text);
                    let _ = reply.send(Ok(Output::Value(json!({"written": text.chars().count()}))));
                }
                None => clipboard.request_text(move |_, text| {
                    let text = text.map(|t| t.to_string());
                    let _ = reply.send(Ok(Output::Value(json!({"text": text}))));
                }),
            }
        }
        Command::Console {
            tab,
            errors,
            level,
            limit,
            clear,
        } => {
            let result = browser
                .borrow()
                .tab(tab)
                .map(|t| t.state.console.read(errors, level.as_deref(), limit, clear));
            let _ = reply.send(value(result));
        }
        Command::Settings { tab, change } => {
            let result = browser.borrow().change_setting(tab, change);
            let _ = reply.send(value(result));
        }
        Command::Cookies { tab, op } => {
            let view = match browser.borrow().tab(tab) {
                Ok(t) => t.webkit.clone(),
                Err(e) => {
                    let _ = reply.send(Err(e));
                    return;
                }
            };
            match op {
                CookieOp::Get { url } => cookies::get(&view, url, reply),
                CookieOp::Set(spec) => cookies::set(&view, spec, reply),
                CookieOp::Clear { domain } => cookies::clear(&view, domain, reply),
            }
        }
        Command::RealPointer { tab, x, y, button } => {
            with_front_tab(browser, tab, reply, move |view| {
                xtest::pointer(view, x, y, button).map(|_| json!({}))
            });
        }
        Command::TypeText { tab, text } => {
            with_front_tab(browser, tab, reply, move |view| {
                input::focus(view)?;
                input::type_text(view, &text).map(|_| json!({}))
            });
        }
        Command::PressKey { tab, combo } => {
            with_chord(browser, tab, &combo, reply, |view, chord| {
                input::press(view, chord).map(|_| json!({}))
            });
        }
        Command::KeyPhase { tab, combo, down } => {
            with_chord(browser, tab, &combo, reply, move |view, chord| {
                input::key_phase(view, chord, down)
                    .map(|_| json!({"held": input::held_modifiers()}))
            });
        }
        Command::Edit {
            tab,
            command,
            argument,
        } => {
            let b = browser.borrow();
            match b.tab(tab) {
                Ok(t) => {
                    match &argument {
                        Some(arg) => t.webkit.execute_editing_command_with_argument(command, arg),
                        None => t.webkit.execute_editing_command(command),
                    }
                    // Answer once the page ran it: a copy is then on the clipboard.
                    delivery::after_edit(&t.webkit, move || {
                        let _ = reply.send(Ok(Output::Value(json!({}))));
                    });
                }
                Err(e) => {
                    let _ = reply.send(Err(e));
                }
            }
        }
        Command::Pdf { tab, path } => match browser.borrow().tab(tab) {
            Ok(t) => {
                let path =
                    path.unwrap_or_else(|| browser.borrow().downloads.new_file("page", "pdf"));
                capture::pdf(&t.webkit, path, reply)
            }
            Err(e) => {
                let _ = reply.send(Err(e));
            }
        },
        Command::ArmUpload { tab, files } => {
            let result = browser.borrow().tab(tab).map(|t| {
                *t.state.upload.borrow_mut() = files;
                t.state.publish(&t.webkit);
                json!({})
            });
            let _ = reply.send(value(result));
        }
        Command::Screenshot { tab, marks } => {
            let b = browser.borrow();
            match b.tab(tab) {
                Ok(t) => match t.state.blocked() {
                    Some(e) => {
                        let _ = reply.send(Err(e));
                    }
                    None => capture::screenshot(&t.webkit, marks, reply),
                },
                Err(e) => {
                    let _ = reply.send(Err(e));
                }
            }
        }
        Command::Dialog { tab, action } => {
            let b = browser.borrow();
            let result = b.tab(tab).and_then(|t| match &action {
                DialogAction::Status => Ok(tab::dialog_status(&t.state)),
                DialogAction::Accept(text) => tab::answer_dialog(&t.state, true, text.as_deref()),
                DialogAction::Dismiss => {
                    let answered = tab::answer_dialog(&t.state, false, None)?;
                    if answered["answered"] == "beforeunload" {
                        t.state.stayed.set(true);
                    }
                    Ok(answered)
                }
            });
            if let Ok(t) = b.tab(tab) {
                t.state.publish(&t.webkit);
            }
            let _ = reply.send(value(result));
        }
    }
}

/// Starts a navigation and answers with the load counters from before it,
/// so the caller can wait for this navigation to end.
fn navigate(b: &Browser, id: TabId, nav: Navigation) -> Result<Output, ToolError> {
    let tab = b.tab(id)?;
    // A crashed tab may navigate (that is how it recovers); a dialog must be answered first.
    if tab.state.dialog.borrow().is_some() {
        if let Some(error) = tab.state.blocked() {
            return Err(error);
        }
    }
    let before = tab.state.nav.get();
    // A challenge left unanswered belongs to the page being left.
    tab.state.auth.borrow_mut().take();
    let view = &tab.webkit;
    let mut same_document = false;
    if let Navigation::Load(url) = &nav {
        b.may_open(url)?;
    }
    match nav {
        Navigation::Load(url) => {
            same_document = tab::is_same_document(view.uri().as_deref(), &url);
            b.settings.load(view, &url);
        }
        Navigation::Html { html, base } => view.load_html(&html, Some(&base)),
        Navigation::Back if view.can_go_back() => view.go_back(),
        Navigation::Forward if view.can_go_forward() => view.go_forward(),
        Navigation::Reload => match view.uri() {
            // A reload repeats the request as it was: load again to add the headers.
            Some(uri) if b.settings.has_headers() => b.settings.load(view, &uri),
            _ => view.reload_bypass_cache(),
        },
        Navigation::Back | Navigation::Forward => {
            return Err(ToolError::new(
                ErrorCode::NavigationFailed,
                "there is no page in that direction of this tab's history",
            ))
        }
    }
    tab.state.note_requested();
    tab.state.publish(view);
    Ok(Output::Navigation {
        before,
        same_document,
    })
}

/// [`with_front_tab`] for a key chord, refused before anything happens
/// when it does not parse.
fn with_chord(
    browser: &SharedBrowser,
    tab: TabId,
    combo: &str,
    reply: Reply,
    action: impl FnOnce(&webkit2gtk::WebView, &input::Chord) -> Result<Value, String> + 'static,
) {
    match input::parse_chord(combo) {
        Ok(chord) => with_front_tab(browser, tab, reply, move |view| action(view, &chord)),
        Err(message) => {
            let _ = reply.send(Err(ToolError::invalid_params(message)));
        }
    }
}

/// Runs trusted input on a tab, bringing it to the front first (input needs
/// a mapped, allocated view; give GTK a moment to lay it out), and answers
/// once the page has handled every event the input sent.
fn with_front_tab(
    browser: &SharedBrowser,
    tab: TabId,
    reply: Reply,
    action: impl FnOnce(&webkit2gtk::WebView) -> Result<Value, String> + 'static,
) {
    let (view, state, was_front) = {
        let mut b = browser.borrow_mut();
        let (view, state) = match b.tab(tab) {
            Ok(t) => (t.webkit.clone(), t.state.clone()),
            Err(e) => {
                let _ = reply.send(Err(e));
                return;
            }
        };
        if let Some(error) = b.tab(tab).ok().and_then(|t| t.state.blocked()) {
            let _ = reply.send(Err(error));
            return;
        }
        let was_front = b.front.get() == tab;
        if !was_front {
            b.show(tab);
        }
        (view, state, was_front)
    };
    // A tab's first blank page has no user scripts: give it the receipts.
    let blank = view.uri().is_none_or(|uri| uri == "about:blank");
    let target = view.clone();
    let run = move || {
        let (before, diverted) = (input::sent(), input::diverted());
        match action(&view) {
            Ok(value) => {
                // Input a popup took never reaches the page: wait for none.
                let sent = if input::diverted() == diverted {
                    input::sent().since(&before)
                } else {
                    Default::default()
                };
                delivery::after_input(&view, &state, sent, move || {
                    let _ = reply.send(Ok(Output::Value(value)));
                });
            }
            Err(message) => {
                let _ = reply.send(Err(ToolError::new(ErrorCode::NotInteractable, message)));
            }
        }
    };
    let run: Box<dyn FnOnce()> = if blank {
        Box::new(move || delivery::ensure_listening(&target, run))
    } else {
        Box::new(run)
    };
    if was_front {
        run();
    } else {
        glib::timeout_add_local_once(Duration::from_millis(60), run);
    }
}
