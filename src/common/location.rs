//! Breakpoint locations as users type them: `FILE:LINE` or a function name, with gdb's
//! `if COND` after it; and the data a watchpoint watches.

pub mod rank;
pub mod resolve;

use std::path::PathBuf;

use serde::{Deserialize, Serialize};

/// Where a breakpoint goes.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Location {
    /// A source line; `file` as the user gave it, made absolute by the CLI when it exists.
    Line { file: PathBuf, line: u32 },
    /// A function (or method, `ns::func`) name.
    Function { name: String },
    /// The memory behind an expression (`watch EXPR`): a watchpoint, DAP's data breakpoint.
    Data {
        expression: String,
        access: DataAccess,
    },
}

/// Which accesses to the watched data stop the program (DAP's `accessType`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, Default)]
pub enum DataAccess {
    #[serde(rename = "read")]
    Read,
    #[default]
    #[serde(rename = "write")]
    Write,
    #[serde(rename = "readWrite")]
    ReadWrite,
}

impl DataAccess {
    /// The DAP spelling, which is also what users type.
    pub fn as_str(self) -> &'static str {
        match self {
            DataAccess::Read => "read",
            DataAccess::Write => "write",
            DataAccess::ReadWrite => "readWrite",
        }
    }
}

/// The extensions that mark the text before a `:` as a source file, so that `FILE:abc` is a bad
/// line rather than a function name. Lower case; compared without regard to case.
const SOURCE_EXTENSIONS: &[&str] = &[
    "c", "h", "cc", "cp", "cpp", "cxx", "c++", "hh", "hpp", "hxx", "h++", "inl", "ipp", "m", "mm",
    "rs", "go", "py", "pyw", "pyi", "pyx", "js", "mjs", "cjs", "jsx", "ts", "mts", "cts", "tsx",
    "java", "kt", "kts", "scala", "swift", "zig", "d", "s", "asm", "f", "f90", "f95", "for", "rb",
    "lua", "cs", "fs", "nim", "cr", "hs", "ml", "pl", "php", "dart", "vue", "svelte",
];

impl Location {
    /// Parses `file.c:10`, `C:\src\file.c:10`, `ns::func` or `func`.
    ///
    /// The text after the last single `:` (one that is not half of a `::`) decides: all digits
    /// makes it a line, so Windows drive letters and C++/Rust paths stay intact. Anything else is
    /// a function name, unless the part before it is plainly a file (a path separator, or a
    /// source extension such as `.c`): `main.c:-3` or `main.c:abc` is then a bad line, refused
    /// here rather than sent to the adapter as a function it will never find.
    pub fn parse(text: &str) -> Result<Location, String> {
        let text = text.trim();
        if text.is_empty() {
            return Err("empty breakpoint location".to_string());
        }
        if text.ends_with("::") {
            return Err(format!("'{text}' ends in '::' with no name after it"));
        }
        if text.ends_with(':') {
            return Err(format!("'{text}' is missing its line number"));
        }
        let Some(colon) = last_single_colon(text) else {
            return Ok(Location::Function {
                name: text.to_string(),
            });
        };
        let (file, line) = (&text[..colon], &text[colon + 1..]);
        let is_number = line.bytes().all(|b| b.is_ascii_digit());
        if file.is_empty() {
            return Err(format!("'{text}' has no file before the ':'"));
        }
        if !is_number && !names_a_file(file) {
            return Ok(Location::Function {
                name: text.to_string(),
            });
        }
        if is_number
            && let Some(inner) = last_single_colon(file)
            && file[inner + 1..].bytes().all(|b| b.is_ascii_digit())
            && !file[inner + 1..].is_empty()
            && names_a_file(&file[..inner])
        {
            return Err(format!(
                "'{text}' has a column: breakpoints take FILE:LINE, so give '{file}'"
            ));
        }
        let not_positive =
            || format!("the line in '{text}' must be a positive whole number, not '{line}'");
        if !is_number {
            return Err(not_positive());
        }
        let line: u32 = line
            .parse()
            .map_err(|_| format!("line number '{line}' in '{text}' is too large"))?;
        if line == 0 {
            return Err(not_positive());
        }
        Ok(Location::Line {
            file: PathBuf::from(file),
            line,
        })
    }
}

