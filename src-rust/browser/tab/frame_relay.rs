//! The relay of answers from agents in cross-origin frames: a message
//! handler that exists only in the agent's script world (so no page sees
//! an answer), matched to the requests `frames` waits on by nonce.

use crate::base::error::{ErrorCode, ToolError};
use crate::browser::webkit::agent_world::agent_outcome;
use serde_json::Value;
use std::cell::RefCell;
use std::collections::{HashMap, VecDeque};
use std::rc::Rc;
use std::time::Duration;
use webkit2gtk::UserContentManager;

/// The message handler's name, as `agent.js` calls it.
const FRAME_HANDLER: &str = "sovereignFrame";
/// Answers nobody waits for yet (they can beat the main frame's own reply).
const UNCLAIMED_MAX: usize = 64;

pub(crate) type Outcome = Result<Value, ToolError>;
pub(crate) type Then = Box<dyn FnOnce(Outcome)>;

/// Frame answers of one tab, matched to their requests by nonce.
#[derive(Default)]
pub struct FrameRelay {
    waiting: RefCell<HashMap<String, Then>>,
    unclaimed: RefCell<VecDeque<(String, Outcome)>>,
}

impl FrameRelay {
    /// An answer posted by a frame's agent: `{"nonce": "...", "reply": {"ok": ...}}`.
    fn deliver(&self, text: &str) {
        let Ok(message) = serde_json::from_str::<Value>(text) else {
            return;
        };
        let Some(nonce) = message["nonce"].as_str() else {
            return;
        };
        let outcome = agent_outcome(&message["reply"]);
        let waiter = self.waiting.borrow_mut().remove(nonce);
        match waiter {
            Some(then) => then(outcome),
            None => {
                let mut unclaimed = self.unclaimed.borrow_mut();
                if unclaimed.len() >= UNCLAIMED_MAX {
                    unclaimed.pop_front();
                }
                unclaimed.push_back((nonce.to_string(), outcome));
            }
        }
    }

    /// Calls `then` with the answer to `nonce`, or with a timeout error.
    pub(crate) fn expect(self: &Rc<Self>, nonce: String, timeout: Duration, then: Then) {
        let early = {
            let mut unclaimed = self.unclaimed.borrow_mut();
            let index = unclaimed.iter().position(|(n, _)| *n == nonce);
            index.and_then(|i| unclaimed.remove(i))
        };
        if let Some((_, outcome)) = early {
            then(outcome);
            return;
        }
        self.waiting.borrow_mut().insert(nonce.clone(), then);
        let relay = Rc::downgrade(self);
        glib::timeout_add_local_once(timeout, move || {
            let Some(relay) = relay.upgrade() else {
                return;
            };
            let waiter = relay.waiting.borrow_mut().remove(&nonce);
            if let Some(then) = waiter {
                then(Err(ToolError::new(
                    ErrorCode::Timeout,
                    "the frame did not answer (it may be loading or gone); take a new snapshot",
                )));
            }
        });
    }
}

/// Hears the frames' agents of one tab.
pub fn listen(manager: &UserContentManager, relay: &Rc<FrameRelay>) {
    let relay = relay.clone();
    crate::browser::webkit::agent_world::hear(manager, FRAME_HANDLER, move |text| {
        relay.deliver(text)
    });
}
