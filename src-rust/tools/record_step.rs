//! A tool call as the recording keeps it (see `recording`): what the
//! dispatch saw before the call (the time, the page, the arguments) and
//! after it (outcome, page, element, requests). The control panel's own
//! calls are the person's, not an agent's work: they are not recorded.

use super::{Ctx, ToolOutput, ToolResult};
use crate::base::call_log::RequestRange;
use crate::base::caller::{Session, Transport};
use crate::base::secret::Wiped;
use crate::base::tab::TabId;
use crate::bridge::Command;
use crate::recording::{redact, Keep, PageSeen, Step};
use serde_json::{json, Value};
use std::time::{Duration, SystemTime, UNIX_EPOCH};

/// What a recorded call looked like before it ran.
pub struct Before {
    time: u64,
    page: Option<PageSeen>,
    /// The arguments, wiped when dropped: what was typed is only known to
    /// be a secret once the element is.
    args: Wiped,
}

/// Notes the call's start, when calls are recorded and this one is an agent's.
pub fn before(ctx: &Ctx, tab: Option<TabId>, params: &Value) -> Option<Before> {
    if !ctx.app.recorder.enabled() || ctx.session.transport == Transport::Panel {
        return None;
    }
    let time = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| d.as_millis() as u64);
    Some(Before {
        time,
        page: tab.and_then(|tab| page(ctx, tab)),
        args: Wiped(params.clone()),
    })
}

/// What the call did, as one step of its session.
pub struct Done<'a> {
    pub n: u64,
    pub tool: &'static str,
    pub result: &'a ToolResult,
    pub took: Duration,
    pub tab: Option<TabId>,
    pub requests: Option<RequestRange>,
}

/// Keeps the step (in memory only when its context is ephemeral).
pub fn record(ctx: &Ctx, before: Before, done: Done<'_>) {
    let session: &Session = &ctx.session;
    let element = ctx.acted_element();
    // A cookie's value is a credential; a password field's, a password.
    let secret = element.as_ref().is_some_and(|e| e.secret) || done.tool == "cookies_set";
    let tab = done.tab.or(session.tab());
    let (context, ephemeral) = ctx.app.browser.peek(|state| {
        let id = tab
            .and_then(|t| state.tab(t))
            .map_or_else(|| session.context(), |t| t.context);
        state
            .context(id)
            .map_or((None, false), |c| (Some(c.name.clone()), c.ephemeral))
    });
    let (ok, code, message, result) = match done.result {
        Ok(output) => (true, None, None, redact::result(&summary(output), secret)),
        Err(error) => (
            false,
            Some(error.code),
            Some(crate::base::bounded::one_line(&error.message, 1_000)),
            Value::Null,
        ),
    };
    let step = Step {
        n: done.n,
        time: before.time,
        session: session.id.clone(),
        client: session.client_name(),
        transport: session.transport.as_str().to_string(),
        context,
        tab,
        tool: done.tool.to_string(),
        args: redact::arguments(done.tool, &before.args, secret, ok),
        ok,
        code,
        message,
        result,
        ms: (done.took.as_secs_f64() * 10_000.0).round() / 10.0,
        before: before.page,
        after: tab.and_then(|tab| page(ctx, tab)),
        element,
        requests: done.requests,
        shot: false,
    };
    let keep = if ephemeral {
        Keep::InMemory
    } else {
        Keep::OnDisk
    };
    // A picture of the page after an input or a navigation, taken once
    // the reply is on its way (an ephemeral context's are not kept).
    let picture = tab.filter(|_| {
        keep == Keep::OnDisk
            && ctx.app.recorder.keeps_shots()
            && ctx
                .app
                .tools
                .get(done.tool)
                .is_some_and(|def| def.changes_the_page)
    });
    let step = Step {
        shot: picture.is_some(),
        ..step
    };
    let (session_id, n) = (step.session.clone(), step.n);
    ctx.app.recorder.record(step, keep);
    if let Some(tab) = picture {
        let app = ctx.app.clone();
        tokio::spawn(async move {
            match app.browser.call_jpeg(Command::Thumbnail { tab }).await {
                Ok(jpeg) => app.recorder.attach_shot(&session_id, n, jpeg),
                Err(error) => tracing::debug!(%error, "no picture of the page for the recording"),
            }
        });
    }
}

/// The tab's page as last published (no call to the page).
fn page(ctx: &Ctx, tab: TabId) -> Option<PageSeen> {
    ctx.app.browser.peek(|state| {
        state.tab(tab).map(|t| PageSeen {
            url: t.url.clone(),
            title: t.title.clone(),
        })
    })
}

/// A result as a step keeps it: JSON as it is, text and images by size.
fn summary(output: &ToolOutput) -> Value {
    match output {
        ToolOutput::Json(map) => Value::Object(map.clone()),
        ToolOutput::Text(text) => json!({"text": text, "chars": text.chars().count()}),
        ToolOutput::Png(png) => json!({"png_bytes": png.len()}),
        ToolOutput::PngWithText(png, text) => json!({"png_bytes": png.len(), "text": text}),
        ToolOutput::Image { data, mime, text } => {
            json!({"image_bytes": data.len(), "mime": mime, "text": text})
        }
    }
}
