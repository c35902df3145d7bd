//! network_requests, network_request: what a tab's pages fetched, from
//! WebKit's own record of every request (every frame, from the tab's start),
//! and a response's headers and body.

use super::app::App;
use super::families::Family;
use super::files::write_private;
use super::{tab_tool_without_page, tool, Ctx, ToolDef, ToolOutput, ToolResult, ACTION, READ_ONLY};
use crate::base::error::ToolError;
use crate::base::tab::TabId;
use crate::base::url_pattern::UrlPattern;
use crate::bridge::{Body, Command};
use crate::files_dir::FilesError;
use base64::engine::general_purpose::STANDARD as BASE64;
use base64::Engine as _;
use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::{json, Value};

const DEFAULT_LIMIT: usize = 50;
const MAX_LIMIT: usize = 1000;
/// Response bodies a HAR file holds at most, in all.
const HAR_BODIES: usize = 64 << 20;
/// Text of a body shown in the result unless asked for more or less.
const DEFAULT_BODY_CHARS: usize = 20_000;

pub fn tools() -> Vec<ToolDef> {
    vec![
        tab_tool_without_page(
            "network_requests",
            "This tab's requests (frames too) since its last navigation or your mark: id, method, URL, type, status, failure, size (Content-Length), ms; newest limit, oldest first.",
            ACTION,
            |ctx: Ctx, tab: TabId, p: ListParams| async move { list(&ctx, tab, p).await },
        )
        .in_family(Family::Network),
        tab_tool_without_page(
            "network_request",
            "A request's headers (not Cookie and others the network layer adds), response body and, for fetch and XMLHttpRequest, the body it sent: text, or a file in the files folder if binary or cut.",
            READ_ONLY,
            |ctx: Ctx, tab: TabId, p: RequestParams| async move { request(&ctx, tab, p).await },
        )
        .in_family(Family::Network),
        tab_tool_without_page(
            "network_har",
            "This tab's requests (since its last navigation, or all kept) as a HAR 1.2 file in the files folder, with the response bodies the browser still has.",
            READ_ONLY,
            |ctx: Ctx, tab: TabId, p: HarParams| async move { har(&ctx, tab, p).await },
        )
        .person_only(),
        tool(
            "network_watch",
            "Show one tab's requests live in this panel (no id: none).",
            READ_ONLY,
            |ctx: Ctx, p: WatchParams| async move {
                if let Some(tab) = p.id {
                    ctx.app.browser.tab_info(tab)?;
                }
                ctx.session.watch_requests(p.id);
                Ok(ToolOutput::json(json!({"watching": p.id})))
            },
        )
        .ungated()
        .person_only(),
    ]
}

/// A tab's `last` newest requests kept, as the panel shows them live
/// (network_watch): only those leave the main thread, each one's URL cut
/// already.
pub async fn newest(app: &App, tab: TabId, last: usize) -> Result<Value, ToolError> {
    let command = Command::NetworkList {
        tab,
        after: 0,
        all: true,
        last,
    };
    app.browser.call_value(command).await
}

#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct HarParams {
    /// Where to write it: an absolute path in the files folder (default: a
    /// new file there).
    #[serde(default)]
    path: Option<String>,
    /// All kept, not only since the last navigation.
    #[serde(default)]
    all: Option<bool>,
}

#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct WatchParams {
    /// The tab's id.
    #[serde(default)]
    id: Option<TabId>,
}

// Resource types, as the request's fetch destination names them.
#[derive(Deserialize, JsonSchema, Clone, Copy, PartialEq, Eq)]
#[serde(rename_all = "lowercase")]
pub enum Kind {
    Document,
    Frame,
    Script,
    Stylesheet,
    Image,
    Font,
    Media,
    Fetch,
    Manifest,
    Worker,
    Object,
    Other,
}

impl Kind {
    pub(super) fn as_str(self) -> &'static str {
        match self {
            Kind::Document => "document",
            Kind::Frame => "frame",
            Kind::Script => "script",
            Kind::Stylesheet => "stylesheet",
            Kind::Image => "image",
            Kind::Font => "font",
            Kind::Media => "media",
            Kind::Fetch => "fetch",
            Kind::Manifest => "manifest",
            Kind::Worker => "worker",
            Kind::Object => "object",
            Kind::Other => "other",
        }
    }
}

#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ListParams {
    /// A pattern, as wait_for_url's.
    #[serde(default)]
    url: Option<String>,
    /// Resource type.
    #[serde(default)]
    r#type: Option<Kind>,
    /// Only failures and statuses 400+.
    #[serde(default)]
    failed: Option<bool>,
    /// Lowest status.
    #[serde(default)]
    status_min: Option<u32>,
    /// Highest status.
    #[serde(default)]
    status_max: Option<u32>,
    /// All kept (1000), not only since navigation or mark.
    #[serde(default)]
    all: Option<bool>,
    /// Mark the newest: later calls list only newer ones.
    #[serde(default)]
    mark: Option<bool>,
    /// The newest so many.
    #[serde(default)]
    #[schemars(extend("default" = 50))]
    limit: Option<usize>,
}

