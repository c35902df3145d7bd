//! The server proves it holds a secret before a client sends anything
//! made from it, and the client then proves it holds it too, without
//! sending it. Whatever listens on the port once the browser is gone (any
//! local user may bind it) gets nothing it can use: no key, no token, and
//! no answer it could replay.
//!
//! 1. The client picks a nonce and asks `/api/hello?nonce=C&for=panel`
//!    (or `for=agents`). The server answers its run's `instance`, a nonce
//!    `S` of its own, and `server_proof(secret, C, S, instance)`.
//! 2. The client checks that proof with the secret it holds; it stops if
//!    the proof is wrong (not its browser, or a wrong secret) or if the
//!    instance is not the one it first met (the browser restarted).
//! 3. It then connects with `S` and `client_proof(secret, S)`; the server
//!    takes each `S` it gave once, within [`NONCE_LIFE`].
//!
//! The two proofs are HMAC-SHA-256 over messages of different prefixes,
//! so one can never stand for the other.

use nostr::hashes::hmac::{Hmac, HmacEngine};
use nostr::hashes::{sha256, Hash as _, HashEngine as _};
use std::collections::VecDeque;
use std::sync::Mutex;
use std::time::{Duration, Instant};

/// How long a server nonce may be answered.
pub const NONCE_LIFE: Duration = Duration::from_secs(60);
/// Server nonces waiting for their answer; past it the oldest go (a
/// flood of hellos costs a slow client one more round, nothing else).
pub const NONCES_MAX: usize = 256;
/// Longest client nonce taken (hex).
pub const CLIENT_NONCE_MAX: usize = 128;

/// The proof the server gives for its hello.
pub fn server_proof(
    secret: &str,
    client_nonce: &str,
    server_nonce: &str,
    instance: &str,
) -> String {
    hmac_hex(
        secret,
        &format!("sovereign server|{client_nonce}|{server_nonce}|{instance}"),
    )
}

/// The proof a client gives when it connects.
pub fn client_proof(secret: &str, server_nonce: &str) -> String {
    hmac_hex(secret, &format!("sovereign client|{server_nonce}"))
}

fn hmac_hex(secret: &str, message: &str) -> String {
    let mut engine = HmacEngine::<sha256::Hash>::new(secret.as_bytes());
    engine.input(message.as_bytes());
    Hmac::<sha256::Hash>::from_engine(engine).to_string()
}

/// A server's half: its run's instance and the nonces it gave.
pub struct Proofs {
    instance: String,
    given: Mutex<VecDeque<(Instant, String)>>,
}

/// A server's hello.
pub struct Hello {
    pub instance: String,
    pub nonce: String,
    pub proof: String,
}

impl Default for Proofs {
    fn default() -> Self {
        Proofs {
            instance: crate::profile::random_hex(16),
            given: Mutex::new(VecDeque::new()),
        }
    }
}

impl Proofs {
    /// This run's instance: another run of the browser has another.
    pub fn instance(&self) -> &str {
        &self.instance
    }

    /// The hello for `client_nonce` (none when it is not a plain hex
    /// nonce), proving `secret`.
    pub fn hello(&self, client_nonce: &str, secret: &str) -> Option<Hello> {
        let plain = !client_nonce.is_empty()
            && client_nonce.len() <= CLIENT_NONCE_MAX
            && client_nonce.bytes().all(|b| b.is_ascii_hexdigit());
        if !plain {
            return None;
        }
        let nonce = crate::profile::random_hex(16);
        {
            let mut given = lock(&self.given);
            given.retain(|(at, _)| at.elapsed() < NONCE_LIFE);
            if given.len() >= NONCES_MAX {
                given.pop_front();
            }
            given.push_back((Instant::now(), nonce.clone()));
        }
        Some(Hello {
            proof: server_proof(secret, client_nonce, &nonce, &self.instance),
            instance: self.instance.clone(),
            nonce,
        })
    }

    /// Whether `proof` answers nonce `nonce` this server gave, for
    /// `secret`; the nonce is spent either way.
    pub fn check(&self, nonce: &str, proof: &str, secret: &str) -> bool {
        let taken = {
            let mut given = lock(&self.given);
            given.retain(|(at, _)| at.elapsed() < NONCE_LIFE);
            match given.iter().position(|(_, n)| n == nonce) {
                Some(at) => given.remove(at).is_some(),
                None => false,
            }
        };
        taken && crate::base::secret::same(proof, &client_proof(secret, nonce))
    }
}

fn lock<T>(mutex: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    mutex
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hmac_is_rfc_4231s() {
        // RFC 4231, test case 2.
        assert_eq!(
            hmac_hex("Jefe", "what do ya want for nothing?"),
            "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843"
        );
    }

    #[test]
    fn a_client_proof_is_taken_once_for_a_nonce_the_server_gave() {
        let proofs = Proofs::default();
        let hello = proofs.hello("ab12", "key").expect("a hello");
        assert_eq!(hello.instance, proofs.instance());
        assert_eq!(
            hello.proof,
            server_proof("key", "ab12", &hello.nonce, &hello.instance)
        );
        assert!(!proofs.check(&hello.nonce, &client_proof("other", &hello.nonce), "key"));
        // The wrong proof spent the nonce.
        assert!(!proofs.check(&hello.nonce, &client_proof("key", &hello.nonce), "key"));
        let again = proofs.hello("ab12", "key").expect("a hello");
        assert_ne!(again.nonce, hello.nonce);
        assert!(proofs.check(&again.nonce, &client_proof("key", &again.nonce), "key"));
        assert!(
            !proofs.check(&again.nonce, &client_proof("key", &again.nonce), "key"),
            "once"
        );
        assert!(
            !proofs.check("feed", &client_proof("key", "feed"), "key"),
            "a nonce it never gave"
        );
    }

    #[test]
    fn the_servers_proof_never_stands_for_a_clients() {
        let proofs = Proofs::default();
        let hello = proofs.hello("00", "key").expect("a hello");
        assert!(!proofs.check(&hello.nonce, &hello.proof, "key"));
        for nonce in ["", "xyz", &"a".repeat(CLIENT_NONCE_MAX + 1), "a|b"] {
            assert!(proofs.hello(nonce, "key").is_none(), "{nonce:?}");
        }
    }

    #[test]
    fn the_nonces_waiting_are_bounded() {
        let proofs = Proofs::default();
        let first = proofs.hello("01", "key").expect("a hello");
        for _ in 0..NONCES_MAX {
            proofs.hello("02", "key");
        }
        assert_eq!(lock(&proofs.given).len(), NONCES_MAX);
        assert!(!proofs.check(&first.nonce, &client_proof("key", &first.nonce), "key"));
    }
}
