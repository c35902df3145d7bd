//! `nip46`: a remote signer (a "bunker") reached through Nostr relays.
//! The relay conversation is `bunker_link`; this is the signer on top of it.
//! An `auth_url` challenge from the bunker is surfaced to the caller while
//! the request keeps waiting for approval.

pub use super::auth_challenge::AuthChallenge;
use super::bunker_link::BunkerLink;
use super::signer::{Method, Signer, SignerError, SignerResult};
use super::{IdentityError, IdentityResult};
use futures_util::future::BoxFuture;
use nostr::nips::nip46::{NostrConnectRequest, NostrConnectURI, ResponseResult};
use nostr::{Event, EventId, PublicKey, UnsignedEvent};
use std::time::Duration;
use zeroize::Zeroizing;

/// How long one request to the bunker may take (a person may have to approve).
pub const REQUEST_TIMEOUT: Duration = Duration::from_secs(120);

/// How long login waits for a first answer before saying the bunker is unreachable.
pub const LOGIN_TIMEOUT: Duration = Duration::from_secs(20);

/// Parses a `bunker://<pubkey>?relay=...&secret=...` URL.
pub fn parse_bunker_url(url: &str) -> IdentityResult<NostrConnectURI> {
    let malformed = |why: String| IdentityError::Malformed(why);
    let url = url.trim();
    if !url.starts_with("bunker://") {
        return Err(malformed("must start with bunker://".into()));
    }
    let uri = NostrConnectURI::parse(url)
        .map_err(|e| malformed(format!("not a valid bunker URL ({e})")))?;
    if uri.relays().is_empty() {
        return Err(malformed("has no relay (add ?relay=wss://...)".into()));
    }
    Ok(uri)
}

/// The bunker URL without its secret (what may be remembered).
pub fn without_secret(uri: &NostrConnectURI) -> String {
    match uri {
        NostrConnectURI::Bunker {
            remote_signer_public_key,
            relays,
            ..
        } => NostrConnectURI::Bunker {
            remote_signer_public_key: *remote_signer_public_key,
            relays: relays.clone(),
            secret: None,
        }
        .to_string(),
        other => other.to_string(),
    }
}

pub struct Nip46Signer {
    link: BunkerLink,
    public_key: PublicKey,
    challenge: AuthChallenge,
}

impl Nip46Signer {
    /// Joins the relays, sends `connect` with the URL's secret, learns the
    /// user's key with `get_public_key` and has the bunker prove it holds
    /// that key (the login check); `timeout` bounds each request.
    pub async fn connect(
        mut uri: NostrConnectURI,
        challenge: AuthChallenge,
        timeout: Duration,
    ) -> Result<Nip46Signer, SignerError> {
        // Moved out of the URI, not copied: it is wiped when dropped.
        let secret = match &mut uri {
            NostrConnectURI::Bunker { secret, .. } => secret.take().map(Zeroizing::new),
            _ => None,
        };
        let link = BunkerLink::open(&uri, challenge.clone(), timeout).await?;
        drop(uri);
        link.connect(secret).await?;
        let public_key = match link.request(NostrConnectRequest::GetPublicKey).await? {
            ResponseResult::GetPublicKey(key) => key,
            other => return Err(unexpected("get_public_key", &other)),
        };
        let signer = Nip46Signer {
            link,
            public_key,
            challenge,
        };
        super::login_check::prove(public_key, |asked| signer.sign_unchecked(asked)).await?;
        signer.challenge.clear();
        Ok(signer)
    }

    /// The event the bunker returns for `unsigned`, not yet checked.
    async fn sign_unchecked(&self, unsigned: UnsignedEvent) -> SignerResult<Event> {
        let answer = self
            .link
            .request(NostrConnectRequest::SignEvent(unsigned))
            .await?;
        match answer {
            ResponseResult::SignEvent(event) => Ok(*event),
            other => Err(unexpected("sign_event", &other)),
        }
    }

