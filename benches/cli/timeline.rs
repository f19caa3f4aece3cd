//! Per-adapter timelines (issue 22): the marks our own code writes when `DEBUGGER_TIMELINE`
//! names a file (`debugger::common::timeline`), gathered over many runs into one table of
//! medians per adapter, so where the time to a first stop goes can be read off.
//!
//! A run's marks are offsets from the moment the bench spawned the command; each label counts
//! once per run (its first occurrence), and the bench adds `exited`, when it saw the command's
//! process end.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use debugger::common::timeline::{TIMELINE_ENV, parse};

use crate::BenchResult;
use crate::table::fmt_duration;

/// The marks in the order they are meant to come; a mark not listed goes after these.
const ORDER: &[&str] = &[
    "cli started",
    "daemon ready",
    "daemon request read",
    "adapter spawned",
    "initialize answered",
    "launch sent",
    "event initialized",
    "breakpoints set",
    "configurationDone answered",
    "launch answered",
    "event process",
    "event stopped",
    "session ending",
    "disconnect answered",
    "session tree ended",
    "event exited",
    "adapter gone",
    "daemon answer written",
    "cli report printed",
    "cli exiting",
    "exited",
];

/// One timed command with the timeline on: how long it took and its marks.
pub struct Marked {
    pub elapsed: Duration,
    /// (label, offset from the command's spawn).
    pub marks: Vec<(String, Duration)>,
    pub output: std::process::Output,
}

/// The file the marks of one round's commands go to (a daemon keeps it open for its life).
pub struct MarkFile {
    path: PathBuf,
}

impl MarkFile {
    pub fn new(dir: &Path, name: &str) -> MarkFile {
        MarkFile {
            path: dir.join(format!("timeline-{name}.txt")),
        }
    }

    /// Starts a new round: the marks so far are dropped. A daemon of an earlier round that
    /// still writes goes on writing to the removed file, not to the new one.
    pub fn clear(&self) {
        let _ = std::fs::remove_file(&self.path);
    }

    /// Runs `command` with the timeline on, timing it from spawn to exit, and takes the marks
    /// written since its spawn, as offsets from it. `prefix` goes before each label (e.g.
    /// "start: "); the CLI's own `exiting` becomes `cli exiting` (the daemon's and the reaper's
    /// are left out).
    pub fn run(&self, mut command: Command, prefix: &str) -> BenchResult<Marked> {
        command.env(TIMELINE_ENV, &self.path);
        let wall = SystemTime::now();
        let began = Instant::now();
        let child = command
            .stdout(std::process::Stdio::piped())
            .stderr(std::process::Stdio::piped())
            .spawn()
            .map_err(|e| format!("run {command:?}: {e}"))?;
        let pid = child.id();
        let output = child
            .wait_with_output()
            .map_err(|e| format!("wait for {command:?}: {e}"))?;
        let elapsed = began.elapsed();
        let ended = SystemTime::now();
        let since = wall.duration_since(UNIX_EPOCH)?.as_micros();
        let base = since;
        let text = std::fs::read_to_string(&self.path).unwrap_or_default();
        let mut marks: Vec<(String, Duration)> = Vec::new();
        for mark in parse(&text).into_iter().filter(|m| m.micros >= since) {
            let label = match mark.label.as_str() {
                "exiting" if mark.pid == pid => "cli exiting".to_string(),
                "exiting" => continue,
                other => other.to_string(),
            };
            let label = format!("{prefix}{label}");
            if marks.iter().any(|(l, _)| *l == label) {
                continue;
            }
            let offset = u64::try_from(mark.micros.saturating_sub(base)).unwrap_or(u64::MAX);
            marks.push((label, Duration::from_micros(offset)));
        }
        let exited = ended.duration_since(UNIX_EPOCH)?.as_micros();
        let exited = u64::try_from(exited.saturating_sub(base)).unwrap_or(u64::MAX);
        marks.push((format!("{prefix}exited"), Duration::from_micros(exited)));
        Ok(Marked {
            elapsed,
            marks,
            output,
        })
    }
}

/// Many runs' marks, per column (adapter).
#[derive(Default)]
pub struct Timelines {
    columns: Vec<String>,
    /// label → column → offsets.
    samples: BTreeMap<String, BTreeMap<usize, Vec<Duration>>>,
}

impl Timelines {
    pub fn is_empty(&self) -> bool {
        self.samples.is_empty()
    }

    fn column(&mut self, name: &str) -> usize {
        match self.columns.iter().position(|c| c == name) {
            Some(i) => i,
            None => {
                self.columns.push(name.to_string());
                self.columns.len() - 1
            }
        }
    }

    /// Adds one run's marks to `column`.
    pub fn add(&mut self, column: &str, marks: &[(String, Duration)]) {
        let column = self.column(column);
        for (label, offset) in marks {
            self.samples
                .entry(label.clone())
                .or_default()
                .entry(column)
                .or_default()
                .push(*offset);
        }
    }

    /// The table: one row per mark, one column per adapter, each cell the median offset and,
    /// in brackets, the step from the mark above it in that column; a mark that came in fewer
    /// runs than the column has says in how many (`3/5 runs`).
    pub fn render(&self, title: &str, phases: &[&str]) -> String {
        let mut labels: Vec<&String> = self.samples.keys().collect();
        let rank = |label: &str| {
            let phase = phases
                .iter()
                .position(|p| !p.is_empty() && label.starts_with(p))
                .unwrap_or(0);
            let bare = phases
                .iter()
                .find_map(|p| label.strip_prefix(p).filter(|_| !p.is_empty()))
                .unwrap_or(label);
            let at = ORDER.iter().position(|o| *o == bare).unwrap_or(ORDER.len());
            (phase, at)
        };
        labels.sort_by_key(|l| rank(l));
        let mut out = format!("{title}\n\n| mark |");
        for c in &self.columns {
            out.push_str(&format!(" {c} |"));
        }
        out.push_str("\n| --- |");
        out.push_str(&" ---: |".repeat(self.columns.len()));
        let mut previous: Vec<Option<Duration>> = vec![None; self.columns.len()];
        // Every run has `exited` (the bench adds it), so the most of any label is the runs.
        let runs: Vec<usize> = (0..self.columns.len())
            .map(|i| {
                self.samples
                    .values()
                    .filter_map(|by_column| by_column.get(&i).map(Vec::len))
                    .max()
                    .unwrap_or(0)
            })
            .collect();
        for label in labels {
            out.push_str(&format!("\n| {label} |"));
            for (i, last) in previous.iter_mut().enumerate() {
                let cell = match self.samples[label].get(&i) {
                    Some(samples) => {
                        let median = median(samples);
                        let step = last.map_or(String::new(), |l| {
                            let step = median.saturating_sub(l);
                            format!(" (+{})", fmt_duration(step))
                        });
                        *last = Some(median);
                        let partial = if samples.len() < runs[i] {
                            format!(" {}/{} runs", samples.len(), runs[i])
                        } else {
                            String::new()
                        };
                        format!("{}{step}{partial}", fmt_duration(median))
                    }
                    None => "—".to_string(),
                };
                out.push_str(&format!(" {cell} |"));
            }
        }
        out.push('\n');
        out
    }
}

fn median(samples: &[Duration]) -> Duration {
    crate::stats::Stats::of(samples.to_vec()).median
}
