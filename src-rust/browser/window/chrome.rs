//! The window's chrome for the person beside the agents: toolbar (back,
//! forward, reload/stop, address bar), agent activity and pause, the
//! identity in use, a button for the panel, a tab strip and a downloads bar.
//! Widgets only post [`ChromeAction`]s (see `event`); the event loop carries them out.

use super::ask_bar::AskBar;
use super::event::{ChromeAction, UserEvent};
use super::notice_bar::notice_bar;
use super::routes_bar::RoutesBar;
use super::vault_bar::VaultBar;
use crate::asks::Asks;
use crate::base::context::{ContextId, ContextInfo, DEFAULT_CONTEXT};
use crate::base::pause::Pause;
use crate::base::tab::PageEnd;
use crate::bridge::TabId;
use crate::browser::input::seat::Seat;
use crate::browser::input::trusted;
use crate::hold::Holds;
use gtk::prelude::*;
use std::cell::RefCell;
use std::collections::HashMap;
use std::rc::Rc;
use std::sync::Arc;
use tao::event_loop::EventLoopProxy;

struct TabButton {
    row: gtk::Box,
    icon: gtk::Image,
    title: gtk::Button,
}

pub struct Chrome {
    back: gtk::Button,
    forward: gtk::Button,
    reload: gtk::Button,
    address: gtk::Entry,
    activity: gtk::Label,
    pause: gtk::ToggleButton,
    identity: gtk::Label,
    strip: gtk::Box,
    tabs: RefCell<HashMap<TabId, TabButton>>,
    downloads: gtk::Label,
    /// Shown while web pages' window.nostr requests wait for the person.
    nostr_bar: gtk::Box,
    nostr_text: gtk::Label,
    nostr_review: gtk::Button,
    /// Shown while the front tab's page is crashed, with a way back.
    crashed_bar: gtk::Box,
    crashed_text: gtk::Label,
    crashed_reload: gtk::Button,
    /// Shown across the window while the person has paused the agents.
    paused_bar: gtk::Box,
    paused_resume: gtk::Button,
    /// An agent's request for the person, over the tab it is about.
    ask: AskBar,
    /// Agents' routes answer this window's requests.
    routes: RoutesBar,
    /// A use of the person's vault waits for their yes.
    vault: VaultBar,
    new_tab: gtk::Button,
    panel: gtk::Button,
    /// Where the tabs' pages are shown (for the layout).
    pages: gtk::Stack,
    poster: Poster,
    /// The context's name across the top (none for the person's context).
    band: Option<gtk::Label>,
    /// Tabs agents act on, with who acts.
    agent_tabs: RefCell<HashMap<TabId, String>>,
    /// What the person holds (the pause, the requests they handle).
    paused: Arc<Pause>,
    asks: Arc<Asks>,
}

/// Posts what the person did in one context's window.
#[derive(Clone)]
struct Poster {
    proxy: EventLoopProxy<UserEvent>,
    context: ContextId,
}

impl Poster {
    fn post(&self, action: ChromeAction) {
        let _ = self
            .proxy
            .send_event(UserEvent::Chrome(self.context, action));
    }
}

/// What every window's chrome shows alike: the person's pause, the
/// agents' requests for the person, the tabs agents ran scripts in.
#[derive(Clone)]
pub struct ChromeShared {
    pub proxy: EventLoopProxy<UserEvent>,
    pub paused: Arc<Pause>,
    pub asks: Arc<Asks>,
    pub agent_scripted: Arc<crate::agent_scripts::AgentScripted>,
    /// Uses of the person's vault waiting for their yes.
    pub vault_uses: Arc<crate::vault::Consents>,
    /// What agents' input is doing: their keys never reach the shortcuts.
    pub seat: Rc<Seat>,
}

/// Band colours of the contexts' windows (the default context has none):
/// told apart at a glance, each with text that reads on it.
const BANDS: [(&str, &str); 6] = [
    ("#1f6f43", "#ffffff"),
    ("#8a3b12", "#ffffff"),
    ("#1d4f91", "#ffffff"),
    ("#6b2c91", "#ffffff"),
    ("#8c6d00", "#ffffff"),
    ("#0f6b73", "#ffffff"),
];

