//! NIP-46 against rust-nostr's own remote signer on a real relay on
//! 127.0.0.1: login, signatures that verify, encryption both ways, and a
//! bunker that goes away mid-session; and on a relay where others speak
//! too, only the bunker's own reply to a request answers it.

use nostr::nips::nip46::{
    NostrConnectMessage, NostrConnectRequest, NostrConnectResponse, ResponseResult,
};
use nostr::prelude::*;
use nostr_connect::prelude::{
    NostrConnectKeys, NostrConnectRemoteSigner, NostrConnectSignerActions,
};
use nostr_relay_builder::prelude::{LocalRelay, RateLimit, RelayBuilder};
use nostr_relay_pool::prelude::{RelayOptions, RelayPool, RelayPoolNotification, SubscribeOptions};
use sovereign_browser::identity::login_check;
use sovereign_browser::identity::nip46::{parse_bunker_url, AuthChallenge, Nip46Signer};
use sovereign_browser::identity::{Signer, SignerError};
use std::time::Duration;

mod signer_listening;
use signer_listening::SignerListening;

struct ApproveAll;

impl NostrConnectSignerActions for ApproveAll {
    fn approve(&self, _: &PublicKey, _: &NostrConnectRequest) -> bool {
        true
    }
}

/// A relay on 127.0.0.1 that tells when `signer` listens on it.
async fn relay_for(signer: &Keys) -> (LocalRelay, SignerListening) {
    let listening = SignerListening::new(signer.public_key());
    let relay = LocalRelay::new(
        RelayBuilder::default()
            .addr("127.0.0.1".parse().unwrap())
            .rate_limit(RateLimit {
                max_reqs: 500,
                notes_per_minute: 100_000,
            })
            .query_policy(listening.clone()),
    );
    relay.run().await.unwrap();
    (relay, listening)
}

#[tokio::test]
async fn login_sign_encrypt_and_a_vanishing_bunker() {
    let user = Keys::generate();
    let keys = NostrConnectKeys {
        signer: Keys::generate(),
        user: user.clone(),
    };
    let (relay, listening) = relay_for(&keys.signer).await;
    let bunker =
        NostrConnectRemoteSigner::new(keys, [relay.url().await], Some("s3cret".into()), None)
            .unwrap();
    let url = bunker.bunker_uri().to_string();
    let serving = tokio::spawn(async move { bunker.serve(ApproveAll).await });
    // The remote signer subscribes from "now": it gets there first.
    listening.heard().await;

    let uri = parse_bunker_url(&url).unwrap();
    let challenge = AuthChallenge::default();
    let signer = Nip46Signer::connect(uri, challenge, Duration::from_secs(3))
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
    let keys = NostrConnectKeys {
        signer: Keys::generate(),
        user: Keys::generate(),
    };
    let (relay, listening) = relay_for(&keys.signer).await;
    let bunker =
        NostrConnectRemoteSigner::new(keys, [relay.url().await], Some("right".into()), None)
            .unwrap();
    let url = bunker
        .bunker_uri()
        .to_string()
        .replace("secret=right", "secret=wrong");
    tokio::spawn(async move { bunker.serve(ApproveAll).await });
    listening.heard().await;
    let challenge = AuthChallenge::default();
    assert!(matches!(
        Nip46Signer::connect(
            parse_bunker_url(&url).unwrap(),
            challenge,
            Duration::from_secs(3)
        )
        .await,
        Err(SignerError::Rejected(_))
    ));
}

/// How the hand-written bunker below answers.
#[derive(Clone, Copy, PartialEq)]
enum Bunker {
    /// Before each real answer, a stranger on the relay sends junk and a
    /// forged reply with the request's own id, and the bunker itself
    /// answers a different id first.
    HonestAmongImpostors,
    /// Answers sign_event (after the login check) with a valid signature
    /// over a different event.
    SignsSomethingElse,
    /// Reports another key (the person's) as the user's, and signs with
    /// the user's own.
    ClaimsAnotherKey(PublicKey),
}

