//! audit_accessibility: axe-core, embedded in the binary (never fetched),
//! loaded into a document's agent world the first time it is audited
//! there, then run by the agent library's `audit` operation. Pages cannot
//! see or change it: it lives in the isolated world.

use super::script::call_agent;
use crate::base::error::ToolError;
use crate::bridge::Reply;
use crate::browser::tab::state::TabState;
use crate::browser::webkit::agent_world::AGENT_WORLD;
use crate::page_protocol::ops::Audit;
use crate::page_protocol::{Operation, PageOp};
use javascriptcore::ValueExt as _;
use std::rc::Rc;
use std::time::Duration;
use webkit2gtk::{WebView, WebViewExt as _};

/// axe-core as published (see `assets/vendor/axe-core.LICENSE`).
const AXE: &str = include_str!("../../../assets/vendor/axe.min.js");

const LOADED: &str =
    "return typeof globalThis.axe === 'object' && typeof globalThis.axe.run === 'function';";

pub fn run(view: &WebView, state: &Rc<TabState>, asked: Audit, reply: Reply, limit: Duration) {
    let args = asked.args();
    let (view2, state) = (view.clone(), state.clone());
    view.call_async_javascript_function(
        LOADED,
        None,
        Some(AGENT_WORLD),
        None,
        None::<&gio::Cancellable>,
        move |loaded| {
            if matches!(&loaded, Ok(value) if value.to_boolean()) {
                call_agent(&view2, &state, PageOp::Audit, args, reply, limit);
                return;
            }
            let view3 = view2.clone();
            view2.evaluate_javascript(
                AXE,
                Some(AGENT_WORLD),
                Some("axe.min.js"),
                None::<&gio::Cancellable>,
                move |result| match result {
                    Ok(_) => call_agent(&view3, &state, PageOp::Audit, args, reply, limit),
                    Err(error) => {
                        let message = format!("axe-core did not load in the page: {error}");
                        let _ = reply.send(Err(ToolError::internal(message)));
                    }
                },
            );
        },
    );
}
