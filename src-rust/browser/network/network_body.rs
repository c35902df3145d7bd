//! A recorded response's body, read back. WebKit keeps a copy of the tab's
//! main document and of its subresources (images, scripts, stylesheets)
//! while that document is open; it keeps none of a frame's document nor of
//! fetch() or XMLHttpRequest responses, whose bodies the web extension
//! holds instead (`src-rust/web-extension/network.c`), in the page's web
//! process, until the tab leaves the site or newer bodies push them out.

use crate::base::bounded;
use crate::base::error::ToolError;
use crate::bridge::{Body, Output, Reply, Sent};
use crate::browser::tab::form_posts::{Encoding, FormPost};
use crate::browser::tab::network_log::{Entry, NetworkLog, Phase};
use crate::browser::tab::related::Secret;
use glib::ToVariant as _;
use webkit2gtk::WebViewExt as _;
use webkit2gtk::{UserMessage, UserMessageExt as _, WebResource, WebResourceExt as _, WebView};

/// The extension's message name (BODY_REQUEST in network.c).
const BODY_REQUEST: &str = "sovereign-network-body";

/// Where a body is to be had.
enum Plan {
    /// WebKit's copy; `one_byte` when the response said it is one byte long
    /// (WebKit answers a single zero byte when it has no copy).
    Engine {
        resource: WebResource,
        one_byte: bool,
    },
    /// The page's copy of a fetch() or XMLHttpRequest response, made in a
    /// document of `origin` ("": not known, the main frame's only).
    Page {
        method: String,
        url: String,
        origin: String,
        started: f64,
    },
    /// Known without asking.
    Now(Body),
}

fn none(note: impl Into<String>) -> Plan {
    Plan::Now(Body {
        bytes: None,
        truncated: false,
        note: Some(note.into()),
        sent: None,
    })
}

fn plan(entry: &Entry) -> Plan {
    match entry.phase {
        Phase::Pending => return none("the response has not ended yet; ask again when it has"),
        Phase::Redirected => {
            let next = entry
                .redirected_to
                .map_or_else(String::new, |id| format!(" (see request {id})"));
            return none(format!("a redirect keeps no body{next}"));
        }
        Phase::Failed if entry.status.is_none() => {
            let why = entry.failure.as_deref().unwrap_or("failed");
            return none(format!("the request got no response: {why}"));
        }
        _ => {}
    }
    let status = entry.status.unwrap_or(0);
    if entry.method == "HEAD" || matches!(status, 100..=199 | 204 | 205 | 304) {
        return Plan::Now(Body {
            bytes: Some(Vec::new()),
            truncated: false,
            note: Some(format!(
                "a {} response to {} has no body",
                status, entry.method
            )),
            sent: None,
        });
    }
    if bounded::is_cut(&entry.url) {
        return none(format!(
            "the URL was longer than {} characters, so the browser keeps no body for it",
            bounded::URL_MAX
        ));
    }
    match (entry.kind, &entry.resource) {
        ("fetch", _) => Plan::Page {
            method: entry.method.clone(),
            url: without_fragment(&entry.url).to_string(),
            origin: made_from(entry),
            started: entry.started,
        },
        ("frame", _) => none("WebKit keeps no copy of a frame's document; read the frame with frame_switch and get_html"),
        (_, Some(resource)) => Plan::Engine {
            resource: resource.clone(),
            one_byte: entry.size == Some(1),
        },
        (_, None) => none("WebKit kept no copy of this body"),
    }
}

/// The origin `entry`'s request was made from, as headers no script can
/// set tell it: `Origin`, else the URL's own origin when `Sec-Fetch-Site`
/// says same-origin, else the `Referer`'s (a script may only name its own
/// origin there). "" when none tells.
fn made_from(entry: &Entry) -> String {
    let header = |name: &str| {
        entry
            .request_headers
            .iter()
            .find(|(n, _)| n.eq_ignore_ascii_case(name))
            .map(|(_, v)| v.as_str())
    };
    if let Some(origin) = header("Origin").filter(|o| *o != "null") {
        return origin.to_string();
    }
    if header("Sec-Fetch-Site") == Some("same-origin") {
        return origin_of(&entry.url);
    }
    header("Referer").map(origin_of).unwrap_or_default()
}

