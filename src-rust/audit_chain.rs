//! The identity audit as a hash chain: each line the browser writes
//! carries its number (`seq`, from 1) and the SHA-256 of the line before
//! it (`prev`, hex; the first line's is all zeros), and the newest line's
//! number and hash are kept beside the file (`audit.head.json`). So a line
//! changed, removed or inserted by hand breaks a link, and `sovereign
//! audit verify` names the first entry where it broke.
//!
//! What the chain alone cannot tell: someone who can write the profile
//! can write a whole new chain and head. An entry made while its identity
//! is held here (a `local` or `seed` login) also carries that identity's
//! BIP-340 signature of the line (`sig`, always last; the line without
//! it is what is signed), which no one without the key can make again:
//! a chain rewritten around it fails there. Entries of an identity held
//! elsewhere (a bunker, a device) or read-only are chained, not signed.
//! Lines from before the chain (no `seq`) are counted, not checked; the
//! oldest lines go with the file's rotation, so a chain may start past 1.

use sha2::{Digest, Sha256};
use std::path::{Path, PathBuf};

/// The link before the first line.
pub const GENESIS: &str = "0000000000000000000000000000000000000000000000000000000000000000";

/// The chain's newest line: its number and hash.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct Head {
    pub seq: u64,
    pub hash: String,
}

impl Head {
    /// Before any line.
    pub fn start() -> Head {
        Head {
            seq: 0,
            hash: GENESIS.to_string(),
        }
    }
}

/// The SHA-256 of one line as written (without its line break), hex.
pub fn hash(line: &str) -> String {
    digest(line).iter().map(|b| format!("{b:02x}")).collect()
}

/// The SHA-256 of one line: what the identity signs of a line (without
/// its `sig`), and what links the next line to it (with it).
pub fn digest(line: &str) -> [u8; 32] {
    Sha256::digest(line.as_bytes()).into()
}

/// A signed line: the line as it was signed (without its `sig`, always
/// the last field) and the signature (hex). None: the line is unsigned.
fn signed_parts(line: &str) -> Option<(String, &str)> {
    let body = line.strip_suffix("\"}")?;
    let at = body.rfind(",\"sig\":\"")?;
    let sig = &body[at + 8..];
    Some((format!("{}}}", &body[..at]), sig))
}

/// Whether the identity (`npub`) signed `unsigned` with `sig`.
fn signature_holds(unsigned: &str, sig: &str, npub: &str) -> bool {
    use nostr::FromBech32;
    let (Ok(key), Ok(sig)) = (
        nostr::PublicKey::from_bech32(npub),
        sig.parse::<nostr::secp256k1::schnorr::Signature>(),
    ) else {
        return false;
    };
    let Ok(xonly) = key.xonly() else {
        return false;
    };
    let message = nostr::secp256k1::Message::from_digest(digest(unsigned));
    nostr::SECP256K1
        .verify_schnorr(&sig, &message, &xonly)
        .is_ok()
}

/// Where the head of the audit file `audit` is kept.
pub fn head_path(audit: &Path) -> PathBuf {
    audit.with_extension("head.json")
}

/// Where the audit's previous (rotated) file is.
pub fn rotated_path(audit: &Path) -> PathBuf {
    audit.with_extension("1.jsonl")
}

/// The head as the browser last wrote it, if it did.
pub fn read_head(audit: &Path) -> Option<Head> {
    let text = std::fs::read_to_string(head_path(audit)).ok()?;
    serde_json::from_str(&text).ok()
}

/// The chain's head after `lines` (the newest chained line), if any is chained.
pub fn last_head<'a>(lines: impl DoubleEndedIterator<Item = &'a str>) -> Option<Head> {
    lines.rev().find_map(|line| {
        let seq = link_of(line)?.0;
        Some(Head {
            seq,
            hash: hash(line),
        })
    })
}

/// A line's `seq` and `prev`, when it has both.
fn link_of(line: &str) -> Option<(u64, String)> {
    let value: serde_json::Value = serde_json::from_str(line).ok()?;
    let seq = value.get("seq")?.as_u64()?;
    let prev = value.get("prev")?.as_str()?.to_string();
    Some((seq, prev))
}

