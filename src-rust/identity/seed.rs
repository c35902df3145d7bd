//! `seed`: keys derived from a BIP-39 mnemonic by NIP-06
//! (m/44'/1237'/account'/0/0), with an optional BIP-39 passphrase.

use super::local::KeySigner;
use super::{IdentityError, IdentityResult, Method};
use nostr::nips::nip06::FromMnemonic;
use nostr::Keys;
use zeroize::Zeroizing;

/// Derives the signer; errors name what is wrong with the words.
pub fn from_mnemonic(
    words: &str,
    passphrase: Option<&str>,
    account: u32,
) -> IdentityResult<KeySigner> {
    // One space between words, lower case: what BIP-39 expects. Built in
    // one buffer that never grows (so never leaves a copy behind when it
    // moves) and is wiped; the English list is ASCII, so ASCII lower case
    // loses nothing (a non-ASCII word is not in it either way).
    let normalized = normalize(words);
    check_words(&normalized)?;
    let keys = Keys::from_mnemonic_with_account(normalized.as_str(), passphrase, Some(account))
        .map_err(|e| IdentityError::Malformed(format!("cannot derive a key ({e})")))?;
    Ok(KeySigner::new(keys, Method::Seed))
}

/// The words, one space apart, in ASCII lower case.
fn normalize(words: &str) -> Zeroizing<String> {
    let mut normalized = Zeroizing::new(String::with_capacity(words.len()));
    for word in words.split_whitespace() {
        if !normalized.is_empty() {
            normalized.push(' ');
        }
        normalized.extend(word.chars().map(|c| c.to_ascii_lowercase()));
    }
    normalized
}

fn check_words(normalized: &str) -> IdentityResult<()> {
    let malformed = IdentityError::Malformed;
    let count = normalized.split(' ').filter(|w| !w.is_empty()).count();
    if ![12, 15, 18, 21, 24].contains(&count) {
        return Err(malformed(format!(
            "expected 12 or 24 words (15, 18 and 21 also work), got {count}"
        )));
    }
    match bip39::Mnemonic::parse_in_normalized(bip39::Language::English, normalized) {
        Ok(_) => Ok(()),
        Err(bip39::Error::UnknownWord(i)) => Err(malformed(format!(
            "word {} is not in the BIP-39 English word list",
            i + 1
        ))),
        Err(bip39::Error::InvalidChecksum) => Err(malformed(
            "the checksum does not match: a word is wrong or out of order".into(),
        )),
        Err(e) => Err(malformed(e.to_string())),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::identity::Signer;
    use nostr::ToBech32;

    // NIP-06's published vectors.
    const WORDS_12: &str =
        "leader monkey parrot ring guide accident before fence cannon height naive bean";
    const WORDS_24: &str = "what bleak badge arrange retreat wolf trade produce cricket blur garlic valid proud rude strong choose busy staff weather area salt hollow arm fade";

    #[test]
    fn nip06_first_vector_accounts_0_and_1() {
        let s = from_mnemonic(WORDS_12, None, 0).unwrap();
        assert_eq!(s.method(), Method::Seed);
        assert_eq!(
            s.public_key().to_bech32().unwrap(),
            "npub1zutzeysacnf9rru6zqwmxd54mud0k44tst6l70ja5mhv8jjumytsd2x7nu"
        );
        let keys = Keys::from_mnemonic(WORDS_12, None).unwrap();
        assert_eq!(
            keys.secret_key().to_secret_hex(),
            "7f7ff03d123792d6ac594bfa67bf6d0c0ab55b6b1fdb6249303fe861f1ccba9a"
        );
        let s1 = from_mnemonic(WORDS_12, None, 1).unwrap();
        assert_eq!(
            s1.public_key().to_hex(),
            "d977a6cf0f831dc4720780b5f51460eaf6dca08e32d1f6e89b60344d63af4e04"
        );
    }

    #[test]
    fn nip06_second_vector() {
        let s = from_mnemonic(WORDS_24, None, 0).unwrap();
        assert_eq!(
            s.public_key().to_bech32().unwrap(),
            "npub16sdj9zv4f8sl85e45vgq9n7nsgt5qphpvmf7vk8r5hhvmdjxx4es8rq74h"
        );
        let keys = Keys::from_mnemonic(WORDS_24, None).unwrap();
        assert_eq!(
            keys.secret_key().to_secret_hex(),
            "c15d739894c81a2fcfd3a2df85a0d2c0dbc47a280d092799f144d73d7ae78add"
        );
    }

    #[test]
    fn spacing_and_case_do_not_matter_but_a_passphrase_does() {
        let messy = format!("  {}  ", WORDS_12.to_uppercase().replace(' ', "   "));
        let a = from_mnemonic(&messy, None, 0).unwrap();
        let b = from_mnemonic(WORDS_12, None, 0).unwrap();
        assert_eq!(a.public_key(), b.public_key());
        let c = from_mnemonic(WORDS_12, Some("extra words"), 0).unwrap();
        assert_ne!(c.public_key(), b.public_key());
    }

    #[test]
    fn words_are_normalized_in_one_buffer_that_never_grows() {
        let messy = "  Leader\tMONKEY   parrot\n";
        let normalized = normalize(messy);
        assert_eq!(normalized.as_str(), "leader monkey parrot");
        assert_eq!(
            normalized.capacity(),
            messy.len(),
            "allocated once, never moved"
        );
        let unicode = normalize("Édith ÉCOLE");
        assert_eq!(
            unicode.as_str(),
            "Édith École",
            "non-ASCII letters stay as they are"
        );
    }

    #[test]
    fn bad_mnemonics_say_what_is_wrong() {
        let err = |w: &str| match from_mnemonic(w, None, 0) {
            Err(IdentityError::Malformed(why)) => why,
            other => panic!("expected malformed words, got {:?}", other.err()),
        };
        assert!(err("leader monkey parrot").contains("got 3"));
        let unknown = WORDS_12.replace("parrot", "parrots");
        assert!(err(&unknown).contains("word 3"), "{}", err(&unknown));
        let swapped = WORDS_12.replace("leader monkey", "monkey leader");
        assert!(err(&swapped).contains("checksum"));
    }
}
