//! The vault on disk: its entries sealed with XChaCha20-Poly1305 under a
//! key scrypt derives from the person's vault password (at the cost NIP-49
//! gives keys). The file holds the cost, the salt, the nonce and the
//! sealed bytes: nothing of an entry, not even its name, is readable
//! without the password. Each save seals with a new nonce.

use super::error::VaultError;
use base64::engine::general_purpose::STANDARD as B64;
use base64::Engine as _;
use chacha20poly1305::aead::{Aead, KeyInit};
use chacha20poly1305::{XChaCha20Poly1305, XNonce};
use serde::{Deserialize, Serialize};
use zeroize::Zeroizing;

/// scrypt's cost, 2^16 (about 64 MiB and a fraction of a second), as
/// NIP-49 gives remembered keys.
pub const LOG_N: u8 = 16;
const VERSION: u32 = 1;

/// The file's text.
#[derive(Serialize, Deserialize)]
struct SealedFile {
    version: u32,
    log_n: u8,
    salt: String,
    nonce: String,
    sealed: String,
}

/// The key the password gives, with the salt and cost it was made with
/// (kept while the vault is open, to seal each save).
pub struct Key {
    key: Zeroizing<[u8; 32]>,
    salt: [u8; 16],
    log_n: u8,
}

impl Key {
    /// A key for a new vault: a new salt.
    pub fn new(password: &str, log_n: u8) -> Result<Key, VaultError> {
        let mut salt = [0u8; 16];
        getrandom::fill(&mut salt).map_err(|e| VaultError::Store(e.to_string()))?;
        Key::derive(password, salt, log_n)
    }

    fn derive(password: &str, salt: [u8; 16], log_n: u8) -> Result<Key, VaultError> {
        // At most NIP-49's own ceiling: a file cannot make the browser
        // spend gigabytes deriving.
        if !(10..=22).contains(&log_n) {
            return Err(VaultError::Damaged("its cost is out of range".into()));
        }
        let params =
            scrypt::Params::new(log_n, 8, 1, 32).map_err(|e| VaultError::Damaged(e.to_string()))?;
        let mut key = Zeroizing::new([0u8; 32]);
        scrypt::scrypt(password.as_bytes(), &salt, &params, key.as_mut())
            .map_err(|e| VaultError::Store(e.to_string()))?;
        Ok(Key { key, salt, log_n })
    }

    /// `plain` sealed, as the file's text.
    pub fn seal(&self, plain: &[u8]) -> Result<String, VaultError> {
        let mut nonce = [0u8; 24];
        getrandom::fill(&mut nonce).map_err(|e| VaultError::Store(e.to_string()))?;
        let cipher = XChaCha20Poly1305::new(self.key.as_ref().into());
        let sealed = cipher
            .encrypt(XNonce::from_slice(&nonce), plain)
            .map_err(|_| VaultError::Store("sealing failed".into()))?;
        let file = SealedFile {
            version: VERSION,
            log_n: self.log_n,
            salt: B64.encode(self.salt),
            nonce: B64.encode(nonce),
            sealed: B64.encode(sealed),
        };
        serde_json::to_string_pretty(&file).map_err(|e| VaultError::Store(e.to_string()))
    }
}

/// Opens the file's text with `password`: the key (to seal later saves)
/// and the plain bytes, wiped when dropped.
pub fn open(text: &str, password: &str) -> Result<(Key, Zeroizing<Vec<u8>>), VaultError> {
    let file: SealedFile =
        serde_json::from_str(text).map_err(|e| VaultError::Damaged(e.to_string()))?;
    if file.version != VERSION {
        return Err(VaultError::Damaged(format!(
            "version {} is not one this browser reads",
            file.version
        )));
    }
    let bytes = |field: &str, text: &str| {
        B64.decode(text)
            .map_err(|_| VaultError::Damaged(format!("its {field} is not base64")))
    };
    let salt: [u8; 16] = bytes("salt", &file.salt)?
        .try_into()
        .map_err(|_| VaultError::Damaged("its salt is not 16 bytes".into()))?;
    let nonce = bytes("nonce", &file.nonce)?;
    if nonce.len() != 24 {
        return Err(VaultError::Damaged("its nonce is not 24 bytes".into()));
    }
    let sealed = bytes("sealed", &file.sealed)?;
    let key = Key::derive(password, salt, file.log_n)?;
    let cipher = XChaCha20Poly1305::new(key.key.as_ref().into());
    // A wrong password and a changed file are one answer: the seal does not open.
    let plain = cipher
        .decrypt(XNonce::from_slice(&nonce), sealed.as_slice())
        .map_err(|_| VaultError::WrongPassword)?;
    Ok((key, Zeroizing::new(plain)))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The lowest cost the file allows: tests stay fast.
    const CHEAP: u8 = 10;

    #[test]
    fn what_is_sealed_opens_with_the_password_only() {
        let key = Key::new("correct horse", CHEAP).unwrap();
        let text = key.seal(b"{\"entries\":[]}").unwrap();
        assert!(!text.contains("entries"), "the file shows what it holds");
        let (_, plain) = open(&text, "correct horse").unwrap();
        assert_eq!(plain.as_slice(), b"{\"entries\":[]}");
        assert!(matches!(
            open(&text, "wrong horse"),
            Err(VaultError::WrongPassword)
        ));
    }

    #[test]
    fn each_save_has_its_own_nonce_and_a_changed_file_does_not_open() {
        let key = Key::new("pw-1234", CHEAP).unwrap();
        let (a, b) = (key.seal(b"same").unwrap(), key.seal(b"same").unwrap());
        assert_ne!(a, b);
        let mut file: serde_json::Value = serde_json::from_str(&a).unwrap();
        let sealed = B64.decode(file["sealed"].as_str().unwrap()).unwrap();
        let mut flipped = sealed.clone();
        flipped[0] ^= 1;
        file["sealed"] = B64.encode(flipped).into();
        assert!(matches!(
            open(&file.to_string(), "pw-1234"),
            Err(VaultError::WrongPassword)
        ));
    }

    #[test]
    fn a_damaged_or_costly_file_is_refused_before_any_work() {
        assert!(matches!(
            open("not json", "pw"),
            Err(VaultError::Damaged(_))
        ));
        let key = Key::new("pw", CHEAP).unwrap();
        let mut file: serde_json::Value = serde_json::from_str(&key.seal(b"x").unwrap()).unwrap();
        file["log_n"] = 40.into();
        assert!(matches!(
            open(&file.to_string(), "pw"),
            Err(VaultError::Damaged(_))
        ));
        file["log_n"] = CHEAP.into();
        file["nonce"] = B64.encode([0u8; 3]).into();
        assert!(matches!(
            open(&file.to_string(), "pw"),
            Err(VaultError::Damaged(_))
        ));
    }
}
