//! The operations' arguments: one type per operation of the agent library,
//! naming its reply (mini-redis's `Get` and `Set`). The page reads the
//! fields by these names (`assets/agent/*.js`); the tests below hold each
//! to the JSON the page reads.

use super::replies;
use super::{Args, Located, Object, PageOp, Target};
use schemars::JsonSchema;
use serde::de::DeserializeOwned;
use serde::{Deserialize, Serialize};
use serde_json::Value;

/// One operation: its arguments are `Self`'s fields, its answer a `Reply`.
pub trait Operation: Serialize {
    const OP: PageOp;
    type Reply: DeserializeOwned;

    /// The arguments as the page reads them.
    fn args(&self) -> Args {
        match serde_json::to_value(self) {
            Ok(Value::Object(args)) => args,
            // Serializing these plain structs cannot fail, and one without
            // fields has no arguments.
            _ => Args::new(),
        }
    }
}

/// An operation `actionable` runs in the same turn as its last check,
/// on the element the checks found (see [`ActionableThen`]).
pub trait FollowUp: Serialize {
    const OP: PageOp;
    type Reply: DeserializeOwned;
}

/// `snapshot`: the page's accessibility tree as text, or an element's.
#[derive(Debug, Serialize)]
pub struct Snapshot {
    /// Only what takes input, and the text around it.
    pub interactive: bool,
    /// Wrappers without a role or name left out.
    pub compact: bool,
    /// The element whose subtree it is (none: the document).
    #[serde(flatten)]
    pub root: Option<Target>,
    pub max_chars: u64,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub depth: Option<u32>,
    /// Headings and landmarks only.
    pub outline: bool,
}

impl Operation for Snapshot {
    const OP: PageOp = PageOp::Snapshot;
    type Reply = replies::Snapshot;
}

/// `text`: an element's visible text (a field's value; passwords masked).
#[derive(Debug, Serialize)]
pub struct Text(pub Target);

impl Operation for Text {
    const OP: PageOp = PageOp::Text;
    type Reply = String;
}

/// `html`: an element's inner HTML.
#[derive(Debug, Serialize)]
pub struct Html(pub Target);

impl Operation for Html {
    const OP: PageOp = PageOp::Html;
    type Reply = String;
}

/// `attr`: one attribute of an element, `{attr, value}`.
#[derive(Debug, Serialize)]
pub struct Attr {
    #[serde(flatten)]
    pub target: Target,
    pub attr: String,
}

impl Operation for Attr {
    const OP: PageOp = PageOp::Attr;
    type Reply = Object;
}

/// `value`: a field's value as `get_value` reads it.
#[derive(Debug, Serialize)]
pub struct ReadValue(pub Located);

impl Operation for ReadValue {
    const OP: PageOp = PageOp::Value;
    type Reply = Object;
}

/// `query`: whether a selector matches a visible element.
#[derive(Debug, Serialize)]
pub struct Query {
    pub selector: String,
}

impl Operation for Query {
    const OP: PageOp = PageOp::Query;
    type Reply = replies::Query;
}

/// `has_text`: whether the page shows a text.
#[derive(Debug, Serialize)]
pub struct HasText {
    pub text: String,
}

impl Operation for HasText {
    const OP: PageOp = PageOp::HasText;
    type Reply = replies::HasText;
}

/// `find`: one element by what a person sees; `what` names it in errors.
#[derive(Debug, Serialize)]
pub struct Find {
    #[serde(flatten)]
    pub by: By,
    pub what: String,
}

impl Operation for Find {
    const OP: PageOp = PageOp::Find;
    type Reply = Object;
}

