//! Console messages and uncaught errors of a tab's pages, from page start,
//! for the console and errors tools. Both logs are bounded; what falls out
//! is counted.
//!
//! Every entry is one the engine recorded: the web process extension
//! (`src-rust/web-extension/console.c`) hands each console message to the
//! browser with the engine's level, source, line and URL, on a channel no
//! page script can post to. The engine keeps only a console call's first
//! argument and no stack, so `assets/console.js` (in the page's world, where
//! the calls happen) reports the formatted arguments and the stacks, and
//! they are joined to the engine's entry they belong to. Those details are
//! page-written, like the text itself; they never make an entry exist.

use super::tab::TabState;
use javascriptcore::ValueExt as _;
use serde::Deserialize;
use serde_json::{json, Map, Value};
use std::cell::{Cell, RefCell};
use std::collections::VecDeque;
use std::rc::Rc;
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};
use webkit2gtk::{
    UserContentInjectedFrames, UserContentManager, UserContentManagerExt as _, UserMessage,
    UserMessageExt as _, UserScript, UserScriptInjectionTime, WebView, WebViewExt as _,
};

/// The extension's message name (CONSOLE_MESSAGE in console.c).
const CONSOLE_MESSAGE: &str = "sovereign-console";
const HANDLER: &str = "sovereignConsole";
const SOURCE: &str = include_str!("../../assets/console.js");
const CONSOLE_MAX: usize = 1000;
const ERRORS_MAX: usize = 200;
const TEXT_MAX: usize = 2000;
/// Page-side details wait this long, this many, for their engine entry.
const DETAIL_WAIT: Duration = Duration::from_secs(10);
const DETAILS_MAX: usize = 64;

/// What the page's script saw of one call or error (see the module comment).
#[derive(Deserialize)]
struct Detail {
    /// "console", "error" or "rejection".
    kind: String,
    /// A console call's level.
    #[serde(default)]
    level: Option<String>,
    /// What the engine will have recorded: a call's first argument as a
    /// string, or an error's message.
    key: String,
    /// A call's arguments, formatted.
    #[serde(default)]
    text: Option<String>,
    #[serde(default)]
    column: Option<u64>,
    #[serde(default)]
    stack: Option<String>,
    #[serde(skip, default = "Instant::now")]
    seen: Instant,
}

/// One message as the engine recorded it.
struct EngineMessage {
    source: u32,
    level: u32,
    line: u32,
    text: String,
    source_url: String,
    page_url: String,
}

