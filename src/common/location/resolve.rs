//! The one resolver every adapter's line breakpoints go through: which file `FILE:LINE` means.
//!
//! People type a bare or relative file name from wherever they stand (`inventory.py:5`,
//! `json/stream.go:73`), and each adapter understands a different subset of that: lldb and GDB
//! match a name against their symbol tables, debugpy and Delve want the exact path. So the file is
//! decided here, the same way for all of them:
//!
//! 1. relative to the caller's directory (the CLI does this step, since only it knows the
//!    caller's directory);
//! 2. relative to each of the program's roots, in order: its folder, its working directory,
//!    and what its adapter adds (Go's module root, Python's `sys.path`);
//! 3. by path suffix, whole components only, among the files the program is made of (what the
//!    adapter lists, or the program's folder tree for a script language);
//! 4. of several, the program's own before its dependencies' before the runtime's, leaving out
//!    any too short for the line (`rank.rs`); two of the best rank are an error that lists them;
//!    none leaves the breakpoint pending, with a message that says where it looked.

use std::collections::HashMap;
use std::path::{Component, Path, PathBuf};
use std::time::SystemTime;

use crate::common::user_files;

/// Candidates named in an ambiguity error.
pub const MAX_CANDIDATES_SHOWN: usize = 10;
/// Files a folder-tree walk lists at most: enough for a large project, bounded for a home
/// directory someone runs a script from.
pub const TREE_FILE_LIMIT: usize = 50_000;
/// Folders a tree walk never enters: dependencies, build output, caches and version control.
const SKIPPED_FOLDERS: &[&str] = &[
    "node_modules",
    "__pycache__",
    "target",
    "site-packages",
    "dist-packages",
    "venv",
];

/// What a requested file resolved to.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Resolution {
    /// Exactly one file.
    Found(PathBuf),
    /// Several files end with the requested path: the user must say which.
    Ambiguous(Vec<PathBuf>),
    /// No file of that name is known (yet).
    Unknown,
}

/// Resolves `requested` (a relative path, as typed) against `roots` (rule 2, in order: the first
/// that holds it wins) and then by suffix among `known` (rule 3).
pub fn resolve(requested: &Path, roots: &[PathBuf], known: &[PathBuf]) -> Resolution {
    let Some(wanted) = normalized_relative(requested) else {
        return Resolution::Unknown;
    };
    for root in roots {
        let candidate = lexically_absolute(&root.join(&wanted));
        if candidate.is_file() {
            return Resolution::Found(candidate);
        }
    }
    let mut matches: Vec<PathBuf> = known
        .iter()
        .filter(|path| path.ends_with(&wanted))
        .map(|path| lexically_absolute(path))
        .collect();
    matches.sort();
    matches.dedup();
    match matches.len() {
        0 => Resolution::Unknown,
        1 => Resolution::Found(matches.remove(0)),
        _ => Resolution::Ambiguous(matches),
    }
}

/// `path` without `.` components; `None` when it climbs (`..`) or is absolute, since neither can
/// be a suffix of another path.
fn normalized_relative(path: &Path) -> Option<PathBuf> {
    let mut out = PathBuf::new();
    for component in path.components() {
        match component {
            Component::CurDir => {}
            Component::Normal(part) => out.push(part),
            Component::ParentDir | Component::RootDir | Component::Prefix(_) => return None,
        }
    }
    (!out.as_os_str().is_empty()).then_some(out)
}

/// `path` made absolute against `cwd`, with `.` and `..` resolved lexically (symlinks are kept,
/// as the user named them).
pub fn absolute(cwd: &Path, path: &Path) -> PathBuf {
    lexically_absolute(&cwd.join(path))
}

/// `path` with `.` and `..` resolved lexically (symlinks are kept, as the user named them).
pub fn lexically_absolute(path: &Path) -> PathBuf {
    let mut out = PathBuf::new();
    for component in path.components() {
        match component {
            Component::CurDir => {}
            Component::ParentDir => {
                out.pop();
            }
            other => out.push(other.as_os_str()),
        }
    }
    out
}

/// The number of lines in `path`, for refusing a breakpoint past its end. A last line without a
/// newline counts.
pub fn line_count(path: &Path) -> std::io::Result<u32> {
    let bytes = user_files::read_regular(path)?;
    let newlines = bytes.iter().filter(|b| **b == b'\n').count();
    let unterminated = usize::from(bytes.last().is_some_and(|b| *b != b'\n'));
    Ok(u32::try_from(newlines + unterminated).unwrap_or(u32::MAX))
}

