//! Which lines of the program's files hold code, as an adapter's own console tells it.
//!
//! lldb and GDB place a breakpoint's relative file name themselves, against the program's line
//! tables, and answer a line they cannot bind with no word of why. The session's own reason
//! ("no such file in ...") is then wrong whenever the adapter has the file but the line has no
//! code (a comment, a blank line, a line outside any function): asked through the console, the
//! adapter's line tables tell the one case from the other, and where the nearest code is.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

/// The lines of one of the program's files that hold code.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CodeLines {
    pub file: PathBuf,
    pub lines: BTreeSet<u32>,
}

/// A console command (DAP `evaluate`, `repl` context) that lists the line tables of the
/// program's files of one name, and how to read its answer.
pub struct LineTableQuery {
    pub command: String,
    pub read: fn(&str) -> Vec<CodeLines>,
}

/// (file, line) pairs gathered into one [`CodeLines`] per file. Line 0 (code of no line) is no
/// line with code, but its file is the program's all the same.
pub fn gather(pairs: impl IntoIterator<Item = (PathBuf, u32)>) -> Vec<CodeLines> {
    let mut files: BTreeMap<PathBuf, BTreeSet<u32>> = BTreeMap::new();
    for (file, line) in pairs {
        let lines = files.entry(file).or_default();
        if line > 0 {
            lines.insert(line);
        }
    }
    files
        .into_iter()
        .map(|(file, lines)| CodeLines { file, lines })
        .collect()
}

/// Why a breakpoint at `file:line` stays pending, from the program's line tables `tables`: its
/// line has no code in the file (or any of the files) `file` names, and the nearest lines that
/// do. `None` when no table is of a file `file` names (it may load later), or when one has code
/// at the line (something else keeps it pending).
pub fn no_code_reason(file: &Path, line: u32, tables: &[CodeLines]) -> Option<String> {
    let named: Vec<&CodeLines> = tables
        .iter()
        .filter(|t| t.file.ends_with(file) || t.file == file)
        .collect();
    if named.is_empty() || named.iter().any(|t| t.lines.contains(&line)) {
        return None;
    }
    if let [only] = named.as_slice() {
        let before = only.lines.range(..line).next_back();
        let after = only.lines.range(line..).next();
        let nearest = match (before, after) {
            (Some(b), Some(a)) => format!("; the nearest lines with code are {b} and {a}"),
            (Some(one), None) | (None, Some(one)) => {
                format!("; the nearest line with code is {one}")
            }
            (None, None) => "; none of its lines has code in the program".to_string(),
        };
        return Some(format!(
            "line {line} of {} has no code{nearest}",
            only.file.display()
        ));
    }
    let shown: Vec<String> = named
        .iter()
        .take(3)
        .map(|t| t.file.display().to_string())
        .collect();
    let more = if named.len() > shown.len() {
        ", …"
    } else {
        ""
    };
    Some(format!(
        "line {line} has no code in any of the program's {} files named {} ({}{more}); give more \
         of the path to pick one",
        named.len(),
        file.display(),
        shown.join(", ")
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn table(file: &str, lines: &[u32]) -> CodeLines {
        CodeLines {
            file: PathBuf::from(file),
            lines: lines.iter().copied().collect(),
        }
    }

    #[test]
    fn a_line_without_code_names_the_nearest_lines_with_code() {
        let tables = [table("/src/c/ledger.c", &[25, 26, 28, 31, 59])];
        let reason = |file: &str, line| no_code_reason(Path::new(file), line, &tables);
        assert_eq!(
            reason("ledger.c", 1).as_deref(),
            Some("line 1 of /src/c/ledger.c has no code; the nearest line with code is 25")
        );
        assert_eq!(
            reason("c/ledger.c", 29).as_deref(),
            Some(
                "line 29 of /src/c/ledger.c has no code; the nearest lines with code are 28 and 31"
            )
        );
        assert_eq!(
            reason("/src/c/ledger.c", 60).as_deref(),
            Some("line 60 of /src/c/ledger.c has no code; the nearest line with code is 59")
        );
        // A line with code is pending for another reason; a file of another name is unknown.
        assert_eq!(reason("ledger.c", 26), None);
        assert_eq!(reason("other.c", 1), None);
        assert_eq!(reason("dger.c", 1), None);
    }

    #[test]
    fn several_files_of_the_name_are_counted() {
        let tables = [
            table("/a/src/lib.rs", &[10]),
            table("/b/src/lib.rs", &[20]),
            table("/b/src/main.rs", &[1]),
        ];
        let reason = no_code_reason(Path::new("lib.rs"), 1, &tables);
        assert_eq!(
            reason.as_deref(),
            Some(
                "line 1 has no code in any of the program's 2 files named lib.rs (/a/src/lib.rs, \
                 /b/src/lib.rs); give more of the path to pick one"
            )
        );
        assert_eq!(no_code_reason(Path::new("lib.rs"), 10, &tables), None);
        assert_eq!(
            gather([("/x.c".into(), 3), ("/x.c".into(), 0), ("/y.c".into(), 0)]),
            vec![table("/x.c", &[3]), table("/y.c", &[])]
        );
    }
}
