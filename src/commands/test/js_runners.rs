//! JavaScript and TypeScript projects tested by vitest or jest, found in the project's
//! `package.json` and run from its `node_modules` by the script the package names as its `bin`
//! (so Windows' `.cmd` shims are not needed).
//!
//! vitest runs each test file in a child process (its `forks` pool), which the node adapter
//! debugs as it starts (see the adapter's `children`); its test and hook timeouts are turned off,
//! since a test paused in the debugger would otherwise fail when it goes on. jest runs in one
//! process with `--runInBand`.
//!
//! The selector is `FILE::NAME`, `FILE`, `NAME`, or a line of `--list` (vitest's
//! `FILE > SUITE > NAME`); a NAME matches the end of the test's full name (its suites' names,
//! then its own, joined by spaces), so `applies discount` and `cart applies discount` both pick
//! `cart > applies discount`.

use std::path::{Path, PathBuf};
use std::process::Command as Process;

use super::{Project, TestList, TestPlan, base_spec, run_tool};
use crate::common::error::ErrorBody;

/// The runners' names, as reports name them.
pub(super) const VITEST: &str = "vitest";
pub(super) const JEST: &str = "jest";

/// A test runner the project uses.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Runner {
    Vitest,
    Jest,
}

impl Runner {
    fn package(self) -> &'static str {
        match self {
            Runner::Vitest => VITEST,
            Runner::Jest => JEST,
        }
    }
}

/// The runner `package.json` at `root` depends on, if any.
pub(super) fn runner(root: &Path) -> Option<Runner> {
    let text = std::fs::read_to_string(root.join("package.json")).ok()?;
    let manifest: serde_json::Value = serde_json::from_str(&text).ok()?;
    let depends = |name: &str| {
        ["devDependencies", "dependencies"]
            .iter()
            .any(|k| manifest[k].get(name).is_some())
    };
    [Runner::Vitest, Runner::Jest]
        .into_iter()
        .find(|r| depends(r.package()))
}

/// The runner's script in the project's `node_modules`.
fn entry(root: &Path, runner: Runner) -> Result<PathBuf, ErrorBody> {
    let name = runner.package();
    let package = root.join("node_modules").join(name);
    let missing = || {
        ErrorBody::usage(
            format!("{name} is in package.json but not installed"),
            "install the project's dependencies: npm install",
        )
    };
    let text = std::fs::read_to_string(package.join("package.json")).map_err(|_| missing())?;
    let manifest: serde_json::Value = serde_json::from_str(&text).map_err(|_| missing())?;
    let bin = &manifest["bin"];
    let script = bin
        .as_str()
        .or_else(|| bin[name].as_str())
        .ok_or_else(missing)?;
    let path = package.join(script.trim_start_matches("./"));
    path.is_file().then_some(path).ok_or_else(missing)
}

/// A selector split into its file (when it names one) and its test name. The file is given to
/// the runner as it was typed: both take it as a filter on the test files' paths (vitest: a
/// part of the path, jest: a pattern), so `defu.test.ts` finds `test/defu.test.ts`.
fn split_selector(root: &Path, selector: &str) -> (Option<String>, Option<String>) {
    let (file, name) = if let Some((file, name)) = selector.split_once("::") {
        (Some(file), Some(name.to_string()))
    } else if let Some((file, rest)) = selector.split_once(" > ") {
        (Some(file), Some(rest.replace(" > ", " ")))
    } else if root.join(selector).is_file() {
        (Some(selector), None)
    } else {
        (None, Some(selector.to_string()))
    };
    let file = file.map(|f| f.trim().to_string());
    (file, name.filter(|n| !n.trim().is_empty()))
}

/// A pattern matching a full test name that ends with `name`, word for word (`-t` takes a
/// regular expression).
fn name_pattern(name: &str) -> String {
    format!("(^| ){}$", escaped(&name.replace(" > ", " ")))
}

/// `text` as a regular expression that matches it literally.
fn escaped(text: &str) -> String {
    let mut pattern = String::new();
    for c in text.chars() {
        if "\\^$.|?*+()[]{}/".contains(c) {
            pattern.push('\\');
        }
        pattern.push(c);
    }
    pattern
}

