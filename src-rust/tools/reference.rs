//! The tool table of `docs/tools.md` and assets/tools-list.json (the catalogue the
//! command-line client reads), both generated
//! from the declarations so they cannot drift from what clients receive.

use super::Registry;
use serde_json::Value;

/// One markdown row per tool: name, parameters (required ones in bold), description.
pub fn markdown_table(registry: &Registry) -> String {
    let mut out = String::from("| Tool | Parameters | What it does |\n|---|---|---|\n");
    for def in registry.public() {
        let schema = &def.input_schema;
        let required: Vec<&str> = schema["required"]
            .as_array()
            .into_iter()
            .flatten()
            .filter_map(Value::as_str)
            .collect();
        let params: Vec<String> = schema["properties"]
            .as_object()
            .into_iter()
            .flatten()
            .map(|(name, _)| match required.contains(&name.as_str()) {
                true => format!("**`{name}`**"),
                false => format!("`{name}`"),
            })
            .collect();
        out.push_str(&format!(
            "| `{}` | {} | {} |\n",
            def.name,
            params.join(", "),
            def.description.replace('|', "\\|")
        ));
    }
    out
}

/// tools/list as clients receive it, pretty-printed.
pub fn tools_list_json(registry: &Registry) -> String {
    let tools: Vec<Value> = registry.public().map(|t| t.mcp_json(false)).collect();
    let mut text =
        serde_json::to_string_pretty(&serde_json::json!({ "tools": tools })).unwrap_or_default();
    text.push('\n');
    text
}

#[cfg(test)]
mod tests {
    //! Run with UPDATE_GENERATED=1 to rewrite the tool table in docs/tools.md and the
    //! golden file after changing a tool on purpose.
    use super::*;
    use std::path::Path;

    const BEGIN: &str = "<!-- tools:begin -->\n";
    const END: &str = "<!-- tools:end -->";

    fn check_or_update(path: &Path, current: &str, expected: &str) {
        if current == expected {
            return;
        }
        if std::env::var_os("UPDATE_GENERATED").is_some() {
            std::fs::write(path, expected).unwrap();
            return;
        }
        panic!(
            "{} is out of date with the tool declarations; run `UPDATE_GENERATED=1 cargo test` and review the diff",
            path.display()
        );
    }

    #[test]
    fn the_tool_table_matches_the_declarations() {
        let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("docs/tools.md");
        let doc = std::fs::read_to_string(&path).unwrap();
        let start = doc
            .find(BEGIN)
            .expect("docs/tools.md has the tools:begin marker")
            + BEGIN.len();
        let end = doc
            .find(END)
            .expect("docs/tools.md has the tools:end marker");
        let table = markdown_table(&Registry::new());
        let updated = format!("{}{}{}", &doc[..start], table, &doc[end..]);
        check_or_update(&path, &doc, &updated);
    }

    #[test]
    fn golden_tools_list_matches_the_declarations() {
        let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("assets/tools-list.json");
        let current = std::fs::read_to_string(&path).unwrap_or_default();
        check_or_update(&path, &current, &tools_list_json(&Registry::new()));
    }
}
