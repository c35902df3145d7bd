//! Four build steps, all written to `OUT_DIR` for the browser to embed:
//!
//! - the web process extension (`src-rust/web-extension/*.c`), which
//!   the browser hands to WebKit at start. It is C because WebKit loads it
//!   into its web processes as a plain shared library.
//! - the loader tables library (`src-rust/loader-tables/*.c`), loaded into
//!   the browser's processes for its constructor alone
//!   (`src-rust/loader_tables.rs`).
//! - the speech stand-in (`src-rust/speech-stand-in/stand_in.c`), which
//!   WebKit's web and network processes load in place of flite
//!   (`src-rust/speech_stand_in.rs`); the functions it defines are read
//!   from the flite libraries WebKit links, here.
//! - the agent library (`assets/agent/*.js`): one JavaScript closure kept
//!   in fragments, so each part can be read, and tested, on its own. The
//!   browser includes the joined script, `agent.js`.

use std::env;
use std::fs;
use std::path::{Path, PathBuf};
use std::process::Command;

const EXTENSION_DIR: &str = "src-rust/web-extension";
const LOADER_TABLES_DIR: &str = "src-rust/loader-tables";
const SPEECH_STAND_IN_DIR: &str = "src-rust/speech-stand-in";
const AGENT_DIR: &str = "assets/agent";

fn main() {
    let out = PathBuf::from(env::var("OUT_DIR").expect("cargo sets OUT_DIR"));
    println!("cargo:rerun-if-env-changed=CC");
    let webkit = pkg_config(&["--cflags", "--libs", "webkit2gtk-web-extension-4.1"]);
    build_library(
        EXTENSION_DIR,
        &out.join("libsovereign-web-extension.so"),
        &format!("{webkit} -lm"),
    );
    build_library(
        LOADER_TABLES_DIR,
        &out.join("libsovereign-loader-tables.so"),
        "",
    );
    let speech = speech_libraries();
    build_speech_stand_in(&out, &speech);
    link_looked_up_most(&speech);
    join_agent(&out);
}

/// WebKitGTK links flite's voices for speech synthesis; one of them holds
/// 31,000 relocations against its own symbols, each a lookup that walks
/// every library the loader placed before it. Named among the browser's
/// own libraries it is searched 16th instead of about 60th, and the
/// browser's process starts about 15 ms sooner. Only where WebKit links
/// it, so it adds no library to the program. (WebKit's other processes
/// load the speech stand-in instead.)
const LOOKED_UP_MOST: &str = "libflite_cmu_time_awb.so.1";

fn link_looked_up_most(speech: &[SpeechLibrary]) {
    if speech.iter().any(|library| library.name == LOOKED_UP_MOST) {
        println!(
            "cargo:rustc-link-arg-bin=sovereign-browser-engine=-Wl,--push-state,--no-as-needed,-l:{LOOKED_UP_MOST},--pop-state"
        );
    }
}

/// One of flite's libraries that libwebkit2gtk links: the name it is
/// linked by and the file the loader finds for it.
struct SpeechLibrary {
    name: String,
    path: PathBuf,
}

/// flite's libraries among libwebkit2gtk's, as the loader finds them (none
/// where WebKit is built without speech synthesis).
fn speech_libraries() -> Vec<SpeechLibrary> {
    let libdir = pkg_config(&["--variable=libdir", "webkit2gtk-4.1"]);
    let webkit = Path::new(libdir.trim()).join("libwebkit2gtk-4.1.so.0");
    let Ok(listed) = Command::new("ldd").arg(&webkit).output() else {
        return Vec::new();
    };
    String::from_utf8_lossy(&listed.stdout)
        .lines()
        .filter_map(|line| {
            // "\tlibflite.so.1 => /lib/x86_64-linux-gnu/libflite.so.1 (0x...)"
            let (name, rest) = line.trim().split_once(" => ")?;
            let path = rest.split_whitespace().next()?;
            (name.starts_with("libflite") && path.starts_with('/')).then(|| SpeechLibrary {
                name: name.to_string(),
                path: PathBuf::from(path),
            })
        })
        .collect()
}

