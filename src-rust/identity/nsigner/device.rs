//! An emulated nsigner device: holds keys and answers the line protocol the
//! way a hardware signer would, including refusing, being locked, or (to
//! test hosts) returning a bad signature or claiming a key it does not
//! hold. Used by `nsigner-emulator`.
//!
//! The emulated person confirms the host's login check (a `sign_event` of
//! the login check kind, see `identity::login_check`) unless told to
//! refuse it; `reject` and `bad_signature` concern the requests after it.

use super::protocol::{method, DeviceErrorCode, Request, Response};
use nostr::nips::{nip04, nip44};
use nostr::{EventBuilder, Keys, Kind, PublicKey, Tag, Timestamp, UnsignedEvent};
use serde_json::{json, Value};

/// How the emulated person and device behave.
#[derive(Debug, Clone, Copy, Default)]
pub struct Behaviour {
    /// The person refuses every signature, encryption and decryption
    /// after the login check.
    pub reject: bool,
    /// The person refuses the login check.
    pub reject_login: bool,
    /// The device is locked: only `info` works.
    pub locked: bool,
    /// Signed events after the login check come back with a corrupted
    /// signature.
    pub bad_signature: bool,
    /// Test only: the device reports this public key as its key at index 0
    /// while it signs with the key it holds there, as a fake device that
    /// claims someone else's key does.
    pub claim: Option<PublicKey>,
}

/// What a request asks, as the emulator names it: its method, or
/// `login_check` for a `sign_event` of the host's login check.
pub fn request_name(request: &Request) -> &str {
    match request.method == method::SIGN_EVENT && is_login_check(&request.params) {
        true => LOGIN_CHECK,
        false => &request.method,
    }
}

/// The name [`request_name`] gives a login check.
pub const LOGIN_CHECK: &str = "login_check";

fn is_login_check(params: &Value) -> bool {
    let event = &params["event"];
    let kind = event["kind"].as_u64().and_then(|k| u16::try_from(k).ok());
    let content = event["content"].as_str().unwrap_or_default();
    kind.is_some_and(|kind| crate::identity::login_check::is_login_check(kind, content))
}

pub struct Device {
    keys: Vec<Keys>,
    behaviour: Behaviour,
}

impl Device {
    pub fn new(keys: Vec<Keys>, behaviour: Behaviour) -> Self {
        Device { keys, behaviour }
    }

    pub fn public_keys(&self) -> Vec<PublicKey> {
        self.keys.iter().map(Keys::public_key).collect()
    }

    /// The key the device says it has at `index` (the claimed one, when it lies).
    fn reported(&self, index: usize, keys: &Keys) -> PublicKey {
        match self.behaviour.claim {
            Some(claimed) if index == 0 => claimed,
            _ => keys.public_key(),
        }
    }

    /// Answers one request line (or a malformed one).
    pub fn answer_line(&self, line: &str) -> Response {
        match super::protocol::parse_request(line) {
            Ok(request) => self.answer(&request),
            Err(response) => response,
        }
    }

    pub fn answer(&self, request: &Request) -> Response {
        let id = request.id;
        if request.method == method::INFO {
            return Response::ok(
                id,
                json!({"name": "nsigner-emulator", "firmware": env!("CARGO_PKG_VERSION"), "protocol": 1, "keys": self.keys.len()}),
            );
        }
        if self.behaviour.locked {
            return Response::err(id, DeviceErrorCode::Locked, "unlock the device first");
        }
        match self.dispatch(request) {
            Ok(result) => Response::ok(id, result),
            Err((code, message)) => Response::err(id, code, message),
        }
    }

    fn dispatch(&self, request: &Request) -> Result<Value, (DeviceErrorCode, String)> {
        let p = &request.params;
        match request.method.as_str() {
            method::LIST_KEYS => {
                let keys: Vec<Value> = self
                    .keys
                    .iter()
                    .enumerate()
                    .map(|(i, k)| json!({"index": i, "pubkey": self.reported(i, k).to_hex()}))
                    .collect();
                Ok(json!({ "keys": keys }))
            }
            method::GET_PUBLIC_KEY => {
                let (index, keys) = self.key(p)?;
                Ok(json!({"pubkey": self.reported(index, keys).to_hex()}))
            }
            method::SIGN_EVENT => self.sign(p),
            method::NIP04_ENCRYPT
            | method::NIP04_DECRYPT
            | method::NIP44_ENCRYPT
            | method::NIP44_DECRYPT => self.crypt(&request.method, p),
            other => Err((
                DeviceErrorCode::BadRequest,
                format!("unknown method {other}"),
            )),
        }
    }

    fn key(&self, p: &Value) -> Result<(usize, &Keys), (DeviceErrorCode, String)> {
        let index = p.get("index").and_then(Value::as_u64).unwrap_or(0) as usize;
        let keys = self.keys.get(index).ok_or_else(|| {
            (
                DeviceErrorCode::NoSuchKey,
                format!("no key at index {index} ({} keys)", self.keys.len()),
            )
        })?;
        Ok((index, keys))
    }

