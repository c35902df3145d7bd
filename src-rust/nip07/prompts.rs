//! Requests from pages waiting for a person's answer. Each waits until it
//! is answered or its time runs out (a rejection); an answer "always"
//! settles the other waiting requests for the same origin and capability.

use super::refusal::Refusal;
use super::request::{Capability, Request};
use crate::base::changes::Changes;
use crate::base::context::{ContextId, DEFAULT_CONTEXT, DEFAULT_NAME};
use crate::base::error::ToolError;
use serde_json::{json, Value};
use std::collections::{HashMap, VecDeque};
use std::sync::Mutex;
use std::time::{Duration, Instant};
use tokio::sync::{oneshot, watch};

/// Longest content shown in a prompt; the rest is counted, not shown.
const SHOWN_CONTENT: usize = 2000;
/// Prompts one origin may have waiting: a page cannot flood the panel.
pub const MAX_WAITING_PER_ORIGIN: usize = 8;
/// Prompts one origin may raise in [`ASKING_WINDOW`]: a page that asks
/// again the moment it is denied cannot keep the person busy answering.
pub const MAX_ASKED_PER_WINDOW: usize = 20;
pub const ASKING_WINDOW: Duration = Duration::from_secs(60);
/// Prompts all sites together may have waiting (many frames of many sites
/// cannot bury the person in prompts either).
pub const MAX_WAITING: usize = 32;

/// A person's (or an allowed assistant's) answer to one prompt.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Answer {
    pub allow: bool,
    /// Keep it for this origin and capability ("always").
    pub remember: bool,
    /// An assistant answered (the person let assistants), not the person.
    pub assistant: bool,
}

/// An answer to a prompt that no longer waits (answered already, or its
/// time ran out): the caller named it, so it is their argument at fault.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("no waiting prompt {id} (answered or expired)")]
pub struct NotWaiting {
    pub id: String,
}

impl From<NotWaiting> for ToolError {
    fn from(error: NotWaiting) -> ToolError {
        ToolError::invalid_params(error.to_string())
    }
}

/// What the person is asked about.
pub struct Prompt {
    pub id: String,
    /// The asking frame's origin.
    pub origin: String,
    /// The tab's top origin, when the request came from a frame of another origin.
    pub top_origin: Option<String>,
    pub capability: Capability,
    /// The tab whose page asked, when known.
    tab: Option<u64>,
    /// An agent ran its own script in that tab: the request may be the
    /// agent's. Only the person answers it, and never "always".
    pub agent_scripted: bool,
    /// The asking tab's context: a decision kept is kept for it alone.
    pub context: ContextId,
    /// That context's name when it is an agent's, not the person's.
    context_name: Option<String>,
    /// The identity asked (its public key, hex): "always" is kept for it.
    pub pubkey: String,
    request: Request,
    asked_at: Instant,
    timeout: Duration,
}

impl Prompt {
    pub fn new(
        origin: String,
        top_origin: Option<String>,
        capability: Capability,
        request: Request,
        timeout: Duration,
    ) -> Prompt {
        let top_origin = top_origin.filter(|top| *top != origin);
        Prompt {
            id: crate::profile::random_hex(8),
            origin,
            top_origin,
            capability,
            tab: None,
            agent_scripted: false,
            context: DEFAULT_CONTEXT,
            context_name: None,
            pubkey: String::new(),
            request,
            asked_at: Instant::now(),
            timeout,
        }
    }

    /// Notes the tab whose page asked.
    pub fn from_tab(mut self, tab: Option<u64>) -> Prompt {
        self.tab = tab;
        self
    }

    /// Notes that an agent ran its own script in the asking tab.
    pub fn agent_scripted(mut self, scripted: bool) -> Prompt {
        self.agent_scripted = scripted;
        self
    }

    /// Notes the asking tab's context (and its name, for an agent's).
    pub fn in_context(mut self, context: ContextId, name: Option<String>) -> Prompt {
        self.context = context;
        self.context_name = name.filter(|_| context != DEFAULT_CONTEXT);
        self
    }

