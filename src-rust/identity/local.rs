//! `local`: a private key held in memory (nsec or 64-hex).

use super::{Method, Signer, SignerError};
use futures_util::future::BoxFuture;
use nostr::{Event, FromBech32, Keys, PublicKey, SecretKey, UnsignedEvent};

pub struct LocalSigner {
    keys: Keys,
}

impl LocalSigner {
    /// Parses an `nsec1...` key.
    pub fn from_nsec(nsec: &str) -> Result<Self, String> {
        let nsec = nsec.trim();
        if !nsec.starts_with("nsec1") {
            return Err("must start with nsec1".into());
        }
        let secret = SecretKey::from_bech32(nsec).map_err(|e| format!("not a valid nsec ({e})"))?;
        Ok(LocalSigner {
            keys: Keys::new(secret),
        })
    }

    /// Parses a 64-character hex private key.
    pub fn from_hex(hex: &str) -> Result<Self, String> {
        let hex = super::hex64(hex)?;
        let secret =
            SecretKey::from_hex(hex).map_err(|e| format!("not a valid private key ({e})"))?;
        Ok(LocalSigner {
            keys: Keys::new(secret),
        })
    }
}

impl Signer for LocalSigner {
    fn method(&self) -> Method {
        Method::Local
    }

    fn public_key(&self) -> PublicKey {
        self.keys.public_key()
    }

    fn sign_event(&self, unsigned: UnsignedEvent) -> BoxFuture<'_, Result<Event, SignerError>> {
        Box::pin(async move {
            unsigned
                .sign_with_keys(&self.keys)
                .map_err(|e| SignerError::Rejected(e.to_string()))
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

    #[test]
    fn nsec_and_hex_give_the_published_npub() {
        let a = LocalSigner::from_nsec(NSEC).unwrap();
        let b = LocalSigner::from_hex(HEX).unwrap();
        assert_eq!(a.public_key().to_bech32().unwrap(), NPUB);
        assert_eq!(a.public_key(), b.public_key());
    }

    #[test]
    fn bad_keys_say_what_is_wrong() {
        let err = |r: Result<LocalSigner, String>| r.err().unwrap_or_default();
        assert!(err(LocalSigner::from_nsec("npub1xyz")).contains("nsec1"));
        assert!(LocalSigner::from_nsec(&NSEC.replace('q', "p")).is_err());
        assert!(err(LocalSigner::from_hex("abcd")).contains("64 hex"));
    }

    #[tokio::test]
    async fn signed_events_verify() {
        let signer = LocalSigner::from_nsec(NSEC).unwrap();
        let unsigned = nostr::EventBuilder::text_note("hello").build(signer.public_key());
        let event = signer.sign_event(unsigned).await.unwrap();
        assert!(event.verify().is_ok());
        assert_eq!(event.pubkey, signer.public_key());
    }
}