/// Builds the speech stand-in with a jump for every function the
/// `speech` libraries export, and writes the names it stands in under
/// (`speech-stand-in-names.txt`, a line each, with the file and its size). Where WebKit links no flite,
/// or the jumps are not written for the machine, both are empty and
/// nothing stands in.
fn build_speech_stand_in(out: &Path, speech: &[SpeechLibrary]) {
    let library = out.join("libsovereign-speech-stand-in.so");
    let names = out.join("speech-stand-in-names.txt");
    let x86_64 = env::var("CARGO_CFG_TARGET_ARCH").is_ok_and(|arch| arch == "x86_64");
    if speech.is_empty() || !x86_64 {
        fs::write(&library, b"").expect("the empty stand-in is written");
        fs::write(&names, b"").expect("the stand-in's names are written");
        return;
    }
    // Each library after those it needs: fewer of flite's names needed first.
    let mut ordered: Vec<(usize, &SpeechLibrary)> = speech
        .iter()
        .map(|library| (speech_needed(&library.path), library))
        .collect();
    ordered.sort_by_key(|(needed, _)| *needed);
    let mut libraries = String::new();
    let mut functions = String::new();
    let mut seen = std::collections::BTreeSet::new();
    for (index, (_, library)) in ordered.iter().enumerate() {
        println!("cargo:rerun-if-changed={}", library.path.display());
        libraries.push_str(&format!(
            "SPEECH_LIBRARY({:?})\n",
            library.path.display().to_string()
        ));
        for name in exported_functions(&library.path) {
            if seen.insert(name.clone()) {
                functions.push_str(&format!("STAND_IN({}, {name}, {index})\n", seen.len() - 1));
            }
        }
    }
    fs::write(out.join("speech_libraries.h"), libraries)
        .expect("the stand-in's libraries are written");
    fs::write(out.join("speech_functions.h"), functions)
        .expect("the stand-in's functions are written");
    // "name<TAB>path<TAB>size": the browser stands in only while each file
    // is the one read here (a flite with new functions would need them).
    let listed: String = speech
        .iter()
        .map(|library| {
            let size = fs::metadata(&library.path).map(|m| m.len()).unwrap_or(0);
            format!("{}\t{}\t{size}\n", library.name, library.path.display())
        })
        .collect();
    fs::write(&names, listed).expect("the stand-in's names are written");
    build_library(
        SPEECH_STAND_IN_DIR,
        &library,
        &format!("-I{} -lpthread", out.display()),
    );
}

fn is_c_name(name: &str) -> bool {
    name.starts_with(|c: char| c.is_ascii_alphabetic())
        && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
}

/// How many of flite's libraries `path` names as needed (`readelf -d`).
fn speech_needed(path: &Path) -> usize {
    let listed = Command::new("readelf")
        .arg("-d")
        .arg(path)
        .output()
        .unwrap_or_else(|e| panic!("cannot run readelf (binutils): {e}"));
    String::from_utf8_lossy(&listed.stdout)
        .lines()
        .filter(|line| line.contains("(NEEDED)") && line.contains("[libflite"))
        .count()
}

/// The functions `path` exports (`nm -D`: text and indirect symbols).
fn exported_functions(path: &Path) -> Vec<String> {
    let listed = Command::new("nm")
        .args(["-D", "--defined-only"])
        .arg(path)
        .output()
        .unwrap_or_else(|e| panic!("cannot run nm (binutils): {e}"));
    assert!(listed.status.success(), "nm -D {} failed", path.display());
    String::from_utf8_lossy(&listed.stdout)
        .lines()
        .filter_map(
            |line| match line.split_whitespace().collect::<Vec<_>>()[..] {
                // "0000000000012340 T flite_init"; a plain C name (not the
                // toolchain's own, which begin with _), as the jumps name it.
                [_, "T" | "W" | "i", name] if is_c_name(name) => Some(name.to_string()),
                _ => None,
            },
        )
        .collect()
}

