//! The conformance suite's frame: the scenarios every built-in adapter runs (`Feature`), the
//! report of one adapter's run, and what a feature it does not have must answer (`unsupported`).
//!
//! What an adapter has is not told by the binary (`doctor` lists adapters without their
//! features, and the DAP capabilities stay inside the daemon), so each row of
//! [`adapters::ROWS`] says what it lacks.

pub mod adapters;
pub mod attach;
pub mod particulars;
pub mod programs;
pub mod running;
pub mod stopping;
pub mod test_runs;

use std::io::Write;
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::sync::Mutex;

use crate::common::Run;
use adapters::Row;

/// One behaviour the suite checks on every adapter.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Feature {
    /// `start` from a directory that is not the program's.
    StartElsewhere,
    BreakLine,
    BreakFunction,
    Condition,
    HitCount,
    Logpoint,
    Continue,
    Next,
    Step,
    Finish,
    Locals,
    Print,
    Set,
    Threads,
    Backtrace,
    UpDown,
    /// An uncaught exception (a signal for C and Rust) stops the program where it was raised.
    Exception,
    ExitCode,
    Stdout,
    Stderr,
    Stop,
    Restart,
    Probe,
    /// `debugger test` on the language's own test runner.
    Test,
    Core,
    Attach,
}

/// How one feature went.
#[derive(Debug)]
enum Outcome {
    Pass,
    /// The adapter lacks it, and the CLI said so with `unsupported`.
    Unsupported,
    /// It fails as the row's `known_bugs` says it does.
    KnownBug(&'static str),
    Fail(String),
}

/// What one adapter did with the features one test checked. A failing check does not end the
/// run: the rest are still checked, and [`Report::finish`] fails the test naming every failure.
/// A feature may be checked in several parts (a logpoint is set, then its lines are read): it
/// passes when every part does.
pub struct Report {
    pub row: &'static Row,
    /// Each feature checked, in order, with its first failure.
    checked: Vec<(Feature, Result<(), String>)>,
    unsupported: Vec<(Feature, Result<(), String>)>,
}

impl Report {
    pub fn new(row: &'static Row) -> Report {
        Report {
            row,
            checked: Vec::new(),
            unsupported: Vec::new(),
        }
    }

    /// Checks `feature` with `check` when the adapter has it; else `refused` must be the CLI's
    /// `unsupported` error for it.
    pub fn feature(
        &mut self,
        feature: Feature,
        check: impl FnOnce(),
        refused: impl FnOnce() -> Run,
    ) {
        if self.row.lacks.contains(&feature) {
            let result = catch_unwind(AssertUnwindSafe(refused))
                .map_err(|panic| panic_text(&panic))
                .and_then(|run| is_unsupported(&run));
            self.unsupported.push((feature, result));
        } else {
            self.check(feature, check);
        }
    }

    /// Checks (a part of) `feature`, which every adapter has: a row that says it lacks one
    /// fails, as the scenario has no refusal to check (it is to be checked with [`Report::feature`]).
    pub fn check(&mut self, feature: Feature, check: impl FnOnce()) {
        let result = if self.row.lacks.contains(&feature) {
            Err(format!(
                "the row lacks {feature:?}, but its scenario checks no refusal: check it with \
                 Report::feature"
            ))
        } else {
            catch_unwind(AssertUnwindSafe(check)).map_err(|panic| panic_text(&panic))
        };
        match self.checked.iter_mut().find(|(seen, _)| *seen == feature) {
            Some((_, earlier)) => {
                if earlier.is_ok() {
                    *earlier = result;
                }
            }
            None => self.checked.push((feature, result)),
        }
    }

    /// The outcome of each feature checked. Where the row names a feature among its known bugs,
    /// its check must fail: one that passes says the entry is to go.
    fn outcomes(&self) -> Vec<(Feature, Outcome)> {
        let checked = self.checked.iter().map(|(feature, result)| {
            let known = self
                .row
                .known_bugs
                .iter()
                .find(|(buggy, _)| buggy == feature)
                .map(|(_, bug)| *bug);
            let outcome = match (result, known) {
                (Ok(()), None) => Outcome::Pass,
                (Ok(()), Some(bug)) => Outcome::Fail(format!(
                    "passes, though the row names it a known bug ({bug}): take it out of the row"
                )),
                (Err(_), Some(bug)) => Outcome::KnownBug(bug),
                (Err(why), None) => Outcome::Fail(why.clone()),
            };
            (*feature, outcome)
        });
        let refused = self.unsupported.iter().map(|(feature, result)| {
            let outcome = match result {
                Ok(()) => Outcome::Unsupported,
                Err(why) => Outcome::Fail(why.clone()),
            };
            (*feature, outcome)
        });
        checked.chain(refused).collect()
    }

