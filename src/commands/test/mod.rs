//! `test`: start a session on one test of the project in the working directory, found through
//! the project's own test runner, and (with `--break-on-failure`) stop where it fails.
//!
//! One file per toolchain turns a selector into a launch ([`TestPlan`]) and lists tests through
//! its runner: `cargo.rs` (Rust), `python.rs` (pytest, else unittest), `go.rs` (Delve's test
//! mode), `js_runners.rs` (vitest, jest), `node.rs` (`node:test` files), `junit.rs` (JUnit 5, built
//! by `maven.rs` in a Maven project or `gradle.rs` in a Gradle one), `ctest.rs` (a CMake
//! build's tests, C and C++), `phpunit.rs` (PHPUnit, PHP), `minitest.rs` and `rspec.rs` (Ruby,
//! both ending in `ruby_command.rs`: `bundle exec` where the project has a Gemfile, and the
//! plan) and `native.rs` (a test executable by path, C and C++).
//! `failure.rs` tells a failure's stop from another and picks the test's frame in it;
//! `report.rs` runs the test through the daemon and reports its first stop. `probe --test`
//! (`commands/probe/test.rs`) uses the same plan and the same judgement in process.

mod cargo;
mod ctest;
pub(crate) mod failure;
pub(crate) mod failure_stop;
mod go;
mod go_packages;
mod gradle;
mod js_runners;
mod junit;
mod maven;
pub(crate) mod message;
mod minitest;
mod native;
mod node;
mod node_list;
mod phpunit;
mod pin;
mod python;
mod report;
mod rspec;
mod ruby_command;
mod tool_failure;

use std::path::{Path, PathBuf};

use clap::Args;
use serde::Serialize;

use super::session::breakpoint_specs;
use super::{Outcome, data};
use crate::common::config::Config;
use crate::common::error::{ErrorBody, ErrorCode};
use crate::common::location::resolve::absolute;
use crate::ipc::protocol::{LaunchSpec, StopReport};
pub(crate) use tool_failure::{run_tool, tool_failed};

// `test`'s flags.
#[derive(Debug, Args)]
pub struct TestArgs {
    /// The test: its name as the runner writes it (`tests::parses`, `test_cart.py::test_total`,
    /// `test_cart.CartTest.test_x`, `TestTotal/case`, `CartTest#totalAppliesDiscount`,
    /// `CartTest::testTotal`, `CartTest#test_total`, `spec/cart_spec.rb:12`), or a test executable's
    /// path (C, C++).
    pub selector: Option<String>,
    /// The debug adapter (default: the one the project's language calls for).
    #[arg(long)]
    pub adapter: Option<String>,
    /// A breakpoint to set before the test runs (FILE:LINE or FUNCTION; 'LOC if COND', quoted
    /// as one argument, stops only where COND holds); repeatable.
    #[arg(short = 'b', long = "break", value_name = "LOC")]
    pub breakpoints: Vec<String>,
    /// Stop where the test fails (a panic, a failed assertion, t.Error/t.Fatal), with the test's
    /// frame selected at the failing line.
    #[arg(long)]
    pub break_on_failure: bool,
    /// List the tests the selector matches, through the runner's own listing, and run none.
    #[arg(long, conflicts_with_all = ["breakpoints", "break_on_failure"])]
    pub list: bool,
    /// Seconds to wait for the test to stop or end (exit code 3 when it still runs).
    #[arg(long, value_name = "S", default_value_t = 300.0, allow_negative_numbers = true,
          value_parser = super::numbers::seconds)]
    pub timeout: f64,
    /// Arguments for the runner, after '--': cargo's `-p`, `--test`, `--lib`; pytest's options;
    /// the test binary's for Go; the program's for a test executable.
    #[arg(last = true)]
    pub runner_args: Vec<String>,
}

