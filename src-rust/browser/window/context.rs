//! A context's window: its own toplevel, tab strip and front tab, and the
//! website data its tabs share (cookies, storage, cache). The person's
//! default context keeps the profile's data; a kept context has a folder
//! of its own under the profile; an ephemeral one has nothing on disk.

use super::chrome::{Chrome, ChromeShared};
use super::event::UserEvent;
use super::settings::AgentSettings;
use crate::base::context::{ContextId, ContextInfo, DEFAULT_CONTEXT};
use crate::base::tab::TabId;
use gtk::prelude::*;
use std::cell::Cell;
use std::path::PathBuf;
use std::rc::Rc;
use tao::dpi::LogicalSize;
use tao::event_loop::EventLoopWindowTarget;
use tao::platform::unix::WindowExtUnix;
use tao::window::{Window, WindowBuilder};
use wry::WebContext;

pub(super) const APP_TITLE: &str = "Sovereign Browser";

/// Where a context's website data lives.
pub(super) enum WebData {
    /// A folder (the profile's, or the context's own under it).
    Kept(WebContext),
    /// WebKit's ephemeral session, made with the context's first tab; later
    /// tabs share it by being created related to a tab of the context.
    Ephemeral,
}

/// A window's turns at its front tab for trusted input, in the order they
/// were asked for (tokio's lock is fair): see `front`.
pub(super) type InputTurn = std::sync::Arc<tokio::sync::Mutex<()>>;
/// One command's turn: the front is its until dropped.
pub(crate) type Turn = tokio::sync::OwnedMutexGuard<()>;

pub(crate) struct Context {
    pub(super) info: ContextInfo,
    pub(super) window: Window,
    pub(super) stack: gtk::Stack,
    pub(super) chrome: Rc<Chrome>,
    pub(super) front: Rc<Cell<TabId>>,
    pub(super) data: WebData,
    /// Whether the context's WebKit session has the web extension and the
    /// network settings (done with its first tab, before its first load).
    pub(super) configured: Cell<bool>,
    /// What agents changed about how its tabs talk to sites (headers,
    /// credentials, offline): one context's never reach another's.
    pub(super) settings: Rc<AgentSettings>,
    /// Whose trusted input the window's front tab takes now.
    pub(super) input_turn: InputTurn,
    /// Its requests go through the routing proxy: an agent's routes may
    /// answer any of its pages, so each of its tabs is the agent's as if
    /// the agent had run its own script there.
    pub(super) routed: Cell<bool>,
}

impl Context {
    pub(crate) fn id(&self) -> ContextId {
        self.info.id
    }

    /// The tab in front of its window.
    pub(crate) fn front(&self) -> TabId {
        self.front.get()
    }

    pub(crate) fn chrome(&self) -> &Chrome {
        &self.chrome
    }

    /// Whose trusted input the window's front tab takes now.
    pub(crate) fn input_turn(&self) -> &InputTurn {
        &self.input_turn
    }

    /// Opens the context's window, empty: the caller adds its first tab.
    /// `kept_in` is the folder of a context that is not ephemeral;
    /// `start_proxy` the proxy the browser was started with.
    pub(crate) fn open(
        target: &EventLoopWindowTarget<UserEvent>,
        info: ContextInfo,
        kept_in: Option<PathBuf>,
        size: (u32, u32),
        shared: &ChromeShared,
        start_proxy: Option<String>,
    ) -> anyhow::Result<Context> {
        let (w, h) = size;
        let window = WindowBuilder::new()
            .with_title(title_of(&info, None))
            .with_inner_size(LogicalSize::new(w, h))
            .build(target)?;
        let vbox = window
            .default_vbox()
            .ok_or_else(|| anyhow::anyhow!("the window has no content box"))?;
        let stack = gtk::Stack::new();
        stack.set_transition_type(gtk::StackTransitionType::None);
        vbox.pack_start(&stack, true, true, 0);
        stack.show();
        let chrome = Chrome::build(window.gtk_window(), vbox, &stack, shared, &info);
        let data = match kept_in {
            Some(dir) => WebData::Kept(WebContext::new(Some(dir))),
            None => WebData::Ephemeral,
        };
        Ok(Context {
            info,
            window,
            stack,
            chrome,
            front: Rc::new(Cell::new(0)),
            data,
            configured: Cell::new(false),
            settings: AgentSettings::new(start_proxy),
            input_turn: InputTurn::default(),
            routed: Cell::new(false),
        })
    }
}

pub(super) fn title_of(info: &ContextInfo, page_title: Option<&str>) -> String {
    let app = match info.id {
        DEFAULT_CONTEXT => APP_TITLE.to_string(),
        _ => format!("{APP_TITLE} [{}]", info.name),
    };
    match page_title.filter(|t| !t.is_empty()) {
        Some(title) => format!("{title} — {app}"),
        None => app,
    }
}
