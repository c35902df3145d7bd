//! The `auth_url` a NIP-46 bunker asks the person to open: set by the
//! relay conversation (`bunker_link`), read by the signer and the login.

use crate::base::changes::Changes;
use std::sync::{Arc, Mutex};
use tokio::sync::watch;

/// The latest `auth_url` the bunker asked the person to open.
#[derive(Debug, Clone, Default)]
pub struct AuthChallenge {
    url: Arc<Mutex<Option<String>>>,
    notify: Arc<watch::Sender<Option<String>>>,
    /// The identity's signal: login_status shows the URL.
    changes: Arc<Changes>,
}

impl AuthChallenge {
    /// A challenge whose URL, when it comes or goes, is a change of `changes`.
    pub fn new(changes: Arc<Changes>) -> Self {
        AuthChallenge {
            changes,
            ..AuthChallenge::default()
        }
    }

    pub fn current(&self) -> Option<String> {
        self.url.lock().unwrap_or_else(|e| e.into_inner()).clone()
    }

    pub fn subscribe(&self) -> watch::Receiver<Option<String>> {
        self.notify.subscribe()
    }

    /// The bunker asks the person to open `url` before it answers. The
    /// URL may carry a one-time token: the log says only that it came.
    pub(super) fn ask(&self, url: String) {
        tracing::info!("the bunker asks for approval at an auth_url (login_status shows it)");
        *self.url.lock().unwrap_or_else(|e| e.into_inner()) = Some(url.clone());
        self.notify.send_replace(Some(url));
        self.changes.bump();
    }

    pub(super) fn clear(&self) {
        *self.url.lock().unwrap_or_else(|e| e.into_inner()) = None;
        self.changes.bump();
    }
}