    /// Notes the identity asked (its public key, hex).
    pub fn for_identity(mut self, pubkey: String) -> Prompt {
        self.pubkey = pubkey;
        self
    }

    /// The prompt as the panel and the assistant tool show it.
    pub fn to_json(&self) -> Value {
        let left = self.timeout.saturating_sub(self.asked_at.elapsed());
        let mut shown = json!({
            "id": self.id,
            "origin": self.origin,
            "in_frame_of": self.top_origin,
            "method": self.request.method(),
            "capability": self.capability.key(),
            "asks_to": self.capability.describe(),
            "agent_scripted": self.agent_scripted,
            "other_context": self.context_name.is_some(),
            "context": self.context_name.as_deref().unwrap_or(DEFAULT_NAME),
            "pubkey": self.pubkey,
            "expires_in_ms": left.as_millis() as u64,
        });
        match &self.request {
            Request::SignEvent(event) => {
                let (content, cut) = shorten(&event.content);
                shown["kind"] = event.kind.into();
                shown["content"] = content.into();
                if cut > 0 {
                    shown["content_cut_bytes"] = cut.into();
                }
                // Every tag, and the time it will carry: what is signed is
                // what the person saw.
                shown["tags"] = json!(event.tags);
                shown["created_at"] = json!(event.created_at);
            }
            Request::Encrypt {
                peer, plaintext, ..
            } => {
                shown["peer"] = peer.to_hex().into();
                shown["plaintext_chars"] = plaintext.chars().count().into();
            }
            Request::Decrypt {
                peer, ciphertext, ..
            } => {
                shown["peer"] = peer.to_hex().into();
                shown["ciphertext_chars"] = ciphertext.chars().count().into();
            }
            Request::GetPublicKey | Request::GetRelays => {}
        }
        shown
    }

    /// One line for the browser window.
    fn line(&self) -> String {
        let host = self
            .origin
            .split_once("://")
            .map_or(self.origin.as_str(), |(_, h)| h);
        let line = format!("{host} asks to {}", self.capability.describe());
        match (self.agent_scripted, &self.context_name) {
            (true, _) => format!(
                "{line}, from a tab where an agent ran its own script or routed its requests"
            ),
            (false, Some(name)) => format!("{line}, in context {name}"),
            (false, None) => line,
        }
    }
}

fn shorten(text: &str) -> (&str, usize) {
    if text.len() <= SHOWN_CONTENT {
        return (text, 0);
    }
    let mut end = SHOWN_CONTENT;
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    (&text[..end], text.len() - end)
}

/// The waiting prompts, in the order they were asked.
pub struct Prompts {
    waiting: Mutex<Vec<(Prompt, oneshot::Sender<Answer>)>>,
    /// When each origin raised its recent prompts (within [`ASKING_WINDOW`]).
    asked: Mutex<HashMap<String, VecDeque<Instant>>>,
    /// One line for the window ("" when nothing waits).
    summary: watch::Sender<String>,
    /// Bumped whenever a prompt comes or goes.
    changes: Changes,
}

impl Default for Prompts {
    fn default() -> Self {
        Prompts {
            waiting: Mutex::default(),
            asked: Mutex::default(),
            summary: watch::channel(String::new()).0,
            changes: Changes::default(),
        }
    }
}

impl Prompts {
    /// Adds a prompt; the receiver gets its answer. Refused when its
    /// origin already has [`MAX_WAITING_PER_ORIGIN`] waiting.
    pub fn ask(&self, prompt: Prompt) -> Result<(String, oneshot::Receiver<Answer>), Refusal> {
        let (tx, rx) = oneshot::channel();
        let id = prompt.id.clone();
        {
            let mut waiting = self.lock();
            let same_origin = waiting
                .iter()
                .filter(|(p, _)| p.origin == prompt.origin)
                .count();
            if same_origin >= MAX_WAITING_PER_ORIGIN {
                return Err(Refusal::Unanswered(format!(
                    "{same_origin} requests from this site already wait for an answer; try again after they are answered"
                )));
            }
            if waiting.len() >= MAX_WAITING {
                return Err(Refusal::Unanswered(format!(
                    "{} requests from web pages already wait for an answer; try again after they are answered",
                    waiting.len()
                )));
            }
            self.note_asked(&prompt.origin)?;
            waiting.push((prompt, tx));
        }
        self.changed();
        Ok((id, rx))
    }

