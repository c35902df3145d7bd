//! The dynamic loader's relocation tables, given back in each of the
//! browser's processes once read (`src-rust/loader-tables/loader_tables.c`
//! says what it unmaps and why that is safe): about 15 MiB of the process
//! tree's resident memory.
//!
//! The library is carried in the binary and written into the profile's web
//! data folder. Loaded here, its constructor gives back this process's
//! tables; named in LD_PRELOAD, it does the same in every process started
//! from then on: WebKit's web and network processes, and the private Xvfb.
//! A page of a table only counts less once every process mapping it has
//! let it go, which is why the children need it as much as this process.

use std::ffi::{CStr, CString, OsString};
use std::os::unix::ffi::{OsStrExt as _, OsStringExt as _};
use std::path::{Path, PathBuf};

const LIBRARY: &[u8] = include_bytes!(concat!(env!("OUT_DIR"), "/libsovereign-loader-tables.so"));
const FILE_NAME: &str = "libsovereign-loader-tables.so";
/// The loader's variable: libraries loaded into a program before its own.
const PRELOAD: &str = "LD_PRELOAD";

/// Whether the loader splits LD_PRELOAD's entries at `byte`.
fn separates(byte: &u8) -> bool {
    matches!(byte, b' ' | b':' | b'\t' | b'\n')
}

/// Writes the library under `web_data`, gives back this process's tables
/// and has every process started later load it too. Answers the library's
/// path.
///
/// Call it before any thread starts: it sets an environment variable.
pub fn give_back(web_data: &Path) -> std::io::Result<PathBuf> {
    let path =
        crate::profile::install_private(&web_data.join("loader-tables"), FILE_NAME, LIBRARY)?;
    load_here(&path)?;
    match preload_value(std::env::var_os(PRELOAD), &path) {
        Some(value) => std::env::set_var(PRELOAD, value),
        None => tracing::info!(
            path = %path.display(),
            "not preloaded in WebKit's processes: its path holds a space or a colon, or is there already"
        ),
    }
    Ok(path)
}

/// Loads the library into this process for the rest of its life: its
/// constructor runs once, now.
fn load_here(path: &Path) -> std::io::Result<()> {
    let name = CString::new(path.as_os_str().as_bytes())
        .map_err(|_| std::io::Error::other("the library's path holds a NUL byte"))?;
    // SAFETY: dlopen takes a NUL-terminated path and answers NULL when the
    // library cannot be loaded. The library's only code is its constructor
    // (it exports nothing), which reads the loader's program headers and
    // unmaps clean, never-written pages; the handle is never closed.
    let handle = unsafe { libc::dlopen(name.as_ptr(), libc::RTLD_NOW | libc::RTLD_LOCAL) };
    if handle.is_null() {
        return Err(std::io::Error::other(format!(
            "cannot load {}: {}",
            path.display(),
            last_dl_error()
        )));
    }
    Ok(())
}

/// dlerror's message, or a generic one.
fn last_dl_error() -> String {
    // SAFETY: dlerror answers NULL or a NUL-terminated message that stays
    // valid until the next dl call on this thread; it is copied at once.
    let message = unsafe { libc::dlerror() };
    if message.is_null() {
        return "no reason given".into();
    }
    // SAFETY: non-NULL, NUL-terminated (above).
    unsafe { CStr::from_ptr(message) }
        .to_string_lossy()
        .into_owned()
}

/// LD_PRELOAD with `library` added after what `current` already names, or
/// None when the path cannot be one of its entries (the loader splits the
/// variable at spaces and colons) or is there already.
fn preload_value(current: Option<OsString>, library: &Path) -> Option<OsString> {
    let path = library.as_os_str().as_bytes();
    if path.is_empty() || path.iter().any(separates) {
        return None;
    }
    let mut value = current.map(OsString::into_vec).unwrap_or_default();
    let present = value.split(separates).any(|entry| entry == path);
    if present {
        return None;
    }
    if !value.is_empty() {
        value.push(b':');
    }
    value.extend_from_slice(path);
    Some(OsString::from_vec(value))
}

/// Checks of the shared libraries the browser builds and carries.
#[cfg(test)]
pub(crate) mod built_library {
    use std::process::Command;

