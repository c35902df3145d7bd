//! The tool catalogue and the one dispatch every transport calls.
//!
//! Each family file declares its tools once (name, description, typed
//! parameters whose JSON Schema feeds tools/list, annotations, handler) and
//! exports them as a list; [`Registry`] joins the lists.

pub mod app;
pub mod batch;
pub mod debug;
pub mod devices;
pub mod dialogs;
pub mod files;
pub mod find;
pub mod forms;
pub mod frames;
pub mod identity;
pub mod inspection;
pub mod interaction;
pub mod keyboard;
pub mod login;
pub mod navigation;
pub mod nostr;
pub mod output;
pub mod page;
pub mod reference;
pub mod saved_state;
pub mod schema;
pub mod sessions;
pub mod settings;
pub mod snapshot_diff;
pub mod state;
pub mod storage;
pub mod tabs;
pub mod wait;

use crate::base::caller::{Principal, Session};
use crate::base::error::{ErrorCode, ToolError};
use crate::tools::app::App;
use futures_util::future::BoxFuture;
pub use output::ToolOutput;
use serde::de::DeserializeOwned;
use serde_json::{json, Value};
use std::future::Future;
use std::sync::Arc;
use std::time::{Duration, Instant};

/// What a tool needs: the program and the calling session.
#[derive(Clone)]
pub struct Ctx {
    pub app: Arc<App>,
    pub session: Arc<Session>,
    /// How many batches this call runs inside (0: called directly).
    pub depth: u32,
}

pub type ToolResult = Result<ToolOutput, ToolError>;
type Handler = Box<dyn Fn(Ctx, Value) -> BoxFuture<'static, ToolResult> + Send + Sync>;

/// MCP tool annotations.
#[derive(Debug, Clone, Copy, Default)]
pub struct Hints {
    pub read_only: bool,
    pub destructive: bool,
    pub open_world: bool,
}

pub const READ_ONLY: Hints = Hints {
    read_only: true,
    destructive: false,
    open_world: false,
};
pub const ACTION: Hints = Hints {
    read_only: false,
    destructive: false,
    open_world: false,
};
pub const NAVIGATES: Hints = Hints {
    read_only: false,
    destructive: false,
    open_world: true,
};
pub const DESTRUCTIVE: Hints = Hints {
    read_only: false,
    destructive: true,
    open_world: false,
};

/// One tool, declared once.
pub struct ToolDef {
    pub name: &'static str,
    pub description: &'static str,
    pub input_schema: Value,
    pub hints: Hints,
    /// False for the identity tools, which work before login.
    pub gated: bool,
    /// Dispatch entries for the panel that tools/list does not show.
    pub hidden: bool,
    /// The person's own action: refused to agents, on every transport.
    pub person_only: bool,
    /// Offered (listed and callable) only while this holds; not in the
    /// public catalogue.
    pub shown_when: Option<fn(&App) -> bool>,
    handler: Handler,
    /// Reads arguments as the handler would, without running it.
    parse: fn(Value) -> Result<(), ToolError>,
}

/// Declares a tool whose parameters deserialize into `P`.
pub fn tool<P, F, Fut>(
    name: &'static str,
    description: &'static str,
    hints: Hints,
    handler: F,
) -> ToolDef
where
    P: DeserializeOwned + schemars::JsonSchema + Send + 'static,
    F: Fn(Ctx, P) -> Fut + Send + Sync + 'static,
    Fut: Future<Output = ToolResult> + Send + 'static,
{
    let handler = Arc::new(handler);
    ToolDef {
        name,
        description,
        input_schema: schema::for_params::<P>(),
        hints,
        gated: true,
        hidden: false,
        person_only: false,
        shown_when: None,
        parse: |params| parse_params::<P>(params).map(drop),
        handler: Box::new(move |ctx, params| {
            let handler = handler.clone();
            Box::pin(async move {
                let params: P = parse_params(params)?;
                handler(ctx, params).await
            })
        }),
    }
}

impl ToolDef {
    /// Marks a tool that works before login.
    pub fn ungated(mut self) -> Self {
        self.gated = false;
        self
    }

    /// A person's own action: hidden, and refused to agents.
    pub fn person_only(mut self) -> Self {
        self.hidden = true;
        self.person_only = true;
        self
    }

    /// Offered only while `condition` holds (a person allowed it).
    pub fn shown_when(mut self, condition: fn(&App) -> bool) -> Self {
        self.shown_when = Some(condition);
        self
    }

    /// Checks arguments the way a call does before its handler runs:
    /// no NUL characters, and each parameter of its declared type.
    pub fn check_params(&self, params: Value) -> Result<(), ToolError> {
        reject_nul(&params)?;
        (self.parse)(params)
    }

    /// The tools/list entry.
    pub fn mcp_json(&self) -> Value {
        let mut annotations = serde_json::Map::new();
        if self.hints.read_only {
            annotations.insert("readOnlyHint".into(), true.into());
        } else {
            annotations.insert("readOnlyHint".into(), false.into());
            annotations.insert("destructiveHint".into(), self.hints.destructive.into());
        }
        annotations.insert("openWorldHint".into(), self.hints.open_world.into());
        json!({
            "name": self.name,
            "description": self.description,
            "inputSchema": self.input_schema,
            "annotations": annotations,
        })
    }
}