/// A test, ready to launch: what runs it, and how its failure is caught.
#[derive(Debug, Clone)]
pub struct TestPlan {
    /// The runner, as a user would name it (`cargo test`, `pytest`, `go test`...).
    pub runner: &'static str,
    /// The test as reports name it.
    pub test: String,
    /// The launch: its breakpoints are the user's; [`TestPlan::failure_functions`] go in its
    /// `test`, for the session's own breakpoints.
    pub spec: LaunchSpec,
    /// Functions every failure of this toolchain passes through (a Rust panic, Go's
    /// `testing.(*common).Fail`): the session breaks on them with `--break-on-failure`.
    pub failure_functions: &'static [&'static str],
    /// The project's folder: the test's frame is the first one whose file is under it.
    pub root: PathBuf,
}

/// Where a failure's message is read from, beside an exception's own.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum MessageSource {
    None,
    /// The panic hook's message in the program's output.
    RustPanic,
    /// The test's log line in `go test -v`'s output.
    GoLog,
}

impl TestPlan {
    /// The error for a run that ended with `exit_code`, when by that status the runner says it
    /// ran no test (pytest's "file or directory not found", "no tests collected"), or by its
    /// words (a Go test binary passes, exit 0, with "no tests to run"): the selection matched
    /// nothing, which is the user's to fix, not a test that ended. `output` is the end of the
    /// run's output, whose runner's own words are quoted. `None` for any other end.
    pub(crate) fn ran_no_test(
        &self,
        exit_code: Option<i64>,
        output: impl FnOnce() -> String,
    ) -> Option<ErrorBody> {
        if let Some(code) =
            exit_code.filter(|code| python::no_test_statuses(self.runner).contains(code))
        {
            let mut message = format!(
                "{} ran no test for '{}' (exit code {code})",
                self.runner, self.test
            );
            if let Some(words) = last_words(&output()) {
                message.push_str(": ");
                message.push_str(&words);
            }
            return Some(ErrorBody::usage(
                message,
                "'debugger test --list' lists the tests; check the runner's arguments after '--'",
            ));
        }
        if [maven::RUNNER, gradle::RUNNER].contains(&self.runner)
            && exit_code == Some(junit::NO_TESTS_STATUS)
        {
            return Some(ErrorBody::usage(
                format!("JUnit ran no test for '{}'", self.test),
                "'debugger test --list' lists the tests",
            ));
        }
        // A Go test binary and PHPUnit pass (exit 0) when nothing ran: they say so in words.
        if exit_code != Some(0) || ![go::RUNNER, phpunit::RUNNER].contains(&self.runner) {
            return None;
        }
        let output = output();
        if self.runner == phpunit::RUNNER && phpunit::ran_no_test(&output) {
            return Some(ErrorBody::usage(
                format!(
                    "PHPUnit ran no test for '{}' (No tests executed!)",
                    self.test
                ),
                "'debugger test --list' lists the tests; check the runner's arguments after '--'",
            ));
        }
        if self.runner == go::RUNNER && go::ran_no_test(&output) {
            return Some(ErrorBody::usage(
                format!(
                    "no test of the package matches '{}' (go test ran none)",
                    self.test
                ),
                "'debugger test --list' lists the tests; a subtest is TestName/case",
            ));
        }
        None
    }

    /// Why `--break-on-failure` did not stop a test that ended with the failing status `code`.
    pub(crate) fn unstopped_failure_note(&self, code: i64) -> String {
        if [minitest::RUNNER, rspec::RUNNER].contains(&self.runner) {
            return format!(
                "the test failed (exit code {code}) with no failed assertion to stop at: an error \
                 the test did not expect (a NoMethodError) is rescued by {} and reported, not \
                 stopped at; its report names the line ('debugger output'): set a breakpoint \
                 there, with -b FILE:LINE",
                self.runner
            );
        }
        format!(
            "the test failed (exit code {code}) with nothing to stop at on the way: no signal, \
             panic, exception or failure function. A failure told by the exit status alone ({}) \
             cannot be caught; set a breakpoint where the test checks, with -b FILE:LINE",
            self.exit_status_failure()
        )
    }

