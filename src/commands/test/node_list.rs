//! `node:test`'s tests as its runner finds them, without running one: `node --test` with a name
//! pattern no name matches (`(?!)`). The runner then loads every test file (its own search, or
//! the file named) and runs each suite's body, so it meets every test a file declares, and skips
//! each one as it comes, reporting it. A reporter of ours, given as a `data:` URL, writes each
//! report as a line of JSON: the file, the name and the nesting, and what a file that failed to
//! load wrote on its stderr. Subtests a test's own body creates (`t.test`) are not met, as that
//! body never runs.

use std::path::{Path, PathBuf};
use std::process::Command as Process;

use serde::Deserialize;

use super::tool_failure::{cannot_run, reason, says_why, tool_failed};
use super::{Project, TestList};
use crate::common::error::ErrorBody;

/// The reporter: a line of JSON per test reported (passed or failed; skipped ones pass) and
/// per line a test file wrote on its stderr.
const REPORTER: &str = r#"export default async function* (events) {
  for await (const event of events) {
    const data = event.data || {};
    if (event.type === "test:stderr") {
      yield JSON.stringify({ file: data.file, stderr: data.message }) + "\n";
    } else if (event.type === "test:pass" || event.type === "test:fail") {
      yield JSON.stringify({
        file: data.file, name: data.name, nesting: data.nesting,
        failed: event.type === "test:fail",
      }) + "\n";
    }
  }
}
"#;

/// A name pattern no test name matches.
const NO_NAME: &str = "(?!)";

/// One line of the reporter's.
#[derive(Debug, Deserialize)]
struct Report {
    file: Option<PathBuf>,
    name: Option<String>,
    #[serde(default)]
    nesting: u32,
    #[serde(default)]
    failed: bool,
    stderr: Option<String>,
}

/// A test as listed: its file and its own name (what `--test-name-pattern` matches, at any
/// nesting).
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct Listed {
    pub file: PathBuf,
    pub name: String,
}

/// The runner as messages name it: what the listing runs.
pub(super) const RUNNER: &str = "node --test";

/// The tests of `files` (none: the runner's own search from `root`), and a warning for each
/// file that failed to load.
pub(super) fn listed(
    project: &Project<'_>,
    files: &[PathBuf],
) -> Result<(Vec<Listed>, Vec<String>), ErrorBody> {
    let node = crate::adapters::test_runtimes::node(project.config)?;
    let what = RUNNER;
    let output = Process::new(node)
        .current_dir(project.root)
        .arg("--test")
        .arg(format!("--test-name-pattern={NO_NAME}"))
        .arg(format!("--test-reporter={}", data_url(REPORTER)))
        .args(files)
        .stdin(std::process::Stdio::null())
        .output()
        .map_err(|e| cannot_run(what, &e))?;
    let stdout = String::from_utf8_lossy(&output.stdout);
    let reports: Vec<Report> = stdout
        .lines()
        .filter_map(|line| serde_json::from_str(line).ok())
        .collect();
    if reports.is_empty() && !output.status.success() {
        let stderr = String::from_utf8_lossy(&output.stderr);
        return Err(tool_failed(what, &stderr, &stdout));
    }
    Ok(tests_and_warnings(project.root, &reports))
}

/// The leaves of the reports (a suite is reported after its tests, one level deeper) and the
/// files that failed to load (reported as a failed test named after the file).
fn tests_and_warnings(root: &Path, reports: &[Report]) -> (Vec<Listed>, Vec<String>) {
    let mut tests = Vec::new();
    let mut warnings = Vec::new();
    let mut previous: Option<(&Path, u32)> = None;
    for report in reports {
        let (Some(file), Some(name)) = (&report.file, &report.name) else {
            continue;
        };
        let parent = previous
            .is_some_and(|(f, nesting)| f == file.as_path() && nesting == report.nesting + 1);
        previous = Some((file, report.nesting));
        if report.failed && Path::new(name) == file.as_path() {
            let why = reports
                .iter()
                .filter(|r| r.file.as_deref() == Some(file.as_path()))
                .filter_map(|r| r.stderr.as_deref())
                .find(|line| says_why(line))
                .map_or_else(|| "it failed to load".to_string(), reason);
            warnings.push(format!("{} was not listed: {why}", shown(root, file)));
        } else if !parent {
            tests.push(Listed {
                file: file.clone(),
                name: name.clone(),
            });
        }
    }
    (tests, warnings)
}

