//! `nsigner`: a signing device reached over serial, a Unix socket, TCP or
//! Qubes qrexec, speaking our line protocol (docs/nsigner-protocol.md).
//! The host never trusts the device: it logs in only once the device has
//! signed the login check with the key it reports, and every signed event
//! is checked.

pub mod device;
pub mod link;
pub mod protocol;
mod serial_line;
pub mod transport;

use super::{Method, Signer, SignerError, SignerResult};
use futures_util::future::BoxFuture;
use link::LinkError;
use nostr::{Event, PublicKey, UnsignedEvent};
use protocol::{method, DeviceErrorCode};
use serde_json::{json, Value};
use std::time::Duration;
use transport::{Connection, Endpoint};

/// Quick questions (info, keys) and ones a person must confirm on the device.
const QUICK: Duration = Duration::from_secs(10);
const CONFIRM: Duration = Duration::from_secs(120);
/// The login check, which a person may have to confirm on the device
/// (inside the login tool's own 30 s).
const LOGIN_CHECK: Duration = Duration::from_secs(20);
/// The health check (`info`) is sent only after this much silence.
pub const HEALTH_CHECK_AFTER: Duration = Duration::from_secs(10);
const HEALTH_CHECK_LIMIT: Duration = Duration::from_secs(3);

pub struct NsignerSigner {
    link: link::Link,
    /// Keeps the serial port or the qrexec child alive until the identity
    /// ends (logout, switch): then it is released at once.
    guard: std::sync::Mutex<Option<transport::Guard>>,
    endpoint: Endpoint,
    index: u32,
    public_key: PublicKey,
}

/// Why a login to a device failed.
#[derive(Debug)]
pub enum ConnectError {
    /// The serial device is not a serial line that may be opened.
    NotASerialLine(String),
    Unreachable(String),
    NoSuchKey(String),
    Rejected(String),
}

impl NsignerSigner {
    /// Opens the link, checks the protocol, learns the key at `index`, and
    /// has the device prove it holds that key (the login check).
    pub async fn connect(endpoint: Endpoint, index: u32) -> Result<NsignerSigner, ConnectError> {
        let where_ = endpoint.to_string();
        let mut connection = transport::open(&endpoint).await.map_err(|e| match e {
            transport::OpenError::NotASerialLine(why) => ConnectError::NotASerialLine(why),
            transport::OpenError::Failed(e) => {
                ConnectError::Unreachable(format!("cannot reach the signer at {where_}: {e}"))
            }
        })?;
        let info = match connection
            .link
            .request(method::INFO, json!({}), QUICK)
            .await
        {
            Ok(info) => info,
            Err(e) => return Err(unreachable(&mut connection, &where_, e).await),
        };
        // `protocol` is the highest version the device speaks; requests say v1.
        if info["protocol"]
            .as_u64()
            .is_none_or(|v| v < protocol::VERSION)
        {
            return Err(ConnectError::Unreachable(format!(
                "the signer at {where_} speaks protocol {} (this browser speaks {})",
                info["protocol"],
                protocol::VERSION
            )));
        }
        let key = match connection
            .link
            .request(method::GET_PUBLIC_KEY, json!({"index": index}), QUICK)
            .await
        {
            Ok(key) => key,
            Err(LinkError::Device(e)) if e.code == DeviceErrorCode::NoSuchKey => {
                return Err(ConnectError::NoSuchKey(format!(
                    "the signer has no key at index {index} ({})",
                    e.message
                )))
            }
            Err(LinkError::Device(e)) if e.code == DeviceErrorCode::Rejected => {
                return Err(ConnectError::Rejected(e.message))
            }
            Err(e) => return Err(unreachable(&mut connection, &where_, e).await),
        };
        let public_key = key["pubkey"]
            .as_str()
            .and_then(|hex| PublicKey::from_hex(hex).ok())
            .ok_or_else(|| {
                ConnectError::Unreachable(format!(
                    "the signer at {where_} sent an invalid public key"
                ))
            })?;
        let Connection { link, guard } = connection;
        let signer = NsignerSigner {
            link,
            guard: std::sync::Mutex::new(Some(guard)),
            endpoint,
            index,
            public_key,
        };
        let device = &signer;
        let proven = super::login_check::prove(public_key, |asked| async move {
            device.sign_unchecked(&asked, LOGIN_CHECK).await
        });
        if let Err(e) = proven.await {
            // Nothing stays open of a device that did not prove its key.
            signer.end("the login check failed");
            return Err(match e {
                SignerError::Rejected(why) => ConnectError::Rejected(why),
                SignerError::Unavailable(why) | SignerError::BadInput(why) => {
                    ConnectError::Unreachable(why)
                }
            });
        }
        Ok(signer)
    }

    /// Has the device sign `unsigned`, waiting at most `limit`, and checks
    /// what comes back.
    async fn sign(&self, unsigned: UnsignedEvent, limit: Duration) -> SignerResult<Event> {
        let event = self.sign_unchecked(&unsigned, limit).await?;
        self.verify(&unsigned, event)
    }

