//! The page protocol: every operation of the agent library
//! (`assets/agent/*.js`, its `OPS` table), declared once, and the replies
//! that tools read field by field. A reply that does not have the shape
//! declared here is an INTERNAL error naming the operation, never a
//! default value.

use crate::base::error::ToolError;
use serde::de::DeserializeOwned;
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

/// An operation's arguments: always a JSON object.
pub type Args = Map<String, Value>;

/// A reply passed on as it is: always a JSON object, so that a tool may add
/// fields to it.
pub type Object = Map<String, Value>;

/// The element a tool names: a ref from a snapshot, or a CSS selector.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Target {
    Ref(String),
    Selector(String),
}

/// A target in one frame of the page: `frame` as `frame_select` named it
/// (none: the top document).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Located {
    pub target: Target,
    pub frame: Option<String>,
}

impl Target {
    /// The one of `reference` and `selector` that is given.
    pub fn named(reference: Option<&str>, selector: Option<&str>) -> Result<Target, ToolError> {
        match (reference, selector) {
            (Some(r), None) => Ok(Target::Ref(r.to_string())),
            (None, Some(s)) => Ok(Target::Selector(s.to_string())),
            (Some(_), Some(_)) => Err(ToolError::invalid_params(
                "give either ref or selector, not both",
            )),
            (None, None) => Err(ToolError::invalid_params(
                "give ref (e.g. e5 from snapshot) or selector (CSS)",
            )),
        }
    }

    /// The ref it names, if it names one.
    pub fn reference(&self) -> Option<&str> {
        match self {
            Target::Ref(r) => Some(r),
            Target::Selector(_) => None,
        }
    }

    /// The page's arguments naming it.
    pub fn args(&self) -> Args {
        let (key, value) = match self {
            Target::Ref(r) => ("ref", r),
            Target::Selector(s) => ("selector", s),
        };
        Args::from_iter([(key.into(), value.as_str().into())])
    }
}

impl Located {
    /// The element `r#ref` names in the same frame: the control a label
    /// or an opener stands for.
    pub fn in_same_frame(&self, r#ref: String) -> Located {
        Located {
            target: Target::Ref(r#ref),
            frame: self.frame.clone(),
        }
    }

    /// The page's arguments naming it, and its frame.
    pub fn args(&self) -> Args {
        let mut args = self.target.args();
        if let Some(frame) = &self.frame {
            args.insert("frame".into(), frame.as_str().into());
        }
        args
    }
}

/// The operations of the agent library.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum PageOp {
    Snapshot,
    Text,
    Html,
    Attr,
    /// Waits until an element can take an input (see `assets/agent/57-actionable.js`).
    Actionable,
    /// What the last checked click reached instead of its target.
    Intercepted,
    Focus,
    PrepareFill,
    PrepareType,
    Value,
    Scroll,
    /// Waits on the page's events until the view settles (`assets/agent/66-settling.js`).
    Settle,
    Query,
    Find,
    PageInfo,
    State,
    Checkable,
    ScrollIntoView,
    Select,
    HasText,
    Focused,
    Storage,
    Highlight,
    FileInput,
    ChosenFiles,
    Annotations,
    FrameTarget,
    Network,
    #[serde(rename = "indexeddb")]
    IndexedDb,
    Eval,
    /// axe-core's audit of the page (`assets/agent/86-audit.js`).
    Audit,
}

impl PageOp {
    pub const ALL: &'static [PageOp] = &[
        PageOp::Snapshot,
        PageOp::Text,
        PageOp::Html,
        PageOp::Attr,
        PageOp::Actionable,
        PageOp::Intercepted,
        PageOp::Focus,
        PageOp::PrepareFill,
        PageOp::PrepareType,
        PageOp::Value,
        PageOp::Scroll,
        PageOp::Settle,
        PageOp::Query,
        PageOp::Find,
        PageOp::PageInfo,
        PageOp::State,
        PageOp::Checkable,
        PageOp::ScrollIntoView,
        PageOp::Select,
        PageOp::HasText,
        PageOp::Focused,
        PageOp::Storage,
        PageOp::Highlight,
        PageOp::FileInput,
        PageOp::ChosenFiles,
        PageOp::Annotations,
        PageOp::FrameTarget,
        PageOp::Network,
        PageOp::IndexedDb,
        PageOp::Eval,
        PageOp::Audit,
    ];

    /// The name the agent library's `OPS` table knows it by.
    pub fn name(self) -> &'static str {
        match self {
            PageOp::Snapshot => "snapshot",
            PageOp::Text => "text",
            PageOp::Html => "html",
            PageOp::Attr => "attr",
            PageOp::Actionable => "actionable",
            PageOp::Intercepted => "intercepted",
            PageOp::Focus => "focus",
            PageOp::PrepareFill => "prepare_fill",
            PageOp::PrepareType => "prepare_type",
            PageOp::Value => "value",
            PageOp::Scroll => "scroll",
            PageOp::Settle => "settle",
            PageOp::Query => "query",
            PageOp::Find => "find",
            PageOp::PageInfo => "page_info",
            PageOp::State => "state",
            PageOp::Checkable => "checkable",
            PageOp::ScrollIntoView => "scroll_into_view",
            PageOp::Select => "select",
            PageOp::HasText => "has_text",
            PageOp::Focused => "focused",
            PageOp::Storage => "storage",
            PageOp::Highlight => "highlight",
            PageOp::FileInput => "file_input",
            PageOp::ChosenFiles => "chosen_files",
            PageOp::Annotations => "annotations",
            PageOp::FrameTarget => "frame_target",
            PageOp::Network => "network",
            PageOp::IndexedDb => "indexeddb",
            PageOp::Eval => "eval",
            PageOp::Audit => "audit",
        }
    }
}