/// Refuses a line past the end of a file ("line 999 is beyond the end of ledger.c, which has 50
/// lines"), counting each file's lines once: one `break` may name a thousand lines of a hundred
/// files. A count is kept while the file's size and modification time stay the same, so an
/// edited file is counted again. A file that cannot be read is left to the adapter.
#[derive(Debug, Default)]
pub struct LineCounts {
    known: HashMap<PathBuf, (Option<SystemTime>, u64, u32)>,
}

impl LineCounts {
    pub fn check(&mut self, path: &Path, line: u32) -> Result<(), String> {
        let Ok(metadata) = std::fs::metadata(path) else {
            return Ok(());
        };
        let stamp = (metadata.modified().ok(), metadata.len());
        let count = match self.known.get(path) {
            Some((modified, len, count)) if (*modified, *len) == stamp => *count,
            _ => {
                let Ok(count) = line_count(path) else {
                    return Ok(());
                };
                self.known
                    .insert(path.to_path_buf(), (stamp.0, stamp.1, count));
                count
            }
        };
        if line <= count {
            return Ok(());
        }
        let name = path.file_name().unwrap_or(path.as_os_str());
        Err(format!(
            "line {line} is beyond the end of {}, which has {count} line{}",
            Path::new(name).display(),
            if count == 1 { "" } else { "s" }
        ))
    }
}

/// The files under `root` whose extension is one of `extensions`, for suffix matching in a
/// script language's program. Hidden folders and those in [`SKIPPED_FOLDERS`] are not entered;
/// at most [`TREE_FILE_LIMIT`] files are listed.
pub fn source_tree(root: &Path, extensions: &[&str]) -> Vec<PathBuf> {
    let mut found = Vec::new();
    let mut folders = vec![root.to_path_buf()];
    while let Some(folder) = folders.pop() {
        let Ok(entries) = std::fs::read_dir(&folder) else {
            continue;
        };
        for entry in entries.flatten() {
            let name = entry.file_name();
            let name = name.to_string_lossy();
            let Ok(kind) = entry.file_type() else {
                continue;
            };
            if kind.is_dir() {
                if !name.starts_with('.') && !SKIPPED_FOLDERS.contains(&name.as_ref()) {
                    folders.push(entry.path());
                }
            } else if extension_of(&name).is_some_and(|ext| extensions.contains(&ext)) {
                found.push(entry.path());
                if found.len() >= TREE_FILE_LIMIT {
                    return found;
                }
            }
        }
    }
    found
}

fn extension_of(name: &str) -> Option<&str> {
    name.rsplit_once('.').map(|(_, ext)| ext)
}

