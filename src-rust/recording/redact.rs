//! What a recording may keep of a call's arguments and result, cut to a
//! bound. Arguments are the agent's own words: they are kept, with secrets
//! (keys, seed words, passwords, bunker and bearer secrets, header values,
//! what was typed into a password field) replaced by a marker. A result
//! carries what pages and sites hold (cookies, headers, bodies, storage,
//! text): it is kept by its shape only, whatever the tool: numbers,
//! booleans and names of things, every other text by its length.

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

/// The tools whose `secret` names an entry of the person's vault (a name
/// agents list with `secrets_list`), and no secret itself.
const VAULT_NAMING: [&str; 2] = ["fill", "fill_form"];

/// `args` as a recording keeps them. `typed_secret`: the call typed into a
/// password field, so what it typed is a secret too. `done`: the call
/// worked, so a vault entry it named is one (a flow fills from it again);
/// what a failed call gave as `secret` could be anything, and stays out.
pub fn arguments(tool: &str, args: &Value, typed_secret: bool, done: bool) -> Value {
    let mut out = kept(args, typed_secret, 0);
    if done && VAULT_NAMING.contains(&tool) {
        keep_entry_name(args, &mut out);
        let fields = args.get("fields").and_then(Value::as_array);
        let kept_fields = out.get_mut("fields").and_then(Value::as_array_mut);
        if let (Some(fields), Some(kept_fields)) = (fields, kept_fields) {
            for (field, kept) in fields.iter().zip(kept_fields) {
                keep_entry_name(field, kept);
            }
        }
    }
    out
}

/// Puts back the vault entry's name `args` gave as `secret`.
fn keep_entry_name(args: &Value, out: &mut Value) {
    let name = args.get("secret").and_then(Value::as_str);
    if let (Some(name), Some(slot)) = (name, out.get_mut("secret")) {
        *slot = Value::String(cut(name));
    }
}

/// Keys whose text names or locates something rather than carrying a
/// page's or a site's content: a result keeps their text.
const NAMING_KEYS: [&str; 14] = [
    "id", "ref", "role", "name", "tool", "code", "method", "type", "kind", "mime", "status",
    "state", "answer", "since",
];
/// Keys holding an address: a result keeps it without its query and
/// fragment, which may carry a token.
const ADDRESS_KEYS: [&str; 4] = ["url", "final_url", "redirected_from", "path"];

/// A result as a recording keeps it: its shape (see the module). The
/// value a password field holds is a secret as the typing was.
pub fn result(value: &Value, typed_secret: bool) -> Value {
    shape(value, None, typed_secret, 0)
}

/// `value`, found under `key`, as its shape.
fn shape(value: &Value, key: Option<&str>, typed_secret: bool, depth: usize) -> Value {
    let key = key.map(str::to_ascii_lowercase);
    let key = key.as_deref();
    let secret =
        key.is_some_and(|k| SECRET_KEYS.contains(&k) || (typed_secret && TYPED_KEYS.contains(&k)));
    match value {
        Value::Null | Value::Bool(_) | Value::Number(_) => value.clone(),
        _ if secret => MARKER.into(),
        Value::String(text) => match key {
            Some(k) if NAMING_KEYS.contains(&k) => Value::String(cut(text)),
            Some(k) if ADDRESS_KEYS.contains(&k) => Value::String(cut(address(text))),
            _ => format!("[{} chars]", text.chars().count()).into(),
        },
        Value::Array(items) if depth >= DEPTH_MAX => format!("[{} items]", items.len()).into(),
        Value::Object(map) if depth >= DEPTH_MAX => format!("{{{} fields}}", map.len()).into(),
        // An array's items are what the key names (a list of cookies).
        Value::Array(items) => bounded(items, |v| shape(v, key, typed_secret, depth + 1)),
        Value::Object(map) => {
            let mut out = Map::new();
            for (k, v) in map.iter().take(ITEMS_MAX) {
                out.insert(cut(k), shape(v, Some(k), typed_secret, depth + 1));
            }
            if map.len() > ITEMS_MAX {
                out.insert(
                    "…".into(),
                    format!("{} more fields", map.len() - ITEMS_MAX).into(),
                );
            }
            Value::Object(out)
        }
    }
}

