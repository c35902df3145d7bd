//! A tab's requests, as WebKit reports them to the browser process, from
//! the tab's start, in every frame: bounded, with a count of what fell out.
//! `network_watch` feeds it from WebKit's resource signals, and
//! `network_body` reads a response's body back. Nothing a page script does
//! makes an entry: only the engine's own loads do.

use serde_json::{json, Map, Value};
use std::cell::{Cell, RefCell};
use std::collections::VecDeque;
use std::time::{Instant, SystemTime, UNIX_EPOCH};
use webkit2gtk::WebResource;

/// Requests kept per tab; older ones fall out, counted.
const KEPT: usize = 1000;

/// Headers as the engine gave them, in order.
pub type Headers = Vec<(String, String)>;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Phase {
    /// Sent, no end yet.
    Pending,
    /// Answered with a redirect: the next hop is its own entry.
    Redirected,
    Finished,
    Failed,
}

pub struct Entry {
    pub id: u64,
    /// Which page of the tab (main-frame document) it belongs to.
    pub page: u64,
    pub method: String,
    pub url: String,
    /// The kind of resource, from the request's `Sec-Fetch-Dest`.
    pub kind: &'static str,
    /// Unix time in ms, and the instant, at which WebKit started it.
    pub started: f64,
    started_at: Instant,
    pub ms: Option<f64>,
    pub phase: Phase,
    pub status: Option<u32>,
    pub mime: Option<String>,
    /// The response's Content-Length, when it gave one.
    pub size: Option<u64>,
    pub failure: Option<String>,
    pub redirected_from: Option<u64>,
    pub redirected_to: Option<u64>,
    pub request_headers: Headers,
    pub response_headers: Headers,
    /// The tab's main document (its body is the frame's main resource).
    pub main_document: bool,
    /// WebKit's handle, for the body (none in unit tests).
    pub resource: Option<WebResource>,
}

impl Entry {
    /// The line of a listing: what a model needs to pick one.
    pub fn summary(&self) -> Value {
        let mut out = Map::new();
        out.insert("id".into(), self.id.into());
        out.insert("method".into(), self.method.clone().into());
        out.insert("url".into(), self.url.clone().into());
        out.insert("type".into(), self.kind.into());
        if let Some(status) = self.status {
            out.insert("status".into(), status.into());
        }
        if let Some(failure) = &self.failure {
            out.insert("failure".into(), failure.clone().into());
        }
        if let Some(size) = self.size {
            out.insert("size".into(), size.into());
        }
        match self.ms {
            Some(ms) => out.insert("ms".into(), ms.into()),
            None => out.insert("pending".into(), true.into()),
        };
        if let Some(to) = self.redirected_to {
            out.insert("redirected_to".into(), to.into());
        }
        Value::Object(out)
    }

    /// Everything recorded, headers included.
    pub fn detail(&self) -> Value {
        let mut out = match self.summary() {
            Value::Object(map) => map,
            _ => Map::new(),
        };
        out.insert("started".into(), self.started.into());
        out.insert("mime".into(), self.mime.clone().into());
        if let Some(from) = self.redirected_from {
            out.insert("redirected_from".into(), from.into());
        }
        out.insert(
            "request_headers".into(),
            headers_json(&self.request_headers),
        );
        out.insert(
            "response_headers".into(),
            headers_json(&self.response_headers),
        );
        Value::Object(out)
    }

    pub fn is_failed(&self) -> bool {
        self.failure.is_some() || self.status.is_some_and(|s| s >= 400)
    }

    fn end(&mut self, phase: Phase) {
        self.phase = phase;
        self.ms = Some((self.started_at.elapsed().as_secs_f64() * 10_000.0).round() / 10.0);
        // The handle is needed for a body only.
        if phase != Phase::Finished {
            self.resource = None;
        }
    }
}

/// Headers as an object; a repeated name keeps every value, joined as
/// HTTP joins them (Set-Cookie lines with a newline, others with ", ").
fn headers_json(headers: &Headers) -> Value {
    let mut out = Map::new();
    for (name, value) in headers {
        match out.get_mut(name) {
            Some(Value::String(seen)) => {
                let joiner = if name.eq_ignore_ascii_case("set-cookie") {
                    "\n"
                } else {
                    ", "
                };
                seen.push_str(joiner);
                seen.push_str(value);
            }
            _ => {
                out.insert(name.clone(), value.clone().into());
            }
        }
    }
    Value::Object(out)
}

