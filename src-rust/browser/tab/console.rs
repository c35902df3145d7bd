//! Console messages and uncaught errors of a tab's pages, from page start,
//! for the console and errors tools. Both logs are bounded (entries and
//! bytes per tab, and across tabs by `budget`); what falls out
//! is counted.
//!
//! Every entry is one the engine recorded: the web process extension
//! (`src-rust/web-extension/console.c`) hands each console message to the
//! browser with the engine's level, source, line and URL, on a channel no
//! page script can post to. The engine keeps only a console call's first
//! argument and no stack, so `assets/console.js` (in each frame's page
//! world, where the calls happen) reports the formatted arguments and the
//! stacks to the extension, which joins them to the engine's message that
//! follows in the same frame, with that frame's address. Those details are
//! page-written, like the text itself; they never make an entry exist.
//! Every field arrives cut to a bound (console.c) and is cut again here.

use super::budget::{Budget, Budgeted};
use crate::base::bounded;
use serde_json::{json, Map, Value};
use std::cell::{Cell, RefCell};
use std::collections::VecDeque;
use std::rc::Rc;
use std::time::{SystemTime, UNIX_EPOCH};
use webkit2gtk::{UserMessage, UserMessageExt as _, WebView, WebViewExt as _};

/// The extension's message name (CONSOLE_MESSAGE in console.c).
const CONSOLE_MESSAGE: &str = "sovereign-console";
/// How the engine names the source of a user script.
const USER_SCRIPT_SOURCE: &str = "user-script:";
const CONSOLE_MAX: usize = 1000;
const ERRORS_MAX: usize = 200;
const TEXT_MAX: usize = 2000;
/// Bytes of entries kept per tab (all tabs together: `budget`).
const TAB_BYTES: usize = 4 << 20;
/// What an entry costs beyond its JSON.
const ENTRY_OVERHEAD: usize = 128;

/// What the page's script saw of one call or error (see the module comment).
#[derive(Default)]
struct Detail {
    /// The address of the frame that made the call, as the engine has it.
    frame_url: String,
    /// A call's arguments, formatted.
    text: Option<String>,
    column: Option<u64>,
    stack: Option<String>,
}

/// One message as the engine recorded it.
struct EngineMessage {
    source: u32,
    level: u32,
    line: u32,
    text: String,
    source_url: String,
    page_url: String,
    /// The frame's details, when its script reported them.
    detail: Option<Detail>,
}

impl EngineMessage {
    /// The fields of the extension's `(uuusssbsssu)` message.
    fn from_message(message: &UserMessage) -> Option<EngineMessage> {
        let fields = message.parameters()?;
        let (source, level, line, text, source_url, page_url) = (
            fields.child_value(0).get::<u32>()?,
            fields.child_value(1).get::<u32>()?,
            fields.child_value(2).get::<u32>()?,
            fields.child_value(3).get::<String>()?,
            fields.child_value(4).get::<String>()?,
            fields.child_value(5).get::<String>()?,
        );
        let some = |s: String| (!s.is_empty()).then_some(s);
        let detail = fields
            .child_value(6)
            .get::<bool>()?
            .then(|| -> Option<Detail> {
                Some(Detail {
                    frame_url: fields.child_value(7).get::<String>()?,
                    text: some(fields.child_value(8).get::<String>()?),
                    stack: some(fields.child_value(9).get::<String>()?),
                    column: Some(u64::from(fields.child_value(10).get::<u32>()?))
                        .filter(|&c| c > 0),
                })
            })
            .flatten();
        Some(EngineMessage {
            source,
            level,
            line,
            text,
            source_url,
            page_url,
            detail,
        })
    }

    /// WebKitConsoleMessageSource.
    fn source_name(&self) -> &'static str {
        match self.source {
            0 => "javascript",
            1 => "network",
            2 => "console-api",
            3 => "security",
            _ => "other",
        }
    }

    /// WebKitConsoleMessageLevel, spelt as the console methods are.
    fn level_name(&self) -> &'static str {
        match self.level {
            0 => "info",
            1 => "log",
            2 => "warn",
            3 => "error",
            _ => "debug",
        }
    }

    /// Uncaught exceptions and unhandled rejections go to the errors log.
    fn is_uncaught(&self) -> bool {
        self.source_name() == "javascript" && self.level_name() == "error"
    }

    /// Thrown in the browser's own user scripts (the agent library, the
    /// console reporter): the engine names their source `user-script:N`,
    /// which no page's script has.
    fn is_the_browsers(&self) -> bool {
        self.source_url.starts_with(USER_SCRIPT_SOURCE)
    }

    fn url(&self) -> &str {
        if self.source_url.is_empty() {
            &self.page_url
        } else {
            &self.source_url
        }
    }
}

/// One kept entry: its place in the browser-wide sequence, its bytes.
struct Kept {
    seq: u64,
    bytes: usize,
    entry: Value,
}

#[derive(Default)]
pub struct ConsoleLog {
    /// The budget of all tabs' logs it is counted in.
    budget: Rc<Budget>,
    messages: RefCell<VecDeque<Kept>>,
    errors: RefCell<VecDeque<Kept>>,
    dropped_messages: Cell<u64>,
    dropped_errors: Cell<u64>,
    /// The bytes both logs hold.
    bytes: Cell<usize>,
}

