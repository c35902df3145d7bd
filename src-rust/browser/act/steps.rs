//! What an element input did so far, said in its errors (Playwright's call
//! log): a check that would not take, a page that stopped answering after
//! the click, read with the steps before it.

use crate::base::error::{ErrorCode, ToolError};
use std::time::{Duration, Instant};

/// The most steps an error says: the first and the last ones.
const STEPS_SAID: usize = 8;

pub(super) struct Steps {
    started: Instant,
    /// Each step and when it was done, from the start.
    done: Vec<(Duration, String)>,
}

impl Steps {
    pub fn new() -> Steps {
        Steps {
            started: Instant::now(),
            done: Vec::new(),
        }
    }

    /// Notes a step, unless it is the one just noted.
    pub fn note(&mut self, step: String) {
        if self.done.last().is_some_and(|(_, last)| *last == step) {
            return;
        }
        self.done.push((self.started.elapsed(), step));
    }

    /// `error` with the steps before it, when it is one a person reads
    /// them for (an element that did not take the input, a page that did
    /// not answer) and some were done.
    pub fn explain(&self, mut error: ToolError) -> ToolError {
        let said = matches!(error.code, ErrorCode::NotInteractable | ErrorCode::Timeout);
        if said && !self.done.is_empty() {
            error.message = format!("{}; before that: {}", error.message, self.said());
        }
        error
    }

    /// The steps as an error says them; the middle of a long list left out.
    fn said(&self) -> String {
        let step = |(at, what): &(Duration, String)| format!("{} ms {what}", at.as_millis());
        let n = self.done.len();
        if n <= STEPS_SAID {
            return self
                .done
                .iter()
                .map(step)
                .collect::<Vec<_>>()
                .join(", then ");
        }
        let head = self.done[..2].iter().map(step);
        let tail = self.done[n - (STEPS_SAID - 2)..].iter().map(step);
        let (head, tail): (Vec<_>, Vec<_>) = (head.collect(), tail.collect());
        format!(
            "{}, then ..., then {}",
            head.join(", then "),
            tail.join(", then ")
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn steps(names: &[&str]) -> Steps {
        let mut steps = Steps::new();
        for name in names {
            steps.note(name.to_string());
        }
        steps
    }

    fn without_times(message: &str) -> String {
        message
            .split(' ')
            .filter(|word| word.parse::<u64>().is_err() && *word != "ms")
            .collect::<Vec<_>>()
            .join(" ")
    }

    #[test]
    fn an_error_after_some_steps_says_them_in_order() {
        let log = steps(&["checkbox \"News\" ready", "clicked", "read back"]);
        let error = log.explain(ToolError::new(
            ErrorCode::NotInteractable,
            "clicking did not check it",
        ));
        assert_eq!(
            without_times(&error.message),
            "clicking did not check it; before that: checkbox \"News\" ready, then clicked, then read back"
        );
        let waited = log.explain(ToolError::timeout("the page did not answer within 2000 ms"));
        assert!(
            waited.message.contains("before that:"),
            "{}",
            waited.message
        );
    }

    #[test]
    fn other_errors_and_errors_before_any_step_are_as_they_were() {
        let bad = ToolError::invalid_params("a radio button cannot be unchecked");
        let log = steps(&["clicked"]);
        assert_eq!(
            log.explain(bad).message,
            "a radio button cannot be unchecked"
        );
        let first = ToolError::new(ErrorCode::NotInteractable, "element is disabled");
        assert_eq!(Steps::new().explain(first).message, "element is disabled");
    }

    #[test]
    fn a_step_again_is_noted_once_and_a_long_log_keeps_its_ends() {
        let log = steps(&["ready", "ready", "clicked"]);
        assert_eq!(log.done.len(), 2);
        let many: Vec<String> = (1..=20).map(|n| format!("step{n}")).collect();
        let many: Vec<&str> = many.iter().map(String::as_str).collect();
        let said = without_times(&steps(&many).said());
        assert_eq!(
            said,
            "step1, then step2, then ..., then step15, then step16, then step17, then step18, then step19, then step20"
        );
    }
}
