//! Unlocking a remembered key with its password: guessing slows down, a
//! person's typo does not. Each identity allows a few wrong passwords in a
//! row, then waits twice as long after each further one; one unlock of an
//! identity runs at a time, so parallel guesses cannot share a turn.

use std::collections::HashMap;
use std::sync::Mutex;
use std::time::{Duration, Instant};

/// Wrong passwords in a row that cost nothing.
const FREE: u32 = 3;
/// The longest wait between two tries.
const LONGEST: Duration = Duration::from_secs(300);

#[derive(Default)]
struct Record {
    wrong: u32,
    last: Option<Instant>,
    running: bool,
}

#[derive(Default)]
pub struct Unlocks(Mutex<HashMap<String, Record>>);

/// Why an unlock may not start now.
#[derive(Debug, PartialEq, Eq)]
pub enum Refused {
    /// Too many wrong passwords: try again after this long.
    Wait(Duration),
    /// Another unlock of this identity is running.
    Busy,
}

/// The wait after `wrong` wrong passwords in a row.
fn delay(wrong: u32) -> Duration {
    if wrong < FREE {
        return Duration::ZERO;
    }
    let doubling = (wrong - FREE).min(16);
    Duration::from_secs(1u64 << doubling).min(LONGEST)
}

impl Unlocks {
    /// Starts an unlock of `key` at `now`; [`Unlocks::end`] must follow.
    pub fn begin(&self, key: &str, now: Instant) -> Result<(), Refused> {
        let mut all = self.0.lock().unwrap_or_else(|e| e.into_inner());
        let record = all.entry(key.to_string()).or_default();
        if record.running {
            return Err(Refused::Busy);
        }
        if let Some(last) = record.last {
            let ready = last + delay(record.wrong);
            if ready > now {
                return Err(Refused::Wait(ready - now));
            }
        }
        record.running = true;
        Ok(())
    }

    /// Ends an unlock: a right password forgets the wrong ones.
    pub fn end(&self, key: &str, right: bool, now: Instant) {
        let mut all = self.0.lock().unwrap_or_else(|e| e.into_inner());
        if right {
            all.remove(key);
            return;
        }
        let record = all.entry(key.to_string()).or_default();
        record.running = false;
        record.wrong += 1;
        record.last = Some(now);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn typos_are_free_then_guessing_slows_down() {
        let unlocks = Unlocks::default();
        let start = Instant::now();
        for _ in 0..FREE - 1 {
            unlocks.begin("a", start).unwrap();
            unlocks.end("a", false, start);
        }
        unlocks.begin("a", start).unwrap();
        unlocks.end("a", false, start);
        assert_eq!(
            unlocks.begin("a", start),
            Err(Refused::Wait(Duration::from_secs(1)))
        );
        assert!(
            unlocks.begin("b", start).is_ok(),
            "another identity is not held up"
        );
        let later = start + Duration::from_secs(1);
        unlocks.begin("a", later).unwrap();
        unlocks.end("a", false, later);
        assert_eq!(
            unlocks.begin("a", later),
            Err(Refused::Wait(Duration::from_secs(2)))
        );
        let much_later = later + Duration::from_secs(2);
        unlocks.begin("a", much_later).unwrap();
        unlocks.end("a", true, much_later);
        assert!(
            unlocks.begin("a", much_later).is_ok(),
            "the right password forgets"
        );
    }

    #[test]
    fn one_unlock_at_a_time_and_the_wait_is_bounded() {
        let unlocks = Unlocks::default();
        let now = Instant::now();
        unlocks.begin("a", now).unwrap();
        assert_eq!(unlocks.begin("a", now), Err(Refused::Busy));
        assert_eq!(delay(100), LONGEST);
    }
}