fn button(label: &str, tooltip: &str) -> gtk::Button {
    let b = gtk::Button::with_label(label);
    b.set_tooltip_text(Some(tooltip));
    b.set_relief(gtk::ReliefStyle::None);
    b
}

impl Chrome {
    /// Builds the chrome around `stack` inside the window's `vbox`.
    /// `context` is the window's; a context other than the person's gets
    /// a coloured band with its name across the top.
    pub fn build(
        window: &gtk::ApplicationWindow,
        vbox: &gtk::Box,
        stack: &gtk::Stack,
        shared: &ChromeShared,
        context: &ContextInfo,
    ) -> Rc<Chrome> {
        let ChromeShared {
            proxy,
            paused,
            asks,
            agent_scripted,
            vault_uses,
            seat,
        } = shared.clone();
        let poster = Poster {
            proxy,
            context: context.id,
        };
        let toolbar = gtk::Box::new(gtk::Orientation::Horizontal, 4);
        toolbar.set_border_width(4);
        let back = button("◀", "Back (Alt+Left)");
        let forward = button("▶", "Forward (Alt+Right)");
        let reload = button("⟳", "Reload (F5)");
        let address = gtk::Entry::new();
        address.set_placeholder_text(Some("Search or enter an address (Ctrl+L)"));
        address.set_widget_name("address-bar");
        let activity = gtk::Label::new(Some("No agent activity"));
        activity.set_widget_name("agent-activity");
        let pause = gtk::ToggleButton::with_label("Pause agents");
        pause.set_tooltip_text(Some(
            "Take over: agents' browser tools answer PAUSED until you resume",
        ));
        pause.set_widget_name("pause-agents");
        let identity = gtk::Label::new(Some("Not logged in"));
        identity.set_widget_name("identity");
        // Long texts shorten rather than hold the window wide (set_viewport
        // may ask for a narrow one).
        address.set_width_chars(8);
        for label in [&activity, &identity] {
            label.set_ellipsize(gtk::pango::EllipsizeMode::End);
            label.set_max_width_chars(40);
        }
        // A fixed width: the address bar keeps its size whatever the
        // agents do.
        activity.set_width_chars(ACTIVITY_CHARS);
        activity.set_max_width_chars(ACTIVITY_CHARS);
        activity.set_xalign(0.0);
        let panel = button("Panel", "Open the control panel");
        for w in [
            back.upcast_ref::<gtk::Widget>(),
            forward.upcast_ref(),
            reload.upcast_ref(),
        ] {
            toolbar.pack_start(w, false, false, 0);
        }
        toolbar.pack_start(&address, true, true, 4);
        toolbar.pack_start(&activity, false, false, 4);
        toolbar.pack_start(&pause, false, false, 0);
        toolbar.pack_start(&identity, false, false, 4);
        toolbar.pack_start(&panel, false, false, 0);

        let strip = gtk::Box::new(gtk::Orientation::Horizontal, 2);
        strip.set_border_width(2);
        let new_tab = button("+", "New tab (Ctrl+T)");
        strip.pack_end(&new_tab, false, false, 0);

        let downloads = gtk::Label::new(None);
        downloads.set_widget_name("downloads");
        downloads.set_xalign(0.0);
        downloads.set_selectable(true);

        let nostr_text = gtk::Label::new(None);
        let nostr_review = button(
            "Answer in the control panel",
            "Open the control panel to allow or deny",
        );
        let nostr_bar = notice_bar("nostr-prompts", "🔑", &nostr_text, &nostr_review);
        nostr_bar.hide();

        let paused_text = gtk::Label::new(Some(
            "Agents are paused: their browser tools answer PAUSED until you resume. The tabs are yours.",
        ));
        let paused_resume = button(
            "Resume agents",
            "Let the agents' tools reach the pages again",
        );
        let paused_bar = notice_bar("agents-paused", "⏸", &paused_text, &paused_resume);
        paused_bar.style_context().add_class("paused-bar");
        paused_bar.set_visible(paused.is_paused());
        let crashed_text = gtk::Label::new(None);
        let crashed_reload = button("Reload", "Load this tab's page again");
        let crashed_bar = notice_bar("page-crashed", "💥", &crashed_text, &crashed_reload);
        crashed_bar.hide();
        let ask = AskBar::new(asks.clone(), agent_scripted);
        let routes = RoutesBar::new();
        let vault = VaultBar::new(vault_uses);
        install_style(window);

        let band = context_band(context);
        let toolbar_row = narrowable(&toolbar);
        let strip_row = narrowable(&strip);
        vbox.pack_start(&toolbar_row, false, false, 0);
        vbox.pack_start(&strip_row, false, false, 0);
        vbox.pack_start(&paused_bar, false, false, 0);
        vbox.pack_start(&ask.bar, false, false, 0);
        vbox.pack_start(&vault.bar, false, false, 0);
        vbox.pack_start(&nostr_bar, false, false, 0);
        vbox.pack_start(&crashed_bar, false, false, 0);
        vbox.pack_start(&routes.bar, false, false, 0);
        vbox.reorder_child(&toolbar_row, 0);
        vbox.reorder_child(&strip_row, 1);
        vbox.reorder_child(&paused_bar, 2);
        vbox.reorder_child(&ask.bar, 3);
        vbox.reorder_child(&vault.bar, 4);
        vbox.reorder_child(&nostr_bar, 5);
        vbox.reorder_child(&crashed_bar, 6);
        vbox.reorder_child(&routes.bar, 7);
        vbox.reorder_child(stack, 8);
        if let Some(band) = &band {
            vbox.pack_start(band, false, false, 0);
            vbox.reorder_child(band, 0);
            band.show_all();
        }
        vbox.pack_end(&downloads, false, false, 2);
        toolbar_row.show_all();
        strip_row.show_all();

        let p = poster.clone();
        back.connect_clicked(move |_| p.post(ChromeAction::Back));
        let p = poster.clone();
        forward.connect_clicked(move |_| p.post(ChromeAction::Forward));
        let p = poster.clone();
        reload.connect_clicked(move |_| p.post(ChromeAction::ReloadOrStop));
        // A click into the address selects it all, as browsers do.
        address.connect_focus_in_event(|entry, _| {
            let entry = entry.clone();
            glib::idle_add_local_once(move || entry.select_region(0, -1));
            glib::Propagation::Proceed
        });
        let p = poster.clone();
        address.connect_activate(move |entry| {
            p.post(ChromeAction::Navigate(entry.text().to_string()))
        });
        let p = poster.clone();
        new_tab.connect_clicked(move |_| p.post(ChromeAction::NewTab));
        let p = poster.clone();
        panel.connect_clicked(move |_| p.post(ChromeAction::OpenPanel));
        let p = poster.clone();
        nostr_review.connect_clicked(move |_| p.post(ChromeAction::OpenPanel));
        let p = poster.clone();
        crashed_reload.connect_clicked(move |_| p.post(ChromeAction::ReloadOrStop));
        let p = poster.clone();
        routes
            .remove
            .connect_clicked(move |_| p.post(ChromeAction::RemoveRoutes));
        pause.set_active(paused.is_paused());
        let flag = paused.clone();
        let bar = paused_bar.clone();
        pause.connect_toggled(move |b| {
            flag.set(b.is_active());
            bar.set_visible(b.is_active());
            b.set_label(if b.is_active() {
                "Resume agents"
            } else {
                "Pause agents"
            });
            tracing::info!(paused = b.is_active(), "agents paused from the window");
        });
        let toggle = pause.clone();
        paused_resume.connect_clicked(move |_| toggle.set_active(false));
        let p = poster.clone();
        let out = seat.clone();
        window.connect_key_press_event(move |window, event| {
            let agents = trusted::is_agents_key(event);
            if agents && !out.delivering() {
                return handed_back(window.upcast_ref(), event);
            }
            match shortcut(event) {
                Some(action) if !agents => {
                    p.post(action);
                    glib::Propagation::Stop
                }
                _ => glib::Propagation::Proceed,
            }
        });
        window.connect_key_release_event(move |window, event| {
            let agents = trusted::is_agents_key(event);
            if agents && !seat.delivering() {
                handed_back(window.upcast_ref(), event)
            } else {
                glib::Propagation::Proceed
            }
        });

        Rc::new(Chrome {
            back,
            forward,
            reload,
            address,
            activity,
            pause,
            identity,
            strip,
            tabs: RefCell::new(HashMap::new()),
            downloads,
            nostr_bar,
            nostr_text,
            nostr_review,
            crashed_bar,
            crashed_text,
            crashed_reload,
            paused_bar,
            paused_resume,
            ask,
            routes,
            vault,
            new_tab,
            panel,
            pages: stack.clone(),
            poster,
            band,
            agent_tabs: RefCell::new(HashMap::new()),
            paused,
            asks,
        })
    }

