//! Calling JavaScript: named operations of the agent library in its
//! isolated world, and user scripts in the page's world. Arguments travel
//! as a GVariant dictionary, never spliced into source.

use super::frames;
use crate::authorship::Way;
use crate::base::error::{ErrorCode, ToolError};
use crate::bridge::{Output, Reply};
use crate::browser::tab::state::TabState;
use crate::browser::webkit::agent_world::{agent_outcome, AGENT_WORLD};
use crate::browser::webkit::expiry::Expiry;
use crate::page_protocol::{self, Args, Operation, PageOp};
use javascriptcore::ValueExt as _;
use serde_json::Value;
use std::rc::Rc;
use std::sync::OnceLock;
use std::time::Duration;
use webkit2gtk::WebView;
use webkit2gtk::WebViewExt as _;

/// The agent library as written (`assets/agent/*.js`, joined by build.rs);
/// `agent_source` is what runs.
const AGENT_TEMPLATE: &str = include_str!(concat!(env!("OUT_DIR"), "/agent.js"));

/// The agent library, injected at document start into every frame, with
/// the key that signs requests between agents of different frames. The
/// key is new each run and lives only in the agent's isolated world.
pub fn agent_source() -> &'static str {
    static SOURCE: OnceLock<String> = OnceLock::new();
    SOURCE.get_or_init(|| {
        let page_eval = serde_json::to_string(PAGE_EVAL).unwrap_or_default();
        AGENT_TEMPLATE
            .replace("__SOVEREIGN_FRAME_KEY__", &crate::profile::random_hex(32))
            .replace("'__SOVEREIGN_PAGE_EVAL__'", &page_eval)
    })
}

/// How user scripts run (eval, wait_for_fn), in the top document and in frames alike.
const PAGE_EVAL: &str = include_str!("../../../assets/page-eval.js");

const MISSING: &str = "__sovereign_agent_missing__";

const AGENT_CALL: &str =
    "if (!globalThis.__sovereignAgent) { return '__sovereign_agent_missing__'; }
return globalThis.__sovereignAgent.call(op, JSON.parse(args));";

/// The user's script, run as `assets/page-eval.js` says, in the top document's own world.
const EVAL_CALL: &str = concat!(
    "return (",
    include_str!("../../../assets/page-eval.js"),
    ")(script);"
);

/// Calls `op` of the agent library with `args`.
pub fn call_agent(
    view: &WebView,
    state: &Rc<TabState>,
    op: PageOp,
    mut args: Args,
    reply: Reply,
    limit: Duration,
) {
    if let Some(error) = state.blocked() {
        let _ = reply.send(Err(error));
        return;
    }
    // The operation that runs the user's script in a frame page's own
    // world (eval and wait_for_fn in a frame).
    if op == PageOp::Eval {
        if let Some(error) = super::person_typed::page_scripts_refused(state) {
            let _ = reply.send(Err(error));
            return;
        }
        state.related().about_to_reach(Way::Eval);
    }
    let (floor, next) = state.refs();
    args.insert("floor".into(), floor.into());
    args.insert("next".into(), next.into());
    let key = state.park(reply);
    let call = AgentCall {
        key,
        op,
        args: Value::Object(args).to_string(),
        expiry: Rc::new(expire_parked(state, key, limit)),
    };
    run_agent(view.clone(), state.clone(), call, false);
}

/// [`call_agent`] for work on the main thread: the reply, read as the
/// operation declares it, as a future.
pub fn ask<O: Operation>(
    view: &WebView,
    state: &Rc<TabState>,
    asked: &O,
    limit: Duration,
) -> impl std::future::Future<Output = Result<O::Reply, ToolError>> {
    let (reply, answer) = tokio::sync::oneshot::channel();
    let op = O::OP;
    call_agent(view, state, op, asked.args(), reply, limit);
    async move {
        match answer.await {
            Ok(Ok(Output::Value(value))) => page_protocol::parse(op, value),
            Ok(Ok(other)) => Err(ToolError::internal(format!(
                "{} answered {other:?}",
                op.name()
            ))),
            Ok(Err(error)) => Err(error),
            Err(_) => Err(ToolError::internal("the page operation was dropped")),
        }
    }
}

/// Calls an operation of the agent library in the tab's main frame with
/// nobody waiting for the answer (answers of frames it asks land in the
/// relay).
pub fn tell<O: Operation>(view: &WebView, told: &O) {
    let dict = glib::VariantDict::new(None);
    dict.insert("op", O::OP.name());
    dict.insert("args", Value::Object(told.args()).to_string().as_str());
    view.call_async_javascript_function(
        AGENT_CALL,
        Some(&dict.end()),
        Some(AGENT_WORLD),
        None,
        None::<&gio::Cancellable>,
        |_| {},
    );
}

/// A parked call that the page has not answered when its time is up is
/// answered then, and leaves the tab's table of waiting calls.
fn expire_parked(state: &Rc<TabState>, key: u64, limit: Duration) -> Expiry {
    let state = state.clone();
    Expiry::then(limit, move || {
        let waited = limit.as_millis();
        state.answer(
            key,
            Err(ToolError::timeout(format!(
                "the page did not answer within {waited} ms"
            ))),
        );
    })
}

