//! NIP-46 against rust-nostr's own remote signer on a real relay on
//! 127.0.0.1: login, signatures that verify, encryption both ways, and a
//! bunker that goes away mid-session.

use nostr::prelude::*;
use nostr_connect::prelude::{
    NostrConnectKeys, NostrConnectRemoteSigner, NostrConnectSignerActions,
};
use nostr_relay_builder::prelude::{LocalRelay, RateLimit, RelayBuilder};
use sovereign_browser::identity::nip46::{parse_bunker_url, AuthChallenge, Nip46Signer};
use sovereign_browser::identity::{Signer, SignerError};
use std::time::Duration;

struct ApproveAll;

impl NostrConnectSignerActions for ApproveAll {
    fn approve(&self, _: &PublicKey, _: &nostr::nips::nip46::NostrConnectRequest) -> bool {
        true
    }
}

async fn relay() -> LocalRelay {
    let relay = LocalRelay::new(
        RelayBuilder::default()
            .addr("127.0.0.1".parse().unwrap())
            .rate_limit(RateLimit {
                max_reqs: 500,
                notes_per_minute: 100_000,
            }),
    );
    relay.run().await.unwrap();
    relay
}

#[tokio::test]
async fn login_sign_encrypt_and_a_vanishing_bunker() {
    let relay = relay().await;
    let user = Keys::generate();
    let keys = NostrConnectKeys {
        signer: Keys::generate(),
        user: user.clone(),
    };
    let bunker =
        NostrConnectRemoteSigner::new(keys, [relay.url().await], Some("s3cret".into()), None)
            .unwrap();
    let url = bunker.bunker_uri().to_string();
    let serving = tokio::spawn(async move { bunker.serve(ApproveAll).await });
    // The remote signer subscribes from "now": let it get there first.
    tokio::time::sleep(Duration::from_millis(300)).await;

    let uri = parse_bunker_url(&url).unwrap();
    let challenge = AuthChallenge::default();
    let client = Nip46Signer::client(uri, &challenge, Duration::from_secs(3)).unwrap();
    let signer = Nip46Signer::connect(client, challenge)
        .await
        .expect("login through the bunker");
    assert_eq!(signer.public_key(), user.public_key());
    assert!(signer.reachable().await);

    let unsigned = EventBuilder::text_note("signed by the bunker").build(signer.public_key());
    let event = signer.sign_event(unsigned).await.expect("the bunker signs");
    assert!(event.verify().is_ok());
    assert_eq!(event.pubkey, user.public_key());

    let peer = Keys::generate();
    let sealed = signer
        .nip44_encrypt(peer.public_key(), "over nip44".into())
        .await
        .unwrap();
    assert_eq!(
        nip44::decrypt(peer.secret_key(), &user.public_key(), &sealed).unwrap(),
        "over nip44"
    );
    let to_me = nip04::encrypt(peer.secret_key(), &user.public_key(), "over nip04").unwrap();
    assert_eq!(
        signer
            .nip04_decrypt(peer.public_key(), to_me)
            .await
            .unwrap(),
        "over nip04"
    );

    // The bunker goes away mid-session: requests fail as unavailable, in time.
    serving.abort();
    relay.shutdown();
    let started = std::time::Instant::now();
    let unsigned = EventBuilder::text_note("nobody home").build(signer.public_key());
    match signer.sign_event(unsigned).await {
        Err(SignerError::Unavailable(why)) => assert!(why.contains("127.0.0.1"), "{why}"),
        other => panic!("expected SIGNER_UNAVAILABLE, got {other:?}"),
    }
    assert!(started.elapsed() < Duration::from_secs(10));
}

#[tokio::test]
async fn a_wrong_secret_is_refused() {
    let relay = relay().await;
    let keys = NostrConnectKeys {
        signer: Keys::generate(),
        user: Keys::generate(),
    };
    let bunker =
        NostrConnectRemoteSigner::new(keys, [relay.url().await], Some("right".into()), None)
            .unwrap();
    let url = bunker
        .bunker_uri()
        .to_string()
        .replace("secret=right", "secret=wrong");
    tokio::spawn(async move { bunker.serve(ApproveAll).await });
    tokio::time::sleep(Duration::from_millis(300)).await;
    let challenge = AuthChallenge::default();
    let client = Nip46Signer::client(
        parse_bunker_url(&url).unwrap(),
        &challenge,
        Duration::from_secs(3),
    )
    .unwrap();
    assert!(matches!(
        Nip46Signer::connect(client, challenge).await,
        Err(SignerError::Rejected(_))
    ));
}
