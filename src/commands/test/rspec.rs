//! Ruby's RSpec: the specs under `spec/` (`*_spec.rb`), run by the `rspec` command on PATH in
//! the project's Ruby (`-S rspec`), so that the debugger, loaded into that Ruby, is in the run.
//! The examples are listed by RSpec's own `--dry-run --format json`.
//!
//! The selector is a spec file or an example's place, as `--list` prints it
//! (`spec/cart_spec.rb:12`), or the words of an example's description, which RSpec's `-e`
//! matches anywhere in its full description.

use std::path::{Path, PathBuf};
use std::process::Command as Process;

use serde::Deserialize;

use super::{Project, TestList, TestPlan, files_under, ruby_command, run_tool, strings};
use crate::adapters::test_runtimes;
use crate::common::error::ErrorBody;

/// The runner as reports name it.
pub(super) const RUNNER: &str = "RSpec";

/// What every failed expectation raises.
const EXPECTATION_NOT_MET: &str = "RSpec::Expectations::ExpectationNotMetError";

/// The spec files of the project.
pub(super) fn spec_files(root: &Path) -> Vec<PathBuf> {
    files_under(&root.join("spec"), |name| name.ends_with("_spec.rb"))
}

/// Whether `selector` names a spec file or a place in one (`spec/cart_spec.rb:12`).
pub(super) fn names_spec(selector: &str) -> bool {
    place(selector).0.ends_with("_spec.rb")
}

/// A selector's file and line: `spec/cart_spec.rb:12` is the file and 12, a list line
/// (`spec/cart_spec.rb:12 Cart totals`) its place.
fn place(selector: &str) -> (&str, Option<u32>) {
    let first = selector.split(' ').next().unwrap_or(selector);
    match first.rsplit_once(':') {
        Some((file, line)) => match line.parse() {
            Ok(line) => (file, Some(line)),
            Err(_) => (first, None),
        },
        None => (first, None),
    }
}

#[derive(Debug, Deserialize)]
struct DryRun {
    examples: Vec<Example>,
}

#[derive(Debug, Clone, Deserialize)]
struct Example {
    full_description: String,
    file_path: String,
    line_number: u32,
}

impl Example {
    /// The example's place as RSpec takes it: `spec/cart_spec.rb:12`.
    fn place(&self) -> String {
        let file = self.file_path.strip_prefix("./").unwrap_or(&self.file_path);
        format!("{file}:{}", self.line_number)
    }

    /// As `--list` prints it: its place, then its description.
    fn shown(&self) -> String {
        format!("{} {}", self.place(), self.full_description)
    }
}

/// The project's examples, through RSpec's dry run.
fn examples(project: &Project<'_>) -> Result<Vec<Example>, ErrorBody> {
    let interpreter = test_runtimes::ruby(project.config)?;
    let mut command = Process::new(&interpreter);
    command
        .current_dir(project.root)
        .args(ruby_command::leading_args(project.root, &interpreter))
        .args(["-S", "rspec", "--dry-run", "--format", "json"]);
    let output = run_tool(command, "rspec --dry-run")?;
    parse_dry_run(&output)
}

/// The examples in the dry run's report, which is the line of its output that is the JSON
/// document (a spec file may print as it loads).
fn parse_dry_run(output: &str) -> Result<Vec<Example>, ErrorBody> {
    output
        .lines()
        .rev()
        .find_map(|line| serde_json::from_str::<DryRun>(line.trim()).ok())
        .map(|report| report.examples)
        .ok_or_else(|| {
            ErrorBody::internal(format!(
                "rspec --dry-run --format json wrote no report: {}",
                output.lines().last().unwrap_or_default()
            ))
        })
}

