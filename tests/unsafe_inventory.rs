//! Every `unsafe` block, `unsafe fn` and `extern "C"` declaration of the
//! browser is listed in `docs/unsafe.md` with the contract it relies on,
//! and every item listed there still exists: an unsafe item nobody wrote
//! the contract of fails here.
//!
//! An item is named by its file and the function it is in (`name` for a
//! block in `fn name`, `name (unsafe fn)` for the function itself,
//! `extern name` for a declared foreign function). Test modules (from the
//! file's first `#[cfg(test)]` on) are not the browser's and are left out.

mod source_tree;

use source_tree::sources;
use std::collections::BTreeSet;
use std::path::Path;

type Item = (String, String);

/// The unsafe items of one file's non-test code.
fn items_of(path: &str, text: &str) -> BTreeSet<Item> {
    let mut items = BTreeSet::new();
    let mut function = String::from("(top level)");
    let mut in_extern = false;
    let mut add = |name: String| items.insert((path.to_string(), name));
    for line in text.lines() {
        let line = line.trim();
        if line.starts_with("#[cfg(test)]") {
            break;
        }
        if line.starts_with("//") {
            continue;
        }
        let declared = fn_name(line);
        if in_extern {
            if let Some(name) = declared {
                add(format!("extern {name}"));
            }
            in_extern = line != "}";
            continue;
        }
        if line.contains("extern \"C\" {") {
            in_extern = true;
            continue;
        }
        if let Some(name) = declared {
            function = name.to_string();
            if line.contains("unsafe ") {
                add(format!("{name} (unsafe fn)"));
                continue;
            }
        }
        if line.contains("unsafe {") || line.contains("unsafe impl") {
            add(function.clone());
        }
    }
    items
}

/// The function a line declares, if it declares one.
fn fn_name(line: &str) -> Option<&str> {
    let at = line.find("fn ")?;
    let before = &line[..at];
    let starts_item = before.is_empty()
        || before.ends_with(' ')
            && before.split_whitespace().all(|w| {
                matches!(
                    w,
                    "pub"
                        | "pub(crate)"
                        | "pub(super)"
                        | "unsafe"
                        | "extern"
                        | "\"C\""
                        | "async"
                        | "const"
                )
            });
    if !starts_item {
        return None;
    }
    let rest = &line[at + 3..];
    let end = rest.find(|c: char| !(c.is_alphanumeric() || c == '_'))?;
    Some(&rest[..end]).filter(|name| !name.is_empty())
}

/// The items `docs/unsafe.md` lists: rows of `| `file` | `item` | ... |`.
fn listed(doc: &str) -> BTreeSet<Item> {
    doc.lines()
        .filter_map(|line| {
            let cells: Vec<&str> = line.split('|').map(str::trim).collect();
            let code = |cell: &str| {
                cell.strip_prefix('`')?
                    .strip_suffix('`')
                    .map(str::to_string)
            };
            Some((code(cells.get(1)?)?, code(cells.get(2)?)?))
        })
        .collect()
}

#[test]
fn every_unsafe_item_is_listed_with_its_contract() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut files = Vec::new();
    sources(&root.join("src-rust"), &mut files);
    let mut found = BTreeSet::new();
    for file in files {
        let text = std::fs::read_to_string(&file).expect("a readable source file");
        let path = file.strip_prefix(root).expect("under the root");
        found.extend(items_of(&path.to_string_lossy(), &text));
    }
    let doc = std::fs::read_to_string(root.join("docs/unsafe.md")).expect("docs/unsafe.md");
    let listed = listed(&doc);
    let missing: Vec<_> = found.difference(&listed).collect();
    let stale: Vec<_> = listed.difference(&found).collect();
    assert!(
        missing.is_empty() && stale.is_empty(),
        "docs/unsafe.md is out of date.\nunsafe code not listed (add a row with its contract and its edge test): {missing:#?}\nlisted but no longer in the code: {stale:#?}"
    );
}

#[test]
fn the_scan_finds_each_kind_of_item() {
    let text = r#"
extern "C" {
    fn foreign_one(x: i32) -> i32;
    pub fn foreign_two();
}
// unsafe { in a comment }
pub(super) unsafe fn raw(p: *const u8) -> u8 {
    *p
}
fn caller() {
    let _ = unsafe { raw(std::ptr::null()) };
}
#[cfg(test)]
mod tests {
    fn test_only() { unsafe { } }
}
"#;
    let names: Vec<String> = items_of("f.rs", text).into_iter().map(|(_, n)| n).collect();
    assert_eq!(
        names,
        [
            "caller",
            "extern foreign_one",
            "extern foreign_two",
            "raw (unsafe fn)"
        ]
    );
    let doc = "| file | item |\n|---|---|\n| `a.rs` | `go` | x |\n";
    assert_eq!(
        listed(doc),
        BTreeSet::from([("a.rs".to_string(), "go".to_string())])
    );
}
