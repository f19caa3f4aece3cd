//! C and C++ through CTest: a CMake build folder's tests, read from CTest's own description of
//! them (`ctest --show-only=json-v1`, CMake 3.14+), the selected test's command launched as
//! CTest runs it: its executable and arguments, in its working directory, with its environment.
//!
//! `debugger test` finds the build folder where it runs (a folder with `CTestTestfile.cmake`),
//! or, in a CMake project's source folder, in one of its sub-folders (`build/`,
//! `cmake-build-debug/`, `out/build/PRESET/`). The runner arguments are CTest's own (`-C Debug`
//! for a multi-configuration build). A C or C++ failure the debugger can stop at is a signal:
//! a failed `assert` (`abort`), a crash, a Google Test assertion (whose break-on-failure mode
//! is asked for through its environment variable). A test that fails by its exit status alone
//! passes no point to stop at: the report says so (see `report.rs`).

use std::path::{Path, PathBuf};
use std::process::Command as Process;

use serde_json::Value;

use super::native::break_on_failure_env;
use super::{Project, TestList, TestPlan, ambiguous, base_spec, no_match, run_tool, set_env};
use crate::common::error::ErrorBody;

pub(super) const RUNNER: &str = "ctest";

/// The file CMake writes into every build folder that has tests.
const TESTFILE: &str = "CTestTestfile.cmake";

/// The CTest build folder for `root`: `root` itself when it is one, else the one build folder
/// among its sub-folders (and `out/build/*`, where CMake presets put theirs). `None` when there
/// is none; an error when there are several, naming them.
pub(super) fn build_dir(root: &Path) -> Result<Option<PathBuf>, ErrorBody> {
    if root.join(TESTFILE).is_file() {
        return Ok(Some(root.to_path_buf()));
    }
    if !root.join("CMakeLists.txt").is_file() {
        return Ok(None);
    }
    let mut found: Vec<PathBuf> = [root.to_path_buf(), root.join("out").join("build")]
        .iter()
        .flat_map(|dir| std::fs::read_dir(dir).into_iter().flatten().flatten())
        .map(|entry| entry.path())
        .filter(|dir| dir.join(TESTFILE).is_file())
        .collect();
    found.sort();
    match found.len() {
        0 | 1 => Ok(found.pop()),
        _ => Err(ErrorBody::usage(
            format!(
                "{} CMake build folders have tests:\n  {}",
                found.len(),
                found
                    .iter()
                    .map(|d| d.display().to_string())
                    .collect::<Vec<_>>()
                    .join("\n  ")
            ),
            "run 'debugger test' in the build folder to use",
        )),
    }
}

/// The hint for a CMake project with no build folder that has tests.
pub(super) fn unbuilt(root: &Path) -> ErrorBody {
    ErrorBody::usage(
        format!(
            "{} is a CMake project without a build folder that has tests",
            root.display()
        ),
        "configure and build it with enable_testing() and add_test() in CMakeLists.txt: \
         'cmake -B build && cmake --build build', then run 'debugger test' again",
    )
}

/// One test as CTest describes it.
#[derive(Debug, Default, PartialEq)]
struct CtestTest {
    name: String,
    /// The executable and its arguments; empty when CTest has no command for it (a
    /// multi-configuration build asked for no configuration).
    command: Vec<String>,
    working_directory: Option<PathBuf>,
    /// `ENVIRONMENT`: `NAME=VALUE` entries.
    environment: Vec<String>,
    /// `ENVIRONMENT_MODIFICATION`: `NAME=OP:VALUE` entries.
    modifications: Vec<String>,
}

