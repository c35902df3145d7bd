//! The page protocol: every operation of the agent library
//! (`assets/agent/*.js`, its `OPS` table), declared once: its name
//! ([`PageOp`]), its arguments (a struct of [`ops`]) and its reply (a type
//! of [`replies`], named by the struct). A call site cannot build a wrong
//! argument, and a reply that does not have the declared shape is an
//! INTERNAL error naming the operation, never a default value.

pub mod ops;
pub mod replies;

pub use ops::Operation;
pub use replies::*;

use crate::base::error::ToolError;
use serde::de::DeserializeOwned;
use serde::ser::SerializeMap;
use serde::{Deserialize, Serialize, Serializer};
use serde_json::{Map, Value};

/// An operation's arguments as the page reads them: always a JSON object.
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

    /// The page's argument naming it.
    fn argument(&self) -> (&'static str, &str) {
        match self {
            Target::Ref(r) => ("ref", r),
            Target::Selector(s) => ("selector", s),
        }
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
}

/// A target is the one argument naming it: `ref` or `selector`.
impl Serialize for Target {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut map = serializer.serialize_map(Some(1))?;
        let (key, value) = self.argument();
        map.serialize_entry(key, value)?;
        map.end()
    }
}

/// A located target adds its `frame`, when it is in one.
impl Serialize for Located {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut map = serializer.serialize_map(None)?;
        let (key, value) = self.target.argument();
        map.serialize_entry(key, value)?;
        if let Some(frame) = &self.frame {
            map.serialize_entry("frame", frame)?;
        }
        map.end()
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
        assert_eq!(json!(by_ref), json!({"ref": "e5", "frame": "f1"}));
        assert_eq!(by_ref.target.reference(), Some("e5"));
        // The control a label stands for is in the label's frame.
        assert_eq!(
            json!(by_ref.in_same_frame("e9".into())),
            json!({"ref": "e9", "frame": "f1"})
        );
        let top = Located {
            target: Target::named(None, Some("#go")).unwrap(),
            frame: None,
        };
        assert_eq!(json!(top), json!({"selector": "#go"}));
        assert_eq!(top.target.reference(), None);
        assert!(Target::named(None, None).is_err());
        assert!(Target::named(Some("e1"), Some("#a")).is_err());
    }

    /// The names of the agent library's `OPS` table, as written.
    fn js_table() -> Vec<String> {
        let entry = include_str!("../../assets/agent/99-entry.js");
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

    // Regression: an input whose checks do not place it (fill, focus)
    // describes its element without a point.
    #[test]
    fn an_input_followed_up_describes_its_element_without_a_point() {
        let reply = serde_json::json!({
            "point": {"role": "textbox", "name": "Name", "secret": false},
            "result": {"mode": "text", "read": {"value": "Ada"}},
        });
        let after: After<Prepared> = parse(PageOp::Actionable, reply).unwrap();
        assert_eq!(after.point.unwrap().role, "textbox");
        assert_eq!(after.result.mode, "text");
        let undescribed = serde_json::json!({"point": null, "result": {"focused": true}});
        let after: After<Focused> = parse(PageOp::Actionable, undescribed).unwrap();
        assert!(after.point.is_none());
        assert_eq!(after.result.reply["focused"], true);
        assert!(!after.result.caret_by_engine);
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
