//! What a tool is: its name, description, typed parameters (whose JSON
//! Schema tools/list shows), annotations and handler, declared once.

use super::app::App;
use super::families::Family;
use super::{schema, ToolOutput};
use crate::base::caller::Session;
use crate::base::error::ToolError;
use crate::base::secret::Wiped;
use crate::base::tab::TabId;
pub use crate::flow::Replay;
use crate::recording::Element;
use futures_util::future::BoxFuture;
use serde::de::DeserializeOwned;
use serde_json::{json, Value};
use std::future::Future;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, OnceLock};

/// What a tool needs: the program and the calling session.
#[derive(Clone)]
pub struct Ctx {
    pub app: Arc<App>,
    pub session: Arc<Session>,
    /// How many batches this call runs inside (0: called directly).
    pub depth: u32,
    /// The tab a tab tool resolved for this call.
    pub(super) acted: Arc<OnceLock<TabId>>,
    /// The element an input of this call went to (the recording keeps it).
    element: Arc<OnceLock<Element>>,
    /// Whether any input of this call (fill_form fills several) went to a
    /// password field: what the call typed is then a secret.
    typed_secret: Arc<AtomicBool>,
}

impl Ctx {
    pub fn new(app: Arc<App>, session: Arc<Session>, depth: u32) -> Self {
        Ctx {
            app,
            session,
            depth,
            acted: Arc::default(),
            element: Arc::default(),
            typed_secret: Arc::default(),
        }
    }

    /// Notes the element this call's input went to (the first, for a drag).
    pub fn acted_on_element(&self, element: Element) {
        if element.secret {
            self.typed_secret.store(true, Ordering::Relaxed);
        }
        let _ = self.element.set(element);
    }

    /// The element this call's input went to, secret when any input of
    /// the call went to a password field.
    pub fn acted_element(&self) -> Option<Element> {
        let secret = self.typed_secret.load(Ordering::Relaxed);
        self.element.get().cloned().map(|mut element| {
            element.secret |= secret;
            element
        })
    }

    /// Records the tab this call acts on (results of stateless clients
    /// name it).
    pub fn acted_on(&self, tab: TabId) {
        let _ = self.acted.set(tab);
    }

    /// The tab this call acted on, once a tab tool resolved it.
    pub fn acted_tab(&self) -> Option<TabId> {
        self.acted.get().copied()
    }
}

pub type ToolResult = Result<ToolOutput, ToolError>;
type Handler = Box<dyn Fn(Ctx, Value) -> BoxFuture<'static, ToolResult> + Send + Sync>;

/// MCP tool annotations. Only readOnlyHint is sent: a tool that changes
/// anything keeps MCP's defaults (may destroy, open world), which is what
/// input to an untrusted page is (a click may submit, pay or delete), and
/// every model reading tools/list pays for each hint.
#[derive(Debug, Clone, Copy, Default)]
pub struct Hints {
    pub read_only: bool,
}

/// Reads the browser, changes nothing.
pub const READ_ONLY: Hints = Hints { read_only: true };
/// Changes something: the browser's state, a page, a file.
pub const ACTION: Hints = Hints { read_only: false };

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
    /// Changes the identity (login, logout, switch): while the person has
    /// paused the agents or handles a request for one, agents get PAUSED
    /// (the person's own calls go through), though it works before login.
    pub changes_identity: bool,
    /// Offered (listed and callable) only while this holds; not in the
    /// public catalogue.
    pub shown_when: Option<fn(&App) -> bool>,
    pub(super) handler: Handler,
    /// Reads arguments as the handler would, without running it.
    parse: fn(Value) -> Result<(), ToolError>,
    /// Acts on a tab: the session's, resolved once before the handler runs.
    pub on_tab: bool,
    /// The family that lists it (tools_enable); none: always listed.
    pub family: Option<Family>,
    /// What the page shows may differ after it (an input, a navigation):
    /// a recorded step keeps a picture of the page after it.
    pub changes_the_page: bool,
    /// How a flow exported from a recording does it again; none: a flow
    /// leaves it out.
    pub replay: Option<Replay>,
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
    declare::<P>(
        name,
        description,
        hints,
        |params| parse_params::<P>(params).map(drop),
        Box::new(move |ctx, params| {
            let handler = handler.clone();
            Box::pin(async move {
                let params: P = parse_params(params)?;
                handler(ctx, params).await
            })
        }),
    )
}

