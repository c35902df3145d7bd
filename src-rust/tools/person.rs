//! ask_person: an agent hands its tab to the person and waits for their
//! answer; ask_answer: the person's answer from the panel (the window's
//! Done and Can't buttons answer on the main thread).

use super::{tab_tool, tool, Ctx, ToolDef, ToolOutput, ToolResult, ACTION};
use crate::asks::{Answer, Reply};
use crate::base::context::ContextId;
use crate::base::error::{ErrorCode, ToolError};
use crate::base::tab::TabId;
use crate::bridge::{tab_closed, Command};
use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::json;
use std::time::{Duration, Instant};

const DEFAULT_TIMEOUT_MS: u64 = 300_000;
/// The longest any call may run (the dispatch's own bound).
const MAX_TIMEOUT_MS: u64 = 600_000;
const MESSAGE_MAX: usize = 500;

pub fn tools() -> Vec<ToolDef> {
    vec![
        tab_tool(
            "ask_person",
            "Hand this tab to the person (CAPTCHA, code, password) and wait for Done/Can't; meanwhile tools on the tab and eval answer PAUSED, and what they type stays unreadable. Returns answer (done, declined, timed_out) and note.",
            ACTION,
            |ctx: Ctx, tab: TabId, p: AskParams| async move { ask(&ctx, tab, p).await },
        ),
        tool(
            "ask_answer",
            "Answer an agent's request for the person (by id): done or declined, with a note for the agent.",
            ACTION,
            |ctx: Ctx, p: AnswerParams| async move {
                let reply = Reply::new(p.answer, p.note.as_deref().unwrap_or_default());
                if !ctx.app.asks.answer(p.id, reply) {
                    return Err(ToolError::invalid_field(
                        "id",
                        format!("no request {} waits for an answer (it was answered, timed out, or its agent left)", p.id),
                    ));
                }
                Ok(ToolOutput::json(json!({"answered": p.id})))
            },
        )
        .ungated()
        .person_only(),
    ]
}

#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct AskParams {
    /// Shown to the person as written.
    message: String,
    /// ms, at most 600000.
    #[serde(default)]
    #[schemars(extend("default" = 300000))]
    timeout: Option<u64>,
}

#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct AnswerParams {
    id: u64,
    answer: Answer,
    #[serde(default)]
    note: Option<String>,
}

/// Ends the request however the call ends: answered, timed out, or dropped
/// because its client went away.
struct Pending<'a> {
    ctx: &'a Ctx,
    tab: TabId,
    id: u64,
}

impl Drop for Pending<'_> {
    fn drop(&mut self) {
        self.ctx.app.asks.end(self.tab, self.id);
    }
}

async fn ask(ctx: &Ctx, tab: TabId, p: AskParams) -> ToolResult {
    let message = p.message.trim();
    if message.is_empty() {
        return Err(ToolError::invalid_field(
            "message",
            "it is empty: say what the person should do",
        ));
    }
    if message.chars().count() > MESSAGE_MAX {
        return Err(ToolError::invalid_field(
            "message",
            format!("keep it to {MESSAGE_MAX} characters"),
        ));
    }
    let ms = p.timeout.unwrap_or(DEFAULT_TIMEOUT_MS);
    if !(1000..=MAX_TIMEOUT_MS).contains(&ms) {
        return Err(ToolError::invalid_field(
            "timeout",
            format!("give 1000 to {MAX_TIMEOUT_MS} ms"),
        ));
    }
    let timeout = Duration::from_millis(ms);
    // The name is the client's own claim, unbounded: shown as one short line.
    let asker = crate::asks::shown_name(&ctx.session.client_name().unwrap_or_default());
    let session = &ctx.session;
    let (id, answered) = ctx
        .app
        .asks
        .start(tab, message, (&asker, &session.id), timeout)
        .map_err(|waiting| ToolError::new(ErrorCode::Paused, crate::hold::tab_held(&waiting)))?;
    let _pending = Pending { ctx, tab, id };
    // The person sees the tab the request is about, unless they already
    // work in another one for an agent (its mark in the tab strip tells).
    let context = ctx.tab_info(tab)?.context;
    if person_front(ctx, context).is_none_or(|(front, _)| front == tab) {
        ctx.app
            .browser
            .call_value(Command::BringToFront { tab })
            .await?;
    }
    let started = Instant::now();
    let deadline = tokio::time::Instant::now() + timeout;
    let closed = ctx
        .app
        .browser
        .wait_until(deadline, |state| state.tab(tab).is_none().then_some(()));
    let (answer, note) = tokio::select! {
        reply = answered => match reply {
            Ok(reply) => (json!(reply.answer), reply.note),
            // Only an end of the request drops its sender: the call ends too.
            Err(_) => (json!("timed_out"), String::new()),
        },
        gone = closed => match gone {
            Some(()) => return Err(tab_closed()),
            None => (json!("timed_out"), String::new()),
        },
    };
    Ok(ToolOutput::json(json!({
        "answer": answer,
        "note": note,
        "waited_ms": started.elapsed().as_millis() as u64,
    })))
}

/// For an agent's call: the tab in front of `context`'s window when the
/// person handles it for an agent, with the request's message. It stays
/// in front.
pub fn person_front(ctx: &Ctx, context: ContextId) -> Option<(TabId, String)> {
    let front = ctx.app.browser.state().front_in(context)?.id;
    let message = ctx
        .app
        .holds()
        .held_front(ctx.session.transport.principal(), front)?;
    Some((front, message))
}