pub(super) fn plan(project: &Project<'_>, runner: Runner) -> Result<TestPlan, ErrorBody> {
    let root = project.root;
    let script = entry(root, runner)?;
    let selector = project.selector.unwrap_or("");
    let (file, name) = split_selector(root, selector);
    let mut args: Vec<String> = match runner {
        // `run`: once, not watching; no timeouts for a test that waits in the debugger.
        Runner::Vitest => ["run", "--testTimeout=0", "--hookTimeout=0"]
            .map(String::from)
            .to_vec(),
        Runner::Jest => ["--runInBand", "--testTimeout=2147483647"]
            .map(String::from)
            .to_vec(),
    };
    if let Some(file) = file {
        args.push(file);
    }
    if let Some(name) = &name {
        args.push("-t".into());
        args.push(name_pattern(name));
    }
    args.extend(project.runner_args.iter().cloned());
    let spec = base_spec(project, script, args)?;
    Ok(TestPlan {
        runner: runner.package(),
        test: selector.to_string(),
        spec,
        failure_functions: &[],
        root: root.to_path_buf(),
    })
}

/// The tests the selector matches, by the runner's own listing (`vitest list`,
/// `jest --listTests` names only files).
pub(super) fn list(project: &Project<'_>, runner: Option<Runner>) -> Result<TestList, ErrorBody> {
    let root = project.root;
    let Some(runner) = runner else {
        return Err(ErrorBody::internal("no runner to list tests with"));
    };
    let script = entry(root, runner)?;
    let (file, name) = split_selector(root, project.selector.unwrap_or(""));
    let node = crate::adapters::test_runtimes::node(project.config)?;
    let mut command = Process::new(node);
    command.current_dir(root).arg(&script);
    match runner {
        Runner::Vitest => command.arg("list"),
        Runner::Jest => command.arg("--listTests"),
    };
    if let Some(file) = &file {
        command.arg(file);
    }
    if let (Some(name), Runner::Vitest) = (&name, runner) {
        // A listing's selector is a filter: a part of the full name will do.
        command.arg("-t").arg(escaped(&name.replace(" > ", " ")));
    }
    command.args(project.runner_args).env("NO_COLOR", "1");
    let listed = run_tool(command, runner.package())?;
    // A test file's own output (one that runs `node:test` as it is collected prints TAP) is
    // not a test: vitest's lines are `FILE > ...`, jest's are files.
    let tests = listed
        .lines()
        .map(str::trim)
        .filter(|l| match runner {
            Runner::Vitest => l.contains(" > "),
            Runner::Jest => Path::new(l).is_file(),
        })
        .map(|l| match Path::new(l).strip_prefix(root) {
            Ok(relative) => relative.display().to_string(),
            Err(_) => l.to_string(),
        })
        .collect();
    Ok(TestList {
        runner: runner.package(),
        selector: project.selector.map(str::to_string),
        tests,
        warnings: Vec::new(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_name_matches_the_end_of_the_full_name_word_for_word() {
        assert_eq!(
            name_pattern("cart > applies (10%)"),
            "(^| )cart applies \\(10%\\)$"
        );
    }

    #[test]
    fn selectors_name_a_file_a_test_or_both() {
        let root = Path::new("/p");
        let (file, name) = split_selector(root, "cart.test.ts::applies discount");
        assert_eq!(file.as_deref(), Some("cart.test.ts"));
        assert_eq!(name.as_deref(), Some("applies discount"));
        let (file, name) = split_selector(root, "cart.test.ts > cart > applies discount");
        assert_eq!(file.as_deref(), Some("cart.test.ts"));
        assert_eq!(name.as_deref(), Some("cart applies discount"));
        let (file, name) = split_selector(root, "applies discount");
        assert_eq!(file, None);
        assert_eq!(name.as_deref(), Some("applies discount"));
    }

    #[test]
    fn the_runner_is_the_one_package_json_names() {
        let dir = tempfile::tempdir().expect("tempdir");
        std::fs::write(
            dir.path().join("package.json"),
            r#"{"devDependencies": {"vitest": "4.1.12"}}"#,
        )
        .expect("manifest");
        assert_eq!(runner(dir.path()), Some(Runner::Vitest));
        let error = entry(dir.path(), Runner::Vitest).expect_err("not installed");
        assert!(error.hint.contains("npm install"), "{}", error.hint);
        std::fs::write(dir.path().join("package.json"), "{}").expect("manifest");
        assert_eq!(runner(dir.path()), None);
    }
}
