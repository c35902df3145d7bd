//! What the program tells the browser when it starts it.

use crate::browser::tab::state::Publisher;
use std::path::PathBuf;

pub struct BrowserOptions {
    /// The person's (default) context's website data.
    pub web_data: PathBuf,
    /// Where kept contexts' website data go, a folder per name.
    pub contexts_dir: PathBuf,
    pub start_url: String,
    pub downloads: PathBuf,
    /// The most a context's downloads of this run may write, in bytes.
    pub downloads_max_bytes: u64,
    pub window_size: (u32, u32),
    /// The most resident memory a tab's web process may hold, in MiB.
    pub page_memory_mib: u32,
    /// Accept invalid TLS certificates (for testing only).
    pub ignore_certificate_errors: bool,
    /// Let tabs open file: URLs (off: agents would read local files).
    pub allow_file_urls: bool,
    /// Proxy for all requests, e.g. http://127.0.0.1:3128 or socks5://...
    pub proxy: Option<String>,
    /// Search page for address-bar text that is not an address (`%s` = the words).
    pub search_url: Option<String>,
    /// Set while a person has paused the agents.
    pub paused: std::sync::Arc<crate::base::pause::Pause>,
    /// What the agents are doing (shown in the toolbar).
    pub activity: std::sync::Arc<crate::activity::Activity>,
    /// Agents' requests for the person: shown over their tab, answered here.
    pub asks: std::sync::Arc<crate::asks::Asks>,
    /// Uses of the person's vault waiting for their yes: asked in the window.
    pub vault_uses: std::sync::Arc<crate::vault::Consents>,
    /// Where the pages' window.nostr calls go.
    pub nostr_calls: crate::base::page_event::PageCalls,
    /// Tabs an agent ran its own script in (in a page's world): marked here.
    pub agent_scripted: std::sync::Arc<crate::agent_scripts::AgentScripted>,
    /// Where the tabs' and downloads' state is published for tokio code.
    pub publisher: Publisher,
    /// Place the panel's window beside the browser's: a private display
    /// has no window manager, and would stack it over the tabs.
    pub panel_beside: bool,
    /// Agents' routes, and the proxy that applies them.
    pub routing: std::sync::Arc<crate::routes::Routing>,
}
