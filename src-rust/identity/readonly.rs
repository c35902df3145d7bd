//! `readonly`: a public key only; browsing works, signing and decrypting
//! never do.

use super::{IdentityError, IdentityResult, Method, Signer, SignerError, SignerResult};
use futures_util::future::BoxFuture;
use nostr::{Event, FromBech32, PublicKey, UnsignedEvent};

pub struct ReadonlySigner {
    public_key: PublicKey,
}

impl ReadonlySigner {
    pub fn from_npub(npub: &str) -> IdentityResult<Self> {
        let npub = npub.trim();
        if !npub.starts_with("npub1") {
            return Err(IdentityError::Malformed("must start with npub1".into()));
        }
        let public_key = PublicKey::from_bech32(npub)
            .map_err(|e| IdentityError::Malformed(format!("not a valid npub ({e})")))?;
        Ok(ReadonlySigner { public_key })
    }

    pub fn from_hex(hex: &str) -> IdentityResult<Self> {
        let hex = super::hex64(hex)?;
        let public_key = PublicKey::from_hex(hex)
            .map_err(|e| IdentityError::Malformed(format!("not a valid public key ({e})")))?;
        Ok(ReadonlySigner { public_key })
    }
}

fn read_only<T: Send + 'static>() -> BoxFuture<'static, SignerResult<T>> {
    Box::pin(async {
        Err(SignerError::Unavailable(
            "this identity is read-only (logged in with a public key); log in with a signing method to sign or decrypt".into(),
        ))
    })
}

impl Signer for ReadonlySigner {
    fn method(&self) -> Method {
        Method::Readonly
    }

    fn public_key(&self) -> PublicKey {
        self.public_key
    }

    fn sign_event(&self, _: UnsignedEvent) -> BoxFuture<'_, SignerResult<Event>> {
        read_only()
    }

    fn nip04_encrypt(&self, _: PublicKey, _: String) -> BoxFuture<'_, SignerResult<String>> {
        read_only()
    }

    fn nip04_decrypt(&self, _: PublicKey, _: String) -> BoxFuture<'_, SignerResult<String>> {
        read_only()
    }

    fn nip44_encrypt(&self, _: PublicKey, _: String) -> BoxFuture<'_, SignerResult<String>> {
        read_only()
    }

    fn nip44_decrypt(&self, _: PublicKey, _: String) -> BoxFuture<'_, SignerResult<String>> {
        read_only()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn readonly_refuses_to_sign_or_decrypt() {
        let s = ReadonlySigner::from_npub(
            "npub10elfcs4fr0l0r8af98jlmgdh9c8tcxjvz9qkw038js35mp4dma8qzvjptg",
        )
        .unwrap();
        let unsigned = nostr::EventBuilder::text_note("x").build(s.public_key());
        let err = s.sign_event(unsigned).await.unwrap_err();
        assert!(matches!(err, SignerError::Unavailable(_)));
        assert!(err.to_string().contains("read-only"));
        assert!(s.nip44_decrypt(s.public_key(), "x".into()).await.is_err());
        assert!(ReadonlySigner::from_npub("nsec1abc").is_err());
        assert!(ReadonlySigner::from_hex("12").is_err());
    }
}
