//! Every tool in catalogue order, and which of them this run offers.

use super::*;

/// The 30 basic tools of the first plan: `--tools core`.
pub const CORE_TOOLS: [&str; 30] = [
    "login_status",
    "login",
    "logout",
    "switch_identity",
    "open",
    "back",
    "forward",
    "reload",
    "get_url",
    "get_title",
    "snapshot",
    "get_text",
    "get_html",
    "get_attr",
    "eval",
    "click",
    "fill",
    "type",
    "press",
    "scroll",
    "hover",
    "focus",
    "close",
    "tab_list",
    "tab_new",
    "tab_switch",
    "tab_close",
    "wait",
    "wait_for",
    "screenshot",
];

/// A tool [`Registry::find`] found in this registry, by its place.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Found(usize);

/// Every tool, in catalogue order, and which of them are offered.
pub struct Registry {
    tools: Vec<ToolDef>,
    /// Offered public tools; none: all of them.
    offered: Option<std::collections::HashSet<&'static str>>,
    /// Whether tools/list leaves out families not enabled (not when
    /// --tools chose the tools).
    families: bool,
}

impl Default for Registry {
    fn default() -> Self {
        Self::new()
    }
}

impl Registry {
    pub fn new() -> Self {
        let mut tools = Vec::new();
        tools.extend(identity::tools());
        tools.extend(navigation::tools());
        tools.extend(inspection::tools());
        tools.extend(screenshot::tools());
        tools.extend(audit::tools());
        tools.extend(downloads::tools());
        tools.extend(interaction::tools());
        tools.extend(forms::tools());
        tools.extend(keyboard::tools());
        tools.extend(state::tools());
        tools.extend(tabs::tools());
        tools.extend(contexts::tools());
        tools.extend(wait::tools());
        tools.extend(batch::tools());
        tools.extend(tools_enable::tools());
        tools.extend(storage::tools());
        tools.extend(devices::tools());
        tools.extend(settings::tools());
        tools.extend(emulation::tools());
        tools.extend(find::tools());
        tools.extend(dialogs::tools());
        tools.extend(frames::tools());
        tools.extend(debug::tools());
        tools.extend(network::tools());
        tools.extend(routes::tools());
        tools.extend(person::tools());
        tools.extend(saved_state::tools());
        tools.extend(files::tools());
        tools.extend(sessions::tools());
        tools.extend(nostr::tools());
        tools.extend(identity_audit::tools());
        tools.extend(recordings::tools());
        tools.extend(vault::tools());
        Registry {
            tools,
            offered: None,
            families: true,
        }
    }

    /// Offers only some tools: `all`, `core`, or a comma-separated list of
    /// tool names and those two sets. The identity tools are always on
    /// (nothing works without a login), and so are the panel's own.
    pub fn select(&mut self, spec: &str) -> Result<usize, String> {
        // A list chosen by name is listed as chosen; all (the default)
        // lists the families beyond everyday browsing on request.
        self.families = spec.trim() == "all";
        let mut offered = std::collections::HashSet::new();
        for item in spec.split(',').map(str::trim).filter(|s| !s.is_empty()) {
            match item {
                "all" => {
                    self.offered = None;
                    return Ok(self.public().count());
                }
                "core" => offered.extend(CORE_TOOLS),
                name => {
                    let def = self
                        .tools
                        .iter()
                        .find(|t| t.name == name && !t.hidden)
                        .ok_or_else(|| {
                            format!("no tool or set is called {name:?} (sets: all, core)")
                        })?;
                    offered.insert(def.name);
                }
            }
        }
        if offered.is_empty() {
            return Err("name at least one tool, or all or core".into());
        }
        offered.extend(CORE_TOOLS[..4].iter().copied());
        self.offered = Some(offered);
        Ok(self.public().count())
    }

    /// Why `get` found no tool of that name: none exists, or --tools left it out.
    pub fn why_missing(&self, name: &str) -> String {
        if self.tools.iter().any(|t| t.name == name) {
            format!("tool {name} is not offered: the browser was started with a --tools list without it")
        } else {
            let name = crate::base::bounded::one_line(name, 64);
            format!("unknown tool: {name}")
        }
    }

    fn is_offered(&self, def: &ToolDef) -> bool {
        def.hidden
            || def.shown_when.is_some()
            || self.offered.as_ref().is_none_or(|o| o.contains(def.name))
    }

    pub fn get(&self, name: &str) -> Option<&ToolDef> {
        self.find(name).map(|found| self.def(found))
    }

    /// The offered tool called `name`, to be run without a second lookup.
    pub fn find(&self, name: &str) -> Option<Found> {
        self.tools
            .iter()
            .position(|t| t.name == name && self.is_offered(t))
            .map(Found)
    }

    /// The tool [`Registry::find`] found.
    pub fn def(&self, found: Found) -> &ToolDef {
        &self.tools[found.0]
    }

    pub fn all(&self) -> &[ToolDef] {
        &self.tools
    }

