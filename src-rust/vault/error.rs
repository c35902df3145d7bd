//! Why the vault refuses, and how each refusal reaches a tool's caller.

use crate::base::error::{ErrorCode, ToolError};

/// The most entries a vault holds (said in its refusal, so kept here).
pub const ENTRIES_MAX: usize = 500;
/// The shortest vault password.
pub const PASSWORD_MIN: usize = 8;

#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum VaultError {
    #[error("there is no vault yet: the person creates one in the panel")]
    NoVault,
    #[error("a vault exists already")]
    Exists,
    #[error("the vault is locked: the person unlocks it in the panel")]
    Locked,
    #[error("the vault password is not right")]
    WrongPassword,
    #[error("a vault password has at least {PASSWORD_MIN} characters")]
    WeakPassword,
    #[error("the vault file cannot be read: {0}")]
    Damaged(String),
    #[error("the vault cannot be saved: {0}")]
    Store(String),
    #[error("{0:?} is not a name for an entry: letters, digits, spaces and - _ . @, at most 64")]
    BadName(String),
    #[error("{0}")]
    BadOrigin(String),
    #[error("the {0} is too long (at most 4096 bytes)")]
    TooLong(String),
    #[error("the TOTP secret is not one: {0}")]
    BadTotp(String),
    #[error("an entry holds a user name, a password or a TOTP secret")]
    Empty,
    #[error("the vault holds its most entries ({ENTRIES_MAX})")]
    Full,
    #[error("no vault entry is named {0:?}")]
    NoEntry(String),
    #[error("the vault entry {name:?} has no {field}")]
    NoField { name: String, field: &'static str },
}

/// The person's mistakes are invalid arguments; a vault not there or not
/// open is the person's to make or open, never an agent's; a file that
/// cannot be read or written is the browser's fault.
impl From<VaultError> for ToolError {
    fn from(error: VaultError) -> ToolError {
        let code = match error {
            VaultError::NoVault | VaultError::Locked => ErrorCode::NotAllowed,
            VaultError::Full => ErrorCode::Busy,
            VaultError::Damaged(_) | VaultError::Store(_) => ErrorCode::Internal,
            _ => ErrorCode::InvalidParams,
        };
        ToolError::new(code, error.to_string())
    }
}
