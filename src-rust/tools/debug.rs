//! console, errors, highlight: what the page logged and threw, and showing
//! a person which element an agent means.

use super::families::Family;
use super::page::element;
use super::{tab_tool, tab_tool_without_page, Ctx, ToolDef, ToolOutput, ToolResult, ACTION};
use crate::base::tab::TabId;
use crate::bridge::Command;
use crate::page_protocol::ops::Highlight;
use schemars::JsonSchema;
use serde::Deserialize;

/// Entries one call returns unless asked for fewer or more.
const DEFAULT_LIMIT: usize = 100;
const MAX_LIMIT: usize = 1000;

pub fn tools() -> Vec<ToolDef> {
    vec![
        tab_tool_without_page(
            "console",
            "Console messages of this tab's pages and frames: level, source, text, URL, line, time; newest limit, oldest first.",
            ACTION,
            |ctx: Ctx, tab: TabId, p: ConsoleParams| async move {
                read(&ctx, tab, false, p.level.map(|l| l.as_str().to_string()), p.limit, p.clear).await
            },
        ),
        tab_tool_without_page(
            "errors",
            "Uncaught exceptions and unhandled rejections of this tab's pages, oldest first: message, URL, line, column, stack.",
            ACTION,
            |ctx: Ctx, tab: TabId, p: ErrorsParams| async move { read(&ctx, tab, true, None, p.limit, p.clear).await },
        ),
        tab_tool(
            "highlight",
            "Outline an element in red for ms (0: keep) so a person or screenshot sees it. Returns its box.",
            ACTION,
            |ctx: Ctx, tab: TabId, p: HighlightParams| async move {
                let asked = Highlight { target: element(&p.r#ref, &p.selector)?, ms: p.ms };
                Ok(ToolOutput::json(ctx.page(tab, asked).await?))
            },
        )
        .in_family(Family::Inspect),
    ]
}

#[derive(Deserialize, JsonSchema, Clone, Copy)]
#[serde(rename_all = "lowercase")]
pub enum Level {
    Log,
    Info,
    Warn,
    Error,
    Debug,
}

impl Level {
    fn as_str(self) -> &'static str {
        match self {
            Level::Log => "log",
            Level::Info => "info",
            Level::Warn => "warn",
            Level::Error => "error",
            Level::Debug => "debug",
        }
    }
}

#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ConsoleParams {
    /// Only this level.
    #[serde(default)]
    level: Option<Level>,
    /// The newest so many.
    #[serde(default)]
    #[schemars(extend("default" = 100))]
    limit: Option<usize>,
    /// Empty the log after reading it.
    #[serde(default)]
    clear: Option<bool>,
}

#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ErrorsParams {
    /// The newest so many.
    #[serde(default)]
    #[schemars(extend("default" = 100))]
    limit: Option<usize>,
    /// Empty the log after reading it.
    #[serde(default)]
    clear: Option<bool>,
}

#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct HighlightParams {
    #[serde(default)]
    r#ref: Option<String>,
    #[serde(default)]
    selector: Option<String>,
    #[serde(default)]
    #[schemars(extend("default" = 2000))]
    ms: Option<u64>,
}

async fn read(
    ctx: &Ctx,
    tab: TabId,
    errors: bool,
    level: Option<String>,
    limit: Option<usize>,
    clear: Option<bool>,
) -> ToolResult {
    let command = Command::Console {
        tab,
        errors,
        level,
        limit: limit.unwrap_or(DEFAULT_LIMIT).min(MAX_LIMIT),
        clear: clear.unwrap_or(false),
    };
    Ok(ToolOutput::json(ctx.app.browser.call_value(command).await?))
}