impl Budgeted for ConsoleLog {
    fn bytes(&self) -> usize {
        self.bytes.get()
    }

    fn oldest(&self) -> Option<u64> {
        let front = |log: &RefCell<VecDeque<Kept>>| log.borrow().front().map(|k| k.seq);
        match (front(&self.messages), front(&self.errors)) {
            (Some(a), Some(b)) => Some(a.min(b)),
            (a, b) => a.or(b),
        }
    }

    fn drop_oldest(&self) {
        let front = |log: &RefCell<VecDeque<Kept>>| log.borrow().front().map(|k| k.seq);
        let errors = match (front(&self.messages), front(&self.errors)) {
            (Some(a), Some(b)) => b < a,
            (None, Some(_)) => true,
            _ => false,
        };
        self.drop_front(errors);
    }
}

impl ConsoleLog {
    /// A tab's log, counted in the browser's `budget`.
    pub fn counted_in(budget: &Rc<Budget>) -> Rc<ConsoleLog> {
        let log = Rc::new(ConsoleLog {
            budget: budget.clone(),
            ..ConsoleLog::default()
        });
        budget.count_console(log.clone());
        log
    }

    fn drop_front(&self, errors: bool) {
        let (log, dropped) = if errors {
            (&self.errors, &self.dropped_errors)
        } else {
            (&self.messages, &self.dropped_messages)
        };
        if let Some(old) = log.borrow_mut().pop_front() {
            self.bytes.set(self.bytes.get().saturating_sub(old.bytes));
            dropped.set(dropped.get() + 1);
        }
    }

    /// Records one engine message.
    fn record(&self, mut message: EngineMessage) {
        let mut entry = Map::new();
        let is_error = message.is_uncaught();
        if is_error && message.is_the_browsers() {
            // Not the page's: the engine logs "Blocked a frame..." each
            // time the agent library checks whether a frame is cross-origin.
            tracing::debug!(text = %message.text, "an error of the browser's own scripts, not listed");
            return;
        }
        let detail = message.detail.take().unwrap_or_default();
        if is_error {
            let rejection = message.text.starts_with("Unhandled Promise Rejection:");
            let kind = if rejection { "rejection" } else { "error" };
            entry.insert("kind".into(), kind.into());
            entry.insert("text".into(), clip(&message.text).into());
            entry.insert("source".into(), non_empty(&kept_url(&message.source_url)));
            entry.insert("line".into(), non_zero(message.line));
            entry.insert("column".into(), detail.column.into());
            entry.insert("stack".into(), detail.stack.as_deref().map(clip).into());
            // The frame that threw, when its script saw it; else the tab's page.
            let url = if detail.frame_url.is_empty() {
                &message.page_url
            } else {
                &detail.frame_url
            };
            entry.insert("url".into(), kept_url(url).into());
        } else {
            let text = detail
                .text
                .filter(|t| message.source_name() == "console-api" && t.starts_with(&message.text))
                .unwrap_or_else(|| message.text.clone());
            entry.insert("kind".into(), "console".into());
            entry.insert("level".into(), message.level_name().into());
            entry.insert("source".into(), message.source_name().into());
            entry.insert("text".into(), clip(&text).into());
            entry.insert("url".into(), kept_url(message.url()).into());
            entry.insert("line".into(), non_zero(message.line));
        }
        let ms = SystemTime::now()
            .duration_since(UNIX_EPOCH)
            .map_or(0, |d| d.as_millis() as u64);
        entry.insert("time".into(), ms.into());
        let entry = Value::Object(entry);
        let kept = Kept {
            seq: self.budget.next(),
            bytes: ENTRY_OVERHEAD + entry.to_string().len(),
            entry,
        };
        self.bytes.set(self.bytes.get() + kept.bytes);
        let (log, cap) = if is_error {
            (&self.errors, ERRORS_MAX)
        } else {
            (&self.messages, CONSOLE_MAX)
        };
        log.borrow_mut().push_back(kept);
        if log.borrow().len() > cap {
            self.drop_front(is_error);
        }
        while self.bytes.get() > TAB_BYTES && self.oldest().is_some() {
            self.drop_oldest();
        }
        self.budget.settle_console();
    }

    /// The newest `limit` entries (of `level` only, when given), oldest
    /// first, optionally emptying the log.
    pub fn read(&self, errors: bool, level: Option<&str>, limit: usize, clear: bool) -> Value {
        let (log, dropped) = if errors {
            (&self.errors, &self.dropped_errors)
        } else {
            (&self.messages, &self.dropped_messages)
        };
        let mut log = log.borrow_mut();
        let matching: Vec<&Value> = log
            .iter()
            .map(|k| &k.entry)
            .filter(|e| level.is_none_or(|l| e["level"] == l))
            .collect();
        let total = matching.len();
        let entries: Vec<Value> = matching
            .into_iter()
            .skip(total.saturating_sub(limit))
            .cloned()
            .collect();
        let result = json!({
            "count": total,
            "shown": entries.len(),
            "dropped": dropped.get(),
            "entries": entries,
        });
        if clear {
            let freed: usize = log.drain(..).map(|k| k.bytes).sum();
            self.bytes.set(self.bytes.get().saturating_sub(freed));
            dropped.set(0);
        }
        result
    }
}