/// Builds the C files of `dir` into the shared library `library`, with the
/// compiler and linker flags `flags` besides the common ones.
fn build_library(dir: &str, library: &Path, flags: &str) {
    println!("cargo:rerun-if-changed={dir}");
    let mut sources: Vec<PathBuf> = fs::read_dir(dir)
        .unwrap_or_else(|e| panic!("cannot read {dir}: {e}"))
        .map(|entry| entry.expect("a readable folder entry").path())
        .filter(|path| path.extension().is_some_and(|ext| ext == "c" || ext == "h"))
        .collect();
    sources.sort();
    for source in &sources {
        println!("cargo:rerun-if-changed={}", source.display());
    }
    sources.retain(|path| path.extension().is_some_and(|ext| ext == "c"));
    let compiler = env::var("CC").unwrap_or_else(|_| "cc".into());
    let status = Command::new(&compiler)
        .args(["-shared", "-fPIC", "-O2", "-Wall", "-Werror"])
        // Hardening: only what the loader looks up is exported (the web
        // extension's entry point, which extension.c marks), checked buffer
        // functions, stack canaries, and relocations read-only once loaded.
        .args([
            "-fvisibility=hidden",
            "-D_FORTIFY_SOURCE=2",
            "-fstack-protector-strong",
            "-Wl,-z,relro,-z,now",
            "-o",
        ])
        .arg(library)
        .args(&sources)
        .args(flags.split_whitespace())
        .status()
        .unwrap_or_else(|e| panic!("cannot run the C compiler `{compiler}`: {e}"));
    assert!(status.success(), "building {dir} failed");
}

fn pkg_config(args: &[&str]) -> String {
    let output = Command::new("pkg-config")
        .args(args)
        .output()
        .unwrap_or_else(|e| panic!("cannot run pkg-config: {e}"));
    assert!(
        output.status.success(),
        "pkg-config {args:?} failed: {} (install libwebkit2gtk-4.1-dev)",
        String::from_utf8_lossy(&output.stderr)
    );
    String::from_utf8(output.stdout).expect("pkg-config prints UTF-8")
}

/// Writes `agent.js`: the fragments in file-name order (their two-digit
/// prefixes set it), joined exactly as written. Each fragment ends with its
/// own newline, so nothing is added between them.
fn join_agent(out: &Path) {
    // The folder, so that adding or removing a fragment reruns this step.
    println!("cargo:rerun-if-changed={AGENT_DIR}");
    let mut fragments: Vec<PathBuf> = fs::read_dir(AGENT_DIR)
        .unwrap_or_else(|e| panic!("cannot read {AGENT_DIR}: {e}"))
        .map(|entry| {
            entry
                .unwrap_or_else(|e| panic!("cannot read {AGENT_DIR}: {e}"))
                .path()
        })
        .filter(|path| path.extension().is_some_and(|ext| ext == "js"))
        .collect();
    // One folder, so path order is file-name order, byte by byte: no locale.
    fragments.sort();
    assert!(!fragments.is_empty(), "{AGENT_DIR} holds no .js fragment");
    let mut joined = String::new();
    for path in &fragments {
        println!("cargo:rerun-if-changed={}", path.display());
        // As text: `include_str!` needs UTF-8, and this error names the file.
        let fragment = fs::read_to_string(path)
            .unwrap_or_else(|e| panic!("cannot read {}: {e}", path.display()));
        joined.push_str(&fragment);
    }
    let target = out.join("agent.js");
    fs::write(&target, joined).unwrap_or_else(|e| panic!("cannot write {}: {e}", target.display()));
}
