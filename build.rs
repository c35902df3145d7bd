//! Three build steps, all written to `OUT_DIR` for the browser to embed:
//!
//! - the web process extension (`src-rust/web-extension/*.c`), which
//!   the browser hands to WebKit at start. It is C because WebKit loads it
//!   into its web processes as a plain shared library.
//! - the loader tables library (`src-rust/loader-tables/*.c`), loaded into
//!   the browser's processes for its constructor alone
//!   (`src-rust/loader_tables.rs`).
//! - the agent library (`assets/agent/*.js`): one JavaScript closure kept
//!   in fragments, so each part can be read, and tested, on its own. The
//!   browser includes the joined script, `agent.js`.

use std::env;
use std::fs;
use std::path::{Path, PathBuf};
use std::process::Command;

const EXTENSION_DIR: &str = "src-rust/web-extension";
const LOADER_TABLES_DIR: &str = "src-rust/loader-tables";
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
    link_looked_up_most();
    join_agent(&out);
}

/// WebKitGTK links flite's voices for speech synthesis; one of them holds
/// 31,000 relocations against its own symbols, each a lookup that walks
/// every library the loader placed before it. Named among the browser's
/// own libraries it is searched 16th instead of about 60th, and the
/// browser's process starts about 15 ms sooner (`src-rust/loader_tables.rs`
/// does the same for WebKit's processes). Only where WebKit links it, so it
/// adds no library to the program.
const LOOKED_UP_MOST: &str = "libflite_cmu_time_awb.so.1";

fn link_looked_up_most() {
    let libdir = pkg_config(&["--variable=libdir", "webkit2gtk-4.1"]);
    let webkit = Path::new(libdir.trim()).join("libwebkit2gtk-4.1.so.0");
    let Ok(listed) = Command::new("ldd").arg(&webkit).output() else {
        return;
    };
    let linked = String::from_utf8_lossy(&listed.stdout)
        .lines()
        .any(|line| line.trim_start().starts_with(LOOKED_UP_MOST) && line.contains("=> /"));
    if linked {
        println!(
            "cargo:rustc-link-arg-bin=sovereign-browser-engine=-Wl,--push-state,--no-as-needed,-l:{LOOKED_UP_MOST},--pop-state"
        );
    }
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
