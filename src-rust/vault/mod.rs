//! The person's vault: sites' credentials agents may use by name and never
//! see. The person adds, changes and removes entries and locks and
//! unlocks it (in the panel); agents list names and origins, and have the
//! browser fill a field with an entry's secret on one of its origins.
//!
//! On disk it is sealed under the person's vault password (sealed.rs);
//! open, its entries live in this process only, wiped when dropped or
//! locked.

mod consent;
mod entry;
mod error;
mod sealed;
mod totp;

pub use consent::{Asking, Consents, TooMany, UseAsked, WAITING_MAX};
pub use entry::{Entry, Field, Secret};
pub use error::{VaultError, ENTRIES_MAX, PASSWORD_MIN};

use serde::{Deserialize, Serialize};
use std::path::PathBuf;
use std::sync::Mutex;
use zeroize::Zeroizing;

/// What agents may know of an entry: its name, origins and which fields
/// it fills.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Listed {
    pub name: String,
    pub origins: Vec<String>,
    pub fields: Vec<Field>,
    /// Each use waits for the person's yes.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub ask_each_time: bool,
}

/// The vault's entries as sealed.
#[derive(Serialize, Deserialize, Default)]
struct Contents {
    entries: Vec<Entry>,
}

enum State {
    Locked,
    Open {
        key: sealed::Key,
        contents: Contents,
    },
}

pub struct Vault {
    /// Its file in the profile.
    path: PathBuf,
    /// scrypt's cost for a new vault (tests make it cheap).
    log_n: u8,
    state: Mutex<State>,
}

impl Vault {
    /// The vault kept at `path`, locked.
    pub fn at(path: PathBuf) -> Vault {
        Vault::with_cost(path, sealed::LOG_N)
    }

    /// A vault whose key is cheap to derive: for tests only.
    #[cfg(test)]
    pub(crate) fn cheap(path: PathBuf) -> Vault {
        Vault::with_cost(path, 10)
    }

    fn with_cost(path: PathBuf, log_n: u8) -> Vault {
        Vault {
            path,
            log_n,
            state: Mutex::new(State::Locked),
        }
    }