    /// Counts a prompt of `origin`, or refuses it when the origin asked
    /// [`MAX_ASKED_PER_WINDOW`] times within [`ASKING_WINDOW`].
    fn note_asked(&self, origin: &str) -> Result<(), Refusal> {
        let now = Instant::now();
        let mut asked = self.asked.lock().unwrap_or_else(|e| e.into_inner());
        asked.retain(|_, times| {
            while times
                .front()
                .is_some_and(|t| now.duration_since(*t) >= ASKING_WINDOW)
            {
                times.pop_front();
            }
            !times.is_empty()
        });
        let times = asked.entry(origin.to_string()).or_default();
        if times.len() >= MAX_ASKED_PER_WINDOW {
            return Err(Refusal::Unanswered(format!(
                "this site asked {} times in the last {} s; it may ask again later",
                times.len(),
                ASKING_WINDOW.as_secs()
            )));
        }
        times.push_back(now);
        Ok(())
    }

    /// Answers one prompt and returns it. A remembered answer ("always")
    /// applies to later requests only: the other prompts waiting stay, since
    /// the person has not seen them (a signature's content differs from one
    /// to the next).
    pub fn answer(&self, id: &str, answer: Answer) -> Result<Prompt, NotWaiting> {
        let answered = {
            let mut waiting = self.lock();
            let index = waiting
                .iter()
                .position(|(p, _)| p.id == id)
                .ok_or_else(|| NotWaiting { id: id.to_string() })?;
            let (prompt, tx) = waiting.remove(index);
            let _ = tx.send(answer);
            prompt
        };
        self.changed();
        Ok(answered)
    }

    /// Takes a prompt away unanswered (its time ran out, or its page went).
    pub fn withdraw(&self, id: &str) {
        let removed = {
            let mut waiting = self.lock();
            let before = waiting.len();
            waiting.retain(|(p, _)| p.id != id);
            before != waiting.len()
        };
        if removed {
            self.changed();
        }
    }

    /// Takes away the prompts of a tab whose page went (their askers are gone).
    pub fn withdraw_tab(&self, tab: u64) {
        let removed = {
            let mut waiting = self.lock();
            let before = waiting.len();
            waiting.retain(|(p, _)| p.tab != Some(tab));
            before != waiting.len()
        };
        if removed {
            self.changed();
        }
    }

    pub fn list(&self) -> Vec<Value> {
        self.lock().iter().map(|(p, _)| p.to_json()).collect()
    }

    /// Whether waiting prompt `id` came from a tab an agent ran its own
    /// script in (none: no such prompt waits).
    pub fn agent_scripted(&self, id: &str) -> Option<bool> {
        self.lock()
            .iter()
            .find(|(p, _)| p.id == id)
            .map(|(p, _)| p.agent_scripted)
    }

    /// Follows the window's one-line summary.
    pub fn watch(&self) -> watch::Receiver<String> {
        self.summary.subscribe()
    }

    fn changed(&self) {
        let line = {
            let waiting = self.lock();
            match waiting.first() {
                None => String::new(),
                Some((first, _)) if waiting.len() == 1 => first.line(),
                Some((first, _)) => format!("{} (and {} more)", first.line(), waiting.len() - 1),
            }
        };
        self.summary.send_replace(line);
        self.changes.bump();
    }

