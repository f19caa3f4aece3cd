//! PHP: PHPUnit's tests, in a folder with a `phpunit.xml` (or `phpunit.xml.dist`), or a
//! `tests/` folder of `*Test.php` files. The runner is the project's own Composer install
//! (`vendor/bin/phpunit`), else the `phpunit` on PATH; both are PHP scripts, run by the PHP
//! the debugger runs scripts in.
//!
//! The selector is a test file (`tests/CartTest.php`), `Class::method`, a class or a bare
//! method name, as `--list` prints them (`phpunit --list-tests`), given to PHPUnit as an
//! anchored `--filter`. No selector, or one that names no test, is answered with the tests.

use std::path::{Path, PathBuf};
use std::process::Command as Process;

use super::{Project, TestList, TestPlan, ambiguous, base_spec, in_project, run_tool};
use crate::adapters::{CallerEnv, test_runtimes};
use crate::common::error::ErrorBody;

/// The runner as reports name it.
pub(super) const RUNNER: &str = "PHPUnit";

/// What PHPUnit says, with exit status 0, when its filter left no test to run.
const NO_TESTS: &str = "No tests executed!";

/// The exceptions PHPUnit throws for a test that is skipped or incomplete, which are kinds of
/// its assertion failure (and so stop with it) but fail no test.
const NO_FAILURES: &[&str] = &[
    "SkippedTestError",
    "SkippedTestSuiteError",
    "SkippedWithMessageException",
    "IncompleteTestError",
];

/// PHPUnit's configuration files, which mark a project's folder.
const CONFIGS: &[&str] = &["phpunit.xml", "phpunit.xml.dist"];

/// Where a project without a configuration keeps its tests.
const TESTS_FOLDER: &str = "tests";

/// Where a data-driven test's name goes on in PHPUnit's names (`testX with data set #0`).
const DATA_SET: &str = " with data set ";

/// Whether `root` is a PHPUnit project: a configuration, or a `tests/` folder of `*Test.php`.
pub(super) fn is_project(root: &Path) -> bool {
    has_config(root) || test_files(root).next().is_some()
}

fn has_config(root: &Path) -> bool {
    CONFIGS.iter().any(|name| root.join(name).is_file())
}

/// The `*Test.php` files of `root`'s `tests/` folder.
fn test_files(root: &Path) -> impl Iterator<Item = PathBuf> {
    std::fs::read_dir(root.join(TESTS_FOLDER))
        .into_iter()
        .flatten()
        .flatten()
        .map(|entry| entry.path())
        .filter(|path| {
            path.file_name()
                .and_then(|n| n.to_str())
                .is_some_and(|n| n.ends_with("Test.php"))
        })
}

/// Whether an exception of `class` fails no test (see [`NO_FAILURES`]).
pub(super) fn is_no_failure(class: &str) -> bool {
    class
        .strip_prefix("PHPUnit\\Framework\\")
        .is_some_and(|name| NO_FAILURES.contains(&name))
}

/// Whether PHPUnit ran no test, by its words on a run that passed.
pub(super) fn ran_no_test(output: &str) -> bool {
    output.contains(NO_TESTS)
}

/// The runner: the project's Composer install, else the `phpunit` on PATH.
fn runner(root: &Path) -> PathBuf {
    let composers = root.join("vendor/bin/phpunit");
    if composers.is_file() {
        composers
    } else {
        PathBuf::from("phpunit")
    }
}

/// The runner as a path PHP can run (PHP takes a script by its path, not by PATH's search).
fn runner_script(root: &Path) -> Result<PathBuf, ErrorBody> {
    let runner = runner(root);
    if runner.is_absolute() {
        return Ok(runner);
    }
    CallerEnv::this_process()
        .which(&runner.to_string_lossy())
        .ok_or_else(|| {
            ErrorBody::usage(
                "PHPUnit not found: no vendor/bin/phpunit in the project and no phpunit on PATH",
                "install it with Composer ('composer require --dev phpunit/phpunit') or the \
             system's packages (Debian's phpunit)",
            )
        })
}

/// The arguments that give PHPUnit the project's tests: none with a configuration, which names
/// them; else the `tests/` folder.
fn suite_arguments(root: &Path) -> Vec<String> {
    if has_config(root) {
        Vec::new()
    } else {
        vec![TESTS_FOLDER.to_string()]
    }
}

/// The tests PHPUnit lists (`Class::method`, a data set's ` with data set #N` after it): the
/// project's, or those of the test file `file`.
fn listed(project: &Project<'_>, file: Option<&Path>) -> Result<Vec<String>, ErrorBody> {
    let tests = match file {
        Some(file) => vec![file.display().to_string()],
        None => suite_arguments(project.root),
    };
    let php = test_runtimes::php(project.config)?;
    let mut command = Process::new(php);
    command
        .current_dir(project.root)
        .arg(runner_script(project.root)?)
        .arg("--list-tests")
        .args(tests)
        .args(project.runner_args);
    let listing = run_tool(command, "phpunit --list-tests")?;
    Ok(tests_in(&listing))
}