    /// What fails a test of this runner's language by its exit status alone, which leaves
    /// nothing to stop at (a C test's `return 1`, Java's `System.exit(1)`), for the note of a
    /// test that ended so.
    pub(crate) fn exit_status_failure(&self) -> &'static str {
        match self.runner {
            maven::RUNNER | gradle::RUNNER => "`System.exit(1)` in the code under test",
            cargo::RUNNER => "`std::process::exit(1)` in the code under test",
            go::RUNNER => "`os.Exit(1)` in the code under test",
            python::PYTEST | python::UNITTEST => "`os._exit(1)` in the code under test",
            ctest::RUNNER | native::RUNNER => "a C or C++ test's `return 1`",
            // PHPUnit catches every exception a test throws; only its assertions' are stopped at.
            phpunit::RUNNER => {
                "an exception the test did not expect (PHPUnit's error), or `exit(1)` in the code \
                 under test"
            }
            node_list::RUNNER | js_runners::VITEST | js_runners::JEST => {
                "`process.exit(1)` in the code under test"
            }
            _ => "an exit with a failing status in the code under test",
        }
    }

    /// Whether a stop on an exception is none of the test's failures, though it is caught with
    /// them: PHPUnit's skipped test and minitest's `skip` raise a failure's subclass. The run goes
    /// on.
    pub(crate) fn passes_over(&self, stop: &StopReport) -> bool {
        let Some(exception) = stop.exception.as_ref() else {
            return false;
        };
        match self.runner {
            phpunit::RUNNER => phpunit::is_no_failure(&exception.type_name),
            minitest::RUNNER => exception.type_name == minitest::SKIP,
            _ => false,
        }
    }

    /// Where this plan's failure message is read from: the toolchain is told by its failure
    /// functions, which are each toolchain's own.
    pub(crate) fn message_source(&self) -> MessageSource {
        if self.failure_functions == cargo::FAILURE_FUNCTIONS {
            MessageSource::RustPanic
        } else if self.failure_functions == go::FAILURE_FUNCTIONS {
            MessageSource::GoLog
        } else {
            MessageSource::None
        }
    }
}

/// What a runner said as it ended: its `ERROR` lines (pytest's "ERROR: file or directory not
/// found: x"), else its last line, without the `===` rules around it.
fn last_words(output: &str) -> Option<String> {
    let lines: Vec<&str> = output
        .lines()
        .map(|line| line.trim().trim_matches('=').trim())
        .filter(|line| !line.is_empty())
        .collect();
    let errors: Vec<&str> = lines
        .iter()
        .copied()
        .filter(|line| line.starts_with("ERROR"))
        .collect();
    if errors.is_empty() {
        lines.last().map(|line| line.to_string())
    } else {
        Some(errors.join("; "))
    }
}

/// What a toolchain's discovery is given.
pub(crate) struct Project<'a> {
    pub root: &'a Path,
    pub config: &'a Config,
    pub selector: Option<&'a str>,
    pub runner_args: &'a [String],
}

/// The launch every toolchain starts from: the caller's environment (less `DEBUGGER_SESSION`),
/// run in the project's folder, with the user's breakpoints and the failure filters asked for.
pub(crate) fn base_spec(
    project: &Project<'_>,
    program: PathBuf,
    args: Vec<String>,
) -> Result<LaunchSpec, ErrorBody> {
    Ok(LaunchSpec {
        program,
        args,
        cwd: project.root.to_path_buf(),
        env: std::env::vars_os()
            .filter_map(|(k, v)| Some((k.into_string().ok()?, v.into_string().ok()?)))
            .filter(|(k, _)| k != "DEBUGGER_SESSION")
            .collect(),
        adapter: None,
        stop_on_entry: false,
        breakpoints: Vec::new(),
        connect: None,
        tty: false,
        stdin: None,
        options: Default::default(),
        test: Some(Box::default()),
    })
}