/// The candidates of an ambiguity, one per line, at most [`MAX_CANDIDATES_SHOWN`], shown relative
/// to `base` where they are under it.
pub fn candidate_lines(candidates: &[PathBuf], base: &Path) -> String {
    let mut lines: Vec<String> = candidates
        .iter()
        .take(MAX_CANDIDATES_SHOWN)
        .map(|path| {
            let shown = path.strip_prefix(base).unwrap_or(path);
            format!("  {}", shown.display())
        })
        .collect();
    if candidates.len() > MAX_CANDIDATES_SHOWN {
        lines.push(format!(
            "  ... and {} more",
            candidates.len() - MAX_CANDIDATES_SHOWN
        ));
    }
    lines.join("\n")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn paths(list: &[&str]) -> Vec<PathBuf> {
        list.iter().map(PathBuf::from).collect()
    }

    #[test]
    fn suffixes_match_whole_components_only() {
        let known = paths(&["/go/src/encoding/json/stream.go", "/x/mystream.go"]);
        assert_eq!(
            resolve(Path::new("stream.go"), &[], &known),
            Resolution::Found(PathBuf::from("/go/src/encoding/json/stream.go"))
        );
        assert_eq!(
            resolve(Path::new("json/stream.go"), &[], &known),
            Resolution::Found(PathBuf::from("/go/src/encoding/json/stream.go"))
        );
        assert_eq!(
            resolve(Path::new("son/stream.go"), &[], &known),
            Resolution::Unknown
        );
        assert_eq!(
            resolve(Path::new("./json/./stream.go"), &[], &known),
            Resolution::Found(PathBuf::from("/go/src/encoding/json/stream.go"))
        );
    }

    #[test]
    fn two_files_of_one_name_are_ambiguous_until_more_of_the_path_is_given() {
        let known = paths(&["/p/a/util.py", "/p/b/util.py", "/p/b/util.py"]);
        assert_eq!(
            resolve(Path::new("util.py"), &[], &known),
            Resolution::Ambiguous(paths(&["/p/a/util.py", "/p/b/util.py"]))
        );
        assert_eq!(
            resolve(Path::new("b/util.py"), &[], &known),
            Resolution::Found(PathBuf::from("/p/b/util.py"))
        );
    }

    #[test]
    fn a_root_that_holds_the_file_wins_over_suffix_matches() {
        let dir = tempfile::tempdir().expect("tempdir");
        let file = dir.path().join("util.py");
        std::fs::write(&file, "x = 1\n").expect("write");
        let known = paths(&["/p/a/util.py", "/p/b/util.py"]);
        let roots = vec![PathBuf::from("/nonexistent"), dir.path().to_path_buf()];
        assert_eq!(
            resolve(Path::new("util.py"), &roots, &known),
            Resolution::Found(file)
        );
    }

    #[test]
    fn climbing_or_absolute_requests_are_never_suffixes() {
        let known = paths(&["/p/a/util.py"]);
        assert_eq!(
            resolve(Path::new("../a/util.py"), &[], &known),
            Resolution::Unknown
        );
        assert_eq!(
            resolve(Path::new("/q/a/util.py"), &[], &known),
            Resolution::Unknown
        );
    }

    #[test]
    fn line_counts_include_an_unterminated_last_line() {
        let dir = tempfile::tempdir().expect("tempdir");
        let file = dir.path().join("f.c");
        std::fs::write(&file, "a\nb\nc").expect("write");
        assert_eq!(line_count(&file).expect("count"), 3);
        std::fs::write(&file, "a\nb\n").expect("write");
        assert_eq!(line_count(&file).expect("count"), 2);
        std::fs::write(&file, "").expect("write");
        assert_eq!(line_count(&file).expect("count"), 0);
    }

    #[test]
    fn line_counts_are_kept_until_the_file_changes() {
        let dir = tempfile::tempdir().expect("tempdir");
        let file = dir.path().join("f.c");
        std::fs::write(&file, "a\nb\n").expect("write");
        let mut counts = LineCounts::default();
        assert_eq!(counts.check(&file, 2), Ok(()));
        assert_eq!(
            counts.check(&file, 3),
            Err("line 3 is beyond the end of f.c, which has 2 lines".to_string())
        );
        // Grown (a different size): counted again.
        std::fs::write(&file, "a\nb\nc\n").expect("write");
        assert_eq!(counts.check(&file, 3), Ok(()));
        // A file that cannot be read is the adapter's to judge.
        assert_eq!(counts.check(&dir.path().join("gone.c"), 99), Ok(()));
    }

    #[test]
    fn tree_walks_skip_dependencies_and_hidden_folders() {
        let dir = tempfile::tempdir().expect("tempdir");
        for (folder, file) in [
            ("pkg", "util.py"),
            ("node_modules/x", "util.py"),
            (".git", "util.py"),
            ("pkg/deep", "other.py"),
            ("pkg", "notes.txt"),
        ] {
            std::fs::create_dir_all(dir.path().join(folder)).expect("mkdir");
            std::fs::write(dir.path().join(folder).join(file), "").expect("write");
        }
        let mut found = source_tree(dir.path(), &["py"]);
        found.sort();
        assert_eq!(
            found,
            vec![
                dir.path().join("pkg/deep/other.py"),
                dir.path().join("pkg/util.py")
            ]
        );
    }

    #[test]
    fn candidate_lists_are_cut_at_ten() {
        let many: Vec<PathBuf> = (0..12)
            .map(|i| PathBuf::from(format!("/p/{i:02}/util.py")))
            .collect();
        let text = candidate_lines(&many, Path::new("/p"));
        assert_eq!(text.lines().count(), 11, "{text}");
        assert!(text.starts_with("  00/util.py"), "{text}");
        assert!(text.ends_with("... and 2 more"), "{text}");
    }
}
