//! An `ask_person` call asks through the client too, when its session's
//! client declared elicitation (2025-11-25 sessions): the request the call
//! started is put to the client's user on the call's own stream. URL mode
//! links to the panel at that request (the panel's address only: never the
//! panel key or the agents' token, which the client and its model must not
//! hold); form mode asks only Done or Can't and a note, never a secret.
//! The window's bar, the panel and the client race: the first answer wins
//! (`asks`), and when the request ends any other way the elicitation is
//! withdrawn. A client's answer is its user's Done or Can't with a note:
//! it never types into a page.

use crate::asks::{Answer, Ask, Reply, NOTE_MAX};
use crate::base::caller::Session;
use crate::base::client_requests::ElicitModes;
use crate::profile::random_hex;
use crate::tools::app::App;
use serde_json::{json, Value};
use std::convert::Infallible;
use std::future::Future;
use std::sync::Arc;
use tokio::sync::{mpsc, oneshot};

/// The one tool whose calls ask the person.
pub(super) const ASKING_TOOL: &str = "ask_person";

const FORM_HINT: &str = "Do it in the browser's window (or its control panel), then answer \
Done here, or Can't. Never type a password, code or key into this form: the agent reads the note.";

const URL_HINT: &str = "The link opens the browser's control panel at this request (it asks \
for your panel key if this browser tab has none): take over the tab there and answer Done or Can't.";

/// Puts a call's request for the person to the client while the call runs.
pub(super) struct Elicitor {
    app: Arc<App>,
    session: Arc<Session>,
    modes: ElicitModes,
    out: mpsc::UnboundedSender<Value>,
    held: Option<Held>,
}

/// The request for the person this call puts to the client.
struct Held {
    ask: u64,
    /// The elicitation request, while its reply is awaited.
    request: Option<u64>,
    reply: Option<oneshot::Receiver<Value>>,
    /// A URL elicitation's id: completed when the request ends.
    elicitation: Option<String>,
}

enum Event {
    AsksChanged,
    Replied(Option<Value>),
}

impl Elicitor {
    /// For a call of `session` whose client declared elicitation: the
    /// elicitor, and what it tells the client while the call runs.
    pub(super) fn for_call(
        app: &Arc<App>,
        session: &Arc<Session>,
    ) -> Option<(Elicitor, mpsc::UnboundedReceiver<Value>)> {
        let modes = session.client_requests.modes();
        if !modes.any() {
            return None;
        }
        let (out, told) = mpsc::unbounded_channel();
        let elicitor = Elicitor {
            app: app.clone(),
            session: session.clone(),
            modes,
            out,
            held: None,
        };
        Some((elicitor, told))
    }

    /// Runs `call` with the elicitation beside it: its output, and the
    /// messages that must reach the client before the call's result (the
    /// elicitation withdrawn).
    pub(super) async fn beside<T>(mut self, call: impl Future<Output = T>) -> (T, Vec<Value>) {
        let output = {
            let run = self.run();
            tokio::pin!(call, run);
            tokio::select! {
                output = &mut call => output,
                never = &mut run => match never {},
            }
        };
        let withdrawn = self.held.take().and_then(|held| self.withdraw(held));
        (output, withdrawn.into_iter().collect())
    }

    async fn run(&mut self) -> Infallible {
        let mut asks = self.app.asks.watch();
        loop {
            asks.borrow_and_update();
            self.follow();
            let event = {
                let reply = awaited_reply(&mut self.held);
                tokio::select! {
                    changed = asks.changed() => match changed {
                        Ok(()) => Event::AsksChanged,
                        // The requests outlive every call: never.
                        Err(_) => std::future::pending().await,
                    },
                    reply = reply => Event::Replied(reply),
                }
            };
            if let Event::Replied(reply) = event {
                self.replied(reply);
            }
        }
    }

