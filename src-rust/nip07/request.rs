//! A page's `window.nostr` call as the browser received it, read into a
//! typed request. Pure: the page controls every byte of it.

use super::refusal::Refusal;
use nostr::PublicKey;
use serde_json::Value;

/// Longest content or plaintext accepted (about what relays accept).
const MAX_TEXT: usize = 512 * 1024;
/// Most tags an event may carry.
const MAX_TAGS: usize = 2000;

/// What a page may ask for.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Capability {
    /// Read the public key.
    PublicKey,
    /// Sign events of one kind.
    Sign(u16),
    /// Encrypt for a peer (NIP-04 or NIP-44).
    Encrypt,
    /// Decrypt from a peer (NIP-04 or NIP-44).
    Decrypt,
}

impl Capability {
    /// The stable name stored and shown: `public_key`, `sign:1`, `encrypt`, `decrypt`.
    pub fn key(self) -> String {
        match self {
            Capability::PublicKey => "public_key".into(),
            Capability::Sign(kind) => format!("sign:{kind}"),
            Capability::Encrypt => "encrypt".into(),
            Capability::Decrypt => "decrypt".into(),
        }
    }

    pub fn parse(key: &str) -> Option<Capability> {
        match key {
            "public_key" => Some(Capability::PublicKey),
            "encrypt" => Some(Capability::Encrypt),
            "decrypt" => Some(Capability::Decrypt),
            _ => key
                .strip_prefix("sign:")
                .and_then(|kind| kind.parse().ok())
                .map(Capability::Sign),
        }
    }

    /// What a person reads: "sign events of kind 1".
    pub fn describe(self) -> String {
        match self {
            Capability::PublicKey => "read your public key".into(),
            Capability::Sign(kind) => format!("sign events of kind {kind}"),
            Capability::Encrypt => "encrypt messages with your key".into(),
            Capability::Decrypt => "decrypt messages sent to you".into(),
        }
    }

    /// Whether the private key is needed (a read-only login cannot).
    pub fn needs_secret(self) -> bool {
        self != Capability::PublicKey
    }
}

/// The encryption schemes of NIP-04 and NIP-44.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Scheme {
    Nip04,
    Nip44,
}

impl Scheme {
    pub fn as_str(self) -> &'static str {
        match self {
            Scheme::Nip04 => "nip04",
            Scheme::Nip44 => "nip44",
        }
    }
}

/// An event as a page hands it to signEvent (id, pubkey and sig are ours).
#[derive(Debug, Clone, PartialEq)]
pub struct EventTemplate {
    pub kind: u16,
    pub content: String,
    pub tags: Vec<Vec<String>>,
    /// Unix seconds; none: now.
    pub created_at: Option<u64>,
}

/// One call, checked.
#[derive(Debug, Clone, PartialEq)]
pub enum Request {
    GetPublicKey,
    GetRelays,
    SignEvent(EventTemplate),
    Encrypt {
        scheme: Scheme,
        peer: PublicKey,
        plaintext: String,
    },
    Decrypt {
        scheme: Scheme,
        peer: PublicKey,
        ciphertext: String,
    },
}

impl Request {
    /// What a person must allow; none for getRelays, which reveals nothing.
    pub fn capability(&self) -> Option<Capability> {
        match self {
            Request::GetPublicKey => Some(Capability::PublicKey),
            Request::GetRelays => None,
            Request::SignEvent(event) => Some(Capability::Sign(event.kind)),
            Request::Encrypt { .. } => Some(Capability::Encrypt),
            Request::Decrypt { .. } => Some(Capability::Decrypt),
        }
    }

    /// The method's name as the page called it.
    pub fn method(&self) -> &'static str {
        match self {
            Request::GetPublicKey => "getPublicKey",
            Request::GetRelays => "getRelays",
            Request::SignEvent(_) => "signEvent",
            Request::Encrypt {
                scheme: Scheme::Nip04,
                ..
            } => "nip04.encrypt",
            Request::Encrypt { .. } => "nip44.encrypt",
            Request::Decrypt {
                scheme: Scheme::Nip04,
                ..
            } => "nip04.decrypt",
            Request::Decrypt { .. } => "nip44.decrypt",
        }
    }
}

/// Reads `method` with its `params` object; the error says what is wrong,
/// in words a web developer reads in their console.
pub fn parse(method: &str, params: &Value) -> Result<Request, Refusal> {
    let bad = |why: String| Refusal::BadCall(format!("{method}: {why}"));
    let text = |name: &str| -> Result<String, Refusal> {
        let value = params[name]
            .as_str()
            .ok_or_else(|| bad(format!("{name} must be a string")))?;
        if value.len() > MAX_TEXT {
            return Err(bad(format!("{name} is longer than {MAX_TEXT} bytes")));
        }
        Ok(value.to_string())
    };
    let peer = || -> Result<PublicKey, Refusal> {
        let hex = params["pubkey"]
            .as_str()
            .ok_or_else(|| bad("pubkey must be a hex public key".into()))?;
        PublicKey::from_hex(hex).map_err(|_| bad("pubkey is not a valid public key".into()))
    };
    let scheme = if method.starts_with("nip04.") {
        Scheme::Nip04
    } else {
        Scheme::Nip44
    };
    match method {
        "getPublicKey" => Ok(Request::GetPublicKey),
        "getRelays" => Ok(Request::GetRelays),
        "signEvent" => event_template(&params["event"]).map(Request::SignEvent),
        "nip04.encrypt" | "nip44.encrypt" => Ok(Request::Encrypt {
            scheme,
            peer: peer()?,
            plaintext: text("plaintext")?,
        }),
        "nip04.decrypt" | "nip44.decrypt" => Ok(Request::Decrypt {
            scheme,
            peer: peer()?,
            ciphertext: text("ciphertext")?,
        }),
        other => Err(Refusal::BadCall(format!(
            "window.nostr has no method {other}"
        ))),
    }
}