/// The resource type a request's `Sec-Fetch-Dest` names, in the words of
/// the peers' tools. WebKit sends "empty" for fetch() and XMLHttpRequest
/// alike, and the browser cannot tell them apart: both are "fetch".
pub fn kind_of(headers: &Headers, main_document: bool) -> &'static str {
    if main_document {
        return "document";
    }
    let dest = headers
        .iter()
        .find(|(name, _)| name.eq_ignore_ascii_case("sec-fetch-dest"))
        .map(|(_, value)| value.as_str());
    match dest {
        Some("document") => "document",
        Some("iframe" | "frame") => "frame",
        Some("script" | "audioworklet" | "paintworklet") => "script",
        Some("style") => "stylesheet",
        Some("image") => "image",
        Some("font") => "font",
        Some("audio" | "video" | "track") => "media",
        Some("empty") => "fetch",
        Some("manifest") => "manifest",
        Some("worker" | "sharedworker" | "serviceworker") => "worker",
        Some("object" | "embed") => "object",
        _ => "other",
    }
}

#[derive(Default)]
pub struct NetworkLog {
    entries: RefCell<VecDeque<Entry>>,
    next_id: Cell<u64>,
    page: Cell<u64>,
    dropped: Cell<u64>,
}

/// What a request's start tells.
pub struct Started {
    pub method: String,
    pub url: String,
    pub headers: Headers,
    pub main_document: bool,
    pub resource: Option<WebResource>,
}

impl NetworkLog {
    /// Records a request WebKit starts; gives its id.
    pub fn start(&self, request: Started) -> u64 {
        if request.main_document {
            self.page.set(self.page.get() + 1);
        }
        self.push(request, None)
    }

    fn push(&self, request: Started, redirected_from: Option<u64>) -> u64 {
        let id = self.next_id.get() + 1;
        self.next_id.set(id);
        let entry = Entry {
            id,
            page: self.page.get(),
            kind: kind_of(&request.headers, request.main_document),
            method: request.method,
            url: request.url,
            started: unix_ms(),
            started_at: Instant::now(),
            ms: None,
            phase: Phase::Pending,
            status: None,
            mime: None,
            size: None,
            failure: None,
            redirected_from,
            redirected_to: None,
            request_headers: request.headers,
            response_headers: Vec::new(),
            main_document: request.main_document,
            resource: request.resource,
        };
        let mut entries = self.entries.borrow_mut();
        if entries.len() >= KEPT {
            entries.pop_front();
            self.dropped.set(self.dropped.get() + 1);
        }
        entries.push_back(entry);
        id
    }

    /// Changes entry `id`, if it is still kept.
    fn with(&self, id: u64, change: impl FnOnce(&mut Entry)) {
        if let Some(entry) = self.entries.borrow_mut().iter_mut().find(|e| e.id == id) {
            change(entry);
        }
    }

    /// The headers the request went out with (the engine adds a few at
    /// sending: the fetch metadata among them).
    pub fn sent(&self, id: u64, headers: Headers) {
        self.with(id, |entry| {
            if entry.kind == "other" {
                entry.kind = kind_of(&headers, entry.main_document);
            }
            entry.request_headers = headers;
        });
    }

    /// A redirect answered `id`; the next hop is a new entry, whose id this gives.
    pub fn redirect(&self, id: u64, status: u32, headers: Headers, next: Started) -> u64 {
        let mut main_document = false;
        self.with(id, |entry| {
            entry.status = Some(status);
            entry.response_headers = headers;
            entry.end(Phase::Redirected);
            main_document = entry.main_document;
        });
        let next_id = self.push(
            Started {
                main_document,
                ..next
            },
            Some(id),
        );
        self.with(id, |entry| entry.redirected_to = Some(next_id));
        next_id
    }

    pub fn response(
        &self,
        id: u64,
        status: u32,
        mime: Option<String>,
        size: u64,
        headers: Headers,
    ) {
        self.with(id, |entry| {
            entry.status = (status > 0).then_some(status);
            entry.mime = mime;
            entry.size = (size > 0).then_some(size);
            entry.response_headers = headers;
        });
    }

    pub fn finish(&self, id: u64) {
        self.with(id, |entry| {
            if entry.phase == Phase::Pending {
                entry.end(Phase::Finished);
            }
        });
    }

    pub fn fail(&self, id: u64, reason: String) {
        self.with(id, |entry| {
            entry.failure = Some(reason);
            entry.end(Phase::Failed);
        });
    }

    /// Requests after `after` (a mark: the newest id an agent had seen),
    /// of the current page unless `all`; oldest first.
    pub fn list(&self, after: u64, all: bool) -> Value {
        let page = self.page.get();
        let entries = self.entries.borrow();
        let requests: Vec<Value> = entries
            .iter()
            .filter(|e| e.id > after && (all || e.page == page))
            .map(Entry::summary)
            .collect();
        json!({
            "requests": requests,
            "newest": self.next_id.get(),
            "dropped": self.dropped.get(),
        })
    }

