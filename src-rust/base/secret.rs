//! Secrets that pass through as tool arguments (an nsec, seed words, a
//! password, a bunker URL with its secret): kept in types that wipe their
//! bytes when they are dropped, so no copy is left behind in freed memory.

use serde::Deserialize;
use serde_json::Value;
use zeroize::Zeroize;

/// A string argument, wiped when dropped; never printed.
#[derive(Deserialize, Default, PartialEq, Eq)]
#[serde(transparent)]
pub struct SecretString(String);

/// Described to clients as the plain string it is.
impl schemars::JsonSchema for SecretString {
    fn schema_name() -> std::borrow::Cow<'static, str> {
        String::schema_name()
    }

    fn json_schema(generator: &mut schemars::SchemaGenerator) -> schemars::Schema {
        String::json_schema(generator)
    }

    fn inline_schema() -> bool {
        true
    }
}

impl Drop for SecretString {
    fn drop(&mut self) {
        self.0.zeroize();
    }
}

impl std::ops::Deref for SecretString {
    type Target = str;
    fn deref(&self) -> &str {
        &self.0
    }
}

impl From<String> for SecretString {
    fn from(text: String) -> Self {
        SecretString(text)
    }
}

impl std::fmt::Debug for SecretString {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("SecretString(..)")
    }
}

/// Wipes every string in a JSON value (object keys are names, not secrets).
pub fn wipe_json(value: &mut Value) {
    match value {
        Value::String(text) => text.zeroize(),
        Value::Array(items) => items.iter_mut().for_each(wipe_json),
        Value::Object(map) => map.values_mut().for_each(wipe_json),
        Value::Null | Value::Bool(_) | Value::Number(_) => {}
    }
}

/// A JSON value whose strings are wiped when it is dropped: what a request
/// carried, however its handling ends (answered, refused, cancelled).
#[derive(Debug, Default)]
pub struct Wiped(pub Value);

impl Drop for Wiped {
    fn drop(&mut self) {
        wipe_json(&mut self.0);
    }
}

impl std::ops::Deref for Wiped {
    type Target = Value;
    fn deref(&self) -> &Value {
        &self.0
    }
}

impl std::ops::DerefMut for Wiped {
    fn deref_mut(&mut self) -> &mut Value {
        &mut self.0
    }
}

/// Whether two secrets are the same, compared in constant time.
pub fn same(given: &str, expected: &str) -> bool {
    use subtle::ConstantTimeEq as _;
    given.as_bytes().ct_eq(expected.as_bytes()).into()
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn every_string_of_a_value_is_wiped_in_place() {
        let mut value = json!({"nsec": "nsec1secret", "list": ["seed words", 3], "n": 1});
        wipe_json(&mut value);
        assert_eq!(value, json!({"nsec": "", "list": ["", 3], "n": 1}));
    }

    #[test]
    fn a_secret_string_reads_as_a_string_and_never_prints() {
        let secret: SecretString = serde_json::from_value(json!("hunter2 hunter2")).unwrap();
        assert_eq!(&*secret, "hunter2 hunter2");
        assert_eq!(format!("{secret:?}"), "SecretString(..)");
        let wiped = Wiped(json!({"password": "x"}));
        assert_eq!(wiped["password"], "x");
    }
}
