//! `nip46`: a remote signer (a "bunker") reached through Nostr relays,
//! with rust-nostr's NIP-46 client. An `auth_url` challenge from the bunker
//! is surfaced to the caller while the request keeps waiting for approval.

use super::{Method, Signer, SignerError, SignerResult};
use futures_util::future::BoxFuture;
use nostr::nips::nip46::NostrConnectURI;
use nostr::{Event, Keys, NostrSigner, PublicKey, UnsignedEvent};
use nostr_connect::client::{AuthUrlHandler, NostrConnect};
use std::sync::{Arc, Mutex};
use std::time::Duration;
use tokio::sync::watch;

/// How long one request to the bunker may take (a person may have to approve).
pub const REQUEST_TIMEOUT: Duration = Duration::from_secs(120);

/// How long login waits for a first answer before saying the bunker is unreachable.
pub const LOGIN_TIMEOUT: Duration = Duration::from_secs(20);

/// Parses a `bunker://<pubkey>?relay=...&secret=...` URL.
pub fn parse_bunker_url(url: &str) -> Result<NostrConnectURI, String> {
    let url = url.trim();
    if !url.starts_with("bunker://") {
        return Err("must start with bunker://".into());
    }
    let uri = NostrConnectURI::parse(url).map_err(|e| format!("not a valid bunker URL ({e})"))?;
    if uri.relays().is_empty() {
        return Err("has no relay (add ?relay=wss://...)".into());
    }
    Ok(uri)
}

type AuthResult = Result<(), Box<dyn std::error::Error>>;

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

/// The latest `auth_url` the bunker asked the person to open.
#[derive(Debug, Clone, Default)]
pub struct AuthChallenge {
    url: Arc<Mutex<Option<String>>>,
    notify: Arc<watch::Sender<Option<String>>>,
}

impl AuthChallenge {
    pub fn current(&self) -> Option<String> {
        self.url.lock().unwrap_or_else(|e| e.into_inner()).clone()
    }

    pub fn subscribe(&self) -> watch::Receiver<Option<String>> {
        self.notify.subscribe()
    }

    fn clear(&self) {
        *self.url.lock().unwrap_or_else(|e| e.into_inner()) = None;
    }
}

impl AuthUrlHandler for AuthChallenge {
    fn on_auth_url(&self, auth_url: nostr::Url) -> nostr::util::BoxedFuture<'_, AuthResult> {
        let url = auth_url.to_string();
        tracing::info!(%url, "the bunker asks for approval at its auth_url");
        *self.url.lock().unwrap_or_else(|e| e.into_inner()) = Some(url.clone());
        self.notify.send_replace(Some(url));
        Box::pin(async { Ok(()) })
    }
}

pub struct Nip46Signer {
    /// Taken on drop, to close the relay connections.
    client: Option<NostrConnect>,
    public_key: PublicKey,
    relays: String,
    challenge: AuthChallenge,
}

impl Nip46Signer {
    /// Builds the client (nothing is sent yet); `timeout` bounds each request.
    pub fn client(
        uri: NostrConnectURI,
        challenge: &AuthChallenge,
        timeout: Duration,
    ) -> Result<NostrConnect, String> {
        let mut client =
            NostrConnect::new(uri, Keys::generate(), timeout, None).map_err(|e| e.to_string())?;
        client.auth_url_handler(challenge.clone());
        Ok(client)
    }

    /// Sends `connect` and learns the user's key with `get_public_key`.
    pub async fn connect(
        client: NostrConnect,
        challenge: AuthChallenge,
    ) -> Result<Nip46Signer, SignerError> {
        let relays = client
            .relays()
            .iter()
            .map(|r| r.to_string())
            .collect::<Vec<_>>()
            .join(", ");
        let public_key = client
            .get_public_key()
            .await
            .map_err(|e| map_error(&relays, &e.to_string()))?;
        challenge.clear();
        Ok(Nip46Signer {
            client: Some(client),
            public_key,
            relays,
            challenge,
        })
    }
}

