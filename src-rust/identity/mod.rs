//! A context's Nostr identity: a [`Signer`] per login method behind
//! one trait. Browser tools refuse to work until an identity is logged in.

pub mod audit;
mod auth_challenge;
mod bunker_link;
mod error;
mod identities;
pub mod local;
pub mod login_check;
pub mod nip46;
pub mod nsigner;
pub mod readonly;
pub mod remembered;
pub mod seed;
mod signer;
pub mod unlock;

use crate::base::changes::Changes;
pub use error::{IdentityError, IdentityResult};
pub use identities::Identities;
use nostr::ToBech32;
pub use signer::{Method, Signer, SignerError, SignerResult, ENDED};
use std::sync::{Arc, RwLock};

/// A login still waiting for the person to approve it at `auth_url`.
#[derive(Clone)]
pub struct PendingLogin {
    pub method: Method,
    pub challenge: auth_challenge::AuthChallenge,
}

/// The logged-in signer, if any.
pub struct IdentityState {
    current: RwLock<Option<Arc<dyn Signer>>>,
    pending: RwLock<Option<PendingLogin>>,
    /// Bumped by every change, so a login finishing late cannot undo a
    /// logout or another login that came after it.
    generation: std::sync::atomic::AtomicU64,
    /// A short public summary ("Private key · npub1abc…xyz") for the window.
    summary: tokio::sync::watch::Sender<String>,
    /// Bumped when what [`IdentityState::status`] shows changes, but for
    /// a remote signer's reachability (read when asked).
    changes: Arc<Changes>,
}

impl Default for IdentityState {
    fn default() -> Self {
        IdentityState {
            current: RwLock::default(),
            pending: RwLock::default(),
            generation: Default::default(),
            summary: tokio::sync::watch::channel(LOGGED_OUT.to_string()).0,
            changes: Arc::default(),
        }
    }
}

const LOGGED_OUT: &str = "Not logged in";

/// "local · npub1abcd…wxyz"
fn summary(signer: Option<&dyn Signer>) -> String {
    match signer {
        None => LOGGED_OUT.to_string(),
        Some(s) => {
            let npub = s.public_key().to_bech32().unwrap_or_default();
            let short = if npub.len() > 20 {
                format!("{}…{}", &npub[..12], &npub[npub.len() - 6..])
            } else {
                npub
            };
            format!("{} · {short}", s.method().as_str())
        }
    }
}

impl IdentityState {
    pub fn current(&self) -> Option<Arc<dyn Signer>> {
        self.current
            .read()
            .unwrap_or_else(|e| e.into_inner())
            .clone()
    }

    pub fn is_logged_in(&self) -> bool {
        self.current().is_some()
    }

    /// Replaces the signer; the old one is dropped (and with it its secrets
    /// and connections) before the new one is installed.
    pub fn set(&self, signer: Option<Arc<dyn Signer>>) {
        self.generation
            .fetch_add(1, std::sync::atomic::Ordering::SeqCst);
        *self.pending.write().unwrap_or_else(|e| e.into_inner()) = None;
        let mut slot = self.current.write().unwrap_or_else(|e| e.into_inner());
        if let Some(old) = slot.take() {
            old.end(ENDED);
        }
        self.summary.send_replace(summary(signer.as_deref()));
        *slot = signer;
        drop(slot);
        self.changes.bump();
    }

    /// A context's identity, logged out, whose changes bump `changes`
    /// (the person's status signal).
    pub fn sharing(changes: Arc<Changes>) -> IdentityState {
        IdentityState {
            changes,
            ..IdentityState::default()
        }
    }

    /// "local · npub1abcd…wxyz", or "Not logged in".
    /// The logged-in identity's npub.
    pub fn npub(&self) -> Option<String> {
        use nostr::ToBech32;
        self.current()?.public_key().to_bech32().ok()
    }

    pub fn summary(&self) -> String {
        self.summary.borrow().clone()
    }

