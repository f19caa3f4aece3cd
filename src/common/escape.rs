//! Names from outside (a program's path, a source file's, a thread's) shown inside one line of
//! a report. A name may hold a newline or a terminal escape; printed raw it could start a line
//! of its own that reads like ours (`Stopped at breakpoint 9 ...`) or recolour the terminal.

use std::borrow::Cow;

/// `text` with every control character written as an escape (`\n`, `\t`, `\u{1b}`), so it
/// stays on the line it is printed in.
pub fn one_line(text: &str) -> Cow<'_, str> {
    if !text.chars().any(char::is_control) {
        return Cow::Borrowed(text);
    }
    let mut out = String::with_capacity(text.len() + 8);
    for c in text.chars() {
        if c.is_control() {
            out.extend(c.escape_default());
        } else {
            out.push(c);
        }
    }
    Cow::Owned(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn control_characters_are_escaped_and_the_rest_kept() {
        assert!(matches!(one_line("/tmp/a b/prog"), Cow::Borrowed(_)));
        assert_eq!(
            one_line("/tmp/a\nStopped at breakpoint 9\t\u{1b}[31m/é"),
            "/tmp/a\\nStopped at breakpoint 9\\t\\u{1b}[31m/é"
        );
    }
}
