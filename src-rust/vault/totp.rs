//! Time-based one-time passwords (RFC 6238) as authenticator apps make
//! them: from an `otpauth://totp/...` URI or its base32 secret alone;
//! SHA-1 (the default), SHA-256 or SHA-512; 6 to 8 digits; a period of
//! 30 seconds unless the URI says another.

use super::error::VaultError;
use hmac::digest::KeyInit;
use hmac::{Hmac, Mac};
use serde::{Deserialize, Serialize};
use zeroize::Zeroizing;

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "UPPERCASE")]
pub enum Algorithm {
    Sha1,
    Sha256,
    Sha512,
}

/// A TOTP generator. Its secret is wiped when it is dropped and never
/// printed.
#[derive(Clone, Serialize, Deserialize)]
pub struct Totp {
    /// The shared secret, base32 as the site gave it (no padding).
    secret: Zeroizing<String>,
    algorithm: Algorithm,
    digits: u32,
    period: u64,
}

impl std::fmt::Debug for Totp {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Totp")
            .field("algorithm", &self.algorithm)
            .field("digits", &self.digits)
            .field("period", &self.period)
            .finish_non_exhaustive()
    }
}

impl Totp {
    /// Reads an `otpauth://totp/...` URI or a base32 secret (spaces and
    /// dashes, as sites print them, ignored).
    pub fn parse(given: &str) -> Result<Totp, VaultError> {
        let given = given.trim();
        if given.len() > 4096 {
            return Err(VaultError::BadTotp("it is too long".into()));
        }
        if given.to_ascii_lowercase().starts_with("otpauth://") {
            return Totp::from_uri(given);
        }
        Totp::new(given, Algorithm::Sha1, 6, 30)
    }

    fn new(
        secret: &str,
        algorithm: Algorithm,
        digits: u32,
        period: u64,
    ) -> Result<Totp, VaultError> {
        let secret: Zeroizing<String> = Zeroizing::new(
            secret
                .chars()
                .filter(|c| !matches!(c, ' ' | '-' | '='))
                .map(|c| c.to_ascii_uppercase())
                .collect(),
        );
        let key = decode_base32(&secret)?;
        if key.len() < 10 {
            return Err(VaultError::BadTotp(
                "the secret is shorter than 80 bits".into(),
            ));
        }
        if !(6..=8).contains(&digits) {
            return Err(VaultError::BadTotp("digits must be 6, 7 or 8".into()));
        }
        if !(1..=600).contains(&period) {
            return Err(VaultError::BadTotp(
                "the period must be 1 to 600 seconds".into(),
            ));
        }
        Ok(Totp {
            secret,
            algorithm,
            digits,
            period,
        })
    }

    /// `otpauth://totp/Label?secret=...&algorithm=SHA1&digits=6&period=30`
    /// (Google Authenticator's key URI format).
    fn from_uri(uri: &str) -> Result<Totp, VaultError> {
        let rest = &uri["otpauth://".len()..];
        let (kind, rest) = rest.split_once('/').unwrap_or((rest, ""));
        if !kind.eq_ignore_ascii_case("totp") {
            return Err(VaultError::BadTotp(
                "only time-based codes (otpauth://totp/) are supported".into(),
            ));
        }
        let query = rest.split_once('?').map_or("", |(_, q)| q);
        let (mut secret, mut algorithm, mut digits, mut period) = (None, Algorithm::Sha1, 6, 30);
        for pair in query.split('&').filter(|p| !p.is_empty()) {
            let (key, value) = pair.split_once('=').unwrap_or((pair, ""));
            match key.to_ascii_lowercase().as_str() {
                "secret" => secret = Some(Zeroizing::new(value.to_string())),
                "algorithm" => {
                    algorithm = match value.to_ascii_uppercase().as_str() {
                        "SHA1" => Algorithm::Sha1,
                        "SHA256" => Algorithm::Sha256,
                        "SHA512" => Algorithm::Sha512,
                        _ => {
                            return Err(VaultError::BadTotp(format!("unknown algorithm {value:?}")))
                        }
                    }
                }
                "digits" => {
                    digits = value
                        .parse()
                        .map_err(|_| VaultError::BadTotp("digits must be a number".into()))?
                }
                "period" => {
                    period = value
                        .parse()
                        .map_err(|_| VaultError::BadTotp("period must be a number".into()))?
                }
                _ => {}
            }
        }
        let secret = secret.ok_or_else(|| VaultError::BadTotp("the URI has no secret".into()))?;
        Totp::new(&secret, algorithm, digits, period)
    }

