//! What the page answers to its operations, field by field.

use super::Object;
use serde::Deserialize;
use serde_json::Value;

/// Where an element takes a pointer action, in the top viewport (CSS
/// pixels), and what it is (point, actionable).
#[derive(Debug, Clone, Deserialize)]
pub struct ActionPoint {
    pub x: f64,
    pub y: f64,
    /// It starts an HTML drag (draggable="true" on it or an ancestor).
    #[serde(default)]
    pub draggable: bool,
    #[serde(flatten)]
    pub element: Described,
}

/// An element as the snapshot names it (`described`); a password field
/// is marked, so that what is typed into it stays out of recordings.
#[derive(Debug, Clone, Default, Deserialize)]
pub struct Described {
    #[serde(default)]
    pub role: String,
    #[serde(default)]
    pub name: String,
    #[serde(default)]
    pub secret: bool,
    #[serde(default)]
    pub testid: Option<String>,
}

/// What `actionable` answers when another operation ran after its checks:
/// where the element was, and that operation's reply.
#[derive(Debug, Clone, Deserialize)]
pub struct After<T> {
    /// The element the checks found (none when it was not described).
    #[serde(default)]
    pub point: Option<Described>,
    pub result: T,
}

/// `focus`: whether the element took the focus, and whether only the
/// engine can put its caret after the content (email and number fields).
#[derive(Debug, Clone, Deserialize)]
pub struct Focused {
    #[serde(default)]
    pub caret_by_engine: bool,
    /// The rest, answered as it is.
    #[serde(flatten)]
    pub reply: Object,
}

/// `intercepted`: what a click reached instead of its target, if it did.
#[derive(Debug, Clone, Deserialize)]
pub struct Intercepted {
    pub missed: Option<String>,
    /// The page removed the pressed node before the release: no click fired.
    #[serde(default)]
    pub lost: bool,
    /// The element the release landed on, when the target had replaced
    /// itself by then (as a rich editor's placeholder does on focus).
    #[serde(default)]
    pub ended_on: Option<String>,
}

/// What `actionable` with `choose` answers: a point, or the
/// options of a drop-down chosen in its place.
#[derive(Debug, Clone, Deserialize)]
#[serde(untagged)]
pub enum PointOrChosen {
    Chosen { chosen: Value },
    Point(ActionPoint),
}

/// How a field takes a value: typed as text, or set by script.
#[derive(Debug, Clone, Deserialize)]
pub struct Prepared {
    pub mode: String,
    /// The page could not put the caret after the content (email and
    /// number inputs have no selection API): the engine must.
    #[serde(default)]
    pub caret_by_engine: bool,
    /// An <input>'s type, for saying why it refused a value.
    #[serde(default)]
    pub input_type: Option<String>,
    /// `fill`: the field's value read back once it took the new one, as
    /// `get_value` reads it.
    #[serde(default)]
    pub read: Option<Object>,
}

/// `query`: whether a selector matches, and the ref it got.
#[derive(Debug, Clone, Deserialize)]
pub struct Query {
    pub found: bool,
    pub visible: bool,
    #[serde(default)]
    pub r#ref: Option<String>,
}

/// `has_text`: whether the page shows a text.
#[derive(Debug, Clone, Deserialize)]
pub struct HasText {
    pub found: bool,
    #[serde(default)]
    pub length: u64,
    #[serde(default)]
    pub start: String,
}

/// `checkable`: a checkbox, radio or switch and its state.
#[derive(Debug, Clone, Deserialize)]
pub struct Checkable {
    /// true, false or "mixed".
    pub checked: Value,
    pub radio: bool,
    /// The control's own ref (the target may have been its label).
    pub r#ref: String,
}

/// `file_input`: the file input a target names.
#[derive(Debug, Clone, Deserialize)]
pub struct FileInput {
    pub r#ref: String,
    /// None for a control that opens some input's chooser when clicked.
    pub multiple: Option<bool>,
    /// That control, described, when it is not a file input itself.
    pub opener: Option<String>,
    /// The page's watch for the files, to ask `chosen_files` with.
    pub watch: Option<u64>,
}

/// `chosen_files`: what a file input holds.
#[derive(Debug, Clone, Deserialize)]
pub struct ChosenFiles {
    pub files: Vec<Value>,
    /// The file input that took them.
    pub input: Option<String>,
}

/// `annotations`: the interactive elements in view, boxed and labelled.
#[derive(Debug, Clone, Deserialize)]
pub struct Annotations {
    pub marks: Vec<AnnotationMark>,
}

#[derive(Debug, Clone, Deserialize)]
pub struct AnnotationMark {
    pub r#ref: String,
    /// The legend's line for it.
    pub line: String,
    pub x: f64,
    pub y: f64,
    pub width: f64,
    pub height: f64,
}

/// `snapshot`: the tree as text, and the document it is of.
#[derive(Debug, Clone, Deserialize)]
pub struct Snapshot {
    pub text: String,
    pub document: String,
}

/// `settle`: the view once it came to rest.
#[derive(Debug, Clone, Deserialize)]
pub struct View {
    pub width: f64,
    pub height: f64,
    #[serde(rename = "scrollX")]
    pub scroll_x: f64,
    #[serde(rename = "scrollY")]
    pub scroll_y: f64,
    /// The scrolling box that moved (its ref and position), if one did.
    #[serde(default)]
    pub pane: Option<Value>,
}

/// `page_info`: the document as it is now, even mid-load.
#[derive(Debug, Clone, Deserialize)]
pub struct PageInfo {
    #[serde(default)]
    pub url: String,
    #[serde(default)]
    pub title: String,
    /// The document's readyState.
    #[serde(default)]
    pub ready: String,
    #[serde(default)]
    pub width: f64,
    #[serde(default)]
    pub height: f64,
    #[serde(rename = "scrollX", default)]
    pub scroll_x: f64,
    #[serde(rename = "scrollY", default)]
    pub scroll_y: f64,
}
