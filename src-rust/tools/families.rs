//! Families of tools beyond everyday browsing: tools/list shows each as a
//! word in tools_enable's description until an agent enables it (every
//! model pays for every listed tool on every call). A family's tools work
//! whether listed or not; enabling lists them for every agent of this run,
//! and clients are told the list changed.

use std::collections::BTreeSet;
use std::sync::Mutex;

/// A family: its name and its tools.
pub struct Family {
    pub name: &'static str,
    pub tools: &'static [&'static str],
}

/// Every family, in the order tools_enable names them.
pub const FAMILIES: [Family; 10] = [
    Family {
        name: "find",
        tools: &[
            "find_role",
            "find_text",
            "find_label",
            "find_placeholder",
            "find_alt",
            "find_title",
            "find_testid",
            "find_first",
            "find_last",
            "find_nth",
        ],
    },
    Family {
        name: "inspect",
        tools: &[
            "get_count",
            "get_box",
            "get_styles",
            "is_visible",
            "is_enabled",
            "is_checked",
            "highlight",
        ],
    },
    Family {
        name: "storage",
        tools: &[
            "cookies_get",
            "cookies_set",
            "cookies_clear",
            "storage_local_get",
            "storage_local_get_key",
            "storage_local_set",
            "storage_local_clear",
            "storage_session_get",
            "storage_session_get_key",
            "storage_session_set",
            "storage_session_clear",
            "state_save",
            "state_load",
        ],
    },
    Family {
        name: "mouse",
        tools: &["mouse_move", "mouse_down", "mouse_up", "mouse_wheel"],
    },
    Family {
        name: "clipboard",
        tools: &[
            "clipboard_read",
            "clipboard_write",
            "clipboard_copy",
            "clipboard_paste",
        ],
    },
    Family {
        name: "network",
        tools: &[
            "network_requests",
            "network_request",
            "network_route",
            "network_route_har",
            "network_unroute",
            "network_routes",
            "set_offline",
            "set_headers",
            "set_credentials",
        ],
    },
    Family {
        name: "emulation",
        tools: &[
            "set_viewport",
            "set_media",
            "set_user_agent",
            "set_locale",
            "set_geolocation",
            "set_timezone",
            "set_device",
        ],
    },
    Family {
        name: "downloads",
        tools: &["downloads", "wait_for_download", "download_cancel"],
    },
    Family {
        name: "audit",
        tools: &["audit_accessibility"],
    },
    Family {
        name: "contexts",
        tools: &["context_new", "context_list", "context_close"],
    },
];

/// The family a tool belongs to; none: it is always listed.
pub fn family_of(tool: &str) -> Option<&'static str> {
    FAMILIES
        .iter()
        .find(|f| f.tools.contains(&tool))
        .map(|f| f.name)
}

/// The families enabled in this run.
#[derive(Default)]
pub struct Enabled(Mutex<BTreeSet<&'static str>>);

impl Enabled {
    /// Whether tools/list shows `tool` now.
    pub fn lists(&self, tool: &str) -> bool {
        family_of(tool).is_none_or(|family| self.lock().contains(family))
    }

    /// Enables families; whether any was new.
    pub fn enable(&self, families: &[&'static str]) -> bool {
        let mut enabled = self.lock();
        let mut new = false;
        for family in families {
            new |= enabled.insert(family);
        }
        new
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, BTreeSet<&'static str>> {
        self.0.lock().unwrap_or_else(|e| e.into_inner())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_family_is_listed_once_enabled() {
        let enabled = Enabled::default();
        assert!(enabled.lists("click"));
        assert!(!enabled.lists("cookies_get"));
        assert!(enabled.enable(&["storage"]));
        assert!(!enabled.enable(&["storage"]), "not new");
        assert!(enabled.lists("cookies_get"));
        assert!(!enabled.lists("mouse_move"));
    }
}
