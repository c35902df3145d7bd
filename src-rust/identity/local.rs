//! Signers that hold the private key in memory: `local` (nsec or 64-hex)
//! and `seed` (derived from a mnemonic, see `seed.rs`). The key is erased
//! from memory when the signer is dropped (nostr's SecretKey does that).

use super::{IdentityError, IdentityResult, Method, Signer, SignerError, SignerResult};
use futures_util::future::BoxFuture;
use nostr::nips::{nip04, nip44};
use nostr::{Event, FromBech32, Keys, PublicKey, SecretKey, UnsignedEvent};

pub struct KeySigner {
    keys: Keys,
    method: Method,
}

impl KeySigner {
    pub fn new(keys: Keys, method: Method) -> Self {
        KeySigner { keys, method }
    }

    /// The same key, reported as logged in by `method` (seed keys are plain keys).
    pub fn with_method(self, method: Method) -> Self {
        KeySigner { method, ..self }
    }

    /// The private key encrypted with a password (NIP-49 ncryptsec), off
    /// the server's threads: scrypt takes a fraction of a second and 64 MiB.
    pub async fn encrypt(&self, password: &str) -> IdentityResult<String> {
        let secret = self.keys.secret_key().clone();
        let password = zeroize::Zeroizing::new(password.to_string());
        tokio::task::spawn_blocking(move || super::remembered::encrypt_key(&secret, &password))
            .await
            .unwrap_or_else(|e| Err(IdentityError::Store(format!("the encryption failed ({e})"))))
    }

    /// Parses an `nsec1...` key.
    pub fn from_nsec(nsec: &str) -> IdentityResult<Self> {
        let nsec = nsec.trim();
        if !nsec.starts_with("nsec1") {
            return Err(IdentityError::Malformed("must start with nsec1".into()));
        }
        let secret = SecretKey::from_bech32(nsec)
            .map_err(|e| IdentityError::Malformed(format!("not a valid nsec ({e})")))?;
        Ok(KeySigner::new(Keys::new(secret), Method::Local))
    }

    /// Parses a 64-character hex private key.
    pub fn from_hex(hex: &str) -> IdentityResult<Self> {
        let hex = super::hex64(hex)?;
        let secret = SecretKey::from_hex(hex)
            .map_err(|e| IdentityError::Malformed(format!("not a valid private key ({e})")))?;
        Ok(KeySigner::new(Keys::new(secret), Method::Local))
    }
}

fn crypto_error(e: impl std::fmt::Display) -> SignerError {
    SignerError::BadInput(e.to_string())
}

impl Signer for KeySigner {
    fn method(&self) -> Method {
        self.method
    }

    fn sign_digest(&self, digest: &[u8; 32]) -> Option<String> {
        let message = nostr::secp256k1::Message::from_digest(*digest);
        Some(self.keys.sign_schnorr(&message).to_string())
    }

    fn public_key(&self) -> PublicKey {
        self.keys.public_key()
    }

