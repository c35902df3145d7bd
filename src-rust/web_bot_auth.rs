//! Web Bot Auth: an agent's requests signed as HTTP Message Signatures
//! (RFC 9421) with an Ed25519 key, so a site can tell which agent asks
//! and check it against the key's directory. This file is the signing
//! itself: the key (derived from the context's identity, so it is the same
//! after a restart), its JWK and thumbprint (RFC 7638, the `keyid`), and
//! the `Signature-Input` and `Signature` of one request covering
//! `@authority` and its `Signature-Agent` member with `created`, `expires`,
//! a nonce and `tag="web-bot-auth"`, as the working group's draft
//! (draft-ietf-webbotauth-httpsig-protocol) says: `Signature-Agent` is a
//! dictionary whose member, named as the signature's label, is the key
//! directory's address, and the signature covers that member
//! (`"signature-agent";key="sig1"`).

use data_encoding::{BASE64, BASE64URL_NOPAD};
use hmac::{Hmac, Mac};
use ring::signature::{Ed25519KeyPair, KeyPair};
use serde_json::{json, Value};
use sha2::{Digest, Sha256};

/// The label of the signatures this browser adds.
pub const LABEL: &str = "sig1";
/// What the signatures are for, as the Web Bot Auth draft names it.
pub const TAG: &str = "web-bot-auth";
/// What a key is derived under: another purpose of the same secret gets
/// another key.
const DERIVATION: &[u8] = b"sovereign-browser web-bot-auth ed25519 v1";

/// A context's signing key. Its secret never leaves this process.
pub struct SigningKey {
    pair: Ed25519KeyPair,
}

impl std::fmt::Debug for SigningKey {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "SigningKey({})", self.thumbprint())
    }
}

impl SigningKey {
    /// The key of a 32-byte seed (RFC 8032's private key).
    pub fn from_seed(seed: &[u8; 32]) -> SigningKey {
        // A 32-byte seed is always a valid Ed25519 private key.
        let pair = Ed25519KeyPair::from_seed_unchecked(seed)
            .unwrap_or_else(|_| unreachable!("any 32 bytes are an Ed25519 seed"));
        SigningKey { pair }
    }

    /// The key derived from an identity's secret key for one context (its
    /// name): HMAC-SHA256 of both, under this purpose's label. The same
    /// identity and context give the same key, after a restart too.
    pub fn derive(secret: &[u8], context: &str) -> SigningKey {
        let mut mac = <Hmac<Sha256> as Mac>::new_from_slice(secret)
            .unwrap_or_else(|_| unreachable!("HMAC takes a key of any length"));
        mac.update(DERIVATION);
        mac.update(&[0]);
        mac.update(context.as_bytes());
        let seed: [u8; 32] = mac.finalize().into_bytes().into();
        SigningKey::from_seed(&seed)
    }

    /// The public key, 32 bytes.
    pub fn public(&self) -> &[u8] {
        self.pair.public_key().as_ref()
    }

    /// The public key as a JWK (RFC 8037).
    pub fn jwk(&self) -> Value {
        json!({"kty": "OKP", "crv": "Ed25519", "x": BASE64URL_NOPAD.encode(self.public())})
    }

    /// The JWK thumbprint (RFC 7638): SHA-256 of the required members in
    /// lexicographic order, no spaces, base64url.
    pub fn thumbprint(&self) -> String {
        let canonical = format!(
            r#"{{"crv":"Ed25519","kty":"OKP","x":"{}"}}"#,
            BASE64URL_NOPAD.encode(self.public())
        );
        BASE64URL_NOPAD.encode(&Sha256::digest(canonical.as_bytes()))
    }

    /// Signs `base` (a signature base): the 64-byte Ed25519 signature.
    pub fn sign(&self, base: &str) -> Vec<u8> {
        self.pair.sign(base.as_bytes()).as_ref().to_vec()
    }
}

/// One request's signature headers.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Signed {
    pub signature_input: String,
    pub signature: String,
    /// `Signature-Agent`: where the key directory is, as a dictionary
    /// member named as the signature (`sig1="https://..."`).
    pub signature_agent: String,
}

/// What a signature says besides its components.
pub struct Params<'a> {
    pub created: u64,
    pub expires: u64,
    pub nonce: &'a str,
}

/// The signature base of RFC 9421 section 2.5: each covered component's
/// line (its identifier as serialized, `"@authority"` or
/// `"signature-agent";key="sig1"`, and its value), then `@signature-params`.
pub fn signature_base(components: &[(&str, &str)], params: &str) -> String {
    let mut base = String::new();
    for (identifier, value) in components {
        base.push_str(&format!("{identifier}: {value}\n"));
    }
    base.push_str(&format!("\"@signature-params\": {params}"));
    base
}

