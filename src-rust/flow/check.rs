//! What a flow file may ask of the browser. A flow is a file: it may come
//! from anyone, and `sovereign replay` runs it with the agents' token in
//! the person's browser. So it is done again only if it is what
//! `record export` writes: the tools export produces, each with the
//! arguments export keeps for it, of the types they have, and addresses
//! on the web (http and https) only. Anything else (an `eval`, a route, a
//! login, a context, a `file:` or `javascript:` address) is refused before
//! the browser is reached, naming the step.

use super::refused::{FlowRefused, StepFault};
use super::{replay_of, Flow, FlowStep, FromVault, Param, Replay, VAULT_FIELDS};
use serde_json::Value;

/// Longest text a flow's argument may hold (an address, a key, a value).
const TEXT_MAX: usize = 8 * 1024;
/// Longest vault entry name (the vault's own bound).
const VAULT_NAME_MAX: usize = 64;
/// Most steps a flow may hold.
pub const STEPS_MAX: usize = 10_000;

/// The kind an argument's value must have.
#[derive(Clone, Copy)]
enum Kind {
    /// An http(s) address.
    Address,
    Text,
    Index,
}

/// The arguments export keeps for each tool done again as called.
fn arguments_of(tool: &str) -> &'static [(&'static str, Kind)] {
    match tool {
        "open" | "tab_new" => &[("url", Kind::Address)],
        "press" => &[("key", Kind::Text)],
        "tab_switch" => &[("index", Kind::Index)],
        "wait_for_text" => &[("text", Kind::Text)],
        "wait_for_url" => &[("url_pattern", Kind::Text)],
        "wait_for_load" => &[("state", Kind::Text)],
        // back, forward, reload
        _ => &[],
    }
}

/// Whether `flow` holds only what export writes; why not, naming the step.
pub fn check(flow: &Flow) -> Result<(), FlowRefused> {
    if flow.steps.len() > STEPS_MAX {
        return Err(FlowRefused::TooManySteps {
            steps: flow.steps.len(),
            most: STEPS_MAX,
        });
    }
    for (i, step) in flow.steps.iter().enumerate() {
        check_step(step).map_err(|why| FlowRefused::Step {
            number: i + 1,
            tool: bounded(&step.tool),
            why,
        })?;
    }
    Ok(())
}

fn check_step(step: &FlowStep) -> Result<(), StepFault> {
    let tool = step.tool.as_str();
    let carries_value = match replay_of(tool) {
        Some(Replay::AsCalled) => {
            if step.target.is_some() || step.value.is_some() {
                return Err(StepFault::TargetOrValue);
            }
            return check_arguments(&step.args, arguments_of(tool));
        }
        Some(Replay::Typed) => {
            if step.target.is_some() {
                return Err(StepFault::TypedWithTarget {
                    tool: tool.to_string(),
                });
            }
            true
        }
        Some(Replay::OnElement { value }) => value,
        None => return Err(StepFault::NotReplayed),
    };
    if !step.args.is_null() {
        return Err(StepFault::OtherArguments);
    }
    if let Some(target) = &step.target {
        for text in [Some(&target.role), Some(&target.name)]
            .into_iter()
            .chain([target.testid.as_ref(), target.selector.as_ref()])
            .flatten()
        {
            check_text(text)?;
        }
    } else if replay_of(tool) != Some(Replay::Typed) {
        return Err(StepFault::NoElement);
    }
    if let Some(from_vault) = &step.from_vault {
        return check_from_vault(step, from_vault);
    }
    match (&step.value, carries_value) {
        (Some(param), true) => check_param(param),
        (None, false) => Ok(()),
        (None, true) => Err(StepFault::NoValue),
        (Some(_), false) => Err(StepFault::UnwantedValue),
    }
}

fn check_arguments(args: &Value, allowed: &[(&str, Kind)]) -> Result<(), StepFault> {
    let map = match args {
        Value::Null => return Ok(()),
        Value::Object(map) => map,
        _ => return Err(StepFault::ArgumentsNotObject),
    };
    for (name, value) in map {
        let Some((_, kind)) = allowed.iter().find(|(n, _)| n == name) else {
            return Err(StepFault::UnknownArgument {
                name: bounded(name),
            });
        };
        let ok = match kind {
            Kind::Address => value.as_str().is_some_and(is_web_address),
            Kind::Text => value.as_str().is_some_and(|t| check_text(t).is_ok()),
            Kind::Index => value.as_u64().is_some_and(|i| i < 10_000),
        };
        if !ok {
            let want = match kind {
                Kind::Address => "an http or https address",
                Kind::Text => "a text",
                Kind::Index => "a tab's index",
            };
            return Err(StepFault::WrongKind {
                name: name.clone(),
                want,
            });
        }
    }
    Ok(())
}

/// A fill from the person's vault names an entry and a field, and no value.
fn check_from_vault(step: &FlowStep, from_vault: &FromVault) -> Result<(), StepFault> {
    if step.tool != "fill" {
        return Err(StepFault::VaultNotFill);
    }
    if step.value.is_some() {
        return Err(StepFault::VaultAndValue);
    }
    if from_vault.secret.is_empty() || from_vault.secret.len() > VAULT_NAME_MAX {
        return Err(StepFault::WrongKind {
            name: "from_vault.secret".into(),
            want: "a vault entry's name (1 to 64 bytes)",
        });
    }
    if !VAULT_FIELDS.contains(&from_vault.field.as_str()) {
        return Err(StepFault::WrongKind {
            name: "from_vault.field".into(),
            want: "user, password or totp",
        });
    }
    Ok(())
}

