//! `window.nostr` (NIP-07) for web pages, backed by the logged-in signer.
//!
//! A frame's call reaches [`answer_page`] with the frame's origin, read by
//! the browser's own script in its isolated world (a page cannot change
//! it). Each origin and capability needs a person's decision: a standing
//! one from [`permissions`], or an answer to a prompt shown in the control
//! panel and noted in the window. Unanswered prompts end as a rejection.
//!
//! A call from a tab an agent ran its own script in ([`AgentScripted`])
//! may be the agent's: no standing "allow" answers it (a standing denial
//! still does), its prompt says so, and only the person answers it, just
//! this time.

mod audited;
pub mod context_decisions;
pub mod permissions;
pub mod prompts;
mod refusal;
pub mod request;

use crate::activity::Activity;
use crate::agent_scripts::AgentScripted;
use crate::base::context::{ContextId, ContextInfo, DEFAULT_CONTEXT, DEFAULT_NAME};
use crate::base::page_event::PageEvent;
use crate::bridge::BrowserHandle;
use crate::identity::audit::{Audit, Decision};
use crate::identity::Method;
use crate::identity::Signer;
use crate::identity::{Identities, IdentityState};
use context_decisions::ContextDecisions;
use nostr::{Kind, Tag, Timestamp, UnsignedEvent};
use permissions::Permissions;
use prompts::{Answer, NotWaiting, Prompt, Prompts};
pub use refusal::Refusal;
use request::{Capability, Request, Scheme};
use serde::Deserialize;
use serde_json::{json, Value};
use std::sync::Arc;
use std::time::Duration;
use tokio::sync::mpsc;

/// How long a prompt waits for a person by default.
pub const DEFAULT_PROMPT_TIMEOUT: Duration = Duration::from_secs(60);

/// The provider's state: standing decisions and waiting prompts.
pub struct Nip07 {
    /// The person's own context's decisions, and the assistants' switch.
    pub permissions: Arc<Permissions>,
    /// The decisions of the contexts agents opened, each its own.
    pub contexts: ContextDecisions,
    pub prompts: Prompts,
    pub prompt_timeout: Duration,
    /// Tabs an agent ran its own script in (the browser marks them).
    pub agent_scripted: Arc<AgentScripted>,
    /// Which agent acts on which tab now: who a page's call is from.
    pub activity: Arc<Activity>,
    /// What was done in each identity's name.
    pub audit: Arc<Audit>,
}

/// What a page's calls are told about and who keeps what they did.
#[derive(Default)]
pub struct Watchers {
    pub agent_scripted: Arc<AgentScripted>,
    pub activity: Arc<Activity>,
    pub audit: Arc<Audit>,
}

impl Nip07 {
    pub fn new(
        permissions: Permissions,
        contexts: ContextDecisions,
        prompt_timeout: Duration,
        watchers: Watchers,
    ) -> Nip07 {
        Nip07 {
            permissions: Arc::new(permissions),
            contexts,
            prompts: Prompts::default(),
            prompt_timeout,
            agent_scripted: watchers.agent_scripted,
            activity: watchers.activity,
            audit: watchers.audit,
        }
    }

    /// The standing decisions that answer pages of `context`.
    pub fn decisions(&self, context: ContextId) -> Option<Arc<Permissions>> {
        match context {
            DEFAULT_CONTEXT => Some(self.permissions.clone()),
            other => self.contexts.get(other),
        }
    }

    /// What the panel shows: waiting prompts, decisions (each with its
    /// context's name), the assistant switch.
    pub fn state(&self) -> Value {
        let own = self.permissions.list().into_iter().map(|d| (None, d));
        let others = self.contexts.list().into_iter().map(|(c, d)| (Some(c), d));
        let decisions: Vec<Value> = own
            .chain(others)
            .map(|(context, decision)| {
                let mut entry = json!(decision);
                entry["context"] = context.unwrap_or_else(|| DEFAULT_NAME.into()).into();
                entry["npub"] = npub_of(&decision.pubkey).into();
                entry
            })
            .collect();
        json!({
            "prompts": self.prompts.list(),
            "permissions": decisions,
            "assistant_answers": self.permissions.assistant_answers(),
            "prompt_timeout_ms": self.prompt_timeout.as_millis() as u64,
        })
    }

