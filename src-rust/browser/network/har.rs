//! A tab's network log as HAR 1.2 entries (what browsers' devtools import
//! and `har-validator` accepts): each request with its headers, status,
//! timing and resource type. Bodies are not included: WebKit hands the
//! browser no request bodies, and response bodies stay readable one by one
//! with network_request.

use crate::browser::tab::form_posts::{Encoding, FormPost};
use crate::browser::tab::network_log::{Entry, Headers, NetworkLog};
use crate::browser::tab::related::Secret;
use serde_json::{json, Value};

/// The log as HAR 1.2 pages and entries (of the current page, or all
/// kept), `title` being the current page's.
pub fn log(log: &NetworkLog, all: bool, title: &str) -> Value {
    let mut pages: Vec<(u64, f64)> = Vec::new();
    let mut entries = Vec::new();
    let current = log.each(all, |e| {
        if !pages.iter().any(|(id, _)| *id == e.page) {
            pages.push((e.page, e.started));
        }
        entries.push(entry(e));
    });
    let pages: Vec<Value> = pages
        .into_iter()
        .map(|(id, started)| page(id, started, if id == current { title } else { "" }))
        .collect();
    json!({"pages": pages, "entries": entries, "dropped": log.dropped()})
}

/// One request as a HAR entry; `pageref` names its page of the tab.
fn entry(entry: &Entry) -> Value {
    let location = header(&entry.response_headers, "location").unwrap_or_default();
    let mut out = json!({
        "pageref": page_id(entry.page),
        "startedDateTime": iso8601(entry.started),
        "time": entry.ms.unwrap_or(0.0).max(0.0),
        "request": {
            "method": entry.method,
            "url": entry.url,
            "httpVersion": "HTTP/1.1",
            "cookies": [],
            "headers": headers(&entry.request_headers),
            "queryString": query_string(&entry.url),
            "headersSize": -1,
            "bodySize": -1,
        },
        "response": {
            "status": entry.status.unwrap_or(0),
            "statusText": "",
            "httpVersion": "HTTP/1.1",
            "cookies": [],
            "headers": headers(&entry.response_headers),
            "content": {
                "size": entry.size.unwrap_or(0),
                "mimeType": entry.mime.clone().unwrap_or_else(|| "x-unknown".into()),
            },
            "redirectURL": location,
            "headersSize": -1,
            "bodySize": entry.size.map_or(-1, |s| s as i64),
        },
        "cache": {},
        "timings": {"send": 0, "wait": entry.ms.unwrap_or(0.0).max(0.0), "receive": 0},
        "_resourceType": entry.kind,
        // The log's own id, for reading the body back.
        "_id": entry.id,
    });
    if let Some(failure) = &entry.failure {
        out["_failure"] = failure.clone().into();
    }
    match (&entry.sent_form, entry.withheld) {
        (Some(form), Some(secret)) => {
            out["request"]["postData"] = withheld(form, secret);
        }
        (Some(form), None) => {
            out["request"]["bodySize"] = form.urlencoded().len().into();
            out["request"]["postData"] = post_data(form);
        }
        (None, _) => {}
    }
    out
}

/// A form's post as HAR's postData: its entries as params (a file by its
/// name), and the text when the form sent urlencoded text.
fn post_data(form: &FormPost) -> Value {
    let params: Vec<Value> = form
        .fields
        .iter()
        .map(|f| match f.file {
            true => json!({"name": f.name, "fileName": f.value}),
            false => json!({"name": f.name, "value": f.value}),
        })
        .collect();
    let mut data = json!({"mimeType": form.encoding.mime(), "params": params});
    if form.encoding == Encoding::UrlEncoded {
        data["text"] = form.urlencoded().into();
    }
    data
}

/// A withheld form's post: its entries' names, no value, and why.
fn withheld(form: &FormPost, secret: Secret) -> Value {
    let params: Vec<Value> = form
        .fields
        .iter()
        .map(|f| json!({"name": f.name}))
        .collect();
    json!({"mimeType": form.encoding.mime(), "params": params, "comment": secret.note()})
}

/// A page of the tab, as HAR names it.
fn page(id: u64, started: f64, title: &str) -> Value {
    json!({
        "id": page_id(id),
        "startedDateTime": iso8601(started),
        "title": title,
        "pageTimings": {},
    })
}

fn page_id(page: u64) -> String {
    format!("page_{page}")
}