/// Arguments from a `json!({...})` literal (anything else: none).
pub fn args(literal: Value) -> Args {
    match literal {
        Value::Object(map) => map,
        _ => Args::new(),
    }
}

/// Reads an operation's reply as `R`; INTERNAL, naming the op, when it
/// has another shape.
pub fn parse<R: DeserializeOwned>(op: PageOp, reply: Value) -> Result<R, ToolError> {
    serde_json::from_value(reply).map_err(|e| {
        ToolError::internal(format!(
            "the page's answer to {} did not have the expected shape: {e}",
            op.name()
        ))
    })
}

/// Where an element takes a pointer action, in the top viewport (CSS
/// pixels), and what it is (point, actionable).
#[derive(Debug, Clone, Deserialize)]
pub struct ActionPoint {
    pub x: f64,
    pub y: f64,
    #[serde(default)]
    pub role: String,
    #[serde(default)]
    pub name: String,
    /// It starts an HTML drag (draggable="true" on it or an ancestor).
    #[serde(default)]
    pub draggable: bool,
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

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn a_target_names_its_element_and_frame_to_the_page() {
        let by_ref = Located {
            target: Target::named(Some("e5"), None).unwrap(),
            frame: Some("f1".into()),
        };
        assert_eq!(
            Value::Object(by_ref.args()),
            json!({"ref": "e5", "frame": "f1"})
        );
        assert_eq!(by_ref.target.reference(), Some("e5"));
        // The control a label stands for is in the label's frame.
        assert_eq!(
            Value::Object(by_ref.in_same_frame("e9".into()).args()),
            json!({"ref": "e9", "frame": "f1"})
        );
        let top = Located {
            target: Target::named(None, Some("#go")).unwrap(),
            frame: None,
        };
        assert_eq!(Value::Object(top.args()), json!({"selector": "#go"}));
        assert_eq!(top.target.reference(), None);
        assert!(Target::named(None, None).is_err());
        assert!(Target::named(Some("e1"), Some("#a")).is_err());
    }

    /// The names of the agent library's `OPS` table, as written.
    fn js_table() -> Vec<String> {
        let entry = include_str!("../assets/agent/99-entry.js");
        let start = entry.find("const OPS = new Map([").expect("the OPS table");
        let end = start + entry[start..].find("]);").expect("its end");
        entry[start..end]
            .lines()
            .filter_map(|line| {
                let line = line.trim();
                let rest = line.strip_prefix("['")?;
                Some(rest[..rest.find('\'')?].to_string())
            })
            .collect()
    }

    #[test]
    fn the_js_table_has_exactly_the_declared_operations() {
        let mut declared: Vec<&str> = PageOp::ALL.iter().map(|op| op.name()).collect();
        let mut table = js_table();
        declared.sort_unstable();
        table.sort_unstable();
        assert_eq!(table, declared);
    }

    #[test]
    fn names_are_what_serde_writes() {
        for op in PageOp::ALL {
            assert_eq!(serde_json::to_value(op).unwrap(), op.name());
        }
    }

    #[test]
    fn a_reply_of_another_shape_names_the_op() {
        let error =
            parse::<ActionPoint>(PageOp::Actionable, serde_json::json!({"y": 1})).unwrap_err();
        assert_eq!(error.code, crate::base::error::ErrorCode::Internal);
        assert!(error.message.contains("actionable"), "{}", error.message);
        assert!(error.message.contains("x"), "{}", error.message);
    }

    #[test]
    fn a_point_or_the_options_chosen() {
        let chosen: PointOrChosen =
            parse(PageOp::Actionable, serde_json::json!({"chosen": ["a"]})).unwrap();
        assert!(matches!(chosen, PointOrChosen::Chosen { .. }));
        let point: PointOrChosen = parse(
            PageOp::Actionable,
            serde_json::json!({"x": 1.5, "y": 2, "role": "button"}),
        )
        .unwrap();
        assert!(matches!(point, PointOrChosen::Point(ActionPoint { x, .. }) if x == 1.5));
    }
}
