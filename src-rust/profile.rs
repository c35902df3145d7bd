//! The profile directory: web data, downloads and the server's bearer token.

use std::fs;
use std::io::Write;
use std::os::unix::fs::{OpenOptionsExt, PermissionsExt};
use std::path::{Path, PathBuf};

/// Where the browser keeps its state, and whether to remove it on exit.
/// The profile's folder for downloads (see `downloads_dir`).
pub const DOWNLOADS: &str = "downloads";

#[derive(Debug)]
pub struct Profile {
    pub dir: PathBuf,
    pub ephemeral: bool,
}

impl Profile {
    /// Opens (creating it owner-only) the given directory, the default one
    /// under the XDG data directory, or a fresh temporary one.
    pub fn open(dir: Option<PathBuf>, ephemeral: bool) -> std::io::Result<Profile> {
        let dir = match (dir, ephemeral) {
            (_, true) => new_ephemeral_dir(),
            (Some(dir), false) => dir,
            (None, false) => default_dir(),
        };
        fs::create_dir_all(&dir)?;
        fs::set_permissions(&dir, fs::Permissions::from_mode(0o700))?;
        Ok(Profile { dir, ephemeral })
    }

    /// The ephemeral profile a launcher made and named in [`HANDED_DOWN`], or
    /// a fresh one when `handed_down` is not one: a folder directly in the
    /// temporary folder, named as [`new_ephemeral_dir`] names them,
    /// owner-only.
    pub fn take_over(handed_down: Option<&std::ffi::OsStr>) -> std::io::Result<Profile> {
        let given = handed_down
            .map(PathBuf::from)
            .filter(|dir| is_ephemeral_dir(dir));
        match given {
            Some(dir) => Ok(Profile {
                dir,
                ephemeral: true,
            }),
            None => Profile::open(None, true),
        }
    }

    pub fn web_data_dir(&self) -> PathBuf {
        self.dir.join("webdata")
    }

    /// Where downloads land, and the files folder unless one is given.
    /// Kept contexts' website data, a folder per context name.
    pub fn contexts_dir(&self) -> PathBuf {
        self.dir.join("contexts")
    }

    pub fn downloads_dir(&self) -> PathBuf {
        self.dir.join(DOWNLOADS)
    }

    /// Identities the person chose to remember (public parts, ncryptsec keys).
    pub fn remembered_path(&self) -> PathBuf {
        self.dir.join("identities.json")
    }

    /// The person's vault of sites' credentials, sealed under their password.
    pub fn vault_path(&self) -> PathBuf {
        self.dir.join("vault.json")
    }

    /// The person's window.nostr decisions for web pages.
    pub fn nostr_permissions_path(&self) -> PathBuf {
        self.dir.join("nostr-permissions.json")
    }

    /// The recordings of agents' calls (see `recording`).
    pub fn recordings_dir(&self) -> PathBuf {
        self.dir.join("recordings")
    }

    /// What was done in each identity's name (see `identity::audit`).
    pub fn audit_path(&self) -> PathBuf {
        self.dir.join("audit.jsonl")
    }

    pub fn token_path(&self) -> PathBuf {
        self.dir.join("token")
    }

    /// The agents' bearer token, generated and stored (mode 0600) on first use.
    pub fn load_or_create_token(&self) -> std::io::Result<String> {
        load_or_create_secret(&self.token_path())
    }

    /// The cookie of the private Xvfb display (headless runs).
    pub fn xauthority_path(&self) -> PathBuf {
        self.dir.join("xauthority")
    }

    pub fn panel_key_path(&self) -> PathBuf {
        self.dir.join("panel-key")
    }

    /// The person's own credential for the control panel, which no agent is
    /// given; generated and stored (mode 0600) on first use.
    pub fn load_or_create_panel_key(&self) -> std::io::Result<String> {
        load_or_create_secret(&self.panel_key_path())
    }

