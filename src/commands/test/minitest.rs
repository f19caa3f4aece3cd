//! Ruby's minitest: the test files under `test/` (`*_test.rb`, `test_*.rb`), each run as
//! Rake's test task runs it, `-Ilib -Itest FILE`, one test picked with minitest's own `--name
//! Class#test_name`; the file requires `minitest/autorun`, as minitest's files do (required
//! from the command line instead, its exit handler would come before the debugger's, which
//! then would tell the run's end before the tests ran). The tests are listed by loading the files in the project's Ruby and asking
//! minitest for its runnables, which is how minitest itself finds them.
//!
//! The selector is a test file (`test/cart_test.rb`), a test as `--list` prints it
//! (`CartTest#test_total`), or a bare test name (`test_total`).

use std::path::{Path, PathBuf};
use std::process::Command as Process;

use super::{Project, TestList, TestPlan, ambiguous, files_under, ruby_command, run_tool, strings};
use crate::adapters::test_runtimes;
use crate::common::error::ErrorBody;

/// The runner as reports name it.
pub(super) const RUNNER: &str = "minitest";

/// What every failed assertion raises (`skip`'s `Minitest::Skip` is one too).
const ASSERTION: &str = "Minitest::Assertion";

/// What `skip` raises: an assertion by its class, but no failure.
pub(super) const SKIP: &str = "Minitest::Skip";

/// The load path Rake's test task gives the tests.
const LOAD_PATH: [&str; 2] = ["-Ilib", "-Itest"];

/// Loads the files named as arguments and prints each test minitest would run, as
/// `Class#name<TAB>file<TAB>line`, then leaves before `minitest/autorun` runs them.
const LISTING: &str = r##"require "minitest"
ARGV.each { |file| require File.expand_path(file) }
# The order of a class's tests is random, from the run's seed, which only a run sets.
Minitest.seed ||= 0 if Minitest.respond_to?(:seed=)
Minitest::Runnable.runnables.each do |klass|
  klass.runnable_methods.sort.each do |name|
    file, line = klass.instance_method(name).source_location
    puts "#{klass.name}##{name}\t#{file}\t#{line}"
  end
end
$stdout.flush
exit!(0)
"##;

/// The test files of the project: under `test/`, named as Rake's test task finds them.
pub(super) fn test_files(root: &Path) -> Vec<PathBuf> {
    files_under(&root.join("test"), |name| {
        name.ends_with("_test.rb") || (name.starts_with("test_") && name.ends_with(".rb"))
    })
}

/// A test as minitest listed it.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Listed {
    /// `CartTest#test_total`.
    name: String,
    file: PathBuf,
}

impl Listed {
    fn method(&self) -> &str {
        self.name.rsplit('#').next().unwrap_or(&self.name)
    }
}

/// Every test of the project's test files, through minitest.
fn listed(project: &Project<'_>) -> Result<Vec<Listed>, ErrorBody> {
    let interpreter = test_runtimes::ruby(project.config)?;
    let mut command = Process::new(&interpreter);
    command
        .current_dir(project.root)
        .args(ruby_command::leading_args(project.root, &interpreter))
        .args(LOAD_PATH)
        .args(["-e", LISTING])
        .args(test_files(project.root));
    let output = run_tool(command, "minitest's listing")?;
    Ok(parse_listing(&output))
}

fn parse_listing(output: &str) -> Vec<Listed> {
    output
        .lines()
        .filter_map(|line| {
            let mut parts = line.split('\t');
            let name = parts.next()?;
            let file = parts.next()?;
            name.contains('#').then(|| Listed {
                name: name.to_string(),
                file: PathBuf::from(file),
            })
        })
        .collect()
}

/// The tests `selector` names: a test file's, the one named `Class#test` or the ones named
/// `test` in any class.
fn matching<'a>(selector: &str, tests: &'a [Listed], root: &Path) -> Vec<&'a Listed> {
    let file = root.join(selector);
    if selector.ends_with(".rb") {
        return tests
            .iter()
            .filter(|test| same_file(&test.file, &file))
            .collect();
    }
    if selector.contains('#') {
        return tests.iter().filter(|test| test.name == selector).collect();
    }
    tests
        .iter()
        .filter(|test| test.method() == selector)
        .collect()
}

fn same_file(a: &Path, b: &Path) -> bool {
    a == b
        || a.canonicalize()
            .ok()
            .is_some_and(|a| b.canonicalize().ok() == Some(a))
}

/// The error for a selector that names no test, or none at all, with the tests there are.
fn unmatched(selector: Option<&str>, tests: &[Listed]) -> ErrorBody {
    let what = match selector {
        Some(selector) => format!("no test matches '{selector}' ({RUNNER})"),
        None => format!("name the test to debug ({RUNNER})"),
    };
    let names: Vec<&str> = tests.iter().map(|t| t.name.as_str()).collect();
    ErrorBody::usage(
        format!("{what}; the tests are:\n  {}", names.join("\n  ")),
        "name one as Class#test_name, or a test file: 'debugger test test/cart_test.rb'",
    )
}

pub(super) fn plan(project: &Project<'_>) -> Result<TestPlan, ErrorBody> {
    let tests = listed(project)?;
    let Some(selector) = project.selector else {
        return Err(unmatched(None, &tests));
    };
    let found = matching(selector, &tests, project.root);
    let Some(first) = found.first() else {
        return Err(unmatched(Some(selector), &tests));
    };
    let interpreter = test_runtimes::ruby(project.config)?;
    let mut args = strings(ruby_command::leading_args(project.root, &interpreter))?;
    args.extend(LOAD_PATH.iter().map(|a| a.to_string()));
    args.push(first.file.display().to_string());
    let test = if selector.ends_with(".rb") {
        selector.to_string()
    } else {
        if found.len() > 1 {
            let names: Vec<String> = found.iter().map(|t| t.name.clone()).collect();
            return Err(ambiguous(selector, &names));
        }
        args.push(format!("--name={}", first.name));
        first.name.clone()
    };
    ruby_command::plan(project, interpreter, args, RUNNER, test, ASSERTION)
}

pub(super) fn list(project: &Project<'_>) -> Result<TestList, ErrorBody> {
    let tests = listed(project)?;
    let shown = match project.selector {
        Some(selector) => matching(selector, &tests, project.root),
        None => tests.iter().collect(),
    };
    Ok(TestList {
        runner: RUNNER,
        selector: project.selector.map(str::to_string),
        tests: shown.iter().map(|t| t.name.clone()).collect(),
        warnings: Vec::new(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_selector_names_a_file_a_test_or_a_test_name() {
        let tests = parse_listing(
            "CartTest#test_total\t/p/test/cart_test.rb\t4\n\
             CartTest#test_discount\t/p/test/cart_test.rb\t8\n\
             TillTest#test_total\t/p/test/till_test.rb\t3\nnoise\n",
        );
        assert_eq!(tests.len(), 3);
        let names = |found: Vec<&Listed>| -> Vec<String> {
            found.into_iter().map(|t| t.name.clone()).collect()
        };
        let root = Path::new("/p");
        assert_eq!(
            names(matching("CartTest#test_total", &tests, root)),
            ["CartTest#test_total"]
        );
        assert_eq!(
            names(matching("test_total", &tests, root)),
            ["CartTest#test_total", "TillTest#test_total"]
        );
        assert_eq!(
            names(matching("test/till_test.rb", &tests, root)),
            ["TillTest#test_total"]
        );
        assert!(matching("test_nothing", &tests, root).is_empty());
    }
}
