//! One route: which requests it takes (URL pattern, method, resource
//! type) and what it does with them (abort, fulfill, continue changed),
//! after a delay, a number of times.

use super::har::Archive;
pub use super::reply::Reply;
use crate::base::url_pattern::UrlPattern;
use serde_json::{json, Value};
use std::sync::Arc;
use std::time::Duration;

/// Why an aborted request failed, as the log and the route list say it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum AbortReason {
    Failed,
    Blocked,
    TimedOut,
    Refused,
}

impl AbortReason {
    pub fn as_str(self) -> &'static str {
        match self {
            AbortReason::Failed => "failed",
            AbortReason::Blocked => "blocked",
            AbortReason::TimedOut => "timed_out",
            AbortReason::Refused => "refused",
        }
    }
}

/// Headers to set (Some) or remove (None), by name.
pub type HeaderChanges = Vec<(String, Option<String>)>;

/// What `continue` changes on the way to the server and back.
#[derive(Debug, Clone, Default)]
pub struct Change {
    pub request_headers: HeaderChanges,
    pub status: Option<u16>,
    pub response_headers: HeaderChanges,
}

/// Answers from a HAR file.
#[derive(Debug, Clone)]
pub struct Replay {
    pub archive: Arc<Archive>,
    /// The file, as given.
    pub path: String,
    /// A request the file does not hold goes to the network (else it fails).
    pub pass_unknown: bool,
}

#[derive(Debug, Clone)]
pub enum Action {
    Abort(AbortReason),
    Fulfill(Reply),
    Continue(Change),
    Har(Replay),
}

impl Action {
    pub fn name(&self) -> &'static str {
        match self {
            Action::Abort(_) => "abort",
            Action::Fulfill(_) => "fulfill",
            Action::Continue(_) => "continue",
            Action::Har(_) => "har",
        }
    }

    /// The bytes this action keeps (bounded per context).
    pub fn bytes(&self) -> usize {
        let headers =
            |h: &[(String, String)]| h.iter().map(|(n, v)| n.len() + v.len()).sum::<usize>();
        let changes = |h: &HeaderChanges| {
            h.iter()
                .map(|(n, v)| n.len() + v.as_ref().map_or(0, String::len))
                .sum::<usize>()
        };
        match self {
            Action::Abort(_) => 0,
            Action::Fulfill(reply) => reply.body.len() + headers(&reply.headers),
            Action::Continue(change) => {
                changes(&change.request_headers) + changes(&change.response_headers)
            }
            Action::Har(replay) => replay.archive.bytes(),
        }
    }
}

/// What a route is given when it is added.
#[derive(Debug)]
pub struct RouteSpec {
    pub url: UrlPattern,
    /// The pattern as given, for the list.
    pub url_text: String,
    /// Upper case.
    pub method: Option<String>,
    /// A resource type in the network log's words.
    pub kind: Option<String>,
    pub action: Action,
    pub delay: Duration,
    pub times: Option<u32>,
}

#[derive(Debug)]
pub struct Route {
    pub id: u64,
    pub spec: RouteSpec,
    pub matched: u32,
}

/// What the proxy knows of a request when it picks a route.
pub struct Asked<'a> {
    pub method: &'a str,
    pub url: &'a str,
    pub kind: &'static str,
}

impl Route {
    /// Whether it takes this request now (a spent route takes none).
    pub fn takes(&self, asked: &Asked) -> bool {
        let spec = &self.spec;
        !self.spent()
            && spec.method.as_deref().is_none_or(|m| m == asked.method)
            && spec.kind.as_deref().is_none_or(|k| k == asked.kind)
            && spec.url.matches(asked.url)
    }

    pub fn spent(&self) -> bool {
        self.spec.times.is_some_and(|times| self.matched >= times)
    }

