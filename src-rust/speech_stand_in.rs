//! WebKit's web and network processes load the speech synthesiser only
//! once a page speaks: until then a stand-in takes flite's place.
//!
//! WebKitGTK links flite (its library, English front end and voices:
//! thirteen libraries) into libwebkit2gtk, so every process that loads
//! WebKit loads them, and the loader fixes up the voices' data in each:
//! 3.6 MiB of written pages per process and 4 ms of its start, 36 MiB with
//! ten tabs, for what only a page calling `speechSynthesis` uses (in its
//! web process; the network process never does).
//!
//! The stand-in (`src-rust/speech-stand-in/stand_in.c`) defines every
//! function flite's libraries export as a jump that, the first time, loads
//! the real libraries and goes on to the real function. It is written into
//! the profile's web data folder under each of flite's names, and that
//! folder is named first in LD_LIBRARY_PATH for the processes the browser
//! starts; this process has loaded the real flite already. The loader
//! finds every name there, sees one file and loads it once; its
//! constructor takes the folder out of the variable again, so nothing
//! those processes start inherits it.

use std::ffi::{OsStr, OsString};
use std::os::unix::ffi::{OsStrExt as _, OsStringExt as _};
use std::path::{Path, PathBuf};
use std::process::Command;

const LIBRARY: &[u8] = include_bytes!(concat!(env!("OUT_DIR"), "/libsovereign-speech-stand-in.so"));
const FILE_NAME: &str = "libsovereign-speech-stand-in.so";
/// flite's libraries among libwebkit2gtk's when the browser was built, a
/// line each: the name WebKit links, the file and its size, separated by
/// tabs (none where WebKit links no flite).
const LIBRARIES: &str = include_str!(concat!(env!("OUT_DIR"), "/speech-stand-in-names.txt"));
/// The loader's variable: folders searched before the system's.
const SEARCH: &str = "LD_LIBRARY_PATH";
/// The stand-in's folder in the web data folder.
const FOLDER: &str = "speech-stand-in";

/// Whether the loader splits LD_LIBRARY_PATH's entries at `byte`.
fn separates(byte: &u8) -> bool {
    matches!(byte, b':' | b';')
}

/// Writes the stand-in under `web_data` by every name of [`LIBRARIES`] and
/// has the processes started from now on find it first. Answers the
/// folder, or None where WebKit links no flite or flite changed since the
/// browser was built (the stand-in defines the functions it had then).
///
/// Call it before any thread starts: it sets an environment variable.
pub fn stand_in(web_data: &Path) -> std::io::Result<Option<PathBuf>> {
    let Some(folder) = write_files(web_data)? else {
        return Ok(None);
    };
    match searched_first(std::env::var_os(SEARCH), &folder) {
        Some(value) => std::env::set_var(SEARCH, value),
        None => tracing::info!(
            folder = %folder.display(),
            "WebKit's processes load flite: the folder's path holds a colon or a semicolon"
        ),
    }
    Ok(Some(folder))
}

/// Writes the stand-in and a link to it by each of [`LIBRARIES`]' names into
/// `web_data`'s folder for it. Answers the folder, or None when nothing
/// stands in.
fn write_files(web_data: &Path) -> std::io::Result<Option<PathBuf>> {
    let Some(names) = names_standing_in(LIBRARIES, |path| {
        std::fs::metadata(path).map(|m| m.len()).ok()
    }) else {
        return Ok(None);
    };
    let folder = web_data.join(FOLDER);
    crate::profile::install_private(&folder, FILE_NAME, LIBRARY)?;
    for name in names {
        link(&folder.join(name))?;
    }
    Ok(Some(folder))
}