/// Declares a tool that acts on a tab's page: the tab its optional `tab`
/// argument names (a tab id), else the session's. The tab is resolved
/// once, after the arguments are read and before the handler runs, and the
/// handler gets it: a call never moves to another tab midway. On a tab
/// whose page crashed it answers `PAGE_CRASHED`, saying how to recover.
pub fn tab_tool<P, F, Fut>(
    name: &'static str,
    description: &'static str,
    hints: Hints,
    handler: F,
) -> ToolDef
where
    P: DeserializeOwned + schemars::JsonSchema + Send + 'static,
    F: Fn(Ctx, TabId, P) -> Fut + Send + Sync + 'static,
    Fut: Future<Output = ToolResult> + Send + 'static,
{
    on_tab(name, description, hints, NeedsPage::Live, handler)
}

/// Declares a tool that acts on a tab, as [`tab_tool`], but that works
/// while the tab's page is crashed: it reads what the browser kept (the
/// console, the network log), changes the tab's settings, or replaces the
/// page (a navigation is how a crashed tab recovers).
pub fn tab_tool_without_page<P, F, Fut>(
    name: &'static str,
    description: &'static str,
    hints: Hints,
    handler: F,
) -> ToolDef
where
    P: DeserializeOwned + schemars::JsonSchema + Send + 'static,
    F: Fn(Ctx, TabId, P) -> Fut + Send + Sync + 'static,
    Fut: Future<Output = ToolResult> + Send + 'static,
{
    on_tab(name, description, hints, NeedsPage::No, handler)
}

/// Whether a tab tool needs the tab's page to be alive.
#[derive(Clone, Copy, PartialEq, Eq)]
enum NeedsPage {
    Live,
    No,
}

fn on_tab<P, F, Fut>(
    name: &'static str,
    description: &'static str,
    hints: Hints,
    needs: NeedsPage,
    handler: F,
) -> ToolDef
where
    P: DeserializeOwned + schemars::JsonSchema + Send + 'static,
    F: Fn(Ctx, TabId, P) -> Fut + Send + Sync + 'static,
    Fut: Future<Output = ToolResult> + Send + 'static,
{
    let handler = Arc::new(handler);
    ToolDef {
        on_tab: true,
        ..declare::<P>(
            name,
            description,
            hints,
            |params| {
                let mut params = Wiped(params);
                take_tab(&mut params)?;
                parse_params::<P>(std::mem::take(&mut *params)).map(drop)
            },
            Box::new(move |ctx, params| {
                let handler = handler.clone();
                Box::pin(async move {
                    let mut params = Wiped(params);
                    let handle = take_tab(&mut params)?;
                    // A tool whose parameters have `context` (open) acts there.
                    let context = params
                        .get(CONTEXT_PARAM)
                        .and_then(Value::as_str)
                        .map(str::to_owned);
                    let params: P = parse_params(std::mem::take(&mut *params))?;
                    let tab = ctx.call_tab(handle, context.as_deref()).await?;
                    if needs == NeedsPage::Live {
                        if let Some(end) = ctx.tab_info(tab)?.crashed {
                            return Err(end.error(tab));
                        }
                    }
                    handler(ctx, tab, params).await
                })
            }),
        )
    }
}