    fn sign_event(&self, unsigned: UnsignedEvent) -> BoxFuture<'_, SignerResult<Event>> {
        Box::pin(async move {
            if unsigned.pubkey != self.keys.public_key() {
                return Err(SignerError::BadInput(
                    "the event's pubkey is not this identity's".into(),
                ));
            }
            unsigned.sign_with_keys(&self.keys).map_err(crypto_error)
        })
    }

    fn nip04_encrypt(
        &self,
        peer: PublicKey,
        plaintext: String,
    ) -> BoxFuture<'_, SignerResult<String>> {
        Box::pin(async move {
            nip04::encrypt(self.keys.secret_key(), &peer, plaintext).map_err(crypto_error)
        })
    }

    fn nip04_decrypt(
        &self,
        peer: PublicKey,
        ciphertext: String,
    ) -> BoxFuture<'_, SignerResult<String>> {
        Box::pin(async move {
            nip04::decrypt(self.keys.secret_key(), &peer, ciphertext).map_err(crypto_error)
        })
    }

    fn nip44_encrypt(
        &self,
        peer: PublicKey,
        plaintext: String,
    ) -> BoxFuture<'_, SignerResult<String>> {
        Box::pin(async move {
            nip44::encrypt(self.keys.secret_key(), &peer, plaintext, nip44::Version::V2)
                .map_err(crypto_error)
        })
    }

    fn nip44_decrypt(
        &self,
        peer: PublicKey,
        ciphertext: String,
    ) -> BoxFuture<'_, SignerResult<String>> {
        Box::pin(async move {
            nip44::decrypt(self.keys.secret_key(), &peer, ciphertext).map_err(crypto_error)
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use nostr::ToBech32;

    // NIP-19's published vector.
    const NSEC: &str = "nsec1vl029mgpspedva04g90vltkh6fvh240zqtv9k0t9af8935ke9laqsnlfe5";
    const HEX: &str = "67dea2ed018072d675f5415ecfaed7d2597555e202d85b3d65ea4e58d2d92ffa";
    const NPUB: &str = "npub10elfcs4fr0l0r8af98jlmgdh9c8tcxjvz9qkw038js35mp4dma8qzvjptg";
    const PUB_HEX: &str = "7e7e9c42a91bfef19fa929e5fda1b72e0ebc1a4c1141673e2794234d86addf4e";

    #[test]
    fn nip19_vector_nsec_and_hex_give_the_published_npub() {
        let a = KeySigner::from_nsec(NSEC).unwrap();
        let b = KeySigner::from_hex(HEX).unwrap();
        assert_eq!(a.public_key().to_bech32().unwrap(), NPUB);
        assert_eq!(a.public_key().to_hex(), PUB_HEX);
        assert_eq!(a.public_key(), b.public_key());
    }

    #[test]
    fn bad_keys_say_what_is_wrong() {
        let err = |r: IdentityResult<KeySigner>| match r {
            Err(IdentityError::Malformed(why)) => why,
            other => panic!("expected a malformed key, got {:?}", other.err()),
        };
        assert!(err(KeySigner::from_nsec("npub1xyz")).contains("nsec1"));
        assert!(err(KeySigner::from_nsec(&NSEC.replace('q', "p"))).contains("not a valid nsec"));
        assert!(err(KeySigner::from_hex("abcd")).contains("64 hex"));
    }

    #[tokio::test]
    async fn signed_events_verify() {
        let signer = KeySigner::from_nsec(NSEC).unwrap();
        let unsigned = nostr::EventBuilder::text_note("hello").build(signer.public_key());
        let event = signer.sign_event(unsigned).await.unwrap();
        assert!(event.verify().is_ok());
        assert_eq!(event.pubkey, signer.public_key());
        let other = Keys::generate();
        let foreign = nostr::EventBuilder::text_note("x").build(other.public_key());
        assert!(matches!(
            signer.sign_event(foreign).await,
            Err(SignerError::BadInput(_))
        ));
    }

    #[tokio::test]
    async fn encryption_round_trips_with_the_peer() {
        let me = KeySigner::from_nsec(NSEC).unwrap();
        let peer = KeySigner::new(Keys::generate(), Method::Local);
        for nip44 in [false, true] {
            let secret = "meet at noon".to_string();
            let sealed = if nip44 {
                me.nip44_encrypt(peer.public_key(), secret.clone())
                    .await
                    .unwrap()
            } else {
                me.nip04_encrypt(peer.public_key(), secret.clone())
                    .await
                    .unwrap()
            };
            assert_ne!(sealed, secret);
            let opened = if nip44 {
                peer.nip44_decrypt(me.public_key(), sealed).await.unwrap()
            } else {
                peer.nip04_decrypt(me.public_key(), sealed).await.unwrap()
            };
            assert_eq!(opened, secret);
        }
        assert!(me
            .nip44_decrypt(peer.public_key(), "garbage".into())
            .await
            .is_err());
    }
}
