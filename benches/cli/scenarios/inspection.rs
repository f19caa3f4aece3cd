//! The floors and the cheap calls: a hello-world process, `debugger --version`, then `status`,
//! `backtrace`, `locals` and `print x` at a breakpoint in `square` (fixtures/c/ledger.c), each
//! beside what it is judged against (the floor, the daemon round trip without a CLI process, the
//! same DAP requests sent in-process), and the daemon's memory after serving them all.
//!
//! They run round-robin: each round runs every command once (and the same DAP requests
//! in-process), so load from elsewhere on the machine touches all of them alike and the ratios
//! stay fair.

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use debugger::ipc::protocol::Command as IpcCommand;

use super::Context;
use crate::BenchResult;
use crate::common::build;
use crate::inprocess::{InProcess, Probe, Stopped};
use crate::session::{CliSession, expect_contains, path_str};
use crate::stats::Stats;
use crate::table::Table;

/// The CLI calls of a round, after the two floors.
const CLI: [&[&str]; 4] = [&["status"], &["backtrace"], &["locals"], &["print", "x"]];
/// The in-process requests behind `backtrace`, `locals` and `print x`, in that order.
const PROBES: [Probe; 3] = [Probe::StackTrace, Probe::Locals, Probe::Evaluate];
/// Timings per round: hello-world, `--version`, the CLI calls, `status` over IPC, the probes.
const SERIES: usize = 3 + CLI.len() + PROBES.len();

pub fn floors_and_inspection(ctx: &mut Context) -> BenchResult<()> {
    let hello = hello_world(ctx.work.path())?;
    let ledger = build("c/ledger.c");
    let session = ctx.session();
    session.run(&["start", path_str(&ledger)?, "--break", "square"])?;
    let printed = session.run(&["print", "x"])?;
    expect_contains(&printed, "3", "print x at square(3)")?;
    let stopped = ctx.inproc.stop_at(&ledger, "square")?;
    let rounds = rounds(ctx, &hello, &session, &stopped);
    ctx.inproc.finish(stopped);
    report(&mut ctx.table, rounds?.map(Stats::of));

    // Memory after use: this daemon has served every call above and sits at a stop.
    super::memory::idle_rss_row(
        ctx,
        session.daemon_pid()?,
        "daemon peak RSS, stopped (after the calls)",
    )
}

/// The warm-up rounds, then the timed ones, each series in [`SERIES`] order.
fn rounds(
    ctx: &Context,
    hello: &Path,
    session: &CliSession,
    stopped: &Stopped,
) -> BenchResult<[Vec<Duration>; SERIES]> {
    let plan = &ctx.plan;
    let inproc: &InProcess = &ctx.inproc;
    let mut samples: [Vec<Duration>; SERIES] =
        std::array::from_fn(|_| Vec::with_capacity(plan.cheap));
    for round in 0..plan.warmup + plan.cheap {
        let mut times = vec![
            timed_output(Command::new(hello).stdin(Stdio::null()), "hello-world")?,
            session.timed(&["--version"])?.0,
        ];
        for args in CLI {
            times.push(session.timed(args)?.0);
        }
        times.push(session.ipc(IpcCommand::Status)?);
        for probe in PROBES {
            times.push(inproc.probe(stopped, probe)?);
        }
        if round >= plan.warmup {
            for (all, time) in samples.iter_mut().zip(times) {
                all.push(time);
            }
        }
    }
    Ok(samples)
}

/// The rows of the rounds: the floor first, since later rows are set against it.
fn report(table: &mut Table, series: [Stats; SERIES]) {
    let [
        hello,
        version,
        status,
        backtrace,
        locals,
        print,
        status_ipc,
        stack_trace,
        variables,
        evaluate,
    ] = series;
    table.row("hello-world (rustc -O)", &hello, "the floor", "—", None);
    let ratio = version.median_ratio(&hello);
    table.row(
        "debugger --version",
        &version,
        &format!("{ratio:.2}× hello"),
        "≤ 1.3× hello",
        Some(ratio <= 1.3),
    );
    let ratio = status.median_ratio(&hello);
    table.row(
        "status",
        &status,
        &format!("{ratio:.2}× hello"),
        "≤ 2.0× hello",
        Some(ratio <= 2.0),
    );
    table.row(
        "  status's daemon round trip (no CLI process)",
        &status_ipc,
        &format!(
            "CLI process adds {:.2} ms",
            (status.median.as_secs_f64() - status_ipc.median.as_secs_f64()) * 1000.0
        ),
        "—",
        None,
    );
    for (name, stats, what, adapter) in [
        (
            "backtrace",
            backtrace,
            "stackTrace (levels 32)",
            stack_trace,
        ),
        ("locals", locals, "scopes + variables", variables),
        ("print x", print, "evaluate x", evaluate),
    ] {
        let over = stats.median.as_secs_f64() - adapter.median.as_secs_f64();
        let ratio = over / hello.median.as_secs_f64();
        table.row(
            name,
            &stats,
            &format!("{ratio:.2}× hello + adapter"),
            "≤ 2.0× hello + adapter",
            Some(ratio <= 2.0),
        );
        table.row(
            &format!("  in-process {what}"),
            &adapter,
            "adapter's own time",
            "—",
            None,
        );
    }
}

/// `fn main() { println!("hello") }` built with `rustc -O` in `dir`: the cheapest process a
/// call could be, which the CLI rows are set against.
pub(super) fn hello_world(dir: &Path) -> BenchResult<PathBuf> {
    let source = dir.join("hello.rs");
    std::fs::write(&source, "fn main() {\n    println!(\"hello\");\n}\n")
        .map_err(|e| format!("write {}: {e}", source.display()))?;
    let out = dir.join("hello");
    let status = Command::new(std::env::var_os("RUSTC").unwrap_or_else(|| "rustc".into()))
        .args(["-O", "--edition", "2021", "-o"])
        .arg(&out)
        .arg(&source)
        .status()
        .map_err(|e| format!("run rustc: {e}"))?;
    if !status.success() {
        return Err("rustc failed on the hello-world program".into());
    }
    Ok(out)
}

/// Runs a command to completion with its output captured, and times it.
pub(super) fn timed_output(command: &mut Command, what: &str) -> BenchResult<Duration> {
    let began = Instant::now();
    let out = command.output().map_err(|e| format!("run {what}: {e}"))?;
    let elapsed = began.elapsed();
    if !out.status.success() {
        return Err(format!("{what} failed with {}", out.status).into());
    }
    Ok(elapsed)
}
