//! `bunker_link`: the NIP-46 conversation with one bunker over its relays.
//!
//! A reply counts only when it is signed by the bunker named in the URL,
//! answers the id of the request it is matched to, and parses as an answer
//! to that request's method. Anything else on the relay (a stranger's
//! events, undecryptable or malformed content, answers to other requests)
//! is skipped: it can neither answer for the bunker nor cut a request short.

use super::auth_challenge::AuthChallenge;
use super::signer::SignerError;
use nostr::nips::nip44;
use nostr::nips::nip46::{
    NostrConnectMessage, NostrConnectMethod, NostrConnectRequest, NostrConnectURI, ResponseResult,
};
use nostr::{EventBuilder, Filter, JsonUtil, Keys, Kind, PublicKey, RelayUrl, Tag};
use nostr_relay_pool::{
    RelayOptions, RelayPool, RelayPoolNotification, RelayStatus, SubscribeOptions,
};
use std::time::Duration;
use tokio::sync::broadcast::error::RecvError;
use zeroize::Zeroizing;

pub struct BunkerLink {
    pool: RelayPool,
    /// This session's own key: the bunker encrypts its replies to it.
    keys: Keys,
    bunker: PublicKey,
    relays: String,
    timeout: Duration,
    challenge: AuthChallenge,
}

impl BunkerLink {
    /// Joins the bunker's relays and listens for replies from the bunker only.
    pub async fn open(
        uri: &NostrConnectURI,
        challenge: AuthChallenge,
        timeout: Duration,
    ) -> Result<BunkerLink, SignerError> {
        let Some(bunker) = uri.remote_signer_public_key().copied() else {
            return Err(SignerError::BadInput("not a bunker:// URL".into()));
        };
        let link = BunkerLink {
            pool: RelayPool::default(),
            keys: Keys::generate(),
            bunker,
            relays: relay_list(uri.relays()),
            timeout,
            challenge,
        };
        for url in uri.relays() {
            link.pool
                .add_relay(url, RelayOptions::default())
                .await
                .map_err(|e| link.unreachable(&e.to_string()))?;
        }
        link.pool.connect().await;
        let filter = Filter::new()
            .kind(Kind::NostrConnect)
            .author(bunker)
            .pubkey(link.keys.public_key())
            .limit(0);
        link.pool
            .subscribe(filter, SubscribeOptions::default())
            .await
            .map_err(|e| link.unreachable(&e.to_string()))?;
        Ok(link)
    }

    /// `connect` with the URL's secret: the bunker answers "ack" or echoes it.
    pub async fn connect(&self, secret: Option<Zeroizing<String>>) -> Result<(), SignerError> {
        // The secret moves (no copy) into the request, which wipes it when dropped.
        let request = ConnectRequest(NostrConnectRequest::Connect {
            remote_signer_public_key: self.bunker,
            secret: secret.map(|mut s| std::mem::take(&mut *s)),
        });
        let answer = Zeroizing::new(self.exchange(&request.0).await?);
        let echoed = request.secret().is_some_and(|s| *s == *answer);
        if answer.as_str() == "ack" || echoed {
            Ok(())
        } else {
            Err(SignerError::Rejected(
                "the bunker did not accept the connection".into(),
            ))
        }
    }

    /// One request; the answer parsed as an answer to its method.
    pub async fn request(
        &self,
        request: NostrConnectRequest,
    ) -> Result<ResponseResult, SignerError> {
        let method = request.method();
        let answer = self.exchange(&request).await?;
        match ResponseResult::parse(method, answer) {
            Ok(ResponseResult::Error) => Err(SignerError::Rejected("the bunker refused".into())),
            Ok(result) => Ok(result),
            Err(e) => Err(SignerError::Rejected(format!(
                "the bunker's answer to {method} is not one: {e}"
            ))),
        }
    }

    /// Whether at least one relay is connected.
    pub async fn reachable(&self) -> bool {
        self.pool
            .relays()
            .await
            .values()
            .any(|relay| matches!(relay.status(), RelayStatus::Connected))
    }

