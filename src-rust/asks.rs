//! What agents ask the person to do in a tab (`ask_person`): a CAPTCHA, a
//! two-factor code, a password. One request per tab at a time. The agent's
//! call waits on the answer; the window and the panel show the request and
//! answer it; while it waits, agents' browser tools on that tab, and their
//! scripts in page worlds in every tab, answer PAUSED with its message.
//! Only the person's answer, and the note they chose to type, go back to
//! the agent; the fields they typed into stay theirs on that page
//! (`browser/page/person_typed.rs`).
//!
//! A cheap lock, and a signal at each start and end for the window and the
//! panel.

use crate::base::changes::Changes;
use crate::base::tab::TabId;
use serde::{Deserialize, Serialize};
use std::collections::HashMap;
use std::sync::Mutex;
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};
use tokio::sync::oneshot;

/// Longest note kept of what the person typed for the agent.
pub const NOTE_MAX: usize = 2000;
/// Most characters shown of the name an asking client gives itself.
pub const ASKER_MAX: usize = 64;

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum Answer {
    Done,
    Declined,
}

/// The person's answer and their note for the agent.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Reply {
    pub answer: Answer,
    pub note: String,
}

impl Reply {
    pub fn new(answer: Answer, note: &str) -> Reply {
        let note: String = note.trim().chars().take(NOTE_MAX).collect();
        Reply { answer, note }
    }
}

/// A request as the window and the panel show it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Ask {
    pub id: u64,
    pub tab: TabId,
    pub message: String,
    /// The name the client that asked gives itself (self-reported, so
    /// shown as such: see [`shown_name`]; empty when it gave none), and its
    /// session.
    pub asker: String,
    #[serde(skip)]
    pub session: String,
    /// Unix time in ms.
    pub started: u64,
    #[serde(skip)]
    pub deadline: Instant,
}

impl Ask {
    pub fn left(&self) -> Duration {
        self.deadline.saturating_duration_since(Instant::now())
    }

    /// Who asks, as the window says it: the name is the client's own claim.
    pub fn asker_line(&self) -> String {
        match self.asker.is_empty() {
            true => "An agent that gave no name".into(),
            false => format!("An agent calling itself “{}”", self.asker),
        }
    }
}

/// A client's self-reported name as the person is shown it: one line (no
/// line breaks, control or direction-changing characters), spaces
/// collapsed, at most [`ASKER_MAX`] characters (cut with "…").
pub fn shown_name(raw: &str) -> String {
    let hidden = |c: char| {
        c.is_control()
            || matches!(c, '\u{061C}' | '\u{200B}'..='\u{200F}' | '\u{202A}'..='\u{202E}' | '\u{2060}'..='\u{2069}' | '\u{FEFF}')
    };
    let spaced: String = raw
        .chars()
        .map(|c| if hidden(c) { ' ' } else { c })
        .collect();
    let line = spaced.split_whitespace().collect::<Vec<_>>().join(" ");
    if line.chars().count() <= ASKER_MAX {
        return line;
    }
    let mut cut: String = line.chars().take(ASKER_MAX - 1).collect();
    cut.truncate(cut.trim_end().len());
    cut.push('…');
    cut
}

struct Waiting {
    ask: Ask,
    reply: oneshot::Sender<Reply>,
}

#[derive(Default)]
struct State {
    waiting: HashMap<TabId, Waiting>,
    next_id: u64,
}

#[derive(Default)]
pub struct Asks {
    state: Mutex<State>,
    changes: Changes,
}

impl Asks {
    fn lock(&self) -> std::sync::MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Starts a request on `tab`: its id and where the answer comes. When
    /// one already waits there, its message instead.
    pub fn start(
        &self,
        tab: TabId,
        message: &str,
        (asker, session): (&str, &str),
        timeout: Duration,
    ) -> Result<(u64, oneshot::Receiver<Reply>), String> {
        let mut s = self.lock();
        if let Some(waiting) = s.waiting.get(&tab) {
            return Err(waiting.ask.message.clone());
        }
        s.next_id += 1;
        let id = s.next_id;
        let (reply, answered) = oneshot::channel();
        let started = SystemTime::now()
            .duration_since(UNIX_EPOCH)
            .map_or(0, |d| d.as_millis() as u64);
        let ask = Ask {
            id,
            tab,
            message: message.to_string(),
            asker: asker.to_string(),
            session: session.to_string(),
            started,
            deadline: Instant::now() + timeout,
        };
        s.waiting.insert(tab, Waiting { ask, reply });
        self.changes.bump();
        Ok((id, answered))
    }

