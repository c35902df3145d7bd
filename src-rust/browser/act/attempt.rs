//! The skeleton every element input runs in: its tab, one deadline for
//! all its waits, the element its checks found, and the steps it took
//! (said in its errors). Each step that waits
//! for an element (the first checks, the checks again after a click the
//! page stopped, a drag's goal, the control a label stands for) waits
//! only what is left of the one wait the tool gave.

use super::steps::Steps;
use crate::base::error::ToolError;
use crate::bridge::ElementInput;
use crate::browser::page::script;
use crate::browser::tab::state::TabState;
use crate::page_protocol::ops::{Actionable, ActionableThen, Click, FollowUp};
use crate::page_protocol::{ActionPoint, Described, Located, Operation, PointOrChosen};
use crate::recording::Element;
use std::cell::RefCell;
use std::rc::Rc;
use std::time::{Duration, Instant};
use webkit2gtk::WebView;

pub(super) struct Attempt {
    pub view: WebView,
    pub state: Rc<TabState>,
    /// The wait the tool gave, said in errors.
    wait: Duration,
    deadline: Instant,
    /// What one answer of the page may take (its own waits included).
    limit: Duration,
    /// The element the checks last found, for the recording.
    found: RefCell<Option<Element>>,
    steps: RefCell<Steps>,
}

impl Attempt {
    pub fn new(view: WebView, state: Rc<TabState>, wait: Duration, limit: Duration) -> Attempt {
        Attempt {
            view,
            state,
            wait,
            deadline: Instant::now() + wait,
            limit,
            found: RefCell::new(None),
            steps: RefCell::new(Steps::new()),
        }
    }

    /// Notes a step of the input, for its errors.
    pub fn step(&self, what: impl Into<String>) {
        self.steps.borrow_mut().note(what.into());
    }

    /// `error` with the steps taken before it.
    pub fn explain(&self, error: ToolError) -> ToolError {
        self.steps.borrow().explain(error)
    }

    /// The wait the tool gave.
    pub fn wait(&self) -> Duration {
        self.wait
    }

    /// Whether some of the wait is left.
    pub fn in_time(&self) -> bool {
        Instant::now() < self.deadline
    }

    /// Asks the page `asked`, its reply read as the operation declares it.
    pub async fn ask<O: Operation>(&self, asked: &O) -> Result<O::Reply, ToolError> {
        script::ask(&self.view, &self.state, asked, self.limit).await
    }

    /// The checks `input` waits for on `at`, for what is left of the wait.
    pub fn checks(&self, at: &Located, input: &ElementInput, click: Option<Click>) -> Actionable {
        let left = self.deadline.saturating_duration_since(Instant::now());
        Actionable {
            at: at.clone(),
            checks: input.checks(),
            wait_ms: left.as_millis() as u64,
            click,
        }
    }

    /// Waits until the element `at` names can take a pointer `input`:
    /// where it does.
    pub async fn point(
        &self,
        at: &Located,
        input: &ElementInput,
    ) -> Result<ActionPoint, ToolError> {
        match self.ask(&self.checks(at, input, None)).await? {
            PointOrChosen::Point(point) => {
                self.step(ready(&point.element, Some(&point)));
                Ok(point)
            }
            PointOrChosen::Chosen { .. } => Err(ToolError::internal(
                "the page chose an option where no click was asked",
            )),
        }
    }

    /// Waits until the element `at` names can take `input`, then runs
    /// `then` on it in the same turn; notes the element.
    pub async fn then<T: FollowUp>(
        &self,
        at: &Located,
        input: &ElementInput,
        then: T,
    ) -> Result<T::Reply, ToolError> {
        let asked = ActionableThen::new(self.checks(at, input, None), then);
        let after = self.ask(&asked).await?;
        self.note(after.point.as_ref());
        let element = after.point.unwrap_or_default();
        self.step(format!("{}, then {}", ready(&element, None), T::OP.name()));
        Ok(after.result)
    }

    /// Keeps the element the checks described as the one acted on.
    pub fn note(&self, element: Option<&Described>) {
        *self.found.borrow_mut() = element.and_then(element_of);
    }

    /// The element acted on, if the checks described one.
    pub fn found(&self) -> Option<Element> {
        self.found.take()
    }
}

/// A step that found its element ready (at `point`, for a pointer).
pub(super) fn ready(element: &Described, point: Option<&ActionPoint>) -> String {
    let what = match element.role.as_str() {
        "" => "the element".to_string(),
        role => format!("{role} {:?}", element.name),
    };
    match point {
        Some(p) => format!("{what} ready at ({:.0}, {:.0})", p.x, p.y),
        None => format!("{what} ready"),
    }
}

/// The element as the recording keeps it.
fn element_of(described: &Described) -> Option<Element> {
    (!described.role.is_empty()).then(|| Element {
        r#ref: None,
        role: described.role.clone(),
        name: described.name.clone(),
        secret: described.secret,
        testid: described.testid.clone(),
    })
}