/// How `find` looks for its element.
#[derive(Debug, Serialize)]
#[serde(tag = "by", rename_all = "lowercase")]
pub enum By {
    Role {
        role: String,
        name: Option<String>,
        exact: Option<bool>,
    },
    Text {
        text: String,
        exact: Option<bool>,
    },
    Label {
        label: String,
    },
    Placeholder {
        placeholder: String,
    },
    Alt {
        alt: String,
    },
    Title {
        title: String,
    },
    Testid {
        testid: String,
    },
    First {
        selector: String,
    },
    Last {
        selector: String,
    },
    Nth {
        n: u32,
        selector: String,
    },
}

/// `page_info`: the document's address, title and state, even mid-load.
#[derive(Debug, Serialize)]
pub struct PageInfo {}

impl Operation for PageInfo {
    const OP: PageOp = PageOp::PageInfo;
    type Reply = replies::PageInfo;
}

/// `state`: one reading of an element (or a count of matches).
#[derive(Debug, Serialize)]
#[serde(tag = "what", rename_all = "snake_case")]
pub enum State {
    Value(Target),
    Count {
        selector: String,
    },
    Box(Target),
    Styles {
        #[serde(flatten)]
        target: Target,
        /// None: a common set.
        properties: Option<Vec<String>>,
    },
    Visible(Target),
    Enabled(Target),
    Checked(Target),
}

impl Operation for State {
    const OP: PageOp = PageOp::State;
    type Reply = Value;
}

/// `scroll`: the page by `amount` CSS pixels.
#[derive(Debug, Serialize)]
pub struct Scroll {
    pub direction: Direction,
    pub amount: u32,
}

impl Operation for Scroll {
    const OP: PageOp = PageOp::Scroll;
    type Reply = Value;
}

// Described where a tool's parameters use it: its schema is in tools/list.
#[derive(Debug, Clone, Copy, Deserialize, Serialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum Direction {
    Up,
    Down,
    Left,
    Right,
}

/// `settle`: waits on the page's events until its view comes to rest.
#[derive(Debug, Serialize)]
#[serde(untagged)]
pub enum Settle {
    /// Until the page has the viewport's new size.
    Viewport {
        width: u32,
        height: u32,
        limit_ms: u64,
    },
    /// Until a scroll that may start within `start_ms` ends.
    Scroll { start_ms: u64, limit_ms: u64 },
}

impl Operation for Settle {
    const OP: PageOp = PageOp::Settle;
    type Reply = replies::View;
}

/// `focused`: the focused element and its value.
#[derive(Debug, Serialize)]
pub struct Focused {}

impl Operation for Focused {
    const OP: PageOp = PageOp::Focused;
    type Reply = Value;
}

/// `storage`: one action on the document's web storage.
#[derive(Debug, Serialize)]
pub struct Storage {
    pub area: StorageArea,
    #[serde(flatten)]
    pub action: StorageAction,
}

