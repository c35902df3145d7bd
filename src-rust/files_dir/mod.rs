//! The files folder: the one place on disk that agents' tools read files
//! from (upload, state_load) and write them to (pdf, state_save by path).
//! Agents read untrusted pages, so a page could ask one to upload the
//! person's SSH key or overwrite their files; inside this folder nothing of
//! the person's is at stake. Symbolic links cannot lead out, and a refusal
//! reads the same whether or not the path outside exists.
//!
//! What pages download lands in a folder of its own inside it
//! ([`PAGE_DOWNLOADS`]): a page's file may be uploaded like any other, but
//! agents' tools that would take it as their own (a state to load, a
//! route's answer, a HAR to answer from) refuse it; the person moves a
//! file out of that folder to let them.

mod error;

pub use error::FilesError;
use std::io;
use std::path::{Component, Path, PathBuf};

/// The folder, inside the files folder, that pages' downloads land in.
pub const PAGE_DOWNLOADS: &str = "page-downloads";

pub struct FilesDir {
    /// Canonical (symbolic links resolved), so that prefixes compare.
    root: PathBuf,
    /// The most the folder may hold before tools write no more into it.
    max_bytes: u64,
}

/// Entries of the folder looked at when it is measured; past them it is
/// taken as full (a folder of millions of files is full enough).
const MEASURED_MAX: usize = 100_000;

impl FilesDir {
    /// The folder at `root`, created owner-only if missing. It must
    /// neither hold the profile, where the secrets are, nor lie inside it
    /// (its site data and cookie jar would be agents' files), but for the
    /// profile's own downloads folder, the default.
    pub fn new(root: &Path, profile: &Path) -> io::Result<FilesDir> {
        use std::os::unix::fs::DirBuilderExt;
        std::fs::DirBuilder::new()
            .recursive(true)
            .mode(0o700)
            .create(root)?;
        let root = root.canonicalize()?;
        let profile = profile.canonicalize()?;
        if profile.starts_with(&root) {
            return Err(io::Error::other(format!(
                "the files folder {} holds the profile {}; choose a folder without it",
                root.display(),
                profile.display()
            )));
        }
        if root.starts_with(&profile) && !root.starts_with(profile.join(crate::profile::DOWNLOADS))
        {
            return Err(io::Error::other(format!(
                "the files folder {} is inside the profile {}; choose a folder outside it",
                root.display(),
                profile.display()
            )));
        }
        Ok(FilesDir {
            root,
            max_bytes: u64::MAX,
        })
    }

    /// The folder, taking no new file from tools once it holds `max_bytes`.
    pub fn bounded(self, max_bytes: u64) -> FilesDir {
        FilesDir { max_bytes, ..self }
    }

    /// Whether a tool may write one more file: the folder holds less than
    /// its most (`--files-max-mb`).
    fn room(&self) -> Result<(), FilesError> {
        if self.max_bytes == u64::MAX {
            return Ok(());
        }
        let held = size_of(&self.root);
        if held < self.max_bytes {
            return Ok(());
        }
        Err(FilesError::Full {
            held_mib: held >> 20,
            most_mib: self.max_bytes >> 20,
            root: self.root.clone(),
        })
    }

    pub fn root(&self) -> &Path {
        &self.root
    }

    /// Where pages' downloads land.
    pub fn page_downloads(&self) -> PathBuf {
        self.root.join(PAGE_DOWNLOADS)
    }

    /// An existing regular file inside the folder that no page downloaded:
    /// what an agent's tool takes as its own content.
    pub fn agents_file(&self, given: &str) -> Result<PathBuf, FilesError> {
        let real = self.existing_file(given)?;
        if real.starts_with(self.page_downloads()) {
            return Err(FilesError::PageDownloaded {
                given: given.to_string(),
                folder: PAGE_DOWNLOADS,
            });
        }
        Ok(real)
    }

    /// An existing regular file inside the folder, to read.
    pub fn existing_file(&self, given: &str) -> Result<PathBuf, FilesError> {
        let path = self.inside(given)?;
        let given = || given.to_string();
        let real = match path.canonicalize() {
            Ok(real) => real,
            Err(e) if e.kind() == io::ErrorKind::NotFound => {
                return Err(FilesError::NotFound { given: given() })
            }
            Err(e) => {
                return Err(FilesError::Unreadable {
                    given: given(),
                    why: e.to_string(),
                })
            }
        };
        if !real.starts_with(&self.root) {
            return Err(self.outside(&given()));
        }
        if !real.is_file() {
            return Err(FilesError::NotAFile { given: given() });
        }
        Ok(real)
    }

