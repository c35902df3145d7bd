//! The source files the structure tests read (`layers.rs`, `file_cycles.rs`).

use std::path::{Path, PathBuf};

/// Every `.rs` file under `dir`, however deep.
pub fn sources(dir: &Path, out: &mut Vec<PathBuf>) {
    for entry in std::fs::read_dir(dir).expect("readable source folder") {
        let path = entry.expect("a directory entry").path();
        if path.is_dir() {
            sources(&path, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
}