impl Operation for Storage {
    const OP: PageOp = PageOp::Storage;
    type Reply = Value;
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum StorageArea {
    Local,
    Session,
}

#[derive(Debug, Serialize)]
#[serde(tag = "action", rename_all = "snake_case")]
pub enum StorageAction {
    Get,
    GetKey { key: String },
    Set { key: String, value: String },
    Clear,
}

/// `indexeddb`: the origin's databases read whole, or written back.
#[derive(Debug, Serialize)]
#[serde(tag = "action", rename_all = "lowercase")]
pub enum IndexedDb {
    Dump,
    Restore { databases: Value },
}

impl Operation for IndexedDb {
    const OP: PageOp = PageOp::IndexedDb;
    type Reply = Value;
}

/// `highlight`: an element outlined for `ms` (0: kept).
#[derive(Debug, Serialize)]
pub struct Highlight {
    #[serde(flatten)]
    pub target: Target,
    pub ms: Option<u64>,
}

impl Operation for Highlight {
    const OP: PageOp = PageOp::Highlight;
    type Reply = Value;
}

/// `annotations`: the interactive elements in view, boxed and labelled.
#[derive(Debug, Serialize)]
pub struct Annotations {}

impl Operation for Annotations {
    const OP: PageOp = PageOp::Annotations;
    type Reply = replies::Annotations;
}

/// `frame_target`: the frame an iframe element holds, for frame_switch.
#[derive(Debug, Serialize)]
pub struct FrameTarget(pub Target);

impl Operation for FrameTarget {
    const OP: PageOp = PageOp::FrameTarget;
    type Reply = Object;
}

/// `network`: tells the page and its frames they went offline or online.
#[derive(Debug, Serialize)]
pub struct Network {
    pub offline: bool,
}

impl Operation for Network {
    const OP: PageOp = PageOp::Network;
    type Reply = Value;
}

/// `eval`: an agent's script in a frame page's own world.
#[derive(Debug, Serialize)]
pub struct Eval {
    pub script: String,
}

impl Operation for Eval {
    const OP: PageOp = PageOp::Eval;
    type Reply = Value;
}

/// `audit`: axe-core's audit of the page, or of the element a selector names.
#[derive(Debug, Serialize)]
pub struct Audit {
    pub selector: Option<String>,
}

impl Operation for Audit {
    const OP: PageOp = PageOp::Audit;
    type Reply = Value;
}

/// `checkable`: the checkbox, radio or switch a target names (or labels).
#[derive(Debug, Serialize)]
pub struct Checkable(pub Located);

impl Operation for Checkable {
    const OP: PageOp = PageOp::Checkable;
    type Reply = replies::Checkable;
}

/// `file_input`: the file input a target names, or the one it opens; with
/// `expect`, the page watches for those files to arrive.
#[derive(Debug, Serialize)]
pub struct FileInput {
    #[serde(flatten)]
    pub at: Located,
    pub expect: Value,
}

impl Operation for FileInput {
    const OP: PageOp = PageOp::FileInput;
    type Reply = replies::FileInput;
}

/// `chosen_files`: what the watched file input holds, once it took them.
#[derive(Debug, Serialize)]
pub struct ChosenFiles {
    /// The input, so that the question reaches its frame.
    #[serde(flatten)]
    pub at: Located,
    pub watch: Option<u64>,
}

impl Operation for ChosenFiles {
    const OP: PageOp = PageOp::ChosenFiles;
    type Reply = replies::ChosenFiles;
}

/// `intercepted`: what the last checked click reached instead of its
/// target (asked in the target's frame).
#[derive(Debug, Serialize)]
pub struct Intercepted(pub Located);

impl Operation for Intercepted {
    const OP: PageOp = PageOp::Intercepted;
    type Reply = replies::Intercepted;
}

/// `actionable`: waits (up to `wait_ms`, on each animation frame) until
/// the element can take an input: the `checks` pass together.
#[derive(Debug, Serialize)]
pub struct Actionable {
    #[serde(flatten)]
    pub at: Located,
    pub checks: &'static [&'static str],
    pub wait_ms: u64,
    /// A click's own arguments.
    #[serde(flatten)]
    pub click: Option<Click>,
}

impl Operation for Actionable {
    const OP: PageOp = PageOp::Actionable;
    type Reply = replies::PointOrChosen;
}

/// A click waited for: the page stops it should it reach another element.
#[derive(Debug, Serialize)]
pub struct Click {
    /// A plain left click on a drop-down's option chooses it by script.
    choose: bool,
    intercept: bool,
    count: u32,
    /// It opens a file chooser: it may land on the file input the page
    /// laid over it.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    opens_chooser: bool,
}

impl Click {
    pub fn new(count: u32, choose: bool, opens_chooser: bool) -> Click {
        Click {
            choose,
            intercept: true,
            count,
            opens_chooser,
        }
    }
}

/// `actionable`, then `T` in the same turn as the last check: nothing of
/// the page can change in between.
#[derive(Debug, Serialize)]
pub struct ActionableThen<T> {
    #[serde(flatten)]
    checks: Actionable,
    then: PageOp,
    #[serde(flatten)]
    op: T,
}

