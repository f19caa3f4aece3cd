//! Python: pytest when the Python the adapter runs has it, else unittest, each run as a module
//! (`python -m pytest SELECTOR -p no:cacheprovider -x`, `python -m unittest SELECTOR`). Either
//! selector form works with either runner: pytest's `test_cart.py::CartTest::test_x` and
//! unittest's dotted `test_cart.CartTest.test_x` are turned into the form the runner takes.

use std::path::{Path, PathBuf};
use std::process::Command as Process;

use super::tool_failure::{cannot_run, reason, tool_failed};
use super::{Project, TestList, TestPlan, ambiguous, base_spec, no_match};
use crate::adapters::test_runtimes;
use crate::common::error::ErrorBody;

/// The test files of a folder (and its `tests/`), as pytest's default discovery names them.
pub(super) fn test_files(root: &Path) -> impl Iterator<Item = PathBuf> {
    [root.to_path_buf(), root.join("tests")]
        .into_iter()
        .filter_map(|dir| std::fs::read_dir(dir).ok())
        .flatten()
        .flatten()
        .map(|entry| entry.path())
        .filter(|path| {
            path.file_name().and_then(|n| n.to_str()).is_some_and(|n| {
                n.ends_with(".py") && (n.starts_with("test_") || n.ends_with("_test.py"))
            })
        })
}

/// Whether `python` can import pytest.
fn has_pytest(python: &Path, root: &Path) -> bool {
    Process::new(python)
        .current_dir(root)
        .args(["-c", "import pytest"])
        .stdin(std::process::Stdio::null())
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .status()
        .is_ok_and(|s| s.success())
}

/// A selector in pytest's form: a dotted one becomes `path/to/module.py::Class::test`, its
/// module part being the longest dotted prefix that names a file under `root`.
fn pytest_form(selector: &str, root: &Path) -> String {
    if selector.contains("::") || selector.ends_with(".py") || selector.contains('/') {
        return selector.to_string();
    }
    let parts: Vec<&str> = selector.split('.').collect();
    for split in (1..=parts.len()).rev() {
        let file = format!("{}.py", parts[..split].join("/"));
        if root.join(&file).is_file() {
            let mut form = file;
            for part in &parts[split..] {
                form.push_str("::");
                form.push_str(part);
            }
            return form;
        }
    }
    selector.to_string()
}

/// How pytest is told the tests a selector names.
#[derive(Debug, PartialEq, Eq)]
enum Selection {
    /// A node to collect under, in pytest's form: a path, `file.py::Class::test`, a dotted name
    /// that names a file.
    Node(String),
    /// A bare name (`test_month_end`), which names no file: a keyword expression, as `-k`
    /// takes it. Given to pytest as a path it is "file or directory not found".
    Keyword(String),
}

/// What `selector` is to pytest: a node when, in pytest's form, it is a path or names a file or
/// folder under `root`, else a keyword.
fn selection(selector: &str, root: &Path) -> Selection {
    let form = pytest_form(selector, root);
    let is_node = form.contains("::")
        || form.ends_with(".py")
        || form.contains(['/', '\\'])
        || root.join(&form).exists();
    if is_node {
        Selection::Node(form)
    } else {
        Selection::Keyword(selector.to_string())
    }
}

/// The one test of `listed` (pytest's node ids) that the bare name `selector` names: the one
/// named exactly so, else the only one listed.
fn named_test(selector: &str, listed: &[String]) -> Result<String, ErrorBody> {
    let exact: Vec<&String> = listed
        .iter()
        .filter(|test| test.rsplit("::").next() == Some(selector))
        .collect();
    let found = if exact.is_empty() {
        listed.iter().collect()
    } else {
        exact
    };
    match found.as_slice() {
        [] => Err(no_match(selector, PYTEST)),
        [one] => Ok((*one).clone()),
        many => Err(ambiguous(
            selector,
            &many.iter().map(|t| t.to_string()).collect::<Vec<_>>(),
        )),
    }
}

/// The runners' names, as reports give them.
pub(super) const PYTEST: &str = "pytest";
pub(super) const UNITTEST: &str = "unittest";

/// The exit statuses with which `runner` says it ran no test: pytest's 4 (a usage error, as a
/// path or node it cannot find) and 5 (nothing collected, as when `-k` deselects every test),
/// and unittest's 5 (no tests ran, from Python 3.12). A run that ends so is an error, not a test
/// that ended.
pub(super) fn no_test_statuses(runner: &str) -> &'static [i64] {
    match runner {
        PYTEST => &[4, 5],
        UNITTEST => &[5],
        _ => &[],
    }
}

