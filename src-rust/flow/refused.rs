//! Why a flow file is not done again (`check`): the flow as a whole, or
//! the step at fault and what about it is not what `record export`
//! writes. Typed, so a caller can tell which step without reading the
//! message; the message names the step for the person who runs it.

/// Why a flow is refused before the browser is reached.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum FlowRefused {
    /// More steps than a flow may hold (`most`).
    #[error("the flow has {steps} steps; a flow holds at most {most}")]
    TooManySteps { steps: usize, most: usize },
    /// Step `number` (from 1) is not one export writes; `tool` as the file
    /// names it, bounded for a message.
    #[error("step {number} ({tool}) is not one `sovereign record export` writes: {why}; the flow was not run")]
    Step {
        number: usize,
        tool: String,
        why: StepFault,
    },
}

/// What about one step is not what export writes.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum StepFault {
    /// Not a tool a replay does.
    #[error("a replay does only what export writes: open, back, forward, reload, press, tab_new, tab_switch, the waits, keyboard_type, and click, dblclick, hover, focus, check, uncheck, fill, type and select on an element")]
    NotReplayed,
    /// A tool done again as called names an element or a value.
    #[error("it names an element or a value, which this tool takes none of")]
    TargetOrValue,
    /// A typed tool (keyboard_type) names an element.
    #[error("{tool} names no element")]
    TypedWithTarget { tool: String },
    /// An element's tool carries arguments export does not keep.
    #[error("export keeps no other arguments for this tool")]
    OtherArguments,
    /// An element's tool names no element.
    #[error("it names no element")]
    NoElement,
    /// A tool that types a value carries none.
    #[error("it carries no value")]
    NoValue,
    /// A tool that types nothing carries a value.
    #[error("this tool takes no value")]
    UnwantedValue,
    /// The arguments are not a JSON object.
    #[error("its arguments are not an object")]
    ArgumentsNotObject,
    /// An argument export keeps none of for this tool (`name` bounded).
    #[error("export keeps no argument {name:?} for it")]
    UnknownArgument { name: String },
    /// An argument of the wrong kind: `want` says which kind.
    #[error("its {name} must be {want}")]
    WrongKind { name: String, want: &'static str },
    /// One of a list of values is not a text.
    #[error("its values must be texts")]
    ValuesNotTexts,
    /// A value neither a text nor a list of texts.
    #[error("its value must be a text or a list of texts")]
    ValueNotText,
    /// A step other than fill names a vault entry.
    #[error("only fill takes a vault entry (from_vault)")]
    VaultNotFill,
    /// A fill names a vault entry and a value both.
    #[error("it names a vault entry and a value; a fill takes one")]
    VaultAndValue,
    /// A text longer than a flow's texts may be (`most` bytes).
    #[error("a text longer than {most} bytes")]
    TextTooLong { most: usize },
}

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