    /// Wakes whenever what [`IdentityState::status`] shows changes.
    pub fn watch_status(&self) -> tokio::sync::watch::Receiver<u64> {
        self.changes.watch()
    }

    /// A NIP-46 auth challenge whose URL shows in the status.
    pub fn auth_challenge(&self) -> nip46::AuthChallenge {
        nip46::AuthChallenge::new(self.changes.clone())
    }

    /// Follows the public summary of the identity in use.
    pub fn watch(&self) -> tokio::sync::watch::Receiver<String> {
        self.summary.subscribe()
    }

    /// Records a login waiting for approval; returns its generation.
    pub fn begin_pending(&self, pending: PendingLogin) -> u64 {
        *self.pending.write().unwrap_or_else(|e| e.into_inner()) = Some(pending);
        self.changes.bump();
        self.generation.load(std::sync::atomic::Ordering::SeqCst)
    }

    /// Completes (or, with None, abandons) a pending login, unless anything
    /// changed since it began.
    pub fn finish_pending(&self, generation: u64, signer: Option<Arc<dyn Signer>>) -> bool {
        if self.generation.load(std::sync::atomic::Ordering::SeqCst) != generation {
            return false;
        }
        match signer {
            Some(signer) => self.set(Some(signer)),
            None => {
                *self.pending.write().unwrap_or_else(|e| e.into_inner()) = None;
                self.changes.bump();
            }
        }
        true
    }

    /// What login_status reports: never a secret.
    pub async fn status(&self) -> serde_json::Value {
        let pending = self
            .pending
            .read()
            .unwrap_or_else(|e| e.into_inner())
            .clone();
        match (self.current(), pending) {
            (None, None) => serde_json::json!({"logged_in": false}),
            (None, Some(p)) => serde_json::json!({
                "logged_in": false,
                "pending": {"method": p.method.as_str(), "auth_url": p.challenge.current()},
            }),
            (Some(signer), _) => {
                let mut status = describe(signer.as_ref());
                if matches!(signer.method(), Method::Nip46 | Method::Nsigner) {
                    status["signer_reachable"] = signer.reachable().await.into();
                }
                if let Some(url) = signer.auth_url() {
                    status["auth_url"] = url.into();
                }
                status
            }
        }
    }
}

/// Checks a 64-character hex key (private or public) and trims it.
pub fn hex64(hex: &str) -> IdentityResult<&str> {
    let hex = hex.trim();
    if hex.len() != 64 || !hex.chars().all(|c| c.is_ascii_hexdigit()) {
        return Err(IdentityError::Malformed(format!(
            "must be 64 hex characters (got {})",
            hex.len()
        )));
    }
    Ok(hex)
}

/// Public description of a signer.
pub fn describe(signer: &dyn Signer) -> serde_json::Value {
    let pk = signer.public_key();
    serde_json::json!({
        "logged_in": true,
        "method": signer.method().as_str(),
        "pubkey": pk.to_hex(),
        "npub": pk.to_bech32().unwrap_or_default(),
    })
}

#[cfg(test)]
mod tests {
    use nostr::nips::nip49::EncryptedSecretKey;
    use nostr::FromBech32;

    #[test]
    fn nip49_published_vector_decrypts() {
        // The example of NIP-49, password "nostr", log_n 16.
        let ncryptsec = "ncryptsec1qgg9947rlpvqu76pj5ecreduf9jxhselq2nae2kghhvd5g7dgjtcxfqtd67p9m0w57lspw8gsq6yphnm8623nsl8xn9j4jdzz84zm3frztj3z7s35vpzmqf6ksu8r89qk5z2zxfmu5gv8th8wclt0h4p";
        let encrypted = EncryptedSecretKey::from_bech32(ncryptsec).unwrap();
        let secret = encrypted.decrypt("nostr").unwrap();
        assert_eq!(
            secret.to_secret_hex(),
            "3501454135014541350145413501453fefb02227e449e57cf4d3a3ce05378683"
        );
        assert!(encrypted.decrypt("wrong password").is_err());
    }
}
