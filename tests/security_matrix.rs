//! docs/security.md's matrix of each agent capability against each person
//! asset: every tool agents can call (the catalogue clients receive,
//! `assets/tools-list.json`, and the tools shown only on the person's
//! word) is in exactly one row, every cell says "cannot" or "can", and
//! every test a cell names exists.

use std::collections::BTreeMap;
use std::path::Path;

const SECTION: &str = "## Each agent capability against each person asset";
/// Tools agents get only once the person switches them on.
const SHOWN_ON_THE_PERSONS_WORD: [&str; 1] = ["nostr_prompts"];
const ASSETS: usize = 8;

fn root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

/// The matrix's rows: each row's tools and cells.
fn rows() -> Vec<(Vec<String>, Vec<String>)> {
    let doc = std::fs::read_to_string(root().join("docs/security.md")).expect("docs/security.md");
    let start = doc.find(SECTION).expect("the matrix's section");
    let section = &doc[start + SECTION.len()..];
    let section = &section[..section.find("\n## ").unwrap_or(section.len())];
    section
        .lines()
        .filter(|l| l.starts_with("| ") && !l.starts_with("| Capability"))
        .map(|line| {
            let cells: Vec<String> = line
                .trim_matches('|')
                .split(" | ")
                .map(|c| c.trim().to_string())
                .collect();
            assert_eq!(cells.len(), 2 + ASSETS, "a row of 10 cells: {line}");
            let tools = cells[1]
                .split('`')
                .skip(1)
                .step_by(2)
                .map(str::to_string)
                .collect();
            (tools, cells[2..].to_vec())
        })
        .collect()
}

/// The names in the catalogue clients receive.
fn catalogue() -> Vec<String> {
    let text =
        std::fs::read_to_string(root().join("assets/tools-list.json")).expect("the catalogue");
    let list: serde_json::Value = serde_json::from_str(&text).expect("JSON");
    list["tools"]
        .as_array()
        .expect("a tools array")
        .iter()
        .filter_map(|t| t["name"].as_str().map(str::to_string))
        .collect()
}

#[test]
fn every_tool_agents_call_has_exactly_one_row() {
    let mut rows_of: BTreeMap<String, usize> = BTreeMap::new();
    for (tools, _) in rows() {
        for tool in tools {
            *rows_of.entry(tool).or_default() += 1;
        }
    }
    let mut tools = catalogue();
    tools.extend(SHOWN_ON_THE_PERSONS_WORD.iter().map(|t| t.to_string()));
    let missing: Vec<&String> = tools.iter().filter(|t| !rows_of.contains_key(*t)).collect();
    assert!(
        missing.is_empty(),
        "tools without a row in docs/security.md's matrix: {missing:?}"
    );
    let twice: Vec<&String> = rows_of
        .iter()
        .filter(|(_, n)| **n > 1)
        .map(|(t, _)| t)
        .collect();
    assert!(twice.is_empty(), "tools in two rows: {twice:?}");
    let unknown: Vec<&String> = rows_of.keys().filter(|t| !tools.contains(t)).collect();
    assert!(
        unknown.is_empty(),
        "rows name tools no agent has: {unknown:?}"
    );
}

#[test]
fn every_cell_says_cannot_or_can_and_its_tests_exist() {
    for (tools, cells) in rows() {
        for cell in cells {
            assert!(
                cell.starts_with("cannot") || cell.starts_with("can"),
                "{tools:?}: a cell says cannot or can: {cell}"
            );
            if cell.starts_with("cannot") {
                assert!(
                    cell.contains("`tests/"),
                    "{tools:?}: a cannot names its test: {cell}"
                );
            }
            for test in cell
                .split('`')
                .skip(1)
                .step_by(2)
                .filter(|t| t.starts_with("tests/"))
            {
                assert!(
                    root().join(test).exists(),
                    "{test} named in the matrix does not exist"
                );
            }
        }
    }
}