    /// Prints one line per feature (seen with `-- --nocapture`), adds them to the run's table
    /// (printed once every report of a whole run is in), and fails the test when a feature
    /// failed, naming each.
    pub fn finish(self) {
        let mut failures = Vec::new();
        let mut cells = Vec::new();
        for (feature, outcome) in self.outcomes() {
            let (shown, cell) = match &outcome {
                Outcome::Pass => ("pass".to_string(), "pass"),
                Outcome::Unsupported => ("unsupported".to_string(), "unsupported"),
                Outcome::KnownBug(bug) => (format!("known bug: {bug}"), "known bug"),
                Outcome::Fail(why) => {
                    failures.push(format!("{feature:?}: {why}"));
                    (
                        format!("FAIL: {}", why.lines().next().unwrap_or("")),
                        "FAIL",
                    )
                }
            };
            eprintln!("conformance | {} | {feature:?} | {shown}", self.row.name);
            cells.push((self.row.name, feature, cell));
        }
        add_to_table(cells);
        assert!(
            failures.is_empty(),
            "{} failed {} of its features:\n{}",
            self.row.name,
            failures.len(),
            failures.join("\n")
        );
    }
}

/// The cells of the reports finished so far in this run, and how many reports that is.
static TABLE: Mutex<(Vec<Cell>, usize)> = Mutex::new((Vec::new(), 0));

/// An adapter's row name, a feature, and how it went (`pass`, `unsupported`, `known bug`,
/// `FAIL`).
type Cell = (&'static str, Feature, &'static str);

/// Adds one report's cells to the run's table; when it is the last report of a whole run
/// ([`crate::REPORTS`]), prints the table, scenario by adapter, past the test harness's capture
/// of test output.
fn add_to_table(cells: Vec<Cell>) {
    let mut table = TABLE
        .lock()
        .unwrap_or_else(|poisoned| poisoned.into_inner());
    table.0.extend(cells);
    table.1 += 1;
    if table.1 == crate::REPORTS {
        let text = render_table(&table.0);
        let _ = std::io::stderr().write_all(text.as_bytes());
    }
}

/// The table as Markdown: a row per feature, a column per adapter row ([`crate::ROWS`]).
fn render_table(cells: &[Cell]) -> String {
    let adapters: Vec<&str> = crate::ROWS.iter().map(|row| row.name).collect();
    let mut features: Vec<Feature> = cells.iter().map(|(_, feature, _)| *feature).collect();
    features.sort();
    features.dedup();
    let mut text = format!(
        "\nconformance table\n\n| scenario | {} |\n",
        adapters.join(" | ")
    );
    text.push_str(&format!("| --- |{}\n", " --- |".repeat(adapters.len())));
    for feature in features {
        let row: Vec<&str> = adapters
            .iter()
            .map(|adapter| {
                cells
                    .iter()
                    .find(|(a, f, _)| a == adapter && *f == feature)
                    .map_or("", |(_, _, cell)| *cell)
            })
            .collect();
        text.push_str(&format!("| {feature:?} | {} |\n", row.join(" | ")));
    }
    text
}

/// Whether `run` is the `unsupported` error (exit 1); if not, what it was.
fn is_unsupported(run: &Run) -> Result<(), String> {
    let value: serde_json::Value = serde_json::from_str(run.stdout.trim()).unwrap_or_default();
    if value["ok"] == false && value["error"]["code"] == "unsupported" && run.code == 1 {
        Ok(())
    } else {
        Err(format!(
            "expected the `unsupported` error (exit 1), got exit {}: {}{}",
            run.code, run.stdout, run.stderr
        ))
    }
}

fn panic_text(panic: &Box<dyn std::any::Any + Send>) -> String {
    panic
        .downcast_ref::<String>()
        .cloned()
        .or_else(|| panic.downcast_ref::<&str>().map(|s| s.to_string()))
        .unwrap_or_else(|| "a panic without a message".to_string())
}
