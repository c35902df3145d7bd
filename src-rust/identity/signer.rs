//! What every way of logging in provides: the `Signer` trait, its method
//! and its errors. Below every signer, so none imports the module that
//! gathers them.

use futures_util::future::BoxFuture;
use nostr::{Event, PublicKey, UnsignedEvent};
use serde::{Deserialize, Serialize};

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

/// Why a signer could not do what was asked. "The person said no" and "the
/// signer cannot be reached" are different answers for the caller.
#[derive(Debug, Clone, thiserror::Error)]
pub enum SignerError {
    #[error("the signer is unavailable: {0}")]
    Unavailable(String),
    #[error("the signer refused: {0}")]
    Rejected(String),
    #[error("bad input for the signer: {0}")]
    BadInput(String),
}

pub type SignerResult<T> = Result<T, SignerError>;

/// A source of signatures and encryption for one public key.
pub trait Signer: Send + Sync {
    fn method(&self) -> Method;
    fn public_key(&self) -> PublicKey;
    fn sign_event(&self, unsigned: UnsignedEvent) -> BoxFuture<'_, SignerResult<Event>>;
    fn nip04_encrypt(
        &self,
        peer: PublicKey,
        plaintext: String,
    ) -> BoxFuture<'_, SignerResult<String>>;
    fn nip04_decrypt(
        &self,
        peer: PublicKey,
        ciphertext: String,
    ) -> BoxFuture<'_, SignerResult<String>>;
    fn nip44_encrypt(
        &self,
        peer: PublicKey,
        plaintext: String,
    ) -> BoxFuture<'_, SignerResult<String>>;
    fn nip44_decrypt(
        &self,
        peer: PublicKey,
        ciphertext: String,
    ) -> BoxFuture<'_, SignerResult<String>>;
    /// A BIP-340 signature (hex) of a 32-byte digest, made at once by a
    /// signer that holds its key in this process: the identity audit's
    /// lines. None for one that would have to be asked (a remote or
    /// hardware signer) or holds no key (read-only).
    fn sign_digest(&self, _digest: &[u8; 32]) -> Option<String> {
        None
    }
    /// Whether a remote signer answers; local ones always do.
    fn reachable(&self) -> BoxFuture<'_, bool> {
        Box::pin(async { true })
    }
    /// A page the person must open to approve a pending request (NIP-46).
    fn auth_url(&self) -> Option<String> {
        None
    }
    /// The identity ended (logout, switch): requests still waiting fail
    /// now with `reason`, and links and devices are released, however
    /// many holders the signer still has.
    fn end(&self, _reason: &str) {}
}

/// What requests still waiting under an identity are told when it ends.
pub const ENDED: &str = "the identity this request was made under was logged out or switched; nothing was signed or decrypted";