    pub fn add_tab(&self, id: TabId, position: usize) {
        let row = gtk::Box::new(gtk::Orientation::Horizontal, 0);
        let title = gtk::Button::with_label("New tab");
        title.set_relief(gtk::ReliefStyle::None);
        if let Some(label) = title.child().and_then(|c| c.downcast::<gtk::Label>().ok()) {
            label.set_max_width_chars(22);
            label.set_ellipsize(pango_ellipsize_end());
        }
        let close = button("×", "Close tab (Ctrl+W)");
        let icon = gtk::Image::new();
        row.pack_start(&icon, false, false, 4);
        row.pack_start(&title, false, false, 0);
        row.pack_start(&close, false, false, 0);
        let p = self.poster.clone();
        title.connect_clicked(move |_| p.post(ChromeAction::Select(id)));
        let p = self.poster.clone();
        close.connect_clicked(move |_| p.post(ChromeAction::Close(id)));
        self.strip.pack_start(&row, false, false, 0);
        self.strip.reorder_child(&row, position as i32);
        row.show_all();
        self.tabs
            .borrow_mut()
            .insert(id, TabButton { row, icon, title });
    }

    pub fn remove_tab(&self, id: TabId) {
        if let Some(tab) = self.tabs.borrow_mut().remove(&id) {
            self.strip.remove(&tab.row);
        }
        self.agent_tabs.borrow_mut().remove(&id);
    }

