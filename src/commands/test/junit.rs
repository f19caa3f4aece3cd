//! Java and Kotlin: JUnit 5 tests (the JUnit Platform), built by the project's build tool
//! (`maven.rs`, `gradle.rs`), which says the test class path; the test then runs in one JVM of
//! ours under the JUnit Platform's console launcher, with that class path. The build tool's own
//! test run (Surefire's fork, Gradle's test task) was the other way: it would keep the project's
//! settings for tests, but it starts a JVM of its own (a second JVM and seconds on every run),
//! and it has no listing of the tests, which the console launcher has (`discover`). The launcher
//! is the `junit-platform-console-standalone` of the project's own JUnit Platform version,
//! fetched by the build tool.
//!
//! The selector is `Class#method`, `Class` or a bare method name, as `--list` prints them; a
//! class by its simple name or its full one.

use std::path::PathBuf;
use std::process::Command as Process;

use super::{Project, TestList, TestPlan, ambiguous, base_spec, no_match, run_tool};
use crate::common::error::ErrorBody;

/// The console launcher's exit status when `--fail-if-no-tests` found none.
pub(super) const NO_TESTS_STATUS: i64 = 2;

/// The console launcher's main class.
const LAUNCHER: &str = "org.junit.platform.console.ConsoleLauncher";

/// The project's tests built, and what runs them.
pub(super) struct Built {
    /// The runner as reports name it (`JUnit (Maven)`).
    pub runner: &'static str,
    /// The project's folder, where the tests run.
    pub root: PathBuf,
    pub java: PathBuf,
    /// The test class path, the console launcher last.
    pub classpath: String,
    /// The folders of the compiled tests, which the launcher scans for them.
    pub test_roots: Vec<PathBuf>,
}

/// A test as the launcher discovered it.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Discovered {
    /// The class's binary name (`com.shop.CartTest`).
    class: String,
    method: String,
    /// The method's parameter types as the launcher writes them (`int, java.lang.String`).
    parameters: String,
}

impl Discovered {
    fn simple_class(&self) -> &str {
        self.class.rsplit(['.', '$']).next().unwrap_or(&self.class)
    }

    fn class_is(&self, name: &str) -> bool {
        self.class == name
            || self.simple_class() == name
            || self.class.replace('$', ".").ends_with(&format!(".{name}"))
    }

    /// What `--select-method` takes.
    fn selection(&self) -> String {
        if self.parameters.is_empty() {
            format!("{}#{}", self.class, self.method)
        } else {
            format!("{}#{}({})", self.class, self.method, self.parameters)
        }
    }
}

/// The project's tests, through the launcher's `discover`.
fn discover(built: &Built) -> Result<Vec<Discovered>, ErrorBody> {
    let mut command = Process::new(&built.java);
    command.current_dir(&built.root).args([
        "-cp",
        &built.classpath,
        LAUNCHER,
        "discover",
        "--disable-banner",
        "--disable-ansi-colors",
        "--details=verbose",
    ]);
    for folder in &built.test_roots {
        command.arg("--scan-classpath").arg(folder);
    }
    let listed = run_tool(command, "the JUnit console launcher's discover")?;
    Ok(discovered(&listed))
}

/// The tests in `discover --details=verbose`'s report: each one's `source: MethodSource
/// [className = '…', methodName = '…', methodParameterTypes = '…']` line.
fn discovered(report: &str) -> Vec<Discovered> {
    let field = |line: &str, name: &str| -> Option<String> {
        let start = line.find(&format!("{name} = '"))? + name.len() + 4;
        let end = line[start..].find('\'')?;
        Some(line[start..start + end].to_string())
    };
    let mut tests: Vec<Discovered> = report
        .lines()
        .filter(|line| line.contains("source: MethodSource ["))
        .filter_map(|line| {
            Some(Discovered {
                class: field(line, "className")?,
                method: field(line, "methodName")?,
                parameters: field(line, "methodParameterTypes").unwrap_or_default(),
            })
        })
        .collect();
    tests.dedup();
    tests
}

/// A test as `--list` prints it: `Class#method`, the class by its simple name unless another
/// class of the project has that name too.
fn shown(test: &Discovered, all: &[Discovered]) -> String {
    let simple = test.simple_class();
    let shared = all
        .iter()
        .any(|other| other.class != test.class && other.simple_class() == simple);
    let class = if shared { &test.class } else { simple };
    format!("{class}#{}", test.method)
}