    /// Withdraws the request it holds once that has ended; takes the
    /// session's next request no other call of it holds.
    fn follow(&mut self) {
        let waiting = self.app.asks.list();
        if let Some(held) = self.held.take() {
            if waiting.iter().any(|ask| ask.id == held.ask) {
                self.held = Some(held);
                return;
            }
            if let Some(message) = self.withdraw(held) {
                let _ = self.out.send(message);
            }
        }
        let requests = &self.session.client_requests;
        let mine = waiting
            .into_iter()
            .find(|ask| ask.session == self.session.id && requests.claim(ask.id));
        if let Some(ask) = mine {
            self.put(&ask);
        }
    }

    fn put(&mut self, ask: &Ask) {
        let mut held = Held {
            ask: ask.id,
            request: None,
            reply: None,
            elicitation: None,
        };
        match self.session.client_requests.open() {
            None => tracing::info!(
                ask = ask.id,
                "too many elicitations await the client: not asked there"
            ),
            Some((id, reply)) => {
                let params = if self.modes.url {
                    let elicitation = random_hex(16);
                    let url = format!("{}#ask={}", self.app.security.panel_address, ask.id);
                    let params = url_params(ask, &url, &elicitation);
                    held.elicitation = Some(elicitation);
                    params
                } else {
                    form_params(ask)
                };
                (held.request, held.reply) = (Some(id), Some(reply));
                let request = json!({"jsonrpc": "2.0", "id": id, "method": "elicitation/create", "params": params});
                let _ = self.out.send(request);
            }
        }
        self.held = Some(held);
    }

    /// The client answered (None: its request was dropped).
    fn replied(&mut self, reply: Option<Value>) {
        let Some(held) = self.held.as_mut() else {
            return;
        };
        (held.request, held.reply) = (None, None);
        let form = held.elicitation.is_none();
        // The first answer wins: one after the bar's or the panel's is dropped.
        if let Some(answer) = reply.and_then(|reply| answer_of(&reply, form)) {
            self.app.asks.answer(held.ask, answer);
        }
    }

    /// Gives the request back, and the message that withdraws its
    /// elicitation: a URL one completes, a form still awaited is cancelled.
    fn withdraw(&self, held: Held) -> Option<Value> {
        let requests = &self.session.client_requests;
        requests.release(held.ask);
        if let Some(id) = held.request {
            requests.forget(id);
        }
        match (held.elicitation, held.request) {
            (Some(elicitation), _) => Some(json!({
                "jsonrpc": "2.0",
                "method": "notifications/elicitation/complete",
                "params": {"elicitationId": elicitation},
            })),
            (None, Some(id)) => Some(json!({
                "jsonrpc": "2.0",
                "method": "notifications/cancelled",
                "params": {"requestId": id, "reason": "the request for the person has ended"},
            })),
            (None, None) => None,
        }
    }
}

impl Drop for Elicitor {
    /// A call dropped midway (its client went away) gives its request back.
    fn drop(&mut self) {
        if let Some(held) = self.held.take() {
            self.session.client_requests.release(held.ask);
            if let Some(id) = held.request {
                self.session.client_requests.forget(id);
            }
        }
    }
}

/// The reply awaited, if any; never otherwise.
async fn awaited_reply(held: &mut Option<Held>) -> Option<Value> {
    match held.as_mut().and_then(|held| held.reply.as_mut()) {
        Some(reply) => reply.await.ok(),
        None => std::future::pending().await,
    }
}

/// What a client's reply answers: decline is Can't; a form's accept is
/// its Done or Can't with the note; cancel, an error, a URL accept (the
/// user only opened the link) and a form that does not fit answer nothing.
fn answer_of(reply: &Value, form: bool) -> Option<Reply> {
    let result = reply.get("result")?;
    match result.get("action")?.as_str()? {
        "decline" => Some(Reply::new(Answer::Declined, "")),
        "accept" if form => {
            let content = result.get("content")?;
            let answer = match content.get("answer")?.as_str()? {
                "done" => Answer::Done,
                "cant" => Answer::Declined,
                _ => return None,
            };
            let note = match content.get("note") {
                None | Some(Value::Null) => "",
                Some(Value::String(note)) => note,
                Some(_) => return None,
            };
            Some(Reply::new(answer, note))
        }
        _ => None,
    }
}

