//! No import cycle between files of the library: if `a.rs` uses `b.rs`,
//! nothing `b.rs` uses (directly or through others) uses `a.rs`. The layer
//! rule (`layers.rs`) sees only top-level modules; this sees every file.
//!
//! What counts as "file A uses file B": a path in A's code (a `use`, or a
//! path in an expression or type) that resolves to an item of B. Paths are
//! `crate::a::b`, `super::x` (also `super::super::`), `self::x`, a child
//! module's name (`tab::Publisher` in the file that declares `mod tab`), and
//! `use` groups (`use super::{a, b::C}`). A path resolves to the longest
//! prefix that is a file module.
//!
//! The rule for a parent's `mod.rs`: declaring `mod x;` and re-exporting
//! with `pub use x::Item;` (any `pub(..) use`) are signposts, not uses. A
//! path through a re-export reaches the file that defines the item, so a
//! child that imports `super::Item` re-exported from a sibling depends on the
//! sibling, not on `mod.rs`. Code in `mod.rs` that uses a child (a private
//! `use`, a call) is a use; so a child that imports from `mod.rs` what
//! `mod.rs` itself defines, while `mod.rs` uses that child, is a cycle.
//!
//! Imports inside an inline module (`mod tests { use super::*; }`) resolve
//! from that module, so `super` there is the file itself.

mod source_tree;

use source_tree::sources;
use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

#[derive(Debug, Clone, PartialEq)]
enum Token {
    Ident(String),
    PathSep,
    Open,
    Close,
    Comma,
    Semi,
    Star,
    Other(char),
}

/// The tokens of Rust source that matter to paths; comments, strings and
/// character literals are dropped.
fn lex(text: &str) -> Vec<Token> {
    let chars: Vec<char> = text.chars().collect();
    let mut tokens = Vec::new();
    let mut i = 0;
    while i < chars.len() {
        let c = chars[i];
        let next = chars.get(i + 1).copied();
        if c.is_whitespace() {
            i += 1;
        } else if c == '/' && next == Some('/') {
            while i < chars.len() && chars[i] != '\n' {
                i += 1;
            }
        } else if c == '/' && next == Some('*') {
            let mut depth = 0;
            while i < chars.len() {
                if chars[i] == '/' && chars.get(i + 1) == Some(&'*') {
                    depth += 1;
                    i += 2;
                } else if chars[i] == '*' && chars.get(i + 1) == Some(&'/') {
                    depth -= 1;
                    i += 2;
                    if depth == 0 {
                        break;
                    }
                } else {
                    i += 1;
                }
            }
        } else if c == '"' {
            i = skip_string(&chars, i + 1);
        } else if c == '\'' {
            i = skip_quote(&chars, i);
        } else if c.is_alphanumeric() || c == '_' {
            let start = i;
            while i < chars.len() && (chars[i].is_alphanumeric() || chars[i] == '_') {
                i += 1;
            }
            let word: String = chars[start..i].iter().collect();
            let raw = matches!(word.as_str(), "r" | "br" | "cr");
            let bytes = matches!(word.as_str(), "b" | "c");
            match chars.get(i) {
                Some('"') if raw || bytes => i = skip_raw(&chars, i, 0, raw),
                Some('#') if raw && matches!(chars.get(i + 1), Some('#' | '"')) => {
                    let mut hashes = 0;
                    while chars.get(i + hashes) == Some(&'#') {
                        hashes += 1;
                    }
                    i = skip_raw(&chars, i + hashes, hashes, true);
                }
                Some('\'') if word == "b" => i = skip_quote(&chars, i),
                _ => tokens.push(Token::Ident(word)),
            }
        } else if c == ':' && next == Some(':') {
            tokens.push(Token::PathSep);
            i += 2;
        } else {
            tokens.push(match c {
                '{' => Token::Open,
                '}' => Token::Close,
                ',' => Token::Comma,
                ';' => Token::Semi,
                '*' => Token::Star,
                other => Token::Other(other),
            });
            i += 1;
        }
    }
    tokens
}

/// Past a plain string whose opening quote is before `i`.
fn skip_string(chars: &[char], mut i: usize) -> usize {
    while i < chars.len() {
        match chars[i] {
            '\\' => i += 2,
            '"' => return i + 1,
            _ => i += 1,
        }
    }
    i
}

/// Past a string starting at the quote `i`, raw (`hashes` after it) or not.
fn skip_raw(chars: &[char], i: usize, hashes: usize, raw: bool) -> usize {
    if !raw {
        return skip_string(chars, i + 1);
    }
    let mut j = i + 1;
    while j < chars.len() {
        if chars[j] == '"' && (1..=hashes).all(|k| chars.get(j + k) == Some(&'#')) {
            return j + 1 + hashes;
        }
        j += 1;
    }
    j
}

