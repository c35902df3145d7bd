//! Reaching the running browser from the shell: where and how (the
//! client's options), the token, the connection, and how a command ends.

use super::connection::{ConnectError, Connection};
use super::error::CliError;
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

/// How a command ended.
pub(super) enum Outcome {
    Done,
    /// A tool failed; its code and message are printed already.
    ToolFailed,
    Failed(CliError),
}

impl From<CliError> for Outcome {
    fn from(error: CliError) -> Outcome {
        Outcome::Failed(error)
    }
}

impl Outcome {
    pub(super) fn exit(self) -> ExitCode {
        match self {
            Outcome::Done => ExitCode::SUCCESS,
            Outcome::ToolFailed => ExitCode::from(1),
            Outcome::Failed(error) => {
                eprintln!("sovereign: {error}");
                ExitCode::from(error.exit_code())
            }
        }
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

pub(super) fn connect(options: &Options) -> Result<Connection, CliError> {
    let token = token(options);
    let addr = options.addr.clone();
    Connection::open(&options.addr, token.as_deref()).map_err(|e| match e {
        ConnectError::Unreachable(why) => CliError::NoBrowser { addr, why },
        ConnectError::TokenRefused if token.is_some() => CliError::TokenRefused { addr },
        ConnectError::TokenRefused => CliError::NoToken { addr },
        ConnectError::Refused(why) => CliError::CannotTalk { addr, why },
        ConnectError::Unproven(why) => CliError::Unproven { addr, why },
    })
}