fn parse_params<P: DeserializeOwned>(params: Value) -> Result<P, ToolError> {
    let params = match params {
        Value::Null => Value::Object(Default::default()),
        Value::Object(map) => Value::Object(map),
        other => {
            return Err(ToolError::invalid_params(format!(
                "arguments must be a JSON object, got {}",
                json_type(&other)
            )))
        }
    };
    // Name the parameter that is wrong: "transport: unknown variant ...".
    serde_path_to_error::deserialize(params).map_err(|e| {
        let path = e.path().to_string();
        let inner = e.into_inner().to_string();
        match path.as_str() {
            "" | "." => ToolError::invalid_params(inner),
            _ => ToolError::invalid_field(&path, inner),
        }
    })
}

fn json_type(v: &Value) -> &'static str {
    match v {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    }
}

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

/// Every tool, in catalogue order, and which of them are offered.
pub struct Registry {
    tools: Vec<ToolDef>,
    /// Offered public tools; none: all of them.
    offered: Option<std::collections::HashSet<&'static str>>,
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
        tools.extend(interaction::tools());
        tools.extend(forms::tools());
        tools.extend(keyboard::tools());
        tools.extend(state::tools());
        tools.extend(tabs::tools());
        tools.extend(wait::tools());
        tools.extend(batch::tools());
        tools.extend(storage::tools());
        tools.extend(devices::tools());
        tools.extend(settings::tools());
        tools.extend(find::tools());
        tools.extend(dialogs::tools());
        tools.extend(frames::tools());
        tools.extend(debug::tools());
        tools.extend(saved_state::tools());
        tools.extend(files::tools());
        tools.extend(sessions::tools());
        tools.extend(nostr::tools());
        Registry {
            tools,
            offered: None,
        }
    }

    /// Offers only some tools: `all`, `core`, or a comma-separated list of
    /// tool names and those two sets. The identity tools are always on
    /// (nothing works without a login), and so are the panel's own.
    pub fn select(&mut self, spec: &str) -> Result<usize, String> {
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
            format!("unknown tool: {name}")
        }
    }

    fn is_offered(&self, def: &ToolDef) -> bool {
        def.hidden
            || def.shown_when.is_some()
            || self.offered.as_ref().is_none_or(|o| o.contains(def.name))
    }

    pub fn get(&self, name: &str) -> Option<&ToolDef> {
        self.tools
            .iter()
            .find(|t| t.name == name)
            .filter(|t| self.is_offered(t))
    }

    pub fn all(&self) -> &[ToolDef] {
        &self.tools
    }

    /// The public catalogue: what tools/list shows.
    pub fn public(&self) -> impl Iterator<Item = &ToolDef> {
        self.tools
            .iter()
            .filter(|t| !t.hidden && t.shown_when.is_none() && self.is_offered(t))
    }

    /// What tools/list shows now: the public tools and the conditional
    /// ones whose condition holds.
    pub fn listed<'a>(&'a self, app: &'a App) -> impl Iterator<Item = &'a ToolDef> {
        let conditional = self
            .tools
            .iter()
            .filter(move |t| !t.hidden && t.shown_when.is_some_and(|shown| shown(app)));
        self.public().chain(conditional)
    }
}

/// Default limit of one tool call; tools with a `timeout` or `ms`
/// parameter get that plus a margin.
pub const DEFAULT_TOOL_TIMEOUT: Duration = Duration::from_secs(30);

fn call_limit(params: &Value) -> Duration {
    // A batch may take as long as its commands together.
    if let Some(commands) = params.get("commands").and_then(Value::as_array) {
        let total: Duration = commands
            .iter()
            .map(|c| call_limit(c.get("params").unwrap_or(&Value::Null)))
            .sum();
        return total.clamp(DEFAULT_TOOL_TIMEOUT, Duration::from_secs(600));
    }
    let asked = ["timeout", "ms"]
        .iter()
        .filter_map(|k| params.get(*k).and_then(Value::as_u64))
        .max();
    match asked {
        Some(ms) => Duration::from_millis(ms.min(600_000)) + Duration::from_secs(5),
        None => DEFAULT_TOOL_TIMEOUT,
    }
}

/// Runs a tool by name for a session: the only way any tool runs.
pub async fn dispatch(
    app: &Arc<App>,
    session: &Arc<Session>,
    name: &str,
    params: Value,
) -> ToolResult {
    dispatch_at(app, session, name, params, 0).await
}

