//! A flow as a Playwright test (`.spec.ts`): locators by role and name
//! (`getByRole`), test id or label, as a developer would write them, so
//! that what an agent figured out stays as a regression test. Secret
//! values come from the environment (`FLOW_<PARAM>`), never the file.

use super::{Flow, FlowStep, Param, Target};
use serde_json::Value;

/// ARIA roles Playwright's getByRole takes; an element of another role is
/// found by its text.
const ARIA_ROLES: [&str; 30] = [
    "button",
    "checkbox",
    "combobox",
    "link",
    "listbox",
    "menuitem",
    "menuitemcheckbox",
    "menuitemradio",
    "option",
    "radio",
    "searchbox",
    "slider",
    "spinbutton",
    "switch",
    "tab",
    "textbox",
    "heading",
    "img",
    "cell",
    "row",
    "gridcell",
    "treeitem",
    "dialog",
    "navigation",
    "main",
    "region",
    "form",
    "list",
    "listitem",
    "article",
];

/// The test's source. Addresses of the recorded origin are written
/// relative to `BASE_URL` (default: that origin).
pub fn spec(flow: &Flow) -> String {
    let origin = flow
        .steps
        .iter()
        .find_map(|s| s.args.get("url").and_then(Value::as_str))
        .and_then(crate::address::origin_of)
        .unwrap_or_default();
    let mut out = String::new();
    out.push_str("// Exported from a Sovereign Browser recording: `sovereign record export --format playwright`.\n");
    out.push_str("import { test, expect } from '@playwright/test';\n\n");
    out.push_str(&format!(
        "const BASE = process.env.BASE_URL ?? {};\n\n",
        js(&origin)
    ));
    out.push_str(&format!(
        "test({}, async ({{ page }}) => {{\n",
        js(&format!("recorded session {}", flow.session))
    ));
    for step in &flow.steps {
        for line in lines(step, &origin) {
            out.push_str("  ");
            out.push_str(&line);
            out.push('\n');
        }
    }
    out.push_str("});\n");
    out
}

fn lines(step: &FlowStep, origin: &str) -> Vec<String> {
    let arg = |name: &str| {
        step.args
            .get(name)
            .and_then(Value::as_str)
            .unwrap_or_default()
    };
    let mut lines = Vec::new();
    let action = match (step.tool.as_str(), &step.target) {
        ("open", _) => Some(format!("await page.goto({});", address(arg("url"), origin))),
        ("back", _) => Some("await page.goBack();".into()),
        ("forward", _) => Some("await page.goForward();".into()),
        ("reload", _) => Some("await page.reload();".into()),
        ("press", _) => Some(format!(
            "await page.keyboard.press({});",
            js(&key(arg("key")))
        )),
        ("keyboard_type", _) => step
            .value
            .as_ref()
            .map(|v| format!("await page.keyboard.type({});", value(v))),
        ("wait_for_text", _) => Some(format!(
            "await expect(page.getByText({}).first()).toBeVisible();",
            js(arg("text"))
        )),
        ("wait_for_load", _) => Some("await page.waitForLoadState();".into()),
        ("wait_for_url", _) => Some(format!(
            "await page.waitForURL({});",
            js(arg("url_pattern"))
        )),
        (tool, Some(target)) => element_action(tool, &locator(target), &typed(step)),
        _ => None,
    };
    match action {
        Some(action) => lines.push(action),
        None => lines.push(format!(
            "// step {} ({}) has no Playwright form",
            step.n, step.tool
        )),
    }
    if let Some(url) = &step.expect.url {
        lines.push(format!(
            "await expect(page).toHaveURL({});",
            address(url, origin)
        ));
    }
    lines
}

/// What a step types, as the test's source: its value, the environment's
/// for a secret, and for a vault's entry `FLOW_VAULT_<ENTRY>_<FIELD>`
/// (the test runs without the browser's vault).
fn typed(step: &FlowStep) -> String {
    if let Some(from_vault) = &step.from_vault {
        let name = format!("vault_{}_{}", from_vault.secret, from_vault.field);
        return format!("process.env.FLOW_{} ?? ''", env_name(&name));
    }
    step.value.as_ref().map_or_else(|| "''".into(), value)
}

/// An environment variable's name of `text`: letters and digits, upper case.
fn env_name(text: &str) -> String {
    text.chars()
        .map(|c| match c.is_ascii_alphanumeric() {
            true => c.to_ascii_uppercase(),
            false => '_',
        })
        .collect()
}

fn element_action(tool: &str, locator: &str, typed: &str) -> Option<String> {
    Some(match tool {
        "click" => format!("await {locator}.click();"),
        "dblclick" => format!("await {locator}.dblclick();"),
        "hover" => format!("await {locator}.hover();"),
        "focus" => format!("await {locator}.focus();"),
        "check" => format!("await {locator}.check();"),
        "uncheck" => format!("await {locator}.uncheck();"),
        "fill" => format!("await {locator}.fill({typed});"),
        // After the field's value, key by key, as the recorded type did.
        "type" => {
            format!("await {locator}.press('End');\n  await {locator}.pressSequentially({typed});")
        }
        "select" => format!("await {locator}.selectOption({typed});"),
        _ => return None,
    })
}

