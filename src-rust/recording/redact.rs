//! What a recording may keep of a call's arguments and result: secrets
//! (keys, seed words, passwords, bunker and bearer secrets, header values,
//! what was typed into a password field) are replaced by a marker, and
//! everything is cut to a bound.

use serde_json::{Map, Value};

/// What stands where a secret was.
pub const MARKER: &str = "[secret]";

/// Parameter names that hold secrets, in any tool, at any depth.
const SECRET_KEYS: [&str; 11] = [
    "nsec",
    "privkey_hex",
    "mnemonic",
    "passphrase",
    "password",
    "pass",
    "bunker_url",
    "token",
    "secret",
    "authorization",
    "cookie",
];
/// Maps whose values are all secret-like (header values carry tokens).
const SECRET_MAPS: [&str; 2] = ["headers", "headers_json"];
/// What an input tool typed (secret when the field was a password field).
const TYPED_KEYS: [&str; 3] = ["value", "text", "values"];

/// Longest string kept; longer ones are cut with a note of the rest.
const STRING_MAX: usize = 1_000;
/// Most items kept of an array or object.
const ITEMS_MAX: usize = 50;
/// Deepest nesting kept.
const DEPTH_MAX: usize = 6;

/// `args` as a recording keeps them. `typed_secret`: the call typed into a
/// password field, so what it typed is a secret too.
pub fn arguments(args: &Value, typed_secret: bool) -> Value {
    kept(args, typed_secret, 0)
}

/// A result as a recording keeps it (the value a password field holds is
/// a secret as the typing was).
pub fn result(value: &Value, typed_secret: bool) -> Value {
    kept(value, typed_secret, 0)
}

fn kept(value: &Value, typed_secret: bool, depth: usize) -> Value {
    match value {
        Value::String(text) => Value::String(cut(text)),
        Value::Array(items) if depth >= DEPTH_MAX => format!("[{} items]", items.len()).into(),
        Value::Object(map) if depth >= DEPTH_MAX => format!("{{{} fields}}", map.len()).into(),
        Value::Array(items) => {
            let mut out: Vec<Value> = items
                .iter()
                .take(ITEMS_MAX)
                .map(|v| kept(v, typed_secret, depth + 1))
                .collect();
            if items.len() > ITEMS_MAX {
                out.push(format!("[{} more]", items.len() - ITEMS_MAX).into());
            }
            Value::Array(out)
        }
        Value::Object(map) => Value::Object(kept_map(map, typed_secret, depth)),
        other => other.clone(),
    }
}

fn kept_map(map: &Map<String, Value>, typed_secret: bool, depth: usize) -> Map<String, Value> {
    let mut out = Map::new();
    for (key, value) in map.iter().take(ITEMS_MAX) {
        let lower = key.to_ascii_lowercase();
        let secret = SECRET_KEYS.contains(&lower.as_str())
            || (typed_secret && TYPED_KEYS.contains(&lower.as_str()));
        let shown = if secret && !value.is_null() {
            MARKER.into()
        } else if SECRET_MAPS.contains(&lower.as_str()) {
            names_only(value)
        } else {
            kept(value, typed_secret, depth + 1)
        };
        out.insert(cut(key), shown);
    }
    if map.len() > ITEMS_MAX {
        out.insert(
            "…".into(),
            format!("{} more fields", map.len() - ITEMS_MAX).into(),
        );
    }
    out
}

/// A map of headers with each value replaced by the marker (the names stay).
fn names_only(value: &Value) -> Value {
    match value {
        Value::Object(map) => Value::Object(
            map.keys()
                .take(ITEMS_MAX)
                .map(|k| (cut(k), MARKER.into()))
                .collect(),
        ),
        Value::Null => Value::Null,
        _ => MARKER.into(),
    }
}

fn cut(text: &str) -> String {
    if text.len() <= STRING_MAX {
        return text.to_string();
    }
    let mut end = STRING_MAX;
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    format!("{}…[cut: {} more bytes]", &text[..end], text.len() - end)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn secrets_are_replaced_wherever_they_are() {
        let args = json!({
            "method": "local",
            "nsec": "nsec1secret",
            "remember": true,
            "password": "hunter2",
            "commands": [{"tool": "login", "args": {"mnemonic": "abandon abandon"}}],
            "headers": {"Authorization": "Bearer abc", "X-Run": "7"},
        });
        let kept = arguments(&args, false);
        let text = kept.to_string();
        for secret in ["nsec1secret", "hunter2", "abandon", "Bearer abc", "\"7\""] {
            assert!(!text.contains(secret), "{secret} in {text}");
        }
        assert_eq!(kept["method"], "local");
        assert_eq!(kept["nsec"], MARKER);
        assert_eq!(
            kept["headers"]["X-Run"], MARKER,
            "header names stay, values go"
        );
        assert_eq!(kept["commands"][0]["args"]["mnemonic"], MARKER);
    }

    #[test]
    fn what_was_typed_into_a_password_field_is_a_secret() {
        let args = json!({"ref": "e3", "value": "s3cret!"});
        assert_eq!(arguments(&args, true)["value"], MARKER);
        assert_eq!(arguments(&args, false)["value"], "s3cret!");
        assert_eq!(result(&json!({"value": "s3cret!"}), true)["value"], MARKER);
    }

    #[test]
    fn everything_is_bounded() {
        let args = json!({"script": "x".repeat(100_000), "list": (0..500).collect::<Vec<_>>()});
        let kept = arguments(&args, false);
        assert!(kept.to_string().len() < 3_000);
        assert!(kept["script"]
            .as_str()
            .unwrap()
            .contains("[cut: 99000 more bytes]"));
        assert_eq!(kept["list"].as_array().unwrap().len(), ITEMS_MAX + 1);
    }
}