/// Past a character literal at `i`, or past the quote of a lifetime.
fn skip_quote(chars: &[char], i: usize) -> usize {
    if chars.get(i + 1) == Some(&'\\') {
        let mut j = i + 2;
        while j < chars.len() && chars[j] != '\'' {
            j += 1;
        }
        return j + 1;
    }
    if chars.get(i + 2) == Some(&'\'') {
        return i + 3;
    }
    i + 1
}

/// One source file: its module path and tokens.
struct File {
    relative: String,
    module: Vec<String>,
    tokens: Vec<Token>,
}

/// The library's files (the binaries' roots are crates of their own).
fn library(root: &Path) -> Vec<File> {
    let mut paths = Vec::new();
    sources(root, &mut paths);
    let mut files = Vec::new();
    for path in paths {
        let relative = path.strip_prefix(root).expect("under src-rust");
        let parts: Vec<String> = relative
            .components()
            .map(|c| c.as_os_str().to_string_lossy().into_owned())
            .collect();
        if parts[0] == "bin" || parts == ["main.rs"] {
            continue;
        }
        let mut module: Vec<String> = parts.iter().map(|p| p.replace(".rs", "")).collect();
        if matches!(module.last().map(String::as_str), Some("mod" | "lib")) {
            module.pop();
        }
        let text = std::fs::read_to_string(&path).expect("readable source");
        files.push(File {
            relative: relative.display().to_string(),
            module,
            tokens: lex(&text),
        });
    }
    files
}

/// A path as written: its segments, and the index of its first token.
#[derive(Debug)]
struct Written {
    segments: Vec<String>,
    /// The name it is bound to (`as` alias or last segment), for re-exports.
    name: String,
}