    /// The event the device returns for `unsigned`, not yet checked.
    async fn sign_unchecked(
        &self,
        unsigned: &UnsignedEvent,
        limit: Duration,
    ) -> SignerResult<Event> {
        let template = json!({
            "pubkey": unsigned.pubkey.to_hex(),
            "created_at": unsigned.created_at.as_secs(),
            "kind": unsigned.kind.as_u16(),
            "tags": unsigned.tags,
            "content": unsigned.content,
        });
        let mut reply = self
            .ask(method::SIGN_EVENT, json!({"event": template}), limit)
            .await?;
        serde_json::from_value(reply["event"].take()).map_err(|_| invalid_signature())
    }

    async fn ask(&self, method: &str, mut params: Value, limit: Duration) -> SignerResult<Value> {
        params["index"] = self.index.into();
        self.link
            .request(method, params, limit)
            .await
            .map_err(|e| self.map_error(e))
    }

    fn map_error(&self, error: LinkError) -> SignerError {
        match error {
            LinkError::Device(e) if e.code == DeviceErrorCode::Rejected => {
                SignerError::Rejected(format!("refused on the device: {}", e.message))
            }
            LinkError::TooLong(_) => SignerError::BadInput(error.to_string()),
            LinkError::Ended(reason) => SignerError::Unavailable(reason),
            other => SignerError::Unavailable(format!("{} ({})", other, self.endpoint)),
        }
    }

    /// Checks a signed event against what was asked: same key, same
    /// content, valid id and signature.
    fn verify(&self, asked: &UnsignedEvent, event: Event) -> SignerResult<Event> {
        let same = event.pubkey == self.public_key
            && event.kind == asked.kind
            && event.content == asked.content
            && event.created_at == asked.created_at
            && event.tags == asked.tags;
        if !same || event.verify().is_err() {
            return Err(invalid_signature());
        }
        Ok(event)
    }
}

fn invalid_signature() -> SignerError {
    SignerError::Rejected("the device returned an invalid signature".into())
}

/// The link failed while logging in: say why, as precisely as we can.
async fn unreachable(connection: &mut Connection, where_: &str, error: LinkError) -> ConnectError {
    let ended = matches!(error, LinkError::Closed | LinkError::Write(_));
    let reason = if ended {
        connection.exit_reason().await
    } else {
        None
    };
    let why = reason.unwrap_or_else(|| error.to_string());
    ConnectError::Unreachable(format!("the signer at {where_} did not answer: {why}"))
}

impl Signer for NsignerSigner {
    fn method(&self) -> Method {
        Method::Nsigner
    }

    fn public_key(&self) -> PublicKey {
        self.public_key
    }

    fn sign_event(&self, unsigned: UnsignedEvent) -> BoxFuture<'_, SignerResult<Event>> {
        Box::pin(self.sign(unsigned, CONFIRM))
    }

    fn nip04_encrypt(
        &self,
        peer: PublicKey,
        plaintext: String,
    ) -> BoxFuture<'_, SignerResult<String>> {
        self.crypt(
            method::NIP04_ENCRYPT,
            peer,
            "plaintext",
            plaintext,
            "ciphertext",
        )
    }

    fn nip04_decrypt(
        &self,
        peer: PublicKey,
        ciphertext: String,
    ) -> BoxFuture<'_, SignerResult<String>> {
        self.crypt(
            method::NIP04_DECRYPT,
            peer,
            "ciphertext",
            ciphertext,
            "plaintext",
        )
    }

    fn nip44_encrypt(
        &self,
        peer: PublicKey,
        plaintext: String,
    ) -> BoxFuture<'_, SignerResult<String>> {
        self.crypt(
            method::NIP44_ENCRYPT,
            peer,
            "plaintext",
            plaintext,
            "ciphertext",
        )
    }

    fn nip44_decrypt(
        &self,
        peer: PublicKey,
        ciphertext: String,
    ) -> BoxFuture<'_, SignerResult<String>> {
        self.crypt(
            method::NIP44_DECRYPT,
            peer,
            "ciphertext",
            ciphertext,
            "plaintext",
        )
    }

    /// Answers from what the device said lately; only after a silence is
    /// `info` sent to ask (docs/nsigner-protocol.md, the health check).
    fn reachable(&self) -> BoxFuture<'_, bool> {
        Box::pin(async move {
            if !self.link.is_alive() {
                return false;
            }
            if self.link.silent_for() < HEALTH_CHECK_AFTER {
                return true;
            }
            self.link
                .request(method::INFO, json!({}), HEALTH_CHECK_LIMIT)
                .await
                .is_ok()
        })
    }

    fn end(&self, reason: &str) {
        self.link.close(reason);
        drop(self.guard.lock().unwrap_or_else(|e| e.into_inner()).take());
    }
}

impl NsignerSigner {
    fn crypt(
        &self,
        method: &'static str,
        peer: PublicKey,
        input: &'static str,
        text: String,
        output: &'static str,
    ) -> BoxFuture<'_, SignerResult<String>> {
        Box::pin(async move {
            let mut params = json!({"peer": peer.to_hex()});
            params[input] = text.into();
            let reply = self.ask(method, params, CONFIRM).await?;
            reply[output]
                .as_str()
                .map(str::to_string)
                .ok_or_else(|| SignerError::Unavailable(format!("the device sent no {output}")))
        })
    }
}