/// Timeouts and relay trouble mean unavailable; an error answer from the
/// bunker (which rust-nostr may report as a parse failure) means refused.
fn map_error(relays: &str, message: &str) -> SignerError {
    let lower = message.to_ascii_lowercase();
    if lower.contains("timeout") || lower.contains("timed out") {
        return SignerError::Unavailable(format!(
            "the bunker did not answer in time (relays: {relays})"
        ));
    }
    if lower.contains("relay") || lower.contains("connect") || lower.contains("pool") {
        return SignerError::Unavailable(format!(
            "cannot reach the bunker through {relays}: {message}"
        ));
    }
    SignerError::Rejected(format!("the bunker refused: {message}"))
}

impl Nip46Signer {
    fn nip46(&self) -> &NostrConnect {
        self.client
            .as_ref()
            .expect("the client lives until the signer is dropped")
    }
}

#[derive(Clone, Copy)]
enum Crypt {
    Nip04Encrypt,
    Nip04Decrypt,
    Nip44Encrypt,
    Nip44Decrypt,
}

impl Nip46Signer {
    /// One encryption request to the bunker.
    fn crypt(
        &self,
        which: Crypt,
        peer: PublicKey,
        text: String,
    ) -> BoxFuture<'_, SignerResult<String>> {
        Box::pin(async move {
            let client = self.nip46();
            let result = match which {
                Crypt::Nip04Encrypt => client.nip04_encrypt(&peer, &text).await,
                Crypt::Nip04Decrypt => client.nip04_decrypt(&peer, &text).await,
                Crypt::Nip44Encrypt => client.nip44_encrypt(&peer, &text).await,
                Crypt::Nip44Decrypt => client.nip44_decrypt(&peer, &text).await,
            };
            result.map_err(|e| map_error(&self.relays, &e.to_string()))
        })
    }
}

impl Drop for Nip46Signer {
    /// Logging out or switching closes the relay connections.
    fn drop(&mut self) {
        if let (Some(client), Ok(runtime)) =
            (self.client.take(), tokio::runtime::Handle::try_current())
        {
            runtime.spawn(client.shutdown());
        }
    }
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
            let event = self
                .nip46()
                .sign_event(unsigned)
                .await
                .map_err(|e| map_error(&self.relays, &e.to_string()))?;
            // Never trust the remote side blindly.
            if event.pubkey != self.public_key || event.verify().is_err() {
                return Err(SignerError::Rejected(
                    "the bunker returned an invalid signature".into(),
                ));
            }
            Ok(event)
        })
    }

    fn nip04_encrypt(
        &self,
        peer: PublicKey,
        plaintext: String,
    ) -> BoxFuture<'_, SignerResult<String>> {
        self.crypt(Crypt::Nip04Encrypt, peer, plaintext)
    }

    fn nip04_decrypt(
        &self,
        peer: PublicKey,
        ciphertext: String,
    ) -> BoxFuture<'_, SignerResult<String>> {
        self.crypt(Crypt::Nip04Decrypt, peer, ciphertext)
    }

    fn nip44_encrypt(
        &self,
        peer: PublicKey,
        plaintext: String,
    ) -> BoxFuture<'_, SignerResult<String>> {
        self.crypt(Crypt::Nip44Encrypt, peer, plaintext)
    }

    fn nip44_decrypt(
        &self,
        peer: PublicKey,
        ciphertext: String,
    ) -> BoxFuture<'_, SignerResult<String>> {
        self.crypt(Crypt::Nip44Decrypt, peer, ciphertext)
    }

    fn auth_url(&self) -> Option<String> {
        self.challenge.current()
    }

    fn reachable(&self) -> BoxFuture<'_, bool> {
        Box::pin(async move {
            let status = self.nip46().status().await;
            status
                .values()
                .any(|s| matches!(s, nostr_relay_pool::RelayStatus::Connected))
        })
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
        assert!(parse_bunker_url(&format!("bunker://{PK}"))
            .unwrap_err()
            .contains("no relay"));
        assert!(parse_bunker_url("nostrconnect://x")
            .unwrap_err()
            .contains("bunker://"));
        assert!(parse_bunker_url("bunker://nothex?relay=ws://a")
            .unwrap_err()
            .contains("not a valid"));
    }

    #[test]
    fn errors_are_sorted_into_unavailable_and_refused() {
        assert!(
            matches!(map_error("ws://r", "Timeout"), SignerError::Unavailable(m) if m.contains("ws://r"))
        );
        assert!(matches!(
            map_error("ws://r", "user denied"),
            SignerError::Rejected(_)
        ));
    }
}
