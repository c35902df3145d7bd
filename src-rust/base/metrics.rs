//! Counters of tool calls for `/metrics`: how many by tool and outcome,
//! and how long they took, as Prometheus histograms. Labels are bounded:
//! a tool is one the registry knows (or the placeholder for none), an
//! outcome is `ok` or a stable error code.

use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::sync::Mutex;
use std::time::Duration;

/// Upper bounds of the latency buckets, in seconds.
const BUCKETS: [f64; 14] = [
    0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0, 30.0,
];

#[derive(Default)]
struct Latency {
    /// Calls at or under each bound (not cumulative; summed when shown).
    buckets: [u64; BUCKETS.len()],
    count: u64,
    sum: f64,
}

#[derive(Default)]
pub struct Metrics {
    calls: Mutex<BTreeMap<(&'static str, &'static str), u64>>,
    latency: Mutex<BTreeMap<&'static str, Latency>>,
}

impl Metrics {
    /// Counts one call of `tool` that ended with `outcome` after `took`.
    pub fn observe(&self, tool: &'static str, outcome: &'static str, took: Duration) {
        *lock(&self.calls).entry((tool, outcome)).or_default() += 1;
        let seconds = took.as_secs_f64();
        let mut latency = lock(&self.latency);
        let entry = latency.entry(tool).or_default();
        if let Some(at) = BUCKETS.iter().position(|bound| seconds <= *bound) {
            entry.buckets[at] += 1;
        }
        entry.count += 1;
        entry.sum += seconds;
    }

    /// The calls' families in Prometheus' text format.
    pub fn render(&self, out: &mut String) {
        out.push_str("# HELP sovereign_tool_calls_total Tool calls by tool and outcome (ok or the error code).\n");
        out.push_str("# TYPE sovereign_tool_calls_total counter\n");
        for ((tool, outcome), n) in lock(&self.calls).iter() {
            let _ = writeln!(
                out,
                "sovereign_tool_calls_total{{tool=\"{tool}\",outcome=\"{outcome}\"}} {n}"
            );
        }
        out.push_str(
            "# HELP sovereign_tool_call_duration_seconds How long tool calls took, by tool.\n",
        );
        out.push_str("# TYPE sovereign_tool_call_duration_seconds histogram\n");
        for (tool, latency) in lock(&self.latency).iter() {
            let mut seen = 0;
            for (bound, n) in BUCKETS.iter().zip(latency.buckets) {
                seen += n;
                let _ = writeln!(
                    out,
                    "sovereign_tool_call_duration_seconds_bucket{{tool=\"{tool}\",le=\"{bound}\"}} {seen}"
                );
            }
            let _ = writeln!(
                out,
                "sovereign_tool_call_duration_seconds_bucket{{tool=\"{tool}\",le=\"+Inf\"}} {}",
                latency.count
            );
            let _ = writeln!(
                out,
                "sovereign_tool_call_duration_seconds_sum{{tool=\"{tool}\"}} {}",
                latency.sum
            );
            let _ = writeln!(
                out,
                "sovereign_tool_call_duration_seconds_count{{tool=\"{tool}\"}} {}",
                latency.count
            );
        }
    }
}

fn lock<T>(mutex: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    mutex.lock().unwrap_or_else(|e| e.into_inner())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn calls_are_counted_by_outcome_and_their_times_fall_in_buckets() {
        let metrics = Metrics::default();
        metrics.observe("click", "ok", Duration::from_millis(3));
        metrics.observe("click", "ok", Duration::from_millis(40));
        metrics.observe("click", "STALE_REF", Duration::from_secs(60));
        let mut text = String::new();
        metrics.render(&mut text);
        assert!(text.contains("sovereign_tool_calls_total{tool=\"click\",outcome=\"ok\"} 2\n"));
        assert!(
            text.contains("sovereign_tool_calls_total{tool=\"click\",outcome=\"STALE_REF\"} 1\n")
        );
        assert!(text.contains("_bucket{tool=\"click\",le=\"0.0025\"} 0\n"));
        assert!(text.contains("_bucket{tool=\"click\",le=\"0.005\"} 1\n"));
        assert!(text.contains("_bucket{tool=\"click\",le=\"0.05\"} 2\n"));
        assert!(
            text.contains("_bucket{tool=\"click\",le=\"30\"} 2\n"),
            "a minute is past every bound"
        );
        assert!(text.contains("_bucket{tool=\"click\",le=\"+Inf\"} 3\n"));
        assert!(text.contains("sovereign_tool_call_duration_seconds_count{tool=\"click\"} 3\n"));
    }
}
