//! What the dynamic loader reads as each of the browser's processes starts,
//! made cheaper for all of them:
//!
//! - its relocation tables, given back once read
//!   (`src-rust/loader-tables/loader_tables.c` says what it unmaps and why
//!   that is safe): about 15 MiB of the process tree's resident memory.
//! - the library whose own symbols make most of its lookups, searched
//!   first: 10 to 12 ms of each WebKit process's start ([`LOOKED_UP_MOST`]).
//!
//! The library is carried in the binary and written into the profile's web
//! data folder. Loaded here, its constructor gives back this process's
//! tables; named in LD_PRELOAD, it does the same in every process started
//! from then on: WebKit's web and network processes, and the private Xvfb.
//! A page of a table only counts less once every process mapping it has
//! let it go, which is why the children need it as much as this process.

use std::ffi::{CStr, CString, OsStr, OsString};
use std::os::unix::ffi::{OsStrExt as _, OsStringExt as _};
use std::path::{Path, PathBuf};
use std::process::Command;

const LIBRARY: &[u8] = include_bytes!(concat!(env!("OUT_DIR"), "/libsovereign-loader-tables.so"));
const FILE_NAME: &str = "libsovereign-loader-tables.so";
/// The loader's variable: libraries loaded into a program before its own.
const PRELOAD: &str = "LD_PRELOAD";

/// Whether the loader splits LD_PRELOAD's entries at `byte`.
fn separates(byte: &u8) -> bool {
    matches!(byte, b' ' | b':' | b'\t' | b'\n')
}
/// WebKitGTK links flite's voices for speech synthesis; one of them holds
/// 31,000 relocations against its own symbols, each a lookup that walks
/// every library the loader placed before it (about 60 of WebKit's): 10 to
/// 12 ms of each process's start. Named in LD_PRELOAD it comes first and
/// each lookup ends there. Its names are its own (no library WebKit loads
/// defines one of them), so no lookup finds another definition than before.
/// Used only where this process has loaded it: where WebKit links it.
const LOOKED_UP_MOST: &[&str] = &["libflite_cmu_time_awb.so"];

/// Writes the library under `web_data`, gives back this process's tables
/// and has every process started later load it too. Answers the library's
/// path.
///
/// Call it before any thread starts: it sets an environment variable.
pub fn give_back(web_data: &Path) -> std::io::Result<PathBuf> {
    let path =
        crate::profile::install_private(&web_data.join("loader-tables"), FILE_NAME, LIBRARY)?;
    load_here(&path)?;
    let maps = std::fs::read_to_string("/proc/self/maps").unwrap_or_default();
    for library in looked_up_most(&maps).iter().chain([&path]) {
        match preload_value(std::env::var_os(PRELOAD), library) {
            Some(value) => std::env::set_var(PRELOAD, value),
            None => tracing::info!(
                path = %library.display(),
                "not preloaded in WebKit's processes: its path holds a space or a colon, or is there already"
            ),
        }
    }
    Ok(path)
}

/// Has `command`, a program other than WebKit's (the private display, a
/// signer's helper), start without [`LOOKED_UP_MOST`]: it would load
/// flite's voices for nothing. The loader tables library stays.
pub fn other_program(command: &mut Command) -> &mut Command {
    match std::env::var_os(PRELOAD) {
        None => command,
        Some(value) => match without_looked_up_most(&value) {
            Some(kept) => command.env(PRELOAD, kept),
            None => command.env_remove(PRELOAD),
        },
    }
}

/// LD_PRELOAD's `value` without the entries named in [`LOOKED_UP_MOST`],
/// or None when nothing is left.
fn without_looked_up_most(value: &OsStr) -> Option<OsString> {
    let kept: Vec<&[u8]> = value
        .as_bytes()
        .split(separates)
        .filter(|entry| !entry.is_empty())
        .filter(|entry| {
            let name = Path::new(OsStr::from_bytes(entry)).file_name();
            let name = name.map(OsStr::as_bytes).unwrap_or_default();
            !LOOKED_UP_MOST
                .iter()
                .any(|prefix| name.starts_with(prefix.as_bytes()))
        })
        .collect();
    (!kept.is_empty()).then(|| OsString::from_vec(kept.join(&b':')))
}

/// The files, among the libraries mapped in `maps` (/proc/PID/maps), whose
/// names begin with one of [`LOOKED_UP_MOST`].
fn looked_up_most(maps: &str) -> Vec<PathBuf> {
    let mut found: Vec<PathBuf> = Vec::new();
    for line in maps.lines() {
        let Some(file) = line
            .split_whitespace()
            .nth(5)
            .filter(|f| f.starts_with('/'))
        else {
            continue;
        };
        let path = Path::new(file);
        let name = path
            .file_name()
            .and_then(|n| n.to_str())
            .unwrap_or_default();
        if LOOKED_UP_MOST.iter().any(|prefix| name.starts_with(prefix))
            && !found.iter().any(|p| p == path)
        {
            found.push(path.to_path_buf());
        }
    }
    found
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
    fn the_library_looked_up_most_is_found_where_it_is_mapped() {
        let maps = "\
7f10 r--p 00000000 fe:01 11 /usr/lib/x86_64-linux-gnu/libflite_cmu_time_awb.so.2.2
7f20 r-xp 001f5000 fe:01 11 /usr/lib/x86_64-linux-gnu/libflite_cmu_time_awb.so.2.2
7f30 r--p 00000000 fe:01 12 /usr/lib/x86_64-linux-gnu/libflite_cmu_us_awb.so.2.2
7f40 rw-p 00000000 00:00 0 
7f50 r--p 00000000 fe:01 13 /usr/lib/x86_64-linux-gnu/libwebkit2gtk-4.1.so.0.19.9
7f60 rw-p 00000000 00:00 0 [heap]
";
        assert_eq!(
            looked_up_most(maps),
            [PathBuf::from(
                "/usr/lib/x86_64-linux-gnu/libflite_cmu_time_awb.so.2.2"
            )]
        );
        assert!(looked_up_most("").is_empty());
        assert!(
            looked_up_most("7f50 r--p 00000000 fe:01 13 /usr/lib/libwebkit2gtk.so\n").is_empty()
        );
    }

    #[test]
    fn other_programs_start_without_the_library_looked_up_most() {
        let ours = "/p/webdata/loader-tables/libsovereign-loader-tables.so";
        let both = format!("/usr/lib/libflite_cmu_time_awb.so.2.2:{ours}");
        assert_eq!(without_looked_up_most(OsStr::new(&both)), Some(ours.into()));
        assert_eq!(
            without_looked_up_most(OsStr::new("/a.so /usr/lib/libflite_cmu_time_awb.so.1")),
            Some("/a.so".into())
        );
        assert_eq!(
            without_looked_up_most(OsStr::new("/usr/lib/libflite_cmu_time_awb.so.1")),
            None
        );
        assert_eq!(without_looked_up_most(OsStr::new("")), None);
        let mut command = Command::new("true");
        other_program(&mut command);
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
