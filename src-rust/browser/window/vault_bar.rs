//! The bar that asks the person's yes to one use of a vault entry they
//! marked "ask me each time": which agent, which entry and field, on which
//! site; Allow once or Deny. Native buttons: agents' pointers reach the
//! pages, never the chrome, so only the person answers here (or in the
//! panel). It shows the oldest use waiting in this window's tabs.

use super::notice_bar::notice_bar;
use crate::asks::shown_name;
use crate::vault::{Consents, UseAsked};
use gtk::prelude::*;
use std::cell::Cell;
use std::rc::Rc;
use std::sync::Arc;

pub struct VaultBar {
    pub bar: gtk::Box,
    text: gtk::Label,
    pub allow: gtk::Button,
    pub deny: gtk::Button,
    /// The use shown (0: none).
    shown: Rc<Cell<u64>>,
}

impl VaultBar {
    pub fn new(consents: Arc<Consents>) -> VaultBar {
        let text = gtk::Label::new(None);
        let deny = gtk::Button::with_label("Deny");
        deny.set_tooltip_text(Some("Do not fill it: the agent is told you said no"));
        let bar = notice_bar("vault-uses", "🔐", &text, &deny);
        let allow = gtk::Button::with_label("Allow once");
        allow.set_tooltip_text(Some(
            "Fill this field from your vault this once; the agent never sees the value",
        ));
        allow.show();
        bar.pack_end(&allow, false, false, 0);
        bar.hide();
        let shown = Rc::new(Cell::new(0));
        for (button, allowed) in [(&allow, true), (&deny, false)] {
            let (consents, shown) = (consents.clone(), shown.clone());
            button.connect_clicked(move |_| {
                let id = shown.replace(0);
                if id != 0 {
                    consents.answer(id, allowed);
                }
            });
        }
        VaultBar {
            bar,
            text,
            allow,
            deny,
            shown,
        }
    }

    /// Shows the oldest of `waiting` (this window's), or hides the bar.
    pub fn show(&self, waiting: &[&UseAsked]) {
        let Some(first) = waiting.first() else {
            self.shown.set(0);
            self.bar.hide();
            return;
        };
        self.shown.set(first.id);
        let more = match waiting.len() {
            1 => String::new(),
            n => format!(" ({} more wait)", n - 1),
        };
        let line = format!("{}{more}", line(first));
        self.text.set_text(&line);
        self.text.set_tooltip_text(Some(&line));
        self.bar.show();
    }

    /// What the bar says, while it shows.
    pub fn shown(&self) -> Option<String> {
        self.bar.is_visible().then(|| self.text.text().to_string())
    }
}

/// One use, as the person reads it: who asks (its own claim), what, where.
fn line(asked: &UseAsked) -> String {
    let asker = match shown_name(&asked.asker) {
        name if name.is_empty() => "An agent that gave no name".to_string(),
        name => format!("An agent calling itself “{name}”"),
    };
    format!(
        "{asker} asks to fill {}'s {} from your vault on {} (tab {})",
        asked.entry,
        field_words(&asked.field),
        asked.origin,
        asked.tab
    )
}

fn field_words(field: &str) -> &str {
    match field {
        "user" => "user name",
        "totp" => "one-time code",
        other => other,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_line_names_the_asker_as_its_own_claim_and_what_where() {
        let asked = UseAsked {
            id: 1,
            entry: "github".into(),
            field: "totp".into(),
            origin: "https://github.com:443".into(),
            tab: 3,
            asker: "helper\nwith a line break".into(),
            started: 0,
        };
        let said = line(&asked);
        assert!(!said.contains('\n'), "{said}");
        assert!(
            said.starts_with("An agent calling itself “helper"),
            "{said}"
        );
        assert!(said.ends_with("asks to fill github's one-time code from your vault on https://github.com:443 (tab 3)"), "{said}");
    }
}
