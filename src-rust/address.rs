//! Turning what a person or an agent typed into an address to open.

use crate::tools::error::ToolError;

/// Accepts full URLs and bare host names (`example.com` -> https).
pub fn normalize_url(url: &str) -> Result<String, ToolError> {
    let url = url.trim();
    if url.is_empty() {
        return Err(ToolError::invalid_params("url is empty"));
    }
    if url.chars().any(char::is_whitespace) {
        return Err(ToolError::invalid_params(format!(
            "url {url:?} contains spaces"
        )));
    }
    let lower = url.to_ascii_lowercase();
    if has_scheme(url) && !lower.starts_with("localhost:") && !looks_like_host_port(url) {
        if lower.starts_with("javascript:") {
            return Err(ToolError::invalid_params(
                "javascript: URLs are not opened; use eval",
            ));
        }
        return Ok(url.to_string());
    }
    let scheme = if lower.starts_with("localhost") || lower.starts_with("127.") {
        "http"
    } else {
        "https"
    };
    Ok(format!("{scheme}://{url}"))
}

fn has_scheme(url: &str) -> bool {
    url.split_once(':')
        .map(|(scheme, _)| {
            !scheme.is_empty()
                && scheme
                    .chars()
                    .all(|c| c.is_ascii_alphanumeric() || "+-.".contains(c))
        })
        .unwrap_or(false)
}

fn looks_like_host_port(url: &str) -> bool {
    // "example.com:8080/x": a port, not a scheme.
    url.split_once(':')
        .map(|(host, rest)| {
            host.contains('.') && rest.chars().next().is_some_and(|c| c.is_ascii_digit())
        })
        .unwrap_or(false)
}

/// What the address bar opens for `typed`: an address, or a search when the
/// words are not one and a search page is configured (`%s` = the words).
pub fn from_typed(typed: &str, search_url: Option<&str>) -> Result<String, String> {
    let typed = typed.trim();
    if typed.is_empty() {
        return Err("type an address".into());
    }
    let looks_like_address = !typed.contains(' ')
        && (has_scheme(typed) || typed.contains('.') || typed.starts_with("localhost"));
    if looks_like_address {
        return normalize_url(typed).map_err(|e| e.message);
    }
    match search_url {
        Some(template) => Ok(template.replace("%s", &encode_query(typed))),
        None => Err(format!(
            "{typed:?} is not an address (no search page is set: start with --search-url)"
        )),
    }
}

fn encode_query(words: &str) -> String {
    words
        .bytes()
        .map(|b| match b {
            b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'-' | b'_' | b'.' | b'~' => {
                (b as char).to_string()
            }
            b' ' => "+".to_string(),
            _ => format!("%{b:02X}"),
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn urls_get_a_scheme_when_missing() {
        assert_eq!(normalize_url("example.com").unwrap(), "https://example.com");
        assert_eq!(
            normalize_url("localhost:8080/a").unwrap(),
            "http://localhost:8080/a"
        );
        assert_eq!(
            normalize_url("127.0.0.1:9/x").unwrap(),
            "http://127.0.0.1:9/x"
        );
        assert_eq!(normalize_url("http://a.b/c").unwrap(), "http://a.b/c");
        assert_eq!(normalize_url("about:blank").unwrap(), "about:blank");
        assert_eq!(
            normalize_url("example.com:8443/x").unwrap(),
            "https://example.com:8443/x"
        );
        assert!(normalize_url("").is_err());
        assert!(normalize_url("javascript:alert(1)").is_err());
        assert!(normalize_url("a b").is_err());
    }

    #[test]
    fn typed_words_search_only_when_a_search_page_is_set() {
        assert_eq!(
            from_typed("example.org", None).unwrap(),
            "https://example.org"
        );
        assert!(from_typed("nostr clients", None)
            .unwrap_err()
            .contains("--search-url"));
        assert_eq!(
            from_typed("nostr clients & more", Some("https://search.example/?q=%s")).unwrap(),
            "https://search.example/?q=nostr+clients+%26+more"
        );
    }
}