/// Reads the path tree starting at token `i` (`a::b::{c, d::e}`); returns
/// each leaf and the index after the tree.
fn read_tree(tokens: &[Token], mut i: usize, prefix: &[String], out: &mut Vec<Written>) -> usize {
    let mut segments = prefix.to_vec();
    loop {
        match tokens.get(i) {
            Some(Token::Ident(word)) => {
                segments.push(word.clone());
                i += 1;
            }
            Some(Token::Open) => {
                i += 1;
                loop {
                    match tokens.get(i) {
                        Some(Token::Close) => return i + 1,
                        Some(Token::Comma) => i += 1,
                        None => return i,
                        _ => {
                            let before = i;
                            i = read_tree(tokens, i, &segments, out);
                            if i == before {
                                i += 1;
                            }
                        }
                    }
                }
            }
            Some(Token::Star) => {
                out.push(Written {
                    segments,
                    name: "*".into(),
                });
                return i + 1;
            }
            _ => return i,
        }
        if tokens.get(i) == Some(&Token::PathSep) {
            i += 1;
            continue;
        }
        if segments.last().map(String::as_str) == Some("self") {
            segments.pop();
        }
        let mut name = segments.last().cloned().unwrap_or_default();
        if let (Some(Token::Ident(r#as)), Some(Token::Ident(alias))) =
            (tokens.get(i), tokens.get(i + 1))
        {
            if r#as == "as" {
                name = alias.clone();
                i += 2;
            }
        }
        out.push(Written { segments, name });
        return i;
    }
}

/// Where paths in a file resolve: modules, and the names each re-exports.
struct Tree {
    modules: BTreeMap<Vec<String>, String>,
    reexports: BTreeMap<Vec<String>, BTreeMap<String, String>>,
}

impl Tree {
    /// The file a path written in module `from` reaches, if it is ours.
    fn resolve(&self, from: &[String], segments: &[String]) -> Option<String> {
        let (mut base, rest) = match segments.first().map(String::as_str) {
            Some("crate") => (Vec::new(), &segments[1..]),
            Some("self") => (from.to_vec(), &segments[1..]),
            Some("super") => {
                let mut base = from.to_vec();
                let mut rest = segments;
                while rest.first().map(String::as_str) == Some("super") {
                    base.pop()?;
                    rest = &rest[1..];
                }
                (base, rest)
            }
            Some(first) => {
                let mut child = from.to_vec();
                child.push(first.to_string());
                if !self.modules.contains_key(&child) {
                    return None;
                }
                (from.to_vec(), segments)
            }
            None => return None,
        };
        // An inline module lives in its file's module.
        while !self.modules.contains_key(&base) {
            base.pop()?;
        }
        for segment in rest {
            let mut child = base.clone();
            child.push(segment.clone());
            if self.modules.contains_key(&child) {
                base = child;
                continue;
            }
            if let Some(file) = self.reexports.get(&base).and_then(|r| r.get(segment)) {
                return Some(file.clone());
            }
            break;
        }
        self.modules.get(&base).cloned()
    }
}

/// What one file's code does with paths, in order.
enum Found {
    /// A path used by code, written in this (possibly inline) module.
    Use(Vec<String>, Written),
    /// A `pub use` leaf: the name it binds in the file's module.
    Reexport(Written),
}

/// Walks a file's tokens, tracking inline modules, and collects its paths.
fn scan(file: &File, modules: &BTreeMap<Vec<String>, String>) -> Vec<Found> {
    let tokens = &file.tokens;
    let mut found = Vec::new();
    // Inline modules open: their name and the brace depth they close at.
    let mut inline: Vec<(String, usize)> = Vec::new();
    let mut depth = 0;
    let mut i = 0;
    while i < tokens.len() {
        match &tokens[i] {
            Token::Open => {
                depth += 1;
                i += 1;
            }
            Token::Close => {
                if inline.last().is_some_and(|(_, d)| *d == depth) {
                    inline.pop();
                }
                depth = depth.saturating_sub(1);
                i += 1;
            }
            Token::Ident(word) if word == "mod" => {
                if let (Some(Token::Ident(name)), Some(Token::Open)) =
                    (tokens.get(i + 1), tokens.get(i + 2))
                {
                    depth += 1;
                    inline.push((name.clone(), depth));
                    i += 3;
                } else {
                    i += 1;
                }
            }
            Token::Ident(word) if word == "use" => {
                let public = public_before(tokens, i);
                let mut leaves = Vec::new();
                i = read_tree(tokens, i + 1, &[], &mut leaves);
                for leaf in leaves {
                    if public && inline.is_empty() {
                        found.push(Found::Reexport(leaf));
                    } else {
                        found.push(Found::Use(here(&file.module, &inline), leaf));
                    }
                }
            }
            Token::Ident(word) if starts_path(tokens, i) => {
                let from = here(&file.module, &inline);
                let ours = matches!(word.as_str(), "crate" | "self" | "super") || {
                    let mut child = from.clone();
                    child.push(word.clone());
                    modules.contains_key(&child)
                };
                let mut leaves = Vec::new();
                let after = read_tree(tokens, i, &[], &mut leaves);
                if ours {
                    found.extend(leaves.into_iter().map(|l| Found::Use(from.clone(), l)));
                }
                i = after.max(i + 1);
            }
            _ => i += 1,
        }
    }
    found
}

/// The module a path is written in: the file's, plus open inline modules.
fn here(module: &[String], inline: &[(String, usize)]) -> Vec<String> {
    let mut here = module.to_vec();
    here.extend(inline.iter().map(|(name, _)| name.clone()));
    here
}

/// Whether the `use` at `i` is preceded by `pub` or `pub(..)`.
fn public_before(tokens: &[Token], i: usize) -> bool {
    let mut j = i;
    if j >= 1 && tokens[j - 1] == Token::Other(')') {
        while j > 0 && tokens[j - 1] != Token::Other('(') {
            j -= 1;
        }
        j = j.saturating_sub(1);
    }
    j >= 1 && tokens[j - 1] == Token::Ident("pub".into())
}

/// Whether token `i` begins a path (`x::`, not the middle of `a::x::`).
fn starts_path(tokens: &[Token], i: usize) -> bool {
    tokens.get(i + 1) == Some(&Token::PathSep)
        && (i == 0 || tokens[i - 1] != Token::PathSep)
        && !(i >= 1 && tokens[i - 1] == Token::Other('$'))
}

/// The file graph: each file and the files its code uses.
fn graph(files: &[File]) -> BTreeMap<String, BTreeSet<String>> {
    let modules: BTreeMap<Vec<String>, String> = files
        .iter()
        .map(|f| (f.module.clone(), f.relative.clone()))
        .collect();
    let scans: Vec<Vec<Found>> = files.iter().map(|f| scan(f, &modules)).collect();
    let mut tree = Tree {
        modules,
        reexports: BTreeMap::new(),
    };
    // Re-exports may chain (`pub use` of a `pub use`): settle them in rounds.
    for _ in 0..4 {
        for (file, found) in files.iter().zip(&scans) {
            for item in found {
                if let Found::Reexport(leaf) = item {
                    if let Some(target) = tree.resolve(&file.module, &leaf.segments) {
                        tree.reexports
                            .entry(file.module.clone())
                            .or_default()
                            .insert(leaf.name.clone(), target);
                    }
                }
            }
        }
    }
    let mut edges: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    for (file, found) in files.iter().zip(&scans) {
        let uses = edges.entry(file.relative.clone()).or_default();
        for item in found {
            if let Found::Use(from, leaf) = item {
                if let Some(target) = tree.resolve(from, &leaf.segments) {
                    if target != file.relative {
                        uses.insert(target);
                    }
                }
            }
        }
    }
    edges
}

/// The strongly connected parts of the graph with more than one file.
fn cycles(edges: &BTreeMap<String, BTreeSet<String>>) -> Vec<Vec<String>> {
    // Two files are in one cycle when each reaches the other.
    let reach = |start: &String| {
        let mut seen = BTreeSet::new();
        let mut stack = vec![start.clone()];
        while let Some(at) = stack.pop() {
            for next in edges.get(&at).into_iter().flatten() {
                if seen.insert(next.clone()) {
                    stack.push(next.clone());
                }
            }
        }
        seen
    };
    let reached: BTreeMap<&String, BTreeSet<String>> =
        edges.keys().map(|file| (file, reach(file))).collect();
    let mut placed = BTreeSet::new();
    let mut found = Vec::new();
    for file in edges.keys() {
        if placed.contains(file) || !reached[file].contains(file) {
            continue;
        }
        let part: Vec<String> = reached[file]
            .iter()
            .filter(|other| reached[*other].contains(file))
            .cloned()
            .collect();
        placed.extend(part.iter().cloned());
        found.push(part);
    }
    found
}

/// A cycle's files, each with the files of the cycle it uses.
fn describe(part: &[String], edges: &BTreeMap<String, BTreeSet<String>>) -> String {
    part.iter()
        .map(|file| {
            let uses: Vec<&str> = edges[file]
                .iter()
                .filter(|t| part.contains(t))
                .map(String::as_str)
                .collect();
            format!("  {file} -> {}", uses.join(", "))
        })
        .collect::<Vec<_>>()
        .join("\n")
}

#[test]
fn no_file_imports_a_file_that_imports_it_back() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("src-rust");
    let edges = graph(&library(&root));
    let found = cycles(&edges);
    let faults: Vec<String> = found.iter().map(|part| describe(part, &edges)).collect();
    assert!(
        faults.is_empty(),
        "import cycles between files:\n{}",
        faults.join("\n\n")
    );
}

fn file(relative: &str, text: &str) -> File {
    let mut module: Vec<String> = relative
        .trim_end_matches(".rs")
        .split('/')
        .map(String::from)
        .collect();
    if matches!(module.last().map(String::as_str), Some("mod" | "lib")) {
        module.pop();
    }
    File {
        relative: relative.into(),
        module,
        tokens: lex(text),
    }
}

#[test]
fn the_scanner_sees_every_form_of_path() {
    let files = [
        file("lib.rs", "pub mod a;"),
        file(
            "a/mod.rs",
            "mod b; mod c; mod d; mod e; pub use e::Thing;\nfn f() { b::go(); }",
        ),
        file("a/b.rs", "use super::{c, d::D as Dee};"),
        file(
            "a/c.rs",
            "fn g() { crate::a::e::go(); let s = \"super::b\"; }",
        ),
        file("a/d.rs", "use super::Thing; // super::b::x\n"),
        file(
            "a/e.rs",
            "fn h() { self::h(); }\n#[cfg(test)] mod tests { use super::*; }",
        ),
    ];
    let edges = graph(&files);
    let uses = |f: &str| edges[f].iter().cloned().collect::<Vec<_>>();
    assert_eq!(uses("a/mod.rs"), ["a/b.rs"]);
    assert_eq!(uses("a/b.rs"), ["a/c.rs", "a/d.rs"]);
    assert_eq!(uses("a/c.rs"), ["a/e.rs"]);
    assert_eq!(uses("a/d.rs"), ["a/e.rs"], "through the re-export");
    assert!(uses("a/e.rs").is_empty(), "tests' super is the file itself");
    assert!(cycles(&edges).is_empty());
}

#[test]
fn a_child_using_what_its_parent_defines_while_the_parent_uses_it_is_a_cycle() {
    let files = [
        file("lib.rs", "pub mod a; pub mod x;"),
        file("a/mod.rs", "mod b; pub struct P; fn f() { b::go(); }"),
        file("a/b.rs", "use super::P; pub fn go() {}"),
        file("x/one.rs", "use crate::x::two::{self, T};"),
        file("x/two.rs", "fn k() { crate::x::one::f(); }"),
        file("x/mod.rs", "pub mod one; pub mod two;"),
    ];
    let edges = graph(&files);
    let found = cycles(&edges);
    assert_eq!(
        found,
        [
            vec!["a/b.rs".to_string(), "a/mod.rs".to_string()],
            vec!["x/one.rs".to_string(), "x/two.rs".to_string()],
        ]
    );
}
