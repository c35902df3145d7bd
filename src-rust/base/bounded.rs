//! Cutting page- and agent-supplied text to a bound before it is kept.
//! Everything the browser stores for a page or an agent is bounded (see
//! docs/security.md, "Bounds"); these are the cuts, each with a visible
//! marker, so a reader knows it holds part of the text and how much was
//! left out.

use std::borrow::Cow;

/// Characters kept of a stored URL. A `data:` URL keeps its media type and
/// the first characters of its data.
pub const URL_MAX: usize = 2048;
/// Characters kept of a `data:` URL's data.
const DATA_KEPT: usize = 64;

/// `text` cut to `max` characters, with a marker saying how many bytes
/// were left out.
pub fn cut(text: &str, max: usize) -> Cow<'_, str> {
    match text.char_indices().nth(max) {
        Some((at, _)) => Cow::Owned(format!(
            "{}…[cut: {} more bytes]",
            &text[..at],
            text.len() - at
        )),
        None => Cow::Borrowed(text),
    }
}

/// `text` on one line (line breaks and other control characters become
/// spaces), cut to `max` characters: for a name shown to the person.
pub fn one_line(text: &str, max: usize) -> String {
    let line: String = text
        .chars()
        .map(|c| if c.is_control() { ' ' } else { c })
        .collect();
    cut(line.trim(), max).into_owned()
}

/// A URL as stored: whole up to [`URL_MAX`] characters; past that, its
/// start with a marker. A long `data:` URL keeps its header (media type and
/// encoding), the first characters of its data and its length.
pub fn url(url: &str) -> Cow<'_, str> {
    if url.len() <= URL_MAX {
        return Cow::Borrowed(url);
    }
    if url.starts_with("data:") {
        if let Some(comma) = url.find(',').filter(|&at| at < URL_MAX) {
            let data = &url[comma + 1..];
            let kept: String = data.chars().take(DATA_KEPT).collect();
            return Cow::Owned(format!(
                "{}{kept}…[data: URL of {} bytes]",
                &url[..=comma],
                url.len()
            ));
        }
    }
    cut(url, URL_MAX)
}

/// Whether [`url`] would cut `url`.
pub fn url_is_cut(url: &str) -> bool {
    url.len() > URL_MAX
}

/// Whether a kept text is a cut one: it holds the marker's ellipsis (a URL
/// as the engine gives it is ASCII, so a kept URL holds one only if cut).
pub fn is_cut(kept: &str) -> bool {
    kept.contains('…')
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn short_text_is_kept_and_long_text_says_what_was_cut() {
        assert_eq!(cut("héllo", 5), "héllo");
        assert_eq!(cut("héllo", 2), "hé…[cut: 3 more bytes]");
        assert_eq!(one_line(" a\nb\u{0}c\r\n", 10), "a b c");
        assert_eq!(one_line("abcdef", 3), "abc…[cut: 3 more bytes]");
    }

    #[test]
    fn a_long_data_url_keeps_its_type_its_start_and_its_length() {
        let long = format!("data:image/gif;base64,{}", "A".repeat(1_000_000));
        let kept = url(&long);
        assert!(kept.starts_with("data:image/gif;base64,AAAA"));
        assert!(kept.ends_with(&format!("…[data: URL of {} bytes]", long.len())));
        assert!(kept.len() < 200);
        let http = format!("http://a.test/?q={}", "é".repeat(5000));
        let kept = url(&http);
        assert!(kept.starts_with(&http[..99]) && kept.contains("…[cut: "));
        assert!(kept.chars().count() < URL_MAX + 40);
        assert!(url_is_cut(&http) && !url_is_cut("http://a.test/"));
        assert_eq!(url("http://a.test/"), "http://a.test/");
    }
}