    /// Sends `request` and waits for the bunker's reply to it (its `result`).
    async fn exchange(&self, request: &NostrConnectRequest) -> Result<String, SignerError> {
        // Unguessable ids: the reply must name the request it answers.
        let id = crate::profile::random_hex(16);
        let mut message = NostrConnectMessage::Request {
            id: id.clone(),
            method: request.method(),
            params: request.params(),
        };
        // What is sent may hold the bunker's secret (connect): the copies
        // made to send it are wiped once it is encrypted.
        let text = Zeroizing::new(message.as_json());
        if let NostrConnectMessage::Request { params, .. } = &mut message {
            params.iter_mut().for_each(zeroize::Zeroize::zeroize);
        }
        let bad = |e: &dyn std::fmt::Display| SignerError::BadInput(e.to_string());
        let content = nip44::encrypt(
            self.keys.secret_key(),
            &self.bunker,
            text.as_bytes(),
            nip44::Version::default(),
        )
        .map_err(|e| bad(&e))?;
        let event = EventBuilder::new(Kind::NostrConnect, content)
            .tag(Tag::public_key(self.bunker))
            .sign_with_keys(&self.keys)
            .map_err(|e| bad(&e))?;
        let mut replies = self.pool.notifications();
        let sent = self
            .pool
            .send_event(&event)
            .await
            .map_err(|e| self.unreachable(&e.to_string()))?;
        if sent.success.is_empty() {
            return Err(self.unreachable("no relay took the request"));
        }
        let waited = tokio::time::timeout(self.timeout, async {
            loop {
                let notification = match replies.recv().await {
                    Ok(notification) => notification,
                    // Missed notifications are only ever others' traffic
                    // or duplicates: keep listening.
                    Err(RecvError::Lagged(_)) => continue,
                    Err(RecvError::Closed) => return Err(self.unreachable("the relays closed")),
                };
                let RelayPoolNotification::Event { event, .. } = notification else {
                    continue;
                };
                if let Some(reply) = self.reply_to(&id, request.method(), &event) {
                    return reply;
                }
            }
        })
        .await;
        waited.unwrap_or_else(|_| {
            Err(SignerError::Unavailable(format!(
                "the bunker did not answer in time (relays: {})",
                self.relays
            )))
        })
    }

    /// The reply `event` carries for request `id`, or None when it is not
    /// the bunker's reply to that request.
    fn reply_to(
        &self,
        id: &str,
        method: NostrConnectMethod,
        event: &nostr::Event,
    ) -> Option<Result<String, SignerError>> {
        if event.kind != Kind::NostrConnect || event.pubkey != self.bunker {
            return None;
        }
        if event.verify().is_err() {
            tracing::warn!("skipped a NIP-46 reply whose signature does not verify");
            return None;
        }
        let text = Zeroizing::new(
            nip44::decrypt(self.keys.secret_key(), &event.pubkey, &event.content).ok()?,
        );
        let NostrConnectMessage::Response {
            id: answered,
            result,
            error,
        } = NostrConnectMessage::from_json(text.as_str()).ok()?
        else {
            return None;
        };
        if answered != id {
            return None;
        }
        if result.as_deref() == Some("auth_url") {
            match error.as_deref().map(nostr::Url::parse) {
                Some(Ok(url)) => self.challenge.ask(url.to_string()),
                _ => tracing::warn!("the bunker sent an auth_url challenge without a valid URL"),
            }
            return None;
        }
        if let Some(why) = error.filter(|e| !e.is_empty()) {
            return Some(Err(SignerError::Rejected(format!(
                "the bunker refused {method}: {why}"
            ))));
        }
        Some(result.ok_or_else(|| {
            SignerError::Rejected(format!("the bunker answered {method} with nothing"))
        }))
    }

    fn unreachable(&self, why: &str) -> SignerError {
        SignerError::Unavailable(format!(
            "cannot reach the bunker through {}: {why}",
            self.relays
        ))
    }
}

/// A `connect` request, whose copy of the secret is wiped when it is dropped
/// (also when the login is cancelled while it waits).
struct ConnectRequest(NostrConnectRequest);

impl ConnectRequest {
    fn secret(&self) -> Option<&String> {
        match &self.0 {
            NostrConnectRequest::Connect { secret, .. } => secret.as_ref(),
            _ => None,
        }
    }
}

impl Drop for ConnectRequest {
    fn drop(&mut self) {
        if let NostrConnectRequest::Connect {
            secret: Some(secret),
            ..
        } = &mut self.0
        {
            zeroize::Zeroize::zeroize(secret);
        }
    }
}

impl Drop for BunkerLink {
    /// Logging out, switching or a cancelled login closes the relay connections.
    fn drop(&mut self) {
        if let Ok(runtime) = tokio::runtime::Handle::try_current() {
            let pool = self.pool.clone();
            runtime.spawn(async move { pool.shutdown().await });
        }
    }
}

fn relay_list(relays: &[RelayUrl]) -> String {
    relays
        .iter()
        .map(|r| r.to_string())
        .collect::<Vec<_>>()
        .join(", ")
}