/// A URL as kept: cut already in the web process (with its marker), or here.
fn kept_url(url: &str) -> String {
    if bounded::is_cut(url) {
        url.to_string()
    } else {
        bounded::url(url).into_owned()
    }
}

fn clip(text: &str) -> String {
    bounded::cut(text, TEXT_MAX).into_owned()
}

fn non_empty(text: &str) -> Value {
    if text.is_empty() {
        Value::Null
    } else {
        text.into()
    }
}

fn non_zero(n: u32) -> Value {
    if n == 0 {
        Value::Null
    } else {
        n.into()
    }
}

/// Hears one tab's engine messages, from the extension.
pub fn listen(view: &WebView, log: &Rc<ConsoleLog>) {
    let log = log.clone();
    view.connect_user_message_received(move |_, message| {
        if message.name().as_deref() != Some(CONSOLE_MESSAGE) {
            return false;
        }
        if let Some(message) = EngineMessage::from_message(message) {
            log.record(message);
        }
        true
    });
}

#[cfg(test)]
mod tests {
    use super::*;

    fn engine(source: u32, level: u32, text: &str) -> EngineMessage {
        EngineMessage {
            source,
            level,
            line: 7,
            text: text.into(),
            source_url: "http://a.test/app.js".into(),
            page_url: "http://a.test/".into(),
            detail: None,
        }
    }

    fn with(mut message: EngineMessage, detail: Detail) -> EngineMessage {
        message.detail = Some(detail);
        message
    }

    #[test]
    fn a_read_keeps_the_newest_limit_entries_oldest_first() {
        let log = ConsoleLog::default();
        for text in ["one", "two", "three", "four"] {
            log.record(engine(2, 1, text));
        }
        let read = log.read(false, None, 2, false);
        assert_eq!(
            (read["count"].clone(), read["shown"].clone()),
            (4.into(), 2.into())
        );
        assert_eq!(read["entries"][0]["text"], "three");
        assert_eq!(read["entries"][1]["text"], "four");
    }

    #[test]
    fn a_detail_gives_the_text_only_when_it_starts_with_the_engines() {
        let log = ConsoleLog::default();
        let detail = |text: &str| Detail {
            text: Some(text.into()),
            ..Detail::default()
        };
        log.record(with(engine(2, 1, "user"), detail(r#"user {"id":1}"#)));
        log.record(with(engine(2, 1, "x"), detail("y")));
        // Only a console call's detail gives text.
        log.record(with(engine(1, 3, "404"), detail("404 forged")));
        let read = log.read(false, None, 100, false);
        let texts: Vec<_> = read["entries"]
            .as_array()
            .unwrap()
            .iter()
            .map(|e| e["text"].as_str().unwrap().to_string())
            .collect();
        assert_eq!(texts, [r#"user {"id":1}"#, "x", "404"]);
        assert_eq!(read["entries"][0]["source"], "console-api");
        assert_eq!(read["entries"][0]["line"], 7);
    }

    #[test]
    fn uncaught_errors_take_their_frames_stack_and_url_and_others_stay_in_the_console() {
        let log = ConsoleLog::default();
        let thrown = Detail {
            frame_url: "http://b.test/frame.html".into(),
            column: Some(3),
            stack: Some("at f".into()),
            text: None,
        };
        log.record(with(engine(0, 3, "TypeError: x"), thrown));
        log.record(engine(0, 3, "Unhandled Promise Rejection: no"));
        log.record(engine(1, 3, "Failed to load resource: 404"));
        let errors = log.read(true, None, 100, false);
        assert_eq!(errors["count"], 2);
        assert_eq!(errors["entries"][0]["stack"], "at f");
        assert_eq!(errors["entries"][0]["column"], 3);
        assert_eq!(errors["entries"][0]["url"], "http://b.test/frame.html");
        assert_eq!(errors["entries"][1]["kind"], "rejection");
        assert_eq!(errors["entries"][1]["stack"], Value::Null);
        assert_eq!(errors["entries"][1]["url"], "http://a.test/");
        let console = log.read(false, Some("error"), 100, false);
        assert_eq!(console["entries"][0]["source"], "network");
    }

    #[test]
    fn long_text_and_urls_are_cut_with_a_marker() {
        let log = ConsoleLog::default();
        let mut message = engine(2, 1, &"x".repeat(5000));
        message.source_url = format!("data:text/javascript,{}", "y".repeat(100_000));
        log.record(message);
        let entry = &log.read(false, None, 1, false)["entries"][0];
        let text = entry["text"].as_str().unwrap();
        assert!(text.ends_with("…[cut: 3000 more bytes]"), "{text}");
        let url = entry["url"].as_str().unwrap();
        assert!(url.len() < 200 && url.contains("[data: URL of "), "{url}");
    }
}
