//! Turning what a person or an agent typed into an address to open.

use crate::base::error::ToolError;

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

/// A URL's scheme (lower case), host (lower case; IPv6 in brackets) and
/// port (the scheme's default when none is written), for http(s) and
/// ws(s) URLs. Reads the text only.
fn scheme_host_port(url: &str) -> Option<(String, String, u16)> {
    let (scheme, rest) = url.split_once("://")?;
    let scheme = scheme.to_ascii_lowercase();
    let default_port = match scheme.as_str() {
        "http" | "ws" => 80,
        "https" | "wss" => 443,
        _ => return None,
    };
    let authority = rest.split(['/', '?', '#']).next()?;
    let host_port = authority.rsplit_once('@').map_or(authority, |(_, h)| h);
    let (host, port) = match host_port.strip_prefix('[') {
        Some(v6) => {
            let (host, after) = v6.split_once(']')?;
            (format!("[{host}]"), after.strip_prefix(':'))
        }
        None => match host_port.rsplit_once(':') {
            Some((host, port)) => (host.to_string(), Some(port)),
            None => (host_port.to_string(), None),
        },
    };
    let port = match port {
        Some(port) => port.parse::<u16>().ok()?,
        None => default_port,
    };
    (!host.is_empty()).then(|| (scheme, host.to_ascii_lowercase(), port))
}

/// Ports WebKit never loads from (WebCore's blocked port list, the Fetch
/// standard's "bad ports", and 0): a load of one is dropped without an error.
const BLOCKED_PORTS: [u16; 83] = [
    0, 1, 7, 9, 11, 13, 15, 17, 19, 20, 21, 22, 23, 25, 37, 42, 43, 53, 69, 77, 79, 87, 95, 101,
    102, 103, 104, 109, 110, 111, 113, 115, 117, 119, 123, 135, 137, 139, 143, 161, 179, 389, 427,
    465, 512, 513, 514, 515, 526, 530, 531, 532, 540, 548, 554, 556, 563, 587, 601, 636, 989, 990,
    993, 995, 1719, 1720, 1723, 2049, 3659, 4045, 4190, 5060, 5061, 6000, 6566, 6665, 6666, 6667,
    6668, 6669, 6679, 6697, 10080,
];

/// Whether WebKit may drop a load of `url` without a word (a blocked port,
/// a scheme it does not load): only then is a load that has not started
/// after a short grace taken for refused. Any other load starts, however
/// busy the machine, and is waited for.
pub fn may_be_dropped_silently(url: &str) -> bool {
    match scheme_host_port(url) {
        Some((scheme, _, port)) if scheme == "http" || scheme == "https" => {
            BLOCKED_PORTS.contains(&port) || port == u16::MAX
        }
        _ => true,
    }
}

/// Whether `host` (as [`scheme_host_port`] writes it) is this machine.
pub fn is_loopback_host(host: &str) -> bool {
    host == "localhost"
        || host.ends_with(".localhost")
        || host == "[::1]"
        || host
            .parse::<std::net::Ipv4Addr>()
            .is_ok_and(|ip| ip.is_loopback())
}

/// The origin of an http(s) URL, written `scheme://host:port` with the
/// port always given, so that two spellings of one site compare equal.
pub fn origin_of(url: &str) -> Option<String> {
    let (scheme, host, port) = scheme_host_port(url)?;
    matches!(scheme.as_str(), "http" | "https").then(|| format!("{scheme}://{host}:{port}"))
}

/// The host of an http(s) URL or origin, if it is this machine's.
pub fn loopback_host_of(url: &str) -> bool {
    scheme_host_port(url).is_some_and(|(_, host, _)| is_loopback_host(&host))
}

/// Whether `url` points at this browser's own server (listening on
/// loopback `port`): the person's panel, never a page for a tab.
pub fn is_own_server(url: &str, port: u16) -> bool {
    scheme_host_port(url).is_some_and(|(_, host, given)| {
        (is_loopback_host(&host) || host == "0.0.0.0") && given == port
    })
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
    fn only_blocked_ports_and_other_schemes_may_be_dropped_silently() {
        for url in [
            "http://127.0.0.1:8080/",
            "https://example.org/a",
            "http://[::1]:3000/x",
        ] {
            assert!(!may_be_dropped_silently(url), "{url}");
        }
        for url in [
            "http://127.0.0.1:6000/",
            "http://127.0.0.1:1/",
            "https://example.org:10080/",
            "about:blank",
            "data:text/html,x",
            "foo://bar",
        ] {
            assert!(may_be_dropped_silently(url), "{url}");
        }
    }

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

    #[test]
    fn the_own_server_is_recognised_in_every_spelling() {
        for own in [
            "http://127.0.0.1:17777/",
            "http://localhost:17777/?key=x",
            "http://[::1]:17777/api/panel",
            "ws://127.0.0.2:17777/agent",
            "HTTP://LOCALHOST:17777",
            "http://user@127.0.0.1:17777/",
        ] {
            assert!(is_own_server(own, 17777), "{own}");
        }
        for other in [
            "http://127.0.0.1:17778/",
            "http://example.com:17777/",
            "http://127.0.0.1/",
            "about:blank",
            "file:///tmp/x",
            "http://127.0.0.1.evil.example:17777/",
        ] {
            assert!(!is_own_server(other, 17777), "{other}");
        }
        assert!(is_own_server("http://localhost/", 80));
    }

    #[test]
    fn origins_compare_across_spellings() {
        assert_eq!(
            origin_of("HTTP://Example.com/a?b").as_deref(),
            Some("http://example.com:80")
        );
        assert_eq!(
            origin_of("https://example.com:443/").as_deref(),
            Some("https://example.com:443")
        );
        assert_eq!(
            origin_of("http://u:p@127.0.0.1:8080/x").as_deref(),
            Some("http://127.0.0.1:8080")
        );
        assert_eq!(
            origin_of("http://[::1]:9/").as_deref(),
            Some("http://[::1]:9")
        );
        assert_eq!(origin_of("about:blank"), None);
        assert_eq!(origin_of("file:///etc/passwd"), None);
    }
}