    /// A file to write inside the folder: its folder exists there, and the
    /// name is not a folder or a symbolic link (which could point out).
    pub fn new_file(&self, given: &str) -> Result<PathBuf, FilesError> {
        let path = self.inside(given)?;
        self.room()?;
        let (Some(parent), Some(name)) = (path.parent(), path.file_name()) else {
            return Err(FilesError::NoFileName {
                given: given.to_string(),
            });
        };
        let parent = parent.canonicalize().map_err(|_| FilesError::NoFolder {
            given: given.to_string(),
        })?;
        if !parent.starts_with(&self.root) {
            return Err(self.outside(given));
        }
        let path = parent.join(name);
        match std::fs::symlink_metadata(&path) {
            Ok(meta) if meta.file_type().is_symlink() => Err(self.outside(given)),
            Ok(meta) if meta.is_dir() => Err(FilesError::Folder {
                given: given.to_string(),
            }),
            _ => Ok(path),
        }
    }

    /// `given` as an absolute path, if it names a place in the folder: read
    /// from the text alone, so nothing outside is looked at.
    fn inside(&self, given: &str) -> Result<PathBuf, FilesError> {
        let path = Path::new(given);
        if !path.is_absolute() {
            return Err(FilesError::Relative {
                given: given.to_string(),
                root: self.root.clone(),
            });
        }
        let mut normal = PathBuf::new();
        for part in path.components() {
            match part {
                Component::ParentDir => {
                    normal.pop();
                }
                Component::CurDir => {}
                other => normal.push(other),
            }
        }
        if normal.starts_with(&self.root) && normal != self.root {
            Ok(normal)
        } else {
            Err(self.outside(given))
        }
    }

    fn outside(&self, given: &str) -> FilesError {
        FilesError::Outside {
            given: given.to_string(),
            root: self.root.clone(),
        }
    }
}

/// What the folder's files hold, links not followed; past
/// [`MEASURED_MAX`] entries, as full as can be.
fn size_of(root: &Path) -> u64 {
    let mut total = 0u64;
    let mut seen = 0usize;
    let mut folders = vec![root.to_path_buf()];
    while let Some(folder) = folders.pop() {
        let Ok(entries) = std::fs::read_dir(&folder) else {
            continue;
        };
        for entry in entries.flatten() {
            seen += 1;
            if seen > MEASURED_MAX {
                return u64::MAX;
            }
            match entry.metadata() {
                Ok(meta) if meta.is_dir() => folders.push(entry.path()),
                Ok(meta) => total = total.saturating_add(meta.len()),
                Err(_) => {}
            }
        }
    }
    total
}

#[cfg(test)]
mod tests {
    use super::*;

    fn folder() -> (tempdir::Dir, FilesDir) {
        let dir = tempdir::Dir::new();
        let files = FilesDir::new(&dir.0.join("files"), &dir.0.join("profile")).unwrap();
        (dir, files)
    }

    /// A temporary folder for a test, removed when dropped.
    mod tempdir {
        pub struct Dir(pub std::path::PathBuf);
        impl Dir {
            pub fn new() -> Dir {
                let path = std::env::temp_dir()
                    .join(format!("sovereign-files-{}", crate::profile::random_hex(8)));
                std::fs::create_dir_all(path.join("profile")).unwrap();
                Dir(path.canonicalize().unwrap())
            }
        }
        impl Drop for Dir {
            fn drop(&mut self) {
                let _ = std::fs::remove_dir_all(&self.0);
            }
        }
    }

    #[test]
    fn files_inside_are_served() {
        let (_dir, files) = folder();
        let inside = files.root().join("a.txt");
        std::fs::write(&inside, "a").unwrap();
        let given = inside.to_str().unwrap();
        assert_eq!(files.existing_file(given).unwrap(), inside);
        assert_eq!(files.new_file(given).unwrap(), inside);
        let dotted = format!("{}/./sub/../a.txt", files.root().display());
        assert_eq!(files.existing_file(&dotted).unwrap(), inside);
    }

    #[test]
    fn a_full_folder_takes_no_new_file_until_room_is_made() {
        let (_dir, files) = folder();
        let files = files.bounded(1000);
        let big = files.root().join("big.bin");
        let given = files.root().join("next.pdf");
        let given = given.to_str().unwrap();
        assert!(files.new_file(given).is_ok());
        std::fs::write(&big, vec![0u8; 1000]).unwrap();
        let refused = files.new_file(given).unwrap_err().to_string();
        assert!(refused.contains("--files-max-mb"), "{refused}");
        std::fs::remove_file(&big).unwrap();
        assert!(files.new_file(given).is_ok(), "room again");
    }

