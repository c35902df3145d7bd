//! The log of tool calls that the panel shows live: a bounded ring of the
//! latest calls plus a broadcast of each new one.

use super::caller::Session;
use crate::base::error::ErrorCode;
use serde::Serialize;
use std::collections::VecDeque;
use std::sync::Mutex;
use std::time::{Duration, SystemTime, UNIX_EPOCH};
use tokio::sync::broadcast;

/// How many calls are kept for a panel that connects later.
pub const KEPT: usize = 200;

#[derive(Debug, Clone, Serialize)]
pub struct CallRecord {
    /// Unix time in milliseconds.
    pub time: u64,
    pub session: String,
    pub transport: &'static str,
    pub client: Option<String>,
    pub tool: String,
    pub ms: f64,
    pub ok: bool,
    pub code: Option<ErrorCode>,
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
    pub fn record(&self, session: &Session, tool: &str, took: Duration, code: Option<ErrorCode>) {
        let time = SystemTime::now()
            .duration_since(UNIX_EPOCH)
            .map(|d| d.as_millis() as u64)
            .unwrap_or(0);
        let record = CallRecord {
            time,
            session: session.id.clone(),
            transport: session.transport.as_str(),
            client: session.client_name(),
            tool: tool.to_string(),
            ms: (took.as_secs_f64() * 10_000.0).round() / 10.0,
            ok: code.is_none(),
            code,
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
    }
}
