//! Why the browser refuses to start with the flags it was given: a
//! window size it cannot use, a combination that would expose it, or a
//! secret (token, panel key, metrics token) that is too weak or cannot be
//! read. The message is what `sovereign-browser: ` (or clap) prints.

use std::net::IpAddr;
use std::path::PathBuf;

#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ConfigError {
    /// `--window-size` is not WIDTHxHEIGHT.
    #[error("expected WIDTHxHEIGHT, got {given:?}")]
    NotASize { given: String },
    /// Its width is not a number.
    #[error("bad width in {given:?}")]
    BadWidth { given: String },
    /// Its height is not a number.
    #[error("bad height in {given:?}")]
    BadHeight { given: String },
    /// A side is outside 200..8192.
    #[error("window size {given:?} out of range (200..8192)")]
    SizeOutOfRange { given: String },
    /// `--no-token` on an address other machines reach.
    #[error("refusing to serve on {bind} without a token: drop --no-token or bind to 127.0.0.1")]
    NoTokenInPublic { bind: IpAddr },
    /// `--token` shorter than 16 characters.
    #[error("--token must be at least 16 characters")]
    ShortToken,
    /// A secret's file (`--token-file`...) could not be read; `flag` is
    /// the secret's own flag (`--token`).
    #[error("{flag}-file {}: {why}", .path.display())]
    SecretFile {
        flag: &'static str,
        path: PathBuf,
        why: String,
    },
    /// A secret too short or too long to be one.
    #[error("{flag}: a secret has 16 to 4096 characters")]
    SecretLength { flag: &'static str },
    /// A secret with spaces or control characters (a pasted line, say).
    #[error("{flag}: a secret has no spaces or control characters")]
    SecretCharacters { flag: &'static str },
    /// `--panel-address` is no plain http(s) base address.
    #[error("--panel-address {given:?}: {why}")]
    PanelAddress { given: String, why: &'static str },
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_messages_name_the_flag_at_fault() {
        assert_eq!(
            ConfigError::SecretFile {
                flag: "--panel-key",
                path: "/run/secrets/key".into(),
                why: "No such file or directory (os error 2)".into(),
            }
            .to_string(),
            "--panel-key-file /run/secrets/key: No such file or directory (os error 2)"
        );
        assert_eq!(
            ConfigError::SecretCharacters { flag: "--token" }.to_string(),
            "--token: a secret has no spaces or control characters"
        );
        assert_eq!(
            ConfigError::NoTokenInPublic {
                bind: "0.0.0.0".parse().unwrap()
            }
            .to_string(),
            "refusing to serve on 0.0.0.0 without a token: drop --no-token or bind to 127.0.0.1"
        );
        assert_eq!(
            ConfigError::SizeOutOfRange {
                given: "1x1".into()
            }
            .to_string(),
            "window size \"1x1\" out of range (200..8192)"
        );
    }
}