/// [`dispatch`] for a call `depth` batches deep (boxed: a batch calls it again).
pub fn dispatch_at<'a>(
    app: &'a Arc<App>,
    session: &'a Arc<Session>,
    name: &'a str,
    params: Value,
    depth: u32,
) -> BoxFuture<'a, ToolResult> {
    Box::pin(async move {
        let started = Instant::now();
        // The window shows which agent works on which tab (it reads this itself).
        let shown = app.tools.get(name).is_some_and(|d| d.gated);
        if shown {
            let who = session
                .client_name()
                .unwrap_or_else(|| session.transport.as_str().to_string());
            app.activity.start(&session.id, &who, name, session.tab());
        }
        let result = run(app, session, name, params, depth).await;
        if shown {
            app.activity.finish(&session.id, session.tab());
        }
        session.record_call();
        let elapsed = started.elapsed();
        app.calls.record(
            session,
            name,
            elapsed,
            result.as_ref().err().map(|e| e.code),
        );
        match &result {
            Ok(_) => {
                tracing::debug!(tool = name, session = %session.id, ms = elapsed.as_millis() as u64, "tool ok")
            }
            Err(e) => {
                tracing::debug!(tool = name, session = %session.id, ms = elapsed.as_millis() as u64, code = %e.code, "tool failed")
            }
        }
        result
    })
}

async fn run(
    app: &Arc<App>,
    session: &Arc<Session>,
    name: &str,
    params: Value,
    depth: u32,
) -> ToolResult {
    let def = app
        .tools
        .get(name)
        .ok_or_else(|| ToolError::new(ErrorCode::UnknownTool, app.tools.why_missing(name)))?;
    if def.person_only && session.transport.principal() != Principal::Person {
        return Err(ToolError::new(
            ErrorCode::UnknownTool,
            format!(
                "{name} is the person's own action, taken in the control panel; agents may not call it"
            ),
        ));
    }
    if def.shown_when.is_some_and(|shown| !shown(app)) {
        return Err(ToolError::new(
            ErrorCode::UnknownTool,
            format!("{name} is offered only while a person allows it in the control panel"),
        ));
    }
    if def.gated && !app.identity.is_logged_in() {
        return Err(ToolError::new(
            ErrorCode::NotLoggedIn,
            "no identity is logged in; call login first (method local with an nsec, or readonly with an npub)",
        ));
    }
    if def.gated && app.paused.load(std::sync::atomic::Ordering::SeqCst) {
        return Err(ToolError::new(
            ErrorCode::Paused,
            "a person has taken over the browser and paused the agents; nothing reaches the pages until they resume. Wait and try again later.",
        ));
    }
    reject_nul(&params)?;
    let limit = call_limit(&params);
    let ctx = Ctx {
        app: app.clone(),
        session: session.clone(),
        depth,
    };
    let result = tokio::time::timeout(limit, (def.handler)(ctx, params))
        .await
        .unwrap_or_else(|_| Err(timed_out(name, limit)));
    // The session's tab closed during the call: the call is not run again
    // elsewhere (its refs and effects belong to that tab), but the next
    // call acts on the tab in front.
    if matches!(&result, Err(e) if e.code == ErrorCode::NoTab) {
        if let Some(tab) = session.tab() {
            if app.browser.tab_info(tab).is_err() {
                session.set_tab(None);
            }
        }
    }
    result
}

/// GTK, WebKit and C strings end at NUL: such text cannot be passed on.
fn reject_nul(params: &Value) -> Result<(), ToolError> {
    if has_nul(params) {
        return Err(ToolError::invalid_params(
            "arguments must not contain NUL characters (U+0000)",
        ));
    }
    Ok(())
}

fn has_nul(value: &Value) -> bool {
    match value {
        Value::String(s) => s.contains('\0'),
        Value::Array(items) => items.iter().any(has_nul),
        Value::Object(map) => map.iter().any(|(k, v)| k.contains('\0') || has_nul(v)),
        _ => false,
    }
}

fn timed_out(name: &str, limit: Duration) -> ToolError {
    ToolError::timeout(format!(
        "{name} did not finish within {} ms",
        limit.as_millis()
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

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
            assert!(
                def.description.len() > 20,
                "{} needs a real description",
                def.name
            );
        }
    }

    #[test]
    fn the_seed_core_tools_are_declared_once() {
        let registry = Registry::new();
        assert_eq!(registry.public().count(), 100, "the plan's 100 tools");
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
        assert_eq!(registry.select("all").unwrap(), 100);
    }

    #[test]
    fn limits_follow_timeout_parameters() {
        assert_eq!(call_limit(&json!({})), DEFAULT_TOOL_TIMEOUT);
        assert_eq!(
            call_limit(&json!({"timeout": 1000})),
            Duration::from_millis(6000)
        );
        assert_eq!(call_limit(&json!({"ms": 200})), Duration::from_millis(5200));
    }

    #[test]
    fn bad_arguments_are_invalid_params() {
        #[derive(serde::Deserialize, Debug)]
        #[serde(deny_unknown_fields)]
        #[allow(dead_code)]
        struct P {
            url: String,
        }
        let e = parse_params::<P>(json!({})).unwrap_err();
        assert_eq!(e.code, ErrorCode::InvalidParams);
        assert!(e.message.contains("url"));
        assert!(parse_params::<P>(json!([1]))
            .unwrap_err()
            .message
            .contains("array"));
        assert!(parse_params::<P>(json!({"url": "x", "urll": 1})).is_err());
        let typed = parse_params::<P>(json!({"url": 5})).unwrap_err();
        assert!(
            typed.message.starts_with("url: invalid type"),
            "{}",
            typed.message
        );
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
