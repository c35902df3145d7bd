//! Why a flow file is not done again (`check`): the flow as a whole, or
//! the step at fault and what about it is not what `record export`
//! writes. Typed, so a caller can tell which step without reading the
//! message; the message names the step for the person who runs it.

use std::fmt;

/// Why a flow is refused before the browser is reached.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum FlowRefused {
    /// More steps than a flow may hold (`most`).
    TooManySteps { steps: usize, most: usize },
    /// Step `number` (from 1) is not one export writes; `tool` as the file
    /// names it, bounded for a message.
    Step {
        number: usize,
        tool: String,
        why: StepFault,
    },
}

/// What about one step is not what export writes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum StepFault {
    /// Not a tool a replay does.
    NotReplayed,
    /// A tool done again as called names an element or a value.
    TargetOrValue,
    /// A typed tool (keyboard_type) names an element.
    TypedWithTarget { tool: String },
    /// An element's tool carries arguments export does not keep.
    OtherArguments,
    /// An element's tool names no element.
    NoElement,
    /// A tool that types a value carries none.
    NoValue,
    /// A tool that types nothing carries a value.
    UnwantedValue,
    /// The arguments are not a JSON object.
    ArgumentsNotObject,
    /// An argument export keeps none of for this tool (`name` bounded).
    UnknownArgument { name: String },
    /// An argument of the wrong kind: `want` says which kind.
    WrongKind { name: String, want: &'static str },
    /// One of a list of values is not a text.
    ValuesNotTexts,
    /// A value neither a text nor a list of texts.
    ValueNotText,
    /// A text longer than a flow's texts may be (`most` bytes).
    TextTooLong { most: usize },
}

impl fmt::Display for FlowRefused {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            FlowRefused::TooManySteps { steps, most } => {
                write!(f, "the flow has {steps} steps; a flow holds at most {most}")
            }
            FlowRefused::Step { number, tool, why } => write!(
                f,
                "step {number} ({tool}) is not one `sovereign record export` writes: {why}; the flow was not run"
            ),
        }
    }
}

impl fmt::Display for StepFault {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            StepFault::NotReplayed => f.write_str("a replay does only what export writes: open, back, forward, reload, press, tab_new, tab_switch, the waits, keyboard_type, and click, dblclick, hover, focus, check, uncheck, fill, type and select on an element"),
            StepFault::TargetOrValue => {
                f.write_str("it names an element or a value, which this tool takes none of")
            }
            StepFault::TypedWithTarget { tool } => write!(f, "{tool} names no element"),
            StepFault::OtherArguments => {
                f.write_str("export keeps no other arguments for this tool")
            }
            StepFault::NoElement => f.write_str("it names no element"),
            StepFault::NoValue => f.write_str("it carries no value"),
            StepFault::UnwantedValue => f.write_str("this tool takes no value"),
            StepFault::ArgumentsNotObject => f.write_str("its arguments are not an object"),
            StepFault::UnknownArgument { name } => {
                write!(f, "export keeps no argument {name:?} for it")
            }
            StepFault::WrongKind { name, want } => write!(f, "its {name} must be {want}"),
            StepFault::ValuesNotTexts => f.write_str("its values must be texts"),
            StepFault::ValueNotText => f.write_str("its value must be a text or a list of texts"),
            StepFault::TextTooLong { most } => write!(f, "a text longer than {most} bytes"),
        }
    }
}

impl std::error::Error for FlowRefused {}
impl std::error::Error for StepFault {}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_refusal_names_the_step_and_says_the_flow_was_not_run() {
        let refused = FlowRefused::Step {
            number: 3,
            tool: "open".into(),
            why: StepFault::WrongKind {
                name: "url".into(),
                want: "an http or https address",
            },
        };
        assert_eq!(
            refused.to_string(),
            "step 3 (open) is not one `sovereign record export` writes: its url must be an http or https address; the flow was not run"
        );
        assert_eq!(
            FlowRefused::TooManySteps {
                steps: 10_001,
                most: 10_000
            }
            .to_string(),
            "the flow has 10001 steps; a flow holds at most 10000"
        );
        assert_eq!(
            StepFault::UnknownArgument {
                name: "context".into()
            }
            .to_string(),
            "export keeps no argument \"context\" for it"
        );
    }
}
