//! An input on an element (`Command::Act`): what it is, the checks it
//! waits for, and what it did.

use crate::recording::Element;
use serde_json::{json, Value};
use zeroize::Zeroizing;

/// An input on an element, as `Command::Act` does it.
#[derive(Debug, Clone)]
pub enum ElementInput {
    /// Clicks of `button` (2: a double click), with `modifiers` (a chord
    /// such as "Control+Shift") held; a left click on an option of a
    /// drop-down <select> chooses it as from its menu.
    Click {
        count: u32,
        button: u32,
        modifiers: Option<String>,
    },
    Hover,
    /// Replace a field's value (fill), then press Enter in it when
    /// `submit`.
    Fill {
        value: String,
        submit: bool,
        /// The value is a vault entry's secret (`value` is then empty).
        vault: Option<VaultFill>,
    },
    /// Type after a field's value, key by key, then press Enter in it when
    /// `submit`.
    Type {
        text: String,
        submit: bool,
    },
    /// Choose a <select>'s options by value or text (none: the option
    /// element the target names).
    Select {
        values: Option<Vec<String>>,
    },
    ScrollIntoView,
    /// Focus the element; a text field's caret goes after its value.
    Focus,
    /// Check (`want`) or uncheck a checkbox or radio button (or the
    /// control a label names) by clicking it, unless it is so already, and
    /// read it back.
    Check {
        want: bool,
    },
    /// Put `files` (paths the files folder holds) in the file input the
    /// target names, or the one the control it names opens: its chooser,
    /// opened by a click as a person's, is answered with them. `expect`
    /// describes them (name and size) for the page to tell when the input
    /// holds them.
    Upload {
        files: Vec<String>,
        expect: Value,
    },
    /// Drag the element with the left button held onto the element `to`
    /// names in the same frame, with the X server's own pointer when
    /// `real_pointer` (the browser's private display, whose pointer is no
    /// person's) or when the element starts an HTML drag.
    Drag {
        to: crate::page_protocol::Target,
        real_pointer: bool,
    },
}

/// A fill with a vault entry's secret: the secret, and the entry's
/// origins, one of which the field's own document must have. Never printed.
#[derive(Clone)]
pub struct VaultFill {
    pub value: Zeroizing<String>,
    pub origins: Vec<String>,
}

impl std::fmt::Debug for VaultFill {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("VaultFill")
            .field("origins", &self.origins)
            .finish_non_exhaustive()
    }
}

/// The editing command that puts the caret after the focused text
/// field's content (in email and number fields too, which have no
/// selection API).
pub const CARET_TO_END: &str = "MoveToEndOfDocument";

/// What an element must be before an input reaches it (see
/// `assets/agent/57-actionable.js`).
pub mod check {
    pub const VISIBLE: &str = "visible";
    pub const STABLE: &str = "stable";
    pub const ENABLED: &str = "enabled";
    pub const EDITABLE: &str = "editable";
    /// The topmost element at the input's point is it or inside it.
    pub const HIT: &str = "hit";
}

impl ElementInput {
    /// The checks that must pass before this input is sent, as Playwright
    /// makes them for the same actions.
    pub fn checks(&self) -> &'static [&'static str] {
        use check::*;
        match self {
            ElementInput::Click { .. }
            | ElementInput::Check { .. }
            | ElementInput::Upload { .. } => &[VISIBLE, STABLE, ENABLED, HIT],
            ElementInput::Hover | ElementInput::Drag { .. } => &[VISIBLE, STABLE, HIT],
            ElementInput::Fill { .. } | ElementInput::Type { .. } => &[VISIBLE, ENABLED, EDITABLE],
            // A native <select> hidden under a custom drop-down is still chosen.
            ElementInput::Select { .. } => &[ENABLED],
            ElementInput::ScrollIntoView => &[VISIBLE, STABLE],
            // As the DOM's focus(): whatever state the element is in.
            ElementInput::Focus => &[],
        }
    }
}

/// What an element input did, and the element its checks found (for the
/// recording; the tools take it out of what they answer).
#[derive(Debug, Clone)]
pub struct Acted {
    pub outcome: Outcome,
    pub element: Option<Element>,
}

/// What an element input did, as the main thread saw it happen.
#[derive(Debug, Clone, PartialEq)]
pub enum Outcome {
    /// Clicks reached the element at this point of the viewport.
    Clicked { at: (f64, f64), landed: Landed },
    /// The pointer rests on the element at this point.
    Hovered { at: (f64, f64) },
    /// A plain click on a drop-down's option chose it, by script (as
    /// from its menu).
    Chosen { options: Value },
    /// A checkbox or radio button is `checked` (none: the click started a
    /// navigation, and it was not read back).
    Checked {
        checked: Option<bool>,
        changed: bool,
    },
    /// The file input `input` holds `files` (of `given`), through the
    /// control that opened it when `opened_by` says which input took them.
    Uploaded {
        input: String,
        files: Vec<Value>,
        given: usize,
        opened_by: Option<Option<String>>,
    },
    /// The button went up over the drop target: with the X server's own
    /// pointer, or with mouse events (`note`: what the page missed).
    Dragged {
        real_pointer: bool,
        note: Option<String>,
    },
    /// A field's value read back after fill, type or select; `by_script`:
    /// the page's input and change events were not trusted ones.
    Field { value: Value, by_script: bool },
    /// The element in the middle of the view: its box.
    Shown(Value),
    /// The element has the focus.
    Focused(Value),
}