/// The names to stand in under, from `libraries` (as [`LIBRARIES`]): None
/// when there are none, a line is not as written at build time, or a file
/// is gone or of another size than then (`size_of`).
fn names_standing_in(libraries: &str, size_of: impl Fn(&Path) -> Option<u64>) -> Option<Vec<&str>> {
    let mut names = Vec::new();
    for line in libraries.lines() {
        let [name, path, size] = line.split('\t').collect::<Vec<_>>()[..] else {
            return None;
        };
        if !is_plain_name(name) || size_of(Path::new(path)) != size.parse().ok() {
            tracing::info!(%path, "flite changed since the browser was built: WebKit's processes load it");
            return None;
        }
        names.push(name);
    }
    (!names.is_empty()).then_some(names)
}

/// A file name of one part: no folder, not `.` or `..`.
fn is_plain_name(name: &str) -> bool {
    !name.is_empty() && name != "." && name != ".." && !name.contains('/')
}

/// Makes `path` a link to the stand-in beside it, unless it is one.
fn link(path: &Path) -> std::io::Result<()> {
    if std::fs::read_link(path).is_ok_and(|target| target == Path::new(FILE_NAME)) {
        return Ok(());
    }
    match std::fs::remove_file(path) {
        Ok(()) => {}
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
        Err(e) => return Err(e),
    }
    std::os::unix::fs::symlink(FILE_NAME, path)
}

/// LD_LIBRARY_PATH with `folder` first and what `current` names after it,
/// or None when the path cannot be one of its entries (the loader splits
/// the variable at colons and semicolons).
fn searched_first(current: Option<OsString>, folder: &Path) -> Option<OsString> {
    let path = folder.as_os_str().as_bytes();
    if path.is_empty() || path.iter().any(separates) {
        return None;
    }
    let rest = without(current.as_deref().unwrap_or_default(), folder);
    let mut value = path.to_vec();
    if let Some(rest) = rest {
        value.push(b':');
        value.extend_from_slice(rest.as_bytes());
    }
    Some(OsString::from_vec(value))
}

/// LD_LIBRARY_PATH's `value` without the entries naming `folder`, or None
/// when nothing is left (an empty entry is kept: the loader reads it as
/// the working folder).
fn without(value: &OsStr, folder: &Path) -> Option<OsString> {
    if value.is_empty() {
        return None;
    }
    let folder = folder.as_os_str().as_bytes();
    let kept: Vec<&[u8]> = value
        .as_bytes()
        .split(separates)
        .filter(|entry| *entry != folder)
        .collect();
    (!kept.is_empty()).then(|| OsString::from_vec(kept.join(&b':')))
}

