//! Rust: the test executables `cargo test --no-run --message-format=json` builds, each asked
//! for its tests (`--list`), and the one holding the selected test launched with it as an exact
//! filter, its output not captured and one test thread.
//!
//! Each executable is pinned (see `pin.rs`) as soon as cargo names it, while cargo still holds
//! its lock on the target folder: what is listed and launched is the build this command made,
//! even when another cargo (a second worktree or `debugger test` sharing the target folder,
//! `cargo watch`) rebuilds the same file once the lock is released.

use std::io::{BufRead, BufReader, Read};
use std::path::PathBuf;
use std::process::{Command as Process, Stdio};

use serde_json::Value;

use super::pin::pin;
use super::tool_failure::cannot_run;
use super::{Project, TestList, TestPlan, ambiguous, base_spec, no_match, run_tool};
use crate::common::error::{ErrorBody, ErrorCode};

pub(super) const RUNNER: &str = "cargo test";

/// A Rust failure is a panic, and every panic passes through `rust_panic` once the panic hook
/// has printed its message (on stderr, which `--nocapture` leaves uncaptured).
pub(super) const FAILURE_FUNCTIONS: &[&str] = &["rust_panic"];

/// One test executable: what cargo calls its target, and its file.
struct Executable {
    target: String,
    path: PathBuf,
}

/// Builds the tests (cargo's `-p`, `--test`, `--lib`... passed through) and returns their
/// executables, each pinned while cargo runs (see the module comment).
fn build(project: &Project<'_>) -> Result<Vec<Executable>, ErrorBody> {
    const WHAT: &str = "cargo test --no-run";
    let mut child = Process::new("cargo")
        .current_dir(project.root)
        .args(["test", "--no-run", "--message-format=json"])
        .args(project.runner_args)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .map_err(|e| cannot_run(WHAT, &e))?;
    // Cargo's stderr (its progress, the compiler's warnings) is read aside, so that a full pipe
    // never stalls the build while its messages are read here.
    let stderr = child.stderr.take().map(|mut pipe| {
        std::thread::spawn(move || {
            let mut text = String::new();
            let _ = pipe.read_to_string(&mut text);
            text
        })
    });
    let mut found = Vec::new();
    let mut pin_error = None;
    if let Some(stdout) = child.stdout.take() {
        for line in BufReader::new(stdout).lines() {
            let Ok(line) = line else { break };
            let Some(executable) = executable(&line) else {
                continue;
            };
            match pin(&executable.path) {
                Ok(path) => found.push(Executable { path, ..executable }),
                Err(e) => pin_error = pin_error.or(Some((executable.path, e))),
            }
        }
    }
    let status = child.wait().map_err(|e| cannot_run(WHAT, &e))?;
    let stderr = stderr.and_then(|t| t.join().ok()).unwrap_or_default();
    if !status.success() {
        return Err(super::tool_failed(WHAT, &stderr, ""));
    }
    if let Some((path, e)) = pin_error {
        return Err(ErrorBody::new(
            ErrorCode::Usage,
            format!("cannot keep a copy of {} to debug: {e}", path.display()),
            "check that the target folder is writable and has room",
        ));
    }
    Ok(found)
}

/// The test executable one of cargo's JSON messages names, if it names one.
fn executable(message: &str) -> Option<Executable> {
    let m = serde_json::from_str::<Value>(message).ok()?;
    if m["reason"] != "compiler-artifact" || m["profile"]["test"] != true {
        return None;
    }
    Some(Executable {
        target: m["target"]["name"].as_str()?.to_string(),
        path: PathBuf::from(m["executable"].as_str()?),
    })
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

/// Each executable with its tests, asked of all at once: a crate's test executables are many
/// (one per integration test file), and each takes a process start and a load of its symbols.
fn listed(executables: Vec<Executable>) -> Result<Vec<(Executable, Vec<String>)>, ErrorBody> {
    let answers: Vec<Result<Vec<String>, ErrorBody>> = std::thread::scope(|scope| {
        let asked: Vec<_> = executables
            .iter()
            .map(|executable| scope.spawn(move || tests_of(executable)))
            .collect();
        asked
            .into_iter()
            .map(|asked| {
                asked
                    .join()
                    .unwrap_or_else(|_| Err(ErrorBody::internal("a test listing thread panicked")))
            })
            .collect()
    });
    executables
        .into_iter()
        .zip(answers)
        .map(|(executable, tests)| Ok((executable, tests?)))
        .collect()
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
    for (executable, tests) in listed(build(project)?)? {
        for test in tests {
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
    for (executable, in_executable) in listed(build(project)?)? {
        for test in in_executable {
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
        warnings: Vec::new(),
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
        let found: Vec<Executable> = messages.lines().filter_map(executable).collect();
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
