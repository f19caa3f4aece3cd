//! Java: a Maven project's JUnit 5 tests (JUnit Platform), found by the `pom.xml` in
//! the working directory or above it.
//!
//! Maven builds the tests (`test-compile`) and says the test class path, in one run; the test
//! then runs in one JVM of ours under the JUnit Platform's console launcher, with that class
//! path. Surefire's own fork was the other way: it would keep the project's Surefire settings,
//! but it needs Maven to start the JVM (a second JVM and seconds on every run), and it has no
//! listing of the tests, which the console launcher has (`discover`). The launcher is the
//! `junit-platform-console-standalone` of the project's own JUnit Platform version, taken from
//! the local Maven repository the project's jars are in (fetched there by Maven once when it
//! is not).
//!
//! The selector is `Class#method`, `Class` or a bare method name, as `--list` prints them; a
//! class by its simple name or its full one.

use std::path::{Path, PathBuf};
use std::process::Command as Process;

use super::{Project, TestList, TestPlan, ambiguous, base_spec, no_match, run_tool};
use crate::common::error::ErrorBody;
use crate::platform::Os;

/// The runner as reports name it.
pub(super) const RUNNER: &str = "JUnit (Maven)";

/// The console launcher's exit status when `--fail-if-no-tests` found none.
pub(super) const NO_TESTS_STATUS: i64 = 2;

/// The Maven plugin that writes the test class path, at a version pinned so a run needs no
/// look-up of the newest.
const DEPENDENCY_PLUGIN: &str = "org.apache.maven.plugins:maven-dependency-plugin:3.8.1";

/// The console launcher's main class.
const LAUNCHER: &str = "org.junit.platform.console.ConsoleLauncher";

/// Where the class path is written, under the build folder.
const CLASSPATH_FILE: &str = "target/debugger-test-classpath.txt";

