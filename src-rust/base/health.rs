//! Where the process stands, for `/readyz` and for a clean stop: ready
//! once the browser, its display and its first context are up; stopping
//! once a signal asked it to end; and how many tool calls run now, which
//! a stop lets finish (within its grace) before the process ends.

use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;
use tokio::sync::watch;

#[derive(Debug)]
pub struct Health {
    ready: AtomicBool,
    stopping: AtomicBool,
    /// Tool calls running now.
    running: watch::Sender<usize>,
}

impl Default for Health {
    fn default() -> Self {
        Health {
            ready: AtomicBool::new(false),
            stopping: AtomicBool::new(false),
            running: watch::channel(0).0,
        }
    }
}

/// What `/readyz` answers.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Readiness {
    Starting,
    Ready,
    Stopping,
}

impl Health {
    /// The browser showed its first page: agents may come.
    pub fn set_ready(&self) {
        self.ready.store(true, Ordering::SeqCst);
    }

    pub fn readiness(&self) -> Readiness {
        if self.stopping.load(Ordering::SeqCst) {
            Readiness::Stopping
        } else if self.ready.load(Ordering::SeqCst) {
            Readiness::Ready
        } else {
            Readiness::Starting
        }
    }

    /// A stop was asked for: new calls are refused from now on.
    pub fn set_stopping(&self) {
        self.stopping.store(true, Ordering::SeqCst);
    }

    pub fn is_stopping(&self) -> bool {
        self.stopping.load(Ordering::SeqCst)
    }

    /// Counts a call as running until the guard drops.
    pub fn call_started(&self) -> RunningCall<'_> {
        self.running.send_modify(|n| *n += 1);
        RunningCall { health: self }
    }

    pub fn running(&self) -> usize {
        *self.running.borrow()
    }

    /// Waits until no call runs, or `limit` passed; true when none runs.
    pub async fn drained(&self, limit: Duration) -> bool {
        let mut running = self.running.subscribe();
        let idle = tokio::time::timeout(limit, running.wait_for(|n| *n == 0)).await;
        matches!(idle, Ok(Ok(_)))
    }
}

/// A running call; it ends when dropped (answered, failed or cancelled).
pub struct RunningCall<'a> {
    health: &'a Health,
}

impl Drop for RunningCall<'_> {
    fn drop(&mut self) {
        self.health
            .running
            .send_modify(|n| *n = n.saturating_sub(1));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test(start_paused = true)]
    async fn a_stop_waits_for_the_running_calls_within_its_limit() {
        let health = std::sync::Arc::new(Health::default());
        assert_eq!(health.readiness(), Readiness::Starting);
        health.set_ready();
        assert_eq!(health.readiness(), Readiness::Ready);
        assert!(health.drained(Duration::from_secs(1)).await, "none runs");

        let call = health.call_started();
        assert_eq!(health.running(), 1);
        health.set_stopping();
        assert_eq!(health.readiness(), Readiness::Stopping);
        assert!(
            !health.drained(Duration::from_secs(1)).await,
            "one still runs"
        );

        let waiter = tokio::spawn({
            let health = health.clone();
            async move { health.drained(Duration::from_secs(10)).await }
        });
        tokio::time::sleep(Duration::from_millis(100)).await;
        drop(call);
        assert!(waiter.await.unwrap(), "drained once it ended");
        assert_eq!(health.running(), 0);
    }
}
