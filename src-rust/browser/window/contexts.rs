//! Opening and closing contexts, and what a window closed by the person
//! ends: the panel's, a context's, or (the person's own) the program.

use super::browser::{no_context, Browser, Tab};
use super::context::Context;
use super::event::UserEvent;
use crate::base::context::{check_name, ContextId, ContextInfo, DEFAULT_CONTEXT};
use crate::base::error::{ErrorCode, ToolError};
use crate::base::page_event::PageEvent;
use gtk::prelude::*;
use serde_json::{json, Value};
use std::os::unix::fs::DirBuilderExt as _;
use std::path::PathBuf;
use tao::event_loop::EventLoopWindowTarget;
use tao::window::WindowId;

impl Browser {
    /// Opens a context with its window and one blank tab in front: named
    /// `name`, or the first free `context-N`. Here, on the one thread that
    /// changes the contexts, so that agents opening contexts at once never
    /// take the same name nor pass the bound together.
    pub(crate) fn open_context(
        &mut self,
        target: &EventLoopWindowTarget<UserEvent>,
        name: Option<&str>,
        ephemeral: bool,
        max: usize,
    ) -> Result<Value, ToolError> {
        let open = self.contexts.len().saturating_sub(1);
        if open >= max {
            return Err(ToolError::new(
                ErrorCode::Busy,
                format!("{open} contexts are open, the most this browser allows (--contexts-max {max}); close one with context_close"),
            ));
        }
        let name = match name {
            Some(name) => name.to_string(),
            None => self.free_context_name(),
        };
        let name = name.as_str();
        if let Err(message) = check_name(name) {
            return Err(ToolError::invalid_params(message));
        }
        if self.context_named(name).is_some() {
            return Err(ToolError::invalid_params(format!(
                "context: {name} is already open; context_list gives the open ones"
            )));
        }
        let kept_in = match ephemeral {
            true => None,
            false => Some(self.kept_folder(name)?),
        };
        let info = ContextInfo {
            id: self.next_context,
            name: name.to_string(),
            ephemeral,
        };
        self.next_context += 1;
        let opened = Context::open(
            target,
            info,
            kept_in,
            self.window_size,
            &self.chrome_shared,
            self.network.proxy.clone(),
        )
        .map_err(|e| ToolError::internal(format!("could not open the context's window: {e}")))?;
        let id = opened.info.id;
        self.contexts.push(opened);
        let tab = match self.add_tab(None, id) {
            Ok(tab) => tab,
            Err(e) => {
                self.contexts.retain(|c| c.info.id != id);
                self.publish_tabs();
                return Err(ToolError::internal(format!("could not open a tab: {e}")));
            }
        };
        self.show(tab);
        self.load(tab, "about:blank");
        tracing::info!(context = name, ephemeral, "context opened");
        Ok(json!({"context": name, "ephemeral": ephemeral, "tab": tab}))
    }

    /// The first `context-N` no open context is named.
    fn free_context_name(&self) -> String {
        (1..)
            .map(|n| format!("context-{n}"))
            .find(|name| self.context_named(name).is_none())
            .unwrap_or_default()
    }

    /// The open context of that name (the person's is "default").
    fn context_named(&self, name: &str) -> Option<&Context> {
        self.contexts.iter().find(|c| c.info.name == name)
    }

    /// A kept context's folder under the profile, made owner-only.
    fn kept_folder(&self, name: &str) -> Result<PathBuf, ToolError> {
        let dir = self.contexts_dir.join(name);
        let made = std::fs::DirBuilder::new()
            .recursive(true)
            .mode(0o700)
            .create(&dir);
        made.map_err(|e| ToolError::internal(format!("cannot make the context's folder: {e}")))?;
        Ok(dir)
    }

    /// Closes a context: its tabs, its window, and (ephemeral) its data.
    /// The person's context is not closed this way.
    pub(crate) fn close_context(&mut self, id: ContextId) -> Result<Value, ToolError> {
        if id == DEFAULT_CONTEXT {
            return Err(ToolError::new(
                ErrorCode::NotAllowed,
                "context: the default context is the person's; it is not closed",
            ));
        }
        let at = self
            .contexts
            .iter()
            .position(|c| c.info.id == id)
            .ok_or_else(|| no_context(id))?;
        let (gone, kept): (Vec<Tab>, Vec<Tab>) = std::mem::take(&mut self.tabs)
            .into_iter()
            .partition(|t| t.context == id);
        self.tabs = kept;
        let context = self.contexts.remove(at);
        // Its routes end with it.
        self.routing.forget(id);
        let tabs = gone.len();
        for tab in gone {
            tab.state.related().leave(tab.state.id());
            let _ = self.nostr_calls.send(PageEvent::PageGone {
                tab: tab.state.id(),
            });
            context.stack.remove(&tab.webkit);
        }
        tracing::info!(context = %context.info.name, "context closed");
        let name = context.info.name.clone();
        // Its window goes with it.
        drop(context);
        self.publish_tabs();
        Ok(json!({"closed": name, "tabs": tabs}))
    }

    /// The person closed a window: the panel's goes; a context's closes
    /// the context. Answers whether the program should end (the person's
    /// own window was closed).
    pub fn window_closed(&mut self, window: WindowId) -> bool {
        if self.is_panel_window(window) {
            self.close_panel();
            return false;
        }
        match self.contexts.iter().find(|c| c.window.id() == window) {
            Some(c) if c.info.id != DEFAULT_CONTEXT => {
                let _ = self.close_context(c.info.id);
                false
            }
            _ => true,
        }
    }
}
