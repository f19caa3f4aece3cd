//! Go: the package's tests built and run by the adapter (Delve's `test` mode, `go test`'s
//! build), with `-test.run` anchored on the selector (`TestTotal`, `TestTable/case`).

use std::process::Command as Process;

use super::{Project, TestList, TestPlan, base_spec, in_project, run_tool};
use crate::common::error::ErrorBody;

pub(super) const RUNNER: &str = "go test";

/// A failed test calls `testing.(*common).Fail` (from `t.Error`, `t.Fatal` and their kin), with
/// the test's frame two calls up; a panic starts in `runtime.gopanic`, with the panicking line
/// below it (the test runner's own recovery re-panics later, away from the test).
pub(super) const FAILURE_FUNCTIONS: &[&str] = &["testing.(*common).Fail", "runtime.gopanic"];

/// Whether a test binary's output says `-test.run` matched no test: it then passes, exit 0,
/// with this warning alone (on its stderr, which the output marks `[stderr]`).
pub(super) fn ran_no_test(output: &str) -> bool {
    output.lines().any(|line| {
        line.trim_end()
            .ends_with("testing: warning: no tests to run")
    })
}

/// `-test.run`'s pattern for a selector: each `/`-separated level matched whole.
fn run_pattern(selector: &str) -> String {
    selector
        .split('/')
        .map(|level| format!("^{level}$"))
        .collect::<Vec<_>>()
        .join("/")
}

/// The package (a `./dir` first runner argument, else the project's folder) and the arguments
/// left for the test binary.
fn package_and_args<'a>(project: &'a Project<'_>) -> (std::path::PathBuf, &'a [String]) {
    match project.runner_args.split_first() {
        Some((first, rest)) if first.starts_with("./") || first.starts_with("../") => {
            (in_project(project.root, first.as_ref()), rest)
        }
        _ => (project.root.to_path_buf(), project.runner_args),
    }
}

pub(super) fn plan(project: &Project<'_>) -> Result<TestPlan, ErrorBody> {
    let Some(selector) = project.selector else {
        return Err(ErrorBody::usage(
            "name the test to debug",
            "'debugger test --list' lists them",
        ));
    };
    let (package, rest) = package_and_args(project);
    let mut args = vec![
        "-test.run".to_string(),
        run_pattern(selector),
        "-test.v".into(),
    ];
    args.extend(rest.iter().cloned());
    let mut spec = base_spec(project, package, args)?;
    if let Some(test) = &mut spec.test {
        test.package = true;
    }
    Ok(TestPlan {
        runner: RUNNER,
        test: selector.to_string(),
        spec,
        failure_functions: FAILURE_FUNCTIONS,
        root: project.root.to_path_buf(),
    })
}

pub(super) fn list(project: &Project<'_>) -> Result<TestList, ErrorBody> {
    let (package, _) = package_and_args(project);
    let pattern = project.selector.unwrap_or(".");
    let mut command = Process::new("go");
    command
        .current_dir(&package)
        .args(["test", "-list", pattern, "."]);
    let stdout = run_tool(command, "go test -list")?;
    Ok(TestList {
        runner: RUNNER,
        selector: project.selector.map(str::to_string),
        tests: stdout
            .lines()
            .filter(|line| {
                ["Test", "Benchmark", "Example", "Fuzz"]
                    .iter()
                    .any(|kind| line.starts_with(kind))
            })
            .map(str::to_string)
            .collect(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_level_of_a_selector_is_matched_whole() {
        assert_eq!(run_pattern("TestTotal"), "^TestTotal$");
        assert_eq!(run_pattern("TestTable/tenth"), "^TestTable$/^tenth$");
    }
}
