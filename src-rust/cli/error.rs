//! Why a `sovereign` command did not do what it was asked: its words, a
//! file, the browser's connection, or the browser's answer. Each kind
//! has its exit code here, in one place, so a script can tell "fix the
//! command" (2) from "start the browser" (3) from "give the right token"
//! (4) without reading the message; the message is what the person reads
//! after `sovereign: `.

use crate::flow::refused::FlowRefused;
use crate::recording::SessionUnread;
use std::path::PathBuf;

#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum CliError {
    /// The command line (or a batch line) is not one the client runs: an
    /// unknown tool or flag, a missing or ill-typed argument. The words
    /// say what to write instead.
    #[error("{0}")]
    Usage(String),
    /// Standard input could not be read for a batch.
    #[error("standard input: {why}; nothing was run")]
    StandardInput { why: String },
    /// A batch line is not one the client runs: nothing of the batch ran.
    #[error("line {number}: {error}; nothing was run")]
    BatchLine { number: usize, error: Box<CliError> },
    /// The recorded session to export could not be read.
    #[error("{0}")]
    Recording(SessionUnread),
    /// A file to read could not be.
    #[error("{}: {why}", .path.display())]
    Unreadable { path: PathBuf, why: String },
    /// A file to write could not be.
    #[error("cannot write {}: {why}", .path.display())]
    Unwritable { path: PathBuf, why: String },
    /// A tool's image could not be written where it was to go.
    #[error("{}: {why}", .path.display())]
    ImageUnsaved { path: PathBuf, why: String },
    /// A tool's image was not base64.
    #[error("the image did not decode: {why}")]
    ImageUndecodable { why: String },
    /// The screenshot of where a replay stopped was not base64.
    #[error("the image was not base64: {why}")]
    ShotUndecodable { why: String },
    /// The browser's answer held no image.
    #[error("the browser gave no image")]
    NoImage,
    /// A file given to replay is not JSON of a flow.
    #[error("{} is not a flow: {why}", .path.display())]
    NotAFlow { path: PathBuf, why: String },
    /// A flow of another format than this client reads.
    #[error("{}: flow format {format} (this sovereign reads {})", .path.display(), crate::flow::FORMAT)]
    FlowFormat { path: PathBuf, format: u32 },
    /// A flow asks what `record export` never writes: it is not run.
    #[error("{}: {why}", .path.display())]
    FlowRefused { path: PathBuf, why: FlowRefused },
    /// The identity audit's chain broke: `why` names the first entry.
    #[error("{}: {why}", .path.display())]
    AuditBroken {
        path: PathBuf,
        why: crate::audit_chain::Broken,
    },
    /// Nothing answers at the address.
    #[error("no browser is running at {addr} ({why}); start one with `scripts/start.sh` or `sovereign-browser`")]
    NoBrowser { addr: String, why: String },
    /// Something answers at the address, but not as the browser does.
    #[error("cannot talk to the browser at {addr}: {why}")]
    CannotTalk { addr: String, why: String },
    /// The browser answered 401 to the token given.
    #[error("the browser at {addr} refused the token (401); give the one in its profile with --token, $SOVEREIGN_TOKEN or --profile DIR")]
    TokenRefused { addr: String },
    /// The browser asks for a token and none was given or found.
    #[error("the browser at {addr} asks for a token (401) and none was found; give it with --token, $SOVEREIGN_TOKEN or --profile DIR")]
    NoToken { addr: String },
    /// What listens did not prove it holds the token: nothing was sent.
    #[error("what listens at {addr} did not prove it is the browser holding this token ({why}), so the token was not sent: the token is not that browser's (give the one in its profile with --token, $SOVEREIGN_TOKEN or --profile DIR), or another program holds the port")]
    Unproven { addr: String, why: String },
    /// A call could not be sent to the browser.
    #[error("sending failed: {why}")]
    SendFailed { why: String },
    /// The browser closed the connection before it answered.
    #[error("the browser closed the connection: {why}")]
    Closed { why: String },
    /// The browser's answer is not JSON.
    #[error("unreadable reply: {why}")]
    UnreadableReply { why: String },
    /// The browser answered a tool call with an error.
    #[error("{code}: {message}")]
    Tool { code: String, message: String },
}

