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
    ("audit_chain", 2),
    ("config", 2),
    ("files_dir", 2),
    ("loader_tables", 2),
    ("page_protocol", 2),
    ("recording", 2),
    ("routes", 2),
    ("web_bot_auth", 2),
    ("bridge", 3),
    ("hold", 3),
    ("flow", 3),
    ("speech_stand_in", 3),
    ("vault", 3),
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
    names_under(text, "crate::")
}

/// The names that follow `prefix` in `text`.
fn names_under(text: &str, prefix: &str) -> BTreeSet<String> {
    let mut found = BTreeSet::new();
    let mut rest = text;
    while let Some(at) = rest.find(prefix) {
        let after = &rest[at + prefix.len()..];
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

/// The rooms of `src-rust/browser/`, from the ground up. A file of a room
/// uses its own room (`super::`) and the rooms below it
/// (`crate::browser::room::`), never a room above it nor the browser's own
/// face (`crate::browser::Name`): so state sits below the behaviour that
/// changes it, and each room can be read without those above. The files
/// at the browser's top (`mod.rs`, `executor.rs`, `ffi_edges.rs`) route to
/// every room. docs/architecture.md shows the same order ("The browser's
/// rooms").
const BROWSER_ROOMS: &[&str] = &["webkit", "input", "tab", "page", "network", "window", "act"];

/// The names `text` reaches under `crate::browser::`.
fn browser_paths(text: &str) -> BTreeSet<String> {
    names_under(text, "crate::browser::")
}

#[test]
fn each_browser_room_uses_only_the_rooms_below_it() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("src-rust/browser");
    let mut files = Vec::new();
    sources(&root, &mut files);
    let mut faults = Vec::new();
    for file in &files {
        let relative = file.strip_prefix(&root).expect("under src-rust/browser");
        let mut parts = relative
            .components()
            .map(|c| c.as_os_str().to_str().unwrap_or(""));
        let (Some(first), Some(_)) = (parts.next(), parts.next()) else {
            // A file at the browser's top: it routes to every room.
            continue;
        };
        let Some(own) = BROWSER_ROOMS.iter().position(|r| *r == first) else {
            faults.push(format!(
                "browser/{first}: give this room its place in BROWSER_ROOMS"
            ));
            continue;
        };
        let text = std::fs::read_to_string(file).expect("readable source");
        if text.contains("super::super::super::") {
            faults.push(format!(
                "browser/{}: reaches past its room with super::",
                relative.display()
            ));
        }
        for used in browser_paths(&text) {
            match BROWSER_ROOMS.iter().position(|r| *r == used) {
                Some(theirs) if theirs <= own => {}
                Some(_) => faults.push(format!(
                    "browser/{}: the {first} room uses the {used} room, which stands above it",
                    relative.display()
                )),
                None => faults.push(format!(
                    "browser/{}: crate::browser::{used} is the browser's face; use the room that defines it",
                    relative.display()
                )),
            }
        }
    }
    assert!(
        faults.is_empty(),
        "browser rooms broken:\n{}",
        faults.join("\n")
    );
}

#[test]
fn the_architecture_page_shows_the_browser_rooms_in_order() {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("docs/architecture.md");
    let doc = std::fs::read_to_string(&path).expect("docs/architecture.md");
    let section = doc
        .split("\n## The browser's rooms\n")
        .nth(1)
        .expect("docs/architecture.md has a section \"The browser's rooms\"");
    let section = section.split("\n## ").next().unwrap_or(section);
    let shown: Vec<&str> = section
        .lines()
        .filter_map(|line| line.strip_prefix("| `"))
        .filter_map(|rest| rest.split('`').next())
        .collect();
    let mut from_the_top = BROWSER_ROOMS.to_vec();
    from_the_top.reverse();
    assert_eq!(shown, from_the_top, "the rooms' table, from the top down");
}

#[test]
fn the_room_scanner_sees_rooms_and_faces() {
    let text = "use crate::browser::tab::state::TabState;\nuse crate::browser::SharedBrowser;\nuse crate::base::tab::TabId;";
    let found: Vec<String> = browser_paths(text).into_iter().collect();
    assert_eq!(found, ["SharedBrowser", "tab"]);
}

#[test]
fn the_scanner_sees_imports() {
    let text =
        "use crate::tools::app::App;\nlet x = crate::base::error::ToolError::internal(\"\");";
    let found: Vec<String> = crate_paths(text).into_iter().collect();
    assert_eq!(found, ["base", "tools"]);
}
