//! window.nostr decisions. The control panel's own actions (answer a
//! prompt, revoke a decision, let assistants answer) are refused to every
//! other client; `nostr_prompts`, the assistant's way to answer, is listed
//! and callable only while a person has switched that on in the panel.

use super::identity::NoParams;
use super::{tool, Ctx, ToolDef, ToolOutput, ACTION, READ_ONLY};
use crate::base::context::DEFAULT_NAME;
use crate::base::error::{ErrorCode, ToolError};
use crate::nip07::prompts::Answer;
use crate::nip07::request::Capability;
use crate::tools::app::App;
use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::json;

pub fn tools() -> Vec<ToolDef> {
    vec![
        tool(
            "nostr_permissions",
            "window.nostr: the waiting prompts, the remembered decisions and whether assistants may answer.",
            READ_ONLY,
            |ctx: Ctx, _: NoParams| async move { Ok(ToolOutput::json(ctx.app.nip07.state())) },
        )
        .ungated()
        .person_only(),
        tool(
            "nostr_prompt_answer",
            "Answer a waiting window.nostr prompt: allow or deny, just this time or always (remember).",
            ACTION,
            |ctx: Ctx, p: AnswerParams| async move {
                let answer = Answer {
                    allow: p.allow,
                    remember: p.remember.unwrap_or(false),
                    assistant: false,
                };
                let (prompt, kept) = ctx.app.nip07.answer(&p.id, answer)?;
                tracing::info!(prompt = %p.id, allow = answer.allow, remember = kept, "window.nostr prompt answered in the panel");
                Ok(ToolOutput::json(json!({"answered": prompt, "allow": answer.allow, "remember": kept})))
            },
        )
        .ungated()
        .person_only(),
        tool(
            "nostr_permission_revoke",
            "Forget the remembered window.nostr decisions of an origin (one capability, or all; one identity's, or every identity's) in a context (default: the person's).",
            ACTION,
            |ctx: Ctx, p: RevokeParams| async move {
                let capability = match p.capability.as_deref() {
                    None => None,
                    Some(key) => Some(Capability::parse(key).ok_or_else(|| {
                        ToolError::invalid_params(format!(
                            "capability: {key} is not public_key, sign:<kind>, encrypt or decrypt"
                        ))
                    })?),
                };
                let nip07 = &ctx.app.nip07;
                let revoked = match p.context.as_deref() {
                    None | Some(DEFAULT_NAME) => {
                        nip07
                            .permissions
                            .revoke(&p.origin, capability, p.pubkey.as_deref())
                    }
                    Some(name) => {
                        if nip07.contexts.named(name).is_none() {
                            return Err(ToolError::new(
                                ErrorCode::NoContext,
                                format!("context {name} is not open, or none of its pages asked yet"),
                            ));
                        }
                        nip07
                            .contexts
                            .revoke(name, &p.origin, capability, p.pubkey.as_deref())
                    }
                };
                tracing::info!(origin = %p.origin, revoked, "window.nostr decisions revoked in the panel");
                Ok(ToolOutput::json(json!({"revoked": revoked})))
            },
        )
        .ungated()
        .person_only(),
        tool(
            "nostr_assistant_answers",
            "Let assistants answer window.nostr prompts (just this time) through the nostr_prompts tool, or stop them.",
            ACTION,
            |ctx: Ctx, p: AssistantParams| async move {
                let app = &ctx.app;
                app.nip07.permissions.set_assistant_answers(p.allowed);
                app.sessions.tools_changed();
                tracing::info!(allowed = p.allowed, "assistants answering window.nostr prompts set in the panel");
                Ok(ToolOutput::json(json!({"assistant_answers": p.allowed})))
            },
        )
        .ungated()
        .person_only(),
        tool(
            "nostr_prompts",
            "Web pages asking to use the Nostr identity through window.nostr wait for an answer. \
Without arguments: list the waiting prompts (origin, what it asks, the event's kind and content). \
With id and allow: answer one, just this time. A person allowed assistants to do this in the control panel.",
            ACTION,
            |ctx: Ctx, p: AssistantAnswerParams| async move {
                let nip07 = &ctx.app.nip07;
                let (Some(id), Some(allow)) = (p.id, p.allow) else {
                    return Ok(ToolOutput::json(json!({"prompts": nip07.prompts.list()})));
                };
                if nip07.prompts.agent_scripted(&id) == Some(true) {
                    return Err(ToolError::new(
                        ErrorCode::NotAllowed,
                        "this request comes from a tab where an agent ran its own script or routed its requests, so it may be an agent's: only the person answers it, in the control panel",
                    ));
                }
                let answer = Answer {
                    allow,
                    remember: false,
                    assistant: true,
                };
                let (prompt, _) = nip07.answer(&id, answer)?;
                tracing::info!(prompt = %id, allow, session = %ctx.session.id, "window.nostr prompt answered by an assistant");
                Ok(ToolOutput::json(json!({"answered": prompt, "allow": allow})))
            },
        )
        .shown_when(assistants_may_answer),
    ]
}

fn assistants_may_answer(app: &App) -> bool {
    app.nip07.permissions.assistant_answers()
}

#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct AnswerParams {
    /// The prompt's id.
    id: String,
    /// true: allow; false: deny.
    allow: bool,
    /// Keep the decision for this origin and capability (default: just this time).
    #[serde(default)]
    remember: Option<bool>,
}

#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct RevokeParams {
    /// The origin, e.g. https://example.com.
    origin: String,
    /// public_key, sign:<kind>, encrypt or decrypt; none: all of the origin's.
    #[serde(default)]
    capability: Option<String>,
    /// The context's name (default: the person's own).
    #[serde(default)]
    context: Option<String>,
    /// Only this identity's decisions (its public key, hex); none: every identity's.
    #[serde(default)]
    pubkey: Option<String>,
}

#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct AssistantParams {
    /// true: assistants may answer prompts (just this time); false: they may not.
    allowed: bool,
}

#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct AssistantAnswerParams {
    /// The prompt to answer (from the list); none: list the prompts.
    #[serde(default)]
    id: Option<String>,
    /// true: allow this once; false: deny.
    #[serde(default)]
    allow: Option<bool>,
}