impl EngineMessage {
    /// The fields of the extension's `(uuusss)` message.
    fn from_message(message: &UserMessage) -> Option<EngineMessage> {
        let fields = message.parameters()?;
        let (source, level, line, text, source_url, page_url) =
            fields.get::<(u32, u32, u32, String, String, String)>()?;
        Some(EngineMessage {
            source,
            level,
            line,
            text,
            source_url,
            page_url,
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

    fn url(&self) -> &str {
        if self.source_url.is_empty() {
            &self.page_url
        } else {
            &self.source_url
        }
    }
}

#[derive(Default)]
pub struct ConsoleLog {
    messages: RefCell<VecDeque<Value>>,
    errors: RefCell<VecDeque<Value>>,
    dropped_messages: Cell<u64>,
    dropped_errors: Cell<u64>,
    details: RefCell<VecDeque<Detail>>,
}

impl ConsoleLog {
    /// Keeps a page-side detail until its engine entry arrives.
    fn note_detail(&self, text: &str) {
        let Ok(detail) = serde_json::from_str::<Detail>(text) else {
            return;
        };
        let mut details = self.details.borrow_mut();
        details.retain(|d| d.seen.elapsed() < DETAIL_WAIT);
        if details.len() >= DETAILS_MAX {
            details.pop_front();
        }
        details.push_back(detail);
    }

    /// The oldest waiting detail for `message`, taken.
    fn take_detail(&self, kind: &str, message: &EngineMessage) -> Option<Detail> {
        let mut details = self.details.borrow_mut();
        let level = message.level_name();
        let at = details.iter().position(|d| {
            d.kind == kind
                && d.key == message.text
                && (kind != "console" || d.level.as_deref() == Some(level))
        })?;
        details.remove(at)
    }

    /// Records one engine message.
    fn record(&self, message: EngineMessage) {
        let mut entry = Map::new();
        let is_error = message.is_uncaught();
        if is_error {
            let rejection = message.text.starts_with("Unhandled Promise Rejection:");
            let kind = if rejection { "rejection" } else { "error" };
            let detail = self.take_detail(kind, &message);
            entry.insert("kind".into(), kind.into());
            entry.insert("text".into(), clip(&message.text).into());
            entry.insert("source".into(), non_empty(&message.source_url));
            entry.insert("line".into(), non_zero(message.line));
            let (column, stack) = detail.map_or((None, None), |d| (d.column, d.stack));
            entry.insert("column".into(), column.into());
            entry.insert("stack".into(), stack.as_deref().map(clip).into());
            entry.insert("url".into(), message.page_url.clone().into());
        } else {
            let detail = (message.source_name() == "console-api")
                .then(|| self.take_detail("console", &message))
                .flatten();
            let text = detail
                .and_then(|d| d.text)
                .filter(|t| t.starts_with(&message.text))
                .unwrap_or_else(|| message.text.clone());
            entry.insert("kind".into(), "console".into());
            entry.insert("level".into(), message.level_name().into());
            entry.insert("source".into(), message.source_name().into());
            entry.insert("text".into(), clip(&text).into());
            entry.insert("url".into(), message.url().to_string().into());
            entry.insert("line".into(), non_zero(message.line));
        }
        let ms = SystemTime::now()
            .duration_since(UNIX_EPOCH)
            .map_or(0, |d| d.as_millis() as u64);
        entry.insert("time".into(), ms.into());
        let (log, cap, dropped) = if is_error {
            (&self.errors, ERRORS_MAX, &self.dropped_errors)
        } else {
            (&self.messages, CONSOLE_MAX, &self.dropped_messages)
        };
        let mut log = log.borrow_mut();
        if log.len() >= cap {
            log.pop_front();
            dropped.set(dropped.get() + 1);
        }
        log.push_back(Value::Object(entry));
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
            log.clear();
            dropped.set(0);
        }
        result
    }
}

fn clip(text: &str) -> String {
    match text.char_indices().nth(TEXT_MAX) {
        Some((at, _)) => text[..at].to_string(),
        None => text.to_string(),
    }
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

/// The details script for a tab's pages (every frame, the page's world).
pub fn script() -> UserScript {
    UserScript::new(
        SOURCE,
        UserContentInjectedFrames::AllFrames,
        UserScriptInjectionTime::Start,
        &[],
        &[],
    )
}

/// Hears one tab: the engine's messages from the extension, the details
/// from the page's script.
pub fn listen(view: &WebView, manager: &UserContentManager, state: &Rc<TabState>) {
    let engine = state.clone();
    view.connect_user_message_received(move |_, message| {
        if message.name().as_deref() != Some(CONSOLE_MESSAGE) {
            return false;
        }
        if let Some(message) = EngineMessage::from_message(message) {
            engine.console.record(message);
        }
        true
    });
    manager.register_script_message_handler(HANDLER);
    let page = state.clone();
    manager.connect_script_message_received(Some(HANDLER), move |_, result| {
        if let Some(value) = result.js_value() {
            if value.is_string() {
                page.console.note_detail(&value.to_str());
            }
        }
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
        }
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
    fn details_join_only_the_engine_entry_they_describe() {
        let log = ConsoleLog::default();
        log.note_detail(
            r#"{"kind":"console","level":"log","key":"user","text":"user {\"id\":1}"}"#,
        );
        // A detail with no engine entry makes none.
        log.note_detail(r#"{"kind":"console","level":"error","key":"forged","text":"forged"}"#);
        // Another level, or a text that does not start with the engine's, joins nothing.
        log.record(engine(2, 2, "user"));
        log.record(engine(2, 1, "user"));
        log.note_detail(r#"{"kind":"console","level":"log","key":"x","text":"y"}"#);
        log.record(engine(2, 1, "x"));
        let read = log.read(false, None, 100, false);
        let texts: Vec<_> = read["entries"]
            .as_array()
            .unwrap()
            .iter()
            .map(|e| format!("{} {}", e["level"], e["text"]))
            .collect();
        assert_eq!(
            texts,
            [
                r#""warn" "user""#,
                r#""log" "user {\"id\":1}""#,
                r#""log" "x""#
            ]
        );
        assert_eq!(read["entries"][0]["source"], "console-api");
        assert_eq!(read["entries"][0]["line"], 7);
    }

    #[test]
    fn uncaught_errors_take_their_stack_and_others_stay_in_the_console() {
        let log = ConsoleLog::default();
        log.note_detail(r#"{"kind":"error","key":"TypeError: x","column":3,"stack":"at f"}"#);
        log.record(engine(0, 3, "TypeError: x"));
        log.record(engine(0, 3, "Unhandled Promise Rejection: no"));
        log.record(engine(1, 3, "Failed to load resource: 404"));
        let errors = log.read(true, None, 100, false);
        assert_eq!(errors["count"], 2);
        assert_eq!(errors["entries"][0]["stack"], "at f");
        assert_eq!(errors["entries"][0]["column"], 3);
        assert_eq!(errors["entries"][1]["kind"], "rejection");
        assert_eq!(errors["entries"][1]["stack"], Value::Null);
        let console = log.read(false, Some("error"), 100, false);
        assert_eq!(console["entries"][0]["source"], "network");
    }
}