    /// What tools/list shows now: the public catalogue, less the
    /// families not enabled (see [`families`]).
    pub fn listed<'a>(
        &'a self,
        enabled: &'a families::Enabled,
    ) -> impl Iterator<Item = &'a ToolDef> + 'a {
        self.public()
            .filter(move |t| !self.families || enabled.lists(t.family))
    }

    /// The public catalogue: every tool tools/list may show.
    pub fn public(&self) -> impl Iterator<Item = &ToolDef> {
        self.tools
            .iter()
            .filter(|t| !t.hidden && t.shown_when.is_none() && self.is_offered(t))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::{json, Value};

    #[test]
    fn each_tool_declares_how_a_flow_does_it_again_as_the_flow_knows_it() {
        let registry = Registry::new();
        for def in registry.all() {
            assert_eq!(
                def.replay,
                crate::flow::replay_of(def.name),
                "{}: its declaration and the flow's list differ",
                def.name
            );
        }
        for (name, _) in crate::flow::REPLAYS {
            assert!(
                registry.all().iter().any(|d| d.name == name),
                "the flow replays {name}, which is no tool"
            );
        }
    }

    #[test]
    fn the_tools_that_change_the_page_are_inputs_and_navigations() {
        let registry = Registry::new();
        let changing: Vec<&str> = registry
            .all()
            .iter()
            .filter(|t| t.changes_the_page)
            .map(|t| t.name)
            .collect();
        for name in [
            "open",
            "back",
            "click",
            "fill",
            "drag",
            "upload",
            "press",
            "mouse_wheel",
        ] {
            assert!(changing.contains(&name), "{name}");
        }
        for name in [
            "snapshot",
            "get_text",
            "screenshot",
            "tab_list",
            "login",
            "network_requests",
        ] {
            assert!(!changing.contains(&name), "{name} only reads");
        }
        for def in registry.all().iter().filter(|t| t.changes_the_page) {
            assert!(
                !def.hints.read_only,
                "{} changes the page, so it is no read-only tool",
                def.name
            );
        }
    }

    #[test]
    fn every_schema_is_an_object_without_top_level_combinators() {
        let registry = Registry::new();
        for def in registry.all() {
            let s = &def.input_schema;
            assert_eq!(s["type"], "object", "{}", def.name);
            assert!(
                s["properties"].is_object(),
                "{} has no properties",
                def.name
            );
            for k in ["oneOf", "anyOf", "allOf", "$schema", "$defs", "definitions"] {
                assert!(s.get(k).is_none(), "{} has {k}", def.name);
            }
            if let Some(required) = s.get("required").and_then(Value::as_array) {
                for r in required {
                    let r = r.as_str().unwrap();
                    assert!(
                        s["properties"].get(r).is_some(),
                        "{}: required {r} not in properties",
                        def.name
                    );
                }
            }
            // Short is good (every model pays for each word), empty is not.
            assert!(
                def.description.len() >= 12 && def.description.ends_with('.'),
                "{} needs a real description, a sentence",
                def.name
            );
        }
    }

    #[test]
    fn the_seed_core_tools_are_declared_once() {
        let registry = Registry::new();
        assert_eq!(
            registry.public().count(),
            122,
            "the plan's 100 tools, the network's two and its four routes, ask_person, the contexts' three, fill_form, tools_enable, set_user_agent, set_locale, set_geolocation, set_timezone, set_device, audit_accessibility, the downloads' three, secrets_list"
        );
        for name in CORE_TOOLS {
            assert!(registry.get(name).is_some(), "missing {name}");
        }
        let mut names: Vec<_> = registry.all().iter().map(|t| t.name).collect();
        let total = names.len();
        names.sort();
        names.dedup();
        assert_eq!(names.len(), total, "a tool is declared twice");
    }

    #[test]
    fn a_subset_offers_only_what_was_asked_plus_identity() {
        let mut registry = Registry::new();
        assert_eq!(registry.select("core").unwrap(), 30);
        assert!(registry.get("cookies_get").is_none());
        assert!(registry.get("session_end").is_some(), "panel tools stay");
        assert_eq!(registry.select("snapshot, click").unwrap(), 6);
        assert!(registry.get("login").is_some() && registry.get("open").is_none());
        assert_eq!(registry.select("core,cookies_get").unwrap(), 31);
        assert!(registry
            .select("nonsense")
            .unwrap_err()
            .contains("nonsense"));
        assert!(registry.select(" , ").is_err());
        assert!(
            registry.select("session_end").is_err(),
            "hidden tools are not offered"
        );
        assert_eq!(registry.select("all").unwrap(), 122);
    }

    #[test]
    fn checking_arguments_runs_nothing_and_names_the_fault() {
        let tools = Registry::new();
        let open = tools.get("open").unwrap();
        assert!(open
            .check_params(json!({"url": "http://127.0.0.1/"}))
            .is_ok());
        let nul = open.check_params(json!({"url": "a\u{0}b"})).unwrap_err();
        assert!(nul.message.contains("NUL"), "{}", nul.message);
        let missing = open.check_params(json!({})).unwrap_err();
        assert!(missing.message.contains("url"), "{}", missing.message);
        let batch = tools.get("batch").unwrap();
        assert!(batch.check_params(json!({"commands": "no"})).is_err());
    }
}