/// The origin of a URL as WebKit writes it (what precedes its path), as
/// the web extension computes it (`origin_of` in network.c).
fn origin_of(url: &str) -> String {
    let Some((scheme, rest)) = url.split_once("://") else {
        return String::new();
    };
    let authority = rest.split(['/', '?', '#']).next().unwrap_or_default();
    let host = authority
        .rsplit_once('@')
        .map_or(authority, |(_, host)| host);
    if host.is_empty() {
        return String::new();
    }
    format!("{scheme}://{host}")
}

fn without_fragment(url: &str) -> &str {
    url.split_once('#').map_or(url, |(before, _)| before)
}

/// Answers `reply` with request `id`'s body. What a request marked
/// withheld as it started (`Related::secret_held`) sent is not handed over.
pub fn read(view: &WebView, log: &NetworkLog, id: u64, reply: Reply) {
    let kept = log.read(id, |entry| {
        (plan(entry), entry.sent_form.clone(), entry.withheld)
    });
    let Some((plan, form, withheld)) = kept else {
        let _ = reply.send(Err(not_kept(log, id)));
        return;
    };
    let answer = move |mut body: Body| {
        match withheld {
            Some(secret) => body.sent = Some(withheld_sent(secret)),
            // A form's post: its entries are what the request sent.
            None => body.sent = form.map(form_sent).or(body.sent),
        }
        let _ = reply.send(Ok(Output::Body(body)));
    };
    match plan {
        Plan::Now(body) => answer(body),
        Plan::Engine { resource, one_byte } => {
            resource.data(None::<&gio::Cancellable>, move |result| {
                answer(match result {
                    Ok(bytes) if bytes == [0] && !one_byte => gone(),
                    Ok(bytes) => Body {
                        bytes: Some(bytes),
                        truncated: false,
                        note: None,
                        sent: None,
                    },
                    Err(_) => gone(),
                })
            });
        }
        Plan::Page {
            method,
            url,
            origin,
            started,
        } => {
            let message = UserMessage::new(
                BODY_REQUEST,
                Some(&(method, url, origin, started).to_variant()),
            );
            view.send_message_to_page(&message, None::<&gio::Cancellable>, move |result| {
                answer(match result {
                    Ok(message) => from_page(&message),
                    Err(e) => Body {
                        bytes: None,
                        truncated: false,
                        note: Some(format!("the page's web process did not answer: {e}")),
                        sent: None,
                    },
                })
            });
        }
    }
}

/// What a form sent, as the body of its post: urlencoded as the form
/// encoded it, or (multipart, text/plain) its entries written that way.
fn form_sent(form: FormPost) -> Sent {
    let mut note = match form.encoding {
        Encoding::UrlEncoded => "the form's entries, as the page's formdata event gave them".to_string(),
        other => format!(
            "the form's entries, as the page's formdata event gave them, written urlencoded (the form sent them as {}; files by name)",
            other.mime()
        ),
    };
    if form.truncated {
        note.push_str("; the form had more entries than the log keeps");
    }
    Sent {
        bytes: Some(form.urlencoded().into_bytes()),
        truncated: form.truncated,
        note: Some(note),
        mime: Some(Encoding::UrlEncoded.mime()),
    }
}

/// What a withheld request sent, as it is shown: nothing, and why.
fn withheld_sent(secret: Secret) -> Sent {
    Sent {
        bytes: None,
        truncated: false,
        note: Some(secret.note().into()),
        mime: None,
    }
}

fn gone() -> Body {
    Body {
        bytes: None,
        truncated: false,
        note: Some("WebKit no longer holds this body: it keeps a page's subresources only while that page is open".into()),
        sent: None,
    }
}

