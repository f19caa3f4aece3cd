//! JSON written by another program (a debug adapter, V8's inspector), read leniently.
//!
//! An adapter writes what its runtime's JSON encoder makes of the program's text, and that is
//! not always JSON that `serde_json` accepts:
//! - debugpy (Python's `json`) writes a string holding bytes that were not UTF-8 with lone
//!   surrogate escapes (`"caf\udce9"`: Python's surrogate escapes of the byte `0xe9`);
//! - V8 does the same for a JavaScript string that holds a lone surrogate (`"\ud800"`);
//! - a careless encoder may write raw bytes that are not UTF-8, raw control characters, or
//!   escapes JSON does not have (`\x41`, `\'`).
//!
//! One such string must cost neither the message it is in nor the session, so a message that
//! does not parse is repaired once ([`repair`]) and parsed again:
//! - from a writer whose lone trailing surrogates are bytes ([`LoneSurrogates::AreBytes`]: a DAP
//!   adapter, where Python's surrogate escapes are what they come from), `\udc80` to `\udcff`
//!   becomes that byte written `\xNN`; a raw byte that is not UTF-8 is written so too. That is
//!   how the daemon writes such bytes of a program's output pipes (`escape::Utf8Stream`) and how
//!   `print` shows them: the same program shows the same text under every adapter and with or
//!   without `--tty`;
//! - any other lone surrogate escape (V8's are a JavaScript string's own) becomes `\ufffd`, U+FFFD
//!   REPLACEMENT CHARACTER;
//! - an escape JSON does not have keeps its backslash as text (`\x41` reads `\x41`), so what the
//!   writer meant stays readable;
//! - a raw control character inside a string is escaped (`\u0009`).
//!
//! Well-formed JSON is parsed as it comes: the repair runs only after a failure, so it costs
//! nothing on the common path.
//!
//! A message that still does not parse can have its top-level fields read from the bytes
//! ([`top_level_integer`], [`top_level_string`]), so the one request that waited for it can be
//! failed instead of being left waiting.

use serde::de::DeserializeOwned;

use super::escape::Utf8Stream;

/// What a lone trailing surrogate escape in `\udc80..=\udcff` stands for in a writer's text.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LoneSurrogates {
    /// A byte that was not UTF-8 (Python's surrogate escapes, as debugpy writes them).
    AreBytes,
    /// A character of a string that holds a lone surrogate (JavaScript's).
    AreCharacters,
}

/// Parses `bytes` as `T`, repairing the text first if it is not JSON as it stands.
///
/// A body that is JSON but not a `T` is not repaired: no text repair makes it one.
pub fn parse<T: DeserializeOwned>(
    bytes: &[u8],
    surrogates: LoneSurrogates,
) -> Result<T, serde_json::Error> {
    let first = match serde_json::from_slice(bytes) {
        Ok(value) => return Ok(value),
        Err(e) => e,
    };
    if first.is_data() {
        return Err(first);
    }
    serde_json::from_str(&repair(bytes, surrogates))
}

/// `bytes` with what makes a JSON text unreadable inside its strings replaced (see the module's
/// comment). Outside strings nothing is changed but bytes that are not UTF-8: a text that is
/// broken there stays broken.
pub fn repair(bytes: &[u8], surrogates: LoneSurrogates) -> String {
    // A byte that is not UTF-8 becomes the text `\xNN`; inside a string, its backslash is then
    // kept as text by the escape repair below.
    let mut decoder = Utf8Stream::default();
    let mut text = decoder.decode(bytes);
    text.push_str(&decoder.finish());
    let s = text.as_bytes();
    let mut out = Vec::with_capacity(s.len() + 16);
    let mut in_string = false;
    let mut i = 0;
    while i < s.len() {
        let byte = s[i];
        if !in_string {
            in_string = byte == b'"';
            out.push(byte);
            i += 1;
            continue;
        }
        match byte {
            b'"' => {
                in_string = false;
                out.push(byte);
                i += 1;
            }
            b'\\' => i += repair_escape(s, i, surrogates, &mut out),
            0x00..=0x1f => {
                out.extend_from_slice(format!("\\u{byte:04x}").as_bytes());
                i += 1;
            }
            _ => {
                out.push(byte);
                i += 1;
            }
        }
    }
    // Only ASCII was added or taken away, at ASCII positions, so `out` is still UTF-8; were it
    // not, the lossy reading would show where.
    match String::from_utf8(out) {
        Ok(repaired) => repaired,
        Err(e) => String::from_utf8_lossy(e.as_bytes()).into_owned(),
    }
}

