//! Big snapshots a part at a time. The page answers its whole tree; this
//! cuts it at a line boundary near `max_chars` and ends the part with a
//! line that says how to go on: `snapshot {after: "e1144"}` gives the next
//! part, with the same refs, no line twice and none left out.
//!
//! A cursor names the last ref shown (`e1144`, `f1e9`), or the start (`^`),
//! and, when the part ended among lines without refs, how many of those
//! lines after it were shown (`e1144+3`). A plain ref means: on from the
//! next line that has a ref, so a cursor stays right when the text between
//! two controls changes.

use crate::base::error::{ErrorCode, ToolError};

/// What a snapshot shows when the caller gives no `max_chars`.
pub const DEFAULT_MAX_CHARS: usize = 60_000;

/// Where a part starts: after the line holding `anchor` (or at the start),
/// skipping `skip` lines, or, with `skip` None, skipping to the next line
/// with a ref.
#[derive(Debug, PartialEq, Eq)]
pub struct Cursor {
    anchor: Option<String>,
    skip: Option<usize>,
}

impl Cursor {
    pub fn parse(text: &str) -> Result<Cursor, ToolError> {
        let bad = || {
            ToolError::invalid_field(
                "after",
                format!("{text:?} is no cursor: give the one a cut snapshot's last line names, like \"e1144\""),
            )
        };
        let (head, skip) = match text.split_once('+') {
            Some((head, n)) => (head, Some(n.parse::<usize>().map_err(|_| bad())?)),
            None => (text, None),
        };
        let anchor = match head {
            "^" => None,
            r if is_ref(r) => Some(r.to_string()),
            _ => return Err(bad()),
        };
        if anchor.is_none() && skip.is_none() {
            return Err(bad());
        }
        Ok(Cursor { anchor, skip })
    }

    fn spelled(&self) -> String {
        let head = self.anchor.as_deref().unwrap_or("^");
        match self.skip {
            Some(n) => format!("{head}+{n}"),
            None => head.to_string(),
        }
    }
}

/// e12, f1e9, f2f1e3: the refs snapshots print.
fn is_ref(text: &str) -> bool {
    let mut rest = text;
    while let Some(after) = rest.strip_prefix('f') {
        let digits = after.len() - after.trim_start_matches(|c: char| c.is_ascii_digit()).len();
        if digits == 0 {
            return false;
        }
        rest = &after[digits..];
    }
    match rest.strip_prefix('e') {
        Some(n) => !n.is_empty() && n.bytes().all(|b| b.is_ascii_digit()),
        None => false,
    }
}

/// The ref a line shows: its first word, after the indent (and a diff's
/// `+ ` or `- `).
fn ref_of(line: &str) -> Option<&str> {
    let line = line.trim_start();
    let line = line
        .strip_prefix("+ ")
        .or_else(|| line.strip_prefix("- "))
        .unwrap_or(line);
    let word = line.split(' ').next()?;
    is_ref(word).then_some(word)
}

/// One part of `text`, and the cursor of the next when there is more.
/// `again` is how the call is repeated (its other parameters), for the
/// closing line.
pub fn part(
    text: &str,
    max_chars: usize,
    after: Option<&Cursor>,
    again: &str,
) -> Result<String, ToolError> {
    let lines: Vec<&str> = text.lines().collect();
    let start = match after {
        None => 0,
        Some(cursor) => start_of(&lines, cursor)?,
    };
    let mut used = 0;
    let mut end = start;
    while end < lines.len() {
        let cost = lines[end].chars().count() + usize::from(end > start);
        // A part holds at least one line, however long.
        if end > start && used + cost > max_chars {
            break;
        }
        used += cost;
        end += 1;
    }
    if start == lines.len() {
        return Ok("(the end: nothing after this cursor)".to_string());
    }
    let mut out = lines[start..end].join("\n");
    if end < lines.len() {
        let next = cursor_before(&lines, end);
        let left = lines.len() - end;
        let refs = lines[end..].iter().filter(|l| ref_of(l).is_some()).count();
        out.push_str(&format!(
            "\n[... {left} more lines, {refs} refs: snapshot {{after: \"{}\"{again}}} goes on; outline: true lists the parts]",
            next.spelled()
        ));
    }
    Ok(out)
}

