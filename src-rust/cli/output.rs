//! What the client prints: results as text a person reads (or raw JSON),
//! images as files, errors with their code; the tool list and help.

use super::catalog::Tool;
use super::error::CliError;
use base64::Engine;
use serde_json::Value;
use std::fmt::Write as _;
use std::path::Path;

/// Prints an `/agent` reply. Ok(true): the tool worked; Ok(false): it failed.
pub fn print_reply(
    tool: &str,
    reply: &Value,
    json: bool,
    out: Option<&Path>,
) -> Result<bool, CliError> {
    if reply["ok"] != true {
        let code = reply["error"]["code"].as_str().unwrap_or("ERROR");
        let message = reply["error"]["message"]
            .as_str()
            .unwrap_or("the tool failed");
        if json {
            println!("{}", serde_json::json!({"error": reply["error"]}));
        }
        eprintln!("{code}: {message}");
        return Ok(false);
    }
    let mut result = reply["result"].clone();
    if let Some(data) = result
        .get("data")
        .and_then(Value::as_str)
        .map(str::to_string)
    {
        // An image goes to a file; the path is what gets printed.
        let extension = match result["mimeType"].as_str() {
            Some("image/jpeg") => "jpg",
            _ => "png",
        };
        let path = out.map(Path::to_path_buf).unwrap_or_else(|| {
            std::path::PathBuf::from(format!("{tool}-{}.{extension}", millis()))
        });
        let bytes = base64::engine::general_purpose::STANDARD
            .decode(data)
            .map_err(|e| CliError::ImageUndecodable { why: e.to_string() })?;
        if let Err(e) = std::fs::write(&path, bytes) {
            return Err(CliError::ImageUnsaved {
                path,
                why: e.to_string(),
            });
        }
        if let Value::Object(map) = &mut result {
            map.remove("data");
            map.insert("file".into(), path.display().to_string().into());
        }
    }
    if json {
        println!("{result}");
    } else {
        print!("{}", readable(&result));
    }
    Ok(true)
}

fn millis() -> u128 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_millis())
}

/// Text as is (a snapshot prints as its tree); objects as `key: value` lines.
fn readable(result: &Value) -> String {
    let mut out = String::new();
    match result {
        Value::Object(map) if map.len() == 1 && map.contains_key("text") => {
            out.push_str(map["text"].as_str().unwrap_or_default());
        }
        Value::Object(map) => {
            for (key, value) in map {
                match value {
                    Value::String(s) if key == "text" => {
                        let _ = write!(out, "{s}");
                    }
                    Value::String(s) => {
                        let _ = write!(out, "{key}: {s}");
                    }
                    other => {
                        let _ = write!(out, "{key}: {other}");
                    }
                }
                out.push('\n');
            }
        }
        other => out.push_str(&other.to_string()),
    }
    if !out.ends_with('\n') {
        out.push('\n');
    }
    out
}

pub fn tool_list(tools: &[Tool]) -> String {
    let width = tools.iter().map(|t| t.name.len()).max().unwrap_or(0);
    let mut out = String::new();
    for tool in tools {
        let first = tool.description.split(". ").next().unwrap_or_default();
        let _ = writeln!(out, "{:width$}  {}", tool.name, first.trim_end_matches('.'));
    }
    out
}

pub fn tool_help(tool: &Tool) -> String {
    let mut out = format!("{}: {}\n", tool.name, tool.description);
    let required: Vec<&str> = tool.schema["required"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(Value::as_str)
        .collect();
    let Some(properties) = tool.schema["properties"]
        .as_object()
        .filter(|p| !p.is_empty())
    else {
        out.push_str("\nNo parameters.\n");
        return out;
    };
    out.push_str("\nParameters:\n");
    for (name, schema) in properties {
        let kind = match schema["enum"].as_array() {
            Some(values) => values
                .iter()
                .filter_map(Value::as_str)
                .collect::<Vec<_>>()
                .join("|"),
            None => schema["type"].as_str().unwrap_or("value").to_string(),
        };
        let need = if required.contains(&name.as_str()) {
            ", required"
        } else {
            ""
        };
        let about = schema["description"].as_str().unwrap_or_default();
        let _ = writeln!(out, "  --{name} <{kind}{need}>  {about}");
    }
    out
}