/// What the selector picks: `--select-…` arguments for the launcher.
fn selection(selector: &str, tests: &[Discovered], runner: &str) -> Result<Vec<String>, ErrorBody> {
    if let Some((class, method)) = selector.split_once('#') {
        let method = method.split('(').next().unwrap_or(method);
        let matching: Vec<&Discovered> = tests
            .iter()
            .filter(|t| t.class_is(class) && t.method == method)
            .collect();
        return match matching.as_slice() {
            [] => Err(no_match(selector, runner)),
            [first, ..] if matching.iter().all(|t| t.class == first.class) => Ok(matching
                .iter()
                .map(|t| format!("--select-method={}", t.selection()))
                .collect()),
            _ => Err(ambiguous(selector, &names(&matching, tests))),
        };
    }
    let mut classes: Vec<&str> = tests
        .iter()
        .filter(|t| t.class_is(selector))
        .map(|t| t.class.as_str())
        .collect();
    classes.dedup();
    match classes.as_slice() {
        [class] => return Ok(vec![format!("--select-class={class}")]),
        [] => {}
        _ => {
            let matching: Vec<&Discovered> =
                tests.iter().filter(|t| t.class_is(selector)).collect();
            return Err(ambiguous(selector, &names(&matching, tests)));
        }
    }
    let matching: Vec<&Discovered> = tests.iter().filter(|t| t.method == selector).collect();
    match matching.as_slice() {
        [] => Err(no_match(selector, runner)),
        [first, ..] if matching.iter().all(|t| t.class == first.class) => Ok(matching
            .iter()
            .map(|t| format!("--select-method={}", t.selection()))
            .collect()),
        _ => Err(ambiguous(selector, &names(&matching, tests))),
    }
}

fn names(matching: &[&Discovered], all: &[Discovered]) -> Vec<String> {
    matching.iter().map(|t| shown(t, all)).collect()
}

pub(super) fn plan(project: &Project<'_>, built: Built) -> Result<TestPlan, ErrorBody> {
    let tests = discover(&built)?;
    let selector = project.selector.unwrap_or("");
    let mut args: Vec<String> = vec![
        "-cp".into(),
        built.classpath.clone(),
        LAUNCHER.into(),
        "execute".into(),
        "--disable-banner".into(),
        "--disable-ansi-colors".into(),
        "--details=tree".into(),
        "--fail-if-no-tests".into(),
    ];
    if selector.is_empty() {
        for folder in &built.test_roots {
            args.push("--scan-classpath".into());
            args.push(folder.display().to_string());
        }
    } else {
        args.extend(selection(selector, &tests, built.runner)?);
    }
    args.extend(project.runner_args.iter().cloned());
    let mut spec = base_spec(project, built.java.clone(), args)?;
    spec.cwd.clone_from(&built.root);
    Ok(TestPlan {
        runner: built.runner,
        test: selector.to_string(),
        spec,
        failure_functions: &[],
        root: built.root,
    })
}

/// `--list`: `Class#method` per test, those the selector names (a class, a method, or a part
/// of `Class#method`).
pub(super) fn list(project: &Project<'_>, built: &Built) -> Result<TestList, ErrorBody> {
    let tests = discover(built)?;
    let selector = project.selector.unwrap_or("");
    let listed = tests
        .iter()
        .filter(|t| {
            selector.is_empty()
                || t.class_is(selector)
                || t.method == selector
                || shown(t, &tests).contains(selector)
        })
        .map(|t| shown(t, &tests))
        .collect();
    Ok(TestList {
        runner: built.runner,
        selector: project.selector.map(str::to_string),
        tests: listed,
        warnings: Vec::new(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    const REPORT: &str = "\
├─ JUnit Jupiter
│  ├─ CartTest
│  │  ├─ totalSumsLines()
│  │  │   uniqueId: [engine:junit-jupiter]/[class:com.shop.CartTest]/[method:totalSumsLines()]
│  │  │     source: MethodSource [className = 'com.shop.CartTest', methodName = 'totalSumsLines', methodParameterTypes = '']
│  │  ├─ totalAppliesDiscount(int)
│  │  │     source: MethodSource [className = 'com.shop.CartTest', methodName = 'totalAppliesDiscount', methodParameterTypes = 'int']
│  ├─ CartTest
│  │  │     source: MethodSource [className = 'com.other.CartTest', methodName = 'empty', methodParameterTypes = '']
│  ├─ PriceTest
│  │  │     source: MethodSource [className = 'com.shop.PriceTest', methodName = 'totalSumsLines', methodParameterTypes = '']
";

    #[test]
    fn the_tests_are_read_from_the_launchers_discovery() {
        let tests = discovered(REPORT);
        let shown: Vec<String> = tests.iter().map(|t| shown(t, &tests)).collect();
        assert_eq!(
            shown,
            [
                "com.shop.CartTest#totalSumsLines",
                "com.shop.CartTest#totalAppliesDiscount",
                "com.other.CartTest#empty",
                "PriceTest#totalSumsLines",
            ]
        );
        assert_eq!(
            tests[1].selection(),
            "com.shop.CartTest#totalAppliesDiscount(int)"
        );
    }

    #[test]
    fn a_selector_is_a_method_of_a_class_a_class_or_a_bare_method() {
        let tests = discovered(REPORT);
        assert_eq!(
            selection("PriceTest#totalSumsLines", &tests, "JUnit").expect("one"),
            ["--select-method=com.shop.PriceTest#totalSumsLines"]
        );
        assert_eq!(
            selection("com.shop.CartTest", &tests, "JUnit").expect("one"),
            ["--select-class=com.shop.CartTest"]
        );
        assert_eq!(
            selection("totalAppliesDiscount", &tests, "JUnit").expect("one"),
            ["--select-method=com.shop.CartTest#totalAppliesDiscount(int)"]
        );
        assert!(
            selection("CartTest", &tests, "JUnit").is_err(),
            "two classes"
        );
        assert!(
            selection("totalSumsLines", &tests, "JUnit").is_err(),
            "two methods"
        );
        assert!(selection("nothing", &tests, "JUnit").is_err());
    }
}