/// The tests in `--list-tests`' output: its ` - NAME` lines.
fn tests_in(listing: &str) -> Vec<String> {
    listing
        .lines()
        .filter_map(|line| line.strip_prefix(" - "))
        .map(|name| name.trim().to_string())
        .collect()
}

/// A listed test's class and method, without its data set.
fn parts(test: &str) -> (&str, &str) {
    let name = test.split(DATA_SET).next().unwrap_or(test);
    name.rsplit_once("::").unwrap_or((name, ""))
}

/// Whether `class` (`App\Tests\CartTest`) is the class `name` names, in full or by its last part.
fn class_is(class: &str, name: &str) -> bool {
    class == name || class.rsplit('\\').next() == Some(name)
}

/// What a selector picks among the listed tests.
#[derive(Debug, PartialEq, Eq)]
enum Pick {
    /// One test, by its listed name (a data set's name picks that one alone).
    Test(String),
    /// One method, all its data sets (`Class::method`).
    Method { class: String, method: String },
    /// A class's tests.
    Class(String),
}

impl Pick {
    /// The `--filter` that runs what is picked and nothing else: PHPUnit matches it, as a
    /// regular expression, against `Class::method` (and its data set), so it is anchored.
    fn filter(&self) -> String {
        match self {
            Pick::Test(name) => format!("/^{}$/", quoted(name)),
            Pick::Method { class, method } => {
                format!("/^{}::{}({}.*)?$/", quoted(class), quoted(method), DATA_SET)
            }
            Pick::Class(class) => format!("/^{}::/", quoted(class)),
        }
    }
}

/// `text` as a regular expression matches it, between `/` delimiters.
fn quoted(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        if "\\/.^$|?*+()[]{}#-".contains(c) {
            out.push('\\');
        }
        out.push(c);
    }
    out
}

/// What `selector` picks among `tests`: a listed name, `Class::method`, a class, or a bare
/// method of one class.
fn pick(selector: &str, tests: &[String]) -> Result<Pick, ErrorBody> {
    if tests.iter().any(|t| t == selector) && selector.contains(DATA_SET) {
        return Ok(Pick::Test(selector.to_string()));
    }
    if let Some((class, method)) = selector.rsplit_once("::") {
        let classes = classes_of(tests.iter().filter(|t| {
            let (c, m) = parts(t);
            class_is(c, class) && m == method
        }));
        return match classes.as_slice() {
            [] => Err(no_match(selector, tests)),
            [one] => Ok(Pick::Method {
                class: one.clone(),
                method: method.to_string(),
            }),
            _ => Err(ambiguous(selector, &with_method(&classes, method))),
        };
    }
    let classes = classes_of(tests.iter().filter(|t| class_is(parts(t).0, selector)));
    match classes.as_slice() {
        [one] => return Ok(Pick::Class(one.clone())),
        [] => {}
        _ => return Err(ambiguous(selector, &classes)),
    }
    let classes = classes_of(tests.iter().filter(|t| parts(t).1 == selector));
    match classes.as_slice() {
        [] => Err(no_match(selector, tests)),
        [one] => Ok(Pick::Method {
            class: one.clone(),
            method: selector.to_string(),
        }),
        _ => Err(ambiguous(selector, &with_method(&classes, selector))),
    }
}

/// The classes of `tests`, each once, in the order listed.
fn classes_of<'a>(tests: impl Iterator<Item = &'a String>) -> Vec<String> {
    let mut classes: Vec<String> = Vec::new();
    for test in tests {
        let class = parts(test).0;
        if !classes.iter().any(|c| c == class) {
            classes.push(class.to_string());
        }
    }
    classes
}

fn with_method(classes: &[String], method: &str) -> Vec<String> {
    classes.iter().map(|c| format!("{c}::{method}")).collect()
}

/// The error for a selector that names no test, with the tests there are.
fn no_match(selector: &str, tests: &[String]) -> ErrorBody {
    let mut error = super::no_match(selector, RUNNER);
    error.message.push_str(&tests_listed(tests));
    error
}

/// The tests, as an error lists them.
fn tests_listed(tests: &[String]) -> String {
    if tests.is_empty() {
        return "; PHPUnit lists no test".to_string();
    }
    format!("; the tests:\n  {}", tests.join("\n  "))
}