impl<T: FollowUp> ActionableThen<T> {
    pub fn new(checks: Actionable, op: T) -> ActionableThen<T> {
        ActionableThen {
            checks,
            then: T::OP,
            op,
        }
    }
}

impl<T: FollowUp> Operation for ActionableThen<T> {
    const OP: PageOp = PageOp::Actionable;
    type Reply = replies::After<T::Reply>;
}

/// `prepare_fill`: the field takes `value` (typed as text by the engine's
/// own editing command, or set by script) and is read back. With
/// `vault_origins`, `value` is a vault entry's secret: only a text field
/// whose document has one of those origins takes it, it is marked as the
/// person's (no agent reads it again), and its value is not read back.
#[derive(Serialize)]
pub struct PrepareFill {
    pub value: zeroize::Zeroizing<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub vault_origins: Option<Vec<String>>,
}

impl std::fmt::Debug for PrepareFill {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let shown: &dyn std::fmt::Debug = match self.vault_origins {
            Some(_) => &"(hidden)",
            None => &*self.value,
        };
        f.debug_struct("PrepareFill")
            .field("value", shown)
            .field("vault_origins", &self.vault_origins)
            .finish()
    }
}

impl FollowUp for PrepareFill {
    const OP: PageOp = PageOp::PrepareFill;
    type Reply = replies::Prepared;
}

/// `prepare_type`: the field focused, its caret after its content.
#[derive(Debug, Serialize)]
pub struct PrepareType {}

impl FollowUp for PrepareType {
    const OP: PageOp = PageOp::PrepareType;
    type Reply = replies::Prepared;
}

/// `select`: a drop-down's options chosen by value or label.
#[derive(Debug, Serialize)]
pub struct Select {
    /// None: the option element the target names.
    pub values: Option<Vec<String>>,
}

impl FollowUp for Select {
    const OP: PageOp = PageOp::Select;
    type Reply = Object;
}

/// `scroll_into_view`: the element in the middle of the view; its box.
#[derive(Debug, Serialize)]
pub struct ScrollIntoView {}

impl FollowUp for ScrollIntoView {
    const OP: PageOp = PageOp::ScrollIntoView;
    type Reply = Object;
}

/// `focus`: the element focused, as the DOM's focus() does.
#[derive(Debug, Serialize)]
pub struct Focus {}

impl FollowUp for Focus {
    const OP: PageOp = PageOp::Focus;
    type Reply = replies::Focused;
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn args<O: Operation>(op: O) -> Value {
        Value::Object(op.args())
    }

    fn at(reference: &str) -> Located {
        Located {
            target: Target::Ref(reference.into()),
            frame: Some("f2".into()),
        }
    }

    #[test]
    fn reading_ops_write_what_the_page_reads() {
        let snapshot = Snapshot {
            interactive: true,
            compact: false,
            root: Some(Target::Selector("main".into())),
            max_chars: 10,
            depth: None,
            outline: false,
        };
        assert_eq!(
            args(snapshot),
            json!({"interactive": true, "compact": false, "selector": "main", "max_chars": 10, "outline": false})
        );
        let whole = Snapshot {
            interactive: false,
            compact: true,
            root: None,
            max_chars: 5,
            depth: Some(2),
            outline: true,
        };
        assert_eq!(
            args(whole),
            json!({"interactive": false, "compact": true, "max_chars": 5, "depth": 2, "outline": true})
        );
        assert_eq!(args(Text(Target::Ref("e1".into()))), json!({"ref": "e1"}));
        let attr = Attr {
            target: Target::Selector("a".into()),
            attr: "href".into(),
        };
        assert_eq!(args(attr), json!({"selector": "a", "attr": "href"}));
        assert_eq!(args(PageInfo {}), json!({}));
        assert_eq!(
            args(ReadValue(at("e3"))),
            json!({"ref": "e3", "frame": "f2"})
        );
    }

