//! Why a page's `window.nostr` call gets no value. The page's promise is
//! rejected with the message; each of the browser's own begins
//! "Sovereign Browser:" so a site's developer knows who said no, and the
//! identity audit keeps it as the call's end.

use crate::identity::SignerError;

#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum Refusal {
    /// What the page sent is no call the provider makes (a missing or
    /// malformed argument, an unknown method): said in the page's terms.
    #[error("{0}")]
    BadCall(String),
    /// Not offered here: an insecure page, or a frame of one.
    #[error("Sovereign Browser: {0}")]
    NotOffered(String),
    #[error("Sovereign Browser: no identity is logged in; log in from the control panel first")]
    NoIdentity,
    /// The identity is a public key only; `what` the call would do.
    #[error("Sovereign Browser: the identity is read-only (npub), so it cannot {what}")]
    ReadOnly { what: String },
    #[error("Sovereign Browser: the person denied {origin} permission to {what}")]
    Denied { origin: String, what: String },
    /// Nobody decided: the prompt timed out, the page went, or too many
    /// prompts wait already.
    #[error("Sovereign Browser: {0}")]
    Unanswered(String),
    /// The identity that was asked was ended or switched meanwhile.
    #[error("Sovereign Browser: {}", crate::identity::ENDED)]
    Ended,
    /// The signer refused or could not be reached.
    #[error("Sovereign Browser: {0}")]
    Signer(String),
}

impl From<SignerError> for Refusal {
    fn from(error: SignerError) -> Refusal {
        match error {
            SignerError::Rejected(why) => Refusal::Signer(format!("the signer refused: {why}")),
            // The signer was ended under the request (logout, switch).
            SignerError::Unavailable(why) if why == crate::identity::ENDED => Refusal::Ended,
            SignerError::Unavailable(why) => {
                Refusal::Signer(format!("the signer is unavailable: {why}"))
            }
            SignerError::BadInput(why) => Refusal::Signer(why),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_browsers_refusals_say_who_refused_and_a_bad_call_speaks_the_pages_terms() {
        assert_eq!(
            Refusal::Denied {
                origin: "https://a.test".into(),
                what: "sign an event".into()
            }
            .to_string(),
            "Sovereign Browser: the person denied https://a.test permission to sign an event"
        );
        assert_eq!(
            Refusal::from(SignerError::Unavailable(crate::identity::ENDED.into())),
            Refusal::Ended
        );
        assert!(Refusal::from(SignerError::Rejected("no".into()))
            .to_string()
            .starts_with("Sovereign Browser: the signer refused"));
        assert_eq!(
            Refusal::BadCall("signEvent: content must be a string".into()).to_string(),
            "signEvent: content must be a string"
        );
    }
}
