//! tools_enable: lists a family of tools (see [`super::families`]) for
//! every agent of this run, and tells clients the list changed.

use super::families::Family;
use super::{tool, Ctx, ToolDef, ToolOutput, ToolResult, ACTION};
use crate::base::error::ToolError;
use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::{json, Value};

pub fn tools() -> Vec<ToolDef> {
    vec![tool(
        "tools_enable",
        "List more tools: find (find_role, find_text... by role, text, label, test id), inspect (get_box, get_styles, is_visible...), storage (cookies, local/session storage, state files), mouse (at x, y), clipboard, network (request log and bodies, routes that block, mock or change requests, HAR replay, offline, headers, HTTP auth), emulation (viewport, color scheme, user agent, locale, geolocation, time zone, phone presets), downloads (list, wait for, cancel), audit (axe-core accessibility check), contexts (isolated cookies and identity), secrets (the person's vault: names you may fill by), or all. Returns their declarations; tools/list then has them.",
        ACTION,
        |ctx: Ctx, p: EnableParams| async move { enable(&ctx, &p.family) },
    )
    .ungated()]
}

#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct EnableParams {
    /// A family's name, or all.
    family: String,
}

fn enable(ctx: &Ctx, name: &str) -> ToolResult {
    let families: Vec<Family> = match name {
        "all" => Family::ALL.to_vec(),
        name => match Family::named(name) {
            Some(family) => vec![family],
            None => {
                let names: Vec<&str> = Family::ALL.iter().map(|f| f.name()).collect();
                return Err(ToolError::invalid_field(
                    "family",
                    format!("no family {name:?}; families: {}, or all", names.join(", ")),
                ));
            }
        },
    };
    let app = &ctx.app;
    if app.families.enable(&families) {
        app.sessions.tools_changed();
    }
    // The declarations, for clients that do not list the tools again.
    let tools: Vec<Value> = app
        .tools
        .all()
        .iter()
        .filter(|def| def.family.is_some_and(|f| families.contains(&f)))
        .map(|def| def.mcp_json(false))
        .collect();
    let names: Vec<&str> = families.iter().map(|f| f.name()).collect();
    Ok(ToolOutput::json(json!({"enabled": names, "tools": tools})))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tools::Registry;

    #[test]
    fn every_family_is_named_in_the_description_and_holds_real_tools() {
        let registry = Registry::new();
        let enable = registry.all().iter().find(|t| t.name == "tools_enable");
        let description = enable.map(|t| t.description).unwrap_or_default();
        for family in Family::ALL {
            assert!(description.contains(family.name()), "{}", family.name());
            let members = registry.all().iter().filter(|t| t.family == Some(family));
            assert!(members.count() > 0, "{} holds tools", family.name());
        }
    }
}