#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct RequestParams {
    /// From network_requests.
    id: u64,
    /// Body text shown; cut bodies go whole to a file.
    #[serde(default)]
    #[schemars(extend("default" = 20000))]
    max_chars: Option<usize>,
}

/// The filters of a listing, checked before anything is asked of the browser.
struct Filter {
    url: Option<UrlPattern>,
    kind: Option<Kind>,
    failed: bool,
    status: (u32, u32),
}

impl Filter {
    fn new(p: &ListParams) -> Result<Filter, ToolError> {
        let url = p
            .url
            .as_deref()
            .map(|u| UrlPattern::parse("url", u))
            .transpose()?;
        let status = (p.status_min.unwrap_or(0), p.status_max.unwrap_or(u32::MAX));
        if status.0 > status.1 {
            return Err(ToolError::invalid_field(
                "status_min",
                format!("{} is above status_max {}", status.0, status.1),
            ));
        }
        Ok(Filter {
            url,
            kind: p.r#type,
            failed: p.failed.unwrap_or(false),
            status,
        })
    }

    fn keeps(&self, request: &Value) -> bool {
        let status = request["status"].as_u64().map(|s| s as u32);
        let failed = request.get("failure").is_some() || status.is_some_and(|s| s >= 400);
        let status_asked = self.status != (0, u32::MAX);
        self.url
            .as_ref()
            .is_none_or(|u| u.matches(request["url"].as_str().unwrap_or_default()))
            && self.kind.is_none_or(|k| request["type"] == k.as_str())
            && (!self.failed || failed)
            && (!status_asked || status.is_some_and(|s| s >= self.status.0 && s <= self.status.1))
    }
}

async fn list(ctx: &Ctx, tab: TabId, p: ListParams) -> ToolResult {
    let filter = Filter::new(&p)?;
    let limit = p.limit.unwrap_or(DEFAULT_LIMIT);
    if !(1..=MAX_LIMIT).contains(&limit) {
        return Err(ToolError::invalid_field(
            "limit",
            format!("give 1 to {MAX_LIMIT}"),
        ));
    }
    let all = p.all.unwrap_or(false);
    let mark = if all {
        0
    } else {
        ctx.session.network_mark(tab)
    };
    let log = ctx
        .app
        .browser
        .call_value(Command::NetworkList {
            tab,
            after: mark,
            all,
            last: usize::MAX,
        })
        .await?;
    let matching: Vec<&Value> = log["requests"]
        .as_array()
        .into_iter()
        .flatten()
        .filter(|r| filter.keeps(r))
        .collect();
    let count = matching.len();
    let shown: Vec<Value> = matching
        .into_iter()
        .skip(count.saturating_sub(limit))
        .cloned()
        .collect();
    let newest = log["newest"].as_u64().unwrap_or(0);
    if p.mark.unwrap_or(false) {
        ctx.session.set_network_mark(tab, newest);
    }
    let since = match (all, mark) {
        (true, _) => "start",
        (false, 0) => "navigation",
        (false, _) => "mark",
    };
    Ok(ToolOutput::json(json!({
        "since": since,
        "count": count,
        "shown": shown.len(),
        "left_out": count - shown.len(),
        "dropped": log["dropped"],
        "requests": shown,
    })))
}

async fn request(ctx: &Ctx, tab: TabId, p: RequestParams) -> ToolResult {
    let browser = &ctx.app.browser;
    let mut detail = browser
        .call_value(Command::NetworkRequest { tab, id: p.id })
        .await?;
    let body = browser
        .call_body(Command::NetworkBody { tab, id: p.id })
        .await?;
    let max_chars = p.max_chars.unwrap_or(DEFAULT_BODY_CHARS);
    let sent = body.sent.as_ref().map(|sent| {
        let mime = sent.mime.map(str::to_string);
        let body = Body {
            bytes: sent.bytes.clone(),
            truncated: sent.truncated,
            note: sent.note.clone(),
            sent: None,
        };
        (body, mime)
    });
    let mime = detail["mime"].as_str().unwrap_or_default().to_string();
    let response = Shown {
        ctx,
        tab,
        id: p.id,
        mime: &mime,
        key: "body",
    };
    let shown = show_body(response, body, max_chars).await?;
    let mut parts = vec![shown];
    if let Some((sent, mime)) = sent {
        let mime = mime
            .or_else(|| header(&detail["request_headers"], "content-type"))
            .unwrap_or_default();
        let request = Shown {
            ctx,
            tab,
            id: p.id,
            mime: &mime,
            key: "request_body",
        };
        parts.push(show_body(request, sent, max_chars).await?);
    }
    if let Value::Object(out) = &mut detail {
        for part in parts {
            if let Value::Object(part) = part {
                out.extend(part);
            }
        }
    }
    Ok(ToolOutput::json(detail))
}