fn event_template(event: &Value) -> Result<EventTemplate, Refusal> {
    let bad = |why: &str| Refusal::BadCall(format!("signEvent: {why}"));
    if !event.is_object() {
        return Err(bad(
            "pass an event object {kind, content, tags, created_at}",
        ));
    }
    let kind = event["kind"]
        .as_u64()
        .filter(|k| *k <= u64::from(u16::MAX))
        .ok_or_else(|| bad("kind must be an integer from 0 to 65535"))? as u16;
    let content = match &event["content"] {
        Value::Null => String::new(),
        Value::String(s) if s.len() <= MAX_TEXT => s.clone(),
        Value::String(_) => return Err(bad("content is too long")),
        _ => return Err(bad("content must be a string")),
    };
    let tags = match &event["tags"] {
        Value::Null => Vec::new(),
        Value::Array(tags) if tags.len() <= MAX_TAGS => tags
            .iter()
            .map(|tag| {
                tag.as_array()
                    .filter(|items| !items.is_empty())
                    .and_then(|items| {
                        items
                            .iter()
                            .map(|i| i.as_str().map(str::to_string))
                            .collect::<Option<Vec<_>>>()
                    })
                    .ok_or_else(|| bad("each tag must be a non-empty array of strings"))
            })
            .collect::<Result<_, _>>()?,
        _ => return Err(bad("tags must be an array of arrays of strings")),
    };
    let created_at = match &event["created_at"] {
        Value::Null => None,
        value => Some(
            value
                .as_u64()
                .ok_or_else(|| bad("created_at must be unix seconds"))?,
        ),
    };
    Ok(EventTemplate {
        kind,
        content,
        tags,
        created_at,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    const PEER: &str = "7e7e9c42a91bfef19fa929e5fda1b72e0ebc1a4c1141673e2794234d86addf4e";

    #[test]
    fn capabilities_round_trip_through_their_names() {
        for c in [
            Capability::PublicKey,
            Capability::Sign(0),
            Capability::Sign(30023),
            Capability::Encrypt,
            Capability::Decrypt,
        ] {
            assert_eq!(Capability::parse(&c.key()), Some(c));
        }
        assert_eq!(Capability::parse("sign:70000"), None);
        assert_eq!(Capability::parse("everything"), None);
    }

    #[test]
    fn a_sign_request_asks_for_its_kind() {
        let r = parse(
            "signEvent",
            &json!({"event": {"kind": 1, "content": "hi", "tags": [["t", "x"]], "created_at": 5}}),
        )
        .unwrap();
        assert_eq!(r.capability(), Some(Capability::Sign(1)));
        let Request::SignEvent(e) = r else { panic!() };
        assert_eq!((e.content.as_str(), e.created_at), ("hi", Some(5)));
    }

    #[test]
    fn bad_calls_say_what_is_wrong() {
        for (method, params, words) in [
            ("signEvent", json!({}), "event object"),
            ("signEvent", json!({"event": {"kind": -1}}), "kind"),
            ("signEvent", json!({"event": {"kind": 70000}}), "kind"),
            (
                "signEvent",
                json!({"event": {"kind": 1, "tags": [[1]]}}),
                "tag",
            ),
            (
                "signEvent",
                json!({"event": {"kind": 1, "tags": [[]]}}),
                "tag",
            ),
            (
                "signEvent",
                json!({"event": {"kind": 1, "content": 3}}),
                "content",
            ),
            (
                "nip44.encrypt",
                json!({"pubkey": "zz", "plaintext": "a"}),
                "pubkey",
            ),
            ("nip04.decrypt", json!({"pubkey": PEER}), "ciphertext"),
            ("getSecretKey", json!({}), "no method"),
        ] {
            let e = parse(method, &params).unwrap_err();
            assert!(e.to_string().contains(words), "{method} {params}: {e}");
        }
    }

    #[test]
    fn encryption_names_its_scheme() {
        let r = parse("nip04.encrypt", &json!({"pubkey": PEER, "plaintext": "a"})).unwrap();
        assert_eq!(r.method(), "nip04.encrypt");
        assert_eq!(r.capability(), Some(Capability::Encrypt));
        let r = parse("nip44.decrypt", &json!({"pubkey": PEER, "ciphertext": "a"})).unwrap();
        assert_eq!(r.method(), "nip44.decrypt");
        assert_eq!(r.capability(), Some(Capability::Decrypt));
    }
}