    /// Wakes whenever a prompt comes or goes.
    pub fn watch_list(&self) -> watch::Receiver<u64> {
        self.changes.watch()
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Vec<(Prompt, oneshot::Sender<Answer>)>> {
        self.waiting.lock().unwrap_or_else(|e| e.into_inner())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn prompt(origin: &str, capability: Capability) -> Prompt {
        Prompt::new(
            origin.into(),
            None,
            capability,
            Request::GetPublicKey,
            Duration::from_secs(60),
        )
    }

    // Regression: "always" also answered the prompts waiting behind the
    // one the person saw.
    #[tokio::test]
    async fn remembering_answers_only_the_prompt_seen() {
        let prompts = Prompts::default();
        let (first, a) = prompts
            .ask(prompt("http://a:1", Capability::PublicKey))
            .unwrap();
        let (second, mut b) = prompts
            .ask(prompt("http://a:1", Capability::PublicKey))
            .unwrap();
        let answer = Answer {
            allow: true,
            remember: true,
            assistant: false,
        };
        prompts.answer(&first, answer).unwrap();
        assert_eq!(a.await.unwrap(), answer);
        assert!(b.try_recv().is_err(), "the unseen prompt still waits");
        assert_eq!(prompts.list().len(), 1);
        let again = prompts.answer(&first, answer).err().expect("answered once");
        assert_eq!(
            again.to_string(),
            format!("no waiting prompt {first} (answered or expired)")
        );
        prompts.answer(&second, answer).unwrap();
        assert_eq!(b.await.unwrap(), answer);
    }

    #[test]
    fn a_site_that_asks_again_and_again_is_refused_for_a_while() {
        let prompts = Prompts::default();
        for _ in 0..MAX_ASKED_PER_WINDOW {
            let (id, _rx) = prompts
                .ask(prompt("http://a:1", Capability::PublicKey))
                .unwrap();
            let deny = Answer {
                allow: false,
                remember: false,
                assistant: false,
            };
            prompts.answer(&id, deny).unwrap();
        }
        let refused = prompts
            .ask(prompt("http://a:1", Capability::PublicKey))
            .unwrap_err();
        assert!(refused.to_string().contains("asked 20 times"), "{refused}");
        assert!(prompts
            .ask(prompt("http://b:1", Capability::PublicKey))
            .is_ok());
    }

    #[test]
    fn all_sites_together_cannot_flood_the_prompts() {
        let prompts = Prompts::default();
        let mut kept = Vec::new();
        for n in 0..MAX_WAITING {
            let origin = format!("http://site{}:1", n / MAX_WAITING_PER_ORIGIN);
            kept.push(prompts.ask(prompt(&origin, Capability::PublicKey)).unwrap());
        }
        let refused = prompts
            .ask(prompt("http://another:1", Capability::PublicKey))
            .unwrap_err();
        assert!(
            refused.to_string().contains("from web pages already wait"),
            "{refused}"
        );
    }

    #[tokio::test]
    async fn a_page_that_went_takes_its_prompts_along() {
        let prompts = Prompts::default();
        let (_, gone) = prompts
            .ask(prompt("http://a:1", Capability::PublicKey).from_tab(Some(3)))
            .unwrap();
        let (_, kept) = prompts
            .ask(prompt("http://a:1", Capability::PublicKey).from_tab(Some(4)))
            .unwrap();
        prompts.withdraw_tab(3);
        assert!(gone.await.is_err(), "the withdrawn prompt's asker is told");
        assert_eq!(prompts.list().len(), 1);
        drop(kept);
    }

    #[test]
    fn one_origin_cannot_flood_the_prompts() {
        let prompts = Prompts::default();
        let mut kept = Vec::new();
        for _ in 0..MAX_WAITING_PER_ORIGIN {
            kept.push(
                prompts
                    .ask(prompt("http://a:1", Capability::PublicKey))
                    .unwrap(),
            );
        }
        let refused = prompts
            .ask(prompt("http://a:1", Capability::Encrypt))
            .unwrap_err();
        assert!(refused.to_string().contains("already wait"), "{refused}");
        assert!(prompts
            .ask(prompt("http://b:1", Capability::PublicKey))
            .is_ok());
        assert_eq!(prompts.list().len(), MAX_WAITING_PER_ORIGIN + 1);
    }

    #[test]
    fn long_content_is_cut_at_a_character() {
        let text = "é".repeat(SHOWN_CONTENT);
        let (shown, cut) = shorten(&text);
        assert_eq!(shown.len() + cut, text.len());
        assert!(shown.len() <= SHOWN_CONTENT);
    }
}
