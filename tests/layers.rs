//! The layer rule of the source tree: a top-level module imports only
//! from modules of lower layers (see docs/architecture.md, "Layers").
//! A new top-level module must be given its layer here.

mod source_tree;

use source_tree::sources;
use std::collections::BTreeSet;
use std::path::Path;

/// Each top-level module of `src-rust` and its layer, lowest first.
const LAYERS: &[(&str, u32)] = &[
    ("profile", 0),
    ("base", 1),
    ("address", 2),
    ("activity", 2),
    ("agent_scripts", 2),
    ("authorship", 2),
    ("asks", 2),
    ("config", 2),
    ("files_dir", 2),
    ("loader_tables", 2),
    ("page_protocol", 2),
    ("recording", 2),
    ("routes", 2),
    ("bridge", 3),
    ("hold", 3),
    ("flow", 3),
    ("speech_stand_in", 3),
    ("browser", 4),
    ("identity", 4),
    ("nip07", 5),
    ("tools", 6),
    ("server", 7),
    ("cli", 7),
    ("headless", 7),
    ("no_gl_driver", 7),
];

/// Imports the layers would allow but the design never makes: a
/// transport or the command line reaching past the tools' one dispatch.
/// docs/architecture.md lists them ("Never").
const NEVER: &[(&str, &str)] = &[
    ("server", "bridge"),
    ("server", "browser"),
    ("server", "identity"),
    ("server", "nip07"),
    ("cli", "tools"),
    ("cli", "server"),
    ("cli", "bridge"),
    ("cli", "browser"),
    ("cli", "identity"),
];

fn layer(module: &str) -> Option<u32> {
    LAYERS.iter().find(|(m, _)| *m == module).map(|(_, l)| *l)
}

/// The top-level modules `text` names as `crate::name`.
fn crate_paths(text: &str) -> BTreeSet<String> {
    let mut found = BTreeSet::new();
    let mut rest = text;
    while let Some(at) = rest.find("crate::") {
        let after = &rest[at + "crate::".len()..];
        let name: String = after
            .chars()
            .take_while(|c| c.is_ascii_alphanumeric() || *c == '_')
            .collect();
        if !name.is_empty() {
            found.insert(name);
        }
        rest = after;
    }
    found
}

#[test]
fn every_module_imports_only_from_lower_layers() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("src-rust");
    let mut files = Vec::new();
    sources(&root, &mut files);
    let mut faults = Vec::new();
    for file in &files {
        let relative = file.strip_prefix(&root).expect("under src-rust");
        let first = relative
            .components()
            .next()
            .and_then(|c| c.as_os_str().to_str())
            .expect("a file name");
        let module = first.trim_end_matches(".rs");
        // The program's entry points sit above every layer.
        if matches!(module, "main" | "lib" | "bin") {
            continue;
        }
        let Some(own) = layer(module) else {
            faults.push(format!("{module}: give this top-level module a layer"));
            continue;
        };
        let text = std::fs::read_to_string(file).expect("readable source");
        for used in crate_paths(&text) {
            if used == module {
                continue;
            }
            if NEVER.contains(&(module, used.as_str())) {
                faults.push(format!(
                    "{}: {module} never imports crate::{used} (docs/architecture.md, \"Never\")",
                    relative.display()
                ));
            }
            match layer(&used) {
                Some(theirs) if theirs < own => {}
                Some(_) => faults.push(format!(
                    "{}: {module} (layer {own}) imports crate::{used}, which is not below it",
                    relative.display()
                )),
                None => faults.push(format!(
                    "{}: crate::{used} has no layer",
                    relative.display()
                )),
            }
        }
    }
    assert!(
        faults.is_empty(),
        "layer rule broken:\n{}",
        faults.join("\n")
    );
}

/// The layer table of docs/architecture.md: each row's layer and the
/// modules it names in backquotes.
fn documented_layers(doc: &str) -> Vec<(String, u32)> {
    let mut found = Vec::new();
    for line in doc.lines() {
        let cells: Vec<&str> = line.split('|').map(str::trim).collect();
        let (Some(layer), Some(modules)) = (cells.get(1), cells.get(2)) else {
            continue;
        };
        let Ok(layer) = layer.parse::<u32>() else {
            continue;
        };
        for name in modules.split(',') {
            let name = name.trim().trim_matches('`');
            if !name.is_empty() {
                found.push((name.to_string(), layer));
            }
        }
    }
    found
}

#[test]
fn the_architecture_page_shows_every_module_in_its_layer() {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("docs/architecture.md");
    let doc = std::fs::read_to_string(&path).expect("docs/architecture.md");
    let documented: BTreeSet<(String, u32)> = documented_layers(&doc).into_iter().collect();
    let enforced: BTreeSet<(String, u32)> =
        LAYERS.iter().map(|(m, l)| (m.to_string(), *l)).collect();
    let missing: Vec<_> = enforced.difference(&documented).collect();
    let stray: Vec<_> = documented.difference(&enforced).collect();
    assert!(
        missing.is_empty() && stray.is_empty(),
        "docs/architecture.md's layer table differs from LAYERS: not shown {missing:?}; shown but not so {stray:?}"
    );
}

#[test]
fn the_architecture_page_lists_every_never() {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("docs/architecture.md");
    let doc = std::fs::read_to_string(&path).expect("docs/architecture.md");
    let section = doc
        .split("\n## Never\n")
        .nth(1)
        .expect("docs/architecture.md has a Never section");
    let section = section.split("\n## ").next().unwrap_or(section);
    for (from, to) in NEVER {
        let line = format!("`{from}` → `{to}`");
        assert!(section.contains(&line), "the Never section names {line}");
    }
}

#[test]
fn the_scanner_sees_imports() {
    let text =
        "use crate::tools::app::App;\nlet x = crate::base::error::ToolError::internal(\"\");";
    let found: Vec<String> = crate_paths(text).into_iter().collect();
    assert_eq!(found, ["base", "tools"]);
}
