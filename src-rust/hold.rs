//! Whether the person holds what an agent's call would reach: the one
//! place the pause and the asked-tab rule are decided, with their texts.
//!
//! The person holds the whole browser while they have paused the agents,
//! and a tab while they handle it for an agent (ask_person). The dispatch
//! asks before a call runs (the browser, the identity) and once the call's
//! tab is known; the main thread asks again at the moment input would
//! bring another tab forward, since a request may have begun meanwhile.
//! The person's own calls (the panel) are never held.

use crate::asks::Asks;
use crate::base::caller::Principal;
use crate::base::error::{ErrorCode, ToolError};
use crate::base::pause::Pause;
use crate::base::tab::TabId;

/// What an agent's call would reach.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Reach {
    /// Any page or browser state (every gated tool).
    Browser,
    /// The identity: logging in, logging out, switching.
    Identity,
    /// One tab's page.
    Tab(TabId),
    /// A script in a page's own world (eval, wait_for_fn), in any tab: it
    /// could watch what the person types, or reach it through
    /// `window.opener`, storage or a BroadcastChannel of the same site.
    PageScripts,
    /// Bringing `to` to the front, over the tab `front` shown now.
    Front { front: TabId, to: TabId },
}

/// What the person holds now: the pause and the requests they handle.
pub struct Holds<'a> {
    pub paused: &'a Pause,
    pub asks: &'a Asks,
}

impl Holds<'_> {
    /// PAUSED, saying why and what still works, when the person holds what
    /// `reach` names; the person's own calls always go through.
    pub fn check(&self, principal: Principal, reach: Reach) -> Result<(), ToolError> {
        if principal == Principal::Person {
            return Ok(());
        }
        let paused = self.paused.is_paused();
        let refusal = match reach {
            Reach::Browser if paused => Some(PAUSED_AGENTS.to_string()),
            Reach::Browser => None,
            Reach::Identity if paused => Some(format!(
                "{PAUSED_AGENTS_SHORT}; logging in, logging out and switching identity are theirs until they resume. Wait and try again later."
            )),
            Reach::Identity => self.asks.list().into_iter().next().map(|ask| format!(
                "the person is handling a tab for an agent (\"{}\"); logging in, logging out and switching identity wait until they finish. Wait and try again later.",
                ask.message
            )),
            Reach::Tab(tab) => self.asks.waiting_on(tab).map(|message| tab_held(&message)),
            Reach::PageScripts => self.asks.list().into_iter().next().map(|ask| format!(
                "the person is handling tab {} for an agent (\"{}\"): until they finish, agents' scripts in a page's own world (eval, wait_for_fn) answer PAUSED in every tab, so that none watches what they type. The other tools work on the other tabs.",
                ask.tab, ask.message
            )),
            Reach::Front { front, to } if front != to => self.asks.waiting_on(front).map(|message| format!(
                "the person is working in the tab in front for an agent (\"{message}\"); input on another tab would take it from them. Wait until they finish."
            )),
            Reach::Front { .. } => None,
        };
        match refusal {
            Some(message) => Err(ToolError::new(ErrorCode::Paused, message)),
            None => Ok(()),
        }
    }

    /// The tab in front while the person handles it for an agent, with
    /// the request's message: new tabs open behind it.
    pub fn held_front(&self, principal: Principal, front: TabId) -> Option<String> {
        match principal {
            Principal::Person => None,
            Principal::Agent => self.asks.waiting_on(front),
        }
    }
}

const PAUSED_AGENTS_SHORT: &str = "a person has taken over the browser and paused the agents";
const PAUSED_AGENTS: &str = "a person has taken over the browser and paused the agents; nothing reaches the pages until they resume. Wait and try again later.";

/// What agents' tools on a tab get while the person handles it, also when
/// a second request for the tab comes.
pub fn tab_held(message: &str) -> String {
    format!("the person is handling this tab for an agent (\"{message}\"); its browser tools answer PAUSED until they finish. Other tabs still work.")
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::Duration;

    fn refused(holds: &Holds, reach: Reach) -> Option<String> {
        holds.check(Principal::Agent, reach).err().map(|e| {
            assert_eq!(e.code, ErrorCode::Paused);
            e.message
        })
    }

    #[test]
    fn the_pause_holds_the_browser_and_the_identity_not_the_persons_calls() {
        let (paused, asks) = (Pause::default(), Asks::default());
        paused.set(true);
        let holds = Holds {
            paused: &paused,
            asks: &asks,
        };
        assert!(refused(&holds, Reach::Browser)
            .unwrap()
            .contains("taken over"));
        assert!(refused(&holds, Reach::Identity)
            .unwrap()
            .contains("switching identity"));
        // A tab nobody asked about is not held by a pause on its own:
        // every gated tool is refused as Browser before it gets that far.
        assert_eq!(refused(&holds, Reach::Tab(1)), None);
        for reach in [Reach::Browser, Reach::Identity] {
            assert!(holds.check(Principal::Person, reach).is_ok());
        }
        paused.set(false);
        assert_eq!(refused(&holds, Reach::Browser), None);
        assert_eq!(refused(&holds, Reach::Identity), None);
    }

    #[test]
    fn a_request_holds_its_tab_page_scripts_everywhere_and_the_front() {
        let (paused, asks) = (Pause::default(), Asks::default());
        let holds = Holds {
            paused: &paused,
            asks: &asks,
        };
        let (_id, _answer) = asks
            .start(
                3,
                "Enter the code",
                ("asker", "s1"),
                Duration::from_secs(60),
            )
            .unwrap();
        assert!(refused(&holds, Reach::Tab(3))
            .unwrap()
            .contains("Enter the code"));
        assert_eq!(refused(&holds, Reach::Tab(4)), None, "other tabs work");
        assert!(refused(&holds, Reach::PageScripts)
            .unwrap()
            .contains("tab 3"));
        assert!(refused(&holds, Reach::Identity)
            .unwrap()
            .contains("Enter the code"));
        assert!(refused(&holds, Reach::Front { front: 3, to: 4 })
            .unwrap()
            .contains("input on another tab"));
        assert_eq!(refused(&holds, Reach::Front { front: 3, to: 3 }), None);
        assert_eq!(refused(&holds, Reach::Front { front: 4, to: 3 }), None);
        assert_eq!(refused(&holds, Reach::Browser), None);
        assert_eq!(
            holds.held_front(Principal::Agent, 3).as_deref(),
            Some("Enter the code")
        );
        assert_eq!(holds.held_front(Principal::Person, 3), None);
        assert!(holds.check(Principal::Person, Reach::Tab(3)).is_ok());
    }
}
