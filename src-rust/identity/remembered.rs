//! Identities remembered across restarts, by the person's choice: public
//! parts only (npub, bunker URL without its secret, device address), and a
//! private key only as a NIP-49 `ncryptsec` under the person's password.

use super::{IdentityError, IdentityResult, Method};
use crate::base::changes::Changes;
use nostr::nips::nip49::{EncryptedSecretKey, KeySecurity};
use nostr::{FromBech32, SecretKey, ToBech32};
use serde::{Deserialize, Serialize};
use serde_json::{json, Value};
use std::path::PathBuf;
use std::sync::Mutex;

/// scrypt cost of NIP-49 (2^16: about 64 MiB and a fraction of a second).
const LOG_N: u8 = 16;

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Remembered {
    pub npub: String,
    pub pubkey: String,
    pub method: Method,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ncryptsec: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub account: Option<u32>,
    /// bunker:// URL without its secret.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub bunker_url: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub transport: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub device: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub service: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub index: Option<u32>,
    pub saved_at: u64,
}

impl Remembered {
    /// An entry with the public key only; the login method fills in the rest.
    pub fn new(method: Method, public_key: &nostr::PublicKey) -> Self {
        Remembered {
            npub: public_key.to_bech32().unwrap_or_default(),
            pubkey: public_key.to_hex(),
            method,
            ncryptsec: None,
            account: None,
            bunker_url: None,
            transport: None,
            device: None,
            service: None,
            index: None,
            saved_at: now(),
        }
    }

    /// What the panel and tools may show: never the ncryptsec itself.
    pub fn public_view(&self) -> Value {
        let mut v = serde_json::to_value(self).unwrap_or(Value::Null);
        if let Value::Object(map) = &mut v {
            map.remove("ncryptsec");
            map.insert("has_encrypted_key".into(), self.ncryptsec.is_some().into());
        }
        v
    }
}

/// Encrypts a private key with a password (NIP-49).
pub fn encrypt_key(secret: &SecretKey, password: &str) -> IdentityResult<String> {
    if password.chars().count() < 8 {
        return Err(IdentityError::Password(
            "must be at least 8 characters".into(),
        ));
    }
    let encrypted = EncryptedSecretKey::new(secret, password, LOG_N, KeySecurity::Medium)
        .map_err(|e| IdentityError::Store(format!("cannot encrypt the key ({e})")))?;
    encrypted
        .to_bech32()
        .map_err(|e| IdentityError::Store(e.to_string()))
}

/// Decrypts a remembered key.
pub fn decrypt_key(ncryptsec: &str, password: &str) -> IdentityResult<SecretKey> {
    let encrypted = EncryptedSecretKey::from_bech32(ncryptsec)
        .map_err(|e| IdentityError::Malformed(format!("the stored key is damaged ({e})")))?;
    encrypted
        .decrypt(password)
        .map_err(|_| IdentityError::Password("wrong password".into()))
}

/// The file of remembered identities in the profile (owner-only).
pub struct RememberedStore {
    path: PathBuf,
    lock: Mutex<()>,
    /// Why the file was kept aside, when it could not be read.
    damaged: Mutex<Option<String>>,
    /// Wrong passwords per identity, to slow guessing down.
    pub unlocks: super::unlock::Unlocks,
    /// Bumped after each write, and when a damaged file is kept aside.
    changes: Changes,
}

impl RememberedStore {
    pub fn new(path: PathBuf) -> Self {
        RememberedStore {
            path,
            lock: Mutex::new(()),
            damaged: Mutex::new(None),
            unlocks: Default::default(),
            changes: Changes::default(),
        }
    }

    /// Wakes whenever the remembered identities (or the damage notice) change.
    pub fn watch(&self) -> tokio::sync::watch::Receiver<u64> {
        self.changes.watch()
    }

