//! `audit verify`: checks the identity audit's hash chain in a profile
//! (see `crate::audit_chain`), offline, without a running browser. Exit
//! 0 when every link holds, 1 naming the first entry that was changed,
//! removed or inserted.

use super::error::CliError;
use super::reach::{Options, Outcome};
use crate::audit_chain;

pub(super) fn run(options: &Options, args: &[String]) -> Outcome {
    match args {
        [sub] if sub == "verify" => verify(options),
        _ => CliError::Usage("usage: sovereign audit verify [--profile DIR]".into()).into(),
    }
}

fn verify(options: &Options) -> Outcome {
    let profile = options
        .profile
        .clone()
        .unwrap_or_else(crate::profile::default_dir);
    let path = profile.join("audit.jsonl");
    let mut files = Vec::new();
    for part in [audit_chain::rotated_path(&path), path.clone()] {
        match std::fs::read_to_string(&part) {
            Ok(text) => files.push((file_name(&part), text)),
            Err(error) if error.kind() == std::io::ErrorKind::NotFound => {}
            Err(error) => {
                return CliError::Unreadable {
                    path: part,
                    why: error.to_string(),
                }
                .into()
            }
        }
    }
    let head = audit_chain::read_head(&path);
    match audit_chain::verify(&files, head.as_ref()) {
        Ok(verified) if verified.entries == 0 => {
            println!("{}: no chained entry yet", path.display());
            Outcome::Done
        }
        Ok(verified) => {
            let last = verified.first + verified.entries - 1;
            let mut said = format!(
                "{}: entries {} to {last}, every link holds",
                path.display(),
                verified.first
            );
            if verified.first > 1 {
                said.push_str(" (the older ones were rotated away)");
            }
            if verified.signed > 0 {
                said.push_str(&format!(
                    "; {} signed by their identity, each signature good",
                    verified.signed
                ));
            }
            if verified.unchained > 0 {
                said.push_str(&format!(
                    "; {} older lines from before the chain, not checked",
                    verified.unchained
                ));
            }
            println!("{said}");
            Outcome::Done
        }
        Err(broken) => CliError::AuditBroken { path, why: broken }.into(),
    }
}

fn file_name(path: &std::path::Path) -> String {
    path.file_name().map_or_else(
        || path.display().to_string(),
        |n| n.to_string_lossy().into_owned(),
    )
}