/// The index of the first line after `cursor`.
fn start_of(lines: &[&str], cursor: &Cursor) -> Result<usize, ToolError> {
    let from = match &cursor.anchor {
        None => 0,
        Some(anchor) => {
            let at = lines
                .iter()
                .position(|l| ref_of(l) == Some(anchor.as_str()))
                .ok_or_else(|| {
                    ToolError::new(
                        ErrorCode::StaleRef,
                        format!("{anchor} is not in this snapshot any more (the page changed): snapshot again without after"),
                    )
                })?;
            at + 1
        }
    };
    Ok(match cursor.skip {
        Some(n) => (from + n).min(lines.len()),
        None => lines[from..]
            .iter()
            .position(|l| ref_of(l).is_some())
            .map_or(lines.len(), |i| from + i),
    })
}

/// The cursor of a part that ends before `lines[end]`.
fn cursor_before(lines: &[&str], end: usize) -> Cursor {
    let last_ref = lines[..end].iter().rposition(|l| ref_of(l).is_some());
    let anchor = last_ref.map(|i| ref_of(lines[i]).unwrap_or_default().to_string());
    let after_anchor = last_ref.map_or(0, |i| i + 1);
    // On from the next ref line: the plain ref says it when nothing but
    // ref-less lines were shown since the anchor.
    let plain = anchor.is_some() && ref_of(lines[end]).is_some();
    Cursor {
        anchor,
        skip: (!plain).then_some(end - after_anchor),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every part of `text` from the first to the last.
    fn all_parts(text: &str, max: usize) -> Vec<String> {
        let mut parts = Vec::new();
        let mut after: Option<Cursor> = None;
        loop {
            let part = part(text, max, after.as_ref(), "").unwrap();
            let (body, next) = match part.rsplit_once("\n[... ") {
                Some((body, tail)) => {
                    let cursor = tail.split('"').nth(1).unwrap().to_string();
                    (body.to_string(), Some(cursor))
                }
                None => (part.clone(), None),
            };
            parts.push(body);
            match next {
                Some(c) => after = Some(Cursor::parse(&c).unwrap()),
                None => return parts,
            }
        }
    }

    #[test]
    fn parts_hold_every_line_once_in_order() {
        let text = (0..500)
            .map(|i| match i % 4 {
                0 => format!("heading \"Part {i}\" [level=2]"),
                1 | 2 => format!("e{i} link \"Item {i}\""),
                _ => format!("  text: words {i}"),
            })
            .collect::<Vec<_>>()
            .join("\n");
        for max in [1, 40, 100, 997, 5_000] {
            let parts = all_parts(&text, max);
            assert_eq!(parts.join("\n"), text, "max_chars {max}");
            assert!(parts.iter().all(|p| p.chars().count() <= max.max(30)));
        }
    }

    #[test]
    fn a_part_ending_among_text_lines_counts_them() {
        let text = "e1 link \"A\"\ntext: one\ntext: two\ntext: three\ne2 link \"B\"";
        let first = part(text, 25, None, "").unwrap();
        assert!(first.starts_with("e1 link \"A\"\ntext: one\n["));
        assert!(first.contains("after: \"e1+1\""), "{first}");
        let second = part(text, 1_000, Some(&Cursor::parse("e1+1").unwrap()), "").unwrap();
        assert_eq!(second, "text: two\ntext: three\ne2 link \"B\"");
        let plain = part(text, 1_000, Some(&Cursor::parse("e1").unwrap()), "").unwrap();
        assert_eq!(plain, "e2 link \"B\"");
    }

    #[test]
    fn text_before_the_first_ref_pages_from_the_start() {
        let text = "heading \"Top\" [level=1]\ntext: intro\ne1 link \"A\"";
        let first = part(text, 26, None, ", interactive: false").unwrap();
        assert!(
            first.contains("snapshot {after: \"^+1\", interactive: false}"),
            "{first}"
        );
        assert_eq!(all_parts(text, 26).join("\n"), text);
    }

    #[test]
    fn cursors_are_checked() {
        for ok in ["e1", "f1e22", "e5+3", "^+2", "f2f1e3+0"] {
            assert_eq!(Cursor::parse(ok).unwrap().spelled(), ok);
        }
        for bad in ["", "^", "x1", "e", "e1+", "e1+x", "f1", "1"] {
            let error = Cursor::parse(bad).unwrap_err();
            assert_eq!(error.code, ErrorCode::InvalidParams, "{bad}");
        }
        let gone = part("e1 link", 10, Some(&Cursor::parse("e9").unwrap()), "").unwrap_err();
        assert_eq!(gone.code, ErrorCode::StaleRef);
    }

    #[test]
    fn a_cursor_past_the_end_says_so() {
        let text = "e1 link \"A\"\ntext: tail";
        let end = part(text, 100, Some(&Cursor::parse("e1+1").unwrap()), "").unwrap();
        assert_eq!(end, "(the end: nothing after this cursor)");
    }
}
