//! What a tool gives back, before a transport shapes it.

use base64::Engine;
use serde_json::{json, Map, Value};

#[derive(Debug)]
pub enum ToolOutput {
    /// Text for a model to read (snapshot, page text): sent as is.
    Text(String),
    /// A small JSON object.
    Json(Map<String, Value>),
    /// A PNG image.
    Png(Vec<u8>),
    /// A PNG image with text that explains it (a legend).
    PngWithText(Vec<u8>, String),
    /// An image of a type, with a line that says what it is (its size).
    Image {
        data: Vec<u8>,
        mime: &'static str,
        text: String,
    },
}

impl ToolOutput {
    /// Wraps a JSON value; non-objects are put under `value`.
    pub fn json(value: Value) -> Self {
        match value {
            Value::Object(map) => ToolOutput::Json(map),
            other => {
                let mut map = Map::new();
                map.insert("value".into(), other);
                ToolOutput::Json(map)
            }
        }
    }

    /// The MCP `tools/call` result.
    pub fn to_mcp(&self) -> Value {
        match self {
            ToolOutput::Text(text) => json!({"content": [{"type": "text", "text": text}]}),
            ToolOutput::Json(map) => json!({
                "content": [{"type": "text", "text": Value::Object(map.clone()).to_string()}],
                "structuredContent": map,
            }),
            ToolOutput::Png(png) => json!({
                "content": [{"type": "image", "data": base64_png(png), "mimeType": "image/png"}],
            }),
            ToolOutput::PngWithText(png, text) => json!({
                "content": [
                    {"type": "image", "data": base64_png(png), "mimeType": "image/png"},
                    {"type": "text", "text": text},
                ],
            }),
            ToolOutput::Image { data, mime, text } => json!({
                "content": [
                    {"type": "image", "data": base64_png(data), "mimeType": mime},
                    {"type": "text", "text": text},
                ],
            }),
        }
    }

    /// The /agent `result`.
    pub fn to_agent(&self) -> Value {
        match self {
            ToolOutput::Text(text) => json!({"text": text}),
            ToolOutput::Json(map) => Value::Object(map.clone()),
            ToolOutput::Png(png) => json!({"mimeType": "image/png", "data": base64_png(png)}),
            ToolOutput::PngWithText(png, text) => {
                json!({"mimeType": "image/png", "data": base64_png(png), "text": text})
            }
            ToolOutput::Image { data, mime, text } => {
                json!({"mimeType": mime, "data": base64_png(data), "text": text})
            }
        }
    }
}

fn base64_png(png: &[u8]) -> String {
    base64::engine::general_purpose::STANDARD.encode(png)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn text_is_not_json_escaped_or_duplicated() {
        let out = ToolOutput::Text("- button \"Save\"".into()).to_mcp();
        assert_eq!(out["content"][0]["text"], "- button \"Save\"");
        assert!(out.get("structuredContent").is_none());
    }

    #[test]
    fn json_results_carry_structured_content() {
        let out = ToolOutput::json(json!({"url": "x"})).to_mcp();
        assert_eq!(out["structuredContent"]["url"], "x");
        assert_eq!(out["content"][0]["text"], r#"{"url":"x"}"#);
        assert_eq!(ToolOutput::json(json!(2)).to_agent(), json!({"value": 2}));
    }
}
