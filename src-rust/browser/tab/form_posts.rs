//! What a submitted form sends, for its POST in the tab's network log
//! (WebKit hands over no body of a form's submission). The agent library
//! in every frame (`assets/agent/18-form-posts.js`) reports each form as it
//! is submitted: its address, encoding and entries, read from the page's
//! `formdata` event. The report waits here until the POST it describes
//! starts, and becomes that request's body. A form holding a password is
//! reported by its entries' names only, and its post is withheld.
//!
//! Why not WebKit's own list: `webkit_form_submission_request_list_text_fields`
//! (and the deprecated `_get_text_fields`) read `priv->textFieldNames->len`,
//! and WebKitFormSubmissionRequest.cpp (2.50, the version we build against)
//! makes that array only when the form has a text field: for a form
//! without one (hidden fields, checkboxes, a textarea, none at all) both
//! dereference NULL and the whole browser goes down. They also list text
//! inputs only. So the browser connects no `submit-form` handler at all;
//! WebKit then submits each form as it would without one.

use crate::browser::webkit::agent_world;
use serde::Deserialize;
use std::cell::RefCell;
use std::collections::VecDeque;
use std::rc::Rc;
use std::time::{Duration, Instant};
use webkit2gtk::UserContentManager;
use zeroize::Zeroize as _;

/// The message handler `18-form-posts.js` posts to.
const HANDLER: &str = "sovereignForm";

/// Entries kept of one form, and characters of their names and values
/// together (the script cuts there too; a report past them is refused).
pub const FIELDS_MAX: usize = 256;
pub const CHARS_MAX: usize = 64 * 1024;
/// Reports waiting for their POST, per group of related tabs: a page that
/// builds FormData objects without submitting them leaves reports behind.
const PENDING_MAX: usize = 8;
/// A report whose POST has not started by then is not taken for a later one.
const PENDING_FOR: Duration = Duration::from_secs(10);

/// How a form encodes its entries (its `enctype`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Encoding {
    UrlEncoded,
    Multipart,
    TextPlain,
}

impl Encoding {
    pub fn mime(self) -> &'static str {
        match self {
            Encoding::UrlEncoded => "application/x-www-form-urlencoded",
            Encoding::Multipart => "multipart/form-data",
            Encoding::TextPlain => "text/plain",
        }
    }

    fn of(enctype: &str) -> Encoding {
        match enctype {
            "multipart/form-data" => Encoding::Multipart,
            "text/plain" => Encoding::TextPlain,
            _ => Encoding::UrlEncoded,
        }
    }
}

/// One entry of a form: a name and a value, or a file by its name.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Field {
    pub name: String,
    pub value: String,
    pub file: bool,
}

/// What a submitted form sent.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FormPost {
    /// Where it went, as the page resolved it.
    pub action: String,
    pub encoding: Encoding,
    pub fields: Vec<Field>,
    /// Entries past the bounds were left out.
    pub truncated: bool,
    /// It held a password: the page sent its entries' names only.
    pub secret: bool,
}

/// The report `18-form-posts.js` sends.
#[derive(Deserialize)]
struct Report {
    action: String,
    enctype: String,
    fields: Vec<Vec<serde_json::Value>>,
    #[serde(default)]
    truncated: bool,
    #[serde(default)]
    secret: bool,
}

impl FormPost {
    /// A report as the script sent it; none when it is not one, or is
    /// past the bounds (no page script writes it: only a broken one would).
    pub fn parse(text: &str) -> Option<FormPost> {
        let report: Report = serde_json::from_str(text).ok()?;
        if report.fields.len() > FIELDS_MAX
            || report.action.len() > crate::base::bounded::URL_MAX * 4
        {
            return None;
        }
        let mut chars = 0;
        let mut fields = Vec::with_capacity(report.fields.len());
        for entry in report.fields {
            let name = entry.first()?.as_str()?.to_string();
            let value = entry.get(1)?.as_str()?.to_string();
            let file = entry.get(2).is_some_and(|f| f.as_u64() == Some(1));
            chars += name.chars().count() + value.chars().count();
            if chars > CHARS_MAX {
                return None;
            }
            fields.push(Field { name, value, file });
        }
        Some(FormPost {
            action: report.action,
            encoding: Encoding::of(&report.enctype),
            fields,
            truncated: report.truncated,
            secret: report.secret,
        })
    }

    /// Keeps the entries' names only (a file's name is a value too); the
    /// values' memory is overwritten, as a secret's is.
    pub fn forget_values(&mut self) {
        for field in &mut self.fields {
            field.value.zeroize();
        }
    }

    /// The entries as `application/x-www-form-urlencoded` writes them
    /// (a file as its name, as that encoding sends it).
    pub fn urlencoded(&self) -> String {
        let mut out = String::new();
        for field in &self.fields {
            if !out.is_empty() {
                out.push('&');
            }
            out.push_str(&encode(&field.name));
            out.push('=');
            out.push_str(&encode(&field.value));
        }
        out
    }

    /// What it holds, for the network log's bounds.
    pub fn bytes(&self) -> usize {
        self.action.len()
            + self
                .fields
                .iter()
                .map(|f| f.name.len() + f.value.len() + 8)
                .sum::<usize>()
    }
}

