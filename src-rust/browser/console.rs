//! Console messages and uncaught errors of a tab's pages, from page start:
//! `assets/console.js` posts them here, and the console and errors tools
//! read them. Both logs are bounded; what falls out is counted.

use super::tab::TabState;
use javascriptcore::ValueExt as _;
use serde_json::{json, Value};
use std::cell::RefCell;
use std::collections::VecDeque;
use std::rc::Rc;
use std::time::{SystemTime, UNIX_EPOCH};
use webkit2gtk::{
    UserContentInjectedFrames, UserContentManager, UserContentManagerExt as _, UserScript,
    UserScriptInjectionTime,
};

const HANDLER: &str = "sovereignConsole";
const SOURCE: &str = include_str!("../../assets/console.js");
const CONSOLE_MAX: usize = 1000;
const ERRORS_MAX: usize = 200;

#[derive(Default)]
pub struct ConsoleLog {
    messages: RefCell<VecDeque<Value>>,
    errors: RefCell<VecDeque<Value>>,
    dropped_messages: std::cell::Cell<u64>,
    dropped_errors: std::cell::Cell<u64>,
}

impl ConsoleLog {
    fn record(&self, text: &str) {
        let Ok(Value::Object(mut entry)) = serde_json::from_str::<Value>(text) else {
            return;
        };
        let ms = SystemTime::now()
            .duration_since(UNIX_EPOCH)
            .map_or(0, |d| d.as_millis() as u64);
        entry.insert("time".into(), ms.into());
        let is_error = entry.get("kind").and_then(Value::as_str) != Some("console");
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

    /// The newest `limit` entries (of `level` only, when given), optionally
    /// emptying the log.
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

/// The capture script for a tab's pages (every frame, the page's world).
pub fn script() -> UserScript {
    UserScript::new(
        SOURCE,
        UserContentInjectedFrames::AllFrames,
        UserScriptInjectionTime::Start,
        &[],
        &[],
    )
}

/// Hears one tab's pages.
pub fn listen(manager: &UserContentManager, state: &Rc<TabState>) {
    manager.register_script_message_handler(HANDLER);
    let state = state.clone();
    manager.connect_script_message_received(Some(HANDLER), move |_, result| {
        if let Some(value) = result.js_value() {
            if value.is_string() {
                state.console.record(&value.to_str());
            }
        }
    });
}
