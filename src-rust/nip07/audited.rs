//! A page's window.nostr call as the identity audit keeps it: what it
//! asked (never a message's text, a secret or a plaintext), who was at
//! work in its tab, and how it ended.

use super::refusal::Refusal;
use super::request::Request;
use crate::activity::Activity;
use crate::agent_scripts::AgentScripted;
use crate::identity::audit::{Action, Agent, Decision, Use};
use nostr::hashes::{sha256, Hash as _};
use serde_json::{json, Value};

/// Where a page's call came from: its frame's origin, its top page's, its
/// tab and its context.
pub struct Asker<'a> {
    pub origin: &'a str,
    pub top_origin: Option<&'a str>,
    pub tab: Option<u64>,
    pub context: &'a str,
}

/// Who was at work in the pages: which agent acts on which tab, and the
/// tabs agents ran their own scripts in.
pub struct AtWork<'a> {
    pub activity: &'a Activity,
    pub agent_scripted: &'a AgentScripted,
}

/// The audit entry for `request`, decided `decided`, by the identity
/// `npub` (none: none was logged in).
pub fn entry(
    asker: &Asker<'_>,
    at_work: &AtWork<'_>,
    request: &Request,
    npub: Option<String>,
    decided: Decision,
) -> Use {
    let (action, detail) = described(request);
    let mut entry = Use::new(action, npub, asker.context, decided);
    entry.detail = detail;
    entry.origin = Some(asker.origin.to_string());
    entry.frame_of = asker
        .top_origin
        .filter(|top| *top != asker.origin)
        .map(str::to_string);
    entry.agent = asker.tab.and_then(|tab| agent_in(at_work, tab));
    entry
}

/// Adds how the request ended: the signed event's id, or why it failed.
pub fn ended(mut entry: Use, outcome: &Result<Value, Refusal>) -> Use {
    match outcome {
        Ok(value) => {
            if let (Action::Sign, Some(id)) = (entry.action, value.get("id")) {
                entry.detail["id"] = id.clone();
            }
        }
        Err(why) => {
            entry.allowed = false;
            entry.error = Some(why.to_string());
        }
    }
    entry
}

/// What was asked, without anything secret or private.
fn described(request: &Request) -> (Action, Value) {
    match request {
        Request::GetPublicKey | Request::GetRelays => (Action::PublicKey, Value::Null),
        Request::SignEvent(event) => {
            let digest = sha256::Hash::hash(event.content.as_bytes());
            (
                Action::Sign,
                json!({
                    "kind": event.kind,
                    "created_at": event.created_at,
                    "content_sha256": digest.to_string(),
                    "content_chars": event.content.chars().count(),
                }),
            )
        }
        Request::Encrypt {
            scheme,
            peer,
            plaintext,
        } => (
            Action::Encrypt,
            json!({"scheme": scheme.as_str(), "peer": peer.to_hex(), "length": plaintext.chars().count()}),
        ),
        Request::Decrypt {
            scheme,
            peer,
            ciphertext,
        } => (
            Action::Decrypt,
            json!({"scheme": scheme.as_str(), "peer": peer.to_hex(), "length": ciphertext.chars().count()}),
        ),
    }
}

/// The agent at work in `tab`: one whose call runs there now, or, when an
/// agent ran its own script in the page, the last one that acted on it.
fn agent_in(at_work: &AtWork<'_>, tab: u64) -> Option<Agent> {
    let (running, last) = at_work.activity.acting_on(tab);
    if let Some((session, client)) = running {
        return Some(Agent {
            session: Some(session),
            client,
        });
    }
    let scripted = at_work.agent_scripted.contains(tab);
    last.filter(|_| scripted).map(|client| Agent {
        session: None,
        client,
    })
}