/// Reports waiting for the POST they describe, shared by a group of
/// related tabs (WebKit hands their script messages to one handler).
#[derive(Default)]
pub struct FormPosts {
    pending: RefCell<VecDeque<(Instant, FormPost)>>,
}

impl FormPosts {
    fn submitted(&self, post: FormPost) {
        let mut pending = self.pending.borrow_mut();
        // A form submitted again replaces its earlier report.
        pending.retain(|(_, p)| p.action != post.action);
        if pending.len() >= PENDING_MAX {
            pending.pop_front();
        }
        pending.push_back((Instant::now(), post));
    }

    /// The report of the form whose POST to `url` just started, if any.
    pub fn take_for(&self, url: &str) -> Option<FormPost> {
        let mut pending = self.pending.borrow_mut();
        pending.retain(|(at, _)| at.elapsed() < PENDING_FOR);
        let url = without_fragment(url);
        let at = pending
            .iter()
            .rposition(|(_, p)| without_fragment(&p.action) == url)?;
        pending.remove(at).map(|(_, post)| post)
    }
}

fn without_fragment(url: &str) -> &str {
    url.split_once('#').map_or(url, |(before, _)| before)
}

/// Hears one tab's pages (and, as WebKit routes them, its related tabs').
pub fn listen(manager: &UserContentManager, posts: &Rc<FormPosts>) {
    let posts = posts.clone();
    agent_world::hear(manager, HANDLER, move |text| {
        if let Some(post) = FormPost::parse(text) {
            posts.submitted(post);
        }
    });
}

/// The urlencoded form of `text`: letters, digits and `*-._` as they are,
/// a space as `+`, every other byte as `%XX`.
fn encode(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for byte in text.bytes() {
        match byte {
            b'a'..=b'z' | b'A'..=b'Z' | b'0'..=b'9' | b'*' | b'-' | b'.' | b'_' => {
                out.push(byte as char)
            }
            b' ' => out.push('+'),
            other => out.push_str(&format!("%{other:02X}")),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fields_are_encoded_as_a_form_posts_them() {
        assert_eq!(encode("Ada Lovelace"), "Ada+Lovelace");
        assert_eq!(encode("pw&1=é"), "pw%261%3D%C3%A9");
    }

    #[test]
    fn a_report_becomes_the_form_it_describes() {
        let post = FormPost::parse(
            r#"{"action":"http://a/done","enctype":"multipart/form-data","fields":[["room","x"],["cv","a b.pdf",1]],"truncated":false}"#,
        )
        .expect("a report");
        assert_eq!(post.encoding, Encoding::Multipart);
        assert_eq!(post.urlencoded(), "room=x&cv=a+b.pdf");
        assert!(post.fields[1].file);
        let empty = FormPost::parse(r#"{"action":"http://a/","enctype":"","fields":[]}"#)
            .expect("a form without fields is a report too");
        assert_eq!(empty.urlencoded(), "");
        assert_eq!(empty.encoding, Encoding::UrlEncoded);
    }

    #[test]
    fn what_is_not_a_report_or_is_past_the_bounds_is_refused() {
        for text in [
            "",
            "null",
            "[]",
            r#"{"action":1}"#,
            r#"{"action":"a","enctype":"","fields":[[1,2]]}"#,
        ] {
            assert_eq!(FormPost::parse(text), None, "{text}");
        }
        let many = vec![serde_json::json!(["n", "v"]); FIELDS_MAX + 1];
        let text = serde_json::json!({"action": "a", "enctype": "", "fields": many}).to_string();
        assert_eq!(FormPost::parse(&text), None, "too many entries");
        let long = "x".repeat(CHARS_MAX + 1);
        let text =
            serde_json::json!({"action": "a", "enctype": "", "fields": [["n", long]]}).to_string();
        assert_eq!(FormPost::parse(&text), None, "too many characters");
    }

    fn post(action: &str) -> FormPost {
        FormPost {
            action: action.into(),
            encoding: Encoding::UrlEncoded,
            fields: vec![],
            truncated: false,
            secret: false,
        }
    }

    #[test]
    fn a_report_is_taken_once_by_the_post_to_its_address() {
        let posts = FormPosts::default();
        posts.submitted(post("http://a/one"));
        posts.submitted(post("http://a/two#frag"));
        assert_eq!(posts.take_for("http://a/other"), None);
        assert_eq!(
            posts.take_for("http://a/two").map(|p| p.action),
            Some("http://a/two#frag".into())
        );
        assert_eq!(posts.take_for("http://a/two"), None, "taken once");
        assert!(posts.take_for("http://a/one").is_some());
    }

    #[test]
    fn reports_waiting_are_bounded() {
        let posts = FormPosts::default();
        for i in 0..PENDING_MAX * 3 {
            posts.submitted(post(&format!("http://a/{i}")));
        }
        assert_eq!(posts.pending.borrow().len(), PENDING_MAX);
        assert_eq!(posts.take_for("http://a/0"), None, "the oldest went first");
    }
}