    /// Updates a tab's button, and the toolbar when it is the front tab.
    /// `crashed`: its page's web process ended (the person is told, with
    /// a way to load it again).
    pub fn update_tab(
        &self,
        id: TabId,
        view: &webkit2gtk::WebView,
        front: bool,
        switched: bool,
        crashed: Option<PageEnd>,
    ) {
        use webkit2gtk::WebViewExt;
        let title = view
            .title()
            .map(|t| t.to_string())
            .filter(|t| !t.is_empty());
        let uri = view.uri().map(|u| u.to_string()).unwrap_or_default();
        let loading = view.is_loading();
        let mut text = title.unwrap_or_else(|| {
            if uri.is_empty() || uri == "about:blank" {
                "New tab".into()
            } else {
                uri.clone()
            }
        });
        if loading {
            text = format!("⟳ {text}");
        }
        if let Some(agent) = self.agent_tabs.borrow().get(&id) {
            text = format!("◆ {text}");
            if let Some(tab) = self.tabs.borrow().get(&id) {
                tab.title
                    .set_tooltip_text(Some(&format!("An agent ({agent}) acts on this tab")));
            }
        }
        if let Some(end) = crashed {
            text = format!("💥 {text}");
            if let Some(tab) = self.tabs.borrow().get(&id) {
                tab.title.set_tooltip_text(Some(&crashed_line(end)));
            }
        }
        if let Some(ask) = self.ask.ask_on(id) {
            text = format!("✋ {text}");
            if let Some(tab) = self.tabs.borrow().get(&id) {
                let tip = format!("{} asks you: {}", ask.asker_line(), ask.message);
                tab.title.set_tooltip_text(Some(&tip));
            }
        }
        if let Some(tab) = self.tabs.borrow().get(&id) {
            match view.favicon().and_then(favicon_pixbuf) {
                Some(pixbuf) => tab.icon.set_from_pixbuf(Some(&pixbuf)),
                None => tab.icon.clear(),
            }
            tab.title.set_label(&text);
            // The front tab's button looks pressed, its title bold and
            // underlined (style.css of install_style).
            tab.title.set_relief(if front {
                gtk::ReliefStyle::Normal
            } else {
                gtk::ReliefStyle::None
            });
            let style = tab.row.style_context();
            if front {
                style.add_class(FRONT_TAB);
            } else {
                style.remove_class(FRONT_TAB);
            }
        }
        if front {
            self.ask.show_for(id);
            if let Some(end) = crashed {
                self.crashed_text.set_text(&crashed_line(end));
            }
            self.crashed_bar.set_visible(crashed.is_some());
            // Never overwrite what the person is typing, unless the tab changed.
            if switched || !self.address.has_focus() {
                self.address
                    .set_text(if uri == "about:blank" { "" } else { &uri });
            }
            self.back.set_sensitive(view.can_go_back());
            self.forward.set_sensitive(view.can_go_forward());
            self.reload.set_label(if loading { "✕" } else { "⟳" });
            self.reload
                .set_tooltip_text(Some(if loading { "Stop" } else { "Reload (F5)" }));
        }
    }