    fn state(&self) -> std::sync::MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(|e| e.into_inner())
    }

    pub fn exists(&self) -> bool {
        self.path.exists()
    }

    pub fn is_open(&self) -> bool {
        matches!(*self.state(), State::Open { .. })
    }

    /// Makes a new, empty vault under `password`, and leaves it open.
    pub fn create(&self, password: &str) -> Result<(), VaultError> {
        if self.exists() {
            return Err(VaultError::Exists);
        }
        if password.chars().count() < PASSWORD_MIN {
            return Err(VaultError::WeakPassword);
        }
        let key = sealed::Key::new(password, self.log_n)?;
        let contents = Contents::default();
        self.save(&key, &contents)?;
        *self.state() = State::Open { key, contents };
        Ok(())
    }

    /// Opens the vault with `password`.
    pub fn unlock(&self, password: &str) -> Result<(), VaultError> {
        let text = match std::fs::read_to_string(&self.path) {
            Ok(text) => Zeroizing::new(text),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Err(VaultError::NoVault),
            Err(e) => return Err(VaultError::Damaged(e.to_string())),
        };
        let (key, plain) = sealed::open(&text, password)?;
        let contents: Contents =
            serde_json::from_slice(&plain).map_err(|e| VaultError::Damaged(e.to_string()))?;
        *self.state() = State::Open { key, contents };
        Ok(())
    }

    /// Closes it: its entries leave memory (wiped as they drop).
    pub fn lock(&self) {
        *self.state() = State::Locked;
    }

    /// Names, origins and fields of every entry, by name.
    pub fn list(&self) -> Result<Vec<Listed>, VaultError> {
        self.with_open(|contents| {
            let mut listed: Vec<Listed> = contents
                .entries
                .iter()
                .map(|e| Listed {
                    name: e.name.clone(),
                    origins: e.origins.clone(),
                    fields: e.fields(),
                    ask_each_time: e.ask_each_time,
                })
                .collect();
            listed.sort_by(|a, b| a.name.cmp(&b.name));
            Ok(listed)
        })
    }

    /// Adds `entry`, or replaces the one of its name; saved at once.
    pub fn put(&self, entry: Entry) -> Result<(), VaultError> {
        self.change(|contents| {
            let held = contents.entries.len();
            match contents.entries.iter_mut().find(|e| e.name == entry.name) {
                Some(old) => *old = entry,
                None if held >= ENTRIES_MAX => return Err(VaultError::Full),
                None => contents.entries.push(entry),
            }
            Ok(())
        })
    }

    /// Removes the entry `name`; saved at once.
    pub fn remove(&self, name: &str) -> Result<(), VaultError> {
        self.change(|contents| {
            let before = contents.entries.len();
            contents.entries.retain(|e| e.name != name);
            if contents.entries.len() == before {
                return Err(VaultError::NoEntry(name.to_string()));
            }
            Ok(())
        })
    }

    /// The entry `name`'s origins, for checking where it may go.
    pub fn origins_of(&self, name: &str) -> Result<Vec<String>, VaultError> {
        self.with_open(|contents| Ok(find(contents, name)?.origins.clone()))
    }

    /// Whether each use of the entry `name` waits for the person's yes.
    pub fn asks_each_time(&self, name: &str) -> Result<bool, VaultError> {
        self.with_open(|contents| Ok(find(contents, name)?.ask_each_time))
    }

    /// The value `field` of the entry `name` takes now (a TOTP code for
    /// `unix` seconds): only for a page at `url`, one of its origins.
    pub fn value_for(
        &self,
        name: &str,
        field: Field,
        url: &str,
        unix: u64,
    ) -> Result<Option<Secret>, VaultError> {
        self.with_open(|contents| {
            let entry = find(contents, name)?;
            if !entry.allows(url) {
                return Ok(None);
            }
            let missing = |field| VaultError::NoField {
                name: name.to_string(),
                field,
            };
            let value = match field {
                Field::User => entry.user.clone().ok_or_else(|| missing("user name"))?,
                Field::Password => entry.password.clone().ok_or_else(|| missing("password"))?,
                Field::Totp => {
                    let totp = entry.totp.as_ref().ok_or_else(|| missing("TOTP secret"))?;
                    Secret::new(totp.code_at(unix).to_string())
                }
            };
            Ok(Some(value))
        })
    }

    fn with_open<T>(
        &self,
        read: impl FnOnce(&Contents) -> Result<T, VaultError>,
    ) -> Result<T, VaultError> {
        match &*self.state() {
            State::Open { contents, .. } => read(contents),
            State::Locked if !self.exists() => Err(VaultError::NoVault),
            State::Locked => Err(VaultError::Locked),
        }
    }

    /// Changes the open vault and saves it; a change that cannot be saved
    /// is taken back.
    fn change(
        &self,
        apply: impl FnOnce(&mut Contents) -> Result<(), VaultError>,
    ) -> Result<(), VaultError> {
        let mut state = self.state();
        let State::Open { key, contents } = &mut *state else {
            return Err(if self.exists() {
                VaultError::Locked
            } else {
                VaultError::NoVault
            });
        };
        let mut changed = Contents {
            entries: contents.entries.clone(),
        };
        apply(&mut changed)?;
        self.save(key, &changed)?;
        *contents = changed;
        Ok(())
    }

    /// Writes the sealed file, readable by the person only, in one step
    /// (a new file renamed over the old).
    fn save(&self, key: &sealed::Key, contents: &Contents) -> Result<(), VaultError> {
        let plain = Zeroizing::new(
            serde_json::to_vec(contents).map_err(|e| VaultError::Store(e.to_string()))?,
        );
        let text = key.seal(&plain)?;
        let folder = self.path.parent().unwrap_or(std::path::Path::new("."));
        let name = self
            .path
            .file_name()
            .and_then(|n| n.to_str())
            .unwrap_or("vault.json");
        crate::profile::install_private(folder, name, text.as_bytes())
            .map(drop)
            .map_err(|e| VaultError::Store(e.to_string()))
    }
}

