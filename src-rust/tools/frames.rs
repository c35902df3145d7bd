//! frame_switch, frame_main: a session's tools act inside one frame of the
//! page (cross-origin frames included) until it switches back.

use super::identity::NoParams;
use super::inspection::TargetParams;
use super::page::element;
use super::{tab_tool, Ctx, ToolDef, ToolOutput, ACTION};
use crate::base::error::ToolError;
use crate::base::tab::TabId;
use crate::page_protocol::ops::FrameTarget;
use serde_json::json;
use serde_json::Value;

pub fn tools() -> Vec<ToolDef> {
    vec![
        tab_tool(
            "frame_switch",
            "Make the page tools (snapshot, get_*, input, find_*, waits, eval) act inside an iframe, cross-origin ones too, until frame_main or a new document in the tab.",
            ACTION,
            |ctx: Ctx, tab: TabId, p: TargetParams| async move {
                let frame = ctx.page(tab, FrameTarget(element(&p.r#ref, &p.selector)?)).await?;
                let Some(reference) = frame.get("ref").and_then(Value::as_str) else {
                    return Err(ToolError::internal("the page's answer to frame_target has no ref"));
                };
                let document = ctx.document(tab)?;
                ctx.session.set_frame(tab, Some((reference.to_string(), document)));
                Ok(ToolOutput::json(Value::Object(frame)))
            },
        ),
        tab_tool(
            "frame_main",
            "Act on the whole page again after frame_switch.",
            ACTION,
            |ctx: Ctx, tab: TabId, _: NoParams| async move {
                ctx.session.set_frame(tab, None);
                Ok(ToolOutput::json(json!({"frame": "main"})))
            },
        ),
    ]
}