pub(super) fn plan(project: &Project<'_>) -> Result<TestPlan, ErrorBody> {
    let runner = runner_script(project.root)?;
    let Some(selector) = project.selector else {
        let tests = listed(project, None)?;
        let mut error = ErrorBody::usage(
            "name the test to debug",
            "'debugger test Class::method', or a test file",
        );
        error.message.push_str(&tests_listed(&tests));
        return Err(error);
    };
    let mut args = Vec::new();
    if let Some(file) = test_file(project.root, selector) {
        args.push(file.display().to_string());
    } else {
        let tests = listed(project, None)?;
        args.push("--filter".to_string());
        args.push(pick(selector, &tests)?.filter());
        args.extend(suite_arguments(project.root));
    }
    args.extend(project.runner_args.iter().cloned());
    let spec = base_spec(project, runner, args)?;
    Ok(TestPlan {
        runner: RUNNER,
        test: selector.to_string(),
        spec,
        failure_functions: &[],
        root: project.root.to_path_buf(),
    })
}

/// The test file `selector` names, if it names one.
fn test_file(root: &Path, selector: &str) -> Option<PathBuf> {
    let file = in_project(root, Path::new(selector));
    (selector.ends_with(".php") && file.is_file()).then_some(file)
}

/// `--list`: the tests PHPUnit lists, those the selector names (a test file, a class, a method,
/// or a part of `Class::method`).
pub(super) fn list(project: &Project<'_>) -> Result<TestList, ErrorBody> {
    let file = project
        .selector
        .and_then(|selector| test_file(project.root, selector));
    let tests = listed(project, file.as_deref())?;
    let selector = match file {
        Some(_) => "",
        None => project.selector.unwrap_or(""),
    };
    let matching = tests
        .iter()
        .filter(|t| {
            let (class, method) = parts(t);
            selector.is_empty()
                || class_is(class, selector)
                || method == selector
                || t.contains(selector)
        })
        .cloned()
        .collect();
    Ok(TestList {
        runner: RUNNER,
        selector: project.selector.map(str::to_string),
        tests: matching,
        warnings: Vec::new(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    const LISTING: &str = "PHPUnit 9.6.7 by Sebastian Bergmann and contributors.\n\n\
        Available test(s):\n - CartTest::testTotalSumsPrices\n - CartTest::testTotalAppliesDiscount\n \
        - App\\Tests\\PriceTest::testRounds with data set #0\n \
        - App\\Tests\\PriceTest::testRounds with data set #1\n \
        - App\\Tests\\PriceTest::testTotalSumsPrices\n";

    #[test]
    fn the_tests_are_read_from_the_listing() {
        let tests = tests_in(LISTING);
        assert_eq!(tests.len(), 5);
        assert_eq!(tests[0], "CartTest::testTotalSumsPrices");
        assert_eq!(parts(&tests[2]), ("App\\Tests\\PriceTest", "testRounds"));
    }

    #[test]
    fn a_selector_picks_a_method_a_class_a_data_set_or_a_bare_method() {
        let tests = tests_in(LISTING);
        assert_eq!(
            pick("CartTest::testTotalAppliesDiscount", &tests).ok(),
            Some(Pick::Method {
                class: "CartTest".into(),
                method: "testTotalAppliesDiscount".into()
            })
        );
        assert_eq!(
            pick("PriceTest", &tests).ok(),
            Some(Pick::Class("App\\Tests\\PriceTest".into()))
        );
        assert_eq!(
            pick("testRounds", &tests).ok(),
            Some(Pick::Method {
                class: "App\\Tests\\PriceTest".into(),
                method: "testRounds".into()
            })
        );
        assert_eq!(
            pick("App\\Tests\\PriceTest::testRounds with data set #1", &tests).ok(),
            Some(Pick::Test(
                "App\\Tests\\PriceTest::testRounds with data set #1".into()
            ))
        );
        let two = pick("testTotalSumsPrices", &tests).expect_err("two classes");
        assert!(two.message.contains("matches 2 tests"), "{two:?}");
        let none = pick("CartTest::testNothing", &tests).expect_err("none");
        assert!(
            none.message.contains("CartTest::testTotalSumsPrices"),
            "{none:?}"
        );
    }

    #[test]
    fn a_skipped_or_incomplete_test_is_no_failure() {
        assert!(is_no_failure("PHPUnit\\Framework\\SkippedTestError"));
        assert!(is_no_failure("PHPUnit\\Framework\\IncompleteTestError"));
        assert!(!is_no_failure(
            "PHPUnit\\Framework\\ExpectationFailedException"
        ));
        assert!(!is_no_failure("App\\SkippedTestError"));
    }

    #[test]
    fn the_filter_is_anchored_and_quoted() {
        let method = Pick::Method {
            class: "App\\Tests\\PriceTest".into(),
            method: "testRounds".into(),
        };
        assert_eq!(
            method.filter(),
            "/^App\\\\Tests\\\\PriceTest::testRounds( with data set .*)?$/"
        );
        assert_eq!(
            Pick::Test("A::b with data set #1".into()).filter(),
            "/^A::b with data set \\#1$/"
        );
        assert_eq!(Pick::Class("A".into()).filter(), "/^A::/");
    }
}