fn declare<P: schemars::JsonSchema>(
    name: &'static str,
    description: &'static str,
    hints: Hints,
    parse: fn(Value) -> Result<(), ToolError>,
    handler: Handler,
) -> ToolDef {
    ToolDef {
        name,
        description,
        input_schema: schema::for_params::<P>(),
        hints,
        gated: true,
        hidden: false,
        person_only: false,
        changes_identity: false,
        shown_when: None,
        parse,
        on_tab: false,
        family: None,
        changes_the_page: false,
        replay: None,
        handler,
    }
}

/// Takes the `tab` argument (a tab id) out of a tab tool's arguments.
fn take_tab(params: &mut Value) -> Result<Option<TabId>, ToolError> {
    let Some(map) = params.as_object_mut() else {
        return Ok(None);
    };
    let handle = match map.remove(TAB_PARAM) {
        None | Some(Value::Null) => None,
        Some(value) => Some(value.as_u64().ok_or_else(|| {
            ToolError::invalid_field(
                TAB_PARAM,
                format!("{value} is not a tab id (an integer from open, tab_new or tab_list)"),
            )
        })?),
    };
    Ok(handle)
}

/// The argument naming the tab a tab tool acts on.
pub const TAB_PARAM: &str = "tab";

/// The argument naming the context a tool acts in (for tools declaring it).
pub const CONTEXT_PARAM: &str = "context";

impl ToolDef {
    /// Listed only once an agent enables `family` (tools_enable).
    pub fn in_family(mut self, family: Family) -> Self {
        self.family = Some(family);
        self
    }

    /// What the page shows may differ after it (see the field).
    pub fn changes_the_page(mut self) -> Self {
        self.changes_the_page = true;
        self
    }

    /// A flow does it again as `replay` says (see [`Replay`]).
    pub fn replayed(mut self, replay: Replay) -> Self {
        self.replay = Some(replay);
        self
    }

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

    /// Changes the identity: the person's while they hold the browser
    /// (paused agents, or a request for the person waiting).
    pub fn changes_identity(mut self) -> Self {
        self.changes_identity = true;
        self
    }

    /// Lists the parameters without their notes and defaults: for a tool
    /// whose description sends the model to another tool's (every word
    /// of tools/list costs each model call).
    pub fn terse_schema(mut self) -> Self {
        if let Some(properties) = self.input_schema["properties"].as_object_mut() {
            for property in properties.values_mut().filter_map(Value::as_object_mut) {
                property.remove("description");
                property.remove("default");
            }
        }
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

    /// The tools/list entry. With `tab_handles`, a tab tool's schema shows
    /// its optional `tab` (for clients without a session, which have no
    /// tab of their own to switch to).
    pub fn mcp_json(&self, tab_handles: bool) -> Value {
        let mut entry = json!({
            "name": self.name,
            "description": self.description,
            "inputSchema": self.input_schema,
        });
        if tab_handles && self.on_tab {
            entry["inputSchema"]["properties"][TAB_PARAM] = json!({"type": "integer"});
        }
        if self.hints.read_only {
            entry["annotations"] = json!({"readOnlyHint": true});
        }
        entry
    }
}

/// Reads a tool's arguments. They may hold secrets (a login's nsec): what
/// is read is a copy, and the arguments are wiped afterwards, also when
/// reading fails partway (secret fields wipe themselves, see
/// [`crate::base::secret`]).
pub(super) fn parse_params<P: DeserializeOwned>(params: Value) -> Result<P, ToolError> {
    let params = Wiped(params);
    if !matches!(*params, Value::Null | Value::Object(_)) {
        return Err(ToolError::invalid_params(format!(
            "arguments must be a JSON object, got {}",
            json_type(&params)
        )));
    }
    let empty = Value::Object(Default::default());
    let read = if params.is_null() { &empty } else { &*params };
    // Name the parameter that is wrong: "transport: unknown variant ...".
    serde_path_to_error::deserialize(read).map_err(|e| {
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

/// GTK, WebKit and C strings end at NUL: such text cannot be passed on.
pub(super) fn reject_nul(params: &Value) -> Result<(), ToolError> {
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::base::error::ErrorCode;

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
}