fn check_param(param: &Param) -> Result<(), StepFault> {
    check_text(&param.param)?;
    match &param.value {
        None | Some(Value::Null) => Ok(()),
        Some(Value::String(text)) => check_text(text),
        // select takes several values.
        Some(Value::Array(items)) if items.len() <= 1_000 => items.iter().try_for_each(|v| {
            v.as_str()
                .ok_or(StepFault::ValuesNotTexts)
                .and_then(check_text)
        }),
        Some(_) => Err(StepFault::ValueNotText),
    }
}

fn check_text(text: &str) -> Result<(), StepFault> {
    match text.len() <= TEXT_MAX {
        true => Ok(()),
        false => Err(StepFault::TextTooLong { most: TEXT_MAX }),
    }
}

/// An http(s) address a tab may open.
fn is_web_address(url: &str) -> bool {
    url.len() <= TEXT_MAX && crate::address::origin_of(url).is_some()
}

/// The web origins a flow's steps open, in order, each once; `moved`
/// gives the address a recorded one stands for (`replay --origin`).
pub fn origins(flow: &Flow, moved: impl Fn(&str) -> String) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    for step in &flow.steps {
        let opened = step.args.get("url").and_then(Value::as_str).map(&moved);
        if let Some(origin) = opened.as_deref().and_then(crate::address::origin_of) {
            if !out.contains(&origin) {
                out.push(origin);
            }
        }
    }
    out
}

/// A name from the file, as an error message may show it.
fn bounded(text: &str) -> String {
    crate::base::bounded::one_line(text, 80)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn flow(steps: Value) -> Flow {
        serde_json::from_value(json!({"flow": 1, "session": "s", "steps": steps})).expect("a flow")
    }

    #[test]
    fn what_export_writes_is_done_again() {
        let ok = flow(json!([
            {"n": 1, "tool": "open", "args": {"url": "https://a.test/in"}},
            {"n": 2, "tool": "fill", "target": {"role": "textbox", "name": "Email"}, "value": {"param": "email", "value": "a@b"}},
            {"n": 3, "tool": "fill", "target": {"role": "textbox", "name": "Password"}, "value": {"param": "password", "secret": true}},
            {"n": 4, "tool": "select", "target": {"role": "combobox", "name": "Days"}, "value": {"param": "days", "value": ["Mon", "Tue"]}},
            {"n": 5, "tool": "click", "target": {"role": "button", "name": "Go", "selector": "#go"}, "expect": {"url": "https://b.test/"}},
            {"n": 6, "tool": "keyboard_type", "value": {"param": "typed", "value": "hi"}},
            {"n": 7, "tool": "press", "args": {"key": "Enter"}},
            {"n": 8, "tool": "reload"},
            {"n": 9, "tool": "fill", "target": {"role": "textbox", "name": "Password"}, "from_vault": {"secret": "github", "field": "password"}},
            {"n": 9, "tool": "tab_new", "args": {"url": "http://127.0.0.1:8080/"}},
        ]));
        assert_eq!(check(&ok), Ok(()));
        assert_eq!(
            origins(&ok, str::to_string),
            ["https://a.test:443", "http://127.0.0.1:8080"]
        );
    }

    #[test]
    fn anything_else_is_refused_naming_the_step() {
        for (steps, why) in [
            (
                json!([{"n": 1, "tool": "eval", "args": {"script": "1"}}]),
                "does only what export writes",
            ),
            (
                json!([{"n": 1, "tool": "network_route", "args": {"url": "*"}}]),
                "does only what export writes",
            ),
            (
                json!([{"n": 1, "tool": "login", "args": {"method": "local"}}]),
                "does only what export writes",
            ),
            (
                json!([{"n": 1, "tool": "open", "args": {"url": "file:///etc/passwd"}}]),
                "http or https",
            ),
            (
                json!([{"n": 1, "tool": "open", "args": {"url": "javascript:alert(1)"}}]),
                "http or https",
            ),
            (
                json!([{"n": 1, "tool": "open", "args": {"url": "https://a.test/", "context": "default"}}]),
                "no argument \"context\"",
            ),
            (
                json!([{"n": 1, "tool": "click", "target": {"role": "button", "name": "Go"}, "args": {"modifiers": ["Control"]}}]),
                "no other arguments",
            ),
            (json!([{"n": 1, "tool": "click"}]), "names no element"),
            (
                json!([{"n": 1, "tool": "fill", "target": {"role": "textbox", "name": "A"}, "value": {"param": "a", "value": {"x": 1}}}]),
                "a text or a list",
            ),
            (
                json!([{"n": 1, "tool": "tab_switch", "args": {"index": "0"}}]),
                "a tab's index",
            ),
            (
                json!([{"n": 1, "tool": "click", "target": {"role": "button", "name": "Go"}, "from_vault": {"secret": "a", "field": "user"}}]),
                "only fill takes a vault entry",
            ),
            (
                json!([{"n": 1, "tool": "fill", "target": {"role": "textbox", "name": "A"}, "value": {"param": "a", "value": "x"}, "from_vault": {"secret": "a", "field": "user"}}]),
                "a vault entry and a value",
            ),
            (
                json!([{"n": 1, "tool": "fill", "target": {"role": "textbox", "name": "A"}, "from_vault": {"secret": "a", "field": "pin"}}]),
                "user, password or totp",
            ),
            (
                json!([{"n": 1, "tool": "fill", "target": {"role": "textbox", "name": "A"}, "from_vault": {"secret": "", "field": "user"}}]),
                "a vault entry's name",
            ),
        ] {
            let why_not = check(&flow(steps.clone()))
                .expect_err(&steps.to_string())
                .to_string();
            assert!(why_not.starts_with("step 1 ("), "{why_not}");
            assert!(why_not.contains(why), "{steps}: {why_not}");
        }
    }
}
