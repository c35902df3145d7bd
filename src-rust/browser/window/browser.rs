//! The window and its tabs: creating, showing and closing tabs, the
//! control panel's own window, and the state the tab strip publishes.

use super::chrome::ChromeShared;
use super::context::Context;
use super::downloads;
use super::event::UserEvent;
use super::options::BrowserOptions;
use crate::authorship::Way;
use crate::base::context::{ContextId, ContextInfo, DEFAULT_CONTEXT};
use crate::base::error::{ErrorCode, ToolError};
use crate::base::tab::{TabId, TabInfo};
use crate::bridge::{Navigation, Output, SettingsChange};
use crate::browser::input::receipts;
use crate::browser::input::seat::Seat;
use crate::browser::network::web_extension;
use crate::browser::page::nostr;
use crate::browser::page::person_typed;
use crate::browser::page::script;
use crate::browser::tab::state;
use crate::browser::tab::state::{Publisher, TabState};
use crate::browser::webkit::agent_world;
use gtk::prelude::*;
use serde_json::{json, Value};
use std::cell::{Cell, RefCell};
use std::path::PathBuf;
use std::rc::{Rc, Weak};
use std::time::Duration;
use tao::dpi::LogicalSize;
use tao::event_loop::{EventLoopProxy, EventLoopWindowTarget};
use tao::platform::unix::WindowExtUnix;
use tao::window::{Window, WindowBuilder};
use webkit2gtk::UserScript;
use webkit2gtk::{WebContextExt as _, WebViewExt as _, WebsiteDataManagerExt as _};
use wry::{WebViewBuilder, WebViewBuilderExtUnix};

pub use crate::config::PANEL_WINDOW_SIZE;

/// Why a tab does not open the browser's own server.
const OWN_SERVER_REFUSED: &str =
    "url: that is this browser's own server (the person's control panel); tabs do not open it";

pub(crate) struct Tab {
    pub(crate) state: Rc<TabState>,
    /// Owns the web view: dropping it destroys the view.
    pub(super) _view: wry::WebView,
    pub(crate) webkit: webkit2gtk::WebView,
    pub(crate) opener: Option<TabId>,
    pub(crate) context: ContextId,
}

pub struct Browser {
    /// The open contexts, each with its window; the person's first.
    pub(super) contexts: Vec<Context>,
    pub(super) next_context: ContextId,
    /// Every context's tabs, each context's in its strip's order.
    pub(super) tabs: Vec<Tab>,
    pub(super) next_id: TabId,
    pub(super) proxy: EventLoopProxy<UserEvent>,
    pub(super) agent_script: UserScript,
    pub(super) input_script: UserScript,
    /// The web extension's folder, handed to each context's WebKit session.
    pub(super) web_extension: Option<PathBuf>,
    pub(super) nostr_scripts: nostr::NostrScripts,
    pub(super) nostr_calls: crate::base::page_event::PageCalls,
    pub(super) routing: std::sync::Arc<crate::routes::Routing>,
    /// Where tabs an agent ran its own script in are marked.
    pub(super) agent_scripted: std::sync::Arc<crate::agent_scripts::AgentScripted>,
    /// Agents' requests for the person (ask_person).
    pub(super) asks: std::sync::Arc<crate::asks::Asks>,
    pub(super) downloads: downloads::Downloads,
    /// The control panel's own window (not a tab: agents never see it).
    pub(super) panel: Option<(Window, wry::WebView)>,
    pub(super) panel_url: Option<String>,
    /// The port of the browser's own server: tabs never load its pages.
    pub(super) server_port: Rc<Cell<u16>>,
    pub(super) allow_file_urls: bool,
    pub(super) panel_beside: bool,
    pub(super) chrome_shared: ChromeShared,
    pub(super) network: NetworkOptions,
    /// Where kept contexts' folders are (one per name).
    pub(super) contexts_dir: PathBuf,
    pub(super) window_size: (u32, u32),
    pub(super) search_url: Option<String>,
    pub(super) publisher: Publisher,
    /// What pages make the browser keep, for all tabs together.
    pub(super) budget: Rc<crate::browser::tab::budget::Budget>,
    /// What agents' input handed to GTK, for every tab and window.
    pub(super) seat: Rc<Seat>,
    pub(super) me: Weak<RefCell<Browser>>,
}

