//! A NIP-46 bunker for tests and trying things out: a relay on 127.0.0.1
//! and a remote signer on it.
//!
//! Default: rust-nostr's own remote signer (NostrConnectRemoteSigner),
//! approving everything. `--auth-url`: a small bunker built on rust-nostr's
//! NIP-46 message types that first answers `get_public_key` with an
//! `auth_url` challenge and answers for real once that URL is opened.
//! `--claim <pubkey>` (test only): that small bunker reports `<pubkey>` as
//! the user's key while it signs with the key it holds, as a fake bunker
//! claiming someone else's key would (to test that hosts refuse it).
//!
//! Prints `test-bunker: relay <ws url>`, `test-bunker: user <pubkey hex>`,
//! `test-bunker: url <bunker://...>` and, with --auth-url,
//! `test-bunker: approve <http url>`; then serves until killed.

use nostr::nips::nip44;
use nostr::nips::nip46::{
    NostrConnectMessage, NostrConnectRequest, NostrConnectResponse, ResponseResult,
};
use nostr::prelude::*;
use nostr_connect::prelude::{
    NostrConnectKeys, NostrConnectRemoteSigner, NostrConnectSignerActions,
};
use nostr_relay_builder::prelude::{LocalRelay, RateLimit, RelayBuilder};
use nostr_relay_pool::prelude::{RelayOptions, RelayPool, RelayPoolNotification, SubscribeOptions};
use std::io::Write;
use std::sync::Arc;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::sync::Notify;

#[path = "../tests/signer_listening/mod.rs"]
mod signer_listening;
use signer_listening::SignerListening;

const SECRET: &str = "test-bunker-secret";

struct ApproveAll;

impl NostrConnectSignerActions for ApproveAll {
    fn approve(&self, _: &PublicKey, _: &NostrConnectRequest) -> bool {
        true
    }
}

fn say(line: String) {
    println!("test-bunker: {line}");
    let _ = std::io::stdout().flush();
}

#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let auth_mode = std::env::args().any(|a| a == "--auth-url");
    let user = match std::env::args().skip_while(|a| a != "--user").nth(1) {
        Some(secret) => Keys::parse(&secret)?,
        None => Keys::generate(),
    };
    let bunker = Keys::generate();
    // The bunker's URL is printed once the bunker listens on the relay.
    let listening = SignerListening::new(bunker.public_key());
    let relay = LocalRelay::new(
        RelayBuilder::default()
            .addr("127.0.0.1".parse()?)
            .rate_limit(RateLimit {
                max_reqs: 500,
                notes_per_minute: 100_000,
            })
            .query_policy(listening.clone()),
    );
    relay.run().await?;
    let relay_url = relay.url().await;
    say(format!("relay {relay_url}"));
    say(format!("user {}", user.public_key().to_hex()));
    let claim = match std::env::args().skip_while(|a| a != "--claim").nth(1) {
        Some(key) => Some(PublicKey::parse(&key)?),
        None => None,
    };
    if auth_mode || claim.is_some() {
        let reported = claim.unwrap_or_else(|| user.public_key());
        serve_by_hand(bunker, user, reported, auth_mode, (relay_url, listening)).await
    } else {
        let keys = NostrConnectKeys {
            signer: bunker,
            user,
        };
        let signer =
            NostrConnectRemoteSigner::new(keys, [relay_url], Some(SECRET.to_string()), None)?;
        let url = signer.bunker_uri();
        let serving = tokio::spawn(async move { signer.serve(ApproveAll).await });
        listening.heard().await;
        say(format!("url {url}"));
        serving.await??;
        Ok(())
    }
}

