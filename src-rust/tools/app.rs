//! Shared state of the running program, handed to every transport.

use crate::base::call_log::CallLog;
use crate::base::caller::Sessions;
use crate::bridge::BrowserHandle;
use crate::hold::Holds;
use crate::identity::remembered::RememberedStore;
use crate::identity::{Identities, IdentityState};
use crate::tools::Registry;
use std::net::SocketAddr;
use std::sync::Arc;

pub struct App {
    pub browser: BrowserHandle,
    /// The person's identity: their own (default) context's.
    pub identity: Arc<IdentityState>,
    /// Every context's identity, the person's included.
    pub identities: Arc<Identities>,
    pub remembered: RememberedStore,
    pub sessions: Sessions,
    pub calls: CallLog,
    pub tools: Registry,
    /// The families of tools agents enabled (tools_enable).
    pub families: crate::tools::families::Enabled,
    pub security: Security,
    /// Set while a person has taken over: browser tools answer PAUSED.
    pub paused: Arc<crate::base::pause::Pause>,
    /// What the agents are doing, for the window.
    pub activity: Arc<crate::activity::Activity>,
    /// Agents' requests for the person (ask_person), shown by the window too.
    pub asks: Arc<crate::asks::Asks>,
    /// Every context's routes (network_route) and their proxy.
    pub routing: Arc<crate::routes::Routing>,
    /// Where state_save keeps named state files (in the profile).
    pub states_dir: std::path::PathBuf,
    /// How many contexts agents may have open besides the person's.
    pub contexts_max: usize,
    /// The browser runs on a display of its own (headless): its pointer is no person's.
    pub private_display: bool,
    /// The only folder agents' tools read and write files in.
    pub files: crate::files_dir::FilesDir,
    /// window.nostr for pages: decisions and waiting prompts.
    pub nip07: Arc<crate::nip07::Nip07>,
    /// What was done in each identity's name (pages' calls, logins).
    pub audit: Arc<crate::identity::audit::Audit>,
    /// Ready, stopping, and the calls running now (/readyz, a clean stop).
    pub health: crate::base::health::Health,
    /// Calls by tool and outcome, and their times (/metrics).
    pub metrics: crate::base::metrics::Metrics,
    /// Every agent's calls, step by step.
    pub recorder: crate::recording::Recorder,
    /// The person's vault: agents use its entries by name, never see them.
    pub vault: Arc<crate::vault::Vault>,
    /// Uses of the vault waiting for the person's yes.
    pub vault_uses: Arc<crate::vault::Consents>,
}

/// What the server checks on every request.
pub struct Security {
    /// The agents' bearer token; None when turned off with --no-token.
    pub token: Option<String>,
    /// The person's credential for the control panel (always required).
    pub panel_key: String,
    /// A read-only credential for `/metrics` alone (None with --no-token).
    pub metrics_token: Option<String>,
    /// The address the server listens on (for Host and Origin checks).
    pub addr: SocketAddr,
    /// Where the person reaches the panel (`--panel-address`, else
    /// `http://ADDR/`): links to it for agents' clients, never with the key.
    pub panel_address: String,
    /// The server's proofs that it holds the key and the token, and the
    /// nonces clients answer to prove they do (see `base::proof`).
    pub proofs: crate::base::proof::Proofs,
}

/// What the window shares with the tools (each side reads it itself).
pub struct Shared {
    /// Set while a person has taken over: browser tools answer PAUSED.
    pub paused: Arc<crate::base::pause::Pause>,
    pub activity: Arc<crate::activity::Activity>,
    pub asks: Arc<crate::asks::Asks>,
    /// Agents' routes, which the window's engine sends requests through.
    pub routing: Arc<crate::routes::Routing>,
    /// Uses of the person's vault waiting for their yes (the window asks too).
    pub vault_uses: Arc<crate::vault::Consents>,
}

/// Start-up choices the program is made with.
pub struct Setup {
    pub session_idle: std::time::Duration,
    /// Where named state files go (in the profile).
    pub states_dir: std::path::PathBuf,
    /// The folder agents' tools read and write files in.
    pub files: crate::files_dir::FilesDir,
    /// The tools offered (all, or the subset --tools asked for).
    pub tools: Registry,
    pub nip07: crate::nip07::Nip07,
    pub contexts_max: usize,
    /// The browser runs on a display of its own (headless).
    pub private_display: bool,
    pub recorder: crate::recording::Recorder,
    pub vault: crate::vault::Vault,
}

impl App {
    pub fn new(
        browser: BrowserHandle,
        security: Security,
        remembered: RememberedStore,
        shared: Shared,
        setup: Setup,
    ) -> Arc<App> {
        let identity = Arc::new(IdentityState::default());
        Arc::new(App {
            browser,
            identities: Arc::new(Identities::new(identity.clone())),
            identity,
            remembered,
            sessions: Sessions::new(setup.session_idle),
            calls: CallLog::default(),
            tools: setup.tools,
            families: Default::default(),
            security,
            paused: shared.paused,
            activity: shared.activity,
            asks: shared.asks,
            routing: shared.routing,
            states_dir: setup.states_dir,
            contexts_max: setup.contexts_max,
            private_display: setup.private_display,
            files: setup.files,
            audit: setup.nip07.audit.clone(),
            nip07: Arc::new(setup.nip07),
            health: Default::default(),
            metrics: Default::default(),
            recorder: setup.recorder,
            vault: Arc::new(setup.vault),
            vault_uses: shared.vault_uses,
        })
    }

    /// What the person holds now (see [`crate::hold`]).
    pub fn holds(&self) -> Holds<'_> {
        Holds {
            paused: &self.paused,
            asks: &self.asks,
        }
    }
}
