//! A signal that something shown elsewhere changed. Its owner bumps it
//! after each change; the panel's push (and the window) wait on it instead
//! of looking again and again. Bumps in a burst are seen as one, so a
//! watcher that is slow to look never falls behind.

use tokio::sync::watch;

#[derive(Debug)]
pub struct Changes(watch::Sender<u64>);

impl Default for Changes {
    fn default() -> Self {
        Changes(watch::channel(0).0)
    }
}

impl Changes {
    /// Something changed: every watcher wakes (once, however many bumps).
    pub fn bump(&self) {
        self.0
            .send_modify(|version| *version = version.wrapping_add(1));
    }

    /// Moves with every bump.
    pub fn version(&self) -> u64 {
        *self.0.borrow()
    }

    /// Wakes at the next bump; one that came since the last look counts.
    pub fn watch(&self) -> watch::Receiver<u64> {
        self.0.subscribe()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn a_burst_of_changes_wakes_a_watcher_once() {
        let changes = Changes::default();
        let mut watcher = changes.watch();
        let before = changes.version();
        changes.bump();
        changes.bump();
        assert_ne!(changes.version(), before);
        watcher.changed().await.unwrap();
        assert!(!watcher.has_changed().unwrap(), "seen as one");
        changes.bump();
        assert!(watcher.has_changed().unwrap());
    }
}
