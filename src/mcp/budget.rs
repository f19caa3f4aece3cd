//! The byte budget of a tool's text: a context window is small, and a variable dump or a
//! program's output can be megabytes. A text is shown from a line (`offset`) for at most
//! `max_bytes`, in whole lines, and what was left is said, with the offset that shows it.

use serde_json::{Value, json};

/// The budget when the call names none: a screenful or two, a small part of any context.
pub const DEFAULT_MAX_BYTES: usize = 8192;

/// The least budget a call may ask for: the continuation notice itself needs room.
pub const MIN_MAX_BYTES: usize = 256;

/// A text cut to its budget.
#[derive(Debug, PartialEq)]
pub struct Cut {
    /// The lines shown, with the continuation notice when something was left.
    pub text: String,
    /// What was left, for `structuredContent`: `None` when everything from the offset was shown.
    pub more: Option<Value>,
}

/// Shows `text` from line `offset` (0 is the first) in at most `max_bytes`, in whole lines;
/// a single line longer than the budget is cut at a character boundary, and said to be.
pub fn cut(text: &str, offset: usize, max_bytes: usize) -> Cut {
    let lines: Vec<&str> = text.lines().collect();
    let total = lines.len();
    if offset > 0 && offset >= total {
        return Cut {
            text: format!("(nothing from line {offset}: the text has {total} lines)\n"),
            more: None,
        };
    }
    // Room for the notice, so the whole answer stays within the budget.
    let room = max_bytes.saturating_sub(120);
    let mut shown = String::new();
    let mut next = offset;
    for line in &lines[offset..] {
        if shown.len() + line.len() + 1 > room {
            break;
        }
        shown.push_str(line);
        shown.push('\n');
        next += 1;
    }
    let mut partial_line = false;
    if next == offset && next < total {
        // One line longer than the whole budget: its head, and the rest is not reachable by
        // offset, so the notice says so.
        let line = lines[offset];
        let mut end = room.min(line.len());
        while !line.is_char_boundary(end) {
            end -= 1;
        }
        shown.push_str(&line[..end]);
        shown.push_str(" …\n");
        next += 1;
        partial_line = true;
    }
    if next >= total && !partial_line {
        return Cut {
            text: if offset == 0 { text.to_string() } else { shown },
            more: None,
        };
    }
    let remaining = total - next;
    let bytes: usize = lines[next..].iter().map(|l| l.len() + 1).sum();
    if partial_line {
        shown.push_str(&format!(
            "[line {} cut at {} bytes; max_bytes raises the budget]\n",
            offset + 1,
            room
        ));
    }
    if remaining > 0 {
        shown.push_str(&format!(
            "[{remaining} more lines ({bytes} bytes); ask again with offset={next}]\n"
        ));
    }
    Cut {
        text: shown,
        more: Some(json!({
            "offset": offset,
            "next_offset": if remaining > 0 { Some(next) } else { None },
            "remaining_lines": remaining,
            "remaining_bytes": bytes,
            "total_lines": total,
        })),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn numbered(n: usize) -> String {
        (0..n)
            .map(|i| format!("line {i:04} {}\n", "x".repeat(40)))
            .collect()
    }

    #[test]
    fn a_text_within_the_budget_is_shown_whole() {
        let text = numbered(3);
        assert_eq!(cut(&text, 0, DEFAULT_MAX_BYTES), Cut { text, more: None });
    }

    #[test]
    fn a_long_text_is_cut_at_a_line_and_the_offset_shows_the_rest() {
        let text = numbered(1000);
        let first = cut(&text, 0, 1024);
        assert!(first.text.len() <= 1024, "{}", first.text.len());
        let more = first.more.expect("more");
        let next = more["next_offset"].as_u64().expect("next") as usize;
        assert!(
            first
                .text
                .ends_with(&format!("ask again with offset={next}]\n"))
        );
        assert_eq!(more["remaining_lines"], 1000 - next);
        let second = cut(&text, next, 1024);
        assert!(
            second.text.starts_with(&format!("line {next:04}")),
            "{}",
            second.text
        );
        // Every line is shown once, in order, by following the offsets.
        let mut seen = Vec::new();
        let mut offset = 0;
        loop {
            let part = cut(&text, offset, 2048);
            seen.extend(
                part.text
                    .lines()
                    .filter(|l| l.starts_with("line "))
                    .map(String::from),
            );
            match part.more.and_then(|m| m["next_offset"].as_u64()) {
                Some(n) => offset = n as usize,
                None => break,
            }
        }
        assert_eq!(seen, text.lines().map(String::from).collect::<Vec<_>>());
        let past = cut(&text, 5000, 1024);
        assert!(past.text.contains("the text has 1000 lines"));
    }

    #[test]
    fn one_huge_line_is_cut_and_said_to_be() {
        let text = format!("{}\nnext\n", "é".repeat(5000));
        let part = cut(&text, 0, 512);
        assert!(part.text.len() <= 512, "{}", part.text.len());
        assert!(part.text.contains("line 1 cut at"), "{}", part.text);
        assert!(
            part.text.contains("ask again with offset=1"),
            "{}",
            part.text
        );
    }
}
