//! Families of tools beyond everyday browsing: tools/list shows each as a
//! word in tools_enable's description until an agent enables it (every
//! model pays for every listed tool on every call). A family's tools work
//! whether listed or not; enabling lists them for every agent of this run,
//! and clients are told the list changed.

use std::collections::BTreeSet;
use std::sync::Mutex;

/// A family of tools. Each tool says its own ([`super::ToolDef::in_family`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Family {
    Find,
    Inspect,
    Storage,
    Mouse,
    Clipboard,
    Network,
    Emulation,
    Downloads,
    Audit,
    Contexts,
    Secrets,
}

impl Family {
    /// Every family, in the order tools_enable names them.
    pub const ALL: [Family; 11] = [
        Family::Find,
        Family::Inspect,
        Family::Storage,
        Family::Mouse,
        Family::Clipboard,
        Family::Network,
        Family::Emulation,
        Family::Downloads,
        Family::Audit,
        Family::Contexts,
        Family::Secrets,
    ];

    /// The name tools_enable takes.
    pub fn name(self) -> &'static str {
        match self {
            Family::Find => "find",
            Family::Inspect => "inspect",
            Family::Storage => "storage",
            Family::Mouse => "mouse",
            Family::Clipboard => "clipboard",
            Family::Network => "network",
            Family::Emulation => "emulation",
            Family::Downloads => "downloads",
            Family::Audit => "audit",
            Family::Contexts => "contexts",
            Family::Secrets => "secrets",
        }
    }

    /// The family of that name.
    pub fn named(name: &str) -> Option<Family> {
        Family::ALL.into_iter().find(|f| f.name() == name)
    }
}

/// The families enabled in this run.
#[derive(Default)]
pub struct Enabled(Mutex<BTreeSet<Family>>);

impl Enabled {
    /// Whether tools/list shows a tool of `family` now.
    pub fn lists(&self, family: Option<Family>) -> bool {
        family.is_none_or(|family| self.lock().contains(&family))
    }

    /// Enables families; whether any was new.
    pub fn enable(&self, families: &[Family]) -> bool {
        let mut enabled = self.lock();
        let mut new = false;
        for family in families {
            new |= enabled.insert(*family);
        }
        new
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, BTreeSet<Family>> {
        self.0.lock().unwrap_or_else(|e| e.into_inner())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_family_is_listed_once_enabled() {
        let enabled = Enabled::default();
        assert!(enabled.lists(None), "a tool of no family always is");
        assert!(!enabled.lists(Some(Family::Storage)));
        assert!(enabled.enable(&[Family::Storage]));
        assert!(!enabled.enable(&[Family::Storage]), "not new");
        assert!(enabled.lists(Some(Family::Storage)));
        assert!(!enabled.lists(Some(Family::Mouse)));
    }

    #[test]
    fn each_family_goes_by_its_name() {
        for family in Family::ALL {
            assert_eq!(Family::named(family.name()), Some(family));
        }
        assert_eq!(Family::named("all"), None);
        assert_eq!(Family::named("Find"), None);
    }
}