    /// Answers a waiting prompt, and tells whether the answer was kept:
    /// "always" is kept for its origin and capability in the asking tab's
    /// context, unless the request came from a tab an agent ran its own
    /// script in (then it was the agent's, perhaps, not the site's: the
    /// answer holds this time only), or that context is gone.
    pub fn answer(&self, id: &str, answer: Answer) -> Result<(Value, bool), NotWaiting> {
        let prompt = self.prompts.answer(id, answer)?;
        let decisions = self.decisions(prompt.context);
        let kept = answer.remember && !prompt.agent_scripted && decisions.is_some();
        if kept {
            match prompt.context {
                DEFAULT_CONTEXT => self.permissions.remember(
                    &prompt.pubkey,
                    &prompt.origin,
                    prompt.capability,
                    answer.allow,
                ),
                other => self.contexts.remember(
                    other,
                    &prompt.pubkey,
                    &prompt.origin,
                    prompt.capability,
                    answer.allow,
                ),
            }
        }
        Ok((prompt.to_json(), kept))
    }
}

/// The npub of a public key in hex, if it is one.
fn npub_of(hex: &str) -> Option<String> {
    use nostr::ToBech32 as _;
    nostr::PublicKey::from_hex(hex).ok()?.to_bech32().ok()
}

/// One call from a page, as the browser's isolated script sends it.
#[derive(Debug, Deserialize)]
pub struct PageCall {
    /// The calling frame's origin.
    pub origin: String,
    /// The tab's top origin, when the frame is nested.
    #[serde(default)]
    pub top_origin: Option<String>,
    pub method: String,
    #[serde(default)]
    pub params: Value,
    /// The tab it came from (set by the browser, never by the page).
    #[serde(skip)]
    pub tab: Option<u64>,
    /// The tab's context (set by the browser, never by the page).
    #[serde(skip)]
    pub context: ContextId,
    /// Its name, for an agent's context (the prompt shows it).
    #[serde(skip)]
    pub context_name: Option<String>,
    /// Its context keeps nothing on disk (its audit stays in memory).
    #[serde(skip)]
    pub ephemeral: bool,
}

/// Answers the pages' calls, each on its own (a prompt may wait a minute),
/// with the identity of the context of the tab that called.
pub async fn serve(
    identities: Arc<Identities>,
    browser: BrowserHandle,
    nip07: Arc<Nip07>,
    mut events: mpsc::UnboundedReceiver<PageEvent>,
) {
    while let Some(event) = events.recv().await {
        let (text, tab, reply) = match event {
            PageEvent::Call { text, tab, reply } => (text, tab, reply),
            PageEvent::PageGone { tab } => {
                nip07.prompts.withdraw_tab(tab);
                continue;
            }
        };
        // A tab closed meanwhile: its context's, or none (refused below).
        let context: Option<ContextInfo> = browser.peek(|state| {
            let id = state.tab(tab)?.context;
            state.context(id).cloned()
        });
        let identity = match &context {
            Some(context) => identities.of(context.id),
            None => Arc::new(IdentityState::default()),
        };
        // An agent's context's decisions are read (a kept one's from its
        // folder) before its first page call is answered.
        if let Some(info) = context.as_ref().filter(|c| c.id != DEFAULT_CONTEXT) {
            nip07.contexts.of(info);
        }
        let nip07 = nip07.clone();
        tokio::spawn(async move {
            let answer = match serde_json::from_str::<PageCall>(&text) {
                Ok(mut call) => {
                    call.tab = Some(tab);
                    if let Some(info) = context.filter(|c| c.id != DEFAULT_CONTEXT) {
                        call.context = info.id;
                        call.context_name = Some(info.name);
                        call.ephemeral = info.ephemeral;
                    }
                    answer_page(&identity, &nip07, call).await
                }
                Err(error) => Err(Refusal::BadCall(format!(
                    "window.nostr: malformed request: {error}"
                ))),
            };
            let answer = match answer {
                Ok(result) => json!({"ok": true, "result": result}),
                Err(refusal) => json!({"ok": false, "error": refusal.to_string()}),
            };
            let _ = reply.send(answer.to_string());
        });
    }
}

/// Answers one page call: the value the page's promise resolves with, or
/// the message it is rejected with. Every call that asks for a capability
/// is kept in the identity audit, with how it was decided and how it ended.
pub async fn answer_page(
    identity: &IdentityState,
    nip07: &Nip07,
    call: PageCall,
) -> Result<Value, Refusal> {
    check_origin(&call.origin, call.top_origin.as_deref())?;
    let request = request::parse(&call.method, &call.params)?;
    if request.capability().is_none() {
        // getRelays: an empty map, as NIP-07 allowed; it reveals nothing.
        return Ok(json!({}));
    }
    let npub = identity
        .current()
        .and_then(|s| nostr::ToBech32::to_bech32(&s.public_key()).ok());
    let mut decided = Decision::Refused;
    let outcome = decide_and_run(identity, nip07, &call, request.clone(), &mut decided).await;
    let asker = audited::Asker {
        origin: &call.origin,
        top_origin: call.top_origin.as_deref(),
        tab: call.tab,
        context: call.context_name.as_deref().unwrap_or(DEFAULT_NAME),
    };
    let at_work = audited::AtWork {
        activity: &nip07.activity,
        agent_scripted: &nip07.agent_scripted,
    };
    let entry = audited::entry(&asker, &at_work, &request, npub, decided);
    nip07.audit.record(
        audited::ended(entry, &outcome),
        !call.ephemeral,
        identity.current().as_deref(),
    );
    outcome
}