/// A selector in unittest's dotted form: `tests/test_cart.py::CartTest::test_x` becomes
/// `tests.test_cart.CartTest.test_x`.
fn unittest_form(selector: &str) -> String {
    let mut parts = selector.split("::");
    let module = parts.next().unwrap_or(selector);
    let module = module
        .strip_suffix(".py")
        .unwrap_or(module)
        .replace(['/', '\\'], ".");
    std::iter::once(module)
        .chain(parts.map(str::to_string))
        .collect::<Vec<_>>()
        .join(".")
}

pub(super) fn plan(project: &Project<'_>) -> Result<TestPlan, ErrorBody> {
    let Some(selector) = project.selector else {
        return Err(ErrorBody::usage(
            "name the test to debug",
            "'debugger test --list' lists them",
        ));
    };
    let python = test_runtimes::python(project.config)?;
    let (runner, test, mut args) = if has_pytest(&python, project.root) {
        // A bare name is looked up as `--list` looks it up, and runs only when it names one test.
        let node = match selection(selector, project.root) {
            Selection::Node(node) => node,
            keyword @ Selection::Keyword(_) => {
                let (tests, warnings) = collected(project, &python, Some(&keyword))?;
                named_test(selector, &tests).map_err(|mut error| {
                    for warning in &warnings {
                        error.message.push_str(&format!("\n(warning: {warning})"));
                    }
                    error
                })?
            }
        };
        let args = vec![
            node.clone(),
            "-p".into(),
            "no:cacheprovider".into(),
            "-x".into(),
        ];
        (PYTEST, node, args)
    } else {
        (
            UNITTEST,
            selector.to_string(),
            vec![unittest_form(selector)],
        )
    };
    args.extend(project.runner_args.iter().cloned());
    let mut spec = base_spec(project, project.root.to_path_buf(), args)?;
    spec.options.python.module = Some(runner.to_string());
    Ok(TestPlan {
        runner,
        test,
        spec,
        failure_functions: &[],
        root: project.root.to_path_buf(),
    })
}

pub(super) fn list(project: &Project<'_>) -> Result<TestList, ErrorBody> {
    let python = test_runtimes::python(project.config)?;
    if !has_pytest(&python, project.root) {
        return Err(ErrorBody::usage(
            "unittest has no listing of its tests",
            "name the test to run, e.g. 'debugger test test_cart.CartTest.test_x'",
        ));
    }
    let selection = project
        .selector
        .map(|selector| selection(selector, project.root));
    let (tests, warnings) = collected(project, &python, selection.as_ref())?;
    Ok(TestList {
        runner: PYTEST,
        selector: project.selector.map(str::to_string),
        tests,
        warnings,
    })
}

/// The node ids of the tests pytest collects for `selection` (`None`: every test), and a
/// warning for each file it could not collect (one that raises as it is imported): pytest still
/// lists the tests it did collect, though it calls the session interrupted.
fn collected(
    project: &Project<'_>,
    python: &Path,
    selection: Option<&Selection>,
) -> Result<(Vec<String>, Vec<String>), ErrorBody> {
    let what = "pytest --collect-only";
    let mut command = Process::new(python);
    command.current_dir(project.root).args([
        "-m",
        "pytest",
        "--collect-only",
        "-q",
        "-p",
        "no:cacheprovider",
    ]);
    match selection {
        Some(Selection::Node(node)) => {
            command.arg(node);
        }
        Some(Selection::Keyword(name)) => {
            command.args(["-k", name]);
        }
        None => {}
    }
    command.args(project.runner_args);
    let output = command
        .stdin(std::process::Stdio::null())
        .output()
        .map_err(|e| cannot_run(what, &e))?;
    let stdout = String::from_utf8_lossy(&output.stdout);
    let tests: Vec<String> = stdout
        .lines()
        .take_while(|line| !line.trim().is_empty())
        .filter(|line| line.contains("::"))
        .map(str::to_string)
        .collect();
    let warnings = collection_errors(&stdout);
    // pytest exits 5 when nothing was collected: that is an empty list, not a failure; 1 or 2
    // with collection errors, which the warnings name.
    let listed = output.status.success()
        || output.status.code() == Some(5)
        || (matches!(output.status.code(), Some(1 | 2)) && !warnings.is_empty());
    if !listed {
        let stderr = String::from_utf8_lossy(&output.stderr);
        return Err(tool_failed(what, &stderr, &stdout));
    }
    Ok((tests, warnings))
}

