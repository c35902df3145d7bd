//! Reaching the running browser from the shell: where and how (the
//! client's options), the token, the connection, and how a command ends.

use super::connection::{ConnectError, Connection};
use std::path::PathBuf;
use std::process::ExitCode;

/// Where and how to talk to the browser, and how to print.
pub(super) struct Options {
    pub(super) addr: String,
    pub(super) token: Option<String>,
    pub(super) profile: Option<PathBuf>,
    pub(super) json: bool,
    pub(super) out: Option<PathBuf>,
    pub(super) help: bool,
}

pub(super) enum Outcome {
    Done,
    ToolFailed,
    Usage(String),
    Unreachable(String),
    TokenRefused(String),
}

impl Outcome {
    pub(super) fn exit(self) -> ExitCode {
        let (code, message) = match self {
            Outcome::Done => return ExitCode::SUCCESS,
            Outcome::ToolFailed => return ExitCode::from(1),
            Outcome::Usage(message) => (2, message),
            Outcome::Unreachable(message) => (3, message),
            Outcome::TokenRefused(message) => (4, message),
        };
        eprintln!("sovereign: {message}");
        ExitCode::from(code)
    }
}

/// The token: given, or the one the browser keeps in its profile.
fn token(options: &Options) -> Option<String> {
    if options.token.is_some() {
        return options.token.clone();
    }
    let dir = options
        .profile
        .clone()
        .unwrap_or_else(crate::profile::default_dir);
    std::fs::read_to_string(dir.join("token"))
        .ok()
        .map(|t| t.trim().to_string())
        .filter(|t| !t.is_empty())
}

pub(super) fn connect(options: &Options) -> Result<Connection, Outcome> {
    let token = token(options);
    Connection::open(&options.addr, token.as_deref()).map_err(|e| match e {
        ConnectError::Unreachable(why) => Outcome::Unreachable(format!(
            "no browser is running at {} ({why}); start one with `scripts/start.sh` or `sovereign-browser`",
            options.addr
        )),
        ConnectError::TokenRefused if token.is_some() => Outcome::TokenRefused(format!(
            "the browser at {} refused the token (401); give the one in its profile with --token, $SOVEREIGN_TOKEN or --profile DIR",
            options.addr
        )),
        ConnectError::TokenRefused => Outcome::TokenRefused(format!(
            "the browser at {} asks for a token (401) and none was found; give it with --token, $SOVEREIGN_TOKEN or --profile DIR",
            options.addr
        )),
        ConnectError::Refused(why) => Outcome::Unreachable(format!("cannot talk to the browser at {}: {why}", options.addr)),
        ConnectError::Unproven(why) => Outcome::TokenRefused(format!(
            "what listens at {} did not prove it is the browser holding this token ({why}), so the token was not sent: the token is not that browser's (give the one in its profile with --token, $SOVEREIGN_TOKEN or --profile DIR), or another program holds the port",
            options.addr
        )),
    })
}