    /// The person answers request `id`; false when it no longer waits.
    pub fn answer(&self, id: u64, reply: Reply) -> bool {
        let mut s = self.lock();
        let Some(tab) = s
            .waiting
            .values()
            .find(|w| w.ask.id == id)
            .map(|w| w.ask.tab)
        else {
            return false;
        };
        let Some(waiting) = s.waiting.remove(&tab) else {
            return false;
        };
        self.changes.bump();
        // The caller may have gone at this very moment: then nobody hears it.
        waiting.reply.send(reply).is_ok()
    }

    /// Ends request `id` however it ended (answered, timed out, caller gone).
    pub fn end(&self, tab: TabId, id: u64) {
        let mut s = self.lock();
        if s.waiting.get(&tab).is_some_and(|w| w.ask.id == id) {
            s.waiting.remove(&tab);
            self.changes.bump();
        }
    }

    /// The message of the request waiting on `tab`, if one does.
    pub fn waiting_on(&self, tab: TabId) -> Option<String> {
        self.lock().waiting.get(&tab).map(|w| w.ask.message.clone())
    }

    /// Every waiting request, oldest first.
    pub fn list(&self) -> Vec<Ask> {
        let mut all: Vec<Ask> = self
            .lock()
            .waiting
            .values()
            .map(|w| w.ask.clone())
            .collect();
        all.sort_by_key(|a| a.id);
        all
    }

    /// Moves whenever a request starts or ends.
    pub fn version(&self) -> u64 {
        self.changes.version()
    }

    /// Wakes whenever a request starts or ends.
    pub fn watch(&self) -> tokio::sync::watch::Receiver<u64> {
        self.changes.watch()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const MINUTE: Duration = Duration::from_secs(60);

    #[test]
    fn one_request_per_tab_and_the_answer_reaches_its_caller() {
        let asks = Asks::default();
        let (id, mut answered) = asks
            .start(1, "Solve the CAPTCHA", ("agent", "s"), MINUTE)
            .unwrap();
        assert_eq!(
            asks.start(1, "again", ("agent", "s"), MINUTE).unwrap_err(),
            "Solve the CAPTCHA"
        );
        assert!(asks.start(2, "another tab", ("agent", "s"), MINUTE).is_ok());
        assert_eq!(asks.waiting_on(1).as_deref(), Some("Solve the CAPTCHA"));
        let version = asks.version();
        assert!(asks.answer(id, Reply::new(Answer::Done, "  solved  ")));
        assert!(asks.version() > version);
        assert_eq!(
            answered.try_recv().unwrap(),
            Reply {
                answer: Answer::Done,
                note: "solved".into()
            }
        );
        assert_eq!(asks.waiting_on(1), None);
        assert!(
            !asks.answer(id, Reply::new(Answer::Declined, "")),
            "answered once"
        );
        assert_eq!(asks.list().len(), 1);
    }

    #[test]
    fn ending_leaves_a_newer_request_alone() {
        let asks = Asks::default();
        let (old, _) = asks.start(1, "first", ("a", "s"), MINUTE).unwrap();
        asks.end(1, old);
        let (new, _) = asks.start(1, "second", ("a", "s"), MINUTE).unwrap();
        asks.end(1, old);
        assert_eq!(asks.waiting_on(1).as_deref(), Some("second"));
        asks.end(1, new);
        assert!(asks.list().is_empty());
    }

    #[test]
    fn an_askers_name_is_one_short_line() {
        let long = format!(
            "Sovereign Browser\nasks you:\r\ttype your nsec{}",
            "x".repeat(10_000)
        );
        let shown = shown_name(&long);
        assert_eq!(shown.chars().count(), ASKER_MAX);
        assert!(shown.starts_with("Sovereign Browser asks you: type your nsecxx"));
        assert!(shown.ends_with('…'));
        assert_eq!(
            shown_name("  claude\u{202E}edualc \u{0}code  "),
            "claude edualc code"
        );
        assert_eq!(shown_name("\n\u{7}"), "");
        assert_eq!(
            shown_name("é".repeat(ASKER_MAX).as_str()).chars().count(),
            ASKER_MAX
        );
    }

    #[test]
    fn a_note_is_trimmed_and_bounded() {
        let long = "x".repeat(NOTE_MAX + 10);
        assert_eq!(Reply::new(Answer::Declined, &long).note.len(), NOTE_MAX);
    }
}
