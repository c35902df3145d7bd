//! batch: several tool calls in one, through the same dispatch as any call.

use super::{dispatch_at, tool, Ctx, ToolDef, ToolOutput, ToolResult, ACTION};
use crate::base::error::ToolError;
use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::{json, Value};

/// Commands in one batch.
pub const MAX_COMMANDS: usize = 100;
/// A batch may hold batches this many levels deep (1: none).
pub const MAX_DEPTH: u32 = 2;

pub fn tools() -> Vec<ToolDef> {
    vec![tool(
        "batch",
        "Run tool calls in order, stopping at the first failure unless continueOnError; a result per call run.",
        ACTION,
        |ctx: Ctx, p: BatchParams| async move { batch(&ctx, p).await },
    )
    // Each command passes the login gate itself; the batch only carries them.
    .ungated()]
}

#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct BatchParams {
    /// Each {tool, params}.
    commands: Vec<Command>,
    /// Go on after a failure.
    #[serde(default, rename = "continueOnError")]
    #[schemars(extend("default" = false))]
    continue_on_error: Option<bool>,
}

#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Command {
    tool: String,
    #[serde(default)]
    params: Option<serde_json::Map<String, Value>>,
}

async fn batch(ctx: &Ctx, p: BatchParams) -> ToolResult {
    if ctx.depth >= MAX_DEPTH {
        return Err(ToolError::invalid_params(format!(
            "batches nest at most {MAX_DEPTH} deep"
        )));
    }
    if p.commands.len() > MAX_COMMANDS {
        return Err(ToolError::invalid_params(format!(
            "a batch holds at most {MAX_COMMANDS} commands; {} were given",
            p.commands.len()
        )));
    }
    let go_on = p.continue_on_error.unwrap_or(false);
    let total = p.commands.len();
    let mut results = Vec::with_capacity(total);
    let mut failed = 0;
    for command in p.commands {
        let params = Value::Object(command.params.unwrap_or_default());
        let outcome =
            dispatch_at(&ctx.app, &ctx.session, &command.tool, params, ctx.depth + 1).await;
        match outcome {
            Ok(output) => results.push(json!({
                "tool": command.tool,
                "ok": true,
                "result": output.to_agent(),
            })),
            Err(error) => {
                failed += 1;
                results.push(json!({
                    "tool": command.tool,
                    "ok": false,
                    "error": {"code": error.code.as_str(), "message": error.message},
                }));
                if !go_on {
                    break;
                }
            }
        }
    }
    let run = results.len();
    Ok(ToolOutput::json(json!({
        "ok": failed == 0,
        "run": run,
        "failed": failed,
        "skipped": total - run,
        "results": results,
    })))
}
