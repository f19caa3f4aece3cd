//! Which Go packages hold a project's tests, as `go test` finds them: the module's packages are
//! listed with `go test -list PATTERN -json` (each line then names its package, where plain
//! `-list` prints the names of several packages one after another), and each package's folder
//! comes from `go list`. A package that does not build is a warning naming the compiler's
//! error; the other packages' tests are still listed.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Command as Process;

use serde_json::Value;

use super::tool_failure::{cannot_run, reason, says_why, tool_failed};
use crate::common::error::ErrorBody;

/// Where tests are looked for: a package's folder, and whether the packages below it count too
/// (`./...`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct Packages {
    pub dir: PathBuf,
    pub below: bool,
}

impl Packages {
    /// The pattern `go` is given, run in [`Packages::dir`].
    fn pattern(&self) -> &'static str {
        if self.below { "./..." } else { "." }
    }
}

/// A package's tests, as listed.
#[derive(Debug)]
pub(super) struct PackageTests {
    /// The package's folder.
    pub dir: PathBuf,
    pub tests: Vec<String>,
}

/// The tests `go test -list` finds, per package, and what it could not list.
#[derive(Debug, Default)]
pub(super) struct Listing {
    pub packages: Vec<PackageTests>,
    pub warnings: Vec<String>,
}

/// The folder of the Go module `dir` is in: the nearest one, `dir` or above, holding `go.mod`.
pub(super) fn module_root(dir: &Path) -> Option<&Path> {
    dir.ancestors().find(|d| d.join("go.mod").is_file())
}

/// Whether `dir` holds files whose names end with `end` (`.go`, `_test.go`).
pub(super) fn holds(dir: &Path, end: &str) -> bool {
    std::fs::read_dir(dir).is_ok_and(|entries| {
        entries
            .flatten()
            .any(|e| e.file_name().to_str().is_some_and(|n| n.ends_with(end)))
    })
}

/// Whether `dir` is a package of a Go module: it holds `.go` files and is in a module.
pub(super) fn is_package(dir: &Path) -> bool {
    holds(dir, ".go") && module_root(dir).is_some()
}

/// The packages a runner argument names (`./pkg`, `../pkg`, `./pkg/...`, `./...`), relative to
/// `root`; `None` for an argument that is the test binary's.
pub(super) fn named(root: &Path, argument: &str) -> Option<Packages> {
    if !(argument == "." || argument.starts_with("./") || argument.starts_with("../")) {
        return None;
    }
    let (path, below) = match argument.strip_suffix("...") {
        Some(path) => (path.trim_end_matches('/'), true),
        None => (argument, false),
    };
    Some(Packages {
        dir: super::in_project(root, path.as_ref()),
        below,
    })
}

/// How a package is named in a listing: `./pricing`, its folder from `root`; the empty string
/// for `root` itself.
pub(super) fn display(root: &Path, dir: &Path) -> String {
    match dir.strip_prefix(root) {
        Ok(relative) if relative.as_os_str().is_empty() => String::new(),
        Ok(relative) => format!("./{}", relative.display()),
        Err(_) => dir.display().to_string(),
    }
}

/// The tests of `packages` whose names `pattern` (a `-test.list` regular expression) matches.
pub(super) fn list(packages: &Packages, pattern: &str) -> Result<Listing, ErrorBody> {
    let what = "go test -list";
    let output = Process::new("go")
        .current_dir(&packages.dir)
        .args(["test", "-list", pattern, "-json", packages.pattern()])
        .stdin(std::process::Stdio::null())
        .output()
        .map_err(|e| cannot_run(what, &e))?;
    let stdout = String::from_utf8_lossy(&output.stdout);
    let events = Events::read(&stdout);
    if events.tests.is_empty() && !output.status.success() {
        // Nothing listed: the first failure is the answer (a package that does not build, or
        // go's own complaint on its stderr, as "no Go files").
        let stderr = String::from_utf8_lossy(&output.stderr);
        return Err(match events.failures.values().next() {
            Some(said) => tool_failed(what, &said.join("\n"), ""),
            None => tool_failed(what, &stderr, &stdout),
        });
    }
    let dirs = folders(packages)?;
    let folder = |import: &str| {
        dirs.get(import)
            .cloned()
            .unwrap_or_else(|| packages.dir.clone())
    };
    let warnings = events
        .failures
        .iter()
        .map(|(import, said)| {
            let why = said
                .iter()
                .find(|line| says_why(line))
                .or_else(|| said.last())
                .map(|line| reason(line))
                .unwrap_or_default();
            let name = display(&packages.dir, &folder(import));
            let name = if name.is_empty() { "." } else { &name };
            format!("{name} ({import}) was not listed: {why}")
        })
        .collect();
    let packages = events
        .tests
        .into_iter()
        .map(|(import, tests)| PackageTests {
            dir: folder(&import),
            tests,
        })
        .collect();
    Ok(Listing { packages, warnings })
}