/// The tests a selector matches, as `--list` reports them.
#[derive(Debug, Serialize)]
pub struct TestList {
    pub runner: &'static str,
    pub selector: Option<String>,
    pub tests: Vec<String>,
    /// What the runner could not list, in its words (a test file that raised as pytest collected
    /// it, a Go package that does not build): the tests listed are the rest.
    pub warnings: Vec<String>,
}

/// Which toolchain the project (or the selector) is.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Toolchain {
    Rust,
    Python,
    Go,
    Node,
    /// A Maven project's JUnit tests.
    Maven,
    /// A Gradle project's JUnit tests.
    Gradle,
    Native,
    /// CTest, in this build folder.
    Ctest(PathBuf),
    /// PHPUnit's tests.
    Php,
    /// Ruby's tests: minitest's under `test/` or RSpec's under `spec/`.
    Ruby(RubyRunner),
}

/// Which of Ruby's test runners a project's tests (or the selector) are for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum RubyRunner {
    Minitest,
    Rspec,
}

/// Ruby's runner: RSpec for a spec file or place, minitest for a test file or `Class#test`;
/// else the one whose tests the project has, minitest when it has both (its names are
/// `Class#test`, which a description seldom is). `None`: no Ruby tests.
fn ruby_runner(root: &Path, selector: Option<&str>) -> Option<RubyRunner> {
    let specs = !rspec::spec_files(root).is_empty();
    let tests = !minitest::test_files(root).is_empty();
    match selector {
        Some(s) if rspec::names_spec(s) && specs => Some(RubyRunner::Rspec),
        Some(s) if (s.ends_with(".rb") || s.contains('#')) && tests => Some(RubyRunner::Minitest),
        _ if tests => Some(RubyRunner::Minitest),
        _ if specs => Some(RubyRunner::Rspec),
        _ => None,
    }
}

