//! A drag from one point of a page to another with the left button held,
//! as one step of the main thread: the press, the moves and the release
//! follow each other with the page's own pace between them, and nothing
//! crosses back to the tools until the button is up.

use super::front::deliver;
use crate::base::error::ToolError;
use crate::bridge::{MouseAction, Outcome, BUTTON_LEFT};
use crate::browser::input::trusted;
use crate::browser::input::xtest;
use crate::browser::tab::state::TabState;
use crate::page_protocol::ActionPoint;
use serde_json::json;
use std::rc::Rc;
use std::time::Duration;
use webkit2gtk::WebView;

/// How many moves a drag makes between its ends: sliders and sortable
/// lists follow the pointer, and a jump straight to the end skips them.
const STEPS: u32 = 12;
/// The pause between moves (a frame at 60 Hz).
const STEP_PAUSE: Duration = Duration::from_millis(16);
/// What the drop target is given to answer the drag's last move, and the
/// release, before the next step.
const DROP_PAUSE: Duration = Duration::from_millis(120);

/// Drags from `from` onto `onto`. An element that starts an HTML drag
/// (or any, on the private display, whose pointer is no person's) is
/// dragged with the X server's pointer, which GTK's drag and drop follows;
/// where that cannot be had, mouse events are sent, and the reply says
/// what the page did not get.
pub(crate) async fn drag(
    view: WebView,
    state: Rc<TabState>,
    from: ActionPoint,
    onto: ActionPoint,
    real_pointer: bool,
) -> Result<Outcome, ToolError> {
    let ends = ((from.x, from.y), (onto.x, onto.y));
    let mut note = None;
    if from.draggable || real_pointer {
        match with_the_real_pointer(&view, &state, ends).await {
            Ok(()) => {
                let (real_pointer, note) = (true, None);
                return Ok(Outcome::Dragged { real_pointer, note });
            }
            Err(error) => {
                note = Some(format!(
                    "HTML drag and drop needs the real pointer, which is unavailable ({}); mouse events were sent instead, so pages that rely on drop events did not get them",
                    error.message
                ))
            }
        }
    }
    with_mouse_events(&view, &state, ends).await?;
    let real_pointer = false;
    Ok(Outcome::Dragged { real_pointer, note })
}

/// The point `step` of [`STEPS`] on the way from `from` to `to`.
fn on_the_way(((sx, sy), (gx, gy)): Ends, step: u32) -> (f64, f64) {
    let f = f64::from(step) / f64::from(STEPS);
    (sx + (gx - sx) * f, sy + (gy - sy) * f)
}

type Ends = ((f64, f64), (f64, f64));

/// Press, moves and release as GDK events to the view.
async fn with_mouse_events(
    view: &WebView,
    state: &Rc<TabState>,
    ends: Ends,
) -> Result<(), ToolError> {
    let mouse = |at: (f64, f64), action: MouseAction| {
        deliver(view.clone(), state.clone(), move |view, hands| {
            trusted::mouse(view, hands, at, &action).map(|_| json!({}))
        })
    };
    let button = BUTTON_LEFT;
    let (from, to) = ends;
    mouse(from, MouseAction::Down { button }).await?;
    let moved = async {
        for step in 1..=STEPS {
            glib::timeout_future(STEP_PAUSE).await;
            mouse(on_the_way(ends, step), MouseAction::Move).await?;
        }
        glib::timeout_future(STEP_PAUSE).await;
        Ok::<(), ToolError>(())
    }
    .await;
    // Never leave the button held, whatever happened on the way.
    let released = mouse(to, MouseAction::Up { button }).await;
    moved.and(released).map(drop)
}

/// Press, moves and release with the X server's pointer (XTEST). Fails at
/// once where XTEST is missing, before anything is pressed.
async fn with_the_real_pointer(
    view: &WebView,
    state: &Rc<TabState>,
    ends: Ends,
) -> Result<(), ToolError> {
    let pointer = |(x, y): (f64, f64), button: Option<(u32, bool)>| {
        deliver(view.clone(), state.clone(), move |view, _| {
            xtest::pointer(view, x, y, button).map(|_| json!({}))
        })
    };
    let (from, to) = ends;
    pointer(from, None).await?;
    glib::timeout_future(STEP_PAUSE * 2).await;
    pointer(from, Some((BUTTON_LEFT, true))).await?;
    let moved = async {
        for step in 1..=STEPS {
            glib::timeout_future(STEP_PAUSE * 2).await;
            pointer(on_the_way(ends, step), None).await?;
        }
        // The drop target answers the drag's last move before the release.
        glib::timeout_future(DROP_PAUSE).await;
        Ok::<(), ToolError>(())
    }
    .await;
    let released = pointer(to, Some((BUTTON_LEFT, false))).await;
    glib::timeout_future(DROP_PAUSE).await;
    moved.and(released).map(drop)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_moves_go_evenly_from_one_end_to_the_other() {
        let ends = ((10.0, 100.0), (130.0, 40.0));
        assert_eq!(on_the_way(ends, 0), (10.0, 100.0));
        assert_eq!(on_the_way(ends, STEPS / 2), (70.0, 70.0));
        assert_eq!(on_the_way(ends, STEPS), (130.0, 40.0));
    }
}