/// The examples `selector` names: the one that starts at a place, else the file's (RSpec's
/// `FILE:LINE` picks the example whose block holds the line, which the run decides), else
/// those whose full description holds the words.
fn matching<'a>(selector: &str, examples: &'a [Example]) -> Vec<&'a Example> {
    let (file, line) = place(selector);
    if names_spec(selector) {
        let file = file.strip_prefix("./").unwrap_or(file);
        let in_file: Vec<&Example> = examples
            .iter()
            .filter(|e| e.file_path.strip_prefix("./").unwrap_or(&e.file_path) == file)
            .collect();
        let at_line: Vec<&Example> = in_file
            .iter()
            .copied()
            .filter(|e| line.is_some_and(|line| e.line_number == line))
            .collect();
        // A line inside an example's block, or a whole file: RSpec picks among the file's.
        return if at_line.is_empty() { in_file } else { at_line };
    }
    examples
        .iter()
        .filter(|e| e.full_description.contains(selector))
        .collect()
}

/// The error for a selector that names no example, or none at all, with the examples there
/// are.
fn unmatched(selector: Option<&str>, examples: &[Example]) -> ErrorBody {
    let what = match selector {
        Some(selector) => format!("no test matches '{selector}' ({RUNNER})"),
        None => format!("name the test to debug ({RUNNER})"),
    };
    let shown: Vec<String> = examples.iter().map(Example::shown).collect();
    ErrorBody::usage(
        format!("{what}; the examples are:\n  {}", shown.join("\n  ")),
        "name one by its place (spec/cart_spec.rb:12) or by words of its description",
    )
}

pub(super) fn plan(project: &Project<'_>) -> Result<TestPlan, ErrorBody> {
    let examples = examples(project)?;
    let Some(selector) = project.selector else {
        return Err(unmatched(None, &examples));
    };
    let found = matching(selector, &examples);
    if found.is_empty() {
        return Err(unmatched(Some(selector), &examples));
    }
    let interpreter = test_runtimes::ruby(project.config)?;
    let mut args = strings(ruby_command::leading_args(project.root, &interpreter))?;
    args.extend(["-S".to_string(), "rspec".to_string()]);
    let test = if names_spec(selector) {
        let (file, line) = place(selector);
        let test = match line {
            Some(line) => format!("{file}:{line}"),
            None => file.to_string(),
        };
        args.push(test.clone());
        test
    } else {
        args.push("-e".into());
        args.push(selector.to_string());
        selector.to_string()
    };
    ruby_command::plan(
        project,
        interpreter,
        args,
        RUNNER,
        test,
        EXPECTATION_NOT_MET,
    )
}

pub(super) fn list(project: &Project<'_>) -> Result<TestList, ErrorBody> {
    let examples = examples(project)?;
    let shown = match project.selector {
        Some(selector) => matching(selector, &examples),
        None => examples.iter().collect(),
    };
    Ok(TestList {
        runner: RUNNER,
        selector: project.selector.map(str::to_string),
        tests: shown.iter().map(|e| e.shown()).collect(),
        warnings: Vec::new(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_selector_names_a_file_a_place_or_description_words() {
        let output = "loading\n{\"version\":\"3.12.0\",\"examples\":[\
            {\"full_description\":\"Cart totals the prices\",\"file_path\":\"./spec/cart_spec.rb\",\"line_number\":4},\
            {\"full_description\":\"Cart applies a discount\",\"file_path\":\"./spec/cart_spec.rb\",\"line_number\":9}]}\n";
        let examples = parse_dry_run(output).expect("a report");
        let places = |found: Vec<&Example>| -> Vec<String> {
            found.into_iter().map(Example::place).collect()
        };
        assert_eq!(
            places(matching("spec/cart_spec.rb:9", &examples)),
            ["spec/cart_spec.rb:9"]
        );
        assert_eq!(places(matching("spec/cart_spec.rb", &examples)).len(), 2);
        assert_eq!(
            places(matching("a discount", &examples)),
            ["spec/cart_spec.rb:9"]
        );
        assert_eq!(
            places(matching(
                "spec/cart_spec.rb:9 Cart applies a discount",
                &examples
            )),
            ["spec/cart_spec.rb:9"]
        );
        assert!(matching("refunds", &examples).is_empty());
        assert!(names_spec("spec/cart_spec.rb:9"));
        assert!(!names_spec("Cart totals"));
    }
}