    /// Runs `read` on entry `id`, if it is still kept.
    pub fn read<T>(&self, id: u64, read: impl FnOnce(&Entry) -> T) -> Option<T> {
        self.entries.borrow().iter().find(|e| e.id == id).map(read)
    }

    /// The newest request's id (0: none yet).
    pub fn newest(&self) -> u64 {
        self.next_id.get()
    }

    /// The ids kept: oldest and newest, for an error that names them.
    pub fn kept(&self) -> Option<(u64, u64)> {
        let entries = self.entries.borrow();
        Some((entries.front()?.id, entries.back()?.id))
    }
}

fn unix_ms() -> f64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0.0, |d| d.as_millis() as f64)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn request(url: &str, dest: &str, main_document: bool) -> Started {
        Started {
            method: "GET".into(),
            url: url.into(),
            headers: vec![("Sec-Fetch-Dest".into(), dest.into())],
            main_document,
            resource: None,
        }
    }

    #[test]
    fn a_listing_holds_the_current_page_unless_all_is_asked() {
        let log = NetworkLog::default();
        log.start(request("http://a.test/", "document", true));
        log.start(request("http://a.test/app.js", "script", false));
        log.start(request("http://b.test/", "document", true));
        let img = log.start(request("http://b.test/i.png", "image", false));
        let list = log.list(0, false);
        let urls: Vec<&str> = list["requests"]
            .as_array()
            .unwrap()
            .iter()
            .map(|r| r["url"].as_str().unwrap())
            .collect();
        assert_eq!(urls, ["http://b.test/", "http://b.test/i.png"]);
        assert_eq!(log.list(0, true)["requests"].as_array().unwrap().len(), 4);
        assert_eq!(log.list(img - 1, false)["requests"][0]["type"], "image");
        assert_eq!(list["newest"], img);
    }

    #[test]
    fn a_redirect_ends_its_hop_and_the_next_is_its_own_entry() {
        let log = NetworkLog::default();
        let first = log.start(request("http://a.test/r?n=1", "empty", false));
        let second = log.redirect(
            first,
            302,
            vec![],
            request("http://a.test/r?n=0", "empty", false),
        );
        log.response(second, 200, Some("application/json".into()), 12, vec![]);
        log.finish(second);
        let list = log.list(0, true);
        assert_eq!(list["requests"][0]["status"], 302);
        assert_eq!(list["requests"][0]["redirected_to"], second);
        assert_eq!(list["requests"][1]["status"], 200);
        assert_eq!(list["requests"][1]["size"], 12);
        assert_eq!(list["requests"][1]["type"], "fetch");
        assert_eq!(log.read(second, |e| e.redirected_from), Some(Some(first)));
    }

    #[test]
    fn failures_are_kept_with_their_reason_and_old_entries_fall_out_counted() {
        let log = NetworkLog::default();
        let id = log.start(request("http://127.0.0.1:1/", "empty", false));
        log.fail(id, "Could not connect".into());
        assert_eq!(
            log.list(0, true)["requests"][0]["failure"],
            "Could not connect"
        );
        assert!(log.read(id, Entry::is_failed).unwrap());
        for i in 0..KEPT {
            log.start(request(&format!("http://a.test/{i}"), "image", false));
        }
        let list = log.list(0, true);
        assert_eq!(list["dropped"], 1);
        assert_eq!(list["requests"].as_array().unwrap().len(), KEPT);
        assert!(log.read(id, |_| ()).is_none());
    }

    #[test]
    fn kinds_come_from_the_fetch_destination() {
        let h = |dest: &str| vec![("sec-fetch-dest".to_string(), dest.to_string())];
        assert_eq!(kind_of(&h("iframe"), false), "frame");
        assert_eq!(kind_of(&h("style"), false), "stylesheet");
        assert_eq!(kind_of(&h("empty"), false), "fetch");
        assert_eq!(kind_of(&h("video"), false), "media");
        assert_eq!(kind_of(&vec![], false), "other");
        assert_eq!(kind_of(&vec![], true), "document");
    }

    #[test]
    fn repeated_headers_keep_every_value() {
        let headers = vec![
            ("Set-Cookie".to_string(), "a=1".to_string()),
            ("Set-Cookie".to_string(), "b=2".to_string()),
            ("Vary".to_string(), "Accept".to_string()),
            ("Vary".to_string(), "Origin".to_string()),
        ];
        let json = headers_json(&headers);
        assert_eq!(json["Set-Cookie"], "a=1\nb=2");
        assert_eq!(json["Vary"], "Accept, Origin");
    }
}
