//! Answers from a HAR file (1.2, as browsers' devtools and this browser
//! write it): each recorded request's response, found by method and URL.

use super::reply::Reply;
use base64::Engine as _;
use bytes::Bytes;
use serde_json::Value;

/// Entries read from one file, at most.
pub const ENTRIES_MAX: usize = 10_000;

/// Headers that describe the bytes as they crossed the network, which a
/// HAR's decoded text no longer is.
const FRAMING: [&str; 4] = [
    "content-length",
    "content-encoding",
    "transfer-encoding",
    "connection",
];

#[derive(Debug)]
pub struct Archive {
    entries: Vec<Recorded>,
    bytes: usize,
}

#[derive(Debug)]
struct Recorded {
    method: String,
    url: String,
    reply: Reply,
}

/// Why a file is no HAR the routes can answer from: what is missing or
/// wrong, and in which entry.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{0}")]
pub struct BadHar(String);

impl Archive {
    /// Reads a HAR's entries; an entry without a response (a request that
    /// failed) is left out.
    pub fn parse(text: &str) -> Result<Archive, BadHar> {
        let har: Value =
            serde_json::from_str(text).map_err(|e| BadHar(format!("not JSON: {e}")))?;
        let entries = har
            .pointer("/log/entries")
            .and_then(Value::as_array)
            .ok_or_else(|| BadHar("no log.entries: not a HAR file".into()))?;
        if entries.len() > ENTRIES_MAX {
            return Err(BadHar(format!(
                "{} entries; at most {ENTRIES_MAX}",
                entries.len()
            )));
        }
        let mut archive = Archive {
            entries: Vec::new(),
            bytes: 0,
        };
        for (at, entry) in entries.iter().enumerate() {
            let recorded =
                recorded(entry).map_err(|BadHar(e)| BadHar(format!("entry {at}: {e}")))?;
            if let Some(recorded) = recorded {
                archive.bytes += recorded.url.len() + recorded.reply.body.len();
                archive.bytes += recorded
                    .reply
                    .headers
                    .iter()
                    .map(|(n, v)| n.len() + v.len())
                    .sum::<usize>();
                archive.entries.push(recorded);
            }
        }
        Ok(archive)
    }

    /// The response recorded first for this method and URL.
    pub fn find(&self, method: &str, url: &str) -> Option<&Reply> {
        let url = without_fragment(url);
        self.entries
            .iter()
            .find(|e| e.method == method && without_fragment(&e.url) == url)
            .map(|e| &e.reply)
    }

    pub fn len(&self) -> usize {
        self.entries.len()
    }

    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    /// What it keeps in memory, roughly.
    pub fn bytes(&self) -> usize {
        self.bytes
    }
}

fn without_fragment(url: &str) -> &str {
    url.split('#').next().unwrap_or(url)
}

/// One entry's recorded answer (none: it got no response); why not, in
/// the entry's terms.
fn recorded(entry: &Value) -> Result<Option<Recorded>, BadHar> {
    let missing = |what: &str| BadHar(format!("no {what}"));
    let text = |v: Option<&Value>| v.and_then(Value::as_str).map(str::to_string);
    let method = text(entry.pointer("/request/method")).ok_or_else(|| missing("request.method"))?;
    let url = text(entry.pointer("/request/url")).ok_or_else(|| missing("request.url"))?;
    let status = entry
        .pointer("/response/status")
        .and_then(Value::as_u64)
        .unwrap_or(0);
    // Chromium writes status 0 for a request that got no response.
    if !(100..=599).contains(&status) {
        return Ok(None);
    }
    let mut headers = Vec::new();
    let listed = entry.pointer("/response/headers").and_then(Value::as_array);
    for header in listed.into_iter().flatten() {
        let (Some(name), Some(value)) = (text(header.get("name")), text(header.get("value")))
        else {
            continue;
        };
        let lower = name.to_ascii_lowercase();
        // HTTP/2's pseudo-headers and the old bytes' framing are not the reply's.
        if lower.starts_with(':') || FRAMING.contains(&lower.as_str()) {
            continue;
        }
        headers.push((lower, value));
    }
    let content = entry.pointer("/response/content");
    let body = text(content.and_then(|c| c.get("text"))).unwrap_or_default();
    let base64 = content
        .and_then(|c| c.get("encoding"))
        .and_then(Value::as_str)
        == Some("base64");
    let body = match base64 {
        true => base64::engine::general_purpose::STANDARD
            .decode(body.trim())
            .map_err(|e| BadHar(format!("response.content.text is not base64: {e}")))?,
        false => body.into_bytes(),
    };
    if !headers.iter().any(|(n, _)| n == "content-type") {
        if let Some(mime) = text(content.and_then(|c| c.get("mimeType"))).filter(|m| !m.is_empty())
        {
            headers.push(("content-type".into(), mime));
        }
    }
    Ok(Some(Recorded {
        method: method.to_ascii_uppercase(),
        url,
        reply: Reply {
            status: status as u16,
            headers,
            body: Bytes::from(body),
        },
    }))
}

#[cfg(test)]
mod tests {
    use super::*;

    const HAR: &str = r#"{"log": {"version": "1.2", "entries": [
        {"request": {"method": "GET", "url": "https://a.test/app.js", "headers": []},
         "response": {"status": 200, "headers": [
            {"name": ":status", "value": "200"},
            {"name": "Content-Encoding", "value": "br"},
            {"name": "Content-Length", "value": "999"},
            {"name": "X-Kept", "value": "yes"}],
          "content": {"mimeType": "text/javascript", "text": "d2luZG93LmEgPSAxOw==", "encoding": "base64"}}},
        {"request": {"method": "GET", "url": "https://a.test/gone"},
         "response": {"status": 0, "headers": [], "content": {}}}
    ]}}"#;

    #[test]
    fn entries_are_found_by_method_and_url_with_their_decoded_body() {
        let archive = Archive::parse(HAR).unwrap();
        assert_eq!(archive.len(), 1, "a request with no response is left out");
        let reply = archive.find("GET", "https://a.test/app.js#x").unwrap();
        assert_eq!(&reply.body[..], b"window.a = 1;");
        assert_eq!(
            reply.headers,
            vec![
                ("x-kept".to_string(), "yes".to_string()),
                ("content-type".to_string(), "text/javascript".to_string())
            ]
        );
        assert!(archive.find("POST", "https://a.test/app.js").is_none());
        assert!(Archive::parse("{}")
            .unwrap_err()
            .to_string()
            .contains("not a HAR"));
    }
}
