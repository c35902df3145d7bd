//! Why the identity layer refused what it was given, or could not keep
//! what it was asked to: one type for keys, seed words, bunker addresses,
//! devices and the remembered identities, so a caller tells a bad input
//! from a broken store without reading the message.

use crate::base::error::{ErrorCode, ToolError};

#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum IdentityError {
    /// Not what it must be: an nsec or npub, 64 hex characters, 12 or 24
    /// words of the BIP-39 list, a bunker:// URL, a device a signer can be.
    #[error("{0}")]
    Malformed(String),
    /// A password too short to protect a key, or not the one a remembered
    /// key was encrypted with.
    #[error("{0}")]
    Password(String),
    /// The remembered identities could not be written.
    #[error("{0}")]
    Store(String),
}

pub type IdentityResult<T> = Result<T, IdentityError>;

impl IdentityError {
    /// The error of a call whose argument `field` was at fault; a broken
    /// store is nobody's argument.
    pub fn at(self, field: &str) -> ToolError {
        match self {
            IdentityError::Malformed(why) | IdentityError::Password(why) => {
                ToolError::invalid_field(field, why)
            }
            IdentityError::Store(_) => self.into(),
        }
    }
}

impl From<IdentityError> for ToolError {
    fn from(error: IdentityError) -> ToolError {
        match error {
            IdentityError::Malformed(why) | IdentityError::Password(why) => {
                ToolError::new(ErrorCode::InvalidParams, why)
            }
            IdentityError::Store(why) => ToolError::internal(why),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_bad_input_names_its_argument_and_a_broken_store_is_internal() {
        let bad = IdentityError::Malformed("must start with nsec1".into()).at("nsec");
        assert_eq!(bad.code, ErrorCode::InvalidParams);
        assert!(
            bad.message.contains("must start with nsec1"),
            "{}",
            bad.message
        );
        let wrong = IdentityError::Password("wrong password".into()).at("password");
        assert_eq!(wrong.code, ErrorCode::InvalidParams);
        let store = IdentityError::Store("cannot save".into()).at("npub");
        assert_eq!(store.code, ErrorCode::Internal);
    }
}