    pub fn focus_address(&self) {
        self.address.grab_focus();
        self.address.select_region(0, -1);
    }

    /// Says why an address bar entry was not opened.
    pub fn address_error(&self, message: &str) {
        self.address
            .set_icon_from_icon_name(gtk::EntryIconPosition::Secondary, Some("dialog-warning"));
        self.address
            .set_icon_tooltip_text(gtk::EntryIconPosition::Secondary, Some(message));
        self.address.set_tooltip_text(Some(message));
    }

    pub fn clear_address_error(&self) {
        self.address
            .set_icon_from_icon_name(gtk::EntryIconPosition::Secondary, None);
        self.address.set_tooltip_text(None);
    }

    /// What the agents do, and the tabs they act on.
    pub fn show_activity(&self, label: &str, tabs: &HashMap<TabId, String>) {
        self.activity.set_text(label);
        *self.agent_tabs.borrow_mut() = tabs.clone();
    }

    /// What the person holds now, for the checks made on this thread.
    pub fn holds(&self) -> Holds<'_> {
        Holds {
            paused: &self.paused,
            asks: &self.asks,
        }
    }

    /// Moves whenever an agent's request for the person starts or ends.
    pub fn asks_version(&self) -> u64 {
        self.ask.version()
    }

    pub fn set_paused(&self, paused: bool) {
        if self.pause.is_active() != paused {
            self.pause.set_active(paused);
        }
    }

    pub fn set_identity(&self, summary: &str) {
        self.identity.set_text(summary);
    }

    /// Notes (or, with "", clears) the window.nostr requests waiting.
    /// Says which agents' routes answer this window's requests (none: no bar).
    pub fn show_routes(&self, line: Option<&str>) {
        self.routes.show(line);
    }

    /// The uses of the person's vault waiting in this window's tabs.
    pub fn show_vault_uses(&self, waiting: &[&crate::vault::UseAsked]) {
        self.vault.show(waiting);
    }

    pub fn show_nostr_prompts(&self, line: &str) {
        if line.is_empty() {
            self.nostr_bar.hide();
        } else {
            self.nostr_text.set_text(&format!(
                "A web page asks to use your Nostr identity: {line}"
            ));
            self.nostr_bar.show();
        }
    }

    pub fn download_done(&self, path: &str, ok: bool) {
        let text = match ok {
            true => format!("Downloaded: {path}"),
            false => format!("Download failed: {path}"),
        };
        self.downloads.set_text(&text);
        self.downloads.show();
    }

    /// Where the parts a test clicks are, in window coordinates, as the
    /// person's pointer meets them: a bar just shown is given its room
    /// first (GTK would do it at the next frame), so nothing is measured
    /// where it was before.
    pub fn layout(&self, window: &gtk::ApplicationWindow) -> serde_json::Value {
        window.check_resize();
        let rect = |w: &gtk::Widget| {
            let (x, y) = w.translate_coordinates(window, 0, 0).unwrap_or((0, 0));
            let a = w.allocation();
            serde_json::json!({"x": x, "y": y, "width": a.width(), "height": a.height()})
        };
        let tabs = self.tabs.borrow();
        let mut strip: Vec<(i32, serde_json::Value)> = tabs
            .iter()
            .map(|(id, t)| {
                let close = t.row.children().last().map(rect);
                let r = rect(t.title.upcast_ref());
                let front = t.row.style_context().has_class(FRONT_TAB);
                (r["x"].as_i64().unwrap_or(0) as i32, serde_json::json!({"id": id, "title": r, "close": close, "label": t.title.label().map(|l| l.to_string()), "front": front}))
            })
            .collect();
        strip.sort_by_key(|(x, _)| *x);
        serde_json::json!({
            "address": rect(self.address.upcast_ref()),
            "back": rect(self.back.upcast_ref()),
            "pause": rect(self.pause.upcast_ref()),
            "new_tab": rect(self.new_tab.upcast_ref()),
            "panel": rect(self.panel.upcast_ref()),
            "pause_active": self.pause.is_active(),
            "address_text": self.address.text().to_string(),
            "activity": self.activity.text().to_string(),
            "activity_box": rect(self.activity.upcast_ref()),
            "paused_bar": self.paused_bar.is_visible(),
            "crashed_bar": self.crashed_bar.is_visible().then(|| self.crashed_text.text().to_string()),
            "crashed_reload": rect(self.crashed_reload.upcast_ref()),
            "paused_resume": rect(self.paused_resume.upcast_ref()),
            "ask_bar": self.ask.bar.is_visible().then(|| self.ask.text()),
            "ask_warning": self.ask.warning(),
            "ask_note": rect(self.ask.note.upcast_ref()),
            "ask_done": rect(self.ask.done.upcast_ref()),
            "ask_cant": rect(self.ask.cant.upcast_ref()),
            "pages": rect(self.pages.upcast_ref()),
            "identity": self.identity.text().to_string(),
            "downloads": self.downloads.text().to_string(),
            "nostr_prompts": self.nostr_bar.is_visible().then(|| self.nostr_text.text().to_string()),
            "nostr_review": rect(self.nostr_review.upcast_ref()),
            "tabs": strip.into_iter().map(|(_, v)| v).collect::<Vec<_>>(),
            "context_band": self.band.as_ref().map(|b| b.text().to_string()),
            "routes_bar": self.routes.shown(),
            "routes_remove": rect(self.routes.remove.upcast_ref()),
            "vault_bar": self.vault.shown(),
            "vault_allow": rect(self.vault.allow.upcast_ref()),
            "vault_deny": rect(self.vault.deny.upcast_ref()),
        })
    }
}

