//! `--panel-address`: where the person reaches the control panel when it
//! is not the server's own address (a browser in a container behind a
//! forwarded port or an ingress). Links to the panel that agents' clients
//! show their users are built from it, so it must be a plain http(s) base
//! address: no user name or password, no query, no fragment.

use super::ConfigError;

/// Checks a given panel address; the address with a path (`/` at least).
pub fn parse_panel_address(given: &str) -> Result<String, ConfigError> {
    let fail = |why: &'static str| ConfigError::PanelAddress {
        given: given.to_string(),
        why,
    };
    let lower = given.to_ascii_lowercase();
    let rest = ["http://", "https://"]
        .iter()
        .find_map(|scheme| lower.starts_with(scheme).then(|| &given[scheme.len()..]))
        .ok_or_else(|| fail("it must start with http:// or https://"))?;
    if given.chars().any(|c| c.is_whitespace() || c.is_control()) {
        return Err(fail("it has spaces or control characters"));
    }
    if given.contains(['?', '#']) {
        return Err(fail("it may have no query (?) or fragment (#)"));
    }
    let (host, path) = rest.split_at(rest.find('/').unwrap_or(rest.len()));
    if host.contains('@') {
        return Err(fail("it may carry no user name or password"));
    }
    let name = host.rsplit_once(':').map_or(host, |(name, port)| {
        match port.parse::<u16>() {
            Ok(_) if !name.ends_with(':') => name,
            // An IPv6 address without a port: its colons are the host's.
            _ => host,
        }
    });
    if name.is_empty() || host.ends_with(':') {
        return Err(fail("it names no host"));
    }
    Ok(match path {
        "" => format!("{given}/"),
        _ => given.to_string(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn plain_http_and_https_addresses_are_taken() {
        let ok = |given: &str| parse_panel_address(given).unwrap();
        assert_eq!(ok("http://127.0.0.1:8080"), "http://127.0.0.1:8080/");
        assert_eq!(
            ok("https://browser.example.org/"),
            "https://browser.example.org/"
        );
        assert_eq!(
            ok("https://example.org/sovereign/"),
            "https://example.org/sovereign/"
        );
        assert_eq!(ok("http://[::1]:17777"), "http://[::1]:17777/");
    }

    #[test]
    fn anything_else_is_refused_saying_why() {
        let why = |given: &str| parse_panel_address(given).unwrap_err().to_string();
        assert!(why("ftp://example.org/").contains("http:// or https://"));
        assert!(why("example.org").contains("http:// or https://"));
        assert!(why("https://person:secret@example.org/").contains("user name or password"));
        assert!(why("https://example.org/?key=1").contains("query"));
        assert!(why("https://example.org/#key=1").contains("fragment"));
        assert!(why("https:///path").contains("no host"));
        assert!(why("https://:8080/").contains("no host"));
        assert!(why("https://exa mple.org/").contains("spaces"));
        assert_eq!(
            why("https://a@b/"),
            "--panel-address \"https://a@b/\": it may carry no user name or password"
        );
    }
}