/// Has `command`, a program other than WebKit's (the private display, a
/// signer's helper), start without the stand-in's folder: whatever it
/// loads is the system's own.
pub fn other_program(command: &mut Command) -> &mut Command {
    let Some(value) = std::env::var_os(SEARCH) else {
        return command;
    };
    let ours = value
        .as_bytes()
        .split(separates)
        .find(|entry| Path::new(OsStr::from_bytes(entry)).file_name() == Some(OsStr::new(FOLDER)))
        .map(|entry| PathBuf::from(OsStr::from_bytes(entry)));
    match ours {
        None => command,
        Some(folder) => match without(&value, &folder) {
            Some(kept) => command.env(SEARCH, kept),
            None => command.env_remove(SEARCH),
        },
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::loader_tables::built_library::dynamic_symbols;

    #[test]
    fn the_folder_comes_first_and_what_the_person_set_stays() {
        let folder = Path::new("/p/web-data/speech-stand-in");
        assert_eq!(
            searched_first(None, folder),
            Some("/p/web-data/speech-stand-in".into())
        );
        assert_eq!(
            searched_first(Some("".into()), folder),
            Some("/p/web-data/speech-stand-in".into())
        );
        assert_eq!(
            searched_first(Some("/opt/lib;/usr/local/lib".into()), folder),
            Some("/p/web-data/speech-stand-in:/opt/lib:/usr/local/lib".into())
        );
        // Named once, first, however often it was there.
        assert_eq!(
            searched_first(Some("/opt/lib:/p/web-data/speech-stand-in".into()), folder),
            Some("/p/web-data/speech-stand-in:/opt/lib".into())
        );
    }

    #[test]
    fn a_folder_the_variable_cannot_hold_is_not_added() {
        for path in ["/home/a:b/speech-stand-in", "/x;y/speech-stand-in", ""] {
            assert_eq!(searched_first(None, Path::new(path)), None, "{path:?}");
        }
    }

    #[test]
    fn other_programs_leave_the_folder_out() {
        let folder = Path::new("/p/speech-stand-in");
        assert_eq!(
            without(OsStr::new("/p/speech-stand-in:/opt/lib"), folder),
            Some("/opt/lib".into())
        );
        assert_eq!(without(OsStr::new("/p/speech-stand-in"), folder), None);
        assert_eq!(
            without(OsStr::new("::/p/speech-stand-in"), folder),
            Some(":".into()),
            "empty entries (the working folder) are the person's"
        );
        assert_eq!(without(OsStr::new(""), folder), None);
    }

    #[test]
    fn flite_as_built_is_stood_in_for_and_a_changed_one_is_not() {
        let libraries =
            "libflite.so.1\t/lib/libflite.so.1\t100\nlibflite_x.so.1\t/lib/libflite_x.so.1\t200\n";
        let sizes = |path: &Path| match path.to_str() {
            Some("/lib/libflite.so.1") => Some(100),
            Some("/lib/libflite_x.so.1") => Some(200),
            _ => None,
        };
        assert_eq!(
            names_standing_in(libraries, sizes),
            Some(vec!["libflite.so.1", "libflite_x.so.1"])
        );
        let grown = |path: &Path| sizes(path).map(|size| size + u64::from(size == 200));
        assert_eq!(
            names_standing_in(libraries, grown),
            None,
            "a file of another size"
        );
        let gone = |path: &Path| sizes(path).filter(|&size| size != 100);
        assert_eq!(names_standing_in(libraries, gone), None, "a file gone");
        assert_eq!(names_standing_in("", sizes), None, "WebKit links no flite");
        assert_eq!(
            names_standing_in("libflite.so.1\n", sizes),
            None,
            "a line not as written"
        );
        assert_eq!(
            names_standing_in("../libc.so.6\t/lib/libflite.so.1\t100\n", sizes),
            None,
            "a name that would leave the folder"
        );
    }

    #[test]
    fn names_that_would_leave_the_folder_are_refused() {
        assert!(is_plain_name("libflite.so.1"));
        for name in ["", ".", "..", "../libc.so.6", "/lib/libflite.so.1"] {
            assert!(!is_plain_name(name), "{name:?}");
        }
    }

    /// The flite functions libwebkit2gtk calls, by `nm -D` of the library
    /// this test binary maps.
    fn webkits_speech_calls() -> Vec<String> {
        let maps = std::fs::read_to_string("/proc/self/maps").expect("maps");
        let webkit = maps
            .lines()
            .filter_map(|line| line.split_whitespace().nth(5))
            .find(|file| file.contains("libwebkit2gtk"))
            .expect("the test binary maps libwebkit2gtk")
            .to_string();
        let speech: Vec<String> = maps
            .lines()
            .filter_map(|line| line.split_whitespace().nth(5))
            .filter(|file| file.contains("libflite"))
            .map(String::from)
            .collect();
        let mut flite_defines = Vec::new();
        for library in speech {
            let (defined, _) = dynamic_symbols(&std::fs::read(&library).expect("read"));
            flite_defines.extend(defined);
        }
        let (_, undefined) = dynamic_symbols(&std::fs::read(&webkit).expect("read"));
        undefined
            .into_iter()
            .map(|s| s.split('@').next().unwrap_or(&s).to_string())
            .filter(|s| flite_defines.contains(s))
            .collect()
    }

    #[test]
    fn it_defines_every_flite_function_webkit_calls_and_needs_only_libc() {
        if LIBRARIES.trim().is_empty() {
            return; // WebKit built without speech synthesis: nothing stands in.
        }
        let (defined, undefined) = dynamic_symbols(LIBRARY);
        let calls = webkits_speech_calls();
        assert!(calls.len() >= 5, "WebKit calls flite: {calls:?}");
        for call in &calls {
            assert!(defined.contains(call), "{call} is not defined");
        }
        assert!(
            defined.len() > 500,
            "all of flite's functions: {}",
            defined.len()
        );
        let needs: Vec<&str> = undefined
            .iter()
            .filter(|s| !s.starts_with('_'))
            .map(|s| s.split('@').next().unwrap_or(s))
            .collect();
        assert_eq!(
            needs,
            [
                "dladdr",
                "dlopen",
                "dlsym",
                "free",
                "getenv",
                "malloc",
                "memcmp",
                "memcpy",
                "pthread_once",
                "setenv",
                "strlen",
                "strrchr",
                "unsetenv"
            ]
        );
    }

    /// Runs `env` with the stand-in found under flite's name in `folder`
    /// and LD_LIBRARY_PATH set to `search`: answers the variable as the
    /// program's own environment holds it once the constructor has run.
    fn search_path_seen_by_a_program(folder: &Path, search: &str) -> Option<String> {
        let output = Command::new("env")
            .env("LD_LIBRARY_PATH", search)
            .env("LD_PRELOAD", folder.join("libflite.so.1"))
            .output()
            .expect("env runs");
        assert!(output.status.success(), "{output:?}");
        String::from_utf8_lossy(&output.stdout)
            .lines()
            .find_map(|line| line.strip_prefix("LD_LIBRARY_PATH="))
            .map(String::from)
    }

    #[test]
    fn what_a_stand_in_process_starts_inherits_no_trace_of_it() {
        let web_data =
            std::env::temp_dir().join(format!("sb-speech-{}", crate::profile::random_hex(4)));
        let Some(folder) = stand_in_files(&web_data) else {
            return; // WebKit built without speech synthesis.
        };
        let ours = folder.display().to_string();
        assert_eq!(
            search_path_seen_by_a_program(&folder, &format!("{ours}:/opt/lib::/usr/local/lib")),
            Some("/opt/lib::/usr/local/lib".into())
        );
        assert_eq!(search_path_seen_by_a_program(&folder, &ours), None);
        assert_eq!(
            search_path_seen_by_a_program(&folder, "/opt/lib"),
            Some("/opt/lib".into()),
            "a variable without the folder is left as it was"
        );
        let _ = std::fs::remove_dir_all(&web_data);
    }

    /// The files [`stand_in`] writes, twice (what is in place is kept),
    /// without touching this process's environment (tests run on threads).
    fn stand_in_files(web_data: &Path) -> Option<PathBuf> {
        write_files(web_data).expect("written");
        write_files(web_data).expect("written again")
    }

    /// The stand-in loaded into this process (which links WebKit, so the
    /// real flite is loaded too), kept for the rest of the test run.
    fn loaded_stand_in() -> Option<*mut libc::c_void> {
        use std::sync::OnceLock;
        static HANDLE: OnceLock<Option<usize>> = OnceLock::new();
        let handle = HANDLE.get_or_init(|| {
            let web_data =
                std::env::temp_dir().join(format!("sb-speech-{}", crate::profile::random_hex(4)));
            let folder = stand_in_files(&web_data)?;
            let path = std::ffi::CString::new(folder.join(FILE_NAME).into_os_string().into_vec())
                .expect("no NUL");
            // SAFETY: a NUL-terminated path; NULL when it cannot load. The
            // handle is never closed. Its constructor only reads
            // LD_LIBRARY_PATH, which does not name this folder.
            let handle = unsafe { libc::dlopen(path.as_ptr(), libc::RTLD_NOW | libc::RTLD_LOCAL) };
            let _ = std::fs::remove_dir_all(&web_data);
            assert!(!handle.is_null(), "the stand-in loads");
            Some(handle as usize)
        });
        handle.map(|h| h as *mut libc::c_void)
    }

    /// The stand-in's function `name`.
    fn function(handle: *mut libc::c_void, name: &str) -> *mut libc::c_void {
        let name = std::ffi::CString::new(name).expect("no NUL");
        // SAFETY: a live handle and a NUL-terminated name.
        let found = unsafe { libc::dlsym(handle, name.as_ptr()) };
        assert!(!found.is_null(), "the stand-in defines {name:?}");
        found
    }

    #[test]
    fn a_call_reaches_flite_with_its_arguments_and_answer() {
        let Some(handle) = loaded_stand_in() else {
            return; // WebKit built without speech synthesis.
        };
        type Atof = unsafe extern "C" fn(*const libc::c_char) -> f64;
        type Sprintf =
            unsafe extern "C" fn(*mut libc::c_char, *const libc::c_char, ...) -> libc::c_int;
        type Member =
            unsafe extern "C" fn(*const libc::c_char, *const *const libc::c_char) -> libc::c_int;
        // SAFETY: flite's own prototypes (cst_string.h) for these names.
        let (atof, sprintf, member) = unsafe {
            (
                std::mem::transmute::<*mut libc::c_void, Atof>(function(handle, "cst_atof")),
                std::mem::transmute::<*mut libc::c_void, Sprintf>(function(handle, "cst_sprintf")),
                std::mem::transmute::<*mut libc::c_void, Member>(function(
                    handle,
                    "cst_member_string",
                )),
            )
        };
        // Each from several threads at once, the first calls among them:
        // the real libraries are looked up once, and every call gets its
        // arguments (integer, pointer, floating point, variadic) as made.
        let threads: Vec<_> = (0..4)
            .map(|i| {
                std::thread::spawn(move || {
                    for round in 0..50 {
                        let x = f64::from(i * 100 + round) + 0.25;
                        let text = std::ffi::CString::new(format!("{x}")).expect("no NUL");
                        // SAFETY: a NUL-terminated number.
                        assert_eq!(unsafe { atof(text.as_ptr()) }, x);
                        let mut buffer = [0 as libc::c_char; 128];
                        let format = c"%s|%d|%.2f|%ld|%.1f";
                        // SAFETY: a buffer far larger than the text, and
                        // arguments of the format's types.
                        let written = unsafe {
                            sprintf(
                                buffer.as_mut_ptr(),
                                format.as_ptr(),
                                c"flite".as_ptr(),
                                i,
                                x,
                                1_i64 << 40,
                                -2.5,
                            )
                        };
                        // SAFETY: NUL-terminated by sprintf.
                        let text = unsafe { std::ffi::CStr::from_ptr(buffer.as_ptr()) };
                        let expected = format!("flite|{i}|{x:.2}|{}|-2.5", 1_i64 << 40);
                        assert_eq!(text.to_str().expect("UTF-8"), expected);
                        assert_eq!(written as usize, expected.len());
                        let list = [c"awb".as_ptr(), c"kal".as_ptr(), std::ptr::null()];
                        // SAFETY: a NULL-terminated list of NUL-terminated names.
                        assert_eq!(unsafe { member(c"kal".as_ptr(), list.as_ptr()) }, 1);
                        // SAFETY: as above.
                        assert_eq!(unsafe { member(c"rms".as_ptr(), list.as_ptr()) }, 0);
                    }
                })
            })
            .collect();
        for thread in threads {
            thread.join().expect("no thread failed");
        }
    }

    #[test]
    fn every_name_leads_to_the_one_file() {
        let web_data =
            std::env::temp_dir().join(format!("sb-speech-{}", crate::profile::random_hex(4)));
        let Some(folder) = stand_in_files(&web_data) else {
            return;
        };
        // A stale file under one of the names is replaced by the link.
        let names: Vec<&str> = LIBRARIES
            .lines()
            .filter_map(|l| l.split('\t').next())
            .collect();
        let first = names[0];
        std::fs::remove_file(folder.join(first)).expect("removed");
        std::fs::write(folder.join(first), b"stale").expect("written");
        link(&folder.join(first)).expect("relinked");
        for name in &names {
            assert_eq!(
                std::fs::read(folder.join(name)).expect("readable"),
                LIBRARY,
                "{name}"
            );
        }
        let _ = std::fs::remove_dir_all(&web_data);
    }
}
