//! frame_switch, frame_main: a session's tools act inside one frame of the
//! page (cross-origin frames included) until it switches back.

use super::identity::NoParams;
use super::inspection::TargetParams;
use super::page::target;
use super::{tab_tool, Ctx, ToolDef, ToolOutput, ACTION};
use crate::base::tab::TabId;
use serde_json::json;

pub fn tools() -> Vec<ToolDef> {
    vec![
        tab_tool(
            "frame_switch",
            "Make every tool act inside an iframe, cross-origin ones too, until frame_main or a new page.",
            ACTION,
            |ctx: Ctx, tab: TabId, p: TargetParams| async move {
                let frame = ctx.agent(tab, "frame_target", target(&p.r#ref, &p.selector)?).await?;
                let reference = frame["ref"].as_str().unwrap_or_default().to_string();
                ctx.session.set_frame(tab, Some(reference));
                Ok(ToolOutput::json(frame))
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