/// The toolchain: a selector that is an executable file is a test executable; a `.py`, `.js`
/// or `.php` selector is its language's; else the project's marker files decide, in this order
/// (a CMake build folder with tests, or a CMake project with one, a PHPUnit configuration, and a
/// Ruby project's Gemfile with tests, before JavaScript, which a PHP or Ruby project may have for
/// its front end, and Python); a Go
/// package's folder inside its module counts as Go, as a package the runner arguments name
/// does; and without markers, test files as the runners name them.
fn toolchain(project: &Project<'_>) -> Result<Toolchain, ErrorBody> {
    let root = project.root;
    let selector = project.selector;
    if let Some(selector) = selector {
        let file = root.join(selector.split("::").next().unwrap_or(selector));
        if file.is_file() {
            match file.extension().and_then(|e| e.to_str()) {
                Some("py") => return Ok(Toolchain::Python),
                Some("js" | "mjs" | "cjs" | "ts" | "mts" | "cts" | "tsx" | "jsx") => {
                    return Ok(Toolchain::Node);
                }
                Some("php") => return Ok(Toolchain::Php),
                _ if file
                    .metadata()
                    .is_ok_and(|m| crate::platform::is_executable(&m)) =>
                {
                    return Ok(Toolchain::Native);
                }
                _ => {}
            }
        }
    }
    let has = |name: &str| root.join(name).exists();
    if has("Cargo.toml") {
        return Ok(Toolchain::Rust);
    }
    if has("pom.xml") {
        return Ok(Toolchain::Maven);
    }
    if has("build.gradle") || has("build.gradle.kts") {
        return Ok(Toolchain::Gradle);
    }
    if has("go.mod")
        || go_packages::is_package(root)
        || go::names_package(root, selector, project.runner_args)
    {
        return Ok(Toolchain::Go);
    }
    if let Some(build) = ctest::build_dir(root)? {
        return Ok(Toolchain::Ctest(build));
    }
    if phpunit::is_project(root) {
        return Ok(Toolchain::Php);
    }
    // A Ruby project with a Gemfile may have a package.json for its assets (Rails does).
    if has("Gemfile")
        && let Some(runner) = ruby_runner(root, selector)
    {
        return Ok(Toolchain::Ruby(runner));
    }
    if has("package.json") {
        return Ok(Toolchain::Node);
    }
    let python_markers = [
        "pyproject.toml",
        "setup.py",
        "setup.cfg",
        "pytest.ini",
        "tox.ini",
        "conftest.py",
    ];
    if python_markers.iter().any(|m| has(m)) {
        return Ok(Toolchain::Python);
    }
    if let Some(runner) = ruby_runner(root, selector) {
        return Ok(Toolchain::Ruby(runner));
    }
    // No marker: the test files of one runner or the other (node's search goes down the tree,
    // so it comes after the markers, which a Python project's tree need not be searched for).
    if node::test_files(root).next().is_some() {
        return Ok(Toolchain::Node);
    }
    if python::test_files(root).next().is_some() {
        return Ok(Toolchain::Python);
    }
    if has("CMakeLists.txt") {
        return Err(ctest::unbuilt(root));
    }
    // A folder inside a Maven or Gradle project (its test sources' package folder).
    if maven::project_root(root).is_some() {
        return Ok(Toolchain::Maven);
    }
    if gradle::project_root(root).is_some() {
        return Ok(Toolchain::Gradle);
    }
    Err(ErrorBody::new(
        ErrorCode::Usage,
        format!("no tests found in {}", root.display()),
        "run 'debugger test' in a project's folder (Cargo.toml, go.mod or a Go package's folder, \
         package.json, a Python test_*.py, a CMake build folder, a Maven pom.xml, a Gradle build.gradle, \
         a phpunit.xml, Ruby tests under test/ or spec/), or name a test executable: \
         'debugger test ./build/tests -- FILTER'",
    ))
}

/// The plan for the selected test.
pub(crate) fn plan(
    args: &TestArgs,
    root: &Path,
    config: &Config,
    break_on_failure: bool,
) -> Result<TestPlan, ErrorBody> {
    let project = Project {
        root,
        config,
        selector: args.selector.as_deref(),
        runner_args: &args.runner_args,
    };
    let mut plan = match toolchain(&project)? {
        Toolchain::Rust => cargo::plan(&project)?,
        Toolchain::Python => python::plan(&project)?,
        Toolchain::Go => go::plan(&project)?,
        Toolchain::Node => match js_runners::runner(root) {
            Some(runner) if !node::claims(root, project.selector.unwrap_or("")) => {
                js_runners::plan(&project, runner)?
            }
            _ => node::plan(&project)?,
        },
        Toolchain::Maven => junit::plan(&project, maven::build(&project)?)?,
        Toolchain::Gradle => junit::plan(&project, gradle::build(&project)?)?,
        Toolchain::Native => native::plan(&project, break_on_failure)?,
        Toolchain::Ctest(build) => ctest::plan(&project, &build, break_on_failure)?,
        Toolchain::Php => phpunit::plan(&project)?,
        Toolchain::Ruby(RubyRunner::Minitest) => minitest::plan(&project)?,
        Toolchain::Ruby(RubyRunner::Rspec) => rspec::plan(&project)?,
    };
    plan.spec.adapter.clone_from(&args.adapter);
    plan.spec.breakpoints = breakpoint_specs(&args.breakpoints, &current_dir()?)?;
    if let Some(test) = &mut plan.spec.test {
        test.break_on_failure = break_on_failure;
        test.failure_functions = plan
            .failure_functions
            .iter()
            .map(|f| f.to_string())
            .collect();
    }
    Ok(plan)
}