fn headers(list: &Headers) -> Vec<Value> {
    list.iter()
        .map(|(name, value)| json!({"name": name, "value": value}))
        .collect()
}

fn header(list: &Headers, name: &str) -> Option<String> {
    list.iter()
        .find(|(n, _)| n.eq_ignore_ascii_case(name))
        .map(|(_, v)| v.clone())
}

/// The URL's query as name and value pairs, percent-decoded.
fn query_string(url: &str) -> Vec<Value> {
    let query = url
        .split_once('?')
        .map(|(_, q)| q.split('#').next().unwrap_or(""))
        .unwrap_or("");
    pairs(query)
}

/// `a=1&b=2`, decoded, as HAR's name-value pairs.
fn pairs(query: &str) -> Vec<Value> {
    query
        .split('&')
        .filter(|pair| !pair.is_empty())
        .map(|pair| {
            let (name, value) = pair.split_once('=').unwrap_or((pair, ""));
            json!({"name": decode(name), "value": decode(value)})
        })
        .collect()
}

fn decode(text: &str) -> String {
    let bytes = text.as_bytes();
    let hex = |b: u8| (b as char).to_digit(16);
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        let escaped = match bytes.get(i..i + 3) {
            Some([b'%', high, low]) => hex(*high).zip(hex(*low)).map(|(h, l)| (h * 16 + l) as u8),
            _ => None,
        };
        match (escaped, bytes[i]) {
            (Some(byte), _) => {
                out.push(byte);
                i += 3;
                continue;
            }
            (None, b'+') => out.push(b' '),
            (None, byte) => out.push(byte),
        }
        i += 1;
    }
    String::from_utf8_lossy(&out).into_owned()
}

/// Unix milliseconds as an ISO 8601 time in UTC, as HAR wants it.
pub fn iso8601(unix_ms: f64) -> String {
    let ms = unix_ms.max(0.0) as i64;
    let (days, in_day) = (ms.div_euclid(86_400_000), ms.rem_euclid(86_400_000));
    // Howard Hinnant's civil-from-days.
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1_460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = doy - (153 * mp + 2) / 5 + 1;
    let month = if mp < 10 { mp + 3 } else { mp - 9 };
    let year = yoe + era * 400 + i64::from(month <= 2);
    let (h, m, s, milli) = (
        in_day / 3_600_000,
        in_day / 60_000 % 60,
        in_day / 1_000 % 60,
        in_day % 1_000,
    );
    format!("{year:04}-{month:02}-{day:02}T{h:02}:{m:02}:{s:02}.{milli:03}Z")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::browser::tab::form_posts::Field;

    #[test]
    fn times_are_iso_8601_in_utc() {
        assert_eq!(iso8601(0.0), "1970-01-01T00:00:00.000Z");
        assert_eq!(iso8601(1_700_000_000_123.0), "2023-11-14T22:13:20.123Z");
        assert_eq!(iso8601(951_782_400_000.0), "2000-02-29T00:00:00.000Z");
    }

    #[test]
    fn a_query_is_split_and_decoded() {
        let pairs = query_string("http://a.test/p?x=1&name=Ada+L%C3%B6&flag#frag");
        assert_eq!(
            pairs,
            vec![
                json!({"name": "x", "value": "1"}),
                json!({"name": "name", "value": "Ada Lö"}),
                json!({"name": "flag", "value": ""}),
            ]
        );
        assert!(query_string("http://a.test/").is_empty());
        let field = |name: &str, value: &str, file| Field {
            name: name.into(),
            value: value.into(),
            file,
        };
        let mut form = FormPost {
            action: "http://a.test/p".into(),
            encoding: Encoding::UrlEncoded,
            fields: vec![
                field("name", "Ada Lovelace", false),
                field("pw", "a&1", false),
            ],
            truncated: false,
            secret: false,
        };
        let posted = post_data(&form);
        assert_eq!(posted["params"][1], json!({"name": "pw", "value": "a&1"}));
        assert_eq!(posted["text"], "name=Ada+Lovelace&pw=a%261");
        form.encoding = Encoding::Multipart;
        form.fields.push(field("cv", "cv.pdf", true));
        let posted = post_data(&form);
        assert_eq!(posted["mimeType"], "multipart/form-data");
        assert_eq!(
            posted["params"][2],
            json!({"name": "cv", "fileName": "cv.pdf"})
        );
        assert!(posted.get("text").is_none(), "no text that was not sent");
        assert_eq!(decode("100%"), "100%");
    }
}
