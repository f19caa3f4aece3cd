//! The source lines around a stop, so a report shows where the program is, not just a line number:
//! the daemon's for a stop report, and `test`'s where it moves a failure to the line a panic names.

use std::path::Path;

use crate::common::user_files;
use crate::ipc::protocol::SourceSnippet;

/// The largest source file read for a snippet.
const MAX_SOURCE_BYTES: u64 = 16 * 1024 * 1024;
/// The longest source line shown; longer ones are cut (minified code, generated files).
const MAX_LINE_CHARS: usize = 200;

/// Reads `context` lines either side of `line` (1-based) from `file`, if it can be read.
pub fn snippet(file: &str, line: u32, context: u32) -> Option<SourceSnippet> {
    if line == 0 {
        return None;
    }
    // Only a regular file of sane size: the path comes from the adapter, and a FIFO or a device
    // would block the daemon, a huge generated file cost memory at every stop.
    let meta = std::fs::metadata(Path::new(file)).ok()?;
    if !meta.is_file() || meta.len() > MAX_SOURCE_BYTES {
        return None;
    }
    let text = user_files::read_regular(Path::new(file)).ok()?;
    snippet_of_text(file, &String::from_utf8_lossy(&text), line, context)
}

/// The same from the text of the file named `file` (one the adapter holds, not on disk: the
/// `sourcesContent` of a source map).
pub fn snippet_of_text(file: &str, text: &str, line: u32, context: u32) -> Option<SourceSnippet> {
    if line == 0 {
        return None;
    }
    let first = line.saturating_sub(context).max(1);
    let last = line.saturating_add(context);
    let lines: Vec<String> = text
        .lines()
        .skip(first as usize - 1)
        .take((last - first + 1) as usize)
        .map(|l| {
            let l = l.trim_end_matches('\r');
            if l.chars().count() > MAX_LINE_CHARS {
                let cut: String = l.chars().take(MAX_LINE_CHARS).collect();
                format!("{cut}…")
            } else {
                l.to_string()
            }
        })
        .collect();
    if lines.is_empty() || first + lines.len() as u32 <= line {
        return None;
    }
    Some(SourceSnippet {
        file: file.to_string(),
        first_line: first,
        current_line: line,
        lines,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lines_around_the_current_one() {
        let dir = tempfile::tempdir().expect("tempdir");
        let path = dir.path().join("a.c");
        std::fs::write(&path, "1\n2\n3\n4\n5\n6\n").expect("write");
        let file = path.to_string_lossy();
        let s = snippet(&file, 3, 1).expect("snippet");
        assert_eq!(
            (s.first_line, s.lines.clone()),
            (2, vec!["2".into(), "3".into(), "4".into()])
        );
        let s = snippet(&file, 1, 2).expect("snippet");
        assert_eq!(s.first_line, 1);
        assert_eq!(s.lines.len(), 3);
        assert!(snippet(&file, 99, 2).is_none());
        assert!(snippet("/no/such/file.c", 1, 2).is_none());
    }

    /// FIFOs are Unix's.
    #[cfg(unix)]
    #[test]
    fn a_fifo_is_not_read() {
        let dir = tempfile::tempdir().expect("tempdir");
        let fifo = dir.path().join("pipe.c");
        let path = std::ffi::CString::new(fifo.to_string_lossy().as_bytes()).expect("path");
        // SAFETY: a valid NUL-terminated path; mkfifo has no other preconditions.
        assert_eq!(unsafe { libc::mkfifo(path.as_ptr(), 0o600) }, 0);
        // Reading it would block forever; the snippet must refuse instead.
        assert!(snippet(&fifo.to_string_lossy(), 1, 2).is_none());
    }
}