/// Where the chain broke: the first entry found changed, removed or inserted.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum Broken {
    #[error("line {line} of {file} is not an audit entry: it was changed")]
    Unreadable { file: String, line: usize },
    #[error("entry {seq} was changed (entry {next} was linked to another)")]
    Changed { seq: u64, next: u64 },
    #[error("entries {from} to {to} were removed (entry {to_next} follows entry {before})", to_next = .to + 1, before = .from - 1)]
    Removed { from: u64, to: u64 },
    #[error("an entry was inserted at line {line} of {file} (it says {seq}, after entry {after})")]
    Inserted {
        file: String,
        line: usize,
        seq: u64,
        after: u64,
    },
    #[error("entry {seq} does not carry a signature of its identity {identity}: it was changed or forged")]
    BadSignature { seq: u64, identity: String },
    #[error("the newest entry, {seq}, was changed (the head kept beside the file names another)")]
    NewestChanged { seq: u64 },
    #[error("entries {from} to {to} were removed from the end (the head kept beside the file names entry {to})")]
    EndRemoved { from: u64, to: u64 },
}

/// What a whole chain holds, once every link holds.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Verified {
    /// Chained entries.
    pub entries: u64,
    /// The first one's number (past 1 when older ones were rotated away).
    pub first: u64,
    /// Lines from before the chain, not checked.
    pub unchained: u64,
    /// Chained entries signed by their identity.
    pub signed: u64,
}