pub type SharedBrowser = Rc<RefCell<Browser>>;

impl Browser {
    /// Cancels a download an agent started in `context`.
    pub fn cancel_download(&self, context: ContextId, id: u64) -> Result<Value, ToolError> {
        self.downloads.cancel(context, id)
    }

    /// The seat agents and the person share on this display.
    pub fn seat(&self) -> &Rc<Seat> {
        &self.seat
    }

    /// Opens the window with one tab on the start page.
    pub fn create(
        target: &EventLoopWindowTarget<UserEvent>,
        proxy: EventLoopProxy<UserEvent>,
        options: BrowserOptions,
    ) -> anyhow::Result<SharedBrowser> {
        let seat = Rc::new(Seat::watch());
        let chrome_shared = ChromeShared {
            proxy: proxy.clone(),
            paused: options.paused.clone(),
            asks: options.asks.clone(),
            agent_scripted: options.agent_scripted.clone(),
            vault_uses: options.vault_uses.clone(),
            seat: seat.clone(),
        };
        let person = Context::open(
            target,
            ContextInfo::default_context(),
            Some(options.web_data.clone()),
            options.window_size,
            &chrome_shared,
            options.proxy.clone(),
        )?;
        let agent_script = agent_world::script_in_every_frame(script::agent_source());
        let browser = Rc::new(RefCell::new(Browser {
            contexts: vec![person],
            next_context: DEFAULT_CONTEXT + 1,
            tabs: Vec::new(),
            next_id: 1,
            proxy: proxy.clone(),
            agent_script,
            input_script: receipts::script(),
            web_extension: web_extension::install(&options.web_data)
                .inspect_err(|e| {
                    tracing::warn!("cannot write the web extension ({e}): console capture is off")
                })
                .ok(),
            nostr_scripts: nostr::NostrScripts::new(),
            nostr_calls: options.nostr_calls.clone(),
            routing: options.routing.clone(),
            agent_scripted: options.agent_scripted.clone(),
            asks: options.asks.clone(),
            downloads: downloads::Downloads::new(
                options.downloads.clone(),
                options.downloads_max_bytes,
                proxy.clone(),
                options.publisher.clone(),
            ),
            panel: None,
            panel_url: None,
            server_port: Rc::new(Cell::new(0)),
            allow_file_urls: options.allow_file_urls,
            panel_beside: options.panel_beside,
            chrome_shared,
            network: NetworkOptions::of(&options),
            contexts_dir: options.contexts_dir.clone(),
            window_size: options.window_size,
            search_url: options.search_url.clone(),
            publisher: options.publisher.clone(),
            budget: Rc::default(),
            seat,
            me: Weak::new(),
        }));
        browser.borrow_mut().me = Rc::downgrade(&browser);
        watch_activity(&browser, &options);
        let me = Rc::downgrade(&browser);
        crate::browser::page::page_memory::watch(options.page_memory_mib, move || {
            use crate::browser::page::page_memory::Pages;
            let Some(browser) = me.upgrade() else {
                return Pages::Gone;
            };
            let Ok(browser) = browser.try_borrow() else {
                return Pages::Busy;
            };
            Pages::Live(
                browser
                    .tabs
                    .iter()
                    .map(|t| (t.state.clone(), t.webkit.clone()))
                    .collect(),
            )
        });
        let first = browser.borrow_mut().add_tab(None, DEFAULT_CONTEXT)?;
        if let Ok(tab) = browser.borrow().tab(first) {
            crate::browser::network::cookies::forget_legacy_panel_cookies(&tab.webkit);
        }
        browser.borrow_mut().show(first);
        browser.borrow().load(first, &options.start_url);
        Ok(browser)
    }