fn find<'a>(contents: &'a Contents, name: &str) -> Result<&'a Entry, VaultError> {
    contents
        .entries
        .iter()
        .find(|e| e.name == name)
        .ok_or_else(|| VaultError::NoEntry(name.to_string()))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A folder of its own for one test.
    fn folder() -> PathBuf {
        let dir = std::env::temp_dir().join(format!("sb-vault-{}", crate::profile::random_hex(6)));
        std::fs::create_dir_all(&dir).unwrap();
        dir
    }

    fn vault(dir: &std::path::Path) -> Vault {
        Vault::with_cost(dir.join("vault.json"), 10)
    }

    fn github() -> Entry {
        Entry::new(
            "github",
            &["https://github.com".to_string()],
            Some("ada".into()),
            Some("hunter2-long".into()),
            Some("GEZDGNBVGY3TQOJQGEZDGNBVGY3TQOJQ"),
        )
        .unwrap()
    }

    #[test]
    fn the_person_makes_fills_locks_and_reopens_a_vault() {
        let dir = folder();
        let v = vault(&dir);
        assert_eq!(v.list(), Err(VaultError::NoVault));
        assert_eq!(v.create("short"), Err(VaultError::WeakPassword));
        v.create("a long password").unwrap();
        assert_eq!(v.create("a long password"), Err(VaultError::Exists));
        v.put(github()).unwrap();
        let text = std::fs::read_to_string(dir.join("vault.json")).unwrap();
        for shown in ["github", "ada", "hunter2", "GEZD"] {
            assert!(!text.contains(shown), "the file shows {shown}");
        }
        v.lock();
        assert_eq!(v.list(), Err(VaultError::Locked));
        assert_eq!(v.unlock("wrong password"), Err(VaultError::WrongPassword));
        // Another process (a restart) opens the same file.
        let again = vault(&dir);
        again.unlock("a long password").unwrap();
        assert_eq!(
            again.list().unwrap(),
            [Listed {
                name: "github".into(),
                origins: vec!["https://github.com:443".into()],
                fields: vec![Field::User, Field::Password, Field::Totp],
                ask_each_time: false,
            }]
        );
    }

    #[test]
    fn a_value_goes_only_to_its_origins() {
        let dir = folder();
        let v = vault(&dir);
        v.create("a long password").unwrap();
        v.put(github()).unwrap();
        let at = |field, url| v.value_for("github", field, url, 59);
        let password = at(Field::Password, "https://github.com/login")
            .unwrap()
            .unwrap();
        assert_eq!(password.expose(), "hunter2-long");
        assert_eq!(
            at(Field::Totp, "https://github.com/")
                .unwrap()
                .unwrap()
                .expose(),
            "287082"
        );
        assert!(at(Field::Password, "https://evil.example/")
            .unwrap()
            .is_none());
        assert!(at(Field::Password, "http://github.com/").unwrap().is_none());
        assert_eq!(
            v.value_for("gitlab", Field::User, "https://github.com", 0)
                .unwrap_err(),
            VaultError::NoEntry("gitlab".into())
        );
    }

    #[test]
    fn entries_are_replaced_by_name_removed_and_bounded() {
        let dir = folder();
        let v = vault(&dir);
        v.create("a long password").unwrap();
        v.put(github()).unwrap();
        let only_user = Entry::new(
            "github",
            &["https://github.com".to_string()],
            Some("ada2".into()),
            None,
            None,
        )
        .unwrap();
        v.put(only_user).unwrap();
        assert_eq!(v.list().unwrap()[0].fields, [Field::User]);
        let missing = v.value_for("github", Field::Password, "https://github.com", 0);
        assert!(matches!(missing, Err(VaultError::NoField { .. })));
        v.remove("github").unwrap();
        assert_eq!(
            v.remove("github"),
            Err(VaultError::NoEntry("github".into()))
        );
        for n in 0..ENTRIES_MAX {
            let entry = Entry::new(
                &format!("e{n}"),
                &["https://a.example".to_string()],
                None,
                Some("p".into()),
                None,
            )
            .unwrap();
            if let State::Open { contents, .. } = &mut *v.state() {
                contents.entries.push(entry);
            }
        }
        let one_more = Entry::new(
            "last",
            &["https://a.example".to_string()],
            None,
            Some("p".into()),
            None,
        )
        .unwrap();
        assert_eq!(v.put(one_more), Err(VaultError::Full));
    }
}