/// The Maven project `dir` is in: the nearest folder with a `pom.xml`, from `dir` up.
pub(super) fn project_root(dir: &Path) -> Option<PathBuf> {
    dir.ancestors()
        .find(|folder| folder.join("pom.xml").is_file())
        .map(Path::to_path_buf)
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

/// The project built, and what runs its tests.
struct Built {
    root: PathBuf,
    java: PathBuf,
    classpath: String,
}

/// Maven: the project's own wrapper when it has one, else `mvn` on PATH.
fn maven(root: &Path) -> Process {
    let wrapper = root.join(Os::CURRENT.script("mvnw"));
    let mut command = if wrapper.is_file() {
        Process::new(wrapper)
    } else {
        Process::new(Os::CURRENT.script("mvn"))
    };
    command.current_dir(root).args(["-q", "-B"]);
    command
}

/// Builds the tests and reads their class path, with the console launcher on its end.
fn build(project: &Project<'_>) -> Result<Built, ErrorBody> {
    let root = project_root(project.root).ok_or_else(|| {
        ErrorBody::usage(
            format!("no pom.xml in {} or above it", project.root.display()),
            "run 'debugger test' in a Maven project",
        )
    })?;
    let mut command = maven(&root);
    command.args([
        "test-compile".to_string(),
        format!("{DEPENDENCY_PLUGIN}:build-classpath"),
        format!("-Dmdep.outputFile={CLASSPATH_FILE}"),
        "-Dmdep.includeScope=test".to_string(),
    ]);
    run_tool(command, "mvn test-compile")?;
    let written = root.join(CLASSPATH_FILE);
    let dependencies = std::fs::read_to_string(&written).map_err(|e| {
        ErrorBody::internal(format!(
            "Maven wrote no class path to {}: {e}",
            written.display()
        ))
    })?;
    let dependencies: Vec<PathBuf> = std::env::split_paths(dependencies.trim()).collect();
    let launcher = console_launcher(&root, &dependencies)?;
    let mut entries = vec![
        root.join("target/test-classes"),
        root.join("target/classes"),
    ];
    entries.extend(dependencies);
    entries.push(launcher);
    let classpath = std::env::join_paths(&entries)
        .map_err(|e| ErrorBody::internal(format!("the test class path cannot be joined: {e}")))?
        .to_string_lossy()
        .into_owned();
    let java = crate::adapters::test_runtimes::java(project.config)?;
    Ok(Built {
        root,
        java,
        classpath,
    })
}

/// The console launcher of the JUnit Platform version the class path has: the jar in the
/// local repository its `junit-platform-commons` jar is in, fetched by Maven when it is not
/// there yet.
fn console_launcher(root: &Path, classpath: &[PathBuf]) -> Result<PathBuf, ErrorBody> {
    let commons = classpath
        .iter()
        .find(|jar| {
            jar.file_name()
                .and_then(|n| n.to_str())
                .is_some_and(|n| n.starts_with("junit-platform-commons-"))
        })
        .ok_or_else(|| {
            ErrorBody::usage(
                "the project's tests have no JUnit Platform on their class path",
                "debugger test runs JUnit 5 (or newer) tests: add org.junit.jupiter:junit-jupiter \
                 as a test dependency",
            )
        })?;
    // <repository>/org/junit/platform/junit-platform-commons/VERSION/the.jar
    let version_folder = commons.parent();
    let version = version_folder
        .and_then(Path::file_name)
        .and_then(|v| v.to_str())
        .ok_or_else(|| ErrorBody::internal("the JUnit Platform jar has no version folder"))?;
    let jar = version_folder
        .and_then(Path::parent)
        .and_then(Path::parent)
        .map(|platform| {
            platform
                .join("junit-platform-console-standalone")
                .join(version)
                .join(format!("junit-platform-console-standalone-{version}.jar"))
        })
        .ok_or_else(|| ErrorBody::internal("the JUnit Platform jar is not in a repository"))?;
    if !jar.is_file() {
        let mut command = maven(root);
        command.args([
            format!("{DEPENDENCY_PLUGIN}:get"),
            format!("-Dartifact=org.junit.platform:junit-platform-console-standalone:{version}"),
            "-Dtransitive=false".to_string(),
        ]);
        run_tool(command, "mvn dependency:get (the JUnit console launcher)")?;
    }
    if jar.is_file() {
        Ok(jar)
    } else {
        Err(ErrorBody::internal(format!(
            "Maven fetched the JUnit console launcher, but not to {}",
            jar.display()
        )))
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
        "--scan-classpath",
    ]);
    command.arg(built.root.join("target/test-classes"));
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
fn selection(selector: &str, tests: &[Discovered]) -> Result<Vec<String>, ErrorBody> {
    if let Some((class, method)) = selector.split_once('#') {
        let method = method.split('(').next().unwrap_or(method);
        let matching: Vec<&Discovered> = tests
            .iter()
            .filter(|t| t.class_is(class) && t.method == method)
            .collect();
        return match matching.as_slice() {
            [] => Err(no_match(selector, RUNNER)),
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
        [] => Err(no_match(selector, RUNNER)),
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

pub(super) fn plan(project: &Project<'_>) -> Result<TestPlan, ErrorBody> {
    let built = build(project)?;
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
        args.push("--scan-classpath".into());
        args.push(built.root.join("target/test-classes").display().to_string());
    } else {
        args.extend(selection(selector, &tests)?);
    }
    args.extend(project.runner_args.iter().cloned());
    let mut spec = base_spec(project, built.java.clone(), args)?;
    spec.cwd.clone_from(&built.root);
    Ok(TestPlan {
        runner: RUNNER,
        test: selector.to_string(),
        spec,
        failure_functions: &[],
        root: built.root,
    })
}

/// `--list`: `Class#method` per test, those the selector names (a class, a method, or a part
/// of `Class#method`).
pub(super) fn list(project: &Project<'_>) -> Result<TestList, ErrorBody> {
    let built = build(project)?;
    let tests = discover(&built)?;
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
        runner: RUNNER,
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
            selection("PriceTest#totalSumsLines", &tests).expect("one"),
            ["--select-method=com.shop.PriceTest#totalSumsLines"]
        );
        assert_eq!(
            selection("com.shop.CartTest", &tests).expect("one"),
            ["--select-class=com.shop.CartTest"]
        );
        assert_eq!(
            selection("totalAppliesDiscount", &tests).expect("one"),
            ["--select-method=com.shop.CartTest#totalAppliesDiscount(int)"]
        );
        assert!(selection("CartTest", &tests).is_err(), "two classes");
        assert!(selection("totalSumsLines", &tests).is_err(), "two methods");
        assert!(selection("nothing", &tests).is_err());
    }
}