    /// `nm -D` of a built library: (defined, undefined) symbol names.
    pub fn dynamic_symbols(library: &[u8]) -> (Vec<String>, Vec<String>) {
        let path =
            std::env::temp_dir().join(format!("sb-library-{}.so", crate::profile::random_hex(4)));
        std::fs::write(&path, library).expect("the library written");
        let run = |flag: &str| {
            let output = Command::new("nm")
                .args(["-D", flag])
                .arg(&path)
                .output()
                .expect("nm runs (binutils)");
            assert!(output.status.success(), "nm -D {flag} failed");
            String::from_utf8_lossy(&output.stdout)
                .lines()
                .filter_map(|line| line.split_whitespace().last().map(String::from))
                .collect::<Vec<_>>()
        };
        let symbols = (run("--defined-only"), run("--undefined-only"));
        let _ = std::fs::remove_file(&path);
        symbols
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_library_is_named_after_what_the_variable_holds() {
        let library = Path::new("/profile/web-data/loader-tables/lib.so");
        assert_eq!(
            preload_value(None, library),
            Some("/profile/web-data/loader-tables/lib.so".into())
        );
        assert_eq!(
            preload_value(Some("".into()), library),
            Some("/profile/web-data/loader-tables/lib.so".into())
        );
        assert_eq!(
            preload_value(Some("/usr/lib/other.so".into()), library),
            Some("/usr/lib/other.so:/profile/web-data/loader-tables/lib.so".into())
        );
    }

    #[test]
    fn a_path_the_variable_cannot_hold_or_holds_already_is_not_added() {
        for path in ["/home/a person/lib.so", "/opt/a:b/lib.so", ""] {
            assert_eq!(preload_value(None, Path::new(path)), None, "{path:?}");
        }
        let library = Path::new("/p/lib.so");
        assert_eq!(preload_value(Some("/x.so /p/lib.so".into()), library), None);
        assert_eq!(preload_value(Some("/p/lib.so".into()), library), None);
    }

    #[test]
    fn the_library_exports_nothing_and_calls_only_what_it_says() {
        let (defined, undefined) = built_library::dynamic_symbols(LIBRARY);
        assert_eq!(
            defined,
            Vec::<String>::new(),
            "its constructor is all it has"
        );
        // Beside the toolchain's own stubs (names beginning with _).
        let calls: Vec<&str> = undefined
            .iter()
            .filter(|s| !s.starts_with('_'))
            .map(|s| s.split('@').next().unwrap_or(s))
            .collect();
        assert_eq!(calls, ["dl_iterate_phdr", "madvise", "sysconf"]);
    }

    #[test]
    fn a_library_that_cannot_load_is_a_clear_error() {
        let missing = std::env::temp_dir().join("sb-no-such-loader-tables.so");
        let error = load_here(&missing).expect_err("no such file");
        assert!(error.to_string().contains("cannot load"), "{error}");
        let not_elf = std::env::temp_dir().join(format!(
            "sb-not-a-library-{}.so",
            crate::profile::random_hex(4)
        ));
        std::fs::write(&not_elf, b"not an ELF file").expect("written");
        let error = load_here(&not_elf).expect_err("not a library");
        let _ = std::fs::remove_file(&not_elf);
        assert!(error.to_string().contains("cannot load"), "{error}");
    }

    /// Resident KiB of this process's mappings of `library` at file offset
    /// 0: the segment that holds its relocation table.
    fn first_segment_resident_kib(library: &str) -> Option<u64> {
        let smaps = std::fs::read_to_string("/proc/self/smaps").ok()?;
        let mut total = None;
        let mut counting = false;
        for line in smaps.lines() {
            let mut fields = line.split_whitespace();
            let first = fields.next().unwrap_or_default();
            if first.contains('-') && !first.ends_with(':') {
                // A mapping: address range, permissions, offset, device, inode, path.
                let offset = fields.nth(1).unwrap_or_default();
                counting = offset.bytes().all(|b| b == b'0') && line.contains(library);
            } else if counting && first == "Rss:" {
                let kib: u64 = fields.next()?.parse().ok()?;
                *total.get_or_insert(0) += kib;
            }
        }
        total
    }

    #[test]
    fn loading_it_gives_back_webkits_relocation_table() {
        let before = first_segment_resident_kib("libwebkit2gtk")
            .expect("the test binary maps libwebkit2gtk");
        let dir = std::env::temp_dir().join(format!(
            "sb-loader-tables-{}",
            crate::profile::random_hex(4)
        ));
        let path = dir.join(FILE_NAME);
        std::fs::create_dir_all(&dir).expect("folder");
        std::fs::write(&path, LIBRARY).expect("written");
        load_here(&path).expect("the library loads");
        let _ = std::fs::remove_dir_all(&dir);
        let after = first_segment_resident_kib("libwebkit2gtk").expect("still mapped");
        // libwebkit2gtk's table is 6.6 MiB (WebKitGTK 2.50); any build has megabytes.
        assert!(
            after + 2048 <= before,
            "resident {before} KiB before, {after} KiB after"
        );
    }
}
