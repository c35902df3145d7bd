//! The bar that tells the person agents' routes answer their window's
//! requests, with a button that removes them. Only the person can press it:
//! an agent's pointer reaches the page, never the chrome above it.

use super::notice_bar::notice_bar;
use gtk::prelude::*;

pub struct RoutesBar {
    pub bar: gtk::Box,
    text: gtk::Label,
    pub remove: gtk::Button,
}

impl RoutesBar {
    pub fn new() -> RoutesBar {
        let text = gtk::Label::new(None);
        let remove = gtk::Button::with_label("Remove routes");
        remove.set_tooltip_text(Some(
            "Remove every route agents made in this window: its requests go to their sites again",
        ));
        let bar = notice_bar("agents-routes", "↪", &text, &remove);
        bar.hide();
        RoutesBar { bar, text, remove }
    }

    /// Shows what routes answer (none: the bar goes).
    pub fn show(&self, line: Option<&str>) {
        match line {
            Some(line) => {
                self.text.set_text(line);
                self.text.set_tooltip_text(Some(line));
                self.bar.show();
            }
            None => self.bar.hide(),
        }
    }

    /// What the bar says, while it shows.
    pub fn shown(&self) -> Option<String> {
        self.bar.is_visible().then(|| self.text.text().to_string())
    }
}

/// The bar's line for a context's routes (their URL patterns and actions).
pub fn line(routes: &[serde_json::Value]) -> Option<String> {
    if routes.is_empty() {
        return None;
    }
    let each: Vec<String> = routes
        .iter()
        .take(3)
        .map(|r| {
            format!(
                "{} ({})",
                r["url"].as_str().unwrap_or("?"),
                r["action"].as_str().unwrap_or("?")
            )
        })
        .collect();
    let more = match routes.len() {
        n if n > 3 => format!(" and {} more", n - 3),
        _ => String::new(),
    };
    let count = match routes.len() {
        1 => "A route".to_string(),
        n => format!("{n} routes"),
    };
    Some(format!(
        "{count} by agents answer this window's requests: {}{more}",
        each.join(", ")
    ))
}