/// A page's favicon at tab-strip size.
/// The band that names a context's window, in the context's colour.
fn context_band(context: &ContextInfo) -> Option<gtk::Label> {
    if context.id == DEFAULT_CONTEXT {
        return None;
    }
    let kind = if context.ephemeral {
        "ephemeral"
    } else {
        "kept"
    };
    let band = gtk::Label::new(Some(&format!("Context: {} ({kind})", context.name)));
    band.set_widget_name("context-band");
    band.set_xalign(0.0);
    let (background, text) = BANDS[(context.id as usize - 1) % BANDS.len()];
    let css = gtk::CssProvider::new();
    let rule = format!(
        "#context-band {{ background-color: {background}; color: {text}; font-weight: bold; padding: 3px 8px; }}"
    );
    if css.load_from_data(rule.as_bytes()).is_ok() {
        band.style_context()
            .add_provider(&css, gtk::STYLE_PROVIDER_PRIORITY_APPLICATION);
    }
    Some(band)
}

/// What the person is told of a tab whose page ended.
fn crashed_line(end: PageEnd) -> String {
    format!(
        "This tab's page {}. The other tabs are unharmed; reload to load it again.",
        end.why()
    )
}

/// A row that lets the window be narrower than its widgets (set_viewport
/// and set_device ask for a phone's width): what does not fit is cut at
/// the right, with no scroll bar taking room.
fn narrowable(row: &gtk::Box) -> gtk::ScrolledWindow {
    let scroller = gtk::ScrolledWindow::new(gtk::Adjustment::NONE, gtk::Adjustment::NONE);
    scroller.set_policy(gtk::PolicyType::External, gtk::PolicyType::Never);
    scroller.set_shadow_type(gtk::ShadowType::None);
    let viewport = gtk::Viewport::new(gtk::Adjustment::NONE, gtk::Adjustment::NONE);
    viewport.set_shadow_type(gtk::ShadowType::None);
    viewport.add(row);
    scroller.add(&viewport);
    scroller
}