    /// Opens the control panel in a window of its own, in a web context of
    /// its own: an ephemeral one (nothing on disk), sharing no cookie jar,
    /// storage or cache with any tab, so nothing an agent or a page reaches
    /// through a tab holds what the panel keeps.
    pub fn open_panel(
        &mut self,
        target: &EventLoopWindowTarget<UserEvent>,
        url: &str,
    ) -> anyhow::Result<()> {
        let (w, h) = PANEL_WINDOW_SIZE;
        let window = WindowBuilder::new()
            .with_title("Sovereign Browser — Control panel")
            .with_inner_size(LogicalSize::new(w, h))
            .build(target)?;
        if self.panel_beside {
            // Right of the browser's window: agents' real pointer stays on
            // the tabs' side of the screen.
            let (width, _) = self.contexts[0].window.gtk_window().size();
            window.gtk_window().move_(width, 0);
        }
        let vbox = window
            .default_vbox()
            .ok_or_else(|| anyhow::anyhow!("the panel window has no content box"))?;
        let view = WebViewBuilder::new()
            .with_incognito(true)
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
    pub(super) fn may_open(&self, url: &str) -> Result<(), ToolError> {
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

    /// An open context.
    pub(crate) fn context(&self, id: ContextId) -> Result<&Context, ToolError> {
        self.contexts
            .iter()
            .find(|c| c.info.id == id)
            .ok_or_else(|| no_context(id))
    }

    /// The context a tab belongs to.
    pub(crate) fn context_of(&self, tab: TabId) -> Result<&Context, ToolError> {
        self.context(self.tab(tab)?.context)
    }

    pub(super) fn index_of(&self, id: TabId) -> Option<usize> {
        self.tabs.iter().position(|t| t.state.id() == id)
    }

    pub(crate) fn tab(&self, id: TabId) -> Result<&Tab, ToolError> {
        self.index_of(id).map(|i| &self.tabs[i]).ok_or_else(|| {
            ToolError::new(
                ErrorCode::NoTab,
                "that tab was closed; use tab_list to see the open tabs",
            )
        })
    }

    pub(crate) fn load(&self, id: TabId, url: &str) {
        if let (Ok(tab), Ok(context)) = (self.tab(id), self.context_of(id)) {
            tab.state.note_requested();
            let sent = context.settings.load(&tab.webkit, url);
            tab.state.set_sent_headers(sent);
            tab.state.publish(&tab.webkit);
        }
    }

    /// Publishes the tab strip: which tabs, in what order, which is in
    /// front, who opened whom; then each tab's own state.
    pub(super) fn publish_tabs(&self) {
        let mut counts: std::collections::HashMap<ContextId, usize> = Default::default();
        let order: Vec<(TabId, Option<TabId>, ContextId, usize, bool)> = self
            .tabs
            .iter()
            .map(|t| {
                let index = counts.entry(t.context).or_default();
                *index += 1;
                let front = self
                    .context(t.context)
                    .is_ok_and(|c| c.front.get() == t.state.id());
                (t.state.id(), t.opener, t.context, *index - 1, front)
            })
            .collect();
        let contexts: Vec<ContextInfo> = self.contexts.iter().map(|c| c.info.clone()).collect();
        self.publisher.send_modify(|state| {
            let tabs = order
                .iter()
                .map(|&(id, opener, context, index, front)| {
                    let mut info = state.tab(id).cloned().unwrap_or_else(|| TabInfo {
                        id,
                        ..TabInfo::default()
                    });
                    info.context = context;
                    info.index = index;
                    info.front = front;
                    info.opener = opener;
                    info
                })
                .collect();
            state.tabs = tabs;
            state.contexts = contexts;
        });
        for tab in &self.tabs {
            tab.state.publish(&tab.webkit);
        }
    }

    /// Brings a tab to the front of its context's window.
    pub(crate) fn show(&mut self, id: TabId) {
        let Ok(tab) = self.tab(id) else { return };
        let view = tab.webkit.clone();
        let crashed = tab.state.crashed();
        let Ok(ctx) = self.context(tab.context) else {
            return;
        };
        let previous = ctx.front.replace(id);
        ctx.stack.set_visible_child(&view);
        ctx.window
            .gtk_window()
            .set_title(&window_title(&ctx.info, &view));
        ctx.chrome.update_tab(id, &view, true, true, crashed);
        self.refresh_chrome(previous);
        self.publish_tabs();
    }

    /// Brings the chrome up to date with one tab.
    pub(crate) fn refresh_chrome(&self, id: TabId) {
        if let Ok(tab) = self.tab(id) {
            if let Ok(ctx) = self.context(tab.context) {
                let front = ctx.front.get() == id;
                let crashed = tab.state.crashed();
                ctx.chrome
                    .update_tab(id, &tab.webkit, front, false, crashed);
            }
        }
    }

    pub(crate) fn close_tab(&mut self, id: TabId) -> Result<Value, ToolError> {
        let index = self
            .index_of(id)
            .ok_or_else(|| ToolError::new(ErrorCode::NoTab, "that tab is already closed"))?;
        let context = self.tabs[index].context;
        let strip_index = self.tab_info_index(id);
        if self.strip(context).len() == 1 {
            // Tools never end a context by closing tabs: the last tab leaves
            // a blank one, made first so that an ephemeral context's session
            // (held by its tabs) lives on.
            let blank = self
                .add_tab(None, context)
                .map_err(|e| ToolError::internal(e.to_string()))?;
            self.load(blank, "about:blank");
            self.show(blank);
        }
        let index = self
            .index_of(id)
            .ok_or_else(|| ToolError::new(ErrorCode::NoTab, "that tab is already closed"))?;
        let tab = self.tabs.remove(index);
        tab.state.related().leave(id);
        let _ = self
            .nostr_calls
            .send(crate::base::page_event::PageEvent::PageGone { tab: id });
        if let Ok(ctx) = self.context(context) {
            ctx.stack.remove(&tab.webkit);
            ctx.chrome.remove_tab(id);
        }
        drop(tab);
        let left = self.strip(context);
        if !left.is_empty()
            && self
                .context(context)
                .is_ok_and(|c| !left.contains(&c.front.get()))
        {
            self.show(left[strip_index.min(left.len() - 1)]);
        }
        self.publish_tabs();
        let tabs = self.strip(context).len();
        Ok(json!({"closed": strip_index, "tabs": tabs}))
    }

    /// A tab's place in its context's strip.
    fn tab_info_index(&self, id: TabId) -> usize {
        let Some(context) = self.tab(id).ok().map(|t| t.context) else {
            return 0;
        };
        let strip = self.strip(context);
        strip.iter().position(|&t| t == id).unwrap_or(0)
    }

    /// A context's tabs, in its strip's order.
    pub(crate) fn strip(&self, context: ContextId) -> Vec<TabId> {
        self.tabs
            .iter()
            .filter(|t| t.context == context)
            .map(|t| t.state.id())
            .collect()
    }

    /// Opens a tab in front of `context`'s window, at `url` or a blank page.
    pub(crate) fn open_tab(
        &mut self,
        url: Option<&str>,
        behind: bool,
        context: ContextId,
    ) -> Result<Value, ToolError> {
        if let Some(url) = url {
            self.may_open(url)?;
        }
        self.context(context)?;
        let id = self
            .add_tab(None, context)
            .map_err(|e| ToolError::internal(format!("could not open a tab: {e}")))?;
        if !behind {
            self.show(id);
        }
        self.load(id, url.unwrap_or("about:blank"));
        Ok(json!({"id": id}))
    }

    pub(crate) fn bring_to_front(&mut self, id: TabId) -> Result<Value, ToolError> {
        self.tab(id)?;
        self.show(id);
        Ok(json!({"id": id}))
    }

    /// Starts a navigation and answers with the load counters from before it,
    /// so the caller can wait for this navigation to end.
    pub(crate) fn navigate(&self, id: TabId, nav: Navigation) -> Result<Output, ToolError> {
        let b = self;
        let tab = b.tab(id)?;
        // A crashed tab may navigate (that is how it recovers); a dialog must be answered first.
        if tab.state.has_dialog() {
            if let Some(error) = tab.state.blocked() {
                return Err(error);
            }
        }
        let before = tab.state.nav();
        tab.state.leaving_page();
        let view = &tab.webkit;
        let settings = &b.context_of(id)?.settings;
        let mut same_document = false;
        match &nav {
            Navigation::Load(url) => b.may_open(url)?,
            // A document of that origin (a state file's) is as good as a load.
            Navigation::Html { base, .. } => b.may_open(base)?,
            _ => {}
        }
        match nav {
            Navigation::Load(url) => {
                same_document = state::is_same_document(view.uri().as_deref(), &url);
                tab.state.set_sent_headers(settings.load(view, &url));
            }
            Navigation::Html { html, base } => view.load_html(&html, Some(&base)),
            Navigation::Back if view.can_go_back() => {
                tab.state.set_sent_headers(settings.headers_ever_set());
                view.go_back()
            }
            Navigation::Forward if view.can_go_forward() => {
                tab.state.set_sent_headers(settings.headers_ever_set());
                view.go_forward()
            }
            Navigation::Reload => match view.uri() {
                // Repeating the request would not add headers set since, nor
                // drop the ones it carried: load again, a new GET. Otherwise
                // repeat it (a form's POST is posted again).
                Some(uri) if settings.has_headers() || tab.state.sent_headers() => {
                    tab.state
                        .set_sent_headers(settings.reload_fresh(view, &uri));
                }
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

    /// The web views of `context`'s tabs.
    pub(crate) fn views_of(&self, context: ContextId) -> Vec<webkit2gtk::WebView> {
        self.tabs
            .iter()
            .filter(|t| t.context == context)
            .map(|t| t.webkit.clone())
            .collect()
    }

    /// Refuses a new route in `context` while one of its pages holds what
    /// the person owns (`person_typed::routes_refused`).
    pub(crate) fn may_route(&self, context: ContextId) -> Result<Value, ToolError> {
        self.context(context)?;
        let refused = self
            .tabs
            .iter()
            .filter(|t| t.context == context)
            .find_map(|t| person_typed::routes_refused(&t.state));
        match refused {
            Some(error) => Err(error),
            None => Ok(Value::Null),
        }
    }

    /// Sends `context`'s requests through the routing proxy (`access`),
    /// or straight to the sites again.
    pub(crate) fn route_context(
        &self,
        context: ContextId,
        access: Option<crate::routes::ProxyAccess>,
    ) -> Result<Value, ToolError> {
        let ctx = self.context(context)?;
        let Some(access) = access else {
            return ctx.settings.stop_routing(&self.views_of(context));
        };
        // Marked before the first route is added, so before any page it
        // answers can commit.
        ctx.routed.set(true);
        for tab in self.tabs.iter().filter(|t| t.context == context) {
            tab.state.related().about_to_reach(Way::Route);
        }
        ctx.settings.route_through(&self.views_of(context), access)
    }

    /// The person removed every route of `context` (its window's bar): its
    /// requests go straight to the sites again. False when an agent is
    /// changing routes right now: ask again in a moment.
    pub(super) fn remove_routes(&self, context: ContextId) -> bool {
        let Some(_turn) = self.routing.try_turn() else {
            return false;
        };
        self.routing.clear(context);
        if self.routing.engaged(context) {
            if let Err(error) = self.route_context(context, None) {
                tracing::warn!(%error, "the window's requests could not go straight again");
            }
            self.routing.set_engaged(context, false);
        }
        true
    }

    /// Has `context`'s engine accept the routing proxy's certificate for
    /// `host` (that site only, in that context only), and answers once the
    /// network process has taken it: WebKit sends it there without waiting,
    /// so a question sent after it (the site's cookies) is answered after
    /// it was handled.
    pub(crate) fn trust_site(
        &self,
        context: ContextId,
        host: &str,
        pem: &str,
        reply: crate::bridge::Reply,
    ) {
        let taken = (|| {
            let view = self
                .tabs
                .iter()
                .find(|t| t.context == context)
                .map(|t| t.webkit.clone())
                .ok_or_else(|| no_context(context))?;
            let session = view
                .context()
                .ok_or_else(|| ToolError::internal("the tab has no web context"))?;
            let certificate = gio::TlsCertificate::from_pem(pem)
                .map_err(|e| ToolError::internal(format!("the site's certificate: {e}")))?;
            session.allow_tls_certificate_for_host(&certificate, host);
            session
                .website_data_manager()
                .and_then(|m| m.cookie_manager())
                .ok_or_else(|| ToolError::internal("the context has no cookie manager"))
        })();
        let cookies = match taken {
            Ok(cookies) => cookies,
            Err(error) => {
                let _ = reply.send(Err(error));
                return;
            }
        };
        let url = format!("https://{host}/");
        let host = host.to_string();
        webkit2gtk::CookieManagerExt::cookies(&cookies, &url, gio::Cancellable::NONE, move |_| {
            let _ = reply.send(Ok(Output::Value(json!({"host": host}))));
        });
    }

    pub(crate) fn change_setting(
        &self,
        id: TabId,
        change: SettingsChange,
    ) -> Result<Value, ToolError> {
        let view = self.tab(id)?.webkit.clone();
        let context = self.context_of(id)?;
        let settings = &context.settings;
        match change {
            SettingsChange::Headers(headers) => Ok(settings.set_headers(headers)),
            SettingsChange::Credentials(change) => settings.set_credentials(change),
            SettingsChange::Offline(offline) => {
                // One network session a context: all its tabs are offline.
                settings.set_offline(&self.views_of(context.info.id), offline)
            }
            SettingsChange::DarkScheme(dark) => {
                // WebKitGTK answers prefers-color-scheme from the GTK theme variant.
                let gtk_settings = gtk::Settings::default()
                    .ok_or_else(|| ToolError::internal("no GTK settings"))?;
                gtk_settings.set_gtk_application_prefer_dark_theme(dark);
                Ok(json!({"color_scheme": if dark { "dark" } else { "light" }}))
            }
            SettingsChange::UserAgent(agent) => {
                let views = self.views_of(context.info.id);
                Ok(settings.set_user_agent(&views, agent))
            }
            SettingsChange::Locale(locale) => {
                let views = self.views_of(context.info.id);
                settings.set_locale(&views, locale)
            }
            SettingsChange::Geolocation(position) => {
                let views = self.views_of(context.info.id);
                settings.set_geolocation(&views, position)
            }
            SettingsChange::Timezone(zone) => {
                let views = self.views_of(context.info.id);
                Ok(settings.set_timezone(&views, zone))
            }
            SettingsChange::DeviceLook(look) => {
                let views = self.views_of(context.info.id);
                Ok(settings.set_device_look(&views, look))
            }
            SettingsChange::Viewport { width, height } => {
                // The window also holds the toolbar and tab strip: add their size.
                let allocation = view.allocation();
                let window = &self.context_of(id)?.window;
                let inner = window.inner_size().to_logical::<f64>(window.scale_factor());
                let extra_w = (inner.width - f64::from(allocation.width())).max(0.0);
                let extra_h = (inner.height - f64::from(allocation.height())).max(0.0);
                window.set_inner_size(LogicalSize::new(
                    f64::from(width) + extra_w,
                    f64::from(height) + extra_h,
                ));
                Ok(json!({"width": width, "height": height}))
            }
        }
    }
}

/// The shortest gap between two redraws of what the agents do: calls in a
/// loop redraw the toolbar a few times a second, not at each call.
const REDRAW_GAP: Duration = Duration::from_millis(100);

/// Shows what the agents do, and each tab's mark and the bar of a request
/// for the person, when one of them changes (woken by its signal).
fn watch_activity(browser: &SharedBrowser, options: &BrowserOptions) {
    let weak = Rc::downgrade(browser);
    let activity = options.activity.clone();
    let mut signals = [
        activity.watch(),
        options.asks.watch(),
        options.agent_scripted.watch(),
    ];
    glib::MainContext::default().spawn_local(async move {
        let (mut shown, mut asks_shown) = (None, None);
        loop {
            let waits = signals.iter_mut().map(|s| Box::pin(s.changed()));
            if futures_util::future::select_all(waits).await.0.is_err() {
                return;
            }
            glib::timeout_future(REDRAW_GAP).await;
            signals.iter_mut().for_each(|s| s.mark_unchanged());
            // Drawn once the window is free (never skipped: no later change
            // may come to draw it).
            loop {
                let Some(browser) = weak.upgrade() else {
                    return;
                };
                let Ok(b) = browser.try_borrow() else {
                    drop(browser);
                    glib::timeout_future(REDRAW_GAP).await;
                    continue;
                };
                let seen = activity.seen();
                if shown != Some(seen.version) {
                    shown = Some(seen.version);
                    for ctx in &b.contexts {
                        ctx.chrome.show_activity(&seen.label, &seen.tabs);
                    }
                    for id in seen.tabs.keys() {
                        b.refresh_chrome(*id);
                    }
                }
                // A request for the person started or ended: every tab's
                // mark, and the bar over the tab in front.
                let asks = b.contexts[0].chrome.asks_version();
                if asks_shown != Some(asks) {
                    asks_shown = Some(asks);
                    for tab in &b.tabs {
                        b.refresh_chrome(tab.state.id());
                    }
                }
                break;
            }
        }
    });
}

/// The network settings every context's session gets.
pub(super) struct NetworkOptions {
    /// The person's favicons (the tab strip's icons); other contexts keep none.
    favicons: PathBuf,
    ignore_certificate_errors: bool,
    pub(crate) proxy: Option<String>,
}

impl NetworkOptions {
    fn of(options: &BrowserOptions) -> NetworkOptions {
        NetworkOptions {
            favicons: options.web_data.join("favicons"),
            ignore_certificate_errors: options.ignore_certificate_errors,
            proxy: options.proxy.clone(),
        }
    }

    /// Applies them to the session of `view`'s context (its first tab).
    pub(super) fn apply(&self, view: &webkit2gtk::WebView) {
        let Some(session) = view.context() else {
            tracing::warn!("a tab without a web context: network settings not applied");
            return;
        };
        let Some(manager) = session.website_data_manager() else {
            tracing::warn!("no website data manager: network settings not applied");
            return;
        };
        if !manager.is_ephemeral() {
            session.set_favicon_database_directory(self.favicons.to_str());
        }
        if self.ignore_certificate_errors {
            tracing::warn!("TLS certificate errors are ignored (--ignore-certificate-errors)");
            manager.set_tls_errors_policy(webkit2gtk::TLSErrorsPolicy::Ignore);
        }
        if let Some(proxy) = &self.proxy {
            let mut settings = webkit2gtk::NetworkProxySettings::new(Some(proxy), &[]);
            manager.set_network_proxy_settings(
                webkit2gtk::NetworkProxyMode::Custom,
                Some(&mut settings),
            );
        }
    }
}

pub(crate) fn window_title(context: &ContextInfo, view: &webkit2gtk::WebView) -> String {
    super::context::title_of(context, view.title().as_deref())
}

pub(super) fn no_context(id: ContextId) -> ToolError {
    ToolError::new(
        ErrorCode::NoContext,
        format!("context {id} is not open (it was closed); context_list gives the open ones"),
    )
}
