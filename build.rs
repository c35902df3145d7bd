//! Builds the web process extension (`src-rust/web-extension/console.c`),
//! which the browser embeds and hands to WebKit at start. It is C because
//! WebKit loads it into its web processes as a plain shared library.

use std::env;
use std::path::PathBuf;
use std::process::Command;

const SOURCE: &str = "src-rust/web-extension/console.c";

fn main() {
    println!("cargo:rerun-if-changed={SOURCE}");
    println!("cargo:rerun-if-env-changed=CC");
    let out = PathBuf::from(env::var("OUT_DIR").expect("cargo sets OUT_DIR"));
    let library = out.join("libsovereign-web-extension.so");
    let flags = pkg_config(&["--cflags", "--libs", "webkit2gtk-web-extension-4.1"]);
    let compiler = env::var("CC").unwrap_or_else(|_| "cc".into());
    let status = Command::new(&compiler)
        .args(["-shared", "-fPIC", "-O2", "-Wall", "-Werror", "-o"])
        .arg(&library)
        .arg(SOURCE)
        .args(flags.split_whitespace())
        .status()
        .unwrap_or_else(|e| panic!("cannot run the C compiler `{compiler}`: {e}"));
    assert!(status.success(), "building {SOURCE} failed");
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
