//! `sovereign-browser`: starts the private display, when the browser will
//! run on one, and becomes the browser (`sovereign-browser-engine`, beside
//! it) at once.
//!
//! The browser links WebKitGTK: its loader takes 45 to 60 ms to load and
//! relocate some 160 libraries before the program's first line runs, and
//! the display took 30 to 40 ms more after that. This program links none of
//! them (it starts in about a millisecond), so Xvfb starts while the
//! browser's libraries load. The display is handed down through the exec:
//! Xvfb stays a child of the same process, which waits for its display
//! number on the pipe it was started with (`headless::Starting`).
//!
//! Whatever goes wrong here, the browser starts anyway and does it itself.

use clap::Parser;
use sovereign_browser::config::Args;
use sovereign_browser::headless::{self, Screen, Xvfb};
use sovereign_browser::profile::{self, Profile};
use std::os::unix::process::CommandExt as _;
use std::process::Command;

/// The browser's program, beside this one.
const ENGINE: &str = "sovereign-browser-engine";

fn main() {
    let engine = match std::env::current_exe() {
        Ok(me) => me.with_file_name(ENGINE),
        Err(error) => {
            eprintln!("sovereign-browser: cannot find where this program lies: {error}");
            std::process::exit(1);
        }
    };
    let mut argv = std::env::args_os();
    let mut command = Command::new(&engine);
    command.arg0(argv.next().unwrap_or_else(|| "sovereign-browser".into()));
    command.args(argv);
    if let Ok(args) = Args::try_parse() {
        if args.wants_private_display() {
            start_display(&args, &mut command);
        }
    }
    let error = command.exec();
    eprintln!(
        "sovereign-browser: cannot start {}: {error}",
        engine.display()
    );
    std::process::exit(1);
}

/// Starts the display (with the ephemeral profile its cookie lives in) and
/// names both in the browser's environment; on any failure leaves them to
/// the browser.
fn start_display(args: &Args, command: &mut Command) {
    // The screen depends on how pages will be drawn: decided here as the
    // browser will (it keeps the variable).
    headless::prefer_shared_memory();
    let profile = match args.ephemeral {
        true => Profile::open(None, true),
        false => Profile::open(args.profile.clone(), false),
    };
    let Ok(profile) = profile else {
        return;
    };
    let screen = Screen::for_args(args);
    match Xvfb::spawn(screen, &profile.xauthority_path()).and_then(|s| s.hand_down()) {
        Ok(display) => {
            command.env(headless::HANDED_DOWN, display);
            if profile.ephemeral {
                command.env(profile::HANDED_DOWN, &profile.dir);
            }
        }
        Err(_) if profile.ephemeral => {
            let _ = std::fs::remove_dir_all(&profile.dir);
        }
        Err(_) => {}
    }
}