/// Writes the escape that starts at `s[at]` (a backslash inside a string), repaired, to `out`;
/// answers how many bytes of `s` it took.
fn repair_escape(s: &[u8], at: usize, surrogates: LoneSurrogates, out: &mut Vec<u8>) -> usize {
    const REPLACEMENT: &[u8] = b"\\ufffd";
    match s.get(at + 1) {
        Some(b'"' | b'\\' | b'/' | b'b' | b'f' | b'n' | b'r' | b't') => {
            out.extend_from_slice(&s[at..at + 2]);
            2
        }
        Some(b'u') => match hex_unit(s, at + 2) {
            Some(high @ 0xd800..=0xdbff) => {
                let low = (s.get(at + 6) == Some(&b'\\') && s.get(at + 7) == Some(&b'u'))
                    .then(|| hex_unit(s, at + 8))
                    .flatten();
                if matches!(low, Some(0xdc00..=0xdfff)) {
                    out.extend_from_slice(&s[at..at + 12]);
                    12
                } else {
                    tracing::trace!(unit = high, "lone leading surrogate replaced");
                    out.extend_from_slice(REPLACEMENT);
                    6
                }
            }
            Some(unit @ 0xdc80..=0xdcff) if surrogates == LoneSurrogates::AreBytes => {
                // Python's surrogate escape: the byte it stands for, as text.
                out.extend_from_slice(format!("\\\\x{:02x}", unit - 0xdc00).as_bytes());
                6
            }
            Some(0xdc00..=0xdfff) => {
                out.extend_from_slice(REPLACEMENT);
                6
            }
            Some(_) => {
                out.extend_from_slice(&s[at..at + 6]);
                6
            }
            // `\u` without four hex digits: the backslash is text, the rest read as it comes.
            None => {
                out.extend_from_slice(b"\\\\");
                1
            }
        },
        // An escape JSON does not have (`\x41`, `\'`), or a backslash at the very end.
        _ => {
            out.extend_from_slice(b"\\\\");
            1
        }
    }
}

/// The UTF-16 code unit written as four hex digits at `s[at..at + 4]`, if they are there.
fn hex_unit(s: &[u8], at: usize) -> Option<u16> {
    let digits = s.get(at..at + 4)?;
    if !digits.iter().all(u8::is_ascii_hexdigit) {
        return None;
    }
    let text = std::str::from_utf8(digits).ok()?;
    u16::from_str_radix(text, 16).ok()
}

/// The integer value of the top-level field `key` of the JSON object in `bytes`, read from the
/// bytes themselves: it is found in a text that does not parse, as long as the text up to it is
/// sane (V8 and the DAP adapters write `id`, `seq` and `request_seq` near the start).
pub fn top_level_integer(bytes: &[u8], key: &str) -> Option<i64> {
    let value = top_level_value(bytes, key)?;
    let end = value
        .iter()
        .enumerate()
        .position(|(i, b)| !(b.is_ascii_digit() || (i == 0 && *b == b'-')))
        .unwrap_or(value.len());
    std::str::from_utf8(&value[..end]).ok()?.parse().ok()
}

/// The value of the top-level field `key` of the JSON object in `bytes` when it is a string
/// without escapes (a DAP `type` or `command`, a CDP `method`), read from the bytes themselves.
pub fn top_level_string(bytes: &[u8], key: &str) -> Option<String> {
    let value = top_level_value(bytes, key)?.strip_prefix(b"\"")?;
    let end = value.iter().position(|b| *b == b'"' || *b == b'\\')?;
    (value[end] == b'"').then(|| String::from_utf8_lossy(&value[..end]).into_owned())
}