/// A file as a selector names it: from `root` when it is under it.
pub(super) fn shown(root: &Path, file: &Path) -> String {
    file.strip_prefix(root)
        .unwrap_or(file)
        .display()
        .to_string()
}

/// `--list` for a `node:test` project: `FILE::NAME` per test, each a selector.
pub(super) fn list(project: &Project<'_>) -> Result<TestList, ErrorBody> {
    let selector = project.selector.unwrap_or("");
    let (file, name) = match selector.split_once("::") {
        Some((file, name)) => (Some(file), Some(name)),
        None if !selector.is_empty() && project.root.join(selector).is_file() => {
            (Some(selector), None)
        }
        None => (None, Some(selector).filter(|s| !s.is_empty())),
    };
    let files: Vec<PathBuf> = file
        .map(|f| super::in_project(project.root, f.as_ref()))
        .into_iter()
        .collect();
    let (tests, warnings) = listed(project, &files)?;
    Ok(TestList {
        runner: RUNNER,
        selector: project.selector.map(str::to_string),
        tests: tests
            .into_iter()
            .filter(|t| name.is_none_or(|n| t.name.contains(n)))
            .map(|t| format!("{}::{}", shown(project.root, &t.file), t.name))
            .collect(),
        warnings,
    })
}

/// `text` as a `data:` URL node imports (each byte outside the unreserved ones escaped, as a
/// `?` or `#` would otherwise end the module's text).
fn data_url(text: &str) -> String {
    let mut url = String::from("data:text/javascript,");
    for byte in text.bytes() {
        if byte.is_ascii_alphanumeric() || b"-_.~".contains(&byte) {
            url.push(char::from(byte));
        } else {
            url.push_str(&format!("%{byte:02X}"));
        }
    }
    url
}

#[cfg(test)]
mod tests {
    use super::*;

    fn report(file: &str, name: &str, nesting: u32, failed: bool) -> Report {
        Report {
            file: Some(PathBuf::from(file)),
            name: Some(name.to_string()),
            nesting,
            failed,
            stderr: None,
        }
    }

    #[test]
    fn the_leaves_are_listed_and_a_file_that_failed_to_load_is_a_warning() {
        let mut reports = vec![
            Report {
                file: Some(PathBuf::from("/p/app/broken.test.js")),
                name: None,
                nesting: 0,
                failed: false,
                stderr: Some("Error: Cannot find module './nope'\n".into()),
            },
            report("/p/app/broken.test.js", "/p/app/broken.test.js", 0, true),
        ];
        reports.extend([
            report("/p/app/cart.test.js", "adds", 0, false),
            report("/p/app/cart.test.js", "a tenth off", 1, false),
            report("/p/app/cart.test.js", "discounts", 0, false),
            report("/p/test/money.js", "rounds", 0, false),
        ]);
        let (tests, warnings) = tests_and_warnings(Path::new("/p"), &reports);
        let names: Vec<&str> = tests.iter().map(|t| t.name.as_str()).collect();
        assert_eq!(names, ["adds", "a tenth off", "rounds"]);
        assert_eq!(
            warnings,
            ["app/broken.test.js was not listed: Error: Cannot find module './nope'"]
        );
    }

    #[test]
    fn a_data_url_escapes_what_would_end_it() {
        assert_eq!(data_url("a?b#c d"), "data:text/javascript,a%3Fb%23c%20d");
    }
}
