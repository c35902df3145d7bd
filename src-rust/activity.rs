//! What the agents are doing, for the window's indicator: tools record
//! here (a cheap lock, no wake-up of the main thread); the window looks a
//! few times a second and redraws only when something changed.

use crate::base::tab::TabId;
use std::collections::HashMap;
use std::sync::Mutex;

#[derive(Default)]
struct State {
    /// Calls in progress: session id -> (client, tool).
    running: HashMap<String, (String, String)>,
    last: Option<(String, String)>,
    /// Tabs agents act on, with who acts.
    tabs: HashMap<TabId, String>,
    version: u64,
}

#[derive(Default)]
pub struct Activity {
    state: Mutex<State>,
}

/// What the window shows.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Seen {
    pub label: String,
    pub tabs: HashMap<TabId, String>,
    pub version: u64,
}

impl Activity {
    fn lock(&self) -> std::sync::MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(|e| e.into_inner())
    }

    pub fn start(&self, session: &str, client: &str, tool: &str, tab: Option<TabId>) {
        let mut s = self.lock();
        s.running
            .insert(session.to_string(), (client.to_string(), tool.to_string()));
        if let Some(tab) = tab {
            s.tabs.insert(tab, client.to_string());
        }
        s.version += 1;
    }

    pub fn finish(&self, session: &str, tab: Option<TabId>) {
        let mut s = self.lock();
        if let Some(done) = s.running.remove(session) {
            if let Some(tab) = tab {
                s.tabs.insert(tab, done.0.clone());
            }
            s.last = Some(done);
        }
        s.version += 1;
    }

    /// The indicator's text and the marked tabs, with a version to skip
    /// redrawing what did not change.
    pub fn seen(&self) -> Seen {
        let s = self.lock();
        let label = match (s.running.values().next(), &s.last) {
            (Some((client, tool)), _) if s.running.len() == 1 => format!("● {client}: {tool}"),
            (Some(_), _) => format!("● {} agents working", s.running.len()),
            (None, Some((client, tool))) => format!("{client}: {tool} done"),
            (None, None) => "No agent activity".to_string(),
        };
        Seen {
            label,
            tabs: s.tabs.clone(),
            version: s.version,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shows_what_runs_and_what_ran() {
        let a = Activity::default();
        assert_eq!(a.seen().label, "No agent activity");
        a.start("s1", "claude-code", "click", Some(3));
        assert_eq!(a.seen().label, "● claude-code: click");
        assert_eq!(
            a.seen().tabs.get(&3).map(String::as_str),
            Some("claude-code")
        );
        a.start("s2", "cursor", "open", None);
        assert_eq!(a.seen().label, "● 2 agents working");
        a.finish("s2", None);
        a.finish("s1", Some(3));
        assert_eq!(a.seen().label, "claude-code: click done");
    }
}
