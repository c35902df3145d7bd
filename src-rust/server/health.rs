//! `/healthz`, `/readyz` and `/metrics`: what an orchestrator asks. The
//! first two need no token and tell nothing but their answer; `/metrics`
//! (Prometheus' text format) is behind the agents' token like `/mcp`.

use crate::base::caller::Transport;
use crate::base::health::Readiness;
use crate::tools::app::App;
use axum::extract::State;
use axum::http::{header, StatusCode};
use axum::response::{IntoResponse, Response};
use std::fmt::Write as _;
use std::sync::Arc;

/// The process serves.
pub async fn healthz() -> Response {
    (StatusCode::OK, "ok\n").into_response()
}

/// The browser, its display and its first context are up, and no stop
/// was asked for: agents may come.
pub async fn readyz(State(app): State<Arc<App>>) -> Response {
    match app.health.readiness() {
        Readiness::Ready => (StatusCode::OK, "ready\n").into_response(),
        Readiness::Starting => (StatusCode::SERVICE_UNAVAILABLE, "starting\n").into_response(),
        Readiness::Stopping => (StatusCode::SERVICE_UNAVAILABLE, "stopping\n").into_response(),
    }
}

pub async fn metrics(State(app): State<Arc<App>>) -> Response {
    let mut out = String::with_capacity(16 * 1024);
    app.metrics.render(&mut out);
    let (tabs, contexts) = app.browser.peek(|s| (s.tabs.len(), s.contexts.len()));
    gauge(
        &mut out,
        "sovereign_open_tabs",
        "Tabs open, in every context.",
        &[("", tabs as f64)],
    );
    gauge(
        &mut out,
        "sovereign_open_contexts",
        "Contexts open, the person's included.",
        &[("", contexts as f64)],
    );
    let sessions = [
        (
            "transport=\"mcp\"",
            app.sessions.open(Transport::Mcp) as f64,
        ),
        (
            "transport=\"agent\"",
            app.sessions.open(Transport::Agent) as f64,
        ),
        (
            "transport=\"panel\"",
            app.sessions.open(Transport::Panel) as f64,
        ),
    ];
    gauge(
        &mut out,
        "sovereign_sessions",
        "Sessions open, by transport.",
        &sessions,
    );
    gauge(
        &mut out,
        "sovereign_tool_calls_running",
        "Tool calls running now.",
        &[("", app.health.running() as f64)],
    );
    let (own, helpers) = memory::pss();
    let memory = [
        ("process=\"browser\"", own as f64),
        ("process=\"helpers\"", helpers as f64),
    ];
    gauge(
        &mut out,
        "sovereign_memory_pss_bytes",
        "Proportional set size: the browser process, and its helpers (web and network processes, the display).",
        &memory,
    );
    let ready = f64::from(u8::from(app.health.readiness() == Readiness::Ready));
    gauge(
        &mut out,
        "sovereign_ready",
        "1 while /readyz answers ready.",
        &[("", ready)],
    );
    (
        [(
            header::CONTENT_TYPE,
            "text/plain; version=0.0.4; charset=utf-8",
        )],
        out,
    )
        .into_response()
}

/// Writes one gauge family: each value with its labels ("" for none).
fn gauge(out: &mut String, name: &str, help: &str, values: &[(&str, f64)]) {
    let _ = writeln!(out, "# HELP {name} {help}");
    let _ = writeln!(out, "# TYPE {name} gauge");
    for (labels, value) in values {
        match labels.is_empty() {
            true => writeln!(out, "{name} {value}"),
            false => writeln!(out, "{name}{{{labels}}} {value}"),
        }
        .unwrap_or_default();
    }
}

/// Memory of this process and its descendants, from /proc.
mod memory {
    use std::collections::HashMap;

    /// The PSS of this process, and the sum of its descendants', in bytes.
    pub fn pss() -> (u64, u64) {
        let me = std::process::id();
        let mut children: HashMap<u32, Vec<u32>> = HashMap::new();
        for (pid, parent) in processes() {
            children.entry(parent).or_default().push(pid);
        }
        let mut helpers = 0;
        let mut next = children.get(&me).cloned().unwrap_or_default();
        while let Some(pid) = next.pop() {
            helpers += pss_of(pid);
            next.extend(children.get(&pid).into_iter().flatten());
        }
        (pss_of(me), helpers)
    }

    /// Every process and its parent.
    fn processes() -> Vec<(u32, u32)> {
        let Ok(entries) = std::fs::read_dir("/proc") else {
            return Vec::new();
        };
        entries
            .filter_map(|e| e.ok()?.file_name().to_str()?.parse::<u32>().ok())
            .filter_map(|pid| Some((pid, parent_of(pid)?)))
            .collect()
    }

    fn parent_of(pid: u32) -> Option<u32> {
        let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
        // The name may hold spaces and parentheses: fields follow the last ')'.
        let rest = &stat[stat.rfind(')')? + 1..];
        rest.split_whitespace().nth(1)?.parse().ok()
    }

    fn pss_of(pid: u32) -> u64 {
        let Ok(rollup) = std::fs::read_to_string(format!("/proc/{pid}/smaps_rollup")) else {
            return 0;
        };
        rollup
            .lines()
            .find_map(|line| line.strip_prefix("Pss:"))
            .and_then(|kb| kb.trim().trim_end_matches("kB").trim().parse::<u64>().ok())
            .map_or(0, |kb| kb * 1024)
    }

    #[cfg(test)]
    mod tests {
        #[test]
        fn this_process_has_memory_and_a_child_counts_as_a_helper() {
            let (own, _) = super::pss();
            assert!(own > 0);
            let mut child = std::process::Command::new("sleep")
                .arg("5")
                .spawn()
                .unwrap();
            // Other tests' children come and go meanwhile: the sum holds at
            // least this one's.
            let child_pss = super::pss_of(child.id());
            let (_, helpers) = super::pss();
            let _ = child.kill();
            let _ = child.wait();
            assert!(child_pss > 0, "the child has memory");
            assert!(helpers >= child_pss, "{helpers} < {child_pss}");
        }
    }
}