pub fn run(session: &str, args: TestArgs) -> Result<Outcome, ErrorBody> {
    let root = current_dir()?;
    let config = Config::load()?;
    if args.list {
        let project = Project {
            root: &root,
            config: &config,
            selector: args.selector.as_deref(),
            runner_args: &args.runner_args,
        };
        let list = match toolchain(&project)? {
            Toolchain::Rust => cargo::list(&project)?,
            Toolchain::Python => python::list(&project)?,
            Toolchain::Go => go::list(&project)?,
            Toolchain::Ctest(build) => ctest::list(&project, &build)?,
            Toolchain::Node if js_runners::runner(&root).is_some() => {
                js_runners::list(&project, js_runners::runner(&root))?
            }
            Toolchain::Node => node_list::list(&project)?,
            Toolchain::Maven => junit::list(&project, &maven::build(&project)?)?,
            Toolchain::Gradle => junit::list(&project, &gradle::build(&project)?)?,
            Toolchain::Php => phpunit::list(&project)?,
            Toolchain::Ruby(RubyRunner::Minitest) => minitest::list(&project)?,
            Toolchain::Ruby(RubyRunner::Rspec) => rspec::list(&project)?,
            Toolchain::Native => {
                return Err(ErrorBody::usage(
                    "this runner has no listing of its tests",
                    "name the test to run: 'debugger test SELECTOR'",
                ));
            }
        };
        return Ok(list_outcome(list));
    }
    let timeout = super::numbers::checked_seconds("--timeout", args.timeout)?;
    let plan = plan(&args, &root, &config, args.break_on_failure)?;
    report::start_and_report(session, plan, timeout)
}

fn list_outcome(list: TestList) -> Outcome {
    let mut text = match &list.selector {
        Some(selector) => format!(
            "{} test(s) matching '{selector}' ({}):\n",
            list.tests.len(),
            list.runner
        ),
        None => format!("{} test(s) ({}):\n", list.tests.len(), list.runner),
    };
    for test in &list.tests {
        text.push_str(&format!("  {test}\n"));
    }
    for warning in &list.warnings {
        text.push_str(&format!("warning: {warning}\n"));
    }
    if list.tests.is_empty() && list.warnings.is_empty() {
        text.push_str("hint: 'debugger test --list' without a selector lists every test\n");
    }
    Outcome::new(data(&list), text)
}

pub(crate) fn current_dir() -> Result<PathBuf, ErrorBody> {
    std::env::current_dir().map_err(|e| {
        ErrorBody::usage(
            format!("cannot read the current directory: {e}"),
            "run the command from a directory that exists",
        )
    })
}

/// The error for a selector that matches nothing.
pub(crate) fn no_match(selector: &str, runner: &str) -> ErrorBody {
    ErrorBody::usage(
        format!("no test matches '{selector}' ({runner})"),
        "'debugger test --list' lists the tests",
    )
}

/// The error for a selector that matches several tests.
pub(crate) fn ambiguous(selector: &str, matches: &[String]) -> ErrorBody {
    ErrorBody::usage(
        format!(
            "'{selector}' matches {} tests:\n  {}",
            matches.len(),
            matches.join("\n  ")
        ),
        "name one of them in full (and, for cargo, pick its target with -- --lib or -- --test NAME)",
    )
}

/// `path` made absolute against the project root.
pub(crate) fn in_project(root: &Path, path: &Path) -> PathBuf {
    absolute(root, path)
}

/// The files under `dir`, at any depth, whose names `wanted` picks, in name order.
pub(crate) fn files_under(dir: &Path, wanted: impl Fn(&str) -> bool + Copy) -> Vec<PathBuf> {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return Vec::new();
    };
    let mut paths: Vec<PathBuf> = entries.flatten().map(|entry| entry.path()).collect();
    paths.sort();
    paths
        .into_iter()
        .flat_map(|path| {
            if path.is_dir() {
                files_under(&path, wanted)
            } else if path
                .file_name()
                .and_then(|n| n.to_str())
                .is_some_and(wanted)
            {
                vec![path]
            } else {
                Vec::new()
            }
        })
        .collect()
}

