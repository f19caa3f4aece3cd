//! LLDB's line tables through its console (`source info`), for
//! [`ConsoleUse::line_tables`](crate::adapters::ConsoleUse::line_tables).

use std::path::{Path, PathBuf};

use crate::adapters::line_tables::{CodeLines, LineTableQuery, gather};

/// `source info -f NAME` for `file`'s last component: every line entry of every file of that
/// name, in every compile unit (`image dump line-table` knows a compile unit's own file alone,
/// never a Rust crate's `lib.rs` inside `semver.…-cgu.0`). The session keeps the files whose
/// paths end with `file`.
pub fn query(file: &Path) -> Option<LineTableQuery> {
    let name = file.file_name()?.to_str()?;
    let quoted = name.replace('\\', "\\\\").replace('"', "\\\"");
    Some(LineTableQuery {
        command: format!("source info -f \"{quoted}\""),
        read,
    })
}

/// Reads the answer: one entry per address range, `[0x…-0x…): /src/ledger.c:25:1`, the column
/// absent where unknown and the line too where it is 0 (code of no line, which still tells the
/// file is the program's).
fn read(answer: &str) -> Vec<CodeLines> {
    gather(answer.lines().filter_map(entry))
}

fn entry(line: &str) -> Option<(PathBuf, u32)> {
    let (range, place) = line.trim().split_once(": ")?;
    if !range.trim_start_matches('[').starts_with("0x") {
        return None;
    }
    let numbers: Vec<u32> = place
        .rsplit(':')
        .take(2)
        .map_while(|part| part.parse().ok())
        .collect();
    // PATH:LINE:COLUMN, PATH:LINE or PATH.
    let (cut, line) = match numbers.as_slice() {
        [_, line] => (2, *line),
        [line] => (1, *line),
        _ => (0, 0),
    };
    let mut path = place;
    for _ in 0..cut {
        path = path.rsplit_once(':')?.0;
    }
    Some((PathBuf::from(path), line))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_answer_is_read_per_file() {
        let answer = "(lldb) source info -f lib.rs\n\n\
            Lines found for file lib.rs in compilation unit semver.e4d9-cgu.0 in `semv\n\
            [0x000055555556c0e5-0x000055555556c0e7): /reg/semver-1.0.28/src/lib.rs\n\
            Lines found for file lib.rs in compilation unit std.e282-cgu.0 in `semv\n\
            [0x0000555555573271-0x000055555557329d): /rust/deps/addr2line/src/lib.rs:25:1\n\
            [0x000055555557334e-0x0000555555573356): /rust/deps/addr2line/src/lib.rs:26\n";
        let tables = read(answer);
        assert_eq!(tables.len(), 2, "{tables:?}");
        assert_eq!(
            tables[0].file,
            PathBuf::from("/reg/semver-1.0.28/src/lib.rs")
        );
        assert!(tables[0].lines.is_empty(), "{tables:?}");
        assert_eq!(
            tables[1].lines.iter().copied().collect::<Vec<_>>(),
            [25, 26]
        );
        assert!(read("error: No source filenames matched 'nosuch.rs'.").is_empty());
        assert_eq!(
            query(Path::new("src/lib.rs")).map(|q| q.command).as_deref(),
            Some("source info -f \"lib.rs\"")
        );
    }
}