/// Where a click's release landed.
#[derive(Debug, Clone, PartialEq)]
pub enum Landed {
    /// On the element pressed.
    OnTarget,
    /// On what the element replaced itself with as it was pressed (it
    /// took focus and became an editor, say), as a person's would.
    EndedOn(String),
    /// Nowhere: the page replaced the element between press and release,
    /// so no click event fired.
    Lost,
}

impl Outcome {
    /// The outcome as the tools answer it.
    pub fn into_json(self) -> Value {
        match self {
            Outcome::Clicked { at, landed } => {
                let mut reply = json!({"x": at.0, "y": at.1});
                match landed {
                    Landed::OnTarget => {}
                    Landed::EndedOn(other) => {
                        reply["ended_on"] = other.into();
                        reply["note"] = "the element replaced itself as it was pressed; the release landed on what replaced it (ended_on), as a person's would".into();
                    }
                    Landed::Lost => {
                        reply["note"] = "the page replaced the element between press and release (it rendered it anew), so no click event fired; take a snapshot and click again if nothing happened".into();
                    }
                }
                reply
            }
            Outcome::Hovered { at } => json!({"x": at.0, "y": at.1}),
            Outcome::Chosen { options } => json!({"chosen": options, "trusted_events": false}),
            Outcome::Checked { checked, changed } => {
                json!({"checked": checked, "changed": changed})
            }
            Outcome::Uploaded {
                input,
                files,
                given,
                opened_by,
            } => {
                let took = files.len();
                let mut reply = json!({"ref": input, "files": files});
                if let Some(by) = opened_by {
                    reply["input"] = by.into();
                }
                if took < given {
                    reply["note"] = format!(
                        "the chooser took {took} of the {given} files (it takes one at a time)"
                    )
                    .into();
                }
                reply
            }
            Outcome::Dragged { real_pointer, note } => {
                let input = if real_pointer { "xtest" } else { "gdk" };
                let mut reply = json!({"dragged": true, "input": input});
                if let Some(note) = note {
                    reply["note"] = note.into();
                }
                reply
            }
            Outcome::Field {
                mut value,
                by_script,
            } => {
                if let (Value::Object(field), true) = (&mut value, by_script) {
                    field.insert("trusted_events".into(), false.into());
                }
                value
            }
            Outcome::Shown(shown) => shown,
            Outcome::Focused(focused) => focused,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_click_says_where_its_release_landed() {
        let plain = Outcome::Clicked {
            at: (3.0, 4.5),
            landed: Landed::OnTarget,
        };
        assert_eq!(plain.into_json(), json!({"x": 3.0, "y": 4.5}));
        let replaced = Outcome::Clicked {
            at: (1.0, 2.0),
            landed: Landed::EndedOn("textbox \"Body\"".into()),
        }
        .into_json();
        assert_eq!(replaced["ended_on"], "textbox \"Body\"");
        assert!(replaced["note"].as_str().unwrap().contains("ended_on"));
        let lost = Outcome::Clicked {
            at: (1.0, 2.0),
            landed: Landed::Lost,
        }
        .into_json();
        assert!(lost.get("ended_on").is_none());
        assert!(lost["note"]
            .as_str()
            .unwrap()
            .contains("no click event fired"));
    }

    #[test]
    fn script_set_values_say_their_events_were_not_trusted() {
        let typed = Outcome::Field {
            value: json!({"value": "a"}),
            by_script: false,
        };
        assert_eq!(typed.into_json(), json!({"value": "a"}));
        let set = Outcome::Field {
            value: json!({"value": "2026-01-01"}),
            by_script: true,
        };
        assert_eq!(
            set.into_json(),
            json!({"value": "2026-01-01", "trusted_events": false})
        );
        let chosen = Outcome::Chosen {
            options: json!(["b"]),
        };
        assert_eq!(
            chosen.into_json(),
            json!({"chosen": ["b"], "trusted_events": false})
        );
    }

    #[test]
    fn a_check_an_upload_and_a_drag_answer_what_they_did() {
        let navigated = Outcome::Checked {
            checked: None,
            changed: true,
        };
        assert_eq!(
            navigated.into_json(),
            json!({"checked": null, "changed": true})
        );
        let one_at_a_time = Outcome::Uploaded {
            input: "e4".into(),
            files: vec![json!({"name": "a.txt"})],
            given: 2,
            opened_by: Some(Some("e9".into())),
        }
        .into_json();
        assert_eq!(one_at_a_time["ref"], "e4");
        assert_eq!(one_at_a_time["input"], "e9");
        assert_eq!(
            one_at_a_time["note"],
            "the chooser took 1 of the 2 files (it takes one at a time)"
        );
        let direct = Outcome::Uploaded {
            input: "e4".into(),
            files: vec![json!({"name": "a.txt"})],
            given: 1,
            opened_by: None,
        };
        assert_eq!(
            direct.into_json(),
            json!({"ref": "e4", "files": [{"name": "a.txt"}]})
        );
        let dragged = Outcome::Dragged {
            real_pointer: false,
            note: None,
        };
        assert_eq!(
            dragged.into_json(),
            json!({"dragged": true, "input": "gdk"})
        );
    }
}
