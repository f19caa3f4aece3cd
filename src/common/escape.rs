//! Text from outside shown as ours: names (a program's path, a source file's) inside one line of
//! a report, and a program's output bytes as text.
//!
//! A name may hold a newline or a terminal escape; printed raw it could start a line of its own
//! that reads like ours (`Stopped at breakpoint 9 ...`) or recolour the terminal.

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

/// The text of `bytes` read whole: a byte that is no UTF-8 written `\xNN`, as [`Utf8Stream`]
/// writes it.
pub fn escaped_text(bytes: &[u8]) -> Cow<'_, str> {
    if let Ok(text) = std::str::from_utf8(bytes) {
        return Cow::Borrowed(text);
    }
    let mut stream = Utf8Stream::default();
    let mut text = stream.decode(bytes);
    text.push_str(&stream.finish());
    Cow::Owned(text)
}

/// Text from bytes that arrive in pieces (a program's output, read as it comes): a character
/// split between two reads is held until its end arrives rather than turned into two
/// replacement characters, and a byte that is no UTF-8 is written `\xNN`, as `print` shows one.
#[derive(Debug, Default)]
pub struct Utf8Stream {
    /// The start of a character whose end has not come yet (at most 3 bytes).
    held: Vec<u8>,
}

impl Utf8Stream {
    /// The text of `bytes`, after whatever was held.
    pub fn decode(&mut self, bytes: &[u8]) -> String {
        let mut input = std::mem::take(&mut self.held);
        input.extend_from_slice(bytes);
        let mut out = String::with_capacity(input.len());
        let mut rest = input.as_slice();
        loop {
            match std::str::from_utf8(rest) {
                Ok(text) => {
                    out.push_str(text);
                    break;
                }
                Err(e) => {
                    let (valid, after) = rest.split_at(e.valid_up_to());
                    out.push_str(std::str::from_utf8(valid).unwrap_or_default());
                    match e.error_len() {
                        Some(bad) => {
                            for byte in &after[..bad] {
                                out.push_str(&format!("\\x{byte:02x}"));
                            }
                            rest = &after[bad..];
                        }
                        None => {
                            // A character cut at the end: its bytes wait for the next read.
                            self.held = after.to_vec();
                            break;
                        }
                    }
                }
            }
        }
        out
    }

    /// What is held at the stream's end, which will never be completed: escaped.
    pub fn finish(&mut self) -> String {
        std::mem::take(&mut self.held)
            .iter()
            .map(|byte| format!("\\x{byte:02x}"))
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_character_split_between_reads_is_whole_and_bad_bytes_are_escaped() {
        let mut stream = Utf8Stream::default();
        let e_acute = "é".as_bytes();
        assert_eq!(stream.decode(&[b'c', b'a', b'f', e_acute[0]]), "caf");
        assert_eq!(stream.decode(&[e_acute[1], b'!']), "é!");
        assert_eq!(stream.decode(b"caf\xe9 ok\xff"), "caf\\xe9 ok\\xff");
        assert_eq!(stream.decode(&[0xe2, 0x82]), "");
        assert_eq!(stream.finish(), "\\xe2\\x82");
        assert_eq!(stream.finish(), "");
    }

    #[test]
    fn control_characters_are_escaped_and_the_rest_kept() {
        assert!(matches!(one_line("/tmp/a b/prog"), Cow::Borrowed(_)));
        assert_eq!(
            one_line("/tmp/a\nStopped at breakpoint 9\t\u{1b}[31m/é"),
            "/tmp/a\\nStopped at breakpoint 9\\t\\u{1b}[31m/é"
        );
    }
}