/// The call's decision (noted in `decided`) and, when allowed, its run.
async fn decide_and_run(
    identity: &IdentityState,
    nip07: &Nip07,
    call: &PageCall,
    request: Request,
    decided: &mut Decision,
) -> Result<Value, Refusal> {
    let capability = request
        .capability()
        .ok_or_else(|| Refusal::NotOffered("nothing to decide".into()))?;
    let signer = identity.current().ok_or(Refusal::NoIdentity)?;
    if capability.needs_secret() && signer.method() == Method::Readonly {
        return Err(Refusal::ReadOnly {
            what: capability.describe().to_string(),
        });
    }
    let agent_scripted = call
        .tab
        .is_some_and(|tab| nip07.agent_scripted.contains(tab));
    // Each context's kept decisions answer its own pages only, each for the
    // identity it was made for.
    let pubkey = signer.public_key().to_hex();
    let kept = nip07
        .decisions(call.context)
        .and_then(|d| d.decision(&pubkey, &call.origin, capability));
    let allowed = match kept {
        // A denial holds whoever calls: an agent's script gets no more than the site.
        Some(false) => {
            *decided = Decision::Standing;
            false
        }
        // An "allow" was given to the site; an agent's script is asked about.
        Some(true) if !agent_scripted => {
            *decided = Decision::Standing;
            true
        }
        _ => {
            let asked = pubkey.clone();
            let answer = ask(
                nip07,
                call,
                capability,
                request.clone(),
                agent_scripted,
                asked,
            )
            .await;
            let answer = answer.inspect_err(|_| *decided = Decision::Unanswered)?;
            *decided = match answer.assistant {
                true => Decision::Assistant,
                false => Decision::Person,
            };
            answer.allow
        }
    };
    if !allowed {
        return Err(Refusal::Denied {
            origin: call.origin.clone(),
            what: capability.describe().to_string(),
        });
    }
    // A request belongs to the identity logged in when it came: if another
    // (or none) is in use once the person decided, it is refused.
    let mut changes = identity.watch();
    changes.mark_unchanged();
    if !identity
        .current()
        .is_some_and(|now| Arc::ptr_eq(&now, &signer))
    {
        return Err(Refusal::Ended);
    }
    let work = run(signer.as_ref(), request);
    tokio::select! {
        done = work => done,
        // Ended meanwhile: refused now, not when a device or bunker gives up.
        _ = changes.changed() => Err(Refusal::Ended),
    }
}

/// Runs an allowed request on `signer`: the page's value, or its error.
async fn run(signer: &dyn Signer, request: Request) -> Result<Value, Refusal> {
    let done = match request {
        Request::GetPublicKey | Request::GetRelays => Ok(json!(signer.public_key().to_hex())),
        Request::SignEvent(template) => {
            let tags = template
                .tags
                .into_iter()
                .map(Tag::parse)
                .collect::<Result<Vec<_>, _>>()
                .map_err(|e| Refusal::BadCall(format!("signEvent: a tag is not valid: {e}")))?;
            let created_at = template
                .created_at
                .map_or_else(Timestamp::now, Timestamp::from_secs);
            let unsigned = UnsignedEvent::new(
                signer.public_key(),
                created_at,
                Kind::from(template.kind),
                tags,
                template.content,
            );
            signer
                .sign_event(unsigned)
                .await
                .map(|event| serde_json::to_value(&event).unwrap_or(Value::Null))
        }
        Request::Encrypt {
            scheme,
            peer,
            plaintext,
        } => match scheme {
            Scheme::Nip04 => signer.nip04_encrypt(peer, plaintext).await,
            Scheme::Nip44 => signer.nip44_encrypt(peer, plaintext).await,
        }
        .map(Value::from),
        Request::Decrypt {
            scheme,
            peer,
            ciphertext,
        } => match scheme {
            Scheme::Nip04 => signer.nip04_decrypt(peer, ciphertext).await,
            Scheme::Nip44 => signer.nip44_decrypt(peer, ciphertext).await,
        }
        .map(Value::from),
    };
    done.map_err(Refusal::from)
}

