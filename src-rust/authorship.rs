//! Who wrote what reaches a page: the one rule for every way content gets
//! there. A tab whose page may hold what an agent wrote (its script, or a
//! document, frame or script its route or HAR answered) is marked for the
//! rest of its life, with the tabs related to it (`browser/tab/related.rs`),
//! before that content can run: window.nostr then applies no standing
//! "allow" there, prompts and the ask bar say so, and assistants cannot
//! answer for it (`agent_scripts.rs`).
//!
//! What is not the agent's writing: what a site's own code does with what
//! an agent gave it (typing, clicks, headers, cookies, storage, a state
//! file: the site wrote the page, an agent steered it, as a person could),
//! the browser's own scripts whose values an agent chose from checked sets
//! (a time zone, a device), and the steps of a replayed flow (only the
//! navigation and input tools `record export` writes, with checked
//! arguments: `flow/check.rs`).
//!
//! A new way an agent's content reaches a page is added here, with its
//! author; the callers ask `Way::marks_tab`.

/// Who wrote content a page runs or shows.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Author {
    /// An agent: its own script or content.
    Agent,
    /// The site: its own code and documents, however an agent steered them.
    Site,
    /// The browser's own code (with values an agent chose from checked sets).
    Browser,
}

/// The ways content reaches a page on an agent's word.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Way {
    /// `eval` in a page's own world.
    Eval,
    /// `wait_for_fn` in a page's own world.
    WaitForFn,
    /// A route (`network_route`) answering or changing requests.
    Route,
    /// A route answering from a HAR file (`network_route_har`).
    HarRoute,
    /// Input an agent sends (click, type, fill...), in a replayed flow too.
    Input,
    /// Request headers and HTTP credentials (`set_headers`, `set_credentials`).
    Headers,
    /// Cookies, storage, and a state file loaded (`state_load`).
    SiteData,
    /// The browser's scripts for `set_timezone`, `set_device`, `set_offline`.
    Emulation,
}

impl Way {
    pub fn author(self) -> Author {
        match self {
            Way::Eval | Way::WaitForFn | Way::Route | Way::HarRoute => Author::Agent,
            Way::Input | Way::Headers | Way::SiteData => Author::Site,
            Way::Emulation => Author::Browser,
        }
    }

    /// Whether the tab (and those related to it) is marked before content
    /// that came this way can run there.
    pub fn marks_tab(self) -> bool {
        self.author() == Author::Agent
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn what_an_agent_writes_marks_the_tab_and_what_it_steers_does_not() {
        for way in [Way::Eval, Way::WaitForFn, Way::Route, Way::HarRoute] {
            assert!(way.marks_tab(), "{way:?}");
        }
        for way in [Way::Input, Way::Headers, Way::SiteData, Way::Emulation] {
            assert!(!way.marks_tab(), "{way:?}");
        }
    }
}
