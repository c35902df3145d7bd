//! The login check: a remote signer (an nsigner device, a NIP-46 bunker)
//! only *reports* a public key. Before that key becomes the browser's
//! identity, the signer must sign a fresh event the browser made, and the
//! signature must be by that key over exactly that event. The event is
//! never published: its kind is one no relay keeps (ephemeral) and no app
//! reads, its content says what it is, and it carries random bytes, so an
//! answer from another login cannot be replayed.

use super::signer::{SignerError, SignerResult};
use nostr::{Event, EventBuilder, EventId, Kind, PublicKey, Timestamp, UnsignedEvent};
use std::future::Future;

/// The kind of a login check (in the ephemeral range; no NIP uses it).
pub const KIND: u16 = 27492;

/// How a login check's content begins; the random part follows.
pub const PREFIX: &str = "Sovereign Browser login check";

/// Whether an event to sign is a login check (for devices that show it as
/// such, and for the emulator).
pub fn is_login_check(kind: u16, content: &str) -> bool {
    kind == KIND && content.starts_with(PREFIX)
}

/// A fresh login check for `claimed`: now, with 32 random bytes.
pub fn challenge(claimed: PublicKey) -> UnsignedEvent {
    let content = format!(
        "{PREFIX}: proves that this signer holds the key it reports. Never published. {}",
        crate::profile::random_hex(32)
    );
    EventBuilder::new(Kind::Custom(KIND), content)
        .custom_created_at(Timestamp::now())
        .build(claimed)
}

/// Has `sign` sign a fresh login check for `claimed` (returning what the
/// signer sent, unchecked), and checks the answer: the id of the event
/// asked for, by `claimed`, with a signature that verifies. A refusal or a wrong answer is `Rejected`; a signer that
/// does not answer is `Unavailable`.
pub async fn prove<F>(claimed: PublicKey, sign: impl FnOnce(UnsignedEvent) -> F) -> SignerResult<()>
where
    F: Future<Output = SignerResult<Event>>,
{
    let asked = challenge(claimed);
    let expected = EventId::new(
        &claimed,
        &asked.created_at,
        &asked.kind,
        &asked.tags,
        &asked.content,
    );
    let signed = sign(asked).await.map_err(|e| match e {
        SignerError::Rejected(why) => SignerError::Rejected(format!(
            "the signer refused the login check ({why}); nothing was logged in"
        )),
        SignerError::Unavailable(why) | SignerError::BadInput(why) => SignerError::Unavailable(
            format!("the signer did not answer the login check ({why}); nothing was logged in"),
        ),
    })?;
    check(&signed, claimed, expected)
}

/// The answer to a login check: by `claimed`, the event asked for, verified.
fn check(signed: &Event, claimed: PublicKey, expected: EventId) -> SignerResult<()> {
    if signed.pubkey != claimed || signed.id != expected || signed.verify().is_err() {
        return Err(SignerError::Rejected(NOT_PROVEN.into()));
    }
    Ok(())
}

const NOT_PROVEN: &str = "the signer does not prove that it holds the key it reports: its signature of the login check is not by that key over that event; nothing was logged in";

#[cfg(test)]
mod tests {
    use super::*;
    use nostr::Keys;

    #[tokio::test]
    async fn only_the_claimed_key_over_the_fresh_event_proves() {
        let person = Keys::generate();
        let other = Keys::generate();
        // The key's holder signs: proven.
        let holder = person.clone();
        prove(person.public_key(), |asked| async move {
            Ok(asked.sign_with_keys(&holder).unwrap())
        })
        .await
        .expect("the holder proves it");

        // Another key signs the same words: refused.
        let refused = prove(person.public_key(), |asked| async move {
            let again = EventBuilder::new(asked.kind, asked.content)
                .custom_created_at(asked.created_at)
                .sign_with_keys(&other)
                .unwrap();
            Ok(again)
        })
        .await;
        assert!(
            matches!(refused, Err(SignerError::Rejected(ref why)) if why.contains("does not prove")),
            "{refused:?}"
        );

        // The holder's signature of an older check (a replay): refused.
        let old = challenge(person.public_key())
            .sign_with_keys(&person)
            .unwrap();
        let replayed = prove(person.public_key(), |_| async move { Ok(old) }).await;
        assert!(matches!(replayed, Err(SignerError::Rejected(_))));

        // A refusal and silence say so, and what they are.
        let declined = prove(person.public_key(), |_| async {
            Err(SignerError::Rejected("refused on the device: no".into()))
        })
        .await;
        assert!(
            matches!(declined, Err(SignerError::Rejected(ref why)) if why.contains("refused the login check (refused on the device: no)")),
            "{declined:?}"
        );
        let silent = prove(person.public_key(), |_| async {
            Err(SignerError::Unavailable("no answer".into()))
        })
        .await;
        assert!(matches!(silent, Err(SignerError::Unavailable(_))));
    }

    #[test]
    fn a_check_is_fresh_and_says_what_it_is() {
        let key = Keys::generate().public_key();
        let (a, b) = (challenge(key), challenge(key));
        assert_ne!(a.content, b.content, "random bytes in each");
        assert!(is_login_check(a.kind.as_u16(), &a.content));
        assert!(!is_login_check(1, &a.content));
        assert!(a.content.contains("Never published"));
        let now = Timestamp::now().as_secs();
        assert!(a.created_at.as_secs().abs_diff(now) <= 5);
        assert!(a.tags.is_empty());
    }
}