/// The folder of each package `packages` names, by its import path (`go list`).
fn folders(packages: &Packages) -> Result<BTreeMap<String, PathBuf>, ErrorBody> {
    let mut command = Process::new("go");
    command
        .current_dir(&packages.dir)
        .args(["list", "-e", "-f", "{{.ImportPath}}\t{{.Dir}}"])
        .arg(packages.pattern());
    let stdout = super::run_tool(command, "go list")?;
    Ok(stdout
        .lines()
        .filter_map(|line| line.split_once('\t'))
        .map(|(import, dir)| (import.to_string(), PathBuf::from(dir)))
        .collect())
}

/// What `go test -json` said, per package (by import path).
#[derive(Debug, Default)]
struct Events {
    /// The tests each package listed, in its order.
    tests: BTreeMap<String, Vec<String>>,
    /// What each package that failed said: its build's output, else its own.
    failures: BTreeMap<String, Vec<String>>,
}

impl Events {
    fn read(stdout: &str) -> Events {
        let mut events = Events::default();
        let mut built: BTreeMap<String, Vec<String>> = BTreeMap::new();
        let mut said: BTreeMap<String, Vec<String>> = BTreeMap::new();
        for event in stdout
            .lines()
            .filter_map(|line| serde_json::from_str::<Value>(line).ok())
        {
            let text = event["Output"].as_str().unwrap_or("").trim_end();
            match event["Action"].as_str() {
                Some("build-output") => {
                    if let Some(import) = event["ImportPath"].as_str() {
                        built
                            .entry(import.to_string())
                            .or_default()
                            .push(text.to_string());
                    }
                }
                Some("output") => {
                    let Some(package) = event["Package"].as_str() else {
                        continue;
                    };
                    if is_test_name(text) {
                        events
                            .tests
                            .entry(package.to_string())
                            .or_default()
                            .push(text.to_string());
                    } else {
                        said.entry(package.to_string())
                            .or_default()
                            .push(text.to_string());
                    }
                }
                Some("fail") => {
                    let Some(package) = event["Package"].as_str() else {
                        continue;
                    };
                    // A package that failed to build says so itself ("[build failed]"), the
                    // compiler's words are its build's (`FailedBuild` names whose).
                    let build = event["FailedBuild"].as_str().unwrap_or(package);
                    let words = built
                        .get(build)
                        .or_else(|| said.get(package))
                        .cloned()
                        .unwrap_or_default();
                    events.failures.insert(package.to_string(), words);
                }
                _ => {}
            }
        }
        // A package that failed only because another did is not a failure of its own.
        let failed_builds: Vec<String> = events.failures.keys().cloned().collect();
        events.failures.retain(|package, words| {
            failed_builds.iter().any(|p| p == package) && !words.is_empty()
        });
        events
    }
}

/// Whether a line of `-list`'s output is a test's name (`TestTotal`, `BenchmarkX`,
/// `ExampleY`, `FuzzZ`), not the package's `ok` line.
fn is_test_name(line: &str) -> bool {
    ["Test", "Benchmark", "Example", "Fuzz"]
        .iter()
        .any(|kind| line.starts_with(kind))
        && !line.contains(char::is_whitespace)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_package_lists_its_own_tests_and_a_broken_build_is_named() {
        let stdout = r##"{"ImportPath":"x/broken","Action":"build-output","Output":"# x/broken\n"}
{"ImportPath":"x/broken","Action":"build-output","Output":"broken/b.go:2:22: syntax error: unexpected }\n"}
{"ImportPath":"x/broken","Action":"build-fail"}
{"Action":"start","Package":"x"}
{"Action":"output","Package":"x","Output":"?   \tx\t[no test files]\n"}
{"Action":"output","Package":"x/broken","Output":"FAIL\tx/broken [build failed]\n"}
{"Action":"fail","Package":"x/broken","FailedBuild":"x/broken"}
{"Action":"output","Package":"x/pricing","Output":"TestTotalAdds\n"}
{"Action":"output","Package":"x/pricing","Output":"TestTotalDiscount\n"}
{"Action":"output","Package":"x/pricing","Output":"ok  \tx/pricing\t0.007s\n"}
"##;
        let events = Events::read(stdout);
        assert_eq!(
            events.tests.get("x/pricing").map(Vec::as_slice),
            Some(&["TestTotalAdds".to_string(), "TestTotalDiscount".to_string()][..])
        );
        assert_eq!(events.tests.len(), 1);
        let broken = events.failures.get("x/broken").expect("broken");
        assert!(
            broken.iter().any(|l| l.contains("syntax error")),
            "{broken:?}"
        );
    }

    #[test]
    fn a_runner_argument_names_packages_or_is_the_test_binarys() {
        let root = Path::new("/m");
        assert_eq!(
            named(root, "./pricing"),
            Some(Packages {
                dir: PathBuf::from("/m/pricing"),
                below: false
            })
        );
        assert_eq!(
            named(root, "./..."),
            Some(Packages {
                dir: PathBuf::from("/m"),
                below: true
            })
        );
        assert_eq!(named(root, "-test.short"), None);
        assert_eq!(display(root, Path::new("/m/pricing")), "./pricing");
        assert_eq!(display(root, root), "");
    }
}
