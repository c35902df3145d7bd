//! The tool catalogue as clients receive it (`assets/tools-list.json`,
//! generated from the tool declarations and checked against them by a unit
//! test), and turning command-line words into a tool's arguments with its
//! schema: types, required parameters and enums checked before sending.

use super::error::CliError;
use serde_json::{Map, Value};
use std::sync::OnceLock;

const CATALOGUE: &str = include_str!("../../assets/tools-list.json");

/// One tool as tools/list shows it.
pub struct Tool {
    pub name: String,
    pub description: String,
    pub schema: Value,
}

pub fn tools() -> &'static [Tool] {
    static TOOLS: OnceLock<Vec<Tool>> = OnceLock::new();
    TOOLS.get_or_init(|| {
        let parsed: Value = serde_json::from_str(CATALOGUE).unwrap_or_default();
        parsed["tools"]
            .as_array()
            .into_iter()
            .flatten()
            .map(|t| Tool {
                name: t["name"].as_str().unwrap_or_default().to_string(),
                description: t["description"].as_str().unwrap_or_default().to_string(),
                schema: t["inputSchema"].clone(),
            })
            .collect()
    })
}

pub fn find(name: &str) -> Option<&'static Tool> {
    tools().iter().find(|t| t.name == name)
}

/// Parameters taken in order as bare words by the common tools:
/// `open URL`, `click REF`, `fill REF VALUE`, `login METHOD`...
fn positional(tool: &str) -> &'static [&'static str] {
    match tool {
        "login" | "switch_identity" => &["method"],
        "open" | "tab_new" => &["url"],
        "click" | "hover" | "focus" | "dblclick" | "check" | "uncheck" | "get_text"
        | "get_html" | "get_value" | "get_box" | "is_visible" | "is_enabled" | "is_checked"
        | "scroll_into_view" | "highlight" | "frame_switch" => &["ref"],
        "fill" | "type" | "select" => &["ref", "value"],
        "get_attr" => &["ref", "attr"],
        "press" | "keydown" | "keyup" => &["key"],
        "keyboard_type" | "insert_text" => &["value"],
        "scroll" => &["direction", "amount"],
        "wait" => &["ms"],
        "wait_for" | "get_count" | "find_first" | "find_last" => &["selector"],
        "find_nth" => &["selector", "n"],
        "wait_for_text" | "find_text" => &["text"],
        "wait_for_url" => &["url_pattern"],
        "wait_for_fn" | "eval" => &["script"],
        "tab_switch" | "tab_close" => &["index"],
        "find_role" => &["role", "name"],
        "find_label" => &["label"],
        "find_placeholder" => &["placeholder"],
        "find_alt" => &["alt"],
        "find_title" => &["title"],
        "find_testid" => &["testid"],
        "clipboard_write" => &["text"],
        "mouse_move" => &["x", "y"],
        "mouse_wheel" => &["dy", "dx"],
        "dialog_accept" => &["text"],
        "cookies_get" => &["url"],
        "pdf" => &["path"],
        "context_new" => &["name"],
        "context_close" => &["context"],
        _ => &[],
    }
}

/// A ref as snapshots print it (e12, f1e3), or written @e12 or `[ref=e12]`.
fn looks_like_ref(word: &str) -> bool {
    let word = word.strip_prefix('[').unwrap_or(word);
    let word = word.strip_suffix(']').unwrap_or(word);
    let word = word.strip_prefix("ref=").unwrap_or(word);
    let word = word.strip_prefix('@').unwrap_or(word);
    let mut rest = word;
    while let Some(after) = rest.strip_prefix('f') {
        let digits = after.chars().take_while(char::is_ascii_digit).count();
        if digits == 0 {
            return false;
        }
        rest = &after[digits..];
    }
    rest.strip_prefix('e')
        .is_some_and(|d| !d.is_empty() && d.chars().all(|c| c.is_ascii_digit()))
}