/// A bunker with the keys `bunker` on `relay` for `user`; returns its
/// bunker:// URL once it listens there.
async fn hand_written_bunker(
    (relay, listening): (LocalRelay, SignerListening),
    bunker: Keys,
    user: Keys,
    mode: Bunker,
) -> String {
    let impostor = Keys::generate();
    let relay_url = relay.url().await;
    let pool = RelayPool::default();
    pool.add_relay(relay_url.clone(), RelayOptions::default())
        .await
        .unwrap();
    let connected = pool.try_connect(Duration::from_secs(5)).await;
    assert!(
        !connected.success.is_empty(),
        "the bunker reaches its relay"
    );
    let mut requests = pool.notifications();
    let filter = Filter::new()
        .kind(Kind::NostrConnect)
        .pubkey(bunker.public_key())
        .limit(0);
    pool.subscribe(filter, SubscribeOptions::default())
        .await
        .unwrap();
    listening.heard().await;
    let url = format!(
        "bunker://{}?relay={relay_url}&secret=s3cret",
        bunker.public_key().to_hex()
    );
    tokio::spawn(async move {
        // The relay serves as long as the bunker does.
        let _relay = relay;
        while let Ok(notification) = requests.recv().await {
            let RelayPoolNotification::Event { event, .. } = notification else {
                continue;
            };
            let client = event.pubkey;
            let text = nip44::decrypt(bunker.secret_key(), &client, &event.content).unwrap();
            let message = NostrConnectMessage::from_json(text).unwrap();
            let id = message.id().to_string();
            let request = message.to_request().unwrap();
            let honest = match &request {
                NostrConnectRequest::Connect { .. } => ResponseResult::Ack,
                NostrConnectRequest::GetPublicKey => match mode {
                    Bunker::ClaimsAnotherKey(claimed) => ResponseResult::GetPublicKey(claimed),
                    _ => ResponseResult::GetPublicKey(user.public_key()),
                },
                NostrConnectRequest::SignEvent(unsigned) => {
                    let mut unsigned = unsigned.clone();
                    let check = unsigned.kind == Kind::Custom(login_check::KIND);
                    if mode == Bunker::SignsSomethingElse && !check {
                        unsigned.content = "something else".into();
                    }
                    unsigned.pubkey = user.public_key();
                    unsigned.id = None;
                    ResponseResult::SignEvent(Box::new(unsigned.sign_with_keys(&user).unwrap()))
                }
                _ => panic!("not asked in this test"),
            };
            if mode == Bunker::HonestAmongImpostors {
                // Junk a client cannot decrypt, from a stranger.
                let junk = EventBuilder::new(Kind::NostrConnect, "not encrypted at all")
                    .tag(Tag::public_key(client))
                    .sign_with_keys(&impostor)
                    .unwrap();
                pool.send_event(&junk).await.unwrap();
                // A stranger's well-formed reply to this very id.
                let forged = match &request {
                    NostrConnectRequest::GetPublicKey => {
                        ResponseResult::GetPublicKey(impostor.public_key())
                    }
                    NostrConnectRequest::SignEvent(unsigned) => ResponseResult::SignEvent(
                        Box::new(unsigned.clone().sign_with_keys(&impostor).unwrap()),
                    ),
                    _ => ResponseResult::Ack,
                };
                reply(&pool, &impostor, client, &id, forged).await;
                // The bunker's own reply to some other request.
                let other = ResponseResult::GetPublicKey(impostor.public_key());
                reply(&pool, &bunker, client, "another-request", other).await;
            }
            reply(&pool, &bunker, client, &id, honest).await;
        }
    });
    url
}

async fn reply(pool: &RelayPool, from: &Keys, to: PublicKey, id: &str, result: ResponseResult) {
    let message = NostrConnectMessage::response(id, NostrConnectResponse::with_result(result));
    let content = nip44::encrypt(
        from.secret_key(),
        &to,
        message.as_json(),
        nip44::Version::V2,
    )
    .unwrap();
    let event = EventBuilder::new(Kind::NostrConnect, content)
        .tag(Tag::public_key(to))
        .sign_with_keys(from)
        .unwrap();
    pool.send_event(&event).await.unwrap();
}

#[tokio::test]
async fn only_the_bunkers_own_reply_answers_a_request() {
    let bunker = Keys::generate();
    let relay = relay_for(&bunker).await;
    let user = Keys::generate();
    let url = hand_written_bunker(relay, bunker, user.clone(), Bunker::HonestAmongImpostors).await;
    let signer = Nip46Signer::connect(
        parse_bunker_url(&url).unwrap(),
        AuthChallenge::default(),
        Duration::from_secs(5),
    )
    .await
    .expect("junk and forged replies neither answer nor end the login");
    assert_eq!(signer.public_key(), user.public_key());
    let unsigned = EventBuilder::text_note("mine").build(user.public_key());
    let event = signer
        .sign_event(unsigned)
        .await
        .expect("the bunker's signature");
    assert_eq!(event.pubkey, user.public_key());
    assert_eq!(event.content, "mine");
}

#[tokio::test]
async fn a_signature_over_another_event_is_refused() {
    let bunker = Keys::generate();
    let relay = relay_for(&bunker).await;
    let user = Keys::generate();
    let url = hand_written_bunker(relay, bunker, user.clone(), Bunker::SignsSomethingElse).await;
    let signer = Nip46Signer::connect(
        parse_bunker_url(&url).unwrap(),
        AuthChallenge::default(),
        Duration::from_secs(5),
    )
    .await
    .unwrap();
    let unsigned = EventBuilder::text_note("what I asked for").build(user.public_key());
    match signer.sign_event(unsigned).await {
        Err(SignerError::Rejected(why)) => assert!(why.contains("different event"), "{why}"),
        other => panic!("expected a refusal, got {other:?}"),
    }
}

// A bunker reports a key; it logs in only once it signs the login check
// with that key. One claiming the person's key is refused.
#[tokio::test]
async fn a_bunker_must_prove_the_key_it_reports() {
    let person = Keys::generate().public_key();
    let bunker = Keys::generate();
    let relay = relay_for(&bunker).await;
    let claims = Bunker::ClaimsAnotherKey(person);
    let url = hand_written_bunker(relay, bunker, Keys::generate(), claims).await;
    let refused = Nip46Signer::connect(
        parse_bunker_url(&url).unwrap(),
        AuthChallenge::default(),
        Duration::from_secs(5),
    )
    .await;
    match refused {
        Err(SignerError::Rejected(why)) => {
            assert!(
                why.contains("does not prove that it holds the key"),
                "{why}"
            )
        }
        Err(other) => panic!("expected a refusal, got {other:?}"),
        Ok(_) => panic!("a bunker claiming another key logged in"),
    }
}