/// The tests of `ctest --show-only=json-v1`'s answer.
fn parse(json: &str) -> Result<Vec<CtestTest>, String> {
    let value: Value = serde_json::from_str(json).map_err(|e| format!("not JSON: {e}"))?;
    let tests = value["tests"]
        .as_array()
        .ok_or("no \"tests\" list in ctest's answer")?;
    let strings = |v: &Value| -> Vec<String> {
        match v {
            Value::String(s) => vec![s.clone()],
            Value::Array(items) => items
                .iter()
                .filter_map(|i| i.as_str().map(str::to_string))
                .collect(),
            _ => Vec::new(),
        }
    };
    Ok(tests
        .iter()
        .map(|test| {
            let mut found = CtestTest {
                name: test["name"].as_str().unwrap_or_default().to_string(),
                command: strings(&test["command"]),
                ..CtestTest::default()
            };
            for property in test["properties"].as_array().into_iter().flatten() {
                let value = &property["value"];
                match property["name"].as_str() {
                    Some("WORKING_DIRECTORY") => {
                        found.working_directory = value.as_str().map(PathBuf::from);
                    }
                    Some("ENVIRONMENT") => found.environment = strings(value),
                    Some("ENVIRONMENT_MODIFICATION") => found.modifications = strings(value),
                    _ => {}
                }
            }
            found
        })
        .collect())
}

/// The build folder's tests, by CTest (its arguments the runner arguments).
fn tests(project: &Project<'_>, build: &Path) -> Result<Vec<CtestTest>, ErrorBody> {
    let mut command = Process::new("ctest");
    command
        .current_dir(build)
        .arg("--show-only=json-v1")
        .args(project.runner_args);
    let stdout = run_tool(command, "ctest --show-only=json-v1")?;
    parse(&stdout).map_err(|e| {
        ErrorBody::usage(
            format!("cannot read ctest's list of tests: {e}"),
            "check that ctest is CMake 3.14 or newer ('ctest --version')",
        )
    })
}

/// The test `selector` names: the one of that name, else the one whose name contains it.
fn select<'t>(tests: &'t [CtestTest], selector: &str) -> Result<&'t CtestTest, ErrorBody> {
    if let Some(exact) = tests.iter().find(|t| t.name == selector) {
        return Ok(exact);
    }
    let found: Vec<&CtestTest> = tests.iter().filter(|t| t.name.contains(selector)).collect();
    match found.as_slice() {
        [] => Err(no_match(selector, RUNNER)),
        [one] => Ok(one),
        many => Err(ambiguous(
            selector,
            &many.iter().map(|t| t.name.clone()).collect::<Vec<_>>(),
        )),
    }
}

/// The folder whose files are the project's own (the test's frame is the first in one): the
/// CMake source folder the build's cache names, else the build folder.
fn source_dir(build: &Path) -> PathBuf {
    build
        .ancestors()
        .find_map(|dir| std::fs::read_to_string(dir.join("CMakeCache.txt")).ok())
        .and_then(|cache| {
            cache.lines().find_map(|line| {
                line.strip_prefix("CMAKE_HOME_DIRECTORY:INTERNAL=")
                    .map(PathBuf::from)
            })
        })
        .unwrap_or_else(|| build.to_path_buf())
}

/// The test's environment: `base` with its `ENVIRONMENT` set, then its
/// `ENVIRONMENT_MODIFICATION` applied in order, as CTest does.
fn environment(base: Vec<(String, String)>, test: &CtestTest) -> Vec<(String, String)> {
    let original = base.clone();
    let mut env = base;
    for entry in &test.environment {
        if let Some((name, value)) = entry.split_once('=') {
            set_env(&mut env, name, value.to_string());
        }
    }
    for entry in &test.modifications {
        let Some((name, change)) = entry.split_once('=') else {
            continue;
        };
        let (op, value) = change.split_once(':').unwrap_or((change, ""));
        let current = env.iter().find(|(k, _)| k == name).map(|(_, v)| v.clone());
        let joined = |first: &str, second: &str, by: &str| match (first, second) {
            ("", other) | (other, "") => other.to_string(),
            _ => format!("{first}{by}{second}"),
        };
        let path_list = |first: &str, second: &str| {
            std::env::join_paths([first, second].iter().filter(|p| !p.is_empty()))
                .map(|joined| joined.to_string_lossy().into_owned())
                .unwrap_or_else(|_| joined(first, second, ""))
        };
        let now = current.clone().unwrap_or_default();
        let changed = match op {
            "set" => Some(value.to_string()),
            "unset" => None,
            "reset" => original
                .iter()
                .find(|(k, _)| k == name)
                .map(|(_, v)| v.clone()),
            "string_append" => Some(format!("{now}{value}")),
            "string_prepend" => Some(format!("{value}{now}")),
            "path_list_append" => Some(path_list(&now, value)),
            "path_list_prepend" => Some(path_list(value, &now)),
            "cmake_list_append" => Some(joined(&now, value, ";")),
            "cmake_list_prepend" => Some(joined(value, &now, ";")),
            _ => current,
        };
        match changed {
            Some(value) => set_env(&mut env, name, value),
            None => env.retain(|(k, _)| k != name),
        }
    }
    env
}