    /// The code at `unix` seconds.
    pub fn code_at(&self, unix: u64) -> Zeroizing<String> {
        let counter = (unix / self.period).to_be_bytes();
        // The secret was checked when it was read.
        let key = decode_base32(&self.secret).unwrap_or_default();
        let digest: Zeroizing<Vec<u8>> = Zeroizing::new(match self.algorithm {
            Algorithm::Sha1 => mac::<Hmac<sha1::Sha1>>(&key, &counter),
            Algorithm::Sha256 => mac::<Hmac<sha2::Sha256>>(&key, &counter),
            Algorithm::Sha512 => mac::<Hmac<sha2::Sha512>>(&key, &counter),
        });
        if digest.len() < 20 {
            // No HMAC answers shorter than SHA-1's 20 bytes.
            return Zeroizing::new("0".repeat(self.digits as usize));
        }
        // RFC 4226's dynamic truncation.
        let offset = (digest[digest.len() - 1] & 0x0f) as usize;
        let bits = u32::from_be_bytes([
            digest[offset] & 0x7f,
            digest[offset + 1],
            digest[offset + 2],
            digest[offset + 3],
        ]);
        let code = bits % 10u32.pow(self.digits);
        Zeroizing::new(format!("{code:0width$}", width = self.digits as usize))
    }
}

/// HMAC of `message` under `key` (HMAC takes a key of any length).
fn mac<M: Mac + KeyInit>(key: &[u8], message: &[u8]) -> Vec<u8> {
    match <M as Mac>::new_from_slice(key) {
        Ok(mut mac) => {
            mac.update(message);
            mac.finalize().into_bytes().to_vec()
        }
        Err(_) => Vec::new(),
    }
}

/// RFC 4648 base32 without padding, into bytes that are wiped when dropped.
fn decode_base32(text: &str) -> Result<Zeroizing<Vec<u8>>, VaultError> {
    data_encoding::BASE32_NOPAD
        .decode(text.as_bytes())
        .map(Zeroizing::new)
        .map_err(|_| VaultError::BadTotp("the secret is not base32 (A-Z, 2-7)".into()))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn base32(ascii: &str) -> String {
        data_encoding::BASE32_NOPAD.encode(ascii.as_bytes())
    }

    /// RFC 6238, appendix B: the same times under the three algorithms.
    #[test]
    fn the_rfc_6238_test_vectors() {
        let seeds = [
            (Algorithm::Sha1, "SHA1", "12345678901234567890"),
            (
                Algorithm::Sha256,
                "SHA256",
                "12345678901234567890123456789012",
            ),
            (
                Algorithm::Sha512,
                "SHA512",
                "1234567890123456789012345678901234567890123456789012345678901234",
            ),
        ];
        let expected: [(u64, [&str; 3]); 6] = [
            (59, ["94287082", "46119246", "90693936"]),
            (1111111109, ["07081804", "68084774", "25091201"]),
            (1111111111, ["14050471", "67062674", "99943326"]),
            (1234567890, ["89005924", "91819424", "93441116"]),
            (2000000000, ["69279037", "90698825", "38618901"]),
            (20000000000, ["65353130", "77737706", "47863826"]),
        ];
        for (i, (algorithm, name, seed)) in seeds.iter().enumerate() {
            let uri = format!(
                "otpauth://totp/Example:alice?secret={}&algorithm={name}&digits=8&period=30",
                base32(seed)
            );
            let totp = Totp::parse(&uri).unwrap();
            assert_eq!(totp.algorithm, *algorithm);
            for (time, codes) in expected {
                assert_eq!(*totp.code_at(time), codes[i], "{name} at {time}");
            }
        }
    }

    #[test]
    fn a_bare_secret_is_six_digits_every_thirty_seconds() {
        let printed = "GEZD GNBV GY3T QOJQ GEZD GNBV GY3T QOJQ";
        let totp = Totp::parse(printed).unwrap();
        assert_eq!((totp.digits, totp.period), (6, 30));
        // The RFC's SHA-1 code at 59 s, its last six digits.
        assert_eq!(*totp.code_at(59), "287082");
        assert_eq!(totp.code_at(59), totp.code_at(30));
        assert_ne!(totp.code_at(59), totp.code_at(60));
    }

    #[test]
    fn what_is_not_a_totp_secret_is_refused_and_the_secret_is_never_printed() {
        for bad in [
            "not base32 at all!",
            "GEZDGNBV",
            "otpauth://hotp/x?secret=GEZDGNBVGY3TQOJQGEZDGNBVGY3TQOJQ",
            "otpauth://totp/x?algorithm=SHA1",
            "otpauth://totp/x?secret=GEZDGNBVGY3TQOJQGEZDGNBVGY3TQOJQ&digits=9",
            "otpauth://totp/x?secret=GEZDGNBVGY3TQOJQGEZDGNBVGY3TQOJQ&algorithm=MD5",
        ] {
            assert!(Totp::parse(bad).is_err(), "{bad}");
        }
        let totp = Totp::parse("GEZDGNBVGY3TQOJQGEZDGNBVGY3TQOJQ").unwrap();
        assert!(!format!("{totp:?}").contains("GEZD"));
    }
}