/// The locator a developer would write: test id, else role and name, else
/// the text, else the selector the agent used.
fn locator(target: &Target) -> String {
    if let Some(testid) = &target.testid {
        return format!("page.getByTestId({})", js(testid));
    }
    if ARIA_ROLES.contains(&target.role.as_str()) && !target.name.is_empty() {
        return format!(
            "page.getByRole({}, {{ name: {}, exact: true }})",
            js(&target.role),
            js(&target.name)
        );
    }
    match &target.selector {
        Some(selector) if target.name.is_empty() => format!("page.locator({})", js(selector)),
        _ => format!("page.getByText({}, {{ exact: true }})", js(&target.name)),
    }
}

fn value(param: &Param) -> String {
    match (&param.value, param.secret) {
        (Some(Value::String(text)), false) => js(text),
        (Some(other), false) => other.to_string(),
        _ => format!("process.env.FLOW_{} ?? ''", env_name(&param.param)),
    }
}

/// Playwright's key names: ours are the DOM's, with Control for Ctrl.
fn key(key: &str) -> String {
    key.split('+')
        .map(|part| match part.to_ascii_lowercase().as_str() {
            "ctrl" | "control" => "Control".to_string(),
            "cmd" | "command" | "super" => "Meta".to_string(),
            _ => part.to_string(),
        })
        .collect::<Vec<_>>()
        .join("+")
}

/// An address in the test: under BASE when it is on the recorded origin.
fn address(url: &str, origin: &str) -> String {
    match url.strip_prefix(origin).filter(|_| !origin.is_empty()) {
        Some(rest) => format!("BASE + {}", js(rest)),
        None => js(url),
    }
}

/// A JavaScript string literal.
fn js(text: &str) -> String {
    serde_json::to_string(text).unwrap_or_else(|_| "''".into())
}

#[cfg(test)]
mod tests {
    use super::super::{Expect, FlowStep, Target};
    use super::*;
    use serde_json::json;

    #[test]
    fn steps_become_locators_by_role_and_name_and_secrets_come_from_the_environment() {
        let target = |role: &str, name: &str| Target {
            role: role.into(),
            name: name.into(),
            testid: None,
            selector: None,
        };
        let flow = Flow {
            flow: 1,
            session: "s1".into(),
            client: None,
            steps: vec![
                FlowStep {
                    n: 1,
                    tool: "open".into(),
                    target: None,
                    args: json!({"url": "http://127.0.0.1:9/form.html"}),
                    value: None,
                    from_vault: None,
                    expect: Expect::default(),
                },
                FlowStep {
                    n: 2,
                    tool: "fill".into(),
                    target: Some(target("textbox", "Password")),
                    args: Value::Null,
                    value: Some(Param {
                        param: "password".into(),
                        value: None,
                        secret: true,
                    }),
                    from_vault: None,
                    expect: Expect::default(),
                },
                FlowStep {
                    n: 2,
                    tool: "fill".into(),
                    target: Some(target("textbox", "Code")),
                    args: Value::Null,
                    value: None,
                    from_vault: Some(super::super::FromVault {
                        secret: "git-hub".into(),
                        field: "totp".into(),
                    }),
                    expect: Expect::default(),
                },
                FlowStep {
                    n: 3,
                    tool: "click".into(),
                    target: Some(target("button", "Sign \"in\"")),
                    args: Value::Null,
                    value: None,
                    from_vault: None,
                    expect: Expect {
                        url: Some("http://127.0.0.1:9/done".into()),
                        new_tabs: None,
                    },
                },
            ],
            left_out: vec![],
        };
        let spec = spec(&flow);
        assert!(
            spec.contains("const BASE = process.env.BASE_URL ?? \"http://127.0.0.1:9\";"),
            "{spec}"
        );
        assert!(
            spec.contains("await page.goto(BASE + \"/form.html\");"),
            "{spec}"
        );
        assert!(spec.contains("page.getByRole(\"textbox\", { name: \"Password\", exact: true }).fill(process.env.FLOW_PASSWORD ?? '');"), "{spec}");
        assert!(spec.contains("page.getByRole(\"textbox\", { name: \"Code\", exact: true }).fill(process.env.FLOW_VAULT_GIT_HUB_TOTP ?? '');"), "{spec}");
        assert!(
            spec.contains(
                "getByRole(\"button\", { name: \"Sign \\\"in\\\"\", exact: true }).click();"
            ),
            "{spec}"
        );
        assert!(
            spec.contains("await expect(page).toHaveURL(BASE + \"/done\");"),
            "{spec}"
        );
    }
}
