//! What the agents are doing, for the window's indicator: tools record
//! here (a cheap lock), and the window, woken by the change, redraws (at
//! most a few times a second however many calls run).

use crate::base::changes::Changes;
use crate::base::error::ErrorCode;
use crate::base::tab::TabId;
use std::collections::HashMap;
use std::sync::Mutex;

#[derive(Default)]
struct State {
    /// Calls in progress: session id -> (client, tool, the tab it acts on).
    running: HashMap<String, (String, String, Option<TabId>)>,
    /// The last call to end: client, tool, and how it ended.
    last: Option<(String, String, Option<ErrorCode>)>,
    /// Tabs agents act on, with who acts.
    tabs: HashMap<TabId, String>,
}

#[derive(Default)]
pub struct Activity {
    state: Mutex<State>,
    changes: Changes,
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
        s.running.insert(
            session.to_string(),
            (client.to_string(), tool.to_string(), tab),
        );
        if let Some(tab) = tab {
            s.tabs.insert(tab, client.to_string());
        }
        drop(s);
        self.changes.bump();
    }

    /// A call ended: with its error's code when it failed.
    pub fn finish(&self, session: &str, tab: Option<TabId>, failed: Option<ErrorCode>) {
        let mut s = self.lock();
        if let Some((client, tool, _)) = s.running.remove(session) {
            if let Some(tab) = tab {
                s.tabs.insert(tab, client.clone());
            }
            s.last = Some((client, tool, failed));
        }
        drop(s);
        self.changes.bump();
    }

    /// The agent whose call runs on `tab` now (session, client), else the
    /// last agent that acted on it (client only).
    pub fn acting_on(&self, tab: TabId) -> (Option<(String, String)>, Option<String>) {
        let s = self.lock();
        let running = s
            .running
            .iter()
            .find(|(_, (_, _, on))| *on == Some(tab))
            .map(|(session, (client, _, _))| (session.clone(), client.clone()));
        (running, s.tabs.get(&tab).cloned())
    }

    /// Wakes whenever what [`Activity::seen`] shows may have changed.
    pub fn watch(&self) -> tokio::sync::watch::Receiver<u64> {
        self.changes.watch()
    }

    /// The indicator's text and the marked tabs, with a version to skip
    /// redrawing what did not change.
    pub fn seen(&self) -> Seen {
        let s = self.lock();
        let label = match (s.running.values().next(), &s.last) {
            (Some((client, tool, _)), _) if s.running.len() == 1 => format!("● {client}: {tool}"),
            (Some(_), _) => format!("● {} agents working", s.running.len()),
            (None, Some((client, tool, outcome))) => match outcome {
                None => format!("{client}: {tool} done"),
                // Turned away before it reached a page.
                Some(code @ (ErrorCode::Paused | ErrorCode::NotLoggedIn)) => {
                    format!("{client}: {tool} refused ({code})")
                }
                Some(code) => format!("{client}: {tool} failed ({code})"),
            },
            (None, None) => "No agent activity".to_string(),
        };
        Seen {
            label,
            tabs: s.tabs.clone(),
            version: self.changes.version(),
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
        a.finish("s2", None, None);
        a.finish("s1", Some(3), None);
        assert_eq!(a.seen().label, "claude-code: click done");
        a.start("s1", "claude-code", "open", Some(3));
        a.finish("s1", Some(3), Some(ErrorCode::Paused));
        assert_eq!(a.seen().label, "claude-code: open refused (PAUSED)");
        a.start("s1", "claude-code", "click", Some(3));
        a.finish("s1", Some(3), Some(ErrorCode::StaleRef));
        assert_eq!(a.seen().label, "claude-code: click failed (STALE_REF)");
    }
}