    /// The remembered identities. A file that cannot be read is never
    /// replaced: it is renamed aside (the person's encrypted keys may still
    /// be recovered from it) and [`RememberedStore::damaged`] says so.
    pub fn all(&self) -> Vec<Remembered> {
        let Ok(bytes) = std::fs::read(&self.path) else {
            return Vec::new();
        };
        match serde_json::from_slice(&bytes) {
            Ok(all) => all,
            Err(error) => {
                self.keep_aside(&error.to_string());
                Vec::new()
            }
        }
    }

    fn keep_aside(&self, why: &str) {
        // One reader at a time moves the file; another that read the same
        // damaged bytes finds it gone and leaves the first one's notice.
        let mut damaged = self.damaged.lock().unwrap_or_else(|e| e.into_inner());
        if damaged.is_some() && !self.path.exists() {
            return;
        }
        let aside = self.path.with_file_name(format!(
            "{}.damaged-{}-{}",
            self.path
                .file_name()
                .map_or("identities.json".into(), |n| n.to_string_lossy()),
            now(),
            crate::profile::random_hex(3)
        ));
        let notice = match std::fs::rename(&self.path, &aside) {
            Ok(()) => format!(
                "The remembered identities could not be read ({why}). The file was kept, unchanged, as {}.",
                aside.display()
            ),
            Err(e) => format!("The remembered identities could not be read ({why}), nor kept aside ({e})."),
        };
        tracing::warn!("{notice}");
        *damaged = Some(notice);
        self.changes.bump();
    }

    /// What the person should know about a damaged file, if there was one.
    pub fn damaged(&self) -> Option<String> {
        self.damaged
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .clone()
    }

    /// Finds one by npub or hex public key.
    pub fn find(&self, key: &str) -> Option<Remembered> {
        let key = key.trim();
        self.all()
            .into_iter()
            .find(|r| r.npub == key || r.pubkey == key)
    }

    /// Saves (replacing an entry with the same key and method): the
    /// person's remember.
    pub fn save(&self, entry: Remembered) -> IdentityResult<()> {
        let _guard = self.lock.lock().unwrap_or_else(|e| e.into_inner());
        let mut all = self.all();
        all.retain(|r| !(r.npub == entry.npub && r.method == entry.method));
        all.push(entry);
        self.write(&all)
    }

    /// Saves only when nothing is remembered for the entry's public key
    /// (by any method): an agent's remember, which never replaces or
    /// changes what is stored. False when something was.
    pub fn save_new(&self, entry: Remembered) -> IdentityResult<bool> {
        let _guard = self.lock.lock().unwrap_or_else(|e| e.into_inner());
        let mut all = self.all();
        if all.iter().any(|r| r.pubkey == entry.pubkey) {
            return Ok(false);
        }
        all.push(entry);
        self.write(&all)?;
        Ok(true)
    }

    pub fn forget(&self, key: &str) -> IdentityResult<usize> {
        let _guard = self.lock.lock().unwrap_or_else(|e| e.into_inner());
        let mut all = self.all();
        let before = all.len();
        all.retain(|r| r.npub != key && r.pubkey != key);
        self.write(&all)?;
        Ok(before - all.len())
    }

    pub fn list(&self) -> Value {
        let identities: Vec<Value> = self.all().iter().map(Remembered::public_view).collect();
        json!({"identities": identities, "damaged": self.damaged()})
    }

    fn write(&self, all: &[Remembered]) -> IdentityResult<()> {
        let text =
            serde_json::to_vec_pretty(all).map_err(|e| IdentityError::Store(e.to_string()))?;
        let written = crate::profile::write_private(&self.path, &text)
            .map_err(|e| IdentityError::Store(format!("cannot save remembered identities: {e}")));
        self.changes.bump();
        written
    }
}

/// Seconds since the epoch, for `saved_at`.
pub fn now() -> u64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_secs())
        .unwrap_or(0)
}

#[cfg(test)]
mod tests {
    use super::*;
    use nostr::Keys;