/// The tool's arguments from `--name value` flags, bare words (see
/// `positional`) or one JSON object.
pub fn arguments(tool: &Tool, words: &[String]) -> Result<Value, CliError> {
    let properties = tool.schema["properties"]
        .as_object()
        .cloned()
        .unwrap_or_default();
    if let [only] = words {
        if only.trim_start().starts_with('{') {
            let value: Value = serde_json::from_str(only)
                .map_err(|e| CliError::Usage(format!("the JSON arguments do not parse: {e}")))?;
            return check_required(tool, value);
        }
    }
    let mut args = Map::new();
    let mut bare = positional(&tool.name).iter();
    let mut i = 0;
    while i < words.len() {
        let word = &words[i];
        if let Some(flag) = word.strip_prefix("--") {
            let (name, inline) = match flag.split_once('=') {
                Some((n, v)) => (n.to_string(), Some(v.to_string())),
                None => (flag.to_string(), None),
            };
            let schema = properties
                .get(&name)
                .ok_or_else(|| unknown_parameter(tool, &name))?;
            let text = match inline {
                Some(v) => v,
                None if schema["type"] == "boolean"
                    && words.get(i + 1).is_none_or(|n| n.starts_with("--")) =>
                {
                    "true".into()
                }
                None => {
                    i += 1;
                    words
                        .get(i)
                        .cloned()
                        .ok_or_else(|| CliError::Usage(format!("--{name} needs a value")))?
                }
            };
            args.insert(name.clone(), convert(&name, schema, &text)?);
        } else {
            let Some(mut name) = bare.next().map(|n| n.to_string()) else {
                return Err(CliError::Usage(format!(
                    "{}: unexpected argument {word:?}; see `sovereign help {}`",
                    tool.name, tool.name
                )));
            };
            // A bare target that is not a ref is a CSS selector.
            if name == "ref" && !looks_like_ref(word) && properties.contains_key("selector") {
                name = "selector".into();
            }
            let schema = properties.get(&name).cloned().unwrap_or(Value::Null);
            args.insert(name.clone(), convert(&name, &schema, word)?);
        }
        i += 1;
    }
    check_required(tool, Value::Object(args))
}

fn unknown_parameter(tool: &Tool, name: &str) -> CliError {
    let known: Vec<String> = tool.schema["properties"]
        .as_object()
        .map(|p| p.keys().map(|k| format!("--{k}")).collect())
        .unwrap_or_default();
    CliError::Usage(if known.is_empty() {
        format!("{} takes no parameters (got --{name})", tool.name)
    } else {
        format!(
            "{} has no parameter --{name}; it takes {}",
            tool.name,
            known.join(", ")
        )
    })
}

/// A word as the type the schema asks for.
fn convert(name: &str, schema: &Value, text: &str) -> Result<Value, CliError> {
    let kind = schema["type"].as_str().unwrap_or("");
    let value = match kind {
        "integer" => text.parse::<i64>().map(Value::from).map_err(|_| {
            CliError::Usage(format!("--{name} must be a whole number, got {text:?}"))
        })?,
        "number" => text
            .parse::<f64>()
            .ok()
            .filter(|f| f.is_finite())
            .map(Value::from)
            .ok_or_else(|| CliError::Usage(format!("--{name} must be a number, got {text:?}")))?,
        "boolean" => match text {
            "true" | "yes" | "1" => Value::Bool(true),
            "false" | "no" | "0" => Value::Bool(false),
            _ => {
                return Err(CliError::Usage(format!(
                    "--{name} must be true or false, got {text:?}"
                )))
            }
        },
        "array" if !text.trim_start().starts_with('[') => Value::Array(
            text.split(',')
                .map(|s| Value::String(s.trim().to_string()))
                .collect(),
        ),
        "array" | "object" => serde_json::from_str(text)
            .map_err(|e| CliError::Usage(format!("--{name} must be JSON: {e}")))?,
        // One of several shapes (a value or a list): a list when it looks like one.
        "" if text.trim_start().starts_with('[') => serde_json::from_str(text)
            .map_err(|e| CliError::Usage(format!("--{name} must be JSON: {e}")))?,
        _ => Value::String(text.to_string()),
    };
    if let Some(allowed) = schema["enum"].as_array() {
        if !allowed.contains(&value) {
            let names: Vec<String> = allowed
                .iter()
                .filter_map(Value::as_str)
                .map(str::to_string)
                .collect();
            return Err(CliError::Usage(format!(
                "--{name} must be one of {}, got {text:?}",
                names.join(", ")
            )));
        }
    }
    Ok(value)
}

