//! ask_person: what the person types while an agent's request waits stays
//! theirs. While a request waits on a tab, agents' tools on it answer
//! PAUSED, so the trusted input its pages receive is the person's. The
//! agent library in each frame (`assets/agent/17-person-typed.js`) asks
//! here about each form field that receives trusted input, and keeps the
//! ones this answers "asked" for out of agents' reads for the rest of that
//! document. A script an agent runs in a page's own world could still read
//! them, so such scripts are refused in the tab, and in the tabs related to
//! it by opener (which can reach it), until its page is left.
//!
//! What such a page sends is withheld from agents for good: every request a
//! page of the group starts while it holds the person's typing (or a
//! password anyone typed) is marked as it starts (`Related::secret_held`),
//! and its body is never handed over, the form's post included.

use crate::asks::Asks;
use crate::base::error::{ErrorCode, ToolError};
use crate::base::tab::TabId;
use crate::browser::tab::state::TabState;
use crate::browser::webkit::agent_world::AGENT_WORLD;
use crate::browser::webkit::message_reply;
use std::cell::Cell;
use std::rc::Rc;
use std::sync::Arc;
use webkit2gtk::UserContentManager;

/// The message handler the agent library posts to, in its world.
const HANDLER: &str = "sovereignTyped";
/// What the agent library posts for typing into a password field (it posts
/// "typed" for any other field).
const PASSWORD: &str = "typed-password";
/// The answer for a field the person typed into during an ask.
const ASKED: &str = "asked";

/// Answers one tab's frames (and, as WebKit routes them, those of the tabs
/// it opened): "asked" while a request for the person waits on a tab of
/// its group. The page the person typed into is the one in front (their
/// keys go there); failing that, the asked tab's.
pub fn listen(
    manager: &UserContentManager,
    state: &Rc<TabState>,
    asks: Arc<Asks>,
    front: Rc<Cell<TabId>>,
) {
    let related = state.related().clone();
    message_reply::listen(manager, HANDLER, AGENT_WORLD, move |text, answer| {
        let members = related.members();
        let front = Some(front.get()).filter(|tab| members.contains(tab));
        if text == PASSWORD {
            // Keys go to the front tab; failing that, any member may hold it.
            for tab in front.map_or_else(|| members.clone(), |tab| vec![tab]) {
                related.note_password_typed(tab);
            }
        }
        let asked: Vec<TabId> = members
            .iter()
            .copied()
            .filter(|tab| asks.waiting_on(*tab).is_some())
            .collect();
        if asked.is_empty() {
            answer.send("");
            return;
        }
        for tab in front.map_or(asked, |tab| vec![tab]) {
            related.note_person_typed(tab);
        }
        answer.send(ASKED);
    });
}

/// What a page of `state`'s group holds of the person's, if anything: the
/// refusal's opening, and how the fields it holds are named.
fn held(state: &TabState) -> Option<(String, &'static str)> {
    if let Some(tab) = state.related().vault_filled_in() {
        let why = format!("tab {tab}'s page holds a secret filled from the person's vault");
        return Some((why, "the filled fields"));
    }
    let tab = state.related().person_typed_in()?;
    let why = format!(
        "the person typed into tab {tab}'s page while an agent's request (ask_person) waited"
    );
    Some((why, "the fields the person typed into"))
}

/// Why an agent may not add a route in `state`'s context now, if it may
/// not: a route could answer a script (or a frame) the page loads later,
/// and that script would read the fields the page holds.
pub fn routes_refused(state: &TabState) -> Option<ToolError> {
    let (why, _) = held(state)?;
    Some(ToolError::new(
        ErrorCode::NotAllowed,
        format!("{why}: until that page is left, no new route is added in its context (a route could answer a script that page loads). Leave the page, or route in another context"),
    ))
}

/// Why an agent's script may not run in a page's own world of `state`'s
/// tab now, if it may not.
pub fn page_scripts_refused(state: &TabState) -> Option<ToolError> {
    let (why, fields) = held(state)?;
    Some(ToolError::new(
        ErrorCode::NotAllowed,
        format!("{why}: until that page is left, agents' scripts in a page's own world (eval, wait_for_fn) are refused there and in the tabs related to it by opener. The other tools work; {fields} stay unreadable"),
    ))
}
