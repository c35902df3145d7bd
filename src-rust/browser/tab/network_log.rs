//! A tab's requests, as WebKit reports them to the browser process, from
//! the tab's start, in every frame: bounded, with a count of what fell out.
//! `network_watch` feeds it from WebKit's resource signals, and
//! `network_body` reads a response's body back. Nothing a page script does
//! makes an entry: only the engine's own loads do.
//!
//! What a page chooses is cut before it is kept (see docs/security.md,
//! "Bounds"): URLs to `bounded::URL_MAX` characters (a `data:` URL keeps
//! its type, its start and its length), each header value, the number of
//! headers and their bytes. Entries are bounded per tab in number and
//! bytes, and across tabs by `budget`.

use super::budget::{Budget, Budgeted};
use super::form_posts::FormPost;
use super::related::Secret;
use crate::base::bounded;
use serde_json::{json, Map, Value};
use std::cell::{Cell, RefCell};
use std::collections::VecDeque;
use std::rc::Rc;
use std::time::{Instant, SystemTime, UNIX_EPOCH};
use webkit2gtk::WebResource;

/// Requests kept per tab; older ones fall out, counted.
const KEPT: usize = 1000;
/// Bytes of entries kept per tab (all tabs together: `budget`).
const TAB_BYTES: usize = 16 << 20;
/// Headers kept of a request or a response, their bytes, and the
/// characters kept of a name and of a value.
const HEADERS_MAX: usize = 64;
const HEADER_BYTES: usize = 16 * 1024;
const HEADER_NAME_MAX: usize = 256;
const HEADER_VALUE_MAX: usize = 2048;
/// Characters kept of a MIME type and of a failure's reason.
const SHORT_MAX: usize = 256;
const REASON_MAX: usize = 1024;
/// What an entry costs beyond its strings (the struct, the handle).
const ENTRY_OVERHEAD: usize = 256;

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
    /// Its place in the browser-wide sequence (`budget`).
    seq: u64,
    /// What it holds, counted when kept or changed.
    bytes: usize,
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
    /// What a form sent, when this request submitted one.
    pub sent_form: Option<FormPost>,
    /// The route (network_route) that answered or changed it.
    pub routed: Option<u64>,
    /// Why what it sent is never handed to an agent, if it is not.
    pub withheld: Option<Secret>,
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
        if let Some(route) = self.routed {
            out.insert("routed".into(), route.into());
        }
        // What it sent is never shown (network_request says why).
        if self.withheld.is_some() {
            out.insert("withheld".into(), true.into());
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

    /// What the entry holds, for the bounds.
    fn count_bytes(&self) -> usize {
        ENTRY_OVERHEAD
            + self.method.len()
            + self.url.len()
            + self.mime.as_ref().map_or(0, String::len)
            + self.failure.as_ref().map_or(0, String::len)
            + headers_bytes(&self.request_headers)
            + headers_bytes(&self.response_headers)
            + self.sent_form.as_ref().map_or(0, FormPost::bytes)
    }

    /// Drops WebKit's handle when what it holds is more than the entry
    /// keeps (a cut URL or headers): the handle keeps them whole.
    fn keep_handle_only_if_whole(&mut self, whole: bool) {
        if !whole {
            self.resource = None;
        }
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

/// Headers as kept: each name and value cut, at most [`HEADERS_MAX`] of
/// them and [`HEADER_BYTES`] in all; what is left out is said in a last
/// header named `…`.
pub fn cut_headers(headers: Headers) -> (Headers, bool) {
    let total = headers.len();
    let mut kept = Vec::with_capacity(total.min(HEADERS_MAX));
    let mut bytes = 0;
    let mut cut = false;
    for (name, value) in headers {
        let name = bounded::cut(&name, HEADER_NAME_MAX).into_owned();
        let value = bounded::cut(&value, HEADER_VALUE_MAX).into_owned();
        cut |= name.contains("…[cut: ") || value.contains("…[cut: ");
        if kept.len() == HEADERS_MAX || bytes + name.len() + value.len() > HEADER_BYTES {
            break;
        }
        bytes += name.len() + value.len();
        kept.push((name, value));
    }
    if kept.len() < total {
        let left = total - kept.len();
        kept.push(("…".to_string(), format!("{left} more headers cut")));
        cut = true;
    }
    (kept, cut)
}

fn headers_bytes(headers: &Headers) -> usize {
    headers.iter().map(|(n, v)| n.len() + v.len() + 48).sum()
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
    crate::routes::rule::kind_of_dest(dest)
}

#[derive(Default)]
pub struct NetworkLog {
    /// The budget of all tabs' logs it is counted in.
    budget: Rc<Budget>,
    entries: RefCell<VecDeque<Entry>>,
    next_id: Cell<u64>,
    page: Cell<u64>,
    dropped: Cell<u64>,
    /// The bytes its entries hold.
    bytes: Cell<usize>,
}

impl Budgeted for NetworkLog {
    fn bytes(&self) -> usize {
        self.bytes.get()
    }

    fn oldest(&self) -> Option<u64> {
        self.entries.borrow().front().map(|e| e.seq)
    }

    fn drop_oldest(&self) {
        if let Some(old) = self.entries.borrow_mut().pop_front() {
            self.bytes.set(self.bytes.get().saturating_sub(old.bytes));
            self.dropped.set(self.dropped.get() + 1);
        }
    }
}

/// What a request's start tells.
pub struct Started {
    pub method: String,
    pub url: String,
    pub headers: Headers,
    pub main_document: bool,
    pub resource: Option<WebResource>,
    /// What it may carry that no agent may read (`Related::secret_held`).
    pub withheld: Option<Secret>,
}

impl NetworkLog {
    /// A tab's log, counted in the browser's `budget`.
    pub fn counted_in(budget: &Rc<Budget>) -> Rc<NetworkLog> {
        let log = Rc::new(NetworkLog {
            budget: budget.clone(),
            ..NetworkLog::default()
        });
        budget.count_network(log.clone());
        log
    }

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
        let whole_url = !bounded::url_is_cut(&request.url);
        let (headers, headers_cut) = cut_headers(request.headers);
        let mut entry = Entry {
            id,
            seq: self.budget.next(),
            bytes: 0,
            page: self.page.get(),
            kind: kind_of(&headers, request.main_document),
            method: bounded::cut(&request.method, SHORT_MAX).into_owned(),
            url: bounded::url(&request.url).into_owned(),
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
            request_headers: headers,
            response_headers: Vec::new(),
            main_document: request.main_document,
            resource: request.resource,
            sent_form: None,
            routed: None,
            withheld: request.withheld,
        };
        entry.keep_handle_only_if_whole(whole_url && !headers_cut);
        entry.bytes = entry.count_bytes();
        self.bytes.set(self.bytes.get() + entry.bytes);
        self.entries.borrow_mut().push_back(entry);
        self.settle();
        id
    }

    /// Keeps this tab's log within its bounds, then all tabs' within theirs.
    fn settle(&self) {
        while self.entries.borrow().len() > KEPT || self.bytes.get() > TAB_BYTES {
            if self.entries.borrow().len() <= 1 {
                break;
            }
            self.drop_oldest();
        }
        self.budget.settle_network();
    }

    /// Changes entry `id`, if it is still kept.
    fn with(&self, id: u64, change: impl FnOnce(&mut Entry)) {
        let grew = {
            let mut entries = self.entries.borrow_mut();
            let Some(entry) = entries.iter_mut().find(|e| e.id == id) else {
                return;
            };
            change(entry);
            let bytes = entry.count_bytes();
            let before = std::mem::replace(&mut entry.bytes, bytes);
            self.bytes.set((self.bytes.get() - before) + bytes);
            bytes > before
        };
        if grew {
            self.settle();
        }
    }

    /// The headers the request went out with (the engine adds a few at
    /// sending: the fetch metadata among them).
    pub fn sent(&self, id: u64, headers: Headers) {
        let (headers, cut) = cut_headers(headers);
        self.with(id, |entry| {
            if entry.kind == "other" {
                entry.kind = kind_of(&headers, entry.main_document);
            }
            entry.request_headers = headers;
            entry.keep_handle_only_if_whole(!cut);
        });
    }

    /// Notes the route that answered or changed the request, once: the
    /// proxy saw it without the URL's fragment.
    pub fn mark_routed(&self, id: u64, routed_by: &dyn Fn(&str, &str) -> Option<u64>) {
        let asked = self.read(id, |e| {
            let url = e.url.split('#').next().unwrap_or_default().to_string();
            (e.routed.is_none()).then(|| (e.method.clone(), url))
        });
        let Some((method, url)) = asked.flatten() else {
            return;
        };
        if let Some(route) = routed_by(&method, &url) {
            self.with(id, |entry| entry.routed = Some(route));
        }
    }

    /// The form request `id` submitted. A form holding a password makes
    /// the request withheld; a withheld request keeps only its entries' names.
    pub fn form_sent(&self, id: u64, mut form: FormPost) {
        self.with(id, |entry| {
            if form.secret {
                entry.withheld = entry.withheld.or(Some(Secret::Password));
            }
            if entry.withheld.is_some() {
                form.forget_values();
            }
            entry.sent_form = Some(form);
        });
    }

    /// Method, URL and kind of request `id`, while it has no form's body.
    pub fn awaiting_form(&self, id: u64) -> Option<(String, String, &'static str)> {
        self.read(id, |e| {
            e.sent_form
                .is_none()
                .then(|| (e.method.clone(), e.url.clone(), e.kind))
        })
        .flatten()
    }

    /// A redirect answered `id`; the next hop is a new entry, whose id this gives.
    pub fn redirect(&self, id: u64, status: u32, headers: Headers, next: Started) -> u64 {
        let (mut main_document, mut withheld) = (false, None);
        let (headers, _) = cut_headers(headers);
        self.with(id, |entry| {
            entry.status = Some(status);
            entry.response_headers = headers;
            entry.end(Phase::Redirected);
            main_document = entry.main_document;
            withheld = entry.withheld;
        });
        let next_id = self.push(
            Started {
                main_document,
                withheld: next.withheld.or(withheld),
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
        let (headers, cut) = cut_headers(headers);
        self.with(id, |entry| {
            entry.status = (status > 0).then_some(status);
            entry.mime = mime.map(|m| bounded::cut(&m, SHORT_MAX).into_owned());
            entry.size = (size > 0).then_some(size);
            entry.response_headers = headers;
            entry.keep_handle_only_if_whole(!cut);
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
            entry.failure = Some(bounded::cut(&reason, REASON_MAX).into_owned());
            entry.end(Phase::Failed);
        });
    }

    /// Requests after `after` (a mark: the newest id an agent had seen),
    /// of the current page unless `all`; oldest first; the newest `last`
    /// of them, with the number that matched.
    pub fn list(&self, after: u64, all: bool, last: usize) -> Value {
        let page = self.page.get();
        let entries = self.entries.borrow();
        let matching: Vec<&Entry> = entries
            .iter()
            .filter(|e| e.id > after && (all || e.page == page))
            .collect();
        let matched = matching.len();
        let requests: Vec<Value> = matching
            .into_iter()
            .skip(matched.saturating_sub(last))
            .map(Entry::summary)
            .collect();
        json!({
            "requests": requests,
            "matched": matched,
            "newest": self.next_id.get(),
            "dropped": self.dropped.get(),
        })
    }

    /// Runs `each` on the entries of the current page, or on all kept,
    /// oldest first; answers the current page's number.
    pub fn each(&self, all: bool, mut each: impl FnMut(&Entry)) -> u64 {
        let current = self.page.get();
        for entry in self.entries.borrow().iter() {
            if all || entry.page == current {
                each(entry);
            }
        }
        current
    }

    /// How many entries went to keep the log in its bound.
    pub fn dropped(&self) -> u64 {
        self.dropped.get()
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
            withheld: None,
        }
    }

    fn form(secret: bool) -> FormPost {
        FormPost::parse(
            &serde_json::json!({
                "action": "http://a.test/in",
                "enctype": "",
                "fields": [["user", "ada"], ["note", if secret { "" } else { "hi" }]],
                "secret": secret,
            })
            .to_string(),
        )
        .expect("a report")
    }

    #[test]
    fn what_a_request_sent_is_withheld_as_it_started_and_stays_so() {
        let log = NetworkLog::default();
        // A form holding a password: withheld, whenever it started.
        let post = log.start(request("http://a.test/in", "document", true));
        log.form_sent(post, form(true));
        assert_eq!(log.read(post, |e| e.withheld), Some(Some(Secret::Password)));
        // Started while the page held the person's typing: its form keeps
        // no value, and the redirect that follows is withheld too.
        let typed = log.start(Started {
            withheld: Some(Secret::PersonTyped),
            ..request("http://a.test/in", "document", true)
        });
        log.form_sent(typed, form(false));
        let values = log.read(typed, |e| {
            let sent = e.sent_form.as_ref().expect("the form");
            sent.fields
                .iter()
                .map(|f| f.value.clone())
                .collect::<Vec<_>>()
        });
        assert_eq!(values, Some(vec![String::new(), String::new()]));
        let next = log.redirect(
            typed,
            303,
            Vec::new(),
            request("http://a.test/done", "document", true),
        );
        assert_eq!(
            log.read(next, |e| e.withheld),
            Some(Some(Secret::PersonTyped))
        );
        assert_eq!(
            log.list(0, true, usize::MAX)["requests"][2]["withheld"],
            true
        );
        // A request of its own: shown.
        let plain = log.start(request("http://a.test/in", "document", true));
        log.form_sent(plain, form(false));
        assert_eq!(log.read(plain, |e| e.withheld), Some(None));
        assert_eq!(
            log.read(plain, |e| e.sent_form.clone().unwrap().urlencoded())
                .unwrap(),
            "user=ada&note=hi"
        );
    }

    #[test]
    fn a_listing_holds_the_current_page_unless_all_is_asked() {
        let log = NetworkLog::default();
        log.start(request("http://a.test/", "document", true));
        log.start(request("http://a.test/app.js", "script", false));
        log.start(request("http://b.test/", "document", true));
        let img = log.start(request("http://b.test/i.png", "image", false));
        let list = log.list(0, false, usize::MAX);
        let urls: Vec<&str> = list["requests"]
            .as_array()
            .unwrap()
            .iter()
            .map(|r| r["url"].as_str().unwrap())
            .collect();
        assert_eq!(urls, ["http://b.test/", "http://b.test/i.png"]);
        assert_eq!(
            log.list(0, true, usize::MAX)["requests"]
                .as_array()
                .unwrap()
                .len(),
            4
        );
        assert_eq!(
            log.list(img - 1, false, usize::MAX)["requests"][0]["type"],
            "image"
        );
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
        let list = log.list(0, true, usize::MAX);
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
            log.list(0, true, usize::MAX)["requests"][0]["failure"],
            "Could not connect"
        );
        assert!(log.read(id, |e| e.failure.is_some()).unwrap());
        for i in 0..KEPT {
            log.start(request(&format!("http://a.test/{i}"), "image", false));
        }
        let list = log.list(0, true, usize::MAX);
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

    #[test]
    fn page_chosen_urls_and_headers_are_cut_and_a_cut_entry_keeps_no_handle() {
        let log = NetworkLog::default();
        let data = format!("data:image/gif;base64,{}", "A".repeat(2_000_000));
        let id = log.start(request(&data, "image", false));
        let many: Headers = (0..500)
            .map(|i| (format!("X-{i}"), "v".repeat(10_000)))
            .collect();
        log.response(id, 200, Some("image/gif".into()), 0, many);
        let (url, headers, bytes) = log
            .read(id, |e| (e.url.clone(), e.response_headers.clone(), e.bytes))
            .unwrap();
        assert!(url.starts_with("data:image/gif;base64,AAAA"));
        assert!(url.ends_with(&format!("[data: URL of {} bytes]", data.len())));
        assert!(headers.len() <= HEADERS_MAX + 1);
        assert!(
            headers[0].1.ends_with("…[cut: 7952 more bytes]"),
            "{}",
            headers[0].1
        );
        assert_eq!(headers.last().unwrap().0, "…");
        assert!(headers.last().unwrap().1.ends_with("more headers cut"));
        assert!(bytes < 40_000, "{bytes}");
        assert_eq!(log.bytes(), bytes);
    }

    #[test]
    fn a_tab_keeps_its_bytes_bound_and_all_tabs_the_budget_oldest_first() {
        let big = |log: &NetworkLog, tag: &str| {
            let url = format!("http://a.test/{tag}?{}", "q".repeat(2000));
            let id = log.start(request(&url, "image", false));
            let headers: Headers = (0..8)
                .map(|i| (format!("X-{i}"), "v".repeat(2000)))
                .collect();
            log.response(id, 200, None, 0, headers);
        };
        let one = NetworkLog::default();
        for i in 0..KEPT {
            big(&one, &i.to_string());
        }
        assert!(one.bytes() <= TAB_BYTES);
        let (a, b) = (NetworkLog::default(), NetworkLog::default());
        for i in 0..100 {
            big(&a, &format!("a{i}"));
            big(&b, &format!("b{i}"));
        }
        let per = a.bytes() / 100;
        super::super::budget::settle(&[&a, &b], per * 150);
        // The oldest went, taken from both logs in the order they came.
        let dropped = |log: &NetworkLog| log.list(0, true, usize::MAX)["dropped"].as_u64().unwrap();
        let (from_a, from_b) = (dropped(&a), dropped(&b));
        assert!(
            (50..=52).contains(&(from_a + from_b)),
            "{from_a} + {from_b}"
        );
        assert!(from_a.abs_diff(from_b) <= 1, "{from_a} and {from_b}");
        assert!(a.bytes() + b.bytes() <= per * 150);
    }
}
