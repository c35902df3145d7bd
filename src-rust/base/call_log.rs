//! The log of tool calls that the panel shows live: a bounded ring of the
//! latest calls plus a broadcast of each new one. Every string in it is
//! bounded: a call to a tool that does not exist is logged under
//! [`UNKNOWN_TOOL`], never under the name the agent sent.

use super::caller::Session;
use super::tab::TabId;
use crate::base::error::ErrorCode;
use serde::Serialize;
use std::collections::VecDeque;
use std::sync::Mutex;
use std::time::{Duration, SystemTime, UNIX_EPOCH};
use tokio::sync::broadcast;

/// How many calls are kept for a panel that connects later.
pub const KEPT: usize = 200;
/// The name a call to no tool is logged under.
pub const UNKNOWN_TOOL: &str = "(unknown tool)";
/// Characters kept of a tool's and a client's name.
const NAME_MAX: usize = 64;

#[derive(Debug, Clone, Serialize)]
pub struct CallRecord {
    /// Unix time in milliseconds.
    pub time: u64,
    pub session: String,
    pub transport: &'static str,
    pub client: Option<String>,
    pub tool: String,
    /// The context the call worked in (of the tab it acted on, else the
    /// session's), by name; none once that context closed.
    pub context: Option<String>,
    pub ms: f64,
    pub ok: bool,
    pub code: Option<ErrorCode>,
    /// The requests the tab it acted on started while it ran.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub requests: Option<RequestRange>,
}

/// Requests of one tab's network log, `first` to `last` (ids).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, serde::Deserialize)]
pub struct RequestRange {
    pub tab: TabId,
    pub first: u64,
    pub last: u64,
}

impl RequestRange {
    /// What tab `tab` started between two looks at every tab's newest id.
    pub fn between(tab: TabId, before: &[(TabId, u64)], after: &[(TabId, u64)]) -> Option<Self> {
        let newest = |list: &[(TabId, u64)]| list.iter().find(|(t, _)| *t == tab).map(|(_, n)| *n);
        let first = newest(before).unwrap_or(0) + 1;
        let last = newest(after)?;
        (last >= first).then_some(RequestRange { tab, first, last })
    }
}

pub struct CallLog {
    recent: Mutex<VecDeque<CallRecord>>,
    live: broadcast::Sender<CallRecord>,
}

impl Default for CallLog {
    fn default() -> Self {
        CallLog {
            recent: Mutex::new(VecDeque::with_capacity(KEPT)),
            live: broadcast::channel(1024).0,
        }
    }
}

impl CallLog {
    pub fn record(
        &self,
        session: &Session,
        tool: &str,
        took: Duration,
        code: Option<ErrorCode>,
        requests: Option<RequestRange>,
        context: Option<String>,
    ) {
        let time = SystemTime::now()
            .duration_since(UNIX_EPOCH)
            .map(|d| d.as_millis() as u64)
            .unwrap_or(0);
        let record = CallRecord {
            time,
            session: session.id.clone(),
            transport: session.transport.as_str(),
            client: session
                .client_name()
                .map(|c| super::bounded::one_line(&c, NAME_MAX)),
            tool: super::bounded::one_line(tool, NAME_MAX),
            context,
            ms: (took.as_secs_f64() * 10_000.0).round() / 10.0,
            ok: code.is_none(),
            code,
            requests,
        };
        {
            let mut recent = self.recent.lock().unwrap_or_else(|e| e.into_inner());
            if recent.len() == KEPT {
                recent.pop_front();
            }
            recent.push_back(record.clone());
        }
        // Nobody listening is fine.
        let _ = self.live.send(record);
    }

    pub fn recent(&self) -> Vec<CallRecord> {
        self.recent
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .iter()
            .cloned()
            .collect()
    }

    pub fn subscribe(&self) -> broadcast::Receiver<CallRecord> {
        self.live.subscribe()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keeps_the_latest_and_broadcasts_each() {
        let log = CallLog::default();
        let session = Session::for_tests();
        let mut rx = log.subscribe();
        for i in 0..(KEPT + 5) {
            let code = (i % 2 == 0).then_some(ErrorCode::StaleRef);
            log.record(
                &session,
                &format!("t{i}"),
                Duration::from_micros(1500),
                code,
                None,
                None,
            );
        }
        let recent = log.recent();
        assert_eq!(recent.len(), KEPT);
        assert_eq!(recent.last().unwrap().tool, format!("t{}", KEPT + 4));
        let first = rx.try_recv().unwrap();
        assert_eq!(first.tool, "t0");
        assert_eq!(first.ms, 1.5);
        assert!(!first.ok);
        assert_eq!(serde_json::to_value(&first).unwrap()["code"], "STALE_REF");
        assert!(serde_json::to_value(&first)
            .unwrap()
            .get("requests")
            .is_none());
    }

    #[test]
    fn names_are_kept_short_and_on_one_line() {
        let log = CallLog::default();
        let session = Session::for_tests();
        log.record(
            &session,
            &"t\n".repeat(1 << 20),
            Duration::ZERO,
            None,
            None,
            None,
        );
        let kept = &log.recent()[0].tool;
        assert!(
            kept.chars().count() < NAME_MAX + 30 && !kept.contains('\n'),
            "{kept}"
        );
    }

    #[test]
    fn a_call_is_linked_to_the_requests_its_tab_started_meanwhile() {
        let before = [(1, 4), (2, 9)];
        assert_eq!(
            RequestRange::between(1, &before, &[(1, 7), (2, 12)]),
            Some(RequestRange {
                tab: 1,
                first: 5,
                last: 7
            })
        );
        assert_eq!(
            RequestRange::between(1, &before, &[(1, 4)]),
            None,
            "none started"
        );
        assert_eq!(
            RequestRange::between(3, &before, &[(3, 2)]),
            Some(RequestRange {
                tab: 3,
                first: 1,
                last: 2
            }),
            "a tab the call opened"
        );
        assert_eq!(
            RequestRange::between(2, &before, &[]),
            None,
            "the tab closed"
        );
    }
}
