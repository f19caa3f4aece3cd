//! The answer at the top of a probe report: one line per `--print`, its value at each hit
//! (`amount: 0 | 1 | 2`).
//!
//! Apart from the rest of the report because of how a long value is shortened there: whole
//! members are kept and the cut says how many were left out (`["ada": {…}, … 3 more]`), where a
//! cut at a character count would end in the middle of a member (`"erin": {Owner:...`). Each
//! hit's own `print:` lines below show the whole value.

use std::fmt::Write as _;

use crate::ipc::protocol::{ProbePrint, ProbeStop};

/// The characters of one value in the summary line; a longer one is cut at a member boundary.
const VALUE_CHARS: usize = 100;

/// `  amount: 0 | 1 | 2`, one line per `--print`: the answer to "what is x each time".
pub(super) fn values_across_hits(hits: &[ProbeStop]) -> String {
    let mut out = String::new();
    let Some(first) = hits.first() else {
        return out;
    };
    for (i, print) in first.prints.iter().enumerate() {
        let values: Vec<String> = hits
            .iter()
            .map(|hit| match hit.prints.get(i) {
                Some(ProbePrint {
                    value: Some(value), ..
                }) => whole_members(value, VALUE_CHARS),
                _ => "(error)".to_string(),
            })
            .collect();
        let _ = writeln!(out, "  {}: {}", print.expression, values.join(" | "));
    }
    out
}

/// `value` when it is at most `max` characters, else cut after its last whole member that fits,
/// at the outermost level where one does, with `… N more` said in each container it cut and the
/// containers closed: `[1, 2, … 8 more]`, `{a = {x = 1, … 2 more}, … 1 more}`. A value with no
/// member boundary to cut at (a long string) is cut at `max` with the characters left out said.
fn whole_members(value: &str, max: usize) -> String {
    if value.chars().count() <= max {
        return value.to_string();
    }
    let separators = member_separators(value);
    let limit = value
        .char_indices()
        .nth(max)
        .map_or(value.len(), |(at, _)| at);
    let deepest = separators.iter().map(|s| s.depth).max().unwrap_or(0);
    let cut = (1..=deepest).find_map(|depth| {
        separators
            .iter()
            .filter(|s| s.depth == depth && s.at <= limit)
            .max_by_key(|s| s.at)
    });
    let Some(cut) = cut else {
        let kept: String = value.chars().take(max).collect();
        let left = value.chars().count() - max;
        return format!("{kept}… ({left} more characters)");
    };
    let mut out = value[..cut.at].to_string();
    let left = members_left(&value[cut.at..], &cut.open);
    for (closer, count) in cut.open.iter().rev().zip(left.iter().rev()) {
        if *count > 0 {
            let _ = write!(out, ", … {count} more");
        }
        out.push(*closer);
    }
    out
}

/// A `,` between two members: where it is, how deep, and the closers of the containers open
/// there, outermost first.
struct Separator {
    at: usize,
    depth: usize,
    open: Vec<char>,
}

/// Where a scan of a value's text is in its quoted strings, which its brackets and commas inside
/// are not.
#[derive(Default)]
struct Quoting {
    quote: Option<char>,
    escaped: bool,
}

impl Quoting {
    /// Whether `c`, the next character, belongs to a quoted string (its quotes included).
    fn takes(&mut self, c: char) -> bool {
        if let Some(q) = self.quote {
            if self.escaped {
                self.escaped = false;
            } else if c == '\\' {
                self.escaped = true;
            } else if c == q {
                self.quote = None;
            }
            return true;
        }
        if matches!(c, '"' | '\'') {
            self.quote = Some(c);
            return true;
        }
        false
    }
}

/// Every `,` of `value` inside a container (`[…]`, `{…}`, `(…)`), outside quotes.
fn member_separators(value: &str) -> Vec<Separator> {
    let mut found = Vec::new();
    let mut open = Vec::new();
    let mut quoting = Quoting::default();
    for (at, c) in value.char_indices() {
        if quoting.takes(c) {
            continue;
        }
        match c {
            '[' => open.push(']'),
            '{' => open.push('}'),
            '(' => open.push(')'),
            ']' | '}' | ')' => {
                open.pop();
            }
            ',' if !open.is_empty() => found.push(Separator {
                at,
                depth: open.len(),
                open: open.clone(),
            }),
            _ => {}
        }
    }
    found
}

/// How many members of each container in `open` (outermost first) `rest`, the text from a
/// separator on, holds: those after that separator in the innermost, those after the current
/// one in each around it. A trailing separator (Delve's `[1, 2, ]`) begins no member.
fn members_left(rest: &str, open: &[char]) -> Vec<usize> {
    let mut counts = vec![0; open.len()];
    let mut depth = open.len();
    let mut quoting = Quoting::default();
    for (at, c) in rest.char_indices() {
        if quoting.takes(c) {
            continue;
        }
        match c {
            '[' | '{' | '(' => depth += 1,
            ']' | '}' | ')' => {
                if depth == 0 {
                    break;
                }
                depth -= 1;
                if depth == 0 {
                    break;
                }
            }
            ',' if depth >= 1 && depth <= open.len() => {
                let next = rest[at + 1..].trim_start().chars().next();
                if !matches!(next, None | Some(']' | '}' | ')')) {
                    counts[depth - 1] += 1;
                }
            }
            _ => {}
        }
    }
    counts
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_short_value_is_whole() {
        assert_eq!(whole_members("[1, 2, 3]", 20), "[1, 2, 3]");
        assert_eq!(whole_members("\"erin\"", 3), "\"er… (3 more characters)");
    }

    #[test]
    fn a_long_value_keeps_whole_members_and_says_how_many_are_left() {
        let accounts = "map[string]*main.Account [\"ada\": *{ID: 1, Owner: \"ada\", Balance: 100}, \
                        \"erin\": *{ID: 2, Owner: \"erin\", Balance: 50}, \"bob\": *{ID: 3, \
                        Owner: \"bob\", Balance: 70}, ]";
        assert_eq!(
            whole_members(accounts, 100),
            "map[string]*main.Account [\"ada\": *{ID: 1, Owner: \"ada\", Balance: 100}, \
             … 2 more]"
        );
        assert_eq!(
            whole_members("[1, 2, 3, 4, 5, 6, 7, 8, 9, 10]", 12),
            "[1, 2, 3, 4, … 6 more]"
        );
        // Only when no member of the outer level fits is an inner one cut.
        assert_eq!(
            whole_members("{a = {x = 1, y = 2, z = 3}, b = 4}", 19),
            "{a = {x = 1, y = 2, … 1 more}, … 1 more}"
        );
        // Commas in strings are not between members.
        assert_eq!(
            whole_members("['a, b, c, d', 'e', 'f']", 18),
            "['a, b, c, d', 'e', … 1 more]"
        );
    }
}