/// The extension's answer: (found, kind, captured, truncated, note, frame, bytes).
fn from_page(message: &UserMessage) -> Body {
    let Some(params) = message.parameters() else {
        return gone();
    };
    let found = params.child_value(0).get::<bool>().unwrap_or(false);
    if !found {
        return Body {
            bytes: None,
            truncated: false,
            note: Some(
                "the page's copy is gone: the tab left the site that made the request, or newer bodies pushed it out (each page keeps its last 500, up to 64 MiB, and a web process 1,000, up to 128 MiB), or no frame of the origin that made the request kept one".into(),
            ),
            sent: None,
        };
    }
    let kind = params.child_value(1).get::<String>().unwrap_or_default();
    let captured = params.child_value(2).get::<bool>().unwrap_or(false);
    let truncated = params.child_value(3).get::<bool>().unwrap_or(false);
    let note = params.child_value(4).get::<String>().unwrap_or_default();
    let frame = params.child_value(5).get::<String>().unwrap_or_default();
    let bytes = captured.then(|| {
        params
            .child_value(6)
            .fixed_array::<u8>()
            .map(<[u8]>::to_vec)
            .unwrap_or_default()
    });
    let reader = match kind.as_str() {
        "xhr" => "XMLHttpRequest",
        "beacon" => "sendBeacon()",
        _ => "fetch()",
    };
    let mut notes = vec![format!("as the page's {reader} received it, in {frame}")];
    if !note.is_empty() {
        notes.push(note);
    }
    if truncated {
        notes.push(CUT.into());
    }
    Body {
        bytes,
        truncated,
        note: Some(notes.join("; ")),
        sent: sent_of(&params, reader),
    }
}

const CUT: &str = "cut at 10 MiB, where the browser stops keeping one body";

/// The request's body in the extension's answer: (..., sent_captured,
/// sent_truncated, sent_note, sent).
fn sent_of(params: &glib::Variant, reader: &str) -> Option<Sent> {
    if params.n_children() < 11 || !params.child_value(7).get::<bool>().unwrap_or(false) {
        return None;
    }
    let truncated = params.child_value(8).get::<bool>().unwrap_or(false);
    let note = params.child_value(9).get::<String>().unwrap_or_default();
    let bytes = params
        .child_value(10)
        .fixed_array::<u8>()
        .map(<[u8]>::to_vec)
        .unwrap_or_default();
    let mut notes = vec![format!("as the page's {reader} sent it")];
    if !note.is_empty() {
        notes.push(note);
    }
    if truncated {
        notes.push(CUT.into());
    }
    Some(Sent {
        bytes: Some(bytes),
        truncated,
        note: Some(notes.join("; ")),
        mime: None,
    })
}

/// The error for an id the log does not hold.
pub fn not_kept(log: &NetworkLog, id: u64) -> ToolError {
    let kept = match log.kept() {
        Some((oldest, newest)) => format!("it keeps ids {oldest} to {newest}"),
        None => "it is empty".to_string(),
    };
    ToolError::invalid_field(
        "id",
        format!(
            "this tab's network log has no request {id} ({kept}); list them with network_requests"
        ),
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::browser::tab::network_log::{NetworkLog, Started};

    fn entry_with(url: &str, headers: &[(&str, &str)]) -> String {
        let log = NetworkLog::default();
        let id = log.start(Started {
            method: "GET".into(),
            url: url.into(),
            headers: headers
                .iter()
                .map(|(n, v)| (n.to_string(), v.to_string()))
                .collect(),
            main_document: false,
            resource: None,
            withheld: None,
        });
        log.read(id, made_from).unwrap()
    }

    #[test]
    fn a_request_is_known_by_the_origin_it_was_made_from() {
        let api = "http://api.test:8080/data?x=1";
        assert_eq!(
            entry_with(
                api,
                &[
                    ("Origin", "http://a.test"),
                    ("Sec-Fetch-Site", "cross-site")
                ]
            ),
            "http://a.test"
        );
        assert_eq!(
            entry_with(
                api,
                &[
                    ("Sec-Fetch-Site", "same-origin"),
                    ("Referer", "http://x.test/")
                ]
            ),
            "http://api.test:8080"
        );
        assert_eq!(
            entry_with(
                api,
                &[
                    ("Sec-Fetch-Site", "cross-site"),
                    ("Referer", "http://u:p@b.test/p")
                ]
            ),
            "http://b.test"
        );
        assert_eq!(entry_with(api, &[("Sec-Fetch-Site", "cross-site")]), "");
        assert_eq!(entry_with(api, &[("Origin", "null")]), "");
        assert_eq!(origin_of("about:blank"), "");
        assert_eq!(origin_of("http://[::1]:9/a"), "http://[::1]:9");
    }
}