    /// Its line in network_routes.
    pub fn summary(&self) -> Value {
        let spec = &self.spec;
        let mut out = json!({
            "id": self.id,
            "url": spec.url_text,
            "action": spec.action.name(),
            "matched": self.matched,
        });
        let map = out.as_object_mut().expect("an object");
        if let Some(method) = &spec.method {
            map.insert("method".into(), method.clone().into());
        }
        if let Some(kind) = &spec.kind {
            map.insert("type".into(), kind.clone().into());
        }
        match &spec.action {
            Action::Abort(reason) => {
                map.insert("reason".into(), reason.as_str().into());
            }
            Action::Fulfill(reply) => {
                map.insert("status".into(), reply.status.into());
                map.insert("body_bytes".into(), reply.body.len().into());
            }
            Action::Continue(change) => {
                if let Some(status) = change.status {
                    map.insert("status".into(), status.into());
                }
            }
            Action::Har(replay) => {
                map.insert("path".into(), replay.path.clone().into());
                map.insert("entries".into(), replay.archive.len().into());
                let not_found = if replay.pass_unknown { "pass" } else { "abort" };
                map.insert("not_found".into(), not_found.into());
            }
        }
        if !spec.delay.is_zero() {
            map.insert("delay_ms".into(), (spec.delay.as_millis() as u64).into());
        }
        if let Some(times) = spec.times {
            map.insert("times".into(), times.into());
            map.insert("spent".into(), self.spent().into());
        }
        out
    }
}

/// The resource type a request's `Sec-Fetch-Dest` names, in the words of
/// the network log (WebKit sends "empty" for fetch() and XMLHttpRequest
/// alike: both are "fetch").
pub fn kind_of_dest(dest: Option<&str>) -> &'static str {
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

/// The type a file's name gives it, for a body read from a file.
pub fn mime_of_path(path: &std::path::Path) -> &'static str {
    let extension = path
        .extension()
        .and_then(|e| e.to_str())
        .map(str::to_ascii_lowercase);
    match extension.as_deref() {
        Some("html" | "htm") => "text/html; charset=utf-8",
        Some("js" | "mjs") => "text/javascript; charset=utf-8",
        Some("css") => "text/css; charset=utf-8",
        Some("json" | "map") => "application/json",
        Some("txt") => "text/plain; charset=utf-8",
        Some("xml") => "application/xml",
        Some("svg") => "image/svg+xml",
        Some("png") => "image/png",
        Some("jpg" | "jpeg") => "image/jpeg",
        Some("gif") => "image/gif",
        Some("webp") => "image/webp",
        Some("ico") => "image/x-icon",
        Some("woff") => "font/woff",
        Some("woff2") => "font/woff2",
        Some("wasm") => "application/wasm",
        Some("pdf") => "application/pdf",
        Some("mp4") => "video/mp4",
        Some("webm") => "video/webm",
        _ => "application/octet-stream",
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn route(url: &str, method: Option<&str>, kind: Option<&str>, times: Option<u32>) -> Route {
        Route {
            id: 1,
            spec: RouteSpec {
                url: UrlPattern::parse("url", url).unwrap(),
                url_text: url.into(),
                method: method.map(str::to_string),
                kind: kind.map(str::to_string),
                action: Action::Abort(AbortReason::Failed),
                delay: Duration::ZERO,
                times,
            },
            matched: 0,
        }
    }

    fn asked<'a>(method: &'a str, url: &'a str, kind: &'static str) -> Asked<'a> {
        Asked { method, url, kind }
    }

    #[test]
    fn a_route_takes_its_pattern_method_and_type_until_spent() {
        let mut r = route("**/api/*", Some("POST"), Some("fetch"), Some(1));
        assert!(r.takes(&asked("POST", "http://a.test/api/items", "fetch")));
        assert!(!r.takes(&asked("GET", "http://a.test/api/items", "fetch")));
        assert!(!r.takes(&asked("POST", "http://a.test/api/items", "script")));
        assert!(!r.takes(&asked("POST", "http://a.test/other", "fetch")));
        r.matched = 1;
        assert!(!r.takes(&asked("POST", "http://a.test/api/items", "fetch")));
        assert_eq!(r.summary()["spent"], true);
    }

    #[test]
    fn fetch_destinations_name_types_as_the_log_does() {
        assert_eq!(kind_of_dest(Some("empty")), "fetch");
        assert_eq!(kind_of_dest(Some("iframe")), "frame");
        assert_eq!(kind_of_dest(Some("style")), "stylesheet");
        assert_eq!(kind_of_dest(None), "other");
    }
}
