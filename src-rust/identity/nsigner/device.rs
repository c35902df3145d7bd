//! An emulated nsigner device: holds keys and answers the line protocol the
//! way a hardware signer would, including refusing, being locked, or (to
//! test hosts) returning a bad signature. Used by `nsigner-emulator`.

use super::protocol::{method, DeviceErrorCode, Request, Response};
use nostr::nips::{nip04, nip44};
use nostr::{EventBuilder, Keys, Kind, PublicKey, Tag, Timestamp, UnsignedEvent};
use serde_json::{json, Value};

/// How the emulated person and device behave.
#[derive(Debug, Clone, Copy, Default)]
pub struct Behaviour {
    /// The person refuses every signature, encryption and decryption.
    pub reject: bool,
    /// The device is locked: only `info` works.
    pub locked: bool,
    /// Signed events come back with a corrupted signature.
    pub bad_signature: bool,
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
                    .map(|(i, k)| json!({"index": i, "pubkey": k.public_key().to_hex()}))
                    .collect();
                Ok(json!({ "keys": keys }))
            }
            method::GET_PUBLIC_KEY => Ok(json!({"pubkey": self.key(p)?.public_key().to_hex()})),
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

    fn key(&self, p: &Value) -> Result<&Keys, (DeviceErrorCode, String)> {
        let index = p.get("index").and_then(Value::as_u64).unwrap_or(0) as usize;
        self.keys.get(index).ok_or_else(|| {
            (
                DeviceErrorCode::NoSuchKey,
                format!("no key at index {index} ({} keys)", self.keys.len()),
            )
        })
    }

    fn confirm(&self, what: &str) -> Result<(), (DeviceErrorCode, String)> {
        match self.behaviour.reject {
            true => Err((
                DeviceErrorCode::Rejected,
                format!("the person refused to {what}"),
            )),
            false => Ok(()),
        }
    }

    fn sign(&self, p: &Value) -> Result<Value, (DeviceErrorCode, String)> {
        let keys = self.key(p)?;
        let unsigned = unsigned_event(&p["event"], keys.public_key())?;
        self.confirm("sign")?;
        let event = unsigned
            .sign_with_keys(keys)
            .map_err(|e| (DeviceErrorCode::Internal, e.to_string()))?;
        let mut event =
            serde_json::to_value(&event).map_err(|e| (DeviceErrorCode::Internal, e.to_string()))?;
        if self.behaviour.bad_signature {
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
        let keys = self.key(p)?;
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
        self.confirm("use this key")?;
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
}