/// The signature headers of a request to `authority` (host, with the port
/// when it is not the scheme's), whose key directory is at `directory`.
pub fn sign_request(key: &SigningKey, authority: &str, directory: &str, params: &Params) -> Signed {
    // The member's value is a string item: the address, quoted.
    let member = format!("\"{directory}\"");
    let agent_component = format!(r#""signature-agent";key="{LABEL}""#);
    let inner = format!(
        r#"("@authority" {agent_component});created={};expires={};keyid="{}";alg="ed25519";nonce="{}";tag="{TAG}""#,
        params.created,
        params.expires,
        key.thumbprint(),
        params.nonce
    );
    let base = signature_base(
        &[
            ("\"@authority\"", &authority.to_ascii_lowercase()),
            (&agent_component, &member),
        ],
        &inner,
    );
    Signed {
        signature_input: format!("{LABEL}={inner}"),
        signature: format!("{LABEL}=:{}:", BASE64.encode(&key.sign(&base))),
        signature_agent: format!("{LABEL}={member}"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use ring::signature::{UnparsedPublicKey, ED25519};

    /// RFC 9421 B.1.4: the example Ed25519 key's seed.
    const RFC_SEED: &str = "n4Ni-HpISpVObnQMW0wOhCKROaIKqKtW_2ZYb2p9KcU";

    fn rfc_key() -> SigningKey {
        let seed: [u8; 32] = BASE64URL_NOPAD
            .decode(RFC_SEED.as_bytes())
            .unwrap()
            .try_into()
            .unwrap();
        SigningKey::from_seed(&seed)
    }

    #[test]
    fn the_rfc_9421_ed25519_example_signs_to_its_published_signature() {
        let key = rfc_key();
        assert_eq!(
            key.jwk()["x"],
            "JrQLj5P_89iXES9-vFgrIy29clF9CC_oPPsw3c5D0bs",
            "the example's public key"
        );
        let base = signature_base(
            &[
                ("\"date\"", "Tue, 20 Apr 2021 02:07:55 GMT"),
                ("\"@method\"", "POST"),
                ("\"@path\"", "/foo"),
                ("\"@authority\"", "example.com"),
                ("\"content-type\"", "application/json"),
                ("\"content-length\"", "18"),
            ],
            r#"("date" "@method" "@path" "@authority" "content-type" "content-length");created=1618884473;keyid="test-key-ed25519""#,
        );
        assert_eq!(
            BASE64.encode(&key.sign(&base)),
            "wqcAqbmYJ2ji2glfAMaRy4gruYYnx2nEFN2HN6jrnDnQCK1u02Gb04v9EDgwUPiu4A0w6vuQv5lIp5WPpBKRCw=="
        );
    }

    #[test]
    fn the_thumbprint_is_rfc_8037s() {
        // RFC 8037 A.1 and A.3: the example key and its JWK thumbprint.
        let seed: [u8; 32] = BASE64URL_NOPAD
            .decode(b"nWGxne_9WmC6hEr0kuwsxERJxWl7MmkZcDusAxyuf2A")
            .unwrap()
            .try_into()
            .unwrap();
        let key = SigningKey::from_seed(&seed);
        assert_eq!(
            key.jwk()["x"],
            "11qYAYKxCrfVS_7TyWQHOg7hcvPapiMlrwIaaPcHURo"
        );
        assert_eq!(
            key.thumbprint(),
            "kPrK_qmxVWaYVA9wwBF6Iuo3vVzz7TxHCTwXBygrS4k"
        );
    }

    #[test]
    fn a_request_signature_verifies_and_covers_the_authority_and_the_agent() {
        let key = SigningKey::derive(b"an identity's secret key, 32 bytes", "default");
        let again = SigningKey::derive(b"an identity's secret key, 32 bytes", "default");
        let other = SigningKey::derive(b"an identity's secret key, 32 bytes", "shopping");
        assert_eq!(key.public(), again.public(), "the same after a restart");
        assert_ne!(key.public(), other.public(), "another context, another key");
        let params = Params {
            created: 1_800_000_000,
            expires: 1_800_000_060,
            nonce: "abc",
        };
        let signed = sign_request(
            &key,
            "Example.com:8443",
            "https://agents.example/dir",
            &params,
        );
        assert_eq!(
            signed.signature_agent,
            "sig1=\"https://agents.example/dir\""
        );
        assert!(signed.signature_input.starts_with(
            r#"sig1=("@authority" "signature-agent";key="sig1");created=1800000000;expires=1800000060;keyid=""#
        ));
        assert!(signed
            .signature_input
            .ends_with(r#";alg="ed25519";nonce="abc";tag="web-bot-auth""#));
        let inner = signed.signature_input.trim_start_matches("sig1=");
        let sig = BASE64
            .decode(
                signed
                    .signature
                    .trim_start_matches("sig1=:")
                    .trim_end_matches(':')
                    .as_bytes(),
            )
            .unwrap();
        let verify = |authority: &str| {
            let base = signature_base(
                &[
                    ("\"@authority\"", authority),
                    (
                        r#""signature-agent";key="sig1""#,
                        "\"https://agents.example/dir\"",
                    ),
                ],
                inner,
            );
            UnparsedPublicKey::new(&ED25519, key.public())
                .verify(base.as_bytes(), &sig)
                .is_ok()
        };
        assert!(verify("example.com:8443"));
        assert!(!verify("example.org:8443"), "another authority fails");
    }
}