/// The bytes the string at `path` (keys of nested objects from the top, e.g. `body`, `output`)
/// of the JSON object in `bytes` stands for, read from the bytes themselves: a Python surrogate
/// escape (`\udc80` to `\udcff`) is its byte, a raw byte that is not UTF-8 is itself, and
/// any other lone surrogate is U+FFFD. What [`repair`] writes as `\xNN` text, kept as the byte
/// it was. `None` when the path does not lead to a string.
pub fn string_bytes(bytes: &[u8], path: &[&str]) -> Option<Vec<u8>> {
    let mut value = bytes;
    for key in path {
        value = top_level_value(value, key)?;
    }
    if value.first() != Some(&b'"') {
        return None;
    }
    let end = string_end(value, 1)?;
    let s = &value[1..end];
    let mut out = Vec::with_capacity(s.len());
    let mut i = 0;
    while i < s.len() {
        if s[i] != b'\\' {
            out.push(s[i]);
            i += 1;
            continue;
        }
        let simple = match s.get(i + 1) {
            Some(b'b') => Some(0x08),
            Some(b'f') => Some(0x0c),
            Some(b'n') => Some(b'\n'),
            Some(b'r') => Some(b'\r'),
            Some(b't') => Some(b'\t'),
            Some(b'u') => None,
            Some(quoted @ (b'"' | b'\\' | b'/')) => Some(*quoted),
            // An escape JSON does not have (`\x41`): its backslash is text, as `repair` reads it.
            _ => {
                out.push(b'\\');
                i += 1;
                continue;
            }
        };
        if let Some(byte) = simple {
            out.push(byte);
            i += 2;
            continue;
        }
        let unit = hex_unit(s, i + 2);
        let low = (s.get(i + 6) == Some(&b'\\') && s.get(i + 7) == Some(&b'u'))
            .then(|| hex_unit(s, i + 8))
            .flatten();
        let (c, taken) = match (unit, low) {
            (Some(high @ 0xd800..=0xdbff), Some(low @ 0xdc00..=0xdfff)) => {
                let code = 0x10000 + ((u32::from(high) - 0xd800) << 10) + (u32::from(low) - 0xdc00);
                (char::from_u32(code), 12)
            }
            (Some(unit @ 0xdc80..=0xdcff), _) => {
                out.push((unit - 0xdc00) as u8);
                i += 6;
                continue;
            }
            (Some(unit), _) => (char::from_u32(u32::from(unit)), 6),
            // `\u` without four hex digits: the backslash is text.
            (None, _) => (Some('\\'), 1),
        };
        let c = c.unwrap_or(char::REPLACEMENT_CHARACTER);
        out.extend_from_slice(c.encode_utf8(&mut [0; 4]).as_bytes());
        i += taken;
    }
    Some(out)
}

/// The bytes after `"key":` (and any blanks) for the first field `key` at the top level of the
/// object in `bytes`. A string followed by `:` is a key; nesting is counted so that a field of
/// the same name inside a nested value is not taken.
fn top_level_value<'a>(bytes: &'a [u8], key: &str) -> Option<&'a [u8]> {
    let mut depth = 0usize;
    let mut i = 0;
    while i < bytes.len() {
        match bytes[i] {
            b'{' | b'[' => depth += 1,
            b'}' | b']' => depth = depth.saturating_sub(1),
            b'"' => {
                let start = i + 1;
                let end = string_end(bytes, start)?;
                i = end + 1;
                if depth == 1 && &bytes[start..end] == key.as_bytes() {
                    let rest = skip_blanks(&bytes[i..]);
                    if let Some(value) = rest.strip_prefix(b":") {
                        return Some(skip_blanks(value));
                    }
                }
                continue;
            }
            _ => {}
        }
        i += 1;
    }
    None
}

/// Where the string whose text starts at `bytes[start]` ends (its closing quote).
fn string_end(bytes: &[u8], start: usize) -> Option<usize> {
    let mut i = start;
    while i < bytes.len() {
        match bytes[i] {
            b'\\' => i += 2,
            b'"' => return Some(i),
            _ => i += 1,
        }
    }
    None
}

