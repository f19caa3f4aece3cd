//! Breakpoint locations as users type them: `FILE:LINE` or a function name; and the data a
//! watchpoint watches.

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

impl Location {
    /// Parses `file.c:10`, `C:\src\file.c:10`, `ns::func` or `func`.
    ///
    /// The text after the last `:` decides: all digits makes it a line (so Windows drive letters
    /// and `::` in C++ names stay intact); anything else is a function name.
    pub fn parse(text: &str) -> Result<Location, String> {
        let text = text.trim();
        if text.is_empty() {
            return Err("empty breakpoint location".to_string());
        }
        if let Some((file, line)) = text.rsplit_once(':')
            && !line.is_empty()
            && line.bytes().all(|b| b.is_ascii_digit())
        {
            if file.is_empty() || file.ends_with(':') {
                return Err(format!("'{text}' has a line number but no file"));
            }
            let line: u32 = line
                .parse()
                .map_err(|_| format!("line number '{line}' is too large"))?;
            if line == 0 {
                return Err("line numbers start at 1".to_string());
            }
            return Ok(Location::Line {
                file: PathBuf::from(file),
                line,
            });
        }
        if text.ends_with(':') {
            return Err(format!("'{text}' is missing its line number"));
        }
        Ok(Location::Function {
            name: text.to_string(),
        })
    }
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
    }

    #[test]
    fn windows_paths_keep_their_drive() {
        assert_eq!(
            Location::parse(r"C:\src\file.c:10"),
            Ok(line(r"C:\src\file.c", 10))
        );
    }

    #[test]
    fn function_names() {
        assert_eq!(Location::parse("func"), Ok(function("func")));
        assert_eq!(Location::parse("ns::func"), Ok(function("ns::func")));
        assert_eq!(
            Location::parse("a::b::Type::method"),
            Ok(function("a::b::Type::method"))
        );
        assert_eq!(Location::parse("C:\\x"), Ok(function("C:\\x")));
    }

    #[test]
    fn bad_locations() {
        assert!(Location::parse("").is_err());
        assert!(Location::parse("file.c:").is_err());
        assert!(Location::parse(":10").is_err());
        assert!(Location::parse("file.c:0").is_err());
        assert!(Location::parse("file.c:99999999999").is_err());
    }
}
