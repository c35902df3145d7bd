//! Flows: what an agent did, kept as steps a program can do again with no
//! model. A recorded session becomes a flow (`sovereign record export`);
//! each step names its element by what it was (role and name, test id,
//! the selector the agent gave), never by the ref it had, and says what
//! followed (the address after a navigation, the tabs it opened). Values
//! typed are parameters (`--set name=value`); a password's was never kept,
//! so its parameter must be given.

pub mod check;
pub mod playwright;
pub mod refused;

use crate::recording::{Element, Step};
use serde::{Deserialize, Serialize};
use serde_json::Value;

/// The flow format's version.
pub const FORMAT: u32 = 1;

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Flow {
    pub flow: u32,
    /// The recorded session it came from.
    pub session: String,
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub client: Option<String>,
    pub steps: Vec<FlowStep>,
    /// Recorded calls left out: reads, failures, and what cannot be redone.
    #[serde(skip_serializing_if = "Vec::is_empty", default)]
    pub left_out: Vec<String>,
}

/// One action to do again.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct FlowStep {
    /// The recorded call's number in its session.
    pub n: u64,
    pub tool: String,
    /// The element, by what it was.
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub target: Option<Target>,
    /// The tool's other arguments (url, key, text, index...).
    #[serde(skip_serializing_if = "Value::is_null", default)]
    pub args: Value,
    /// What was typed or chosen: a parameter with its recorded value.
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub value: Option<Param>,
    /// A fill from the person's vault: the entry and field it named; the
    /// replay fills from the vault again (never a value in the file).
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub from_vault: Option<FromVault>,
    /// What followed, checked when the step is done again.
    #[serde(skip_serializing_if = "Expect::is_empty", default)]
    pub expect: Expect,
}

/// A vault entry's field, by name: what `fill {secret, field}` took.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct FromVault {
    pub secret: String,
    pub field: String,
}

/// The fields a vault entry holds, as `fill`'s `field` names them.
pub const VAULT_FIELDS: [&str; 3] = ["user", "password", "totp"];

/// An element as a person would name it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Target {
    pub role: String,
    pub name: String,
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub testid: Option<String>,
    /// The CSS selector the agent gave, if it gave one.
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub selector: Option<String>,
}

/// A value that `--set NAME=...` replaces; a secret's was not kept.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Param {
    pub param: String,
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub value: Option<Value>,
    #[serde(skip_serializing_if = "std::ops::Not::not", default)]
    pub secret: bool,
}

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Expect {
    /// The address after the step, when it navigated.
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub url: Option<String>,
    /// How many tabs the step opened.
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub new_tabs: Option<usize>,
}

impl Expect {
    fn is_empty(&self) -> bool {
        self.url.is_none() && self.new_tabs.is_none()
    }
}

/// How a recorded step of a tool is done again by a flow. Each tool's
/// declaration names its rule (`ToolDef::replayed`); `REPLAYS` is the same
/// list for what runs without the tools (export, replay's checks), and a
/// test of the tools holds the two equal.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Replay {
    /// Called again with its arguments, less the tab, context and timeout:
    /// they name no element.
    AsCalled,
    /// On the element it acted on, found again by role and name (or test
    /// id); `value`: with the value it was given, a parameter of the flow.
    OnElement { value: bool },
    /// The text it typed into whatever had the focus, a parameter of the flow.
    Typed,
}

/// The tools a flow does again, and how.
pub const REPLAYS: [(&str, Replay); 20] = [
    ("open", Replay::AsCalled),
    ("back", Replay::AsCalled),
    ("forward", Replay::AsCalled),
    ("reload", Replay::AsCalled),
    ("press", Replay::AsCalled),
    ("tab_new", Replay::AsCalled),
    ("tab_switch", Replay::AsCalled),
    ("wait_for_text", Replay::AsCalled),
    ("wait_for_url", Replay::AsCalled),
    ("wait_for_load", Replay::AsCalled),
    ("click", Replay::OnElement { value: false }),
    ("dblclick", Replay::OnElement { value: false }),
    ("hover", Replay::OnElement { value: false }),
    ("focus", Replay::OnElement { value: false }),
    ("check", Replay::OnElement { value: false }),
    ("uncheck", Replay::OnElement { value: false }),
    ("fill", Replay::OnElement { value: true }),
    ("type", Replay::OnElement { value: true }),
    ("select", Replay::OnElement { value: true }),
    ("keyboard_type", Replay::Typed),
];

