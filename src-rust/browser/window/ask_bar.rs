//! The bar over a tab an agent handed to the person (ask_person): the
//! agent's message, a note the person may write back, and Done / Can't.
//! Native widgets: agents' input goes to the web views only, so no agent
//! can press them. It shows the request of the tab in front, and warns
//! when an agent ran its own script in that tab (what the person types may
//! then reach it).

use crate::agent_scripts::AgentScripted;
use crate::asks::{Answer, Ask, Asks, Reply};
use crate::base::tab::TabId;
use gtk::prelude::*;
use std::cell::Cell;
use std::rc::Rc;
use std::sync::Arc;

/// What the bar says over a tab an agent ran its own script in.
const SCRIPTED_WARNING: &str =
    "⚠ An agent ran its own script in this tab or routed its requests: what you type here may reach it.";

pub struct AskBar {
    pub bar: gtk::Box,
    text: gtk::Label,
    warning: gtk::Label,
    pub note: gtk::Entry,
    pub done: gtk::Button,
    pub cant: gtk::Button,
    /// The request shown (0: none).
    shown: Rc<Cell<u64>>,
    asks: Arc<Asks>,
    agent_scripted: Arc<AgentScripted>,
}

impl AskBar {
    pub fn new(asks: Arc<Asks>, agent_scripted: Arc<AgentScripted>) -> AskBar {
        let bar = gtk::Box::new(gtk::Orientation::Horizontal, 8);
        bar.set_border_width(6);
        bar.set_widget_name("ask-person");
        bar.style_context().add_class("ask-bar");
        let text = gtk::Label::new(None);
        text.set_xalign(0.0);
        text.set_line_wrap(true);
        text.set_selectable(true);
        let warning = gtk::Label::new(Some(SCRIPTED_WARNING));
        warning.set_xalign(0.0);
        warning.set_line_wrap(true);
        warning.style_context().add_class("ask-warning");
        let words = gtk::Box::new(gtk::Orientation::Vertical, 2);
        words.pack_start(&text, false, false, 0);
        words.pack_start(&warning, false, false, 0);
        let note = gtk::Entry::new();
        // The message is the agent's words: the note goes back to it, so it
        // must never be taken for a place to put a secret.
        note.set_placeholder_text(Some("Note the agent will read (optional, never a secret)"));
        note.set_width_chars(24);
        note.set_max_length(crate::asks::NOTE_MAX as i32);
        let done = gtk::Button::with_label("Done");
        done.set_tooltip_text(Some("Tell the agent it is done, with your note"));
        let cant = gtk::Button::with_label("Can't");
        cant.set_tooltip_text(Some("Tell the agent you cannot or will not do it"));
        bar.pack_start(&gtk::Label::new(Some("✋")), false, false, 4);
        bar.pack_start(&words, true, true, 0);
        bar.pack_start(&note, false, false, 0);
        bar.pack_start(&done, false, false, 0);
        bar.pack_start(&cant, false, false, 0);
        bar.show_all();
        bar.set_no_show_all(true);
        warning.set_no_show_all(true);
        warning.hide();
        bar.hide();
        let shown = Rc::new(Cell::new(0));
        for (button, answer) in [(&done, Answer::Done), (&cant, Answer::Declined)] {
            let (asks, shown, note, bar) = (asks.clone(), shown.clone(), note.clone(), bar.clone());
            button.connect_clicked(move |_| {
                let id = shown.replace(0);
                if id != 0 {
                    asks.answer(id, Reply::new(answer, &note.text()));
                }
                note.set_text("");
                bar.hide();
            });
        }
        AskBar {
            bar,
            text,
            warning,
            note,
            done,
            cant,
            shown,
            asks,
            agent_scripted,
        }
    }

    /// The request waiting on `tab`, if any.
    pub fn ask_on(&self, tab: TabId) -> Option<Ask> {
        self.asks.list().into_iter().find(|a| a.tab == tab)
    }

    /// Shows the request of the tab in front, or hides the bar.
    pub fn show_for(&self, front: TabId) {
        match self.ask_on(front) {
            Some(ask) => {
                if self.shown.replace(ask.id) != ask.id {
                    // A new request starts with an empty note.
                    self.note.set_text("");
                }
                self.text
                    .set_text(&format!("{} asks you: {}", ask.asker_line(), ask.message));
                self.warning
                    .set_visible(self.agent_scripted.contains(ask.tab));
                self.bar.show();
            }
            None => {
                self.shown.set(0);
                self.note.set_text("");
                self.bar.hide();
            }
        }
    }

    /// Moves when a request starts or ends, or a tab is marked.
    pub fn version(&self) -> u64 {
        self.asks.version() + self.agent_scripted.version()
    }

    pub fn text(&self) -> String {
        self.text.text().to_string()
    }

    /// The warning shown under the request, if any.
    pub fn warning(&self) -> Option<String> {
        (self.bar.is_visible() && self.warning.is_visible())
            .then(|| self.warning.text().to_string())
    }
}