/// The small bunker (see the module comment): reports `reported` as the
/// user's key, signs with `user`, and with `auth_mode` asks for approval
/// first.
async fn serve_by_hand(
    bunker: Keys,
    user: Keys,
    reported: PublicKey,
    auth_mode: bool,
    (relay_url, listening): (RelayUrl, SignerListening),
) -> Result<(), Box<dyn std::error::Error>> {
    let approval = tokio::net::TcpListener::bind("127.0.0.1:0").await?;
    let approve_url = format!("http://{}/approve", approval.local_addr()?);
    let approved = Arc::new(Notify::new());
    tokio::spawn(approval_server(approval, approved.clone()));

    let pool = RelayPool::default();
    pool.add_relay(relay_url.clone(), RelayOptions::default())
        .await?;
    pool.connect().await;
    let mut notifications = pool.notifications();
    let filter = Filter::new()
        .kind(Kind::NostrConnect)
        .pubkey(bunker.public_key())
        .limit(0);
    pool.subscribe(filter, SubscribeOptions::default()).await?;
    listening.heard().await;
    say(format!(
        "url bunker://{}?relay={}&secret={SECRET}",
        bunker.public_key().to_hex(),
        relay_url
    ));
    if auth_mode {
        say(format!("approve {approve_url}"));
    }

    let mut is_approved = !auth_mode;
    while let Ok(notification) = notifications.recv().await {
        let RelayPoolNotification::Event { event, .. } = notification else {
            continue;
        };
        let Ok(text) = nip44::decrypt(bunker.secret_key(), &event.pubkey, &event.content) else {
            continue;
        };
        let Ok(message) = NostrConnectMessage::from_json(text) else {
            continue;
        };
        let id = message.id().to_string();
        let Ok(request) = message.to_request() else {
            continue;
        };
        let answer = match request {
            NostrConnectRequest::Connect { .. } => {
                NostrConnectResponse::with_result(ResponseResult::Ack)
            }
            NostrConnectRequest::GetPublicKey => {
                if !is_approved {
                    // The challenge: result "auth_url", the URL in "error".
                    let challenge = NostrConnectMessage::Response {
                        id: id.clone(),
                        result: Some("auth_url".into()),
                        error: Some(approve_url.clone()),
                    };
                    send(&pool, &bunker, &event.pubkey, &challenge).await?;
                    approved.notified().await;
                    is_approved = true;
                }
                NostrConnectResponse::with_result(ResponseResult::GetPublicKey(reported))
            }
            NostrConnectRequest::SignEvent(mut unsigned) => {
                // Signed with the key it holds, whichever key it reports.
                unsigned.pubkey = user.public_key();
                unsigned.id = None;
                match unsigned.sign_with_keys(&user) {
                    Ok(signed) => NostrConnectResponse::with_result(ResponseResult::SignEvent(
                        Box::new(signed),
                    )),
                    Err(e) => NostrConnectResponse::with_error(e.to_string()),
                }
            }
            _ => NostrConnectResponse::with_error("not supported by the test bunker"),
        };
        send(
            &pool,
            &bunker,
            &event.pubkey,
            &NostrConnectMessage::response(id, answer),
        )
        .await?;
    }
    Ok(())
}

async fn send(
    pool: &RelayPool,
    bunker: &Keys,
    to: &PublicKey,
    message: &NostrConnectMessage,
) -> Result<(), Box<dyn std::error::Error>> {
    let content = nip44::encrypt(
        bunker.secret_key(),
        to,
        message.as_json(),
        nip44::Version::V2,
    )?;
    let event = EventBuilder::new(Kind::NostrConnect, content)
        .tag(Tag::public_key(*to))
        .sign_with_keys(bunker)?;
    pool.send_event(&event).await?;
    Ok(())
}

/// Any request to the approval address approves (as a person clicking would).
async fn approval_server(listener: tokio::net::TcpListener, approved: Arc<Notify>) {
    while let Ok((mut stream, _)) = listener.accept().await {
        let mut buf = [0u8; 1024];
        let _ = stream.read(&mut buf).await;
        approved.notify_one();
        let body = "approved";
        let reply = format!(
            "HTTP/1.1 200 OK\r\ncontent-length: {}\r\nconnection: close\r\n\r\n{body}",
            body.len()
        );
        let _ = stream.write_all(reply.as_bytes()).await;
    }
}
