//! JavaScript: a `node:test` file run by node itself, in one process so breakpoints bind (the
//! `--test` runner would start a child per file), with `--test-name-pattern` picking the test.
//! The selector is `FILE::NAME`, `FILE`, or `NAME` when the project has one test file.

use std::path::{Path, PathBuf};

use super::{Project, TestPlan, base_spec, in_project};
use crate::common::error::ErrorBody;

const RUNNER: &str = "node --test";

/// The test files of a folder (and its `test/`, `tests/`), as `node --test` names them.
pub(super) fn test_files(root: &Path) -> impl Iterator<Item = PathBuf> {
    [root.to_path_buf(), root.join("test"), root.join("tests")]
        .into_iter()
        .filter_map(|dir| std::fs::read_dir(dir).ok())
        .flatten()
        .flatten()
        .map(|entry| entry.path())
        .filter(|path| {
            path.file_name().and_then(|n| n.to_str()).is_some_and(|n| {
                [".test.js", ".test.mjs", ".test.cjs", "_test.js", "-test.js"]
                    .iter()
                    .any(|end| n.ends_with(end))
            })
        })
}

/// A pattern matching exactly `name` (`--test-name-pattern` takes a regular expression).
fn exact_pattern(name: &str) -> String {
    let mut pattern = String::from("^");
    for c in name.chars() {
        if "\\^$.|?*+()[]{}/".contains(c) {
            pattern.push('\\');
        }
        pattern.push(c);
    }
    pattern.push('$');
    pattern
}

pub(super) fn plan(project: &Project<'_>) -> Result<TestPlan, ErrorBody> {
    let selector = project.selector.unwrap_or("");
    let (file, name) = match selector.split_once("::") {
        Some((file, name)) => (Some(file), Some(name)),
        None if project.root.join(selector).is_file() => (Some(selector), None),
        None => (None, Some(selector).filter(|s| !s.is_empty())),
    };
    let file = match file {
        Some(file) => in_project(project.root, file.as_ref()),
        None => {
            let files: Vec<PathBuf> = test_files(project.root).collect();
            match files.as_slice() {
                [one] => one.clone(),
                [] => {
                    return Err(ErrorBody::usage(
                        format!("no test files in {}", project.root.display()),
                        "name the test file: 'debugger test FILE::NAME'",
                    ));
                }
                _ => {
                    return Err(ErrorBody::usage(
                        format!("the project has {} test files", files.len()),
                        "name the test's file: 'debugger test FILE::NAME'",
                    ));
                }
            }
        }
    };
    let mut spec = base_spec(project, file, project.runner_args.to_vec())?;
    if let (Some(test), Some(name)) = (&mut spec.test, name) {
        test.runtime_args = vec![format!("--test-name-pattern={}", exact_pattern(name))];
    }
    Ok(TestPlan {
        runner: RUNNER,
        test: selector.to_string(),
        spec,
        failure_functions: &[],
        root: project.root.to_path_buf(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_test_name_is_matched_exactly() {
        assert_eq!(exact_pattern("total (10%)"), "^total \\(10%\\)$");
    }
}