/// Checks the audit's files, oldest first (name and text each), against
/// the head kept beside them.
pub fn verify(files: &[(String, String)], head: Option<&Head>) -> Result<Verified, Broken> {
    let mut last: Option<Head> = None;
    let mut first = None;
    let (mut entries, mut unchained, mut signed) = (0, 0, 0);
    for (name, text) in files {
        for (i, line) in text.lines().enumerate() {
            let unreadable = || Broken::Unreadable {
                file: name.clone(),
                line: i + 1,
            };
            let value: serde_json::Value = serde_json::from_str(line).map_err(|_| unreadable())?;
            let Some(seq) = value.get("seq") else {
                if last.is_some() {
                    return Err(unreadable());
                }
                unchained += 1;
                continue;
            };
            let (seq, prev) = match (seq.as_u64(), value.get("prev").and_then(|p| p.as_str())) {
                (Some(seq), Some(prev)) => (seq, prev),
                _ => return Err(unreadable()),
            };
            if let Some(before) = &last {
                if seq <= before.seq {
                    return Err(Broken::Inserted {
                        file: name.clone(),
                        line: i + 1,
                        seq,
                        after: before.seq,
                    });
                }
                if seq > before.seq + 1 {
                    return Err(Broken::Removed {
                        from: before.seq + 1,
                        to: seq - 1,
                    });
                }
                if prev != before.hash {
                    return Err(Broken::Changed {
                        seq: before.seq,
                        next: seq,
                    });
                }
            } else if seq == 1 && prev != GENESIS {
                return Err(Broken::Changed { seq: 0, next: 1 });
            }
            if value.get("sig").is_some() {
                let identity = value.get("identity").and_then(|i| i.as_str()).unwrap_or("");
                let holds = signed_parts(line)
                    .is_some_and(|(unsigned, sig)| signature_holds(&unsigned, sig, identity));
                if !holds {
                    return Err(Broken::BadSignature {
                        seq,
                        identity: identity.to_string(),
                    });
                }
                signed += 1;
            }
            first.get_or_insert(seq);
            entries += 1;
            last = Some(Head {
                seq,
                hash: hash(line),
            });
        }
    }
    if let Some(head) = head {
        match &last {
            Some(newest) if newest.seq == head.seq && newest.hash != head.hash => {
                return Err(Broken::NewestChanged { seq: newest.seq })
            }
            Some(newest) if newest.seq < head.seq => {
                return Err(Broken::EndRemoved {
                    from: newest.seq + 1,
                    to: head.seq,
                })
            }
            None if head.seq > 0 => {
                return Err(Broken::EndRemoved {
                    from: 1,
                    to: head.seq,
                })
            }
            _ => {}
        }
    }
    Ok(Verified {
        entries,
        first: first.unwrap_or(0),
        unchained,
        signed,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A chain of `n` lines, and its head.
    fn chain(n: u64) -> (Vec<String>, Head) {
        let mut head = Head::start();
        let mut lines = Vec::new();
        for seq in 1..=n {
            let line = format!(r#"{{"seq":{seq},"prev":"{}","action":"sign"}}"#, head.hash);
            head = Head {
                seq,
                hash: hash(&line),
            };
            lines.push(line);
        }
        (lines, head)
    }

    fn check(lines: &[String], head: &Head) -> Result<Verified, Broken> {
        verify(&[("audit.jsonl".into(), lines.join("\n"))], Some(head))
    }

    #[test]
    fn an_untouched_chain_holds_and_its_head_is_its_last_line() {
        let (lines, head) = chain(5);
        let verified = check(&lines, &head).unwrap();
        assert_eq!((verified.entries, verified.first), (5, 1));
        assert_eq!(last_head(lines.iter().map(String::as_str)), Some(head));
    }

    #[test]
    fn a_changed_removed_or_inserted_entry_is_named() {
        let (lines, head) = chain(5);
        let mut changed = lines.clone();
        changed[1] = changed[1].replace("sign", "encrypt");
        assert_eq!(
            check(&changed, &head),
            Err(Broken::Changed { seq: 2, next: 3 })
        );
        let mut removed = lines.clone();
        removed.remove(2);
        assert_eq!(
            check(&removed, &head),
            Err(Broken::Removed { from: 3, to: 3 })
        );
        let mut inserted = lines.clone();
        inserted.insert(3, lines[1].clone());
        assert!(matches!(
            check(&inserted, &head),
            Err(Broken::Inserted {
                line: 4,
                seq: 2,
                after: 3,
                ..
            })
        ));
        let mut newest = lines.clone();
        newest[4] = newest[4].replace("sign", "login");
        assert_eq!(check(&newest, &head), Err(Broken::NewestChanged { seq: 5 }));
        assert_eq!(
            check(&lines[..3], &head),
            Err(Broken::EndRemoved { from: 4, to: 5 })
        );
        let mut garbled = lines.clone();
        garbled[0].push('x');
        assert!(matches!(
            check(&garbled, &head),
            Err(Broken::Unreadable { line: 1, .. })
        ));
    }

    #[test]
    fn lines_from_before_the_chain_are_counted_and_a_rotated_start_is_fine() {
        let (lines, head) = chain(4);
        let old = r#"{"action":"login"}"#.to_string();
        let files = [
            (
                "audit.1.jsonl".to_string(),
                format!("{old}\n{}", lines[..2].join("\n")),
            ),
            ("audit.jsonl".to_string(), lines[2..].join("\n")),
        ];
        let verified = verify(&files, Some(&head)).unwrap();
        assert_eq!((verified.entries, verified.unchained), (4, 1));
        // The oldest lines rotated away: the chain starts at 3.
        let later = verify(&files[1..], Some(&head)).unwrap();
        assert_eq!((later.entries, later.first), (2, 3));
    }

    #[test]
    fn a_signed_entry_holds_and_a_whole_chain_rewritten_around_it_does_not() {
        let keys = nostr::Keys::generate();
        let npub = nostr::ToBech32::to_bech32(&keys.public_key()).unwrap();
        let sign = |unsigned: &str| {
            let message = nostr::secp256k1::Message::from_digest(digest(unsigned));
            keys.sign_schnorr(&message).to_string()
        };
        // Written as the browser writes them: the signature last.
        let build = |action: &str| {
            let line1 = format!(
                r#"{{"identity":"{npub}","action":"{action}","seq":1,"prev":"{GENESIS}"}}"#
            );
            let line1 = format!(
                r#"{},"sig":"{}"}}"#,
                &line1[..line1.len() - 1],
                sign(&line1)
            );
            let line2 = format!(r#"{{"action":"logout","seq":2,"prev":"{}"}}"#, hash(&line1));
            let head = Head {
                seq: 2,
                hash: hash(&line2),
            };
            (vec![line1, line2], head)
        };
        let (lines, head) = build("login");
        let verified = check(&lines, &head).unwrap();
        assert_eq!((verified.entries, verified.signed), (2, 1));
        // Someone changes the signed entry and writes every link and the
        // head again: the chain holds, the identity's signature does not.
        let (mut forged, _) = build("login");
        forged[0] = forged[0].replace(r#""action":"login""#, r#""action":"sign""#);
        forged[1] = format!(
            r#"{{"action":"logout","seq":2,"prev":"{}"}}"#,
            hash(&forged[0])
        );
        let forged_head = Head {
            seq: 2,
            hash: hash(&forged[1]),
        };
        assert_eq!(
            check(&forged, &forged_head),
            Err(Broken::BadSignature {
                seq: 1,
                identity: npub.clone()
            })
        );
    }
}