    fn confirm(&self, what: &str, refused: bool) -> Result<(), (DeviceErrorCode, String)> {
        match refused {
            true => Err((
                DeviceErrorCode::Rejected,
                format!("the person refused to {what}"),
            )),
            false => Ok(()),
        }
    }

    fn sign(&self, p: &Value) -> Result<Value, (DeviceErrorCode, String)> {
        let (index, keys) = self.key(p)?;
        let login_check = is_login_check(p);
        // A device that claims another key signs with its own all the same.
        let reported = self.reported(index, keys);
        let mut unsigned = unsigned_event(&p["event"], reported)?;
        unsigned.pubkey = keys.public_key();
        unsigned.id = None;
        match login_check {
            true => self.confirm("log in", self.behaviour.reject_login)?,
            false => self.confirm("sign", self.behaviour.reject)?,
        }
        let event = unsigned
            .sign_with_keys(keys)
            .map_err(|e| (DeviceErrorCode::Internal, e.to_string()))?;
        let mut event =
            serde_json::to_value(&event).map_err(|e| (DeviceErrorCode::Internal, e.to_string()))?;
        if self.behaviour.bad_signature && !login_check {
            // Flip the first hex digit of the signature.
            if let Some(sig) = event["sig"].as_str() {
                let flipped = format!(
                    "{}{}",
                    if sig.starts_with('0') { '1' } else { '0' },
                    &sig[1..]
                );
                event["sig"] = flipped.into();
            }
        }
        Ok(json!({ "event": event }))
    }

    fn crypt(&self, which: &str, p: &Value) -> Result<Value, (DeviceErrorCode, String)> {
        let (_, keys) = self.key(p)?;
        let bad = |e: String| (DeviceErrorCode::BadRequest, e);
        let peer = p["peer"]
            .as_str()
            .ok_or_else(|| bad("peer is required".into()))?;
        let peer = PublicKey::from_hex(peer).map_err(|e| bad(format!("peer: {e}")))?;
        let text = |field: &str| {
            p[field]
                .as_str()
                .map(str::to_string)
                .ok_or_else(|| bad(format!("{field} is required")))
        };
        self.confirm("use this key", self.behaviour.reject)?;
        let secret = keys.secret_key();
        let out = match which {
            method::NIP04_ENCRYPT => {
                json!({"ciphertext": nip04::encrypt(secret, &peer, text("plaintext")?).map_err(|e| bad(e.to_string()))?})
            }
            method::NIP04_DECRYPT => {
                json!({"plaintext": nip04::decrypt(secret, &peer, text("ciphertext")?).map_err(|e| bad(e.to_string()))?})
            }
            method::NIP44_ENCRYPT => {
                json!({"ciphertext": nip44::encrypt(secret, &peer, text("plaintext")?, nip44::Version::V2).map_err(|e| bad(e.to_string()))?})
            }
            _ => {
                json!({"plaintext": nip44::decrypt(secret, &peer, text("ciphertext")?).map_err(|e| bad(e.to_string()))?})
            }
        };
        Ok(out)
    }
}

/// The event template a host sent, checked against the key it names.
fn unsigned_event(
    event: &Value,
    pubkey: PublicKey,
) -> Result<UnsignedEvent, (DeviceErrorCode, String)> {
    let bad = |e: &str| (DeviceErrorCode::BadRequest, format!("event: {e}"));
    if event["pubkey"].as_str() != Some(pubkey.to_hex().as_str()) {
        return Err(bad("pubkey does not match the key at this index"));
    }
    let kind = event["kind"]
        .as_u64()
        .ok_or_else(|| bad("kind is required"))?;
    let created_at = event["created_at"]
        .as_u64()
        .ok_or_else(|| bad("created_at is required"))?;
    let content = event["content"].as_str().unwrap_or_default();
    let mut tags = Vec::new();
    for tag in event["tags"].as_array().into_iter().flatten() {
        let parts: Vec<String> = tag
            .as_array()
            .ok_or_else(|| bad("each tag is an array of strings"))?
            .iter()
            .map(|s| {
                s.as_str()
                    .map(str::to_string)
                    .ok_or_else(|| bad("each tag is an array of strings"))
            })
            .collect::<Result<_, _>>()?;
        tags.push(Tag::parse(parts).map_err(|e| bad(&e.to_string()))?);
    }
    let kind = u16::try_from(kind).map_err(|_| bad("kind out of range"))?;
    Ok(EventBuilder::new(Kind::from(kind), content)
        .tags(tags)
        .custom_created_at(Timestamp::from(created_at))
        .build(pubkey))
}

#[cfg(test)]
mod tests {
    use super::super::protocol::parse_response;
    use super::*;