/// Characters the activity text is given, always.
const ACTIVITY_CHARS: i32 = 30;

/// The style class of the front tab's row.
const FRONT_TAB: &str = "front-tab";

/// The window's own styles: the front tab stands out, the paused bar and
/// a request for the person are hard to miss.
fn install_style(window: &gtk::ApplicationWindow) {
    let css = gtk::CssProvider::new();
    let rules = b".front-tab button label { font-weight: bold; }
.front-tab { border-bottom: 3px solid #6a48f0; }
.paused-bar { background-color: #fff4d6; color: #5c3c00; border-bottom: 1px solid #8a5a00; }
.ask-bar { background-color: #e8e2ff; color: #24185c; border-bottom: 2px solid #6a48f0; }
.ask-warning { color: #7a2e00; font-weight: bold; }";
    if let (Ok(()), Some(screen)) = (css.load_from_data(rules), WidgetExt::screen(window)) {
        gtk::StyleContext::add_provider_for_screen(
            &screen,
            &css,
            gtk::STYLE_PROVIDER_PRIORITY_APPLICATION,
        );
    }
}

fn favicon_pixbuf(surface: cairo::Surface) -> Option<gdk::gdk_pixbuf::Pixbuf> {
    let image = cairo::ImageSurface::try_from(surface).ok()?;
    let (w, h) = (image.width(), image.height());
    let pixbuf = gdk::pixbuf_get_from_surface(&image, 0, 0, w, h)?;
    pixbuf.scale_simple(16, 16, gdk::gdk_pixbuf::InterpType::Bilinear)
}

fn pango_ellipsize_end() -> gtk::pango::EllipsizeMode {
    gtk::pango::EllipsizeMode::End
}

/// The standard shortcuts.
/// An agent's key the page left unused, handed back by WebKit: the web
/// view still sees it (WebKit waits for it, to let the next key through),
/// and then it stops, reaching none of the window's shortcuts, mnemonics or
/// widgets.
fn handed_back(window: &gtk::Window, event: &gdk::EventKey) -> glib::Propagation {
    window.propagate_key_event(event);
    glib::Propagation::Stop
}

fn shortcut(event: &gdk::EventKey) -> Option<ChromeAction> {
    let state = event.state();
    let ctrl = state.contains(gdk::ModifierType::CONTROL_MASK);
    let alt = state.contains(gdk::ModifierType::MOD1_MASK);
    let shift = state.contains(gdk::ModifierType::SHIFT_MASK);
    let name = event.keyval().name()?.to_string();
    match (ctrl, alt, name.as_str()) {
        (true, false, "l" | "L") => Some(ChromeAction::FocusAddress),
        (true, false, "t" | "T") => Some(ChromeAction::NewTab),
        (true, false, "w" | "W") => Some(ChromeAction::CloseFront),
        (true, false, "Tab") => Some(ChromeAction::Cycle(if shift { -1 } else { 1 })),
        (true, false, "ISO_Left_Tab") => Some(ChromeAction::Cycle(-1)),
        (false, true, "Left") => Some(ChromeAction::Back),
        (false, true, "Right") => Some(ChromeAction::Forward),
        (false, false, "F5") => Some(ChromeAction::ReloadOrStop),
        _ => None,
    }
}
