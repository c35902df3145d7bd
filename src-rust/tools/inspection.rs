//! snapshot, get_text, get_html, get_attr, eval.

use super::page::{target, with};
use super::snapshot_diff;
use super::{tab_tool, Ctx, ToolDef, ToolOutput, ACTION, READ_ONLY};
use crate::base::error::ToolError;
use crate::base::tab::TabId;
use crate::page_protocol::{self, Args, PageInfo, PageOp, Snapshot};
use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::json;

/// The largest snapshot a call may ask for, in characters.
const SNAPSHOT_MAX_CHARS: u64 = 4_000_000;

pub fn tools() -> Vec<ToolDef> {
    vec![
        tab_tool(
            "snapshot",
            "The page as an accessibility tree, a line per element: role, name, state, [ref=e5] (f1e2: in a cross-origin frame). By default controls and headings only: interactive: false adds the text. Element tools take the ref; snapshot again after changes.",
            READ_ONLY,
            |ctx: Ctx, tab: TabId, p: SnapshotParams| async move {
                if p.max_chars.is_some_and(|n| n > SNAPSHOT_MAX_CHARS) {
                    return Err(ToolError::invalid_field(
                        "max_chars",
                        format!("at most {SNAPSHOT_MAX_CHARS}; scope a bigger page with selector"),
                    ));
                }
                let args = page_protocol::args(json!({
                    "interactive": p.interactive.unwrap_or(true),
                    "compact": p.compact.unwrap_or(true),
                    "selector": p.selector,
                    "max_chars": p.max_chars,
                    "depth": p.depth,
                }));
                let snap: Snapshot = ctx.page(tab, PageOp::Snapshot, args).await?;
                let (summary, frame) = match ctx.frame(tab) {
                    // Under frame_switch the snapshot is the frame's: so is its address.
                    Some(frame) => {
                        let info: PageInfo = ctx.page(tab, PageOp::PageInfo, Args::new()).await?;
                        let line = format!("frame: {frame} (frame_main for the whole page)\n");
                        (json!({"url": info.url, "title": info.title}), line)
                    }
                    None => (ctx.page_summary(tab).await?, String::new()),
                };
                let (tree, document) = (snap.text, snap.document.as_str());
                let previous = ctx.session.remember_snapshot(tab, document, &tree);
                let body = match (p.diff.unwrap_or(false), previous) {
                    (true, Some((before, previous))) if before == document => {
                        snapshot_diff::diff(&previous, &tree)
                    }
                    // Lines of another document say nothing about this one.
                    (true, Some(_)) => format!("{}\n{tree}", snapshot_diff::NEW_DOCUMENT),
                    _ => tree,
                };
                let text = format!(
                    "url: {}\ntitle: {}\n{frame}{}",
                    summary["url"].as_str().unwrap_or_default(),
                    summary["title"].as_str().unwrap_or_default(),
                    body
                );
                Ok(ToolOutput::Text(text))
            },
        ),
        tab_tool(
            "get_text",
            "An element's visible text (an input's value; passwords masked).",
            READ_ONLY,
            |ctx: Ctx, tab: TabId, p: TargetParams| async move {
                let text: String = ctx.page(tab, PageOp::Text, target(&p.r#ref, &p.selector)?).await?;
                Ok(ToolOutput::Text(text))
            },
        ),
        tab_tool(
            "get_html",
            "An element's inner HTML.",
            READ_ONLY,
            |ctx: Ctx, tab: TabId, p: TargetParams| async move {
                let html: String = ctx.page(tab, PageOp::Html, target(&p.r#ref, &p.selector)?).await?;
                Ok(ToolOutput::Text(html))
            },
        ),
        tab_tool(
            "get_attr",
            "An element's attribute (null when absent).",
            READ_ONLY,
            |ctx: Ctx, tab: TabId, p: AttrParams| async move {
                let args = with(target(&p.r#ref, &p.selector)?, json!({"attr": p.attr}));
                Ok(ToolOutput::json(ctx.agent(tab, PageOp::Attr, args).await?))
            },
        ),
        tab_tool(
            "eval",
            "Run JavaScript in the page; returns the last value (a function is called, promises awaited, exceptions JS_ERROR).",
            ACTION,
            |ctx: Ctx, tab: TabId, p: EvalParams| async move {
                Ok(ToolOutput::json(ctx.run_script(tab, p.script).await?))
            },
        ),
    ]
}

#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct SnapshotParams {
    /// Controls and headings only; false: all text too.
    #[serde(default)]
    #[schemars(extend("default" = true))]
    interactive: Option<bool>,
    /// Drop unnamed wrappers.
    #[serde(default)]
    #[schemars(extend("default" = true))]
    compact: Option<bool>,
    /// Only this part of the page.
    #[serde(default)]
    selector: Option<String>,
    /// Cut (marked) at about this size (default 60000, at most 4000000).
    #[serde(default)]
    max_chars: Option<u64>,
    /// Levels, with interactive false.
    #[serde(default)]
    depth: Option<u32>,
    /// Only changes since this session's last snapshot.
    #[serde(default)]
    diff: Option<bool>,
}

/// An element named by ref or selector.
#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct TargetParams {
    #[serde(default)]
    pub r#ref: Option<String>,
    #[serde(default)]
    pub selector: Option<String>,
}

#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct AttrParams {
    #[serde(default)]
    r#ref: Option<String>,
    #[serde(default)]
    selector: Option<String>,
    /// Attribute name, e.g. href.
    attr: String,
}

#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct EvalParams {
    /// An expression, statements (return and await allowed) or a function.
    script: String,
}
