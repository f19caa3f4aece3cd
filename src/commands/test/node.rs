//! JavaScript: a `node:test` file run by node itself, in one process so breakpoints bind (the
//! `--test` runner would start a child per file), with `--test-name-pattern` picking the test.
//! The selector is `FILE::NAME`, `FILE`, or `NAME` when the project has one test file (or one
//! `node:test` file that declares a test of that name). The test files are those the runner
//! itself would run (its search down the folder tree); `node_list.rs` lists their tests.
//!
//! In a project whose `package.json` names vitest or jest, a test of a `node:test` file is still
//! node's ([`claims`]): vitest would take such a file as its own (`*.test.js`) and run every
//! `node:test` test in it in its worker, whatever the name, and call the failure vitest's.

use std::path::{Path, PathBuf};

use super::node_list::{self, RUNNER};
use super::{Project, TestPlan, base_spec, in_project};
use crate::common::error::ErrorBody;

/// The test files under a folder, as `node --test` (Node.js 20) finds them when given none:
/// every `.js`, `.cjs` and `.mjs` file under a folder named `test`, and elsewhere those named
/// `test`, `test-*`, `*.test`, `*-test` or `*_test`; `node_modules` folders are passed over.
/// In their paths' order; links to folders are not followed.
pub(super) fn test_files(root: &Path) -> impl Iterator<Item = PathBuf> {
    let mut found = Vec::new();
    let mut folders = vec![(root.to_path_buf(), false)];
    while let Some((folder, in_test)) = folders.pop() {
        let Ok(entries) = std::fs::read_dir(&folder) else {
            continue;
        };
        for entry in entries.flatten() {
            let Ok(kind) = entry.file_type() else {
                continue;
            };
            let name = entry.file_name();
            let Some(name) = name.to_str() else {
                continue;
            };
            if kind.is_dir() && name != "node_modules" {
                folders.push((entry.path(), in_test || name == "test"));
            } else if !kind.is_dir() && is_test_file(name, in_test) {
                found.push(entry.path());
            }
        }
    }
    found.sort();
    found.into_iter()
}

/// Whether a file named `name` is a test file to `node --test`, in a `test` folder or not.
fn is_test_file(name: &str, in_test: bool) -> bool {
    let Some(stem) = [".js", ".cjs", ".mjs"]
        .iter()
        .find_map(|end| name.strip_suffix(end))
    else {
        return false;
    };
    in_test
        || stem == "test"
        || stem.starts_with("test-")
        || [".test", "-test", "_test"]
            .iter()
            .any(|end| stem.ends_with(end))
}

/// Whether a JavaScript file imports node's test runner (`require('node:test')`, `import test
/// from "node:test"`).
fn imports_node_test(path: &Path) -> bool {
    std::fs::read_to_string(path).is_ok_and(|text| names_node_test(&text))
}

/// Whether a file's text imports node's test runner.
fn names_node_test(text: &str) -> bool {
    text.contains("'node:test'") || text.contains("\"node:test\"")
}

/// Whether a `node:test` file declares a test named `name`: its text holds the name quoted.
fn declares(path: &Path, name: &str) -> bool {
    std::fs::read_to_string(path).is_ok_and(|text| {
        names_node_test(&text)
            && ['\'', '"', '`']
                .iter()
                .any(|q| text.contains(&format!("{q}{name}{q}")))
    })
}

/// Whether `selector` is about a `node:test` test rather than the project's vitest or jest: the
/// file it names imports `node:test`, or (a bare name) a `node:test` file declares that test.
pub(super) fn claims(root: &Path, selector: &str) -> bool {
    if selector.is_empty() || selector.contains(" > ") {
        return false;
    }
    match selector.split_once("::") {
        Some((file, _)) => imports_node_test(&in_project(root, file.as_ref())),
        None if root.join(selector).is_file() => imports_node_test(&root.join(selector)),
        None => test_files(root).any(|file| declares(&file, selector)),
    }
}

/// The files of `files` that declare a test named `name`: the one whose text holds the name
/// quoted when only one does, else those the runner lists it in (a name built at run time, or
/// declared in several files); all of them when it lists it in none, to be said so.
fn declaring(
    project: &Project<'_>,
    files: Vec<PathBuf>,
    name: &str,
) -> Result<Vec<PathBuf>, ErrorBody> {
    let quoting: Vec<PathBuf> = files
        .iter()
        .filter(|f| declares(f, name))
        .cloned()
        .collect();
    if let [one] = quoting.as_slice() {
        return Ok(vec![one.clone()]);
    }
    let (tests, _) = node_list::listed(project, &files)?;
    let mut listing: Vec<PathBuf> = tests
        .into_iter()
        .filter(|t| t.name == name)
        .map(|t| t.file)
        .collect();
    listing.dedup();
    if listing.is_empty() {
        return Err(ErrorBody::usage(
            format!(
                "no test of the project's {} test files is named '{name}' ({RUNNER})",
                files.len()
            ),
            "'debugger test --list' lists the tests",
        ));
    }
    Ok(listing)
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
            let mut files: Vec<PathBuf> = test_files(project.root).collect();
            if let Some(name) = name.filter(|_| files.len() > 1) {
                files = declaring(project, files, name)?;
            }
            match files.as_slice() {
                [one] => one.clone(),
                [] => {
                    return Err(ErrorBody::usage(
                        format!("no test files in {}", project.root.display()),
                        "name the test file: 'debugger test FILE::NAME'",
                    ));
                }
                several if name.is_none() => {
                    return Err(ErrorBody::usage(
                        format!("the project has {} test files", several.len()),
                        "name the test's file: 'debugger test FILE::NAME'",
                    ));
                }
                several => {
                    let shown: Vec<String> = several
                        .iter()
                        .map(|f| node_list::shown(project.root, f))
                        .collect();
                    return Err(ErrorBody::usage(
                        format!(
                            "'{selector}' is in {} test files: {}",
                            several.len(),
                            shown.join(", ")
                        ),
                        "name the test's file: 'debugger test FILE::NAME' ('debugger test --list' \
                         lists them so)",
                    ));
                }
            }
        }
    };
    let mut spec = base_spec(project, file, project.runner_args.to_vec())?;
    if let Some(name) = name {
        spec.options.node.runtime_args =
            vec![format!("--test-name-pattern={}", exact_pattern(name))];
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
    fn a_node_test_files_tests_are_claimed_from_the_projects_runner() {
        let dir = tempfile::tempdir().expect("tempdir");
        let root = dir.path();
        let write = |name: &str, text: &str| std::fs::write(root.join(name), text).expect("write");
        write(
            "cart.node.test.js",
            "const test = require('node:test');\ntest(\"sum is wrong\", () => {});\n",
        );
        write(
            "cart.test.js",
            "import { it } from 'vitest';\nit('sums lines', () => {});\n",
        );
        assert!(claims(root, "sum is wrong"));
        assert!(claims(root, "cart.node.test.js::sum is wrong"));
        assert!(claims(root, "cart.node.test.js"));
        assert!(!claims(root, "sums lines"));
        assert!(!claims(root, "cart.test.js::sums lines"));
        assert!(!claims(root, "cart.test.js > sums lines"));
        assert!(!claims(root, ""));
    }

    #[test]
    fn a_test_name_is_matched_exactly() {
        assert_eq!(exact_pattern("total (10%)"), "^total \\(10%\\)$");
    }
}