fn check_required(tool: &Tool, args: Value) -> Result<Value, CliError> {
    let Value::Object(map) = &args else {
        return Err(CliError::Usage(
            "the JSON arguments must be an object".into(),
        ));
    };
    for required in tool.schema["required"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(Value::as_str)
    {
        if !map.contains_key(required) {
            return Err(CliError::Usage(format!(
                "{} needs --{required}; see `sovereign help {}`",
                tool.name, tool.name
            )));
        }
    }
    Ok(args)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn words(list: &[&str]) -> Vec<String> {
        list.iter().map(|s| s.to_string()).collect()
    }

    #[test]
    fn the_catalogue_has_every_tool() {
        assert_eq!(tools().len(), 122);
        assert!(find("snapshot").is_some());
    }

    #[test]
    fn bare_words_flags_and_json_become_arguments() {
        let fill = find("fill").unwrap();
        assert_eq!(
            arguments(fill, &words(&["e3", "hello world"])).unwrap(),
            serde_json::json!({"ref": "e3", "value": "hello world"})
        );
        let click = find("click").unwrap();
        assert_eq!(
            arguments(click, &words(&["#submit"])).unwrap(),
            serde_json::json!({"selector": "#submit"})
        );
        assert_eq!(
            arguments(click, &words(&["f2e7"])).unwrap(),
            serde_json::json!({"ref": "f2e7"})
        );
        let snapshot = find("snapshot").unwrap();
        assert_eq!(
            arguments(
                snapshot,
                &words(&["--interactive", "false", "--depth=3", "--diff"])
            )
            .unwrap(),
            serde_json::json!({"interactive": false, "depth": 3, "diff": true})
        );
        let select = find("select").unwrap();
        assert_eq!(
            arguments(select, &words(&["#many", "--value", "[\"a\",\"b\"]"])).unwrap()["value"],
            serde_json::json!(["a", "b"])
        );
        assert_eq!(
            arguments(fill, &words(&[r##"{"selector":"#a","value":"x"}"##])).unwrap()["value"],
            "x"
        );
    }

    #[test]
    fn refs_are_taken_as_printed_or_with_an_at() {
        let click = find("click").unwrap();
        for written in ["e5", "@e5", "ref=e5", "[ref=e5]", "f1e5", "@f1f2e5"] {
            assert_eq!(
                arguments(click, &words(&[written])).unwrap(),
                serde_json::json!({ "ref": written }),
                "{written}"
            );
        }
        assert_eq!(
            arguments(click, &words(&["e5x"])).unwrap(),
            serde_json::json!({"selector": "e5x"})
        );
    }

    #[test]
    fn login_takes_its_method_as_the_first_bare_word() {
        for tool in ["login", "switch_identity"] {
            assert_eq!(
                arguments(find(tool).unwrap(), &words(&["local", "--nsec", "nsec1x"])).unwrap(),
                serde_json::json!({"method": "local", "nsec": "nsec1x"})
            );
        }
        assert!(arguments(find("login").unwrap(), &words(&["sideways"]))
            .unwrap_err()
            .to_string()
            .contains("--method must be one of local"));
    }

    #[test]
    fn bad_words_are_usage_errors() {
        let scroll = find("scroll").unwrap();
        assert!(arguments(scroll, &words(&["sideways"]))
            .unwrap_err()
            .to_string()
            .contains("one of"));
        assert!(arguments(find("open").unwrap(), &words(&[]))
            .unwrap_err()
            .to_string()
            .contains("needs --url"));
        assert!(arguments(find("wait").unwrap(), &words(&["soon"]))
            .unwrap_err()
            .to_string()
            .contains("whole number"));
        assert!(arguments(find("get_url").unwrap(), &words(&["--x", "1"]))
            .unwrap_err()
            .to_string()
            .contains("no parameters"));
        assert!(arguments(find("open").unwrap(), &words(&["a", "b"]))
            .unwrap_err()
            .to_string()
            .contains("unexpected"));
    }
}