/// An array's first [`ITEMS_MAX`] items, each as `keep` keeps it, and how
/// many more there were.
fn bounded(items: &[Value], keep: impl Fn(&Value) -> Value) -> Value {
    let mut out: Vec<Value> = items.iter().take(ITEMS_MAX).map(keep).collect();
    if items.len() > ITEMS_MAX {
        out.push(format!("[{} more]", items.len() - ITEMS_MAX).into());
    }
    Value::Array(out)
}

/// An address without what follows its path.
fn address(text: &str) -> &str {
    text.split(['?', '#']).next().unwrap_or_default()
}

fn kept(value: &Value, typed_secret: bool, depth: usize) -> Value {
    match value {
        Value::String(text) => Value::String(cut(text)),
        Value::Array(items) if depth >= DEPTH_MAX => format!("[{} items]", items.len()).into(),
        Value::Object(map) if depth >= DEPTH_MAX => format!("{{{} fields}}", map.len()).into(),
        Value::Array(items) => bounded(items, |v| kept(v, typed_secret, depth + 1)),
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
        let kept = arguments("login", &args, false, true);
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
        assert_eq!(arguments("fill", &args, true, true)["value"], MARKER);
        assert_eq!(arguments("fill", &args, false, true)["value"], "s3cret!");
        assert_eq!(result(&json!({"value": "s3cret!"}), true)["value"], MARKER);
    }

    #[test]
    fn a_result_is_kept_by_its_shape_whatever_the_tool() {
        let got = json!({
            "cookies": [{"name": "sid", "value": "s3ss10n", "domain": "a.test", "httpOnly": true}],
            "url": "https://a.test/in?token=abc#x",
            "status": 200,
            "response_headers": {"Set-Cookie": "sid=s3ss10n", "X-Api-Key": "k3y"},
            "request_body": "user=ada&password=hunter2",
            "items": [{"key": "jwt", "value": "eyJ"}],
            "new_tabs": [3, 4],
            "text": "page text",
        });
        let kept = result(&got, false);
        let text = kept.to_string();
        for secret in [
            "s3ss10n",
            "k3y",
            "hunter2",
            "eyJ",
            "token=abc",
            "page text",
            "a.test\"",
        ] {
            assert!(!text.contains(secret), "{secret} in {text}");
        }
        assert_eq!(kept["cookies"][0]["name"], "sid", "names stay");
        assert_eq!(kept["cookies"][0]["value"], "[7 chars]");
        assert_eq!(kept["cookies"][0]["httpOnly"], true);
        assert_eq!(kept["url"], "https://a.test/in");
        assert_eq!(kept["status"], 200);
        assert_eq!(kept["response_headers"]["X-Api-Key"], "[3 chars]");
        assert_eq!(kept["new_tabs"], json!([3, 4]), "counts and ids stay");
        assert_eq!(kept["text"], "[9 chars]");
    }

    #[test]
    fn everything_is_bounded() {
        let args = json!({"script": "x".repeat(100_000), "list": (0..500).collect::<Vec<_>>()});
        let kept = arguments("login", &args, false, true);
        assert!(kept.to_string().len() < 3_000);
        assert!(kept["script"]
            .as_str()
            .unwrap()
            .contains("[cut: 99000 more bytes]"));
        assert_eq!(kept["list"].as_array().unwrap().len(), ITEMS_MAX + 1);
    }

    #[test]
    fn a_vault_entry_named_by_a_fill_that_worked_is_kept_and_nothing_else() {
        let fill = json!({"selector": "#pw", "secret": "github", "field": "password"});
        assert_eq!(arguments("fill", &fill, true, true)["secret"], "github");
        assert_eq!(arguments("fill", &fill, true, false)["secret"], MARKER);
        assert_eq!(arguments("login", &fill, false, true)["secret"], MARKER);
        let form = json!({"fields": [
            {"selector": "#u", "secret": "github", "field": "user"},
            {"selector": "#n", "value": "Ada"},
        ]});
        let kept = arguments("fill_form", &form, false, true);
        assert_eq!(kept["fields"][0]["secret"], "github");
        assert_eq!(kept["fields"][1]["value"], "Ada");
        assert!(kept["fields"][1].get("secret").is_none());
        let batch = json!({"commands": [{"tool": "fill", "args": fill}]});
        assert_eq!(
            arguments("batch", &batch, false, true)["commands"][0]["args"]["secret"],
            MARKER
        );
    }
}
