//! Contexts as every layer names them: isolated browsing environments,
//! each with its own website data (cookies, storage, cache), tabs and
//! window. The person's default context is the profile's own; agents open
//! others, kept under the profile by name or in memory only.

use serde_json::{json, Value};

/// Stable identity of a context inside this run (its name is what agents use).
pub type ContextId = u64;

/// The person's context: the profile's website data, the first window.
pub const DEFAULT_CONTEXT: ContextId = 0;
pub const DEFAULT_NAME: &str = "default";

/// Longest context name: it is a folder name under the profile.
pub const NAME_MAX: usize = 32;

/// One context as the tools see it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ContextInfo {
    pub id: ContextId,
    pub name: String,
    /// In memory only: nothing of it is written to disk, and it is gone
    /// when closed or at exit.
    pub ephemeral: bool,
}

impl ContextInfo {
    pub fn default_context() -> ContextInfo {
        ContextInfo {
            id: DEFAULT_CONTEXT,
            name: DEFAULT_NAME.into(),
            ephemeral: false,
        }
    }

    /// The entry context_list and the panel show.
    pub fn json(&self, tabs: usize) -> Value {
        json!({
            "context": self.name,
            "ephemeral": self.ephemeral,
            "default": self.id == DEFAULT_CONTEXT,
            "tabs": tabs,
        })
    }
}

/// Checks a name an agent gave a context: it names a folder under the
/// profile, so only lower-case letters, digits, `-` and `_`.
pub fn check_name(name: &str) -> Result<(), String> {
    if name.is_empty() || name.len() > NAME_MAX {
        return Err(format!("context: a name has 1 to {NAME_MAX} characters"));
    }
    let fits = |c: char| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '-' || c == '_';
    if !name.chars().all(fits) || name.starts_with(['-', '_']) {
        return Err(
            "context: a name is lower-case letters, digits, - and _, starting with a letter or digit"
                .into(),
        );
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_are_safe_folder_names() {
        for good in ["shop", "agent-1", "a_b", "7"] {
            assert_eq!(check_name(good), Ok(()), "{good}");
        }
        let long = "a".repeat(NAME_MAX + 1);
        for bad in [
            "",
            "..",
            "a/b",
            "Shop",
            "-x",
            "_x",
            "a b",
            "é",
            long.as_str(),
        ] {
            assert!(check_name(bad).is_err(), "{bad}");
        }
    }
}