impl CliError {
    /// The process's exit code: 1 a tool failed, 2 the command (its words,
    /// its files), 3 no browser reachable, 4 the token.
    pub fn exit_code(&self) -> u8 {
        match self {
            CliError::Tool { .. } | CliError::AuditBroken { .. } => 1,
            CliError::Usage(_)
            | CliError::StandardInput { .. }
            | CliError::BatchLine { .. }
            | CliError::Recording(_)
            | CliError::Unreadable { .. }
            | CliError::Unwritable { .. }
            | CliError::ImageUnsaved { .. }
            | CliError::ImageUndecodable { .. }
            | CliError::ShotUndecodable { .. }
            | CliError::NoImage
            | CliError::NotAFlow { .. }
            | CliError::FlowFormat { .. }
            | CliError::FlowRefused { .. } => 2,
            CliError::NoBrowser { .. }
            | CliError::CannotTalk { .. }
            | CliError::SendFailed { .. }
            | CliError::Closed { .. }
            | CliError::UnreadableReply { .. } => 3,
            CliError::TokenRefused { .. }
            | CliError::NoToken { .. }
            | CliError::Unproven { .. } => 4,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_kind_keeps_its_exit_code() {
        let addr = || "127.0.0.1:1".to_string();
        for (error, code) in [
            (
                CliError::Tool {
                    code: "STALE_REF".into(),
                    message: "gone".into(),
                },
                1,
            ),
            (CliError::Usage("--port needs a value".into()), 2),
            (
                CliError::Unwritable {
                    path: "/x".into(),
                    why: "denied".into(),
                },
                2,
            ),
            (
                CliError::NoBrowser {
                    addr: addr(),
                    why: "refused".into(),
                },
                3,
            ),
            (
                CliError::Closed {
                    why: "reset".into(),
                },
                3,
            ),
            (CliError::NoToken { addr: addr() }, 4),
            (
                CliError::Unproven {
                    addr: addr(),
                    why: "no hello".into(),
                },
                4,
            ),
        ] {
            assert_eq!(error.exit_code(), code, "{error}");
        }
    }

    #[test]
    fn the_messages_are_the_ones_people_and_tests_read() {
        assert_eq!(
            CliError::BatchLine {
                number: 3,
                error: Box::new(CliError::Usage("no tool is called \"x\"".into())),
            }
            .to_string(),
            "line 3: no tool is called \"x\"; nothing was run"
        );
        assert_eq!(
            CliError::NoToken {
                addr: "127.0.0.1:9".into()
            }
            .to_string(),
            "the browser at 127.0.0.1:9 asks for a token (401) and none was found; give it with --token, $SOVEREIGN_TOKEN or --profile DIR"
        );
        assert_eq!(
            CliError::NoBrowser {
                addr: "127.0.0.1:9".into(),
                why: "Connection refused (os error 111)".into()
            }
            .to_string(),
            "no browser is running at 127.0.0.1:9 (Connection refused (os error 111)); start one with `scripts/start.sh` or `sovereign-browser`"
        );
        assert_eq!(
            CliError::FlowFormat {
                path: "a.json".into(),
                format: 9
            }
            .to_string(),
            format!(
                "a.json: flow format 9 (this sovereign reads {})",
                crate::flow::FORMAT
            )
        );
        assert_eq!(
            CliError::Unwritable {
                path: "/r/shot.png".into(),
                why: "denied".into()
            }
            .to_string(),
            "cannot write /r/shot.png: denied"
        );
        assert_eq!(
            CliError::Tool {
                code: "ELEMENT_NOT_FOUND".into(),
                message: "no such element".into()
            }
            .to_string(),
            "ELEMENT_NOT_FOUND: no such element"
        );
    }
}