/// A breakpoint's location as typed where one is set (`break`, `start -b`, `probe -b`,
/// `test -b`): `LOC`, or gdb's `LOC if COND`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ConditionalLocation {
    pub location: Location,
    /// The location's own text, trimmed, without its condition.
    pub text: String,
    /// The text after the first ` if `, as typed but for the spaces around it.
    pub condition: Option<String>,
}

impl ConditionalLocation {
    /// Parses `LOC` or `LOC if COND`. The first `if` that stands alone as a word ends the
    /// location, so a condition may hold `if` itself (Python's `a if b else c`); no location
    /// has a space before a word `if` in it. An `if` with nothing before it is refused with
    /// what a shell did to the unquoted `break f.c:3 if x > 1`: `if` came as a word of its own.
    pub fn parse(text: &str) -> Result<ConditionalLocation, String> {
        let text = text.trim();
        let Some((location, condition)) = split_at_if(text) else {
            return Ok(ConditionalLocation {
                location: Location::parse(text)?,
                text: text.to_string(),
                condition: None,
            });
        };
        let (location, condition) = (location.trim(), condition.trim());
        if location.is_empty() {
            return Err(format!(
                "'{text}' has no location before 'if' (quote a location and its condition \
                 as one argument)"
            ));
        }
        if condition.is_empty() {
            return Err(format!("'{text}' has no condition after 'if'"));
        }
        Ok(ConditionalLocation {
            location: Location::parse(location)?,
            text: location.to_string(),
            condition: Some(condition.to_string()),
        })
    }
}

/// `text` cut around its first word `if` (one with white space or the text's edge on each
/// side): the part before it and the part after it.
fn split_at_if(text: &str) -> Option<(&str, &str)> {
    let bytes = text.as_bytes();
    let mut from = 0;
    while let Some(found) = text[from..].find("if") {
        let at = from + found;
        let end = at + 2;
        let alone_before = at == 0 || bytes[at - 1].is_ascii_whitespace();
        let alone_after = bytes.get(end).is_none_or(u8::is_ascii_whitespace);
        if alone_before && alone_after {
            return Some((&text[..at], &text[end..]));
        }
        from = end;
    }
    None
}

/// The byte index of the last `:` that is not part of a `::`.
fn last_single_colon(text: &str) -> Option<usize> {
    let bytes = text.as_bytes();
    (0..bytes.len()).rev().find(|&i| {
        bytes[i] == b':'
            && (i == 0 || bytes[i - 1] != b':')
            && bytes.get(i + 1).is_none_or(|&next| next != b':')
    })
}

/// Whether `text` is plainly a file: it has a path separator, or ends in a source extension.
fn names_a_file(text: &str) -> bool {
    if text.contains(['/', '\\']) {
        return true;
    }
    text.rsplit_once('.').is_some_and(|(stem, extension)| {
        !stem.is_empty()
            && SOURCE_EXTENSIONS
                .iter()
                .any(|known| known.eq_ignore_ascii_case(extension))
    })
}

impl std::fmt::Display for Location {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Location::Line { file, line } => write!(f, "{}:{line}", file.display()),
            Location::Function { name } => f.write_str(name),
            Location::Data { expression, .. } => f.write_str(expression),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn line(file: &str, line: u32) -> Location {
        Location::Line {
            file: PathBuf::from(file),
            line,
        }
    }

    fn function(name: &str) -> Location {
        Location::Function {
            name: name.to_string(),
        }
    }

    #[test]
    fn file_and_line() {
        assert_eq!(Location::parse("file.c:10"), Ok(line("file.c", 10)));
        assert_eq!(Location::parse("src/a b.c:7"), Ok(line("src/a b.c", 7)));
        assert_eq!(Location::parse(" main.rs:1 "), Ok(line("main.rs", 1)));
        assert_eq!(Location::parse("Makefile:3"), Ok(line("Makefile", 3)));
        assert_eq!(
            Location::parse("json/stream.go:73"),
            Ok(line("json/stream.go", 73))
        );
    }

    #[test]
    fn windows_paths_keep_their_drive() {
        assert_eq!(
            Location::parse(r"C:\src\file.c:10"),
            Ok(line(r"C:\src\file.c", 10))
        );
        assert_eq!(
            Location::parse("C:/src/file.c:10"),
            Ok(line("C:/src/file.c", 10))
        );
    }

