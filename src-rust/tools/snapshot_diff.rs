//! `snapshot diff: true`: only what changed since this session's previous
//! snapshot of the tab, so an assistant re-reads a page for a few tokens.
//! The address and title are lines like the others: said when they changed.

/// What a diff says when the tab shows another document than last time.
pub const NEW_DOCUMENT: &str = "a new document: its whole snapshot follows";

/// Lines that appeared and lines that went away (as multisets: a line that
/// is still there once more is not reported), in page order.
pub fn diff(previous: &str, current: &str) -> String {
    use std::collections::HashMap;
    let mut old: HashMap<&str, usize> = HashMap::new();
    for line in previous.lines() {
        *old.entry(line).or_default() += 1;
    }
    let mut added = Vec::new();
    for line in current.lines() {
        match old.get_mut(line) {
            Some(n) if *n > 0 => *n -= 1,
            _ => added.push(line),
        }
    }
    let mut new: HashMap<&str, usize> = HashMap::new();
    for line in current.lines() {
        *new.entry(line).or_default() += 1;
    }
    let mut removed = Vec::new();
    for line in previous.lines() {
        match new.get_mut(line) {
            Some(n) if *n > 0 => *n -= 1,
            _ => removed.push(line),
        }
    }
    if added.is_empty() && removed.is_empty() {
        return "no changes since the previous snapshot".to_string();
    }
    let mut out = format!(
        "changes since the previous snapshot: {} added, {} removed\n",
        added.len(),
        removed.len()
    );
    for line in added {
        out.push_str("+ ");
        out.push_str(line.trim_start());
        out.push('\n');
    }
    for line in removed {
        out.push_str("- ");
        out.push_str(line.trim_start());
        out.push('\n');
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reports_added_and_removed_lines_only() {
        let before = "e1 button \"Add\"\ne2 listitem: one\ne3 link \"Old\"";
        let after = "e1 button \"Add\"\ne2 listitem: one\ne4 listitem: two";
        let d = diff(before, after);
        assert!(d.starts_with("changes since the previous snapshot: 1 added, 1 removed"));
        assert!(d.contains("+ e4 listitem: two"));
        assert!(d.contains("- e3 link \"Old\""));
        assert!(!d.contains("Add"));
        assert_eq!(
            diff(before, before),
            "no changes since the previous snapshot"
        );
    }

    #[test]
    fn repeated_lines_count() {
        assert!(diff("a\na", "a").contains("1 removed"));
        assert!(diff("a", "a\na").contains("1 added"));
    }
}