    #[test]
    fn tagged_ops_name_their_kind_as_the_page_switches_on_it() {
        let role = Find {
            by: By::Role {
                role: "button".into(),
                name: Some("Save".into()),
                exact: None,
            },
            what: "role button".into(),
        };
        assert_eq!(
            args(role),
            json!({"by": "role", "role": "button", "name": "Save", "exact": null, "what": "role button"})
        );
        let nth = Find {
            by: By::Nth {
                n: 2,
                selector: "li".into(),
            },
            what: "li".into(),
        };
        assert_eq!(
            args(nth),
            json!({"by": "nth", "n": 2, "selector": "li", "what": "li"})
        );
        let styles = State::Styles {
            target: Target::Ref("e4".into()),
            properties: Some(vec!["color".into()]),
        };
        assert_eq!(
            args(styles),
            json!({"what": "styles", "ref": "e4", "properties": ["color"]})
        );
        assert_eq!(
            args(State::Visible(Target::Selector("#x".into()))),
            json!({"what": "visible", "selector": "#x"})
        );
        assert_eq!(
            args(State::Count {
                selector: "p".into()
            }),
            json!({"what": "count", "selector": "p"})
        );
        let set = Storage {
            area: StorageArea::Session,
            action: StorageAction::Set {
                key: "k".into(),
                value: "v".into(),
            },
        };
        assert_eq!(
            args(set),
            json!({"area": "session", "action": "set", "key": "k", "value": "v"})
        );
        let get = Storage {
            area: StorageArea::Local,
            action: StorageAction::Get,
        };
        assert_eq!(args(get), json!({"area": "local", "action": "get"}));
        assert_eq!(args(IndexedDb::Dump), json!({"action": "dump"}));
        let viewport = Settle::Viewport {
            width: 800,
            height: 600,
            limit_ms: 3000,
        };
        assert_eq!(
            args(viewport),
            json!({"width": 800, "height": 600, "limit_ms": 3000})
        );
        let scroll = Scroll {
            direction: Direction::Down,
            amount: 500,
        };
        assert_eq!(args(scroll), json!({"direction": "down", "amount": 500}));
    }

    #[test]
    fn an_input_waits_with_its_checks_and_runs_its_follow_up_in_the_same_turn() {
        let click = Actionable {
            at: at("e5"),
            checks: &["visible", "hit"],
            wait_ms: 250,
            click: Some(Click::new(2, true, false)),
        };
        assert_eq!(
            args(click),
            json!({"ref": "e5", "frame": "f2", "checks": ["visible", "hit"], "wait_ms": 250,
                   "choose": true, "intercept": true, "count": 2})
        );
        let upload = Actionable {
            at: at("e6"),
            checks: &[],
            wait_ms: 0,
            click: Some(Click::new(1, true, true)),
        };
        assert_eq!(args(upload)["opens_chooser"], json!(true));
        let hover = Actionable {
            at: at("e7"),
            checks: &["visible"],
            wait_ms: 10,
            click: None,
        };
        assert_eq!(
            args(hover),
            json!({"ref": "e7", "frame": "f2", "checks": ["visible"], "wait_ms": 10})
        );
        let fill = ActionableThen::new(
            Actionable {
                at: at("e8"),
                checks: &["editable"],
                wait_ms: 5,
                click: None,
            },
            PrepareFill {
                value: String::from("hello").into(),
                vault_origins: None,
            },
        );
        assert_eq!(
            args(fill),
            json!({"ref": "e8", "frame": "f2", "checks": ["editable"], "wait_ms": 5,
                   "then": "prepare_fill", "value": "hello"})
        );
        let focus = ActionableThen::new(
            Actionable {
                at: at("e9"),
                checks: &[],
                wait_ms: 5,
                click: None,
            },
            Focus {},
        );
        assert_eq!(args(focus)["then"], json!("focus"));
    }
}
