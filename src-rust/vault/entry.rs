//! One entry of the vault: a name, the exact origins it may be used on,
//! and its secrets (a user name, a password, a TOTP generator). Secrets
//! are wiped when dropped and never printed.

use super::error::VaultError;
use super::totp::Totp;
use serde::{Deserialize, Serialize};
use zeroize::Zeroizing;

/// The most origins an entry names.
pub const ORIGINS_MAX: usize = 20;
/// The longest name, and the longest user name or password, in bytes.
pub const NAME_MAX: usize = 64;
pub const VALUE_MAX: usize = 4096;

/// A secret value: wiped when dropped, shown as "(hidden)".
#[derive(Clone, Serialize, Deserialize)]
pub struct Secret(Zeroizing<String>);

impl Secret {
    pub fn new(value: String) -> Secret {
        Secret(Zeroizing::new(value))
    }

    pub fn expose(&self) -> &str {
        &self.0
    }
}

impl std::fmt::Debug for Secret {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("(hidden)")
    }
}

/// Which secret of an entry a field takes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum Field {
    User,
    Password,
    // The current code of its TOTP generator. (No doc comment: it would
    // turn the parameter's schema into a oneOf that every model pays for.)
    Totp,
}

#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Entry {
    pub name: String,
    /// Exact origins (`https://github.com:443`), never a pattern.
    pub origins: Vec<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub user: Option<Secret>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub password: Option<Secret>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub totp: Option<Totp>,
    /// The person says yes to each use, in the window or the panel.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub ask_each_time: bool,
}

impl Entry {
    /// An entry as the person gave it: its name and origins checked and
    /// the origins written in one form; the TOTP field an `otpauth://` URI
    /// or a base32 secret.
    pub fn new(
        name: &str,
        origins: &[String],
        user: Option<String>,
        password: Option<String>,
        totp: Option<&str>,
    ) -> Result<Entry, VaultError> {
        let name = checked_name(name)?;
        if origins.is_empty() {
            return Err(VaultError::BadOrigin(
                "name at least one origin it may be used on".into(),
            ));
        }
        if origins.len() > ORIGINS_MAX {
            return Err(VaultError::BadOrigin(format!(
                "at most {ORIGINS_MAX} origins"
            )));
        }
        let mut exact = Vec::new();
        for origin in origins {
            let origin = checked_origin(origin)?;
            if !exact.contains(&origin) {
                exact.push(origin);
            }
        }
        let secret = |value: Option<String>, what: &str| match value.filter(|v| !v.is_empty()) {
            Some(v) if v.len() > VALUE_MAX => Err(VaultError::TooLong(what.to_string())),
            other => Ok(other.map(Secret::new)),
        };
        let entry = Entry {
            name,
            origins: exact,
            user: secret(user, "user name")?,
            password: secret(password, "password")?,
            totp: totp
                .filter(|t| !t.trim().is_empty())
                .map(Totp::parse)
                .transpose()?,
            ask_each_time: false,
        };
        if entry.fields().is_empty() {
            return Err(VaultError::Empty);
        }
        Ok(entry)
    }

    /// The entry, its every use waiting for the person's yes (or not).
    pub fn asking(mut self, each_time: bool) -> Entry {
        self.ask_each_time = each_time;
        self
    }

    /// The fields this entry can fill.
    pub fn fields(&self) -> Vec<Field> {
        let mut fields = Vec::new();
        if self.user.is_some() {
            fields.push(Field::User);
        }
        if self.password.is_some() {
            fields.push(Field::Password);
        }
        if self.totp.is_some() {
            fields.push(Field::Totp);
        }
        fields
    }

    /// Whether it may be used on `origin` (any URL of it).
    pub fn allows(&self, url: &str) -> bool {
        crate::address::origin_of(url).is_some_and(|origin| self.origins.contains(&origin))
    }
}

fn checked_name(name: &str) -> Result<String, VaultError> {
    let name = name.trim();
    let fine = !name.is_empty()
        && name.len() <= NAME_MAX
        && name
            .chars()
            .all(|c| c.is_alphanumeric() || matches!(c, '-' | '_' | '.' | ' ' | '@'));
    if !fine {
        return Err(VaultError::BadName(name.chars().take(NAME_MAX).collect()));
    }
    Ok(name.to_string())
}

/// One exact origin: https, or http on this machine (a site under test).
fn checked_origin(given: &str) -> Result<String, VaultError> {
    let given = given.trim();
    if given.contains('*') {
        return Err(VaultError::BadOrigin(format!(
            "{given}: an exact origin, never a pattern"
        )));
    }
    let origin = crate::address::origin_of(given)
        .ok_or_else(|| VaultError::BadOrigin(format!("{given}: not an http(s) origin")))?;
    if origin.starts_with("http://") && !crate::address::loopback_host_of(&origin) {
        return Err(VaultError::BadOrigin(format!(
            "{given}: a secret goes only over https (or http on this machine)"
        )));
    }
    Ok(origin)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn origins(list: &[&str]) -> Vec<String> {
        list.iter().map(|o| o.to_string()).collect()
    }

    #[test]
    fn an_entry_names_exact_origins_over_https_or_on_this_machine() {
        let entry = Entry::new(
            "github",
            &origins(&[
                "https://GitHub.com/login",
                "https://github.com",
                "http://127.0.0.1:8080",
            ]),
            Some("ada".into()),
            Some("hunter2".into()),
            None,
        )
        .unwrap();
        assert_eq!(
            entry.origins,
            ["https://github.com:443", "http://127.0.0.1:8080"]
        );
        assert!(entry.allows("https://github.com/session?x=1"));
        assert!(!entry.allows("https://gist.github.com/"));
        assert!(!entry.allows("http://github.com/"));
        assert_eq!(entry.fields(), [Field::User, Field::Password]);
        for bad in [
            "https://*.github.com",
            "http://github.com",
            "ftp://github.com",
            "github",
        ] {
            let refused = Entry::new("g", &origins(&[bad]), None, Some("p".into()), None);
            assert!(matches!(refused, Err(VaultError::BadOrigin(_))), "{bad}");
        }
    }

    #[test]
    fn names_are_plain_and_an_entry_holds_something() {
        let ok = |name: &str| {
            Entry::new(
                name,
                &origins(&["https://a.example"]),
                None,
                Some("p".into()),
                None,
            )
        };
        assert!(ok("work mail@x").is_ok());
        assert!(matches!(ok(""), Err(VaultError::BadName(_))));
        assert!(matches!(ok("<script>"), Err(VaultError::BadName(_))));
        assert!(matches!(ok(&"n".repeat(65)), Err(VaultError::BadName(_))));
        let empty = Entry::new(
            "e",
            &origins(&["https://a.example"]),
            Some(String::new()),
            None,
            None,
        );
        assert!(matches!(empty, Err(VaultError::Empty)));
    }

    #[test]
    fn secrets_are_never_printed() {
        let entry = Entry::new(
            "bank",
            &origins(&["https://bank.example"]),
            Some("ada-user".into()),
            Some("s3cret-pw".into()),
            Some("GEZDGNBVGY3TQOJQGEZDGNBVGY3TQOJQ"),
        )
        .unwrap();
        let shown = format!("{entry:?}");
        for value in ["ada-user", "s3cret-pw", "GEZD"] {
            assert!(!shown.contains(value), "{shown}");
        }
    }
}
