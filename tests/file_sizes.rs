//! The file-size rule of docs/architecture.md: no source file over ~600 lines.
//!
//! A file that long mixes concerns, and a newcomer can no longer find one from a file name. This
//! walks `src/` and fails naming every `.rs` file over [`MAX_LINES`] that is not on
//! [`ALLOWED`]; it fails too when an allowed file is back under the limit, so the list only
//! shrinks and no file grows past the limit again unseen.

mod common;

/// The most lines a source file under `src/` may have.
const MAX_LINES: usize = 600;

/// Files allowed over the limit, each as (path relative to the crate root, why it cannot be
/// split). None is: a file that outgrows the limit is split by concern, and one that truly cannot
/// be comes here with its reason.
const ALLOWED: &[(&str, &str)] = &[];

#[test]
fn no_source_file_is_over_the_limit_unless_allowed() {
    let files = common::source_files();
    let mut problems = Vec::new();
    for (name, path) in &files {
        let text = std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{name}: {e}"));
        let lines = text.lines().count();
        let allowed = ALLOWED.iter().any(|(allowed, _)| *allowed == name);
        if lines > MAX_LINES && !allowed {
            problems.push(format!(
                "{name} has {lines} lines (limit {MAX_LINES}): split it by concern"
            ));
        } else if lines <= MAX_LINES && allowed {
            problems.push(format!(
                "{name} has {lines} lines, within the limit: take it off ALLOWED"
            ));
        }
    }
    for (allowed, _) in ALLOWED {
        if !files.iter().any(|(name, _)| name == allowed) {
            problems.push(format!("{allowed} is on ALLOWED but does not exist"));
        }
    }
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}
