//! URL patterns: a bare regex searched in the URL (its plain text matches
//! too), a glob when it has `*` and no other regex syntax, or `/re/flags`.

use crate::base::error::ToolError;
use regex_lite::Regex;

/// A URL pattern as wait_for_url and network_requests take it.
#[derive(Debug)]
pub enum UrlPattern {
    /// A glob or `/source/flags`: the regex alone.
    Regex(Regex),
    /// A bare regex, searched in the URL; the pattern as plain text in the
    /// URL matches too (in `https://a.test/p?q=1`, `?` is a quantifier).
    Search(Regex, String),
}

/// Regex syntax a glob never has: with any of it, `*` is a quantifier.
const REGEX_ONLY: [char; 11] = ['\\', '^', '$', '+', '(', ')', '[', ']', '{', '}', '|'];

impl UrlPattern {
    /// `pattern`, given as the parameter `field`.
    pub fn parse(field: &str, pattern: &str) -> Result<Self, ToolError> {
        let invalid = |e: regex_lite::Error| {
            ToolError::invalid_field(field, format!("not a valid regex: {e}"))
        };
        if pattern.is_empty() {
            return Err(ToolError::invalid_field(field, "it is empty"));
        }
        if let Some((source, flags)) = regex_literal(pattern) {
            let mut prefix = String::new();
            for flag in flags.chars().filter(|f| matches!(f, 'i' | 'm' | 's')) {
                prefix.push(flag);
            }
            let source = if prefix.is_empty() {
                source.to_string()
            } else {
                format!("(?{prefix}){source}")
            };
            return Regex::new(&source).map(UrlPattern::Regex).map_err(invalid);
        }
        if pattern.contains('*') && !pattern.contains(REGEX_ONLY) {
            return Ok(UrlPattern::Regex(glob_regex(field, pattern)?));
        }
        let regex = Regex::new(pattern).map_err(invalid)?;
        Ok(UrlPattern::Search(regex, pattern.to_string()))
    }

    pub fn matches(&self, url: &str) -> bool {
        match self {
            UrlPattern::Regex(re) => re.is_match(url),
            UrlPattern::Search(re, text) => re.is_match(url) || url.contains(text.as_str()),
        }
    }
}

/// `/source/flags` → (source, flags); a path like `/account/settings` is not one.
fn regex_literal(pattern: &str) -> Option<(&str, &str)> {
    let rest = pattern.strip_prefix('/')?;
    let end = rest.rfind('/')?;
    let flags = &rest[end + 1..];
    (end > 0 && flags.chars().all(|c| "dgimsuy".contains(c))).then_some((&rest[..end], flags))
}

/// A glob as an anchored regex: `**` any text, `*` any text without `/`, `?` one character.
fn glob_regex(field: &str, glob: &str) -> Result<Regex, ToolError> {
    let mut source = String::from("^");
    let mut chars = glob.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            '*' if chars.peek() == Some(&'*') => {
                chars.next();
                source.push_str(".*");
            }
            '*' => source.push_str("[^/]*"),
            '?' => source.push('.'),
            c => source.push_str(&regex_lite::escape(&c.to_string())),
        }
    }
    source.push('$');
    Regex::new(&source).map_err(|e| ToolError::invalid_field(field, format!("bad glob: {e}")))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::base::error::ErrorCode;

    #[test]
    fn url_patterns_are_regexes_searched_globs_or_literals() {
        let glob = UrlPattern::parse("url_pattern", "**/done?x=*").unwrap();
        assert!(glob.matches("http://a.test/path/done?x=1"));
        assert!(!glob.matches("http://a.test/path/done?x=1/2"));
        let star = UrlPattern::parse("url_pattern", "http://*.test/*").unwrap();
        assert!(star.matches("http://a.test/page"));
        assert!(!star.matches("http://a.test/deep/page"));
        let literal = UrlPattern::parse("url_pattern", "/DONE\\.html$/i").unwrap();
        assert!(literal.matches("http://a.test/done.html"));
        assert!(!literal.matches("http://a.test/done.html?x"));
        // A bare regex is searched in the URL.
        let bare = UrlPattern::parse("url_pattern", "done\\.html$").unwrap();
        assert!(bare.matches("http://a.test/step/done.html"));
        assert!(!bare.matches("http://a.test/done.html?x"));
        assert!(!bare.matches("http://a.test/doneXhtml"));
        let any = UrlPattern::parse("url_pattern", "/orders/\\d+").unwrap();
        assert!(any.matches("http://a.test/orders/42/edit"));
        assert!(!any.matches("http://a.test/orders/new"));
        // A * with other regex syntax is a quantifier, not a glob.
        let quantified = UrlPattern::parse("url_pattern", "^https?://a\\.test/p.*$").unwrap();
        assert!(quantified.matches("https://a.test/page/deep"));
        assert!(!quantified.matches("https://b.test/page"));
        // Plain text and whole URLs still match themselves.
        let text = UrlPattern::parse("url_pattern", "/checkout").unwrap();
        assert!(text.matches("http://a.test/checkout/step"));
        let path = UrlPattern::parse("url_pattern", "/account/settings").unwrap();
        assert!(path.matches("http://a.test/account/settings"));
        let url = UrlPattern::parse("url_pattern", "https://example.com/a?b=1").unwrap();
        assert!(url.matches("https://example.com/a?b=1"));
        assert!(!url.matches("https://example.com/c?b=1"));
        let error = UrlPattern::parse("url_pattern", "done(").unwrap_err();
        assert_eq!(error.code, ErrorCode::InvalidParams);
        assert_eq!(error.field.as_deref(), Some("url_pattern"));
        assert!(UrlPattern::parse("url_pattern", "/[/").is_err());
        assert!(UrlPattern::parse("url_pattern", "").is_err());
    }
}
