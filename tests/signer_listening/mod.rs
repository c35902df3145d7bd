//! A relay that says when a NIP-46 signer listens on it: its query policy
//! admits every subscription and notes the one asking for requests to the
//! signer's key. Shared by tests/nip46.rs and examples/test_bunker.rs, so
//! neither waits a guessed moment for the signer to subscribe.

use nostr_relay_builder::prelude::{
    Alphabet, BoxedFuture, Filter, Kind, PolicyResult, PublicKey, QueryPolicy, SingleLetterTag,
};
use std::net::SocketAddr;
use std::sync::Arc;
use tokio::sync::Notify;

#[derive(Debug, Clone)]
pub struct SignerListening {
    signer: PublicKey,
    heard: Arc<Notify>,
}

impl SignerListening {
    /// Watches for a subscription to NIP-46 requests sent to `signer`.
    pub fn new(signer: PublicKey) -> SignerListening {
        SignerListening {
            signer,
            heard: Arc::new(Notify::new()),
        }
    }

    /// Returns once the signer's subscription reached the relay (at once
    /// when it did before the call). The relay saves the subscription
    /// right after it admits it, before it reads the signer's next message.
    pub async fn heard(&self) {
        self.heard.notified().await
    }

    fn is_the_signers(&self, query: &Filter) -> bool {
        let requests = query
            .kinds
            .as_ref()
            .is_some_and(|kinds| kinds.contains(&Kind::NostrConnect));
        let to_signer = query
            .generic_tags
            .get(&SingleLetterTag::lowercase(Alphabet::P))
            .is_some_and(|keys| keys.contains(&self.signer.to_hex()));
        requests && to_signer
    }
}

impl QueryPolicy for SignerListening {
    fn admit_query<'a>(
        &'a self,
        query: &'a Filter,
        _: &'a SocketAddr,
    ) -> BoxedFuture<'a, PolicyResult> {
        Box::pin(async move {
            if self.is_the_signers(query) {
                // A permit is kept when nobody waits yet.
                self.heard.notify_one();
            }
            PolicyResult::Accept
        })
    }
}
