//! select, check, uncheck: form controls set as a person sets them.

use super::inspection::TargetParams;
use super::interaction::{act, entered, fill_secret, press_enter, settle_after, Unseen};
use super::page::element;
use super::{tab_tool, Ctx, Replay, ToolDef, ToolOutput, ToolResult, ACTION};
use crate::base::error::ToolError;
use crate::base::tab::TabId;
use crate::bridge::{ElementInput, Outcome};
use crate::vault::Field;
use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::{json, Value};

pub fn tools() -> Vec<ToolDef> {
    vec![
        tab_tool(
            "select",
            "Choose a <select>'s options by value or text, or an option element by selector (events untrusted: trusted_events false). Returns the choice.",
            ACTION,
            |ctx: Ctx, tab: TabId, p: SelectParams| async move {
                let values = p.value.map(|value| match value {
                    OneOrMany::One(v) => vec![v],
                    OneOrMany::Many(list) => list,
                });
                let target = element(&p.r#ref, &p.selector)?;
                Ok(ToolOutput::json(act(&ctx, tab, target, ElementInput::Select { values }, None).await?.into_json()))
            },
        )
        .replayed(Replay::OnElement { value: true })
        .changes_the_page(),
        tab_tool(
            "check",
            "Check a checkbox, radio or switch (or its label) by clicking it, and verify; already checked: nothing done.",
            ACTION,
            |ctx: Ctx, tab: TabId, p: TargetParams| async move { set_checked(&ctx, tab, &p, true).await.map(ToolOutput::json) },
        )
        .replayed(Replay::OnElement { value: false })
        .changes_the_page(),
        tab_tool(
            "uncheck",
            "Uncheck a checkbox or switch by clicking it, and verify; already unchecked: nothing done.",
            ACTION,
            |ctx: Ctx, tab: TabId, p: TargetParams| async move { set_checked(&ctx, tab, &p, false).await.map(ToolOutput::json) },
        )
        .replayed(Replay::OnElement { value: false })
        .changes_the_page(),
        tab_tool(
            "fill_form",
            "Fill several fields in one call, in order: a text value as fill sets it, true or false checks or unchecks, secret and field as fill takes them. Stops at the first field that fails, naming it; submit presses Enter after.",
            ACTION,
            |ctx: Ctx, tab: TabId, p: FillFormParams| async move { fill_form(&ctx, tab, p).await },
        )
        .changes_the_page(),
    ]
}

/// Fields one fill_form may take.
const FORM_FIELDS_MAX: usize = 100;

#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct FillFormParams {
    /// Each {ref or selector, value}.
    fields: Vec<FormField>,
    /// Press Enter after the last field.
    #[serde(default)]
    submit: Option<bool>,
}

#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct FormField {
    #[serde(default)]
    r#ref: Option<String>,
    #[serde(default)]
    selector: Option<String>,
    #[serde(default)]
    value: Option<FieldValue>,
    /// Instead of value: a vault entry's name (secrets_list), as fill takes it.
    #[serde(default)]
    secret: Option<String>,
    /// With secret.
    #[serde(default)]
    field: Option<Field>,
}

#[derive(Deserialize, JsonSchema)]
#[serde(untagged)]
pub enum FieldValue {
    Checked(bool),
    Text(String),
}

async fn fill_form(ctx: &Ctx, tab: TabId, p: FillFormParams) -> ToolResult {
    if p.fields.is_empty() || p.fields.len() > FORM_FIELDS_MAX {
        return Err(ToolError::invalid_params(format!(
            "fields: give 1 to {FORM_FIELDS_MAX} fields"
        )));
    }
    let before = ctx.before(tab)?;
    let mut done = Vec::with_capacity(p.fields.len());
    for (n, field) in p.fields.into_iter().enumerate() {
        let which = field
            .r#ref
            .clone()
            .or(field.selector.clone())
            .unwrap_or_default();
        let filled = match (field.value, &field.secret) {
            (Some(FieldValue::Text(value)), None) => {
                let target = element(&field.r#ref, &field.selector)?;
                let input = ElementInput::Fill {
                    value,
                    submit: false,
                    vault: None,
                };
                act(ctx, tab, target, input, None)
                    .await
                    .map(Outcome::into_json)
            }
            (Some(FieldValue::Checked(want)), None) => {
                let element = TargetParams {
                    r#ref: field.r#ref,
                    selector: field.selector,
                };
                set_checked(ctx, tab, &element, want).await
            }
            (None, Some(name)) => {
                let target = element(&field.r#ref, &field.selector)?;
                let unseen = Unseen {
                    name,
                    field: field.field,
                };
                fill_secret(ctx, tab, target, unseen, false, None).await
            }
            (Some(_), Some(_)) => Err(ToolError::invalid_params("give value or secret, not both")),
            (None, None) => Err(ToolError::invalid_params(
                "give value (or secret and field, to fill from the person's vault)",
            )),
        };
        let filled = filled.map_err(|e| {
            ToolError::new(
                e.code,
                format!(
                    "field {n} ({which}): {}; the fields before it were filled",
                    e.message
                ),
            )
        })?;
        done.push(filled);
    }
    let fields = Value::Array(done);
    let result = match p.submit.unwrap_or(false) {
        true => {
            press_enter(ctx, tab).await?;
            entered(ctx, tab, before, json!({"fields": fields}), true).await?
        }
        false => json!({"fields": fields}),
    };
    Ok(ToolOutput::json(result))
}

#[derive(Deserialize, JsonSchema)]
#[serde(untagged)]
pub enum OneOrMany {
    One(String),
    Many(Vec<String>),
}

#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct SelectParams {
    #[serde(default)]
    r#ref: Option<String>,
    #[serde(default)]
    selector: Option<String>,
    /// A list for a multiple select; none when ref is an option's.
    #[serde(default)]
    value: Option<OneOrMany>,
}

async fn set_checked(
    ctx: &Ctx,
    tab: TabId,
    p: &TargetParams,
    want: bool,
) -> Result<Value, ToolError> {
    // One input on the main thread: read, click the control, read back.
    let before = ctx.before(tab)?;
    let target = element(&p.r#ref, &p.selector)?;
    let done = act(ctx, tab, target, ElementInput::Check { want }, None).await?;
    let Outcome::Checked {
        checked,
        changed: true,
    } = done
    else {
        return Ok(done.into_json());
    };
    // What the click caused, as a click reports it: a control that submits
    // its form navigates, and is not read back.
    let mut settled = settle_after(ctx, tab, before).await?;
    if settled.get("navigated") == Some(&Value::Bool(true)) {
        settled.insert("checked".into(), checked.into());
        settled.insert("changed".into(), true.into());
        return Ok(Value::Object(settled));
    }
    Ok(done.into_json())
}