    pub fn metrics_token_path(&self) -> PathBuf {
        self.dir.join("metrics-token")
    }

    /// The read-only credential for `/metrics`, generated and stored
    /// (mode 0600) on first use.
    pub fn load_or_create_metrics_token(&self) -> std::io::Result<String> {
        load_or_create_secret(&self.metrics_token_path())
    }

    /// Removes an ephemeral profile; a persistent one is kept.
    pub fn cleanup(&self) {
        if self.ephemeral {
            let _ = fs::remove_dir_all(&self.dir);
        }
    }
}

/// `$XDG_DATA_HOME/sovereign-browser`, falling back to `~/.local/share`.
pub fn default_dir() -> PathBuf {
    let base = std::env::var_os("XDG_DATA_HOME")
        .map(PathBuf::from)
        .filter(|p| p.is_absolute())
        .or_else(|| std::env::var_os("HOME").map(|h| PathBuf::from(h).join(".local/share")))
        .unwrap_or_else(std::env::temp_dir);
    base.join("sovereign-browser")
}

/// Writes `bytes` as `dir/name`, owner-only, unless the file holds them
/// already: a library a running process maps is left as it is. Answers the
/// file's path.
pub fn install_private(dir: &Path, name: &str, bytes: &[u8]) -> std::io::Result<PathBuf> {
    fs::create_dir_all(dir)?;
    let path = dir.join(name);
    if fs::read(&path).ok().as_deref() != Some(bytes) {
        write_private(&path, bytes)?;
    }
    Ok(path)
}

const EPHEMERAL_PREFIX: &str = "sovereign-browser-";

/// The environment variable naming the ephemeral profile's folder a
/// launcher made before it became the browser (the display's cookie is
/// in it already).
pub const HANDED_DOWN: &str = "SOVEREIGN_EPHEMERAL_PROFILE";

/// A new ephemeral profile's folder (not yet made).
fn new_ephemeral_dir() -> PathBuf {
    std::env::temp_dir().join(format!("{EPHEMERAL_PREFIX}{}", random_hex(8)))
}

/// Whether `dir` is an ephemeral profile's folder of this user: directly in
/// the temporary folder, named as [`new_ephemeral_dir`] names them, a
/// folder (not a link) owned by this user and open to no one else.
fn is_ephemeral_dir(dir: &Path) -> bool {
    use std::os::unix::fs::MetadataExt as _;
    let named = dir.parent() == Some(std::env::temp_dir().as_path())
        && dir
            .file_name()
            .and_then(|n| n.to_str())
            .and_then(|n| n.strip_prefix(EPHEMERAL_PREFIX))
            .is_some_and(|rest| rest.len() == 16 && rest.bytes().all(|b| b.is_ascii_hexdigit()));
    // SAFETY: geteuid has no arguments and cannot fail.
    let me = unsafe { libc::geteuid() };
    named
        && fs::symlink_metadata(dir)
            .is_ok_and(|m| m.is_dir() && m.uid() == me && m.mode() & 0o077 == 0)
}

/// Writes a file readable by its owner only.
pub fn write_private(path: &Path, bytes: &[u8]) -> std::io::Result<()> {
    // A new file, owner-only from its first byte, then renamed over the old
    // one: a reader sees the old contents or the new, never half, and a
    // file that was readable by others is replaced rather than reused.
    let name = path
        .file_name()
        .ok_or_else(|| std::io::Error::other(format!("{}: not a file name", path.display())))?;
    let temp = path.with_file_name(format!(".{}.{}.tmp", name.to_string_lossy(), random_hex(6)));
    let written = (|| {
        let mut file = fs::OpenOptions::new()
            .write(true)
            .create_new(true)
            .mode(0o600)
            .open(&temp)?;
        file.write_all(bytes)?;
        file.sync_all()?;
        fs::rename(&temp, path)
    })();
    if written.is_err() {
        let _ = fs::remove_file(&temp);
    }
    written
}