pub(super) fn plan(
    project: &Project<'_>,
    build: &Path,
    break_on_failure: bool,
) -> Result<TestPlan, ErrorBody> {
    let Some(selector) = project.selector else {
        return Err(ErrorBody::usage(
            "name the test to debug",
            "'debugger test --list' lists them",
        ));
    };
    let all = tests(project, build)?;
    let test = select(&all, selector)?;
    let Some((program, args)) = test.command.split_first() else {
        return Err(ErrorBody::usage(
            format!("ctest has no command for test '{}'", test.name),
            "a multi-configuration build needs its configuration: 'debugger test NAME -- -C Debug'",
        ));
    };
    let cwd = test.working_directory.as_deref().unwrap_or(build);
    let mut spec = base_spec(
        project,
        super::in_project(cwd, program.as_ref()),
        args.to_vec(),
    )?;
    spec.cwd = cwd.to_path_buf();
    spec.env = environment(std::mem::take(&mut spec.env), test);
    if break_on_failure {
        break_on_failure_env(&mut spec.env);
    }
    Ok(TestPlan {
        runner: RUNNER,
        test: test.name.clone(),
        spec,
        failure_functions: &[],
        root: source_dir(build),
    })
}

pub(super) fn list(project: &Project<'_>, build: &Path) -> Result<TestList, ErrorBody> {
    let tests = tests(project, build)?
        .into_iter()
        .map(|t| t.name)
        .filter(|name| project.selector.is_none_or(|s| name.contains(s)))
        .collect();
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

    const ANSWER: &str = r#"{"kind":"ctestInfo","version":{"major":1,"minor":0},"tests":[
        {"name":"total_adds","command":["/b/cart_tests","total_adds"],
         "properties":[{"name":"WORKING_DIRECTORY","value":"/b"}]},
        {"name":"total_discount","command":["/b/cart_tests","total_discount"],
         "properties":[{"name":"ENVIRONMENT","value":["CART_DISCOUNT=10","A=1"]},
                       {"name":"ENVIRONMENT_MODIFICATION","value":["A=string_append:2","HOME=unset:","P=path_list_prepend:/x"]},
                       {"name":"WORKING_DIRECTORY","value":"/src"}]},
        {"name":"unbuilt","properties":[]}]}"#;

    #[test]
    fn ctests_description_gives_each_tests_command_folder_and_environment() {
        let tests = parse(ANSWER).expect("parse");
        assert_eq!(tests.len(), 3);
        assert_eq!(tests[1].command, ["/b/cart_tests", "total_discount"]);
        assert_eq!(
            tests[1].working_directory.as_deref(),
            Some(Path::new("/src"))
        );
        assert!(tests[2].command.is_empty());
        let base = vec![
            ("HOME".to_string(), "/h".to_string()),
            ("P".to_string(), "/p".to_string()),
        ];
        let env = environment(base, &tests[1]);
        let get = |name: &str| env.iter().find(|(k, _)| k == name).map(|(_, v)| v.as_str());
        assert_eq!(get("CART_DISCOUNT"), Some("10"));
        assert_eq!(get("A"), Some("12"));
        assert_eq!(get("HOME"), None);
        let joined = std::env::join_paths(["/x", "/p"]).expect("join");
        assert_eq!(get("P"), joined.to_str());
    }

    #[test]
    fn a_selector_is_a_tests_name_or_a_part_of_one_name() {
        let tests = parse(ANSWER).expect("parse");
        let name = |selector| select(&tests, selector).ok().map(|t| t.name.as_str());
        assert_eq!(name("total_adds"), Some("total_adds"));
        assert_eq!(name("discount"), Some("total_discount"));
        assert!(select(&tests, "total").is_err());
        assert!(select(&tests, "nothing").is_err());
    }
}
