//! A value's text as a reader wants it: a character buffer as its string, a long text cut with
//! its length said, an unreadable value in one line.

use crate::dap::types::Variable;
use crate::ipc::protocol::VariableNode;

/// Whether a value's text is an adapter's "could not read this" (lldb: `<error: parent is
/// NULL>`, `<error: read memory from 0x… failed>`; or one already collapsed below).
pub(super) fn is_unreadable(node: &VariableNode) -> bool {
    let value = node.value.trim();
    node.children.is_empty() && (value.starts_with("<error:") || value.starts_with("<not readable"))
}

/// The one line a value with no readable member shows: `<not readable: 0x0>` for a pointer (its
/// address short), `<not readable>` else.
pub(super) fn not_readable(value: &str) -> String {
    let address = value
        .split_whitespace()
        .next()
        .and_then(|word| word.strip_prefix("0x"))
        .and_then(|hex| u64::from_str_radix(hex, 16).ok());
    match address {
        Some(address) => format!("<not readable: {address:#x}>"),
        None => "<not readable>".to_string(),
    }
}

/// Whether `type_name` is a C character array (`char[1034]`, `unsigned char [8]`).
fn is_char_array(type_name: Option<&str>) -> bool {
    type_name.is_some_and(|t| {
        let t = t.trim();
        let Some((element, rest)) = t.split_once('[') else {
            return false;
        };
        rest.ends_with(']')
            && matches!(
                element.trim(),
                "char" | "signed char" | "unsigned char" | "const char"
            )
    })
}

pub(super) fn is_char_array_string(v: &Variable) -> bool {
    is_char_array_value(&v.value, v.type_name.as_deref())
}

/// Whether a value is a character array the adapter read as a string: that string is all it
/// shows, its characters one per line say nothing more.
pub fn is_char_array_value(value: &str, type_name: Option<&str>) -> bool {
    is_char_array(type_name) && value.trim_start().starts_with('"')
}

/// A value as a reader wants it: a character array's string ends at its terminating NUL (the
/// adapters print the whole buffer, stale bytes and all: lldb `"/tmp/x\0\0\U00000002…"`, GDB
/// `"/tmp/x", '\000' <repeats 1019 times>`).
pub fn readable_value(value: &str, type_name: Option<&str>) -> String {
    if !is_char_array(type_name) {
        return value.to_string();
    }
    c_string_prefix(value).unwrap_or_else(|| value.to_string())
}

/// The first quoted string of `value`, up to a NUL escape (`\0`, `\000`) or its closing
/// quote, when what follows it is only padding; `None` when it is not such a string.
fn c_string_prefix(value: &str) -> Option<String> {
    let body = value.trim_start().strip_prefix('"')?;
    let mut chars = body.char_indices().peekable();
    while let Some((at, c)) = chars.next() {
        match c {
            '"' => {
                let rest = body[at + 1..].trim_start();
                let padding =
                    rest.is_empty() || rest == "..." || rest.starts_with(", '\\000' <repeats");
                return padding.then(|| format!("\"{}\"", &body[..at]));
            }
            '\\' => {
                let mut octal = String::new();
                while let Some((_, digit)) = chars.peek().copied().filter(|(_, d)| d.is_digit(8)) {
                    if octal.len() == 3 {
                        break;
                    }
                    octal.push(digit);
                    chars.next();
                }
                if octal.is_empty() {
                    chars.next();
                } else if u32::from_str_radix(&octal, 8) == Ok(0) {
                    return Some(format!("\"{}\"", &body[..at]));
                }
            }
            _ => {}
        }
    }
    None
}

/// Shortens a value longer than `max` characters, saying how many were cut.
pub fn cap_value(value: &str, max: usize) -> String {
    match value.char_indices().nth(max) {
        None => value.to_string(),
        Some((cut, _)) => {
            let left_out = value[cut..].chars().count();
            format!("{}… ({left_out} more characters)", &value[..cut])
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn long_values_are_capped_with_a_note() {
        assert_eq!(cap_value("short", 10), "short");
        assert_eq!(cap_value(&"x".repeat(10), 10), "x".repeat(10));
        let capped = cap_value(&"x".repeat(100), 10);
        assert_eq!(capped, format!("{}… (90 more characters)", "x".repeat(10)));
        assert_eq!(cap_value("ééééé", 3), "ééé… (2 more characters)");
    }

    #[test]
    fn a_char_array_reads_as_its_string_up_to_the_nul() {
        let lldb = r#""/tmp/some/path\0\0\U00000002\0@\v\xfc"..."#;
        let array = Some("char[1034]");
        assert_eq!(readable_value(lldb, array), r#""/tmp/some/path""#);
        let gdb = r#""/tmp/x", '\000' <repeats 1019 times>"#;
        assert_eq!(readable_value(gdb, Some("char [1024]")), r#""/tmp/x""#);
        assert_eq!(readable_value(r#""full""#, array), r#""full""#);
        // Escapes that are not NUL stay, and so does a string with more after it.
        assert_eq!(
            readable_value(r#""a\"b\n\012c\0z""#, array),
            r#""a\"b\n\012c""#
        );
        let runs = r#""ab", 'x' <repeats 20 times>, "cd""#;
        assert_eq!(readable_value(runs, array), runs);
        // Only character arrays: a `char *` is the adapter's as it is.
        assert_eq!(readable_value(lldb, Some("char *")), lldb);
        assert!(is_char_array(Some("unsigned char [8]")));
        assert!(!is_char_array(Some("int[4]")));
    }

    #[test]
    fn unreadable_members_collapse_into_one_line() {
        assert_eq!(not_readable("0x0000000000000000"), "<not readable: 0x0>");
        assert_eq!(
            not_readable("0x00007ffff7e1b6a0 {...}"),
            "<not readable: 0x7ffff7e1b6a0>"
        );
        assert_eq!(not_readable("node @ 0x10"), "<not readable>");
        let node = |value: &str| VariableNode {
            name: "m".into(),
            value: value.into(),
            type_name: None,
            children: Vec::new(),
            expandable: false,
            omitted_children: 0,
            methods_omitted: false,
            children_count: None,
            changed: false,
            old_value: None,
        };
        assert!(is_unreadable(&node("<error: parent is NULL>")));
        assert!(is_unreadable(&node(
            "<error: read memory from 0x10 failed (0 of 4 bytes read)>"
        )));
        assert!(!is_unreadable(&node("3")));
    }
}
