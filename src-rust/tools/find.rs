//! find_role, find_text, find_label, find_placeholder, find_alt, find_title,
//! find_testid, find_first, find_last, find_nth: an element by what a person
//! sees, with a ref usable by every element tool (same refs as snapshot).

use super::families::Family;
use super::{tab_tool, Ctx, ToolDef, ToolOutput, ToolResult, READ_ONLY};
use crate::base::tab::TabId;
use crate::page_protocol::ops::{By, Find};
use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::Value;

pub fn tools() -> Vec<ToolDef> {
    vec![
        tab_tool(
            "find_role",
            "Find one element by ARIA role and accessible name; several matches are INVALID_PARAMS listing them (be more specific). Open shadow roots and same-origin frames included.",
            READ_ONLY,
            |ctx: Ctx, tab: TabId, p: RoleParams| async move {
                let what = match &p.name {
                    Some(n) => format!("role {} named {n:?}", p.role),
                    None => format!("role {}", p.role),
                };
                find(&ctx, tab, By::Role { role: p.role, name: p.name, exact: p.exact }, what).await
            },
        )
        .in_family(Family::Find),
        tab_tool(
            "find_text",
            "Find the innermost element showing text (exact: whole text).",
            READ_ONLY,
            |ctx: Ctx, tab: TabId, p: TextParams| async move {
                let what = format!("text {:?}", p.text);
                find(&ctx, tab, By::Text { text: p.text, exact: p.exact }, what).await
            },
        )
        .in_family(Family::Find),
        tab_tool(
            "find_label",
            "Find a field by its label (label, aria-label, aria-labelledby; contains).",
            READ_ONLY,
            |ctx: Ctx, tab: TabId, p: LabelParams| async move {
                find(&ctx, tab, By::Label { label: p.label.clone() }, said("label", &p.label)).await
            },
        )
        .in_family(Family::Find),
        tab_tool(
            "find_placeholder",
            "Find a field whose placeholder contains text.",
            READ_ONLY,
            |ctx: Ctx, tab: TabId, p: PlaceholderParams| async move {
                find(&ctx, tab, By::Placeholder { placeholder: p.placeholder.clone() }, said("placeholder", &p.placeholder)).await
            },
        )
        .in_family(Family::Find),
        tab_tool(
            "find_alt",
            "Find an image whose alt text contains text.",
            READ_ONLY,
            |ctx: Ctx, tab: TabId, p: AltParams| async move {
                find(&ctx, tab, By::Alt { alt: p.alt.clone() }, said("alt", &p.alt)).await
            },
        )
        .in_family(Family::Find),
        tab_tool(
            "find_title",
            "Find an element whose title attribute contains text.",
            READ_ONLY,
            |ctx: Ctx, tab: TabId, p: TitleParams| async move {
                find(&ctx, tab, By::Title { title: p.title.clone() }, said("title", &p.title)).await
            },
        )
        .in_family(Family::Find),
        tab_tool(
            "find_testid",
            "Find the element with a data-testid.",
            READ_ONLY,
            |ctx: Ctx, tab: TabId, p: TestIdParams| async move {
                find(&ctx, tab, By::Testid { testid: p.testid.clone() }, said("data-testid", &p.testid)).await
            },
        )
        .in_family(Family::Find),
        tab_tool(
            "find_first",
            "The first element matching a CSS selector.",
            READ_ONLY,
            |ctx: Ctx, tab: TabId, p: SelectorParams| async move {
                find(&ctx, tab, By::First { selector: p.selector.clone() }, said("selector", &p.selector)).await
            },
        )
        .in_family(Family::Find),
        tab_tool(
            "find_last",
            "The last element matching a CSS selector.",
            READ_ONLY,
            |ctx: Ctx, tab: TabId, p: SelectorParams| async move {
                find(&ctx, tab, By::Last { selector: p.selector.clone() }, said("selector", &p.selector)).await
            },
        )
        .in_family(Family::Find),
        tab_tool(
            "find_nth",
            "The n-th element (from 0) matching a CSS selector.",
            READ_ONLY,
            |ctx: Ctx, tab: TabId, p: NthParams| async move {
                let what = said("selector", &p.selector);
                find(&ctx, tab, By::Nth { n: p.n, selector: p.selector }, what).await
            },
        )
        .in_family(Family::Find),
    ]
}

/// How a failure names what was looked for: `data-testid "save"`.
fn said(shown: &str, value: &str) -> String {
    format!("{shown} {value:?}")
}

async fn find(ctx: &Ctx, tab: TabId, by: By, what: String) -> ToolResult {
    let mut found = ctx.page(tab, Find { by, what }).await?;
    found.remove("next");
    Ok(ToolOutput::json(Value::Object(found)))
}

#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct RoleParams {
    /// e.g. button, link, textbox.
    role: String,
    /// Accessible name (contains, any case).
    #[serde(default)]
    name: Option<String>,
    /// Whole name, same case.
    #[serde(default)]
    exact: Option<bool>,
}

#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct TextParams {
    /// Text shown (contains, any case).
    text: String,
    /// Whole text, same case.
    #[serde(default)]
    exact: Option<bool>,
}

#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct LabelParams {
    /// Label text (contains).
    label: String,
}

#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct PlaceholderParams {
    /// Placeholder text (contains).
    placeholder: String,
}

#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct AltParams {
    /// Alt text (contains).
    alt: String,
}

#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct TitleParams {
    /// Title text (contains).
    title: String,
}

#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct TestIdParams {
    /// data-testid, whole.
    testid: String,
}

#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct SelectorParams {
    /// CSS.
    selector: String,
}

#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct NthParams {
    /// From 0.
    n: u32,
    /// CSS.
    selector: String,
}
