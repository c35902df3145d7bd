//! snapshot, get_text, get_html, get_attr, eval.

use super::page::element;
use super::snapshot_diff;
use super::snapshot_pages::{self, Cursor};
use super::{tab_tool, Ctx, ToolDef, ToolOutput, ACTION, READ_ONLY};
use crate::base::error::ToolError;
use crate::base::tab::TabId;
use crate::page_protocol::ops::{self, Attr, Html, Text};
use crate::page_protocol::Target;
use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::{json, Value};

/// The largest snapshot a call may ask for, in characters.
const SNAPSHOT_MAX_CHARS: u64 = 4_000_000;

pub fn tools() -> Vec<ToolDef> {
    vec![
        tab_tool(
            "snapshot",
            "The page as an accessibility tree, a line per element: its ref (e5; f1e5 in a cross-origin frame), role, name, states. By default controls and headings only: interactive: false adds the text. A big page comes in parts: the last line says how to go on. Element tools take the ref; snapshot again after changes.",
            READ_ONLY,
            |ctx: Ctx, tab: TabId, p: SnapshotParams| async move {
                let max_chars = match p.max_chars {
                    Some(n) if n == 0 || n > SNAPSHOT_MAX_CHARS => {
                        return Err(ToolError::invalid_field(
                            "max_chars",
                            format!("1 to {SNAPSHOT_MAX_CHARS}; a bigger page is read in parts (after) or scoped (ref, selector)"),
                        ));
                    }
                    Some(n) => n as usize,
                    None => snapshot_pages::DEFAULT_MAX_CHARS,
                };
                let outline = p.outline.unwrap_or(false);
                let diff = p.diff.unwrap_or(false);
                if outline && diff {
                    return Err(ToolError::invalid_params("outline and diff do not go together: an outline is never compared"));
                }
                let after = p.after.as_deref().map(Cursor::parse).transpose()?;
                // Of the two, a ref names the subtree first.
                let root = match (&p.r#ref, &p.selector) {
                    (Some(r), _) => Some(Target::Ref(r.clone())),
                    (None, Some(s)) => Some(Target::Selector(s.clone())),
                    (None, None) => None,
                };
                let asked = ops::Snapshot {
                    interactive: p.interactive.unwrap_or(true),
                    compact: p.compact.unwrap_or(true),
                    root,
                    max_chars: SNAPSHOT_MAX_CHARS,
                    depth: p.depth,
                    outline,
                };
                let snap = ctx.page(tab, asked).await?;
                let (summary, frame) = match ctx.frame(tab) {
                    // Under frame_switch the snapshot is the frame's: so is its address.
                    Some(frame) => {
                        let info = ctx.page(tab, ops::PageInfo {}).await?;
                        let line = format!("frame: {frame} (frame_main for the whole page)\n");
                        (json!({"url": info.url, "title": info.title}), line)
                    }
                    None => (ctx.page_summary(tab).await?, String::new()),
                };
                let (tree, document) = (snap.text, snap.document.as_str());
                let header = format!(
                    "url: {}\ntitle: {}\n{frame}",
                    summary["url"].as_str().unwrap_or_default(),
                    summary["title"].as_str().unwrap_or_default(),
                );
                let (header, body) = if outline {
                    (header, tree)
                } else {
                    let paging = after.is_some();
                    let state = ctx.app.browser.state();
                    ctx.session.forget_closed_tabs(|t| state.tab(t).is_some());
                    // The address and title are compared too: a diff says them
                    // only when they changed.
                    let page = format!("{header}{tree}");
                    let previous = ctx.session.remember_snapshot(tab, document, &page, paging);
                    match (diff, previous) {
                        (true, Some((before, previous))) if before == document => {
                            (String::new(), snapshot_diff::diff(&previous, &page))
                        }
                        // Lines of another document say nothing about this one.
                        (true, Some(_)) => (header, format!("{}\n{tree}", snapshot_diff::NEW_DOCUMENT)),
                        _ => (header, tree),
                    }
                };
                let body = snapshot_pages::part(&body, max_chars, after.as_ref(), &p.again())?;
                let text = format!("{header}{body}");
                Ok(ToolOutput::Text(text))
            },
        ),
        tab_tool(
            "get_text",
            "An element's visible text (an input's value; passwords masked).",
            READ_ONLY,
            |ctx: Ctx, tab: TabId, p: TargetParams| async move {
                let text = ctx.page(tab, Text(element(&p.r#ref, &p.selector)?)).await?;
                Ok(ToolOutput::Text(text))
            },
        ),
        tab_tool(
            "get_html",
            "An element's inner HTML.",
            READ_ONLY,
            |ctx: Ctx, tab: TabId, p: TargetParams| async move {
                let html = ctx.page(tab, Html(element(&p.r#ref, &p.selector)?)).await?;
                Ok(ToolOutput::Text(html))
            },
        ),
        tab_tool(
            "get_attr",
            "An element's attribute (null when absent).",
            READ_ONLY,
            |ctx: Ctx, tab: TabId, p: AttrParams| async move {
                let asked = Attr { target: element(&p.r#ref, &p.selector)?, attr: p.attr };
                Ok(ToolOutput::json(Value::Object(ctx.page(tab, asked).await?)))
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
    /// Only this element's part (a heading's: its section).
    #[serde(default)]
    r#ref: Option<String>,
    /// Only this part of the page (CSS).
    #[serde(default)]
    selector: Option<String>,
    /// Size of a part (default 60000, at most 4000000).
    #[serde(default)]
    max_chars: Option<u64>,
    /// The next part: the cursor a part's last line gives.
    #[serde(default)]
    after: Option<String>,
    /// Landmarks and headings with refs and control counts, to pick a part of a big page.
    #[serde(default)]
    outline: Option<bool>,
    /// Levels, with interactive false.
    #[serde(default)]
    depth: Option<u32>,
    /// Only changes since this session's last snapshot.
    #[serde(default)]
    diff: Option<bool>,
}

impl SnapshotParams {
    /// The parameters besides `after` a next part is asked with, as the
    /// closing line writes them (", interactive: false, selector: \"main\"").
    fn again(&self) -> String {
        let mut out = String::new();
        let mut add =
            |name: &str, value: serde_json::Value| out.push_str(&format!(", {name}: {value}"));
        if self.interactive == Some(false) {
            add("interactive", false.into());
        }
        if self.compact == Some(false) {
            add("compact", false.into());
        }
        if let Some(r) = &self.r#ref {
            add("ref", r.as_str().into());
        }
        if let Some(selector) = &self.selector {
            add("selector", selector.as_str().into());
        }
        if let Some(n) = self.max_chars {
            add("max_chars", n.into());
        }
        if self.outline == Some(true) {
            add("outline", true.into());
        }
        if let Some(depth) = self.depth {
            add("depth", depth.into());
        }
        if self.diff == Some(true) {
            add("diff", true.into());
        }
        out
    }
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