/// One agent call on its way: its parked reply's key, what it runs, and
/// when WebKit gives up on it.
struct AgentCall {
    key: u64,
    op: PageOp,
    args: String,
    expiry: Rc<Expiry>,
}

fn run_agent(view: WebView, state: Rc<TabState>, call: AgentCall, retried: bool) {
    let dict = glib::VariantDict::new(None);
    dict.insert("op", call.op.name());
    dict.insert("args", call.args.as_str());
    let arguments = dict.end();
    let view2 = view.clone();
    let cancellable = call.expiry.cancellable().clone();
    let key = call.key;
    view.call_async_javascript_function(
        AGENT_CALL,
        Some(&arguments),
        Some(AGENT_WORLD),
        None,
        Some(&cancellable),
        move |result| {
            super::page_memory::ask_relief(&view2);
            let text = match result {
                Ok(value) if value.is_string() => value.to_str().to_string(),
                Ok(_) => String::new(),
                Err(error) => {
                    state.answer(key, Err(js_error(&error)));
                    return;
                }
            };
            if text == MISSING && !retried {
                // A document the user script did not reach (the first
                // about:blank, a page loaded before injection): inject now.
                inject_agent(view2, state, call);
                return;
            }
            match parse_agent_reply(&text) {
                Ok(value) => {
                    let state2 = state.clone();
                    let done = Box::new(move |outcome: Result<Value, ToolError>| {
                        state2.answer(key, outcome.map(Output::Value))
                    });
                    frames::complete(&state, value, done);
                }
                Err(error) => state.answer(key, Err(error)),
            }
        },
    );
}

fn inject_agent(view: WebView, state: Rc<TabState>, call: AgentCall) {
    let view2 = view.clone();
    let cancellable = call.expiry.cancellable().clone();
    view.evaluate_javascript(
        agent_source(),
        Some(AGENT_WORLD),
        Some("sovereign-agent.js"),
        Some(&cancellable),
        move |result| match result {
            Ok(_) => run_agent(view2, state, call, true),
            Err(error) => state.answer(call.key, Err(js_error(&error))),
        },
    );
}

/// Turns the agent's `{"ok":...}` JSON string into a value or a tool error.
pub fn parse_agent_reply(text: &str) -> Result<Value, ToolError> {
    let reply: Value = serde_json::from_str(text).map_err(|_| {
        ToolError::new(
            ErrorCode::JsError,
            "the page did not answer (is it still loading?); try again",
        )
    })?;
    agent_outcome(&reply)
}

/// Evaluates a user script in the page's own world. The tab (with the
/// tabs related to it) is marked first: from now on its pages' calls may be
/// the agent's.
pub fn eval(view: &WebView, state: &Rc<TabState>, script: &str, reply: Reply, limit: Duration) {
    if let Some(error) = state
        .blocked()
        .or_else(|| super::person_typed::page_scripts_refused(state))
    {
        let _ = reply.send(Err(error));
        return;
    }
    state.related().about_to_reach(Way::WaitForFn);
    let key = state.park(reply);
    let expiry = expire_parked(state, key, limit);
    let cancellable = expiry.cancellable().clone();
    let dict = glib::VariantDict::new(None);
    dict.insert("script", script);
    let arguments = dict.end();
    let (state, view2) = (state.clone(), view.clone());
    view.call_async_javascript_function(
        EVAL_CALL,
        Some(&arguments),
        None,
        None,
        Some(&cancellable),
        move |result| {
            drop(expiry);
            super::page_memory::ask_relief(&view2);
            let outcome = match result {
                Ok(value) if value.is_string() => serde_json::from_str(&value.to_str())
                    .map_err(|e| ToolError::internal(format!("unreadable eval result: {e}"))),
                Ok(_) => Ok(serde_json::json!({"type": "undefined", "value": null})),
                Err(error) => Err(js_error(&error)),
            };
            state.answer(key, outcome.map(Output::Value));
        },
    );
}

fn js_error(error: &glib::Error) -> ToolError {
    ToolError::new(ErrorCode::JsError, error.message().to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn agent_success_gives_the_value() {
        let v = parse_agent_reply(r#"{"ok":true,"value":{"x":1}}"#).unwrap();
        assert_eq!(v["x"], 1);
    }

    #[test]
    fn agent_errors_keep_their_code() {
        let e =
            parse_agent_reply(r#"{"ok":false,"code":"STALE_REF","message":"gone"}"#).unwrap_err();
        assert_eq!(e.code, ErrorCode::StaleRef);
        assert_eq!(e.message, "gone");
        let e = parse_agent_reply(r#"{"ok":false,"code":"WHAT","message":"x"}"#).unwrap_err();
        assert_eq!(e.code, ErrorCode::JsError);
        assert_eq!(
            parse_agent_reply("garbage").unwrap_err().code,
            ErrorCode::JsError
        );
    }
}
