//! Rust: the test executables `cargo test --no-run --message-format=json` builds, each asked
//! for its tests (`--list`), and the one holding the selected test launched with it as an exact
//! filter, its output not captured and one test thread.

use std::path::PathBuf;
use std::process::Command as Process;

use serde_json::Value;

use super::{Project, TestList, TestPlan, ambiguous, base_spec, no_match, run_tool};
use crate::common::error::ErrorBody;

const RUNNER: &str = "cargo test";

/// A Rust failure is a panic, and every panic passes through `rust_panic` once the panic hook
/// has printed its message (on stderr, which `--nocapture` leaves uncaptured).
const FAILURE_FUNCTIONS: &[&str] = &["rust_panic"];

/// One test executable: what cargo calls its target, and its file.
struct Executable {
    target: String,
    path: PathBuf,
}

/// Builds the tests (cargo's `-p`, `--test`, `--lib`... passed through) and returns their
/// executables.
fn build(project: &Project<'_>) -> Result<Vec<Executable>, ErrorBody> {
    let mut command = Process::new("cargo");
    command
        .current_dir(project.root)
        .args(["test", "--no-run", "--message-format=json"])
        .args(project.runner_args);
    let stdout = run_tool(command, "cargo test --no-run")?;
    Ok(executables(&stdout))
}

/// The test executables in cargo's JSON messages.
fn executables(messages: &str) -> Vec<Executable> {
    messages
        .lines()
        .filter_map(|line| serde_json::from_str::<Value>(line).ok())
        .filter(|m| m["reason"] == "compiler-artifact" && m["profile"]["test"] == true)
        .filter_map(|m| {
            Some(Executable {
                target: m["target"]["name"].as_str()?.to_string(),
                path: PathBuf::from(m["executable"].as_str()?),
            })
        })
        .collect()
}

/// The tests an executable holds, by its own `--list`.
fn tests_of(executable: &Executable) -> Result<Vec<String>, ErrorBody> {
    let mut command = Process::new(&executable.path);
    command.args(["--list", "--format", "terse"]);
    let stdout = run_tool(command, &format!("{} --list", executable.target))?;
    Ok(stdout
        .lines()
        .filter_map(|line| line.strip_suffix(": test"))
        .map(str::to_string)
        .collect())
}

/// Whether `test` is the one `selector` names: the full path, or its last segments.
fn names(test: &str, selector: &str) -> bool {
    test == selector || test.ends_with(&format!("::{selector}"))
}

pub(super) fn plan(project: &Project<'_>) -> Result<TestPlan, ErrorBody> {
    let Some(selector) = project.selector else {
        return Err(ErrorBody::usage(
            "name the test to debug",
            "'debugger test --list' lists them",
        ));
    };
    let mut found = Vec::new();
    for executable in build(project)? {
        for test in tests_of(&executable)? {
            if names(&test, selector) {
                found.push((executable.target.clone(), executable.path.clone(), test));
            }
        }
    }
    let (path, test) = match found.as_slice() {
        [] => return Err(no_match(selector, RUNNER)),
        [(_, path, test)] => (path.clone(), test.clone()),
        many => {
            let listed: Vec<String> = many
                .iter()
                .map(|(target, path, test)| format!("{test} in {target} ({})", path.display()))
                .collect();
            return Err(ambiguous(selector, &listed));
        }
    };
    let args = vec![
        test.clone(),
        "--exact".into(),
        "--nocapture".into(),
        "--test-threads=1".into(),
    ];
    let spec = base_spec(project, path, args)?;
    Ok(TestPlan {
        runner: RUNNER,
        test,
        spec,
        failure_functions: FAILURE_FUNCTIONS,
        root: project.root.to_path_buf(),
    })
}

pub(super) fn list(project: &Project<'_>) -> Result<TestList, ErrorBody> {
    let mut tests = Vec::new();
    for executable in build(project)? {
        for test in tests_of(&executable)? {
            let wanted = project
                .selector
                .is_none_or(|s| test.contains(s) || names(&test, s));
            if wanted {
                tests.push(format!("{test} ({})", executable.target));
            }
        }
    }
    Ok(TestList {
        runner: RUNNER,
        selector: project.selector.map(str::to_string),
        tests,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn test_executables_are_read_from_cargo_messages() {
        let messages = concat!(
            r#"{"reason":"compiler-artifact","target":{"name":"cart"},"profile":{"test":false},"executable":null}"#,
            "\n",
            r#"{"reason":"compiler-artifact","target":{"name":"cart"},"profile":{"test":true},"executable":"/t/cart-1"}"#,
            "\nnot json\n",
            r#"{"reason":"build-finished","success":true}"#,
        );
        let found = executables(messages);
        assert_eq!(found.len(), 1);
        assert_eq!(found[0].target, "cart");
        assert_eq!(found[0].path, PathBuf::from("/t/cart-1"));
    }

    #[test]
    fn a_selector_names_a_test_by_its_path_or_its_last_segments() {
        assert!(names("tests::total", "tests::total"));
        assert!(names("tests::total", "total"));
        assert!(!names("tests::subtotal", "total"));
    }
}
