//! A new tab: its web view in its context's session, its state, and the
//! signals that tie the two (loads, scripts' messages, the window's own
//! requests: a page's window.open, its close, its title).

use super::browser::{window_title, Browser, Tab};
use super::context::{Context, WebData};
use super::event::UserEvent;
use crate::authorship::Way;
use crate::base::context::ContextId;
use crate::base::tab::TabId;
use crate::browser::input::receipts;
use crate::browser::network::network_watch;
use crate::browser::network::web_extension;
use crate::browser::page::nostr;
use crate::browser::page::person_typed;
use crate::browser::tab::console;
use crate::browser::tab::form_posts;
use crate::browser::tab::frame_relay;
use crate::browser::tab::state;
use crate::browser::tab::state::TabState;
use gtk::prelude::*;
use std::cell::RefCell;
use std::rc::{Rc, Weak};
use tao::platform::unix::WindowExtUnix;
use webkit2gtk::{UserContentManagerExt as _, WebViewExt as _};
use wry::{NewWindowResponse, WebViewBuilder, WebViewBuilderExtUnix, WebViewExtUnix};

impl Browser {
    /// Creates a tab in `context`. `related` is the opener for pages that
    /// open windows (they share its web process and `window.opener`).
    pub(super) fn add_tab(
        &mut self,
        related: Option<webkit2gtk::WebView>,
        context: ContextId,
    ) -> anyhow::Result<TabId> {
        let at = self
            .contexts
            .iter()
            .position(|c| c.info.id == context)
            .ok_or_else(|| anyhow::anyhow!("no context {context}"))?;
        let id = self.next_id;
        self.next_id += 1;
        let me = self.me.clone();
        let opener_state = related.as_ref().and_then(|opener| {
            self.tabs
                .iter()
                .find(|t| &t.webkit == opener)
                .map(|t| t.state.clone())
        });
        // An ephemeral context's session is made with its first tab; the
        // others join it by being related to one of its tabs.
        let sibling = self
            .tabs
            .iter()
            .find(|t| t.context == context)
            .map(|t| t.webkit.clone());
        let first_of_context = sibling.is_none();
        let ctx = &mut self.contexts[at];
        let ephemeral = matches!(ctx.data, WebData::Ephemeral);
        // No clipboard for page scripts (wry's with_clipboard): a page would
        // read what the person copied, their nsec included, with
        // execCommand('paste'). A page still copies on a person's click, and
        // the clipboard tools work from the browser's side.
        let builder = match &mut ctx.data {
            WebData::Kept(data) => WebViewBuilder::new_with_web_context(data),
            WebData::Ephemeral => WebViewBuilder::new().with_incognito(true),
        };
        let mut builder =
            builder
                .with_clipboard(false)
                .with_new_window_req_handler(move |url, features| {
                    open_from_page(&me, url, features.opener.webview)
                });
        if let Some(view) = related.or(sibling.filter(|_| ephemeral)) {
            builder = builder.with_related_view(view);
        }
        if first_of_context {
            // Download handlers belong to the context's session: connect them once.
            let (started, finished) = (self.downloads.clone(), self.downloads.clone());
            builder = builder
                .with_download_started_handler(move |url, path| started.start(context, url, path))
                .with_download_completed_handler(move |url, path, ok| {
                    finished.finish(&url, path, ok)
                });
        }
        let view = builder.build_gtk(&ctx.stack)?;
        let webkit = view.webview();
        if !ctx.configured.replace(true) {
            // Before the context's first load: its first tab's page.
            if let (Some(dir), Some(session)) = (&self.web_extension, webkit.context()) {
                web_extension::load_in(&session, dir);
            }
            self.network.apply(&webkit);
            ctx.settings.hook_geolocation(&webkit);
            if let Some(session) = webkit.context() {
                self.downloads.watch(&session);
            }
            if let Some(manager) = webkit.website_data_manager() {
                // Routes or offline set before the context had a tab.
                ctx.settings.apply_proxy(&manager);
            }
        }
        let ctx = &self.contexts[at];
        if let Some(manager) = webkit.user_content_manager() {
            manager.add_script(&self.agent_script);
        }
        let state = Rc::new(TabState::new(
            id,
            self.publisher.clone(),
            opener_state.as_deref(),
            &self.agent_scripted,
            &self.budget,
            &self.seat,
        ));
        if ctx.routed.get() {
            // Before its first load: an agent's route may answer it.
            state.related().about_to_reach(Way::Route);
        }
        if let Some(manager) = webkit.user_content_manager() {
            manager.add_script(&ctx.settings.offline_script());
            if let Some(script) = ctx.settings.emulation_script() {
                manager.add_script(&script);
            }
            manager.add_script(&self.input_script);
            receipts::listen(&manager, state.receipts());
            form_posts::listen(&manager, state.forms());
            person_typed::listen(&manager, &state, self.asks.clone(), ctx.front.clone());
            frame_relay::listen(&manager, state.frames());
        }
        console::listen(&webkit, state.console());
        crate::browser::page::page_memory::listen(&webkit, &state);
        nostr::install(&webkit, id, &self.nostr_scripts, &self.nostr_calls);
        ctx.settings.connect(&webkit, &state);
        ctx.settings.emulate_in(&webkit);
        state::connect(&webkit, &state, self.server_port.clone());
        let routing = self.routing.clone();
        let routed = move |method: &str, url: &str| routing.take_routed(context, method, url);
        network_watch::watch(&webkit, &state, Rc::new(routed));
        let seat = self.seat.clone();
        webkit.connect_context_menu(move |_, _, event, _| seat.context_menu_is_agents(event));
        self.connect_window_signals(&webkit, id, ctx);
        let position = self.strip(context).len();
        ctx.chrome.add_tab(id, position);
        // A context's tabs stay together, in strip order.
        let at = self
            .tabs
            .iter()
            .rposition(|t| t.context == context)
            .map_or(self.tabs.len(), |i| i + 1);
        self.tabs.insert(
            at,
            Tab {
                state,
                _view: view,
                webkit,
                opener: None,
                context,
            },
        );
        self.publish_tabs();
        Ok(id)
    }

