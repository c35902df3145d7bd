//! The browser's one Nostr identity: a [`Signer`] per login method behind
//! one trait. Browser tools refuse to work until an identity is logged in.

pub mod local;
pub mod readonly;

use futures_util::future::BoxFuture;
use nostr::{Event, PublicKey, ToBech32, UnsignedEvent};
use serde::{Deserialize, Serialize};
use std::sync::{Arc, RwLock};

/// How the identity was logged in.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum Method {
    Local,
    Seed,
    Readonly,
    Nip46,
    Nsigner,
}

impl Method {
    pub fn as_str(self) -> &'static str {
        match self {
            Method::Local => "local",
            Method::Seed => "seed",
            Method::Readonly => "readonly",
            Method::Nip46 => "nip46",
            Method::Nsigner => "nsigner",
        }
    }
}

/// Why a signer could not do what was asked.
#[derive(Debug, Clone, thiserror::Error)]
pub enum SignerError {
    #[error("the signer is unavailable: {0}")]
    Unavailable(String),
    #[error("the signer refused: {0}")]
    Rejected(String),
}

/// A source of signatures for one public key.
pub trait Signer: Send + Sync {
    fn method(&self) -> Method;
    fn public_key(&self) -> PublicKey;
    fn sign_event(&self, unsigned: UnsignedEvent) -> BoxFuture<'_, Result<Event, SignerError>>;
}

/// The logged-in signer, if any.
#[derive(Default)]
pub struct IdentityState {
    current: RwLock<Option<Arc<dyn Signer>>>,
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
        let mut slot = self.current.write().unwrap_or_else(|e| e.into_inner());
        drop(slot.take());
        *slot = signer;
    }

    /// What login_status reports: never a secret.
    pub fn status(&self) -> serde_json::Value {
        match self.current() {
            None => serde_json::json!({"logged_in": false}),
            Some(signer) => describe(signer.as_ref()),
        }
    }
}

/// Checks a 64-character hex key (private or public) and trims it.
pub fn hex64(hex: &str) -> Result<&str, String> {
    let hex = hex.trim();
    if hex.len() != 64 || !hex.chars().all(|c| c.is_ascii_hexdigit()) {
        return Err(format!("must be 64 hex characters (got {})", hex.len()));
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
