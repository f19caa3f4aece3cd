//! Python: pytest when the Python the adapter runs has it, else unittest, each run as a module
//! (`python -m pytest SELECTOR -p no:cacheprovider -x`, `python -m unittest SELECTOR`). Either
//! selector form works with either runner: pytest's `test_cart.py::CartTest::test_x` and
//! unittest's dotted `test_cart.CartTest.test_x` are turned into the form the runner takes.

use std::path::{Path, PathBuf};
use std::process::Command as Process;

use super::{Project, TestList, TestPlan, base_spec};
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
    let (runner, module, mut args) = if has_pytest(&python, project.root) {
        let args = vec![
            pytest_form(selector, project.root),
            "-p".into(),
            "no:cacheprovider".into(),
            "-x".into(),
        ];
        ("pytest", "pytest", args)
    } else {
        ("unittest", "unittest", vec![unittest_form(selector)])
    };
    args.extend(project.runner_args.iter().cloned());
    let mut spec = base_spec(project, project.root.to_path_buf(), args)?;
    spec.module = Some(module.to_string());
    Ok(TestPlan {
        runner,
        test: selector.to_string(),
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
    let mut command = Process::new(&python);
    command.current_dir(project.root).args([
        "-m",
        "pytest",
        "--collect-only",
        "-q",
        "-p",
        "no:cacheprovider",
    ]);
    match project.selector {
        // A path (`test_cart.py::CartTest`) or a dotted name is a node to collect under...
        Some(selector) if selector.contains("::") || selector.contains('.') => {
            command.arg(pytest_form(selector, project.root));
        }
        // ... a bare word a keyword expression, as `-k` takes it.
        Some(selector) => {
            command.args(["-k", selector]);
        }
        None => {}
    }
    command.args(project.runner_args);
    // pytest exits 5 when nothing was collected: that is an empty list, not a failure.
    let output = command
        .stdin(std::process::Stdio::null())
        .output()
        .map_err(|e| ErrorBody::internal(format!("cannot run pytest: {e}")))?;
    let stdout = String::from_utf8_lossy(&output.stdout);
    if !output.status.success() && output.status.code() != Some(5) {
        let last = stdout
            .lines()
            .rev()
            .find(|l| !l.trim().is_empty())
            .unwrap_or("");
        return Err(ErrorBody::usage(
            format!("pytest --collect-only failed: {last}"),
            "fix the test files, then list again",
        ));
    }
    Ok(TestList {
        runner: "pytest",
        selector: project.selector.map(str::to_string),
        tests: stdout
            .lines()
            .take_while(|line| !line.trim().is_empty())
            .filter(|line| line.contains("::"))
            .map(str::to_string)
            .collect(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

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
}