fn skip_blanks(bytes: &[u8]) -> &[u8] {
    let start = bytes
        .iter()
        .position(|b| !b.is_ascii_whitespace())
        .unwrap_or(bytes.len());
    &bytes[start..]
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::{Value, json};

    fn read(bytes: &[u8]) -> Value {
        parse::<Value>(bytes, LoneSurrogates::AreBytes)
            .unwrap_or_else(|e| panic!("{:?}: {e}", String::from_utf8_lossy(bytes)))
    }

    #[test]
    fn well_formed_json_is_read_as_it_is() {
        let text = br#"{"s":"caf\u00e9 \ud83d\ude00 \"q\" \\ \/ \b\f\n\r\t"}"#;
        assert_eq!(
            read(text),
            serde_json::from_slice::<Value>(text).expect("json")
        );
        assert_eq!(read(text)["s"], "café 😀 \"q\" \\ / \u{8}\u{c}\n\r\t");
    }

    #[test]
    fn python_surrogate_escapes_become_their_bytes_and_other_lone_ones_replacements() {
        // debugpy's surrogate escape of the byte 0xe9, then V8's lone leading surrogate.
        assert_eq!(read(br#"{"output":"caf\udce9\n"}"#)["output"], "caf\\xe9\n");
        assert_eq!(read(br#"{"v":"\ud800 lone"}"#)["v"], "\u{fffd} lone");
        // A leading surrogate followed by something that is not a trailing one.
        assert_eq!(read(br#"{"v":"\ud800\u0041"}"#)["v"], "\u{fffd}A");
        assert_eq!(read(br#"{"v":"\ud800\ud800"}"#)["v"], "\u{fffd}\u{fffd}");
        // Two surrogate escapes of bytes; a trailing surrogate that is none; one at the end.
        assert_eq!(read(br#"{"v":"\udc80\udcff"}"#)["v"], "\\x80\\xff");
        assert_eq!(read(br#"{"v":"\udd00"}"#)["v"], "\u{fffd}");
        assert_eq!(read(br#"{"v":"x\ud83d"}"#)["v"], "x\u{fffd}");
        // A good pair beside a lone one stays a pair; an upper-case escape is read too.
        assert_eq!(read(br#"{"v":"\uD83D\uDE00\uDCE9"}"#)["v"], "😀\\xe9");
    }

    #[test]
    fn a_javascript_strings_lone_surrogates_are_characters_not_bytes() {
        let read = |bytes: &[u8]| -> Value {
            parse(bytes, LoneSurrogates::AreCharacters).expect("repaired")
        };
        assert_eq!(
            read(br#"{"v":"x\udc80 \ud800"}"#)["v"],
            "x\u{fffd} \u{fffd}"
        );
    }

    #[test]
    fn bytes_that_are_not_utf8_are_written_as_escapes() {
        assert_eq!(read(b"{\"v\":\"caf\xe9\"}")["v"], "caf\\xe9");
        assert_eq!(
            read(b"{\"v\":\"\xff\xfe x \xc3\"}")["v"],
            "\\xff\\xfe x \\xc3"
        );
        // Valid UTF-8 around it is kept.
        assert_eq!(read("{\"v\":\"é\u{1F600}\"}".as_bytes())["v"], "é😀");
    }

    #[test]
    fn odd_escapes_keep_their_backslash_as_text() {
        assert_eq!(read(br#"{"v":"\x41\'\a"}"#)["v"], r"\x41\'\a");
        assert_eq!(read(br#"{"v":"\u12"}"#)["v"], r"\u12");
        assert_eq!(read(br#"{"v":"\u+abc"}"#)["v"], r"\u+abc");
        // A raw control character (a tab, a newline, NUL) inside a string.
        assert_eq!(read(b"{\"v\":\"a\tb\nc\x00\"}")["v"], "a\tb\nc\u{0}");
    }

    #[test]
    fn repairs_never_touch_what_is_outside_strings() {
        assert_eq!(
            read(b"{ \"a\" : [1, 2.5, true, null, {\"b\":\"\\udce9\"}] ,\n\t\"c\": -3 }"),
            json!({"a": [1, 2.5, true, null, {"b": "\\xe9"}], "c": -3})
        );
    }

    #[test]
    fn what_no_repair_mends_is_still_an_error() {
        assert!(parse::<Value>(b"{\"a\": \"unterminated", LoneSurrogates::AreBytes).is_err());
        assert!(parse::<Value>(b"{\"a\": 1,,}", LoneSurrogates::AreBytes).is_err());
        assert!(parse::<Value>(b"not json", LoneSurrogates::AreBytes).is_err());
        // A backslash at the very end.
        assert!(parse::<Value>(b"{\"a\": \"x\\", LoneSurrogates::AreBytes).is_err());
        // JSON of the wrong shape is a data error, not repaired.
        let shape =
            parse::<Vec<u8>>(b"{\"a\": 1}", LoneSurrogates::AreBytes).expect_err("not a list");
        assert!(shape.is_data(), "{shape}");
    }

    #[test]
    fn repair_handles_any_bytes_without_panicking() {
        // Every short sequence over the bytes that matter to the scanner.
        let alphabet: &[u8] = b"\"\\u{}d8cf0x\xe9\xff ";
        let mut text = Vec::new();
        for a in alphabet {
            for b in alphabet {
                for c in alphabet {
                    for d in alphabet {
                        text.clear();
                        text.extend_from_slice(b"{\"k\":\"");
                        text.extend_from_slice(&[*a, *b, *c, *d]);
                        let _ = repair(&text, LoneSurrogates::AreBytes);
                        let _ = parse::<Value>(&text, LoneSurrogates::AreBytes);
                        let _ = top_level_integer(&text, "k");
                        let _ = top_level_string(&text, "k");
                    }
                }
            }
        }
    }

    #[test]
    fn a_strings_bytes_are_read_back_from_surrogate_escapes_and_raw_bytes() {
        let message = b"{\"seq\":3,\"body\":{\"category\":\"stdout\",\"output\":\"caf\\udce9 \xff \\u00e9\\ud83d\\ude00 \\ud800 \\\\x41\\n\"}}";
        assert_eq!(
            string_bytes(message, &["body", "output"]).as_deref(),
            Some(&b"caf\xe9 \xff \xc3\xa9\xf0\x9f\x98\x80 \xef\xbf\xbd \\x41\n"[..])
        );
        assert_eq!(
            string_bytes(message, &["body", "category"]).as_deref(),
            Some(&b"stdout"[..])
        );
        assert_eq!(string_bytes(message, &["seq"]), None);
        assert_eq!(string_bytes(message, &["output"]), None);
    }

    #[test]
    fn top_level_fields_are_found_in_text_that_does_not_parse() {
        let broken = br#"{"seq": 9, "type":"response", "request_seq" : 42, "body": {"request_seq": 7, "x": "\q"#;
        assert_eq!(top_level_integer(broken, "request_seq"), Some(42));
        assert_eq!(top_level_integer(broken, "seq"), Some(9));
        assert_eq!(
            top_level_string(broken, "type").as_deref(),
            Some("response")
        );
        assert_eq!(top_level_integer(broken, "x"), None);
        // A nested field of the same name is not the top level's.
        let nested = br#"{"result":{"id":3},"id":8,"#;
        assert_eq!(top_level_integer(nested, "id"), Some(8));
        // A string value that reads like the key is not a key.
        let value = br#"{"method":"id","params":{"#;
        assert_eq!(top_level_integer(value, "id"), None);
        assert_eq!(top_level_string(value, "method").as_deref(), Some("id"));
        assert_eq!(top_level_integer(br#"{"id":-4}"#, "id"), Some(-4));
        assert_eq!(top_level_integer(br#"{"id":"4"}"#, "id"), None);
        assert_eq!(top_level_integer(b"garbage", "id"), None);
    }
}
