//! The documentation holds together: the README stays short enough to read
//! in ten minutes and leads to every page of `docs/`, and every link
//! between them (and to files of the repository) reaches a file that
//! exists, at a heading that exists.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

/// The most lines the README may have.
const README_LINES: usize = 300;

fn repo() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// README.md and every page of docs/.
fn pages() -> Vec<PathBuf> {
    let mut pages = vec![repo().join("README.md")];
    let mut docs: Vec<PathBuf> = std::fs::read_dir(repo().join("docs"))
        .expect("docs/ exists")
        .map(|entry| entry.expect("a readable entry").path())
        .filter(|path| path.extension().is_some_and(|ext| ext == "md"))
        .collect();
    docs.sort();
    pages.extend(docs);
    pages
}

/// The lines of `text` outside fenced code blocks, with inline code spans
/// taken out (a link written as code is not a link).
fn prose(text: &str) -> Vec<String> {
    let mut lines = Vec::new();
    let mut fenced = false;
    for line in text.lines() {
        if line.trim_start().starts_with("```") {
            fenced = !fenced;
            continue;
        }
        if fenced {
            continue;
        }
        let mut kept = String::new();
        for (i, part) in line.split('`').enumerate() {
            if i % 2 == 0 {
                kept.push_str(part);
            }
        }
        lines.push(kept);
    }
    lines
}

/// The targets of the markdown links `[text](target)` in `text`.
fn links(text: &str) -> Vec<String> {
    let mut found = Vec::new();
    for line in prose(text) {
        let mut rest = line.as_str();
        while let Some(at) = rest.find("](") {
            let after = &rest[at + 2..];
            let Some(end) = after.find(')') else {
                break;
            };
            found.push(after[..end].trim().to_string());
            rest = &after[end..];
        }
    }
    found
}

/// A heading's anchor as GitHub makes it: lower case, punctuation other
/// than `-` and `_` dropped, spaces as `-`.
fn slug(heading: &str) -> String {
    heading
        .trim()
        .to_lowercase()
        .chars()
        .filter_map(|c| match c {
            ' ' => Some('-'),
            c if c.is_alphanumeric() || c == '-' || c == '_' => Some(c),
            _ => None,
        })
        .collect()
}

/// The anchors of the headings of `text`.
fn anchors(text: &str) -> BTreeSet<String> {
    let mut fenced = false;
    let mut found = BTreeSet::new();
    for line in text.lines() {
        if line.trim_start().starts_with("```") {
            fenced = !fenced;
            continue;
        }
        if !fenced && line.starts_with('#') {
            let heading = line.trim_start_matches('#').replace('`', "");
            found.insert(slug(&heading));
        }
    }
    found
}

/// What is wrong with the link `target` of the page `page`, if anything.
fn broken(page: &Path, target: &str) -> Option<String> {
    if target.starts_with("http://")
        || target.starts_with("https://")
        || target.starts_with("mailto:")
    {
        return None;
    }
    let (path, anchor) = match target.split_once('#') {
        Some((path, anchor)) => (path, Some(anchor)),
        None => (target, None),
    };
    let file = if path.is_empty() {
        page.to_path_buf()
    } else {
        page.parent().expect("a page's folder").join(path)
    };
    if !file.exists() {
        return Some(format!("{target}: no such file"));
    }
    let anchor = anchor.filter(|a| !a.is_empty())?;
    if file.extension().is_some_and(|ext| ext == "md") {
        let text = std::fs::read_to_string(&file).expect("a readable page");
        if !anchors(&text).contains(anchor) {
            return Some(format!(
                "{target}: {} has no heading #{anchor}",
                file.display()
            ));
        }
    }
    None
}

#[test]
fn every_link_reaches_a_file_and_a_heading_that_exist() {
    let mut faults = Vec::new();
    let mut count = 0;
    for page in pages() {
        let text = std::fs::read_to_string(&page).expect("a readable page");
        for target in links(&text) {
            count += 1;
            if let Some(fault) = broken(&page, &target) {
                let name = page.strip_prefix(repo()).unwrap_or(&page);
                faults.push(format!("{}: {fault}", name.display()));
            }
        }
    }
    assert!(count > 20, "the pages link to each other: {count} links");
    assert!(faults.is_empty(), "broken links:\n{}", faults.join("\n"));
}

#[test]
fn the_readme_is_short_and_leads_to_every_page() {
    let readme = std::fs::read_to_string(repo().join("README.md")).expect("README.md");
    let lines = readme.lines().count();
    assert!(
        lines <= README_LINES,
        "README.md has {lines} lines; the reference belongs in docs/"
    );
    let linked: BTreeSet<String> = links(&readme).into_iter().collect();
    for page in pages().iter().skip(1) {
        let name = page.file_name().and_then(|n| n.to_str()).expect("a name");
        assert!(
            linked.contains(&format!("docs/{name}")),
            "README.md does not lead to docs/{name}"
        );
    }
}

#[test]
fn the_checks_read_markdown_as_github_does() {
    assert_eq!(slug("The /agent WebSocket"), "the-agent-websocket");
    assert_eq!(
        slug("window.nostr for web pages (NIP-07)"),
        "windownostr-for-web-pages-nip-07"
    );
    assert_eq!(
        anchors("# A\n```\n# not a heading\n```\n## From a shell: `sovereign`\n"),
        BTreeSet::from(["a".to_string(), "from-a-shell-sovereign".to_string()])
    );
    assert_eq!(
        links("[a](x.md) `[b](y.md)` [c](z.md#h)\n```\n[d](w.md)\n```\n"),
        ["x.md", "z.md#h"]
    );
    let here = repo().join("README.md");
    assert_eq!(broken(&here, "https://example.org/none"), None);
    assert_eq!(broken(&here, "docs/security.md"), None);
    assert!(broken(&here, "docs/no-such-page.md").is_some());
    assert!(broken(&here, "docs/security.md#no-such-heading").is_some());
    assert_eq!(broken(&here, "#quick-start"), None);
}