    #[test]
    fn function_names() {
        for name in [
            "func",
            "add",
            "ns::func",
            "a::b::Type::method",
            "<T as Trait>::method",
            "<rg::Foo as core::fmt::Display>::fmt",
            "Type::method<T>",
            "std::vector<int>::push_back",
            "::global",
            "main.add",
            "Account.deposit",
            "(*Account).Deposit",
            "main.(*Account).Deposit",
            "-[NSObject description:]",
            "operator<",
            "C:\\x",
        ] {
            assert_eq!(Location::parse(name), Ok(function(name)), "{name}");
        }
    }

    #[test]
    fn a_file_with_a_line_that_is_no_positive_number_is_refused() {
        for text in [
            "file.c:-3",
            "file.c:abc",
            "file.c:0",
            "file.c:000",
            "file.c:1.5",
            "file.c:+4",
            "ledger.PY:x",
            "src/main:abc",
            r"C:\src\file.c:abc",
            "lib/util.js:two",
        ] {
            let error = Location::parse(text).expect_err(text);
            assert!(
                error.contains("must be a positive whole number"),
                "{text}: {error}"
            );
        }
    }

    #[test]
    fn bad_locations() {
        for (text, says) in [
            ("", "empty"),
            ("  ", "empty"),
            ("file.c:", "missing its line number"),
            ("ns::", "no name after it"),
            (":10", "no file"),
            (":abc", "no file"),
            ("file.c:99999999999", "too large"),
            (
                "t.c:12:3",
                "has a column: breakpoints take FILE:LINE, so give 't.c:12'",
            ),
            ("src/t.c:12:3", "so give 'src/t.c:12'"),
        ] {
            let error = Location::parse(text).expect_err(text);
            assert!(error.contains(says), "{text:?}: {error}");
        }
    }

    fn conditional(text: &str) -> Result<(Location, String, Option<String>), String> {
        ConditionalLocation::parse(text).map(|c| (c.location, c.text, c.condition))
    }

    #[test]
    fn a_condition_follows_the_first_word_if() {
        assert_eq!(
            conditional("table.c:35 if key == 51285"),
            Ok((
                line("table.c", 35),
                "table.c:35".to_string(),
                Some("key == 51285".to_string())
            ))
        );
        assert_eq!(
            conditional("  apply   if amount > 100 "),
            Ok((
                function("apply"),
                "apply".to_string(),
                Some("amount > 100".to_string())
            ))
        );
        // The rest is the condition as typed, a later `if` and all.
        assert_eq!(
            conditional("app.py:9 if a if b else c").map(|c| c.2),
            Ok(Some("a if b else c".to_string()))
        );
        assert_eq!(
            conditional("f.c:3\tif\tx"),
            Ok((line("f.c", 3), "f.c:3".to_string(), Some("x".to_string())))
        );
    }

    #[test]
    fn if_inside_a_word_is_no_condition() {
        for text in ["ifdef.c:3", "notify", "verify_if", "a/if.c:2", "diff::ifx"] {
            let (location, typed, condition) = conditional(text).expect(text);
            assert_eq!(location, Location::parse(text).expect(text), "{text}");
            assert_eq!(typed, text);
            assert_eq!(condition, None, "{text}");
        }
    }

    #[test]
    fn if_without_a_location_or_a_condition_is_refused() {
        for (text, says) in [
            ("if", "no location before 'if'"),
            ("if x > 1", "no location before 'if'"),
            ("f.c:3 if", "no condition after 'if'"),
            ("f.c:3 if   ", "no condition after 'if'"),
            ("f.c:0 if x", "must be a positive whole number"),
        ] {
            let error = conditional(text).expect_err(text);
            assert!(error.contains(says), "{text:?}: {error}");
        }
    }

    #[test]
    fn last_single_colon_skips_double_colons() {
        assert_eq!(last_single_colon("a::b"), None);
        assert_eq!(last_single_colon("a::b:3"), Some(4));
        assert_eq!(last_single_colon(":5"), Some(0));
        assert_eq!(last_single_colon(r"C:\f.c:10"), Some(6));
    }

    #[test]
    fn files_are_told_by_separator_or_source_extension() {
        assert!(names_a_file("src/x"));
        assert!(names_a_file(r"dir\x"));
        assert!(names_a_file("x.c"));
        assert!(names_a_file("X.CPP"));
        assert!(!names_a_file("main.add"));
        assert!(!names_a_file(".c"));
        assert!(!names_a_file("func"));
    }
}