/// Shows a prompt and waits for the answer or the timeout (a rejection).
async fn ask(
    nip07: &Nip07,
    call: &PageCall,
    capability: Capability,
    request: Request,
    agent_scripted: bool,
    pubkey: String,
) -> Result<Answer, Refusal> {
    let prompt = Prompt::new(
        call.origin.clone(),
        call.top_origin.clone(),
        capability,
        request,
        nip07.prompt_timeout,
    )
    .from_tab(call.tab)
    .agent_scripted(agent_scripted)
    .in_context(call.context, call.context_name.clone())
    .for_identity(pubkey);
    let (id, answer) = nip07.prompts.ask(prompt)?;
    tracing::info!(origin = %call.origin, capability = %capability.key(), prompt = %id, agent_scripted, "window.nostr asks the person");
    match tokio::time::timeout(nip07.prompt_timeout, answer).await {
        Ok(Ok(answer)) => Ok(answer),
        Ok(Err(_)) => Err(Refusal::Unanswered(
            "the page went away before an answer".into(),
        )),
        Err(_) => {
            nip07.prompts.withdraw(&id);
            Err(Refusal::Unanswered(format!(
                "nobody answered within {} s, so the request was rejected",
                nip07.prompt_timeout.as_secs()
            )))
        }
    }
}

/// Pages without a real origin (sandboxed frames, data: and file: URLs)
/// cannot be told apart, so they get nothing.
/// window.nostr is for secure web origins: https, or http on this machine
/// (what browsers call potentially trustworthy). A sandboxed or opaque
/// document ("null"), a file and a plain-http site elsewhere get nothing;
/// neither does a frame inside such a page.
fn check_origin(origin: &str, top_origin: Option<&str>) -> Result<(), Refusal> {
    let served = |origin: &str| {
        origin.len() < 300
            && match origin.split_once("://") {
                Some(("https", rest)) => !rest.is_empty(),
                Some(("http", _)) => crate::address::loopback_host_of(origin),
                _ => false,
            }
    };
    if !served(origin) {
        return Err(Refusal::NotOffered(format!(
            "window.nostr is offered to secure pages only (https, or http on this machine), not to {origin}"
        )));
    }
    match top_origin {
        Some(top) if !served(top) => Err(Refusal::NotOffered(format!(
            "window.nostr is not offered in a frame of {top}, which is not a secure page"
        ))),
        _ => Ok(()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_always_for_a_request_that_may_be_an_agents_is_not_kept() {
        let nip07 = Nip07::new(
            Permissions::load(None),
            ContextDecisions::new(None),
            DEFAULT_PROMPT_TIMEOUT,
            Watchers::default(),
        );
        let always = Answer {
            allow: true,
            remember: true,
            assistant: false,
        };
        let asked = |scripted: bool| {
            let prompt = Prompt::new(
                "http://a.test:1".into(),
                None,
                Capability::Sign(1),
                Request::GetPublicKey,
                DEFAULT_PROMPT_TIMEOUT,
            )
            .agent_scripted(scripted)
            .for_identity("a1".into());
            nip07.prompts.ask(prompt).unwrap()
        };
        let (id, _waiting) = asked(true);
        assert_eq!(nip07.prompts.agent_scripted(&id), Some(true));
        let (shown, kept) = nip07.answer(&id, always).unwrap();
        assert_eq!(
            (shown["agent_scripted"].as_bool(), kept),
            (Some(true), false)
        );
        assert!(nip07.permissions.list().is_empty());
        let (id, _waiting) = asked(false);
        assert!(
            nip07.answer(&id, always).unwrap().1,
            "the site's own request is kept"
        );
        assert_eq!(
            nip07
                .permissions
                .decision("a1", "http://a.test:1", Capability::Sign(1)),
            Some(true)
        );
    }

    #[test]
    fn only_secure_web_origins_are_served() {
        for ok in [
            "http://127.0.0.1:8000",
            "http://localhost:3000",
            "http://app.localhost",
            "http://[::1]:8080",
            "https://example.com",
        ] {
            assert!(check_origin(ok, None).is_ok(), "{ok}");
        }
        for bad in [
            "null",
            "file://",
            "http://",
            "https://",
            "about:blank",
            "data:x",
            "http://example.com",
            "http://127.0.0.1.evil.example",
            "http://10.0.0.1:80",
        ] {
            assert!(check_origin(bad, None).is_err(), "{bad}");
        }
        assert!(check_origin("https://pay.example", Some("http://example.com")).is_err());
        assert!(check_origin("https://pay.example", Some("https://shop.example")).is_ok());
    }
}