    /// One encryption request to the bunker; the answer's text.
    async fn crypt(&self, request: NostrConnectRequest) -> SignerResult<String> {
        let method = request.method().to_string();
        match self.link.request(request).await? {
            ResponseResult::Nip04Encrypt { ciphertext } => Ok(ciphertext),
            ResponseResult::Nip44Encrypt { ciphertext } => Ok(ciphertext),
            ResponseResult::Nip04Decrypt { plaintext } => Ok(plaintext),
            ResponseResult::Nip44Decrypt { plaintext } => Ok(plaintext),
            other => Err(unexpected(&method, &other)),
        }
    }
}

fn unexpected(method: &str, answer: &ResponseResult) -> SignerError {
    let kind = match answer {
        ResponseResult::AuthUrl => "an auth_url",
        ResponseResult::Pong => "a pong",
        ResponseResult::Ack => "an ack",
        _ => "an answer to another method",
    };
    SignerError::Rejected(format!("the bunker answered {method} with {kind}"))
}

/// The id of the event `unsigned` describes, as `pubkey` would sign it.
fn id_of(unsigned: &UnsignedEvent, pubkey: PublicKey) -> EventId {
    EventId::new(
        &pubkey,
        &unsigned.created_at,
        &unsigned.kind,
        &unsigned.tags,
        &unsigned.content,
    )
}

impl Signer for Nip46Signer {
    fn method(&self) -> Method {
        Method::Nip46
    }

    fn public_key(&self) -> PublicKey {
        self.public_key
    }

    fn sign_event(&self, unsigned: UnsignedEvent) -> BoxFuture<'_, SignerResult<Event>> {
        Box::pin(async move {
            let asked = id_of(&unsigned, self.public_key);
            let event = self.sign_unchecked(unsigned).await?;
            // Never trust the remote side blindly: the event asked for,
            // by the user's key, with a signature that verifies.
            if event.pubkey != self.public_key || event.verify().is_err() {
                return Err(SignerError::Rejected(
                    "the bunker returned an invalid signature".into(),
                ));
            }
            if event.id != asked {
                return Err(SignerError::Rejected(
                    "the bunker signed a different event than the one asked for".into(),
                ));
            }
            Ok(event)
        })
    }

    fn nip04_encrypt(&self, peer: PublicKey, text: String) -> BoxFuture<'_, SignerResult<String>> {
        Box::pin(self.crypt(NostrConnectRequest::Nip04Encrypt {
            public_key: peer,
            text,
        }))
    }

    fn nip04_decrypt(
        &self,
        peer: PublicKey,
        ciphertext: String,
    ) -> BoxFuture<'_, SignerResult<String>> {
        Box::pin(self.crypt(NostrConnectRequest::Nip04Decrypt {
            public_key: peer,
            ciphertext,
        }))
    }

    fn nip44_encrypt(&self, peer: PublicKey, text: String) -> BoxFuture<'_, SignerResult<String>> {
        Box::pin(self.crypt(NostrConnectRequest::Nip44Encrypt {
            public_key: peer,
            text,
        }))
    }

    fn nip44_decrypt(
        &self,
        peer: PublicKey,
        ciphertext: String,
    ) -> BoxFuture<'_, SignerResult<String>> {
        Box::pin(self.crypt(NostrConnectRequest::Nip44Decrypt {
            public_key: peer,
            ciphertext,
        }))
    }

    fn auth_url(&self) -> Option<String> {
        self.challenge.current()
    }

    fn reachable(&self) -> BoxFuture<'_, bool> {
        Box::pin(self.link.reachable())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const PK: &str = "7e7e9c42a91bfef19fa929e5fda1b72e0ebc1a4c1141673e2794234d86addf4e";

    #[test]
    fn bunker_urls_are_checked() {
        let ok = parse_bunker_url(&format!(
            "bunker://{PK}?relay=ws://127.0.0.1:7777&secret=abc"
        ))
        .unwrap();
        assert_eq!(ok.relays().len(), 1);
        let why = |url: &str| match parse_bunker_url(url) {
            Err(IdentityError::Malformed(why)) => why,
            other => panic!("{url}: expected malformed, got {other:?}"),
        };
        assert!(why(&format!("bunker://{PK}")).contains("no relay"));
        assert!(why("nostrconnect://x").contains("bunker://"));
        assert!(why("bunker://nothex?relay=ws://a").contains("not a valid"));
    }
}