/// A header's value in a headers object, by name in any case.
fn header(headers: &Value, name: &str) -> Option<String> {
    headers
        .as_object()?
        .iter()
        .find(|(n, _)| n.eq_ignore_ascii_case(name))
        .and_then(|(_, v)| v.as_str().map(str::to_string))
}

/// Where a body goes in the result: which request, its type, its keys.
struct Shown<'a> {
    ctx: &'a Ctx,
    tab: TabId,
    id: u64,
    mime: &'a str,
    /// "body" (the response's) or "request_body".
    key: &'static str,
}

/// The body as the result shows it: text up to `max_chars`, else a file;
/// under `key` ("body", "body_note", "body_path"...).
async fn show_body(at: Shown<'_>, body: Body, max_chars: usize) -> Result<Value, ToolError> {
    let key = at.key;
    let mut out = json!({ key: null });
    if let Some(note) = &body.note {
        out[format!("{key}_note")] = note.clone().into();
    }
    let Some(bytes) = body.bytes else {
        return Ok(out);
    };
    out[format!("{key}_bytes")] = bytes.len().into();
    if body.truncated {
        out[format!("{key}_truncated")] = true.into();
    }
    let text = is_text(at.mime)
        .then(|| std::str::from_utf8(&bytes).ok())
        .flatten();
    let cut = text.and_then(|t| t.char_indices().nth(max_chars).map(|(at, _)| &t[..at]));
    if let Some(text) = text {
        match cut {
            None => {
                out[key] = text.into();
                return Ok(out);
            }
            Some(start) => {
                let rest = text.chars().count() - max_chars;
                out[key] =
                    format!("{start}\n[… {rest} more characters: the whole body is in {key}_path]")
                        .into();
            }
        }
    }
    let written = write_body(at.ctx, at.tab, at.id, at.mime, key, &bytes).await?;
    out[format!("{key}_path")] = written.into();
    Ok(out)
}

/// Types whose bodies are text to show (when they are UTF-8).
fn is_text(mime: &str) -> bool {
    let mime = essence(mime);
    mime.starts_with("text/")
        || mime.ends_with("+json")
        || mime.ends_with("+xml")
        || matches!(
            mime.as_str(),
            "application/json"
                | "application/javascript"
                | "application/ecmascript"
                | "application/xml"
                | "application/x-www-form-urlencoded"
                | "application/graphql"
                | "image/svg+xml"
        )
}

/// Writes a body into the files folder; gives its path.
async fn write_body(
    ctx: &Ctx,
    tab: TabId,
    id: u64,
    mime: &str,
    key: &str,
    bytes: &[u8],
) -> Result<String, ToolError> {
    let sent = if key == "body" { "" } else { "-sent" };
    let name = format!("network-tab{tab}-request{id}{sent}.{}", extension(mime));
    let root = ctx.app.files.root().join(&name);
    let path = ctx
        .app
        .files
        .new_file(&root.to_string_lossy())
        .map_err(FilesError::internal)?;
    write_private(&path, bytes.to_vec()).await?;
    Ok(path.to_string_lossy().into_owned())
}

/// A MIME type without its parameters, lower-cased.
fn essence(mime: &str) -> String {
    let essence = mime.split(';').next().unwrap_or_default();
    essence.trim().to_ascii_lowercase()
}

fn extension(mime: &str) -> &'static str {
    match essence(mime).as_str() {
        "image/png" => "png",
        "image/jpeg" => "jpg",
        "image/gif" => "gif",
        "image/webp" => "webp",
        "image/avif" => "avif",
        "image/svg+xml" => "svg",
        "application/pdf" => "pdf",
        "application/json" => "json",
        "application/zip" => "zip",
        "application/wasm" => "wasm",
        "text/html" => "html",
        "text/css" => "css",
        "text/javascript" | "application/javascript" => "js",
        m if m.starts_with("text/") => "txt",
        m if m.starts_with("font/") => "font",
        _ => "bin",
    }
}

