//! Go: the package's tests built and run by the adapter (Delve's `test` mode, `go test`'s
//! build), with `-test.run` anchored on the selector (`TestTotal`, `TestTable/case`). The
//! package is the current folder's when it holds tests; else the one package below it that holds
//! the test (`go_packages.rs` lists them), so a module's root finds its packages' tests.

use std::path::{Path, PathBuf};

use super::go_packages::{self, Packages};
use super::{Project, TestList, TestPlan, ambiguous, base_spec, no_match};
use crate::common::error::ErrorBody;

pub(super) const RUNNER: &str = "go test";

/// A failed test calls `testing.(*common).Fail`: from `t.Error`, `t.Fatal` and their kin, and,
/// for a test that panics, from the test runner's deferred recovery, with the panicking frames
/// still on the stack. A panic the test's code recovers never calls it, so no breakpoint is set
/// where every panic starts (`failure_stop.rs` judges each stop).
pub(super) const FAILURE_FUNCTIONS: &[&str] = &[super::failure_stop::GO_FAIL];

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

/// A selector as `--list` writes it for a package other than the current folder's,
/// `TestTotal (./pricing)`: the test's name and the package's folder.
fn split_selector(selector: &str) -> (&str, Option<&str>) {
    match selector.strip_suffix(')').and_then(|s| s.rsplit_once(" (")) {
        Some((name, package)) if go_packages::named(Path::new("/"), package).is_some() => {
            (name, Some(package))
        }
        _ => (selector, None),
    }
}

/// Whether the runner arguments or the selector name a package of a Go module (`./pricing`,
/// `TestTotal (./pricing)`), so that `test` works from a folder outside the module, where
/// `go test` itself would find no `go.mod`.
pub(super) fn names_package(root: &Path, selector: Option<&str>, runner_args: &[String]) -> bool {
    let from_selector = selector.and_then(|s| split_selector(s).1);
    from_selector
        .into_iter()
        .chain(runner_args.first().map(String::as_str))
        .filter_map(|argument| go_packages::named(root, argument))
        .any(|packages| go_packages::module_root(&packages.dir).is_some())
}

/// Where the tests are looked for, and the arguments left for the test binary: the package the
/// selector names (`TestTotal (./pricing)`) or the first runner argument names (`./pricing`,
/// `./...`); else the current folder's package when it holds tests, else every package below it
/// (a module's root holding none of its own), as `go test ./...` finds them.
fn packages_and_args<'a>(
    project: &'a Project<'_>,
    selector: Option<&str>,
) -> (Packages, &'a [String]) {
    if let Some(packages) = selector
        .and_then(|s| split_selector(s).1)
        .and_then(|package| go_packages::named(project.root, package))
    {
        return (packages, project.runner_args);
    }
    if let Some((first, rest)) = project.runner_args.split_first()
        && let Some(packages) = go_packages::named(project.root, first)
    {
        return (packages, rest);
    }
    let packages = Packages {
        dir: project.root.to_path_buf(),
        below: !go_packages::holds(project.root, "_test.go"),
    };
    (packages, project.runner_args)
}

/// The one package of `packages` that holds the test named `name` (its top level), found by
/// listing them.
fn package_of(
    project: &Project<'_>,
    packages: &Packages,
    name: &str,
) -> Result<PathBuf, ErrorBody> {
    let top = name.split('/').next().unwrap_or(name);
    let listing = go_packages::list(packages, &format!("^{top}$"))?;
    let holding: Vec<PathBuf> = listing
        .packages
        .into_iter()
        .filter(|p| p.tests.iter().any(|t| t == top))
        .map(|p| p.dir)
        .collect();
    match holding.as_slice() {
        [one] => Ok(one.clone()),
        [] => {
            let mut error = no_match(name, RUNNER);
            for warning in &listing.warnings {
                error.message.push_str(&format!("\n(warning: {warning})"));
            }
            Err(error)
        }
        several => Err(ambiguous(
            name,
            &several
                .iter()
                .map(|dir| format!("{top} ({})", go_packages::display(project.root, dir)))
                .collect::<Vec<_>>(),
        )),
    }
}

pub(super) fn plan(project: &Project<'_>) -> Result<TestPlan, ErrorBody> {
    let Some(selector) = project.selector else {
        return Err(ErrorBody::usage(
            "name the test to debug",
            "'debugger test --list' lists them",
        ));
    };
    let (packages, rest) = packages_and_args(project, Some(selector));
    let (name, _) = split_selector(selector);
    let package = if packages.below {
        package_of(project, &packages, name)?
    } else {
        packages.dir
    };
    let mut args = vec!["-test.run".to_string(), run_pattern(name), "-test.v".into()];
    args.extend(rest.iter().cloned());
    let mut spec = base_spec(project, package.clone(), args)?;
    // `go test` runs a package's tests in its folder (where their `testdata` is).
    spec.cwd.clone_from(&package);
    spec.options.go.test_package = true;
    Ok(TestPlan {
        runner: RUNNER,
        test: name.to_string(),
        spec,
        failure_functions: FAILURE_FUNCTIONS,
        root: package,
    })
}

/// The tests the selector matches (a `-list` pattern), each package's after its own name when
/// it is not the current folder's (`TestTotal (./pricing)`, itself a selector).
pub(super) fn list(project: &Project<'_>) -> Result<TestList, ErrorBody> {
    let (packages, _) = packages_and_args(project, project.selector);
    let pattern = match project.selector.map(split_selector) {
        Some((name, _)) => name,
        None => ".",
    };
    let listing = go_packages::list(&packages, pattern)?;
    let mut tests = Vec::new();
    for package in listing.packages {
        let name = go_packages::display(project.root, &package.dir);
        for test in package.tests {
            tests.push(if name.is_empty() {
                test
            } else {
                format!("{test} ({name})")
            });
        }
    }
    Ok(TestList {
        runner: RUNNER,
        selector: project.selector.map(str::to_string),
        tests,
        warnings: listing.warnings,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_listed_test_of_another_package_names_it() {
        assert_eq!(
            split_selector("TestTotal (./pricing)"),
            ("TestTotal", Some("./pricing"))
        );
        assert_eq!(split_selector("TestTotal"), ("TestTotal", None));
        assert_eq!(split_selector("TestX (case)"), ("TestX (case)", None));
    }

    #[test]
    fn each_level_of_a_selector_is_matched_whole() {
        assert_eq!(run_pattern("TestTotal"), "^TestTotal$");
        assert_eq!(run_pattern("TestTable/tenth"), "^TestTable$/^tenth$");
    }
}
