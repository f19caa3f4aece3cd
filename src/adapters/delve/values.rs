//! Go values in Go's own words where Delve writes its internals: a byte slice that holds text
//! as that text, a rune as its character, a `reflect.Value` as the value it holds, and no
//! result slots (`~r0`) among the locals, which hold garbage until the function returns (a
//! `finish` reports what it returned).

use std::fmt::Write;

use crate::adapters::value_reading::{HeldValue, UnloadedPart};

/// Delve's name for an unnamed result of the function: `~r0`, `~r1`.
pub(super) fn is_result_slot(name: &str) -> bool {
    name.strip_prefix("~r")
        .is_some_and(|n| !n.is_empty() && n.bytes().all(|b| b.is_ascii_digit()))
}

/// `value` (of type `type_name`) in Go's words, where Delve's differ; `None` to keep it.
pub(super) fn reword(value: &str, type_name: Option<&str>) -> Option<String> {
    if type_name == Some("int32") {
        return rune(value);
    }
    byte_slices_as_text(value)
}

/// An `int32` (Go's rune) holding a printable character: `113 'q'`.
fn rune(value: &str) -> Option<String> {
    let code: u32 = value.trim().parse().ok()?;
    let c = char::from_u32(code).filter(|c| !c.is_control() && code >= 0x20)?;
    Some(format!("{code} {}", go_rune_literal(c)))
}

fn go_rune_literal(c: char) -> String {
    match c {
        '\'' => "'\\''".into(),
        '\\' => "'\\\\'".into(),
        c => format!("'{c}'"),
    }
}

const BYTE_SLICE: &str = "[]uint8 len: ";

/// Each `[]uint8 len: N, cap: M, [113,117,…]` of `value` whose bytes are printable UTF-8
/// text, written `[]uint8 len: N, cap: M, "quoted"`; `None` when there is none.
fn byte_slices_as_text(value: &str) -> Option<String> {
    if !value.contains(BYTE_SLICE) {
        return None;
    }
    let mut out = String::with_capacity(value.len());
    let mut rest = value;
    let mut changed = false;
    while let Some(at) = rest.find(BYTE_SLICE) {
        let (before, from) = rest.split_at(at);
        out.push_str(before);
        match byte_slice(from) {
            Some((consumed, text)) => {
                out.push_str(&text);
                rest = &from[consumed..];
                changed = true;
            }
            None => {
                out.push_str(BYTE_SLICE);
                rest = &from[BYTE_SLICE.len()..];
            }
        }
    }
    out.push_str(rest);
    changed.then_some(out)
}

/// The byte slice at the start of `text`: how many bytes of `text` it spans, and its text form.
fn byte_slice(text: &str) -> Option<(usize, String)> {
    let after = &text[BYTE_SLICE.len()..];
    let (len, after) = after.split_once(", cap: ")?;
    let len: usize = len.parse().ok()?;
    let (cap, after) = after.split_once(", [")?;
    cap.parse::<usize>().ok()?;
    let close = after.find(']')?;
    let consumed = text.len() - after.len() + close + 1;
    let items = &after[..close];
    // Delve lists at most 64 elements, then `...+N more`.
    let (listed, more) = match items.split_once("...+") {
        Some((listed, more)) => (listed.trim_end_matches(','), Some(more)),
        None => (items, None),
    };
    let bytes: Vec<u8> = listed
        .split(',')
        .map(|b| b.trim().parse::<u8>())
        .collect::<Result<_, _>>()
        .ok()?;
    if more.is_none() && bytes.len() != len {
        return None;
    }
    let text = match std::str::from_utf8(&bytes) {
        Ok(text) => text,
        // A cut list may end inside a character: the text up to it.
        Err(e) if more.is_some() && e.error_len().is_none() => {
            std::str::from_utf8(&bytes[..e.valid_up_to()]).ok()?
        }
        Err(_) => return None,
    };
    let printable = text
        .chars()
        .all(|c| !c.is_control() || matches!(c, '\n' | '\t' | '\r'));
    if !printable {
        return None;
    }
    let mut shown = format!("{BYTE_SLICE}{len}, cap: {cap}, {}", go_quoted(text));
    if let Some(more) = more {
        let _ = write!(shown, "...+{more}");
    }
    Some((consumed, shown))
}