    // Regression: two readers of one damaged file (the panel's state and a
    // tool) both tried to move it; the second one's failure replaced the
    // notice saying where the file was kept.
    #[test]
    fn a_damaged_file_is_kept_aside_once_whoever_else_read_it() {
        let dir = std::env::temp_dir().join(format!(
            "sovereign-remembered-{}",
            crate::profile::random_hex(6)
        ));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("identities.json");
        std::fs::write(&path, "[{").unwrap();
        let store = RememberedStore::new(path.clone());
        assert!(store.all().is_empty());
        let notice = store.damaged().unwrap();
        assert!(notice.contains("kept, unchanged"), "{notice}");
        // Another reader that read the same bytes before the move.
        store.keep_aside("the same damage");
        assert_eq!(store.damaged().unwrap(), notice);
        let aside: Vec<_> = std::fs::read_dir(&dir).unwrap().flatten().collect();
        assert_eq!(aside.len(), 1);
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn keys_round_trip_through_nip49_and_wrong_passwords_fail() {
        let keys = Keys::generate();
        let ncryptsec = encrypt_key(keys.secret_key(), "correct horse").unwrap();
        assert!(ncryptsec.starts_with("ncryptsec1"));
        assert_eq!(
            decrypt_key(&ncryptsec, "correct horse").unwrap(),
            *keys.secret_key()
        );
        assert_eq!(
            decrypt_key(&ncryptsec, "wrong horse!").unwrap_err(),
            IdentityError::Password("wrong password".into())
        );
        assert!(matches!(
            encrypt_key(keys.secret_key(), "short"),
            Err(IdentityError::Password(_))
        ));
    }

    #[test]
    fn the_store_saves_finds_forgets_and_never_shows_the_ncryptsec() {
        let dir =
            std::env::temp_dir().join(format!("sb-remember-{}", crate::profile::random_hex(4)));
        std::fs::create_dir_all(&dir).unwrap();
        let store = RememberedStore::new(dir.join("identities.json"));
        let keys = Keys::generate();
        let mut entry = Remembered::new(Method::Local, &keys.public_key());
        entry.ncryptsec = Some("ncryptsec1xyz".into());
        store.save(entry.clone()).unwrap();
        store.save(entry.clone()).unwrap();
        assert_eq!(store.all().len(), 1, "saving again replaces");
        assert_eq!(store.find(&entry.pubkey).unwrap(), entry);
        let listed = store.list().to_string();
        assert!(!listed.contains("ncryptsec1xyz"));
        assert!(listed.contains("\"has_encrypted_key\":true"));
        use std::os::unix::fs::PermissionsExt;
        let mode = std::fs::metadata(dir.join("identities.json"))
            .unwrap()
            .permissions()
            .mode();
        assert_eq!(mode & 0o777, 0o600);
        assert_eq!(store.forget(&entry.npub).unwrap(), 1);
        assert!(store.all().is_empty());
        std::fs::remove_dir_all(dir).unwrap();
    }

    #[test]
    fn an_agents_save_never_replaces_what_is_remembered_for_that_key() {
        let dir =
            std::env::temp_dir().join(format!("sb-remember-{}", crate::profile::random_hex(4)));
        std::fs::create_dir_all(&dir).unwrap();
        let store = RememberedStore::new(dir.join("identities.json"));
        let keys = Keys::generate();
        let mut person = Remembered::new(Method::Nsigner, &keys.public_key());
        person.device = Some("/run/person.sock".into());
        assert!(
            store.save_new(person.clone()).unwrap(),
            "a new key is saved"
        );
        for method in [Method::Nsigner, Method::Readonly, Method::Nip46] {
            let mut agent = Remembered::new(method, &keys.public_key());
            agent.device = Some("/tmp/agent.sock".into());
            assert!(!store.save_new(agent).unwrap());
        }
        assert_eq!(store.all(), vec![person], "the entry is untouched");
        std::fs::remove_dir_all(dir).unwrap();
    }
}
