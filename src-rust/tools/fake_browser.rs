//! A browser stand-in for fast tests of the dispatch: it publishes tab
//! state as the real main thread does and answers commands with a
//! function the test gives, recording each command's kind.

use super::app::{App, Security, Setup, Shared};
use super::Registry;
use crate::activity::Activity;
use crate::base::caller::{Session, Transport};
use crate::base::tab::{BrowserState, NavCounters, TabId, TabInfo};
use crate::bridge::{BrowserHandle, Command, Reply};
use crate::files_dir::FilesDir;
use crate::identity::local::KeySigner;
use crate::identity::remembered::RememberedStore;
use crate::nip07::context_decisions::ContextDecisions;
use crate::nip07::permissions::Permissions;
use crate::nip07::Nip07;
use crate::nip07::Watchers;
use std::sync::{Arc, Mutex};
use std::time::Duration;
use tokio::sync::watch;

/// What the fake does with one command.
pub type Answer = Box<dyn Fn(&FakeBrowser, Command, Reply) + Send + Sync>;

pub struct FakeBrowser {
    pub state: watch::Sender<BrowserState>,
    /// The commands sent, by name, in order.
    pub commands: Mutex<Vec<String>>,
    answer: Mutex<Option<Answer>>,
    _dir: TempDir,
}

impl FakeBrowser {
    /// A program around a fake browser with one loaded tab (id 1) in front.
    pub fn app() -> (Arc<App>, Arc<FakeBrowser>) {
        let dir = TempDir::new();
        let initial = BrowserState {
            tabs: vec![loaded_tab(1, "http://127.0.0.1:9/page.html")],
            ..BrowserState::default()
        };
        let (state, published) = watch::channel(initial);
        let fake = Arc::new(FakeBrowser {
            state,
            commands: Mutex::new(Vec::new()),
            answer: Mutex::new(None),
            _dir: dir.clone(),
        });
        let handler = fake.clone();
        let handle = BrowserHandle::new(
            Arc::new(move |command: Command, reply: Reply, _limit| {
                handler.receive(command, reply);
                true
            }),
            published,
        );
        let files = FilesDir::new(&dir.path.join("files"), &dir.path.join("profile"))
            .expect("a files folder");
        let app = App::new(
            handle,
            Security {
                token: None,
                panel_key: "k".into(),
                metrics_token: None,
                addr: "127.0.0.1:9".parse().expect("an address"),
                panel_address: "http://127.0.0.1:9/".into(),
                proofs: Default::default(),
            },
            RememberedStore::new(dir.path.join("profile/remembered.json")),
            Shared {
                paused: Arc::default(),
                activity: Arc::new(Activity::default()),
                asks: Arc::default(),
                routing: crate::routes::Routing::new(),
                vault_uses: Arc::default(),
            },
            Setup {
                session_idle: Duration::from_secs(60),
                contexts_max: 8,
                private_display: false,
                recorder: crate::recording::Recorder::new(None, 1 << 20, true),
                states_dir: dir.path.join("profile/states"),
                vault: crate::vault::Vault::cheap(dir.path.join("profile/vault.json")),
                files,
                tools: Registry::new(),
                nip07: Nip07::new(
                    Permissions::load(None),
                    ContextDecisions::new(None),
                    Duration::from_secs(1),
                    Watchers::default(),
                ),
            },
        );
        (app, fake)
    }

    /// How the fake answers from now on.
    pub fn answer_with(
        &self,
        answer: impl Fn(&FakeBrowser, Command, Reply) + Send + Sync + 'static,
    ) {
        *self.answer.lock().expect("not poisoned") = Some(Box::new(answer));
    }

    pub fn sent(&self) -> Vec<String> {
        self.commands.lock().expect("not poisoned").clone()
    }

    /// Changes one tab's published state, as a WebKit signal would.
    pub fn update_tab(&self, id: TabId, change: impl FnOnce(&mut TabInfo)) {
        self.state.send_modify(|state| {
            if let Some(tab) = state.tabs.iter_mut().find(|t| t.id == id) {
                change(tab);
            }
        });
    }

    fn receive(&self, command: Command, reply: Reply) {
        let name = format!("{command:?}");
        let name = name
            .split(|c: char| !c.is_alphanumeric())
            .next()
            .unwrap_or_default()
            .to_string();
        self.commands.lock().expect("not poisoned").push(name);
        let answer = self.answer.lock().expect("not poisoned");
        match answer.as_ref() {
            Some(answer) => answer(self, command, reply),
            // Never answered: the caller's timeout ends it.
            None => std::mem::forget(reply),
        }
    }
}

/// A tab whose page finished loading.
pub fn loaded_tab(id: TabId, url: &str) -> TabInfo {
    TabInfo {
        id,
        url: url.into(),
        title: "Page".into(),
        front: true,
        nav: NavCounters {
            requested: 1,
            started: 1,
            committed: 1,
            finished: 1,
            diverted: 0,
            windows: 0,
            moved_within: 0,
            cancelled: 0,
        },
        ..TabInfo::default()
    }
}

/// Logs a test identity in (browser tools refuse to work before).
pub fn log_in(app: &App) {
    let key = KeySigner::from_hex(&"01".repeat(32)).expect("a valid test key");
    app.identity.set(Some(Arc::new(key)));
}

pub fn agent_session(app: &App) -> Arc<Session> {
    app.sessions
        .create(Transport::Mcp)
        .expect("a test opens few sessions")
}

/// A folder removed when the last handle goes.
#[derive(Clone)]
struct TempDir {
    path: std::path::PathBuf,
    _guard: Arc<TempGuard>,
}

struct TempGuard(std::path::PathBuf);

impl Drop for TempGuard {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

impl TempDir {
    fn new() -> TempDir {
        let path =
            std::env::temp_dir().join(format!("sovereign-fake-{}", crate::profile::random_hex(8)));
        std::fs::create_dir_all(path.join("profile")).expect("a temporary folder");
        TempDir {
            _guard: Arc::new(TempGuard(path.clone())),
            path,
        }
    }
}