/// `text` as a Go interpreted string literal.
fn go_quoted(text: &str) -> String {
    let mut out = String::with_capacity(text.len() + 2);
    out.push('"');
    for c in text.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\t' => out.push_str("\\t"),
            '\r' => out.push_str("\\r"),
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

/// A `reflect.Value` holding a scalar or a string, read through its pointer: `42` for
/// `reflect.ValueOf(42)`, where Delve writes the `rtype` internals. A value of another kind keeps
/// Delve's text.
pub(super) fn reflect_values(value: &str) -> Vec<UnloadedPart> {
    let mut found: Vec<UnloadedPart> = Vec::new();
    let mut rest = value;
    while let Some(at) = rest.find(REFLECT_VALUE) {
        let from = &rest[at..];
        match reflect_value(from) {
            Some(part) => {
                rest = &from[part.text.len()..];
                if !found.contains(&part) {
                    found.push(part);
                }
            }
            None => rest = &from[REFLECT_VALUE.len()..],
        }
    }
    found
}

const REFLECT_VALUE: &str = "reflect.Value {typ_: ";

/// A `reflect.Value` read from its members, where its text (cut in a listing, whose values
/// stop at 256 bytes) may not reach its `ptr`: a scalar or a string as [`reflect_values`] reads
/// it, any other kind through its first two words, which are an `interface {}`'s (the type and
/// where the value is), where its flag says the value is where an interface would hold it.
pub(super) fn reflect_value_of_members(held: &HeldValue) -> Option<UnloadedPart> {
    if held.type_name != "reflect.Value" {
        return None;
    }
    let member = |name: &str| {
        held.members
            .iter()
            .find(|(each, _)| *each == name)
            .map(|(_, value)| *value)
    };
    let kind = kind_of(member("typ_")?)?;
    let address = member("ptr")?
        .strip_prefix("unsafe.Pointer(0x")?
        .strip_suffix(')')?;
    let flag = flag_of(&format!(", flag: {}", member("flag")?))?;
    if let Some(expression) = scalar_expression(kind, address, flag) {
        return Some(UnloadedPart {
            text: held.text.to_string(),
            expression,
            answer_prefix: String::new(),
            answer_wrapper: None,
            holder: true,
        });
    }
    let expression = held.expression?;
    if (flag & FLAG_INDIRECT != 0) == POINTER_SHAPED.contains(&kind) {
        return None;
    }
    Some(UnloadedPart {
        text: held.text.to_string(),
        expression: format!("*(*interface {{}})(uintptr(&({expression})))"),
        answer_prefix: String::new(),
        answer_wrapper: Some("interface {}"),
        holder: true,
    })
}

/// The kinds an interface holds in its data word itself, not behind it.
const POINTER_SHAPED: &[&str] = &["Ptr", "Pointer", "UnsafePointer", "Map", "Chan", "Func"];

/// The kind in a `reflect.Value`'s text: `Int` of `Kind_: Int (2)`.
fn kind_of(text: &str) -> Option<&str> {
    Some(text.split_once("Kind_: ")?.1.split_once(' ')?.0)
}

/// The flag at the end of a `reflect.Value`'s text: `130` of `flag: 130}` or `flag: 130 = 0x82}`.
fn flag_of(text: &str) -> Option<u64> {
    text.rsplit_once(", flag: ")?
        .1
        .split(|c: char| !c.is_ascii_digit())
        .next()?
        .parse()
        .ok()
}

/// reflect's `flagIndir`: the value is stored behind `ptr`, not in it.
const FLAG_INDIRECT: u64 = 1 << 7;

/// The `reflect.Value {…}` at the start of `text`, when its kind is read by a plain load.
fn reflect_value(text: &str) -> Option<UnloadedPart> {
    let end = matching_brace(text, "reflect.Value ".len())?;
    let whole = &text[..=end];
    let (_, tail) = whole.rsplit_once("ptr: unsafe.Pointer(0x")?;
    let (address, tail) = tail.split_once(')')?;
    if !tail.starts_with(", flag: ") {
        return None;
    }
    let expression = scalar_expression(kind_of(whole)?, address, flag_of(tail)?)?;
    Some(UnloadedPart {
        text: whole.to_string(),
        expression,
        answer_prefix: String::new(),
        answer_wrapper: None,
        holder: true,
    })
}

/// The expression that reads a scalar or a string a `reflect.Value` of `kind` holds behind
/// `ptr` (`address`, hex digits), when its flag says it is behind it.
fn scalar_expression(kind: &str, address: &str, flag: u64) -> Option<String> {
    let go_type = match kind {
        "Bool" => "bool",
        "Int" => "int",
        "Int8" => "int8",
        "Int16" => "int16",
        "Int32" => "int32",
        "Int64" => "int64",
        "Uint" => "uint",
        "Uint8" => "uint8",
        "Uint16" => "uint16",
        "Uint32" => "uint32",
        "Uint64" => "uint64",
        "Uintptr" => "uintptr",
        "Float32" => "float32",
        "Float64" => "float64",
        "String" => "string",
        _ => return None,
    };
    let hex = !address.is_empty() && address.bytes().all(|b| b.is_ascii_hexdigit());
    (hex && flag & FLAG_INDIRECT != 0).then(|| format!("*(*{go_type})(0x{address})"))
}

/// The index of the `}` closing the `{` at `open` in `text`, skipping quoted strings.
fn matching_brace(text: &str, open: usize) -> Option<usize> {
    if text.as_bytes().get(open) != Some(&b'{') {
        return None;
    }
    let mut depth = 0usize;
    let mut quoted = false;
    let mut escaped = false;
    for (at, b) in text.bytes().enumerate().skip(open) {
        match b {
            _ if escaped => escaped = false,
            b'\\' if quoted => escaped = true,
            b'"' => quoted = !quoted,
            b'{' if !quoted => depth += 1,
            b'}' if !quoted => {
                depth -= 1;
                if depth == 0 {
                    return Some(at);
                }
            }
            _ => {}
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn result_slots_are_named_by_delve() {
        assert!(is_result_slot("~r0"));
        assert!(is_result_slot("~r12"));
        assert!(!is_result_slot("~r"));
        assert!(!is_result_slot("r0"));
        assert!(!is_result_slot("~rx"));
    }

    #[test]
    fn a_rune_shows_its_character() {
        assert_eq!(reword("113", Some("int32")).as_deref(), Some("113 'q'"));
        assert_eq!(reword("39", Some("int32")).as_deref(), Some("39 '\\''"));
        assert_eq!(reword("233", Some("int32")).as_deref(), Some("233 'é'"));
        assert_eq!(reword("10", Some("int32")), None);
        assert_eq!(reword("-5", Some("int32")), None);
        assert_eq!(reword("113", Some("int64")), None);
    }

    #[test]
    fn a_byte_slice_of_text_shows_the_text() {
        let value =
            "*main.Rec {Name: \"quote\", Raw: []uint8 len: 5, cap: 8, [113,34,10,195,169], N: 3}";
        assert_eq!(
            reword(value, Some("*main.Rec")).as_deref(),
            Some("*main.Rec {Name: \"quote\", Raw: []uint8 len: 5, cap: 8, \"q\\\"\\né\", N: 3}")
        );
        let binary = "[]uint8 len: 3, cap: 3, [0,1,255]";
        assert_eq!(reword(binary, Some("[]uint8")), None);
        let cut = "[]uint8 len: 100, cap: 100, [104,105,...+98 more]";
        assert_eq!(
            reword(cut, Some("[]uint8")).as_deref(),
            Some("[]uint8 len: 100, cap: 100, \"hi\"...+98 more")
        );
        let empty = "[]uint8 len: 0, cap: 0, []";
        assert_eq!(reword(empty, Some("[]uint8")), None);
    }

    #[test]
    fn a_reflect_value_of_an_int_is_read_through_its_pointer() {
        let value = "reflect.Value {typ_: *internal/abi.Type {Size_: 8, Kind_: Int (2), \
                     Str: 1, PtrToThis: 0}, ptr: unsafe.Pointer(0x4f0ea0), flag: 130}";
        let parts = reflect_values(value);
        assert_eq!(parts.len(), 1, "{parts:?}");
        assert_eq!(parts[0].text, value);
        assert_eq!(parts[0].expression, "*(*int)(0x4f0ea0)");
        assert_eq!(parts[0].loaded_text("42"), "42");
        let direct = value.replace("flag: 130", "flag: 22");
        assert!(reflect_values(&direct).is_empty());
        let members = [
            (
                "typ_",
                "*internal/abi.Type {Size_: 8, PtrBytes: 0, Kind_: Int (2), Equal: runtime.memequal64",
            ),
            ("ptr", "unsafe.Pointer(0x4eff28)"),
            ("flag", "130 = 0x82"),
        ];
        let cut = "reflect.Value {typ_: *internal/abi.Type {Size_: 8, PtrBytes: 0, H…";
        let held = |type_name, members, expression| HeldValue {
            type_name,
            text: cut,
            members,
            expression,
        };
        let read = reflect_value_of_members(&held("reflect.Value", &members, None));
        let read = read.expect("a reflect.Value read from its members");
        assert_eq!(read.expression, "*(*int)(0x4eff28)");
        assert_eq!(read.text, cut);
        assert!(reflect_value_of_members(&held("main.Value", &members, None)).is_none());

        let point = [
            (
                "typ_",
                "*internal/abi.Type {Size_: 16, Kind_: Struct (25), Str: 10466}",
            ),
            ("ptr", "unsafe.Pointer(0x4f1158)"),
            ("flag", "153 = 0x99"),
        ];
        let read = reflect_value_of_members(&held("reflect.Value", &point, Some("r.At")));
        let read = read.expect("a struct read as an interface");
        assert_eq!(read.expression, "*(*interface {})(uintptr(&(r.At)))");
        assert!(reflect_value_of_members(&held("reflect.Value", &point, None)).is_none());
        // A pointer held behind `ptr` (an addressable Elem's) is not where an interface holds it.
        let pointer = [
            (
                "typ_",
                "*internal/abi.Type {Size_: 8, Kind_: Ptr (22), Str: 10466}",
            ),
            ("ptr", "unsafe.Pointer(0x4f1158)"),
            ("flag", "406 = 0x196"),
        ];
        let read = reflect_value_of_members(&held("reflect.Value", &pointer, Some("p")));
        assert!(read.is_none());
        let map = value.replace("Kind_: Int (2)", "Kind_: Map (21)");
        assert!(reflect_values(&map).is_empty());
    }
}