/// A warning per file pytest could not collect, from its `ERROR collecting FILE` sections:
/// the file and the exception's last line (`E   RuntimeError: …`).
fn collection_errors(stdout: &str) -> Vec<String> {
    let mut warnings = Vec::new();
    let mut current: Option<(String, Option<String>)> = None;
    let mut finish = |current: &mut Option<(String, Option<String>)>| {
        if let Some((file, why)) = current.take() {
            let why = why.unwrap_or_else(|| "an error".to_string());
            warnings.push(format!("{file} was not collected: {why}"));
        }
    };
    for line in stdout.lines() {
        let header = line.trim().trim_matches('_').trim();
        if line.starts_with("___") {
            finish(&mut current);
            if let Some(file) = header.strip_prefix("ERROR collecting ") {
                current = Some((file.to_string(), None));
            }
        } else if line.starts_with("===") {
            finish(&mut current);
        } else if let Some((_, why)) = &mut current
            && line.starts_with("E ")
        {
            *why = Some(reason(line));
        }
    }
    finish(&mut current);
    warnings
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_file_pytest_could_not_collect_is_named_with_its_error() {
        let stdout = "tests/test_ledger.py::test_balance_adds\n\n\
            ==================== ERRORS ====================\n\
            ______ ERROR collecting tests/test_broken.py ______\n\
            tests/test_broken.py:1: in <module>\n    raise RuntimeError(\"x\")\n\
            E   RuntimeError: the fixture database is not configured\n\
            ______ ERROR collecting tests/test_legacy.py ______\n\
            E   DeprecationWarning: the legacy ledger is deprecated\n\
            ========== short test summary info ==========\n\
            ERROR tests/test_broken.py - RuntimeError: the fixture database is not config...\n";
        assert_eq!(
            collection_errors(stdout),
            [
                "tests/test_broken.py was not collected: RuntimeError: the fixture database is \
                 not configured",
                "tests/test_legacy.py was not collected: DeprecationWarning: the legacy ledger \
                 is deprecated",
            ]
        );
    }

    #[test]
    fn either_selector_form_becomes_the_runners() {
        let dir = tempfile::tempdir().expect("tempdir");
        std::fs::create_dir(dir.path().join("tests")).expect("tests");
        std::fs::write(dir.path().join("tests/test_cart.py"), "").expect("write");
        assert_eq!(
            pytest_form("tests.test_cart.CartTest.test_x", dir.path()),
            "tests/test_cart.py::CartTest::test_x"
        );
        assert_eq!(
            pytest_form("tests/test_cart.py::test_y", dir.path()),
            "tests/test_cart.py::test_y"
        );
        assert_eq!(
            unittest_form("tests/test_cart.py::CartTest::test_x"),
            "tests.test_cart.CartTest.test_x"
        );
        assert_eq!(unittest_form("test_cart.CartTest"), "test_cart.CartTest");
    }

    #[test]
    fn a_bare_name_is_a_keyword_and_names_one_test_or_none() {
        let dir = tempfile::tempdir().expect("tempdir");
        std::fs::create_dir(dir.path().join("tests")).expect("tests");
        std::fs::write(dir.path().join("tests/test_cart.py"), "").expect("write");
        let node = |form: &str| Selection::Node(form.to_string());
        assert_eq!(
            selection("tests.test_cart.test_x", dir.path()),
            node("tests/test_cart.py::test_x")
        );
        assert_eq!(selection("tests", dir.path()), node("tests"));
        assert_eq!(
            selection("test_month_end", dir.path()),
            Selection::Keyword("test_month_end".into())
        );
        let listed: Vec<String> = ["a.py::test_ok", "a.py::test_ok_too", "b.py::K::test_p[1]"]
            .map(String::from)
            .to_vec();
        // The one named exactly, though the keyword matched more; else the only one listed.
        assert_eq!(named_test("test_ok", &listed).ok(), Some(listed[0].clone()));
        assert_eq!(
            named_test("test_p", &listed[2..]).ok(),
            Some(listed[2].clone())
        );
        let several = named_test("test_o", &listed[..2]).expect_err("ambiguous");
        assert!(several.message.contains("a.py::test_ok_too"), "{several:?}");
        assert!(named_test("test_x", &[]).is_err());
    }
}
