//! What the server asks an MCP session's client (2025-11-25 elicitation):
//! the modes the client declared at `initialize`, the requests sent to it
//! that await its reply, and which of the person's requests (`asks`) are
//! being put to it. One per session, so a reply is only ever matched to a
//! request of the session it came in on.
//!
//! Bounded (docs/security.md, "Bounds"): at most [`PENDING_MAX`] requests
//! await a reply at once; a reply to an id not awaited (unknown, late,
//! withdrawn) is dropped.

use serde_json::Value;
use std::collections::{HashMap, HashSet};
use std::sync::Mutex;
use tokio::sync::oneshot;

/// Requests to one session's client that may await its reply at once.
pub const PENDING_MAX: usize = 8;

/// The elicitation modes a client declared (`capabilities.elicitation`).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct ElicitModes {
    pub form: bool,
    pub url: bool,
}

impl ElicitModes {
    /// Read from a client's capabilities: an empty `elicitation` object
    /// means form mode (the 2025-06-18 meaning, kept by 2025-11-25).
    pub fn declared(capabilities: &Value) -> ElicitModes {
        match capabilities.get("elicitation") {
            Some(Value::Object(modes)) if modes.is_empty() => ElicitModes {
                form: true,
                url: false,
            },
            Some(Value::Object(modes)) => ElicitModes {
                form: modes.get("form").is_some_and(Value::is_object),
                url: modes.get("url").is_some_and(Value::is_object),
            },
            _ => ElicitModes::default(),
        }
    }

    pub fn any(self) -> bool {
        self.form || self.url
    }
}

#[derive(Default)]
struct State {
    modes: ElicitModes,
    next_id: u64,
    pending: HashMap<u64, oneshot::Sender<Value>>,
    claimed: HashSet<u64>,
}

#[derive(Default)]
pub struct ClientRequests {
    state: Mutex<State>,
}

impl ClientRequests {
    fn lock(&self) -> std::sync::MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(|e| e.into_inner())
    }

    pub fn modes(&self) -> ElicitModes {
        self.lock().modes
    }

    pub fn set_modes(&self, modes: ElicitModes) {
        self.lock().modes = modes;
    }

    /// A new request id and where its reply comes; None when
    /// [`PENDING_MAX`] requests already wait.
    pub fn open(&self) -> Option<(u64, oneshot::Receiver<Value>)> {
        let mut s = self.lock();
        if s.pending.len() >= PENDING_MAX {
            return None;
        }
        s.next_id += 1;
        let id = s.next_id;
        let (sender, receiver) = oneshot::channel();
        s.pending.insert(id, sender);
        Some((id, receiver))
    }

    /// The client's reply to request `id` (its whole JSON-RPC message);
    /// false when no such request waits, and then it is dropped.
    pub fn settle(&self, id: &Value, reply: Value) -> bool {
        let Some(id) = id.as_u64() else {
            return false;
        };
        match self.lock().pending.remove(&id) {
            Some(sender) => sender.send(reply).is_ok(),
            None => false,
        }
    }

    /// Stops waiting for request `id` (withdrawn): a reply after it is dropped.
    pub fn forget(&self, id: u64) {
        self.lock().pending.remove(&id);
    }

    /// Takes the person's request `ask` to put to this client; false when
    /// another call of this session already does.
    pub fn claim(&self, ask: u64) -> bool {
        self.lock().claimed.insert(ask)
    }

    pub fn release(&self, ask: u64) {
        self.lock().claimed.remove(&ask);
    }

    pub fn is_claimed(&self, ask: u64) -> bool {
        self.lock().claimed.contains(&ask)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn modes_are_read_as_the_revisions_define_them() {
        let read = |c: Value| ElicitModes::declared(&c);
        let form = ElicitModes {
            form: true,
            url: false,
        };
        let url = ElicitModes {
            form: false,
            url: true,
        };
        assert_eq!(read(json!({"elicitation": {}})), form);
        assert_eq!(read(json!({"elicitation": {"form": {}}})), form);
        assert_eq!(read(json!({"elicitation": {"url": {}}})), url);
        let both = read(json!({"elicitation": {"form": {}, "url": {}}}));
        assert!(both.form && both.url);
        assert!(!read(json!({"sampling": {}})).any());
        assert!(!read(json!({"elicitation": true})).any());
        assert!(!read(json!({"elicitation": {"url": true}})).any());
    }

    #[test]
    fn a_reply_reaches_its_request_once_and_late_or_unknown_ones_are_dropped() {
        let requests = ClientRequests::default();
        let (id, mut reply) = requests.open().unwrap();
        assert!(!requests.settle(&json!(id + 1), json!("stranger")));
        assert!(!requests.settle(&json!(id.to_string()), json!("a string id")));
        assert!(requests.settle(&json!(id), json!("answer")));
        assert_eq!(reply.try_recv().unwrap(), json!("answer"));
        assert!(!requests.settle(&json!(id), json!("again")), "once");
        let (withdrawn, _) = requests.open().unwrap();
        requests.forget(withdrawn);
        assert!(!requests.settle(&json!(withdrawn), json!("late")));
    }

    #[test]
    fn pending_requests_are_bounded() {
        let requests = ClientRequests::default();
        let open: Vec<_> = (0..PENDING_MAX).map(|_| requests.open().unwrap()).collect();
        assert!(requests.open().is_none());
        requests.forget(open[0].0);
        assert!(requests.open().is_some());
    }

    #[test]
    fn an_ask_is_claimed_by_one_call_at_a_time() {
        let requests = ClientRequests::default();
        assert!(requests.claim(4));
        assert!(!requests.claim(4));
        assert!(requests.is_claimed(4));
        requests.release(4);
        assert!(requests.claim(4));
    }
}
