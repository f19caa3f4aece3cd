//! The results table: one row per figure, in the order the scenarios add them, printed to stdout
//! at the end (a markdown table docs/performance.md records as is), with each row also echoed to
//! stderr as it is added so a long run shows progress.
//!
//! A row with a target says PASS or MISS; the closing line counts them. The first row is the
//! hello-world floor, which later rows are set against.

use std::time::Duration;

use crate::BenchResult;
use crate::stats::Stats;

#[derive(Default)]
pub struct Table {
    rows: Vec<[String; 7]>,
    /// Each row's median, for a row of timings: what [`Table::print_beside`] compares.
    medians: Vec<Option<Duration>>,
    hello: Option<Stats>,
    misses: usize,
    /// Leads each row's progress line: which binary's table it is, when two are measured.
    label: &'static str,
}

impl Table {
    /// An empty table whose progress lines are led by `label`.
    pub fn labelled(label: &'static str) -> Table {
        Table {
            label,
            ..Table::default()
        }
    }

    /// A row of timings: runs, median and p90 from `stats`.
    pub fn row(
        &mut self,
        name: &str,
        stats: &Stats,
        figure: &str,
        target: &str,
        pass: Option<bool>,
    ) {
        if self.hello.is_none() {
            self.hello = Some(stats.clone());
        }
        self.row_text(
            name,
            &stats.runs.to_string(),
            &fmt_duration(stats.median),
            &fmt_duration(stats.p90),
            figure,
            target,
            pass,
        );
        if let Some(last) = self.medians.last_mut() {
            *last = Some(stats.median);
        }
    }

    /// A row whose cells are given as text (a single run, or a figure that is not a time).
    #[allow(clippy::too_many_arguments)]
    pub fn row_text(
        &mut self,
        name: &str,
        runs: &str,
        median: &str,
        p90: &str,
        figure: &str,
        target: &str,
        pass: Option<bool>,
    ) {
        let verdict = match pass {
            Some(true) => "PASS",
            Some(false) => {
                self.misses += 1;
                "MISS"
            }
            None => "",
        };
        self.rows.push([
            name.to_string(),
            runs.to_string(),
            median.to_string(),
            p90.to_string(),
            figure.to_string(),
            target.to_string(),
            verdict.to_string(),
        ]);
        self.medians.push(None);
        eprintln!(
            "bench: {}{name}: {median} (p90 {p90}) {figure} {verdict}",
            self.label
        );
    }

    /// The hello-world floor (the first row).
    pub fn floor(&self) -> BenchResult<Stats> {
        self.hello
            .clone()
            .ok_or_else(|| "the floor was not measured first".into())
    }

    pub fn print(&self) {
        let header = [
            "benchmark",
            "runs",
            "median",
            "p90",
            "figure",
            "target",
            "result",
        ];
        let mut widths = header.map(|h| h.chars().count());
        for row in &self.rows {
            for (w, cell) in widths.iter_mut().zip(row) {
                *w = (*w).max(cell.chars().count());
            }
        }
        let line = |cells: &[String; 7]| {
            let padded: Vec<String> = cells
                .iter()
                .zip(widths)
                .map(|(c, w)| format!("{c}{}", " ".repeat(w - c.chars().count())))
                .collect();
            format!("| {} |", padded.join(" | "))
        };
        println!("{}", line(&header.map(String::from)));
        println!(
            "|{}|",
            widths
                .iter()
                .map(|w| "-".repeat(w + 2))
                .collect::<Vec<_>>()
                .join("|")
        );
        for row in &self.rows {
            println!("{}", line(row));
        }
        let targets = self.rows.iter().filter(|r| !r[6].is_empty()).count();
        println!(
            "\n{} of {targets} targets met; {} missed.",
            targets - self.misses,
            self.misses
        );
    }
}

impl Table {
    /// Each row beside the same row of `before`, a run of another binary on the same machine
    /// in the same process (`DEBUGGER_BENCH_BASELINE`): both medians and their ratio, or both
    /// figures for a row that is not a time.
    pub fn print_beside(&self, before: &Table) {
        println!("| benchmark | before (median) | after (median) | after / before |");
        println!("|---|---|---|---|");
        for (index, (row, median)) in self.rows.iter().zip(&self.medians).enumerate() {
            // Both ran the same scenarios in the same order, so a row is matched by its place
            // first: two rows may share a name (the native twin of two questions).
            let same_place = before.rows.get(index).is_some_and(|r| r[0] == row[0]);
            let at = match same_place {
                true => index,
                false => match before.rows.iter().position(|r| r[0] == row[0]) {
                    Some(at) => at,
                    None => continue,
                },
            };
            let (old_row, old_median) = (&before.rows[at], before.medians[at]);
            let ratio = match (old_median, median) {
                (Some(old), Some(new)) if !old.is_zero() => {
                    format!("{:.2}", new.as_secs_f64() / old.as_secs_f64())
                }
                _ => String::new(),
            };
            let cell = |r: &[String; 7]| {
                if r[2].is_empty() {
                    r[4].clone()
                } else {
                    r[2].clone()
                }
            };
            println!(
                "| {} | {} | {} | {ratio} |",
                row[0],
                cell(old_row),
                cell(row)
            );
        }
    }
}

/// A duration with three significant figures or so, in ms below a second.
pub fn fmt_duration(d: Duration) -> String {
    let ms = d.as_secs_f64() * 1000.0;
    if ms >= 1000.0 {
        format!("{:.3} s", ms / 1000.0)
    } else if ms >= 100.0 {
        format!("{ms:.0} ms")
    } else if ms >= 10.0 {
        format!("{ms:.1} ms")
    } else {
        format!("{ms:.2} ms")
    }
}