/// How a flow does `tool` again; none: it does not.
pub fn replay_of(tool: &str) -> Option<Replay> {
    REPLAYS.iter().find(|(t, _)| *t == tool).map(|(_, r)| *r)
}

/// The flow of a recorded session's steps.
pub fn from_steps(session: &str, steps: &[Step]) -> Flow {
    let mut flow = Flow {
        flow: FORMAT,
        session: session.to_string(),
        client: steps.iter().find_map(|s| s.client.clone()),
        steps: Vec::new(),
        left_out: Vec::new(),
    };
    let mut names = Vec::new();
    for step in steps {
        match flow_step(step, &mut names) {
            Some(done) => flow.steps.push(done),
            None if changes_nothing(&step.tool) => {}
            None => {
                let why = if step.ok {
                    "cannot be done again"
                } else {
                    "failed"
                };
                flow.left_out
                    .push(format!("{} {} ({why})", step.n, step.tool));
            }
        }
    }
    flow
}

/// Reads that change nothing: not worth a word in the flow.
fn changes_nothing(tool: &str) -> bool {
    tool.starts_with("get_")
        || tool.starts_with("is_")
        || tool.starts_with("find_")
        || tool.starts_with("login")
        || matches!(
            tool,
            "snapshot"
                | "screenshot"
                | "screenshot_annotated"
                | "tab_list"
                | "console"
                | "errors"
                | "tools_enable"
        )
}

fn flow_step(step: &Step, names: &mut Vec<String>) -> Option<FlowStep> {
    if !step.ok {
        return None;
    }
    let mut done = FlowStep {
        n: step.n,
        tool: step.tool.clone(),
        target: None,
        args: Value::Null,
        value: None,
        from_vault: None,
        expect: expect_of(step),
    };
    let carries_value = match replay_of(&step.tool)? {
        Replay::AsCalled => {
            // Where it ran is the replay's own: a flow names no tab or context.
            done.args = without(&step.args, &["tab", "timeout", "context"]);
            return Some(done);
        }
        Replay::Typed => {
            let element = step.element.as_ref();
            let secret = element.is_some_and(|e| e.secret);
            let name = element.map_or("typed", |e| e.name.as_str());
            done.value = Some(param(name, step.args.get("value"), secret, names));
            return Some(done);
        }
        Replay::OnElement { value } => value,
    };
    let element = step.element.as_ref()?;
    done.target = Some(target_of(element, &step.args));
    if let Some(from_vault) = from_vault(step) {
        done.from_vault = Some(from_vault);
        return Some(done);
    }
    if carries_value {
        done.value = Some(param(
            &element.name,
            step.args.get("value"),
            element.secret,
            names,
        ));
    }
    Some(done)
}

/// The vault entry and field a recorded fill named (the recording keeps
/// an entry's name when the fill worked; otherwise it is the marker).
fn from_vault(step: &Step) -> Option<FromVault> {
    if step.tool != "fill" {
        return None;
    }
    let secret = step.args.get("secret")?.as_str()?;
    let field = step.args.get("field")?.as_str()?;
    (secret != crate::recording::redact::MARKER).then(|| FromVault {
        secret: secret.to_string(),
        field: field.to_string(),
    })
}

fn target_of(element: &Element, args: &Value) -> Target {
    Target {
        role: element.role.clone(),
        name: element.name.clone(),
        testid: element.testid.clone(),
        selector: args
            .get("selector")
            .and_then(Value::as_str)
            .map(str::to_string),
    }
}

/// A parameter named after the element ("Email" gives email), unique in
/// the flow; a secret's value was never recorded.
fn param(name: &str, value: Option<&Value>, secret: bool, names: &mut Vec<String>) -> Param {
    let mut base: String = name
        .trim()
        .to_lowercase()
        .chars()
        .map(|c| if c.is_alphanumeric() { c } else { '_' })
        .collect::<String>()
        .split('_')
        .filter(|part| !part.is_empty())
        .collect::<Vec<_>>()
        .join("_");
    if base.is_empty() {
        base = "value".into();
    }
    let mut name = base.clone();
    let mut n = 2;
    while names.contains(&name) {
        name = format!("{base}_{n}");
        n += 1;
    }
    names.push(name.clone());
    Param {
        param: name,
        value: if secret { None } else { value.cloned() },
        secret,
    }
}