    #[test]
    fn what_a_page_downloaded_is_no_agents_file() {
        let (_dir, files) = folder();
        std::fs::create_dir_all(files.page_downloads()).unwrap();
        let downloaded = files.page_downloads().join("state.json");
        std::fs::write(&downloaded, "{}").unwrap();
        let given = downloaded.to_str().unwrap();
        assert_eq!(
            files.existing_file(given).unwrap(),
            downloaded,
            "uploaded like any file"
        );
        let refused = files.agents_file(given).unwrap_err().to_string();
        assert!(refused.contains("a page downloaded this file"), "{refused}");
        // A link from the folder into it is followed, and refused the same.
        let link = files.root().join("mine.json");
        std::os::unix::fs::symlink(&downloaded, &link).unwrap();
        assert!(files.agents_file(link.to_str().unwrap()).is_err());
        let own = files.root().join("own.json");
        std::fs::write(&own, "{}").unwrap();
        assert_eq!(files.agents_file(own.to_str().unwrap()).unwrap(), own);
    }

    #[test]
    fn outside_reads_the_same_whether_or_not_it_exists() {
        let (dir, files) = folder();
        let secret = dir.0.join("profile/identities.json");
        std::fs::write(&secret, "{}").unwrap();
        let exists = files
            .existing_file(secret.to_str().unwrap())
            .unwrap_err()
            .to_string();
        let missing = files
            .existing_file(dir.0.join("profile/nothing").to_str().unwrap())
            .unwrap_err()
            .to_string();
        assert!(exists.contains("outside the files folder"), "{exists}");
        assert_eq!(
            exists.replace("identities.json", "nothing"),
            missing,
            "the two refusals differ only in the name"
        );
        let escape = format!("{}/../profile/identities.json", files.root().display());
        assert!(files
            .existing_file(&escape)
            .unwrap_err()
            .to_string()
            .contains("outside"));
        assert!(files
            .new_file("/etc/passwd")
            .unwrap_err()
            .to_string()
            .contains("outside"));
        assert!(files
            .new_file("relative.pdf")
            .unwrap_err()
            .to_string()
            .contains("absolute"));
    }

    #[test]
    fn symbolic_links_cannot_lead_out() {
        let (dir, files) = folder();
        let secret = dir.0.join("profile/token");
        std::fs::write(&secret, "secret").unwrap();
        let link = files.root().join("token");
        std::os::unix::fs::symlink(&secret, &link).unwrap();
        let given = link.to_str().unwrap();
        assert!(files
            .existing_file(given)
            .unwrap_err()
            .to_string()
            .contains("outside"));
        assert!(files
            .new_file(given)
            .unwrap_err()
            .to_string()
            .contains("outside"));
        let out = files.root().join("out");
        std::os::unix::fs::symlink(dir.0.join("profile"), &out).unwrap();
        let through = format!("{}/written.json", out.display());
        assert!(files
            .new_file(&through)
            .unwrap_err()
            .to_string()
            .contains("outside"));
    }

    #[test]
    fn the_profile_is_never_inside() {
        let dir = tempdir::Dir::new();
        assert!(FilesDir::new(&dir.0, &dir.0.join("profile")).is_err());
    }

    // Regression: a folder inside the profile (its site data, say) was
    // accepted, handing the cookie jar to upload and state_save.
    #[test]
    fn nor_is_the_folder_inside_the_profile() {
        let dir = tempdir::Dir::new();
        let error = FilesDir::new(&dir.0.join("profile/webdata"), &dir.0.join("profile"))
            .err()
            .expect("refused");
        assert!(error.to_string().contains("inside the profile"), "{error}");
    }

    #[test]
    fn but_the_profiles_downloads_folder_is_the_default() {
        let dir = tempdir::Dir::new();
        assert!(FilesDir::new(&dir.0.join("profile/downloads"), &dir.0.join("profile")).is_ok());
    }

    #[test]
    fn a_new_folder_is_owner_only() {
        use std::os::unix::fs::PermissionsExt;
        let (_dir, files) = folder();
        let mode = std::fs::metadata(files.root())
            .unwrap()
            .permissions()
            .mode();
        assert_eq!(mode & 0o777, 0o700);
    }
}