fn form_params(ask: &Ask) -> Value {
    json!({
        "mode": "form",
        "message": format!("{}\n\n{FORM_HINT}", ask.message),
        "requestedSchema": {
            "type": "object",
            "properties": {
                "answer": {
                    "type": "string",
                    "title": "Your answer",
                    "oneOf": [
                        {"const": "done", "title": "Done"},
                        {"const": "cant", "title": "Can't"},
                    ],
                },
                "note": {
                    "type": "string",
                    "title": "Note for the agent",
                    "description": "Optional. Never a password, code or key: the agent reads it.",
                    "maxLength": NOTE_MAX,
                },
            },
            "required": ["answer"],
        },
    })
}

fn url_params(ask: &Ask, url: &str, elicitation: &str) -> Value {
    json!({
        "mode": "url",
        "message": format!("{}\n\n{URL_HINT}", ask.message),
        "url": url,
        "elicitationId": elicitation,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn reply(result: Value) -> Value {
        json!({"jsonrpc": "2.0", "id": 1, "result": result})
    }

    #[test]
    fn a_forms_answer_is_done_or_cant_with_a_note() {
        let done =
            reply(json!({"action": "accept", "content": {"answer": "done", "note": " ok "}}));
        assert_eq!(answer_of(&done, true), Some(Reply::new(Answer::Done, "ok")));
        let cant = reply(json!({"action": "accept", "content": {"answer": "cant"}}));
        assert_eq!(
            answer_of(&cant, true),
            Some(Reply::new(Answer::Declined, ""))
        );
        let declined = reply(json!({"action": "decline"}));
        assert_eq!(
            answer_of(&declined, true),
            Some(Reply::new(Answer::Declined, ""))
        );
    }

    #[test]
    fn cancel_errors_odd_forms_and_a_url_accept_answer_nothing() {
        let cancel = reply(json!({"action": "cancel"}));
        assert_eq!(answer_of(&cancel, true), None);
        let odd = reply(json!({"action": "accept", "content": {"answer": "yes"}}));
        assert_eq!(answer_of(&odd, true), None);
        let typed = reply(json!({"action": "accept", "content": {"answer": "done", "note": 5}}));
        assert_eq!(answer_of(&typed, true), None);
        let opened = reply(json!({"action": "accept"}));
        assert_eq!(answer_of(&opened, false), None);
        let error = json!({"jsonrpc": "2.0", "id": 1, "error": {"code": -1, "message": "no"}});
        assert_eq!(answer_of(&error, true), None);
        // A URL decline is the person's Can't all the same.
        let declined = reply(json!({"action": "decline"}));
        assert_eq!(
            answer_of(&declined, false),
            Some(Reply::new(Answer::Declined, ""))
        );
    }

    #[test]
    fn the_form_asks_an_answer_and_a_bounded_note_only() {
        let ask = Ask {
            id: 3,
            tab: 1,
            message: "Solve the CAPTCHA".into(),
            asker: String::new(),
            session: String::new(),
            started: 0,
            deadline: std::time::Instant::now(),
        };
        let form = form_params(&ask);
        let schema = &form["requestedSchema"];
        let fields: Vec<&String> = schema["properties"].as_object().unwrap().keys().collect();
        assert_eq!(fields, ["answer", "note"]);
        assert_eq!(schema["properties"]["note"]["maxLength"], NOTE_MAX);
        assert!(form["message"]
            .as_str()
            .unwrap()
            .starts_with("Solve the CAPTCHA"));
        let url = url_params(&ask, "http://127.0.0.1:9/#ask=3", "e1");
        assert_eq!(url["url"], "http://127.0.0.1:9/#ask=3");
        assert_eq!(url["elicitationId"], "e1");
    }
}