fn expect_of(step: &Step) -> Expect {
    let moved = match (&step.before, &step.after) {
        (Some(before), Some(after)) => before.url != after.url,
        (None, Some(_)) => true,
        _ => false,
    };
    let new_tabs = step
        .result
        .get("new_tabs")
        .and_then(Value::as_array)
        .map(Vec::len);
    Expect {
        url: step.after.as_ref().filter(|_| moved).map(|a| a.url.clone()),
        new_tabs: new_tabs.filter(|&n| n > 0),
    }
}

fn without(args: &Value, keys: &[&str]) -> Value {
    match args {
        Value::Object(map) => {
            let kept: serde_json::Map<String, Value> = map
                .iter()
                .filter(|(k, _)| !keys.contains(&k.as_str()))
                .map(|(k, v)| (k.clone(), v.clone()))
                .collect();
            if kept.is_empty() {
                Value::Null
            } else {
                Value::Object(kept)
            }
        }
        _ => Value::Null,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::recording::PageSeen;
    use serde_json::json;

    fn step(n: u64, tool: &str, args: Value, element: Option<(&str, &str, bool)>) -> Step {
        Step {
            n,
            time: n,
            session: "s1".into(),
            client: Some("agent".into()),
            transport: "mcp".into(),
            context: None,
            tab: Some(1),
            tool: tool.into(),
            args,
            ok: true,
            code: None,
            message: None,
            result: Value::Null,
            ms: 1.0,
            before: Some(PageSeen {
                url: "http://a/form".into(),
                title: "Form".into(),
            }),
            after: Some(PageSeen {
                url: "http://a/form".into(),
                title: "Form".into(),
            }),
            element: element.map(|(role, name, secret)| Element {
                r#ref: Some("e3".into()),
                role: role.into(),
                name: name.into(),
                secret,
                testid: None,
            }),
            requests: None,
            shot: false,
        }
    }

    #[test]
    fn a_session_becomes_steps_by_what_elements_were() {
        let mut submit = step(
            5,
            "click",
            json!({"ref": "e9"}),
            Some(("button", "Sign in", false)),
        );
        submit.after = Some(PageSeen {
            url: "http://a/done".into(),
            title: "Done".into(),
        });
        let steps = vec![
            step(
                1,
                "open",
                json!({"url": "http://a/form", "timeout": 5000}),
                None,
            ),
            step(2, "snapshot", json!({}), None),
            step(
                3,
                "fill",
                json!({"ref": "e3", "value": "ada@example.org"}),
                Some(("textbox", "Email", false)),
            ),
            step(
                4,
                "fill",
                json!({"selector": "#pw", "value": "[secret]"}),
                Some(("textbox", "Password", true)),
            ),
            submit,
            step(6, "eval", json!({"script": "1"}), None),
        ];
        let flow = from_steps("s1", &steps);
        let tools: Vec<&str> = flow.steps.iter().map(|s| s.tool.as_str()).collect();
        assert_eq!(tools, ["open", "fill", "fill", "click"]);
        assert_eq!(flow.steps[0].args, json!({"url": "http://a/form"}));
        let email = &flow.steps[1];
        assert_eq!(email.target.as_ref().unwrap().name, "Email");
        assert_eq!(email.value.as_ref().unwrap().param, "email");
        assert_eq!(
            email.value.as_ref().unwrap().value,
            Some(json!("ada@example.org"))
        );
        let password = flow.steps[2].value.as_ref().unwrap();
        assert_eq!(
            (
                password.param.as_str(),
                password.value.clone(),
                password.secret
            ),
            ("password", None, true)
        );
        assert_eq!(
            flow.steps[2].target.as_ref().unwrap().selector.as_deref(),
            Some("#pw")
        );
        assert_eq!(flow.steps[3].expect.url.as_deref(), Some("http://a/done"));
        assert_eq!(flow.left_out, ["6 eval (cannot be done again)"]);
        let text = serde_json::to_string(&flow).unwrap();
        assert!(!text.contains("e9") && !text.contains("secret]"), "{text}");
    }
}
