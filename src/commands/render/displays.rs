//! Displays as text: a stop report's `Displays:` and `Printed:` sections, and `display`'s list.
//! One line each, gdb's `N: EXPR = VALUE`, with `OLD -> NEW` where the value changed and
//! `<error: ...>` where it could not be evaluated.

use std::fmt::Write as _;

use crate::ipc::protocol::DisplayValue;

/// The longest a value runs on a display's line before it is cut, as a stop report's locals are.
const VALUE_CHARS: usize = 100;

/// A stop report's displays under `Displays:`, then its one-off prints under `Printed:`.
pub fn stop_displays(displays: &[DisplayValue]) -> String {
    let (kept, once): (Vec<&DisplayValue>, Vec<&DisplayValue>) =
        displays.iter().partition(|d| d.id.is_some());
    let mut out = String::new();
    for (header, list) in [("Displays:", kept), ("Printed:", once)] {
        if list.is_empty() {
            continue;
        }
        let _ = writeln!(out, "{header}");
        for display in list {
            let _ = writeln!(out, "  {}", display_line(display));
        }
    }
    out
}

/// `1: total = 0 -> 720`, `2: key = <error: ...>`, `x = 5` for a one-off; `1: total (not
/// evaluated yet: ...)` for a display added while the program ran.
pub fn display_line(display: &DisplayValue) -> String {
    let id = display.id.map(|id| format!("{id}: ")).unwrap_or_default();
    let expression = &display.expression;
    match (&display.value, &display.error) {
        (Some(value), _) => match &display.old_value {
            Some(old) if display.changed => {
                format!("{id}{expression} = {} -> {}", cut(old), cut(value))
            }
            _ => format!("{id}{expression} = {}", cut(value)),
        },
        // An error is read whole: its end says what to do (values are cut, errors are ours).
        (None, Some(error)) => format!("{id}{expression} = <error: {}>", error.replace('\n', " ")),
        (None, None) => {
            format!("{id}{expression} (not evaluated yet: shown from the next stop on)")
        }
    }
}

/// `text` on one line, cut to [`VALUE_CHARS`] characters with how many were left out.
fn cut(text: &str) -> String {
    let line = text.replace('\n', " ");
    let total = line.chars().count();
    if total <= VALUE_CHARS {
        return line;
    }
    let kept: String = line.chars().take(VALUE_CHARS).collect();
    format!("{kept}… ({} more characters)", total - VALUE_CHARS)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn shown(
        id: Option<u32>,
        value: Option<&str>,
        old: Option<&str>,
        error: Option<&str>,
    ) -> DisplayValue {
        DisplayValue {
            id,
            expression: "total".into(),
            value: value.map(str::to_string),
            old_value: old.map(str::to_string),
            changed: matches!((old, value), (Some(o), Some(v)) if o != v),
            error: error.map(str::to_string),
        }
    }

    #[test]
    fn a_display_line_says_what_changed_or_why_there_is_no_value() {
        assert_eq!(
            display_line(&shown(Some(1), Some("720"), Some("0"), None)),
            "1: total = 0 -> 720"
        );
        assert_eq!(
            display_line(&shown(Some(1), Some("720"), Some("720"), None)),
            "1: total = 720"
        );
        assert_eq!(
            display_line(&shown(Some(2), None, None, Some("not in scope"))),
            "2: total = <error: not in scope>"
        );
        assert_eq!(
            display_line(&shown(None, Some("5"), None, None)),
            "total = 5"
        );
        let long = display_line(&shown(Some(1), Some(&"x".repeat(300)), None, None));
        assert!(long.ends_with("(200 more characters)"), "{long}");
    }

    #[test]
    fn displays_and_one_off_prints_have_their_own_sections() {
        let text = stop_displays(&[
            shown(Some(1), Some("1"), Some("0"), None),
            shown(None, Some("10"), None, None),
        ]);
        assert_eq!(
            text,
            "Displays:\n  1: total = 0 -> 1\nPrinted:\n  total = 10\n"
        );
        assert_eq!(stop_displays(&[]), "");
    }

    #[test]
    fn an_error_is_shown_whole() {
        let error = format!(
            "{} stopped where it was",
            "the evaluation ran past 2 s and ".repeat(4)
        );
        let line = display_line(&shown(Some(1), None, None, Some(&error)));
        assert!(line.ends_with("stopped where it was>"), "{line}");
        assert!(!line.contains("more characters"), "{line}");
    }
}
