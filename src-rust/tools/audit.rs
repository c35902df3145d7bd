//! audit_accessibility: axe-core's check of the page, each violation with
//! the refs of the elements to fix.

use super::families::Family;
use super::{tab_tool, Ctx, ToolDef, ToolOutput, ToolResult, READ_ONLY};
use crate::base::error::ToolError;
use crate::base::tab::TabId;
use crate::bridge::Command;
use crate::page_protocol::ops::Audit;
use schemars::JsonSchema;
use serde::Deserialize;
use std::time::Duration;

pub fn tools() -> Vec<ToolDef> {
    vec![tab_tool(
        "audit_accessibility",
        "Check this page (or what selector names) with axe-core, WCAG 2 A/AA and best practices: the violations (rule id, impact, help) with the refs of the elements to fix.",
        READ_ONLY,
        |ctx: Ctx, tab: TabId, p: AuditParams| async move { audit(&ctx, tab, p).await },
    )
        .in_family(Family::Audit)]
}

#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct AuditParams {
    #[serde(default)]
    selector: Option<String>,
}

async fn audit(ctx: &Ctx, tab: TabId, p: AuditParams) -> ToolResult {
    if ctx.frame(tab).is_some() {
        return Err(ToolError::invalid_params(
            "audit_accessibility checks the whole page: call frame_main first",
        ));
    }
    ctx.wait_until_loaded(tab, Duration::from_secs(10)).await?;
    let asked = Audit {
        selector: p.selector,
    };
    let mut report = ctx
        .app
        .browser
        .call_value(Command::Audit { tab, asked })
        .await?;
    if let Some(map) = report.as_object_mut() {
        map.remove("next");
        let count = map["violations"].as_array().map_or(0, Vec::len);
        map.insert("count".into(), count.into());
    }
    Ok(ToolOutput::json(report))
}