/// Writes the tab's requests as a HAR 1.2 file in the files folder.
async fn har(ctx: &Ctx, tab: TabId, p: HarParams) -> ToolResult {
    let files = &ctx.app.files;
    let path = match &p.path {
        Some(given) => files.new_file(given)?,
        None => {
            let stamp = std::time::SystemTime::now()
                .duration_since(std::time::UNIX_EPOCH)
                .map_or(0, |d| d.as_millis());
            let name = files.root().join(format!("tab-{tab}-{stamp}.har"));
            files
                .new_file(&name.to_string_lossy())
                .map_err(FilesError::internal)?
        }
    };
    let all = p.all.unwrap_or(false);
    let log = ctx
        .app
        .browser
        .call_value(Command::NetworkHar { tab, all })
        .await?;
    let mut log = log;
    if let Some(entries) = log["entries"].as_array_mut() {
        with_bodies(ctx, tab, entries).await;
    }
    let entries = log["entries"].as_array().map_or(0, Vec::len);
    let har = json!({"log": {
        "version": "1.2",
        "creator": {"name": "Sovereign Browser", "version": env!("CARGO_PKG_VERSION")},
        "pages": log["pages"],
        "entries": log["entries"],
    }});
    let bytes = serde_json::to_vec_pretty(&har).map_err(|e| ToolError::internal(e.to_string()))?;
    let size = bytes.len();
    write_private(&path, bytes).await?;
    Ok(ToolOutput::json(json!({
        "path": path.to_string_lossy(),
        "entries": entries,
        "bytes": size,
        "dropped": log["dropped"],
    })))
}

/// Adds each response's body the browser still has to its entry
/// (`content.text`, base64 unless text), up to `HAR_BODIES` in all, so
/// that the file can answer the same requests again (network_route_har).
async fn with_bodies(ctx: &Ctx, tab: TabId, entries: &mut [Value]) {
    let mut room = HAR_BODIES;
    for entry in entries.iter_mut() {
        let Some(id) = entry["_id"].as_u64() else {
            continue;
        };
        if entry["response"]["status"].as_u64().unwrap_or(0) == 0 {
            continue;
        }
        let Ok(body) = ctx
            .app
            .browser
            .call_body(Command::NetworkBody { tab, id })
            .await
        else {
            continue;
        };
        let Some(bytes) = body.bytes.filter(|b| b.len() <= room) else {
            continue;
        };
        room -= bytes.len();
        let mime = entry["response"]["content"]["mimeType"]
            .as_str()
            .unwrap_or_default()
            .to_string();
        let content = &mut entry["response"]["content"];
        content["size"] = bytes.len().into();
        match String::from_utf8(bytes) {
            Ok(text) if is_text(&mime) => content["text"] = text.into(),
            Ok(text) => {
                content["text"] = BASE64.encode(text.as_bytes()).into();
                content["encoding"] = "base64".into();
            }
            Err(bytes) => {
                content["text"] = BASE64.encode(bytes.as_bytes()).into();
                content["encoding"] = "base64".into();
            }
        }
        if body.truncated {
            content["_truncated"] = true.into();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn params(value: Value) -> ListParams {
        serde_json::from_value(value).unwrap()
    }

    #[test]
    fn filters_combine() {
        let ok = json!({"url": "http://a.test/api/users", "type": "fetch", "status": 200});
        let missing = json!({"url": "http://a.test/api/x", "type": "fetch", "status": 404});
        let refused =
            json!({"url": "http://b.test/", "type": "fetch", "failure": "Could not connect"});
        let image = json!({"url": "http://a.test/i.png", "type": "image", "status": 200});
        let keeps = |p: Value, r: &Value| Filter::new(&params(p)).unwrap().keeps(r);
        assert!(keeps(json!({"url": "/api/"}), &ok));
        assert!(!keeps(json!({"url": "/api/"}), &image));
        assert!(keeps(json!({"type": "image"}), &image));
        assert!(!keeps(json!({"type": "image"}), &ok));
        assert!(keeps(json!({"failed": true}), &missing));
        assert!(keeps(json!({"failed": true}), &refused));
        assert!(!keeps(json!({"failed": true}), &ok));
        assert!(keeps(
            json!({"status_min": 400, "status_max": 499}),
            &missing
        ));
        assert!(
            !keeps(json!({"status_min": 400}), &refused),
            "no status is in no range"
        );
        assert!(keeps(
            json!({"url": "**/i.png", "type": "image", "status_max": 299}),
            &image
        ));
        let error = Filter::new(&params(json!({"status_min": 500, "status_max": 400})))
            .err()
            .unwrap();
        assert_eq!(error.field.as_deref(), Some("status_min"));
        assert_eq!(
            Filter::new(&params(json!({"url": "a("})))
                .err()
                .unwrap()
                .field
                .as_deref(),
            Some("url")
        );
    }

    #[test]
    fn text_types_are_shown_and_others_go_to_files() {
        assert!(is_text("application/json; charset=utf-8"));
        assert!(is_text("text/plain"));
        assert!(is_text("application/vnd.api+json"));
        assert!(!is_text("application/octet-stream"));
        assert!(!is_text("image/png"));
        assert_eq!(extension("image/png"), "png");
        assert_eq!(extension("application/octet-stream"), "bin");
        assert_eq!(extension("text/plain; charset=utf-8"), "txt");
    }
}