/// Command-line arguments as a launch takes them (text): a path that is not is an error.
pub(crate) fn strings(args: Vec<std::ffi::OsString>) -> Result<Vec<String>, ErrorBody> {
    args.into_iter()
        .map(|arg| {
            arg.into_string().map_err(|arg| {
                ErrorBody::usage(
                    format!("{} is not valid text", arg.to_string_lossy()),
                    "run the test from a path that is valid UTF-8",
                )
            })
        })
        .collect()
}

/// Sets `name` to `value` in `env`, in place when it is there.
pub(crate) fn set_env(env: &mut Vec<(String, String)>, name: &str, value: String) {
    match env.iter_mut().find(|(k, _)| k == name) {
        Some(entry) => entry.1 = value,
        None => env.push((name.to_string(), value)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_runners_last_words_are_its_errors_else_its_last_line() {
        let pytest = "=== test session starts ===\ncollected 0 items\n\n\
                      ===== no tests ran in 0.01s =====\n\
                      ERROR: file or directory not found: test_x\n\n";
        assert_eq!(
            last_words(pytest).as_deref(),
            Some("ERROR: file or directory not found: test_x")
        );
        assert_eq!(
            last_words("collected 3 items / 3 deselected\n=== 3 deselected in 0.02s ===\n")
                .as_deref(),
            Some("3 deselected in 0.02s")
        );
        assert_eq!(last_words("\n"), None);
    }

    #[test]
    fn a_gradle_build_script_makes_a_gradle_project_and_a_pom_a_maven_one() {
        let dir = tempfile::tempdir().expect("tempdir");
        let config = Config::default();
        let toolchain_of = |root: &Path| {
            toolchain(&Project {
                root,
                config: &config,
                selector: None,
                runner_args: &[],
            })
            .expect("a toolchain")
        };
        let gradle = dir.path().join("gradle");
        let package = gradle.join("src/test/kotlin/shop");
        std::fs::create_dir_all(&package).expect("mkdir");
        std::fs::write(gradle.join("build.gradle.kts"), "").expect("write");
        assert_eq!(toolchain_of(&gradle), Toolchain::Gradle);
        assert_eq!(toolchain_of(&package), Toolchain::Gradle);
        std::fs::write(gradle.join("pom.xml"), "<project/>").expect("write");
        assert_eq!(toolchain_of(&gradle), Toolchain::Maven);
    }

    #[test]
    fn a_ruby_projects_tests_come_before_its_package_json() {
        let dir = tempfile::tempdir().expect("tempdir");
        let config = Config::default();
        let root = dir.path();
        let toolchain_of = |selector: Option<&str>| {
            toolchain(&Project {
                root,
                config: &config,
                selector,
                runner_args: &[],
            })
            .expect("a toolchain")
        };
        std::fs::create_dir_all(root.join("spec/models")).expect("mkdir");
        std::fs::write(root.join("spec/models/cart_spec.rb"), "").expect("write");
        std::fs::write(root.join("package.json"), "{}").expect("write");
        assert_eq!(toolchain_of(None), Toolchain::Node);
        std::fs::write(root.join("Gemfile"), "").expect("write");
        assert_eq!(toolchain_of(None), Toolchain::Ruby(RubyRunner::Rspec));
        std::fs::create_dir(root.join("test")).expect("mkdir");
        std::fs::write(root.join("test/cart_test.rb"), "").expect("write");
        assert_eq!(toolchain_of(None), Toolchain::Ruby(RubyRunner::Minitest));
        assert_eq!(
            toolchain_of(Some("spec/models/cart_spec.rb:3")),
            Toolchain::Ruby(RubyRunner::Rspec)
        );
    }
}