    /// Keeps the window title on the front tab's title; hears `window.close()`.
    fn connect_window_signals(&self, webkit: &webkit2gtk::WebView, id: TabId, ctx: &Context) {
        let front = ctx.front.clone();
        let (gtk_window, info) = (ctx.window.gtk_window().clone(), ctx.info.clone());
        webkit.connect_title_notify(move |view| {
            if front.get() == id {
                gtk_window.set_title(&window_title(&info, view));
            }
        });
        // window.close(): wry answers WebKit's close signal by destroying
        // the view, which disconnects every later handler, so the tab
        // hears of it as the view's destruction.
        let proxy = self.proxy.clone();
        webkit.connect_destroy(move |_| {
            let _ = proxy.send_event(UserEvent::TabClosedByPage(id));
        });
        // The chrome follows title, address and loading state, and says
        // when the page crashed.
        let proxy = self.proxy.clone();
        webkit.connect_web_process_terminated(move |_, _| {
            let _ = proxy.send_event(UserEvent::TabChanged(id));
        });
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
    let Some((opener_id, context)) = b
        .tabs
        .iter()
        .find(|t| t.webkit == opener)
        .map(|t| (t.state.id(), t.context))
    else {
        return NewWindowResponse::Deny;
    };
    match b.add_tab(Some(opener), context) {
        Ok(id) => {
            let Some(at) = b.index_of(id) else {
                return NewWindowResponse::Deny;
            };
            b.tabs[at].opener = Some(opener_id);
            b.tabs[at].state.set_requested_url(url);
            b.show(id);
            let webview = b.tab(id).ok().map(|t| t.webkit.clone());
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
