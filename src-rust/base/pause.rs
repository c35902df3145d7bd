//! Whether the person has paused the agents: set from the window's button
//! or the panel, read by every call (through the hold rule), watched by the panel.

use tokio::sync::watch;

#[derive(Debug)]
pub struct Pause(watch::Sender<bool>);

impl Default for Pause {
    fn default() -> Self {
        Pause(watch::channel(false).0)
    }
}

impl Pause {
    pub fn is_paused(&self) -> bool {
        *self.0.borrow()
    }

    /// Pauses or resumes; watchers wake only when that changes it.
    pub fn set(&self, paused: bool) {
        self.0
            .send_if_modified(|now| std::mem::replace(now, paused) != paused);
    }

    pub fn watch(&self) -> watch::Receiver<bool> {
        self.0.subscribe()
    }
}