/// `bytes` random bytes from the OS, hex encoded.
pub fn random_hex(bytes: usize) -> String {
    let mut buf = vec![0u8; bytes];
    getrandom::fill(&mut buf).expect("the OS random source is unavailable");
    buf.iter().map(|b| format!("{b:02x}")).collect()
}

/// A random secret kept in `path`: read when a whole one is there, else
/// made and written owner-only.
fn load_or_create_secret(path: &Path) -> std::io::Result<String> {
    if let Ok(text) = fs::read_to_string(path) {
        let secret = text.trim().to_string();
        if secret.len() >= 32 {
            return Ok(secret);
        }
    }
    let secret = random_hex(32);
    write_private(path, secret.as_bytes())?;
    Ok(secret)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_an_ephemeral_profile_of_this_user_is_taken_over() {
        let made = Profile::open(None, true).expect("an ephemeral profile");
        let taken = Profile::take_over(Some(made.dir.as_os_str())).expect("taken over");
        assert_eq!(taken.dir, made.dir);
        assert!(taken.ephemeral);
        // Not one of ours: a fresh folder instead.
        for other in ["/etc", "/tmp", "/tmp/sovereign-browser-zz", ""] {
            let fresh = Profile::take_over(Some(std::ffi::OsStr::new(other))).expect("fresh");
            assert_ne!(fresh.dir.as_os_str(), other);
            assert!(is_ephemeral_dir(&fresh.dir), "{}", fresh.dir.display());
            fresh.cleanup();
        }
        // Open to others: refused.
        fs::set_permissions(&made.dir, fs::Permissions::from_mode(0o755)).expect("chmod");
        assert!(!is_ephemeral_dir(&made.dir));
        made.cleanup();
        assert!(!is_ephemeral_dir(&made.dir), "gone");
        let none = Profile::take_over(None).expect("fresh");
        none.cleanup();
    }

    #[test]
    fn token_is_created_once_and_private() {
        let profile = Profile::open(None, true).unwrap();
        let first = profile.load_or_create_token().unwrap();
        assert_eq!(first.len(), 64);
        assert_eq!(profile.load_or_create_token().unwrap(), first);
        let mode = fs::metadata(profile.token_path())
            .unwrap()
            .permissions()
            .mode();
        assert_eq!(mode & 0o777, 0o600);
        profile.cleanup();
        assert!(!profile.dir.exists());
    }

    #[test]
    fn the_panel_key_is_another_secret() {
        let profile = Profile::open(None, true).unwrap();
        let key = profile.load_or_create_panel_key().unwrap();
        assert_eq!(profile.load_or_create_panel_key().unwrap(), key);
        assert_ne!(key, profile.load_or_create_token().unwrap());
        let mode = fs::metadata(profile.panel_key_path())
            .unwrap()
            .permissions()
            .mode();
        assert_eq!(mode & 0o777, 0o600);
        profile.cleanup();
    }

    #[test]
    fn a_private_write_replaces_a_readable_file_whole() {
        let profile = Profile::open(None, true).unwrap();
        let path = profile.dir.join("secret");
        fs::write(&path, "old").unwrap();
        fs::set_permissions(&path, fs::Permissions::from_mode(0o644)).unwrap();
        write_private(&path, b"new").unwrap();
        assert_eq!(fs::read_to_string(&path).unwrap(), "new");
        assert_eq!(
            fs::metadata(&path).unwrap().permissions().mode() & 0o777,
            0o600
        );
        let left: Vec<_> = fs::read_dir(&profile.dir)
            .unwrap()
            .flatten()
            .map(|e| e.file_name())
            .collect();
        assert_eq!(
            left,
            vec![std::ffi::OsString::from("secret")],
            "no temporary file is left"
        );
        profile.cleanup();
    }

    #[test]
    fn random_hex_differs() {
        assert_ne!(random_hex(16), random_hex(16));
    }
}
