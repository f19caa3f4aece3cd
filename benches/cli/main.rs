//! The CLI against its physical floor (issue 7):
//! `cargo bench --bench cli [-- [--quick] [SCENARIO...]]`.
//!
//! Every agent action is one CLI process, so a call costs a process start, a round trip to the
//! session's daemon, and the adapter's own work. This bench measures each of those apart:
//!
//! - the floors: a release-mode hello-world binary and `debugger --version`;
//! - `status`, `backtrace`, `locals`, `print x` through the CLI at a breakpoint, beside the same
//!   DAP requests sent in-process with the crate's own `DapClient` (the adapter's own time);
//! - `next --wait`, and `start --break f` + `continue --wait`, each against the same thing driven
//!   in-process (no CLI, no daemon);
//! - scale: 1,000 breakpoints in 100 files, a 1 MiB output burst, `locals` beside a
//!   100,000-element array, 20 sessions at once;
//! - the daemon's peak RSS, idle at a stop and under a 2-million-line flood;
//! - the time to a first stop per adapter (`first-stop-lldb`, `-gdb`, `-pdb`, `-debugpy`, `-delve`,
//!   `-node`): `probe` beside the native debugger's batch mode, and the timeline of marks our
//!   code writes under `DEBUGGER_TIMELINE` (`timeline.rs`), printed after the table;
//! - the JVM against `jdb` (`java-first-stop`, `java-step`, `java-locals`): the first stop, a
//!   step, and `locals` beside a 10,000-element list and map.
//!
//! It prints one table with medians, p90s, the ratios the targets use, and PASS/MISS against
//! issue 7's targets (docs/performance.md records the runs). `--quick` runs fewer iterations;
//! naming scenarios runs only those (and the ones whose figures they compare against), so one
//! part can be checked without minutes of both cores. The binary measured is the one users get,
//! built by `cargo build --release` into `target/bench-release` (not the one `cargo bench` links
//! beside the bench, which carries the dev-dependencies' features: see
//! `scenarios::release_build`); `DEBUGGER_BENCH_BIN=PATH` measures another build instead.
//! `DEBUGGER_BENCH_BASELINE=PATH` measures a second build in the same run, each scenario right
//! after the first build's, and prints the two side by side: a change's before and after.
//!
//! The rooms: `scenarios/` holds what is measured, one file per family, and the list that runs
//! them in table order; `session.rs` runs the real binary through the integration tests' own
//! session harness (`tests/common`, included below), so each session gets a private runtime
//! dir, state dir and config and is stopped even when a step fails; `inprocess.rs` drives
//! lldb-dap with the crate's DAP client for the adapter's own time; `stats.rs` and `table.rs`
//! turn samples into the printed table; `machine.rs` reads what it needs from /proc. The
//! programs debugged are `fixtures/c/` files, built with the tests' `build()`.

// The tests' harness, shared rather than copied. Its own `#![allow(dead_code)]` covers the
// helpers only the tests use (mock adapter, Go builds, JSON assertions).
#[path = "../../tests/common/mod.rs"]
mod common;
mod inprocess;
mod machine;
mod scenarios;
mod session;
mod stats;
mod table;
mod timeline;

use std::process::ExitCode;
use std::time::{Duration, Instant};

use scenarios::{Context, Plan};
use table::Table;

type BenchResult<T> = Result<T, Box<dyn std::error::Error>>;

/// How long any one wait for the adapter may take before the bench gives up.
const WAIT_LIMIT: Duration = Duration::from_secs(120);
const MIB: f64 = 1024.0 * 1024.0;

fn main() -> ExitCode {
    match run() {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("bench: error: {e}");
            ExitCode::FAILURE
        }
    }
}

/// The whole run; every session it started is stopped by the time it returns, failed or not.
fn run() -> BenchResult<()> {
    // `cargo bench` passes `--bench`; other flags but `--quick` are ignored with a note, and
    // every other argument names scenarios to run.
    let mut quick = false;
    let mut filters = Vec::new();
    for arg in std::env::args().skip(1) {
        match arg.as_str() {
            "--quick" => quick = true,
            "--bench" => {}
            flag if flag.starts_with('-') => {
                eprintln!("note: ignoring argument '{flag}' (only --quick is understood)")
            }
            _ => filters.push(arg),
        }
    }
    let selected = scenarios::select(&filters)?;
    let started = Instant::now();
    let load_before = machine::load_average();
    let plan = Plan::new(quick);
    let mut context = Context::new(plan)?;
    // Another build measured in the same run, each scenario right after the measured one's, so
    // that a change is judged against its before on the same machine at the same moment.
    let mut baseline = match std::env::var_os("DEBUGGER_BENCH_BASELINE") {
        Some(bin) => Some(Context::measuring(
            plan,
            bin.into(),
            Table::labelled("before: "),
        )?),
        None => None,
    };
    eprintln!(
        "bench: {} mode, {}, lldb-dap at {}, scenarios: {}",
        if quick { "quick" } else { "full" },
        context.bin().display(),
        context.inproc.lldb_path().display(),
        selected
            .iter()
            .map(|s| s.name)
            .collect::<Vec<_>>()
            .join(", ")
    );
    for scenario in selected {
        (scenario.run)(&mut context)?;
        if let Some(baseline) = baseline.as_mut() {
            (scenario.run)(baseline)?;
        }
    }
    context.table.print();
    context.print_timelines();
    if let Some(baseline) = &baseline {
        println!(
            "\nBefore ({}) and after ({}), scenario by scenario in one run:\n",
            baseline.bin().display(),
            context.bin().display()
        );
        context.table.print_beside(&baseline.table);
    }
    println!(
        "Load average (1/5/15 min) before: {load_before}; after: {}. Took {:.0} s.",
        machine::load_average(),
        started.elapsed().as_secs_f64()
    );
    Ok(())
}