    fn template(keys: &Keys) -> Value {
        json!({"pubkey": keys.public_key().to_hex(), "created_at": 1_700_000_000u64, "kind": 1, "tags": [["t", "x"]], "content": "hi"})
    }

    #[test]
    fn signs_lists_and_refuses_as_told() {
        let keys = Keys::generate();
        let device = Device::new(vec![keys.clone()], Behaviour::default());
        let line = Request::new(
            1,
            method::SIGN_EVENT,
            json!({"index": 0, "event": template(&keys)}),
        )
        .to_line();
        let reply = parse_response(&device.answer_line(&line).to_line())
            .unwrap()
            .into_result()
            .unwrap();
        let event: nostr::Event = serde_json::from_value(reply["event"].clone()).unwrap();
        assert!(event.verify().is_ok());
        assert_eq!(event.content, "hi");

        let missing = device.answer(&Request::new(
            2,
            method::GET_PUBLIC_KEY,
            json!({"index": 3}),
        ));
        assert_eq!(missing.error.unwrap().code, DeviceErrorCode::NoSuchKey);

        let refusing = Device::new(
            vec![keys.clone()],
            Behaviour {
                reject: true,
                ..Default::default()
            },
        );
        let r = refusing.answer(&Request::new(
            3,
            method::SIGN_EVENT,
            json!({"index": 0, "event": template(&keys)}),
        ));
        assert_eq!(r.error.unwrap().code, DeviceErrorCode::Rejected);

        let locked = Device::new(
            vec![keys.clone()],
            Behaviour {
                locked: true,
                ..Default::default()
            },
        );
        assert!(locked
            .answer(&Request::new(4, method::INFO, json!({})))
            .error
            .is_none());
        let r = locked.answer(&Request::new(5, method::LIST_KEYS, json!({})));
        assert_eq!(r.error.unwrap().code, DeviceErrorCode::Locked);

        let liar = Device::new(
            vec![keys.clone()],
            Behaviour {
                bad_signature: true,
                ..Default::default()
            },
        );
        let r = liar.answer(&Request::new(
            6,
            method::SIGN_EVENT,
            json!({"index": 0, "event": template(&keys)}),
        ));
        let event: nostr::Event =
            serde_json::from_value(r.into_result().unwrap()["event"].clone()).unwrap();
        assert!(
            event.verify().is_err(),
            "the corrupted signature must not verify"
        );
    }

    fn check_template(claimed: PublicKey) -> Value {
        let asked = crate::identity::login_check::challenge(claimed);
        json!({"pubkey": claimed.to_hex(), "created_at": asked.created_at.as_secs(), "kind": asked.kind.as_u16(), "tags": [], "content": asked.content})
    }

    #[test]
    fn the_login_check_is_its_own_request_and_a_claimed_key_is_never_held() {
        let keys = Keys::generate();
        let sign = |device: &Device, event: Value| {
            device.answer(&Request::new(
                1,
                method::SIGN_EVENT,
                json!({"index": 0, "event": event}),
            ))
        };
        // A person who refuses signatures still confirms the login check.
        let refusing = Device::new(
            vec![keys.clone()],
            Behaviour {
                reject: true,
                bad_signature: true,
                ..Default::default()
            },
        );
        let check = Request::new(
            1,
            method::SIGN_EVENT,
            json!({"index": 0, "event": check_template(keys.public_key())}),
        );
        assert_eq!(request_name(&check), LOGIN_CHECK);
        let signed = sign(&refusing, check_template(keys.public_key()));
        let event: nostr::Event =
            serde_json::from_value(signed.into_result().unwrap()["event"].clone()).unwrap();
        assert!(event.verify().is_ok(), "the login check is signed honestly");
        let note = Request::new(2, method::SIGN_EVENT, json!({"event": template(&keys)}));
        assert_eq!(request_name(&note), method::SIGN_EVENT);
        let declining = Device::new(
            vec![keys.clone()],
            Behaviour {
                reject_login: true,
                ..Default::default()
            },
        );
        let r = sign(&declining, check_template(keys.public_key()));
        assert_eq!(r.error.unwrap().code, DeviceErrorCode::Rejected);

        // A device claiming the person's key reports it, and signs with its own.
        let person = Keys::generate().public_key();
        let liar = Device::new(
            vec![keys.clone()],
            Behaviour {
                claim: Some(person),
                ..Default::default()
            },
        );
        let reported = liar.answer(&Request::new(
            3,
            method::GET_PUBLIC_KEY,
            json!({"index": 0}),
        ));
        assert_eq!(reported.into_result().unwrap()["pubkey"], person.to_hex());
        let signed = sign(&liar, check_template(person));
        let event: nostr::Event =
            serde_json::from_value(signed.into_result().unwrap()["event"].clone()).unwrap();
        assert_eq!(
            event.pubkey,
            keys.public_key(),
            "it cannot sign as the person"
        );
    }
}
