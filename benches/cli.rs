//! The CLI against its physical floor (issue 7): `cargo bench --bench cli [-- --quick]`.
//!
//! Every agent action is one CLI process, so a call costs a process start, a round trip to the
//! session's daemon, and the adapter's own work. This bench measures each of those apart:
//!
//! - the floors: a release-mode hello-world binary and `debugger --version`;
//! - `status`, `backtrace`, `locals`, `print x` through the CLI at a breakpoint, beside the same
//!   DAP requests sent in-process with the crate's own [`DapClient`] (the adapter's own time);
//! - `next --wait`, and `start --break f` + `continue --wait`, each against the same thing driven
//!   in-process (no CLI, no daemon);
//! - scale: 1,000 breakpoints in 100 files, a 1 MiB output burst, `locals` beside a
//!   100,000-element array, 20 sessions at once;
//! - the daemon's peak RSS, idle at a stop and under a 2-million-line flood.
//!
//! Everything runs in a private temporary directory (runtime dir 0700, state dir, config, the
//! compiled fixtures), with a unique session name per session, and every session is stopped,
//! even when a step fails. It prints one table with medians, p90s, the ratios the targets use,
//! and PASS/MISS against issue 7's targets. `--quick` runs fewer iterations;
//! `DEBUGGER_BENCH_BIN=PATH` measures another build of the binary instead of the one cargo built.

use std::fs;
use std::os::unix::fs::DirBuilderExt;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::sync::Arc;
use std::sync::atomic::{AtomicU32, Ordering};
use std::time::{Duration, Instant};

use serde_json::{Value, json};
use tokio::sync::mpsc;

use debugger::adapters::DebugAdapter;
use debugger::adapters::lldb::LldbDap;
use debugger::adapters::process::AdapterProcess;
use debugger::cli::client::{DaemonClient, SessionPaths};
use debugger::common::config::AdapterConfig;
use debugger::common::location::Location;
use debugger::common::paths;
use debugger::dap::DapClient;
use debugger::dap::types::Event;
use debugger::dap::types::initialize_arguments;
use debugger::ipc::protocol::{
    BreakpointSpec, Command as IpcCommand, LaunchSpec, ResumeAction, WaitSpec,
};

type BenchResult<T> = Result<T, Box<dyn std::error::Error>>;

/// How long any one wait for the adapter may take before the bench gives up.
const WAIT_LIMIT: Duration = Duration::from_secs(120);
/// The daemon's default output buffer (8 MiB), written into the bench's config explicitly.
const BUFFER_BYTES: u64 = 8 * 1024 * 1024;
const MIB: f64 = 1024.0 * 1024.0;

fn main() -> BenchResult<()> {
    // `cargo bench` passes `--bench`; anything else but `--quick` is ignored with a note.
    let mut quick = false;
    for arg in std::env::args().skip(1) {
        match arg.as_str() {
            "--quick" => quick = true,
            "--bench" => {}
            other => eprintln!("note: ignoring argument '{other}' (only --quick is understood)"),
        }
    }
    let plan = Plan::new(quick);
    let started = Instant::now();
    let load_before = load_average();
    let bench = Bench::new()?;
    eprintln!(
        "bench: {} mode, {}, lldb-dap at {}, work dir {}",
        if quick { "quick" } else { "full" },
        bench.bin.display(),
        bench.lldb.executable().display(),
        bench.dir.display()
    );
    let mut table = Table::default();
    run_all(&bench, &plan, &mut table)?;
    table.print();
    println!(
        "Load average (1/5/15 min) before: {load_before}; after: {}. Took {:.0} s.",
        load_average(),
        started.elapsed().as_secs_f64()
    );
    Ok(())
}

/// Iteration counts: full, or `--quick`.
struct Plan {
    cheap: usize,
    steps: usize,
    launches: usize,
    heavy: usize,
    crowds: usize,
    warmup: usize,
}

impl Plan {
    fn new(quick: bool) -> Plan {
        if quick {
            Plan {
                cheap: 30,
                steps: 30,
                launches: 5,
                heavy: 5,
                crowds: 1,
                warmup: 3,
            }
        } else {
            Plan {
                cheap: 200,
                steps: 150,
                launches: 25,
                heavy: 20,
                crowds: 3,
                warmup: 10,
            }
        }
    }
}

fn run_all(bench: &Bench, plan: &Plan, table: &mut Table) -> BenchResult<()> {
    let inproc = InProcess::new(bench)?;

    // 1 + 2. The floors and the inspection commands, round-robin: each round runs every
    // command once (and the same DAP requests in-process), so load from elsewhere on the
    // machine touches all of them alike and the ratios stay fair.
    let hello = bench.hello_world()?;
    let ledger = bench.compile_c(&bench.fixture("c/ledger.c"), "ledger", &[])?;
    let session = bench.session("inspect")?;
    session.run(&["start", path_str(&ledger)?, "--break", "square"])?;
    session.run(&["continue", "--wait"])?;
    let printed = session.run(&["print", "x"])?;
    expect_contains(&printed, "3", "print x at square(3)")?;
    const CLI: [&[&str]; 4] = [&["status"], &["backtrace"], &["locals"], &["print", "x"]];
    const PROBES: [Probe; 3] = [Probe::StackTrace, Probe::Locals, Probe::Evaluate];
    let stopped = inproc.stop_at(&ledger, "square")?;
    let rounds = (|| -> BenchResult<Vec<Vec<Duration>>> {
        let mut samples = vec![Vec::with_capacity(plan.cheap); 3 + CLI.len() + PROBES.len()];
        for round in 0..plan.warmup + plan.cheap {
            let mut times = vec![
                timed_output(Command::new(&hello).stdin(Stdio::null()), "hello-world")?,
                timed_output(
                    &mut bench.command(None, &["--version"]),
                    "debugger --version",
                )?,
            ];
            for args in CLI {
                times.push(session.timed(args)?.0);
            }
            times.push(session.ipc(IpcCommand::Status)?);
            for probe in PROBES {
                times.push(inproc.probe(&stopped, probe)?);
            }
            if round >= plan.warmup {
                for (all, time) in samples.iter_mut().zip(times) {
                    all.push(time);
                }
            }
        }
        Ok(samples)
    })();
    inproc.finish(stopped);
    let mut rounds = rounds?.into_iter().map(Stats::of);
    let mut next_stats = || rounds.next().ok_or("a missing sample set");
    let hello_stats = next_stats()?;
    let version = next_stats()?;
    let status = next_stats()?;
    let inspected = [next_stats()?, next_stats()?, next_stats()?];
    let status_ipc = next_stats()?;
    let adapter = [next_stats()?, next_stats()?, next_stats()?];

    table.row(
        "hello-world (rustc -O)",
        &hello_stats,
        "the floor",
        "—",
        None,
    );
    let ratio = version.median_ratio(&hello_stats);
    table.row(
        "debugger --version",
        &version,
        &format!("{ratio:.2}× hello"),
        "≤ 1.3× hello",
        Some(ratio <= 1.3),
    );
    let ratio = status.median_ratio(&hello_stats);
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
    for ((name, stats), (what, adapter)) in ["backtrace", "locals", "print x"]
        .iter()
        .zip(&inspected)
        .zip(
            ["stackTrace (levels 32)", "scopes + variables", "evaluate x"]
                .iter()
                .zip(&adapter),
        )
    {
        let over = stats.median.as_secs_f64() - adapter.median.as_secs_f64();
        let ratio = over / hello_stats.median.as_secs_f64();
        table.row(
            name,
            stats,
            &format!("{ratio:.2}× hello + adapter"),
            "≤ 2.0× hello + adapter",
            Some(ratio <= 2.0),
        );
        table.row(
            &format!("  in-process {what}"),
            adapter,
            "adapter's own time",
            "—",
            None,
        );
    }
    // 6a. Memory after use: this daemon has served every call above and sits at a stop.
    let used = vm_hwm_mib(session.daemon_pid()?)?;
    table.row_text(
        "daemon peak RSS, stopped (after the calls)",
        "1",
        &format!("{used:.1} MiB"),
        "—",
        "VmHWM",
        "≤ 16 MiB",
        Some(used <= 16.0),
    );
    drop(session);

    // 3. `next --wait` against the in-process step, alternately on two stopped sessions of the
    // same program (so the in-process adapter idles between steps as the CLI's does).
    let steploop = bench.write_source("steploop.c", STEPLOOP_C)?;
    let steploop = bench.compile_c(&steploop, "steploop", &[])?;
    let session = bench.session("step")?;
    session.run(&["start", path_str(&steploop)?, "--break", "main"])?;
    session.run(&["continue", "--wait"])?;
    let mut stepper = inproc.stop_at(&steploop, "main")?;
    let steps = (|| -> BenchResult<[Vec<Duration>; 4]> {
        let mut samples: [Vec<Duration>; 4] = Default::default();
        let next = || IpcCommand::Resume {
            action: ResumeAction::Next,
            wait: Some(WaitSpec {
                timeout_secs: WAIT_LIMIT.as_secs_f64(),
            }),
        };
        for round in 0..plan.warmup + plan.steps {
            let (cli, out) = session.timed(&["next", "--wait"])?;
            expect_contains(&out, "Stepped", "next --wait")?;
            let ipc = session.ipc(next())?;
            let shallow = inproc.step(&mut stepper, 1)?;
            let deep = inproc.step(&mut stepper, 32)?;
            if round >= plan.warmup {
                for (all, time) in samples.iter_mut().zip([cli, ipc, shallow, deep]) {
                    all.push(time);
                }
            }
        }
        Ok(samples)
    })();
    inproc.finish(stepper);
    drop(session);
    let [cli_step, ipc_step, inproc_step, inproc_step32] = steps?.map(Stats::of);
    let over = (cli_step.median.as_secs_f64() - inproc_step.median.as_secs_f64()) * 1000.0;
    table.row(
        "next --wait",
        &cli_step,
        &format!("{over:+.2} ms vs in-process"),
        "≤ in-process + 2 ms",
        Some(over <= 2.0),
    );
    table.row(
        "  next --wait's daemon round trip (no CLI process)",
        &ipc_step,
        &format!(
            "{:+.2} ms vs in-process",
            (ipc_step.median.as_secs_f64() - inproc_step.median.as_secs_f64()) * 1000.0
        ),
        "—",
        None,
    );
    table.row(
        "  in-process next → stopped → stackTrace(1)",
        &inproc_step,
        "adapter's own time",
        "—",
        None,
    );
    table.row(
        "  in-process, stackTrace(32) as the daemon asks",
        &inproc_step32,
        "adapter's own time",
        "—",
        None,
    );

    // 4. Start to breakpoint, CLI and in-process alternately.
    let mut cli_launch = Vec::new();
    let mut inproc_launch = Vec::new();
    for i in 0..plan.launches + 1 {
        let session = bench.session("launch")?;
        let began = Instant::now();
        session.run(&["start", path_str(&ledger)?, "--break", "apply"])?;
        let stopped = session.run(&["continue", "--wait"])?;
        let elapsed = began.elapsed();
        expect_contains(&stopped, "in apply", "continue --wait to apply")?;
        drop(session);
        let in_process = inproc.launch_to_breakpoint(&ledger)?;
        // The first of each is a warm-up (page cache, lldb's symbol caches).
        if i > 0 {
            cli_launch.push(elapsed);
            inproc_launch.push(in_process);
        }
    }
    let cli_launch = Stats::of(cli_launch);
    let inproc_launch = Stats::of(inproc_launch);
    let ratio = cli_launch.median_ratio(&inproc_launch);
    table.row(
        "start --break apply + continue --wait",
        &cli_launch,
        &format!("{ratio:.2}× in-process"),
        "≤ 1.1× in-process",
        Some(ratio <= 1.1),
    );
    table.row(
        "  in-process launch to breakpoint",
        &inproc_launch,
        "spawn → … → stopped → stackTrace(1)",
        "—",
        None,
    );

    // 5a. 1,000 breakpoints across 100 files.
    breakpoints_at_scale(bench, &inproc, plan, &cli_launch, table)?;

    // 5b. A 1 MiB burst drained with `output`.
    {
        let burst = bench.write_source("burst.c", BURST_C)?;
        let burst = bench.compile_c(&burst, "burst", &[])?;
        let session = bench.session("burst")?;
        let began = Instant::now();
        session.run(&["start", path_str(&burst)?, "--break", "burst_done"])?;
        session.run(&["continue", "--wait"])?;
        let to_stop = began.elapsed();
        let expected = BURST_LINES * BURST_LINE_BYTES;
        let delivered = wait_for_output(&session, expected)?;
        let drained = Stats::of(time_n(plan.heavy, 2, || {
            let (elapsed, out) = session.timed(&["output"])?;
            if out.stdout.len() < expected {
                return Err(format!(
                    "output printed {} bytes, expected {expected}",
                    out.stdout.len()
                )
                .into());
            }
            Ok(elapsed)
        })?);
        table.row(
            "output (1 MiB buffered)",
            &drained,
            &format!(
                "{:.0} MiB/s; start→stop {:.0} ms",
                delivered as f64 / MIB / drained.median.as_secs_f64(),
                to_stop.as_secs_f64() * 1000.0
            ),
            "—",
            None,
        );
    }

    // 5c. `locals` beside a 100,000-element array.
    {
        let big_c = bench.fixture("c/big.c");
        let line = marker_line(&big_c, "@big_ready")?;
        let big = bench.compile_c(&big_c, "big", &[])?;
        let session = bench.session("big")?;
        let location = format!("{}:{line}", path_str(&big_c)?);
        session.run(&["start", path_str(&big)?, "--break", &location])?;
        session.run(&["continue", "--wait"])?;
        let mut shown = (0, 0);
        let stats = Stats::of(time_n(plan.heavy, 2, || {
            let (elapsed, out) = session.timed(&["locals"])?;
            shown = (out.stdout.len(), out.stdout.split(|b| *b == b'\n').count());
            Ok(elapsed)
        })?);
        let capped = shown.0 < 64 * 1024;
        table.row(
            "locals, int big[100000] in frame",
            &stats,
            &format!("{} lines, {} bytes shown", shown.1, shown.0),
            "≤ 0.5 s, capped",
            Some(stats.median <= Duration::from_millis(500) && capped),
        );
    }

    // 5d. 20 sessions at once.
    {
        let mut runs = Vec::new();
        for _ in 0..plan.crowds {
            runs.push(twenty_sessions(bench, &ledger)?);
        }
        let stats = Stats::of(runs);
        let ratio = stats.median_ratio(&cli_launch);
        table.row(
            "20 sessions at once, all at a breakpoint",
            &stats,
            &format!("{ratio:.1}× one session ({} cores)", cores()),
            "—",
            None,
        );
    }

    // 6. Memory: a fresh session idle at a stop, and the flood.
    {
        let session = bench.session("idle")?;
        session.run(&["start", path_str(&ledger)?, "--break", "apply"])?;
        session.run(&["continue", "--wait"])?;
        session.run(&["backtrace"])?;
        session.run(&["locals"])?;
        let used = vm_hwm_mib(session.daemon_pid()?)?;
        table.row_text(
            "daemon peak RSS, idle at a breakpoint",
            "1",
            &format!("{used:.1} MiB"),
            "—",
            "VmHWM",
            "≤ 16 MiB",
            Some(used <= 16.0),
        );
    }
    {
        let flood = bench.compile_c(&bench.fixture("c/flood.c"), "flood", &[])?;
        let session = bench.session("flood")?;
        let began = Instant::now();
        session.run(&["start", path_str(&flood)?])?;
        let ended = session.run(&["await", "--timeout", "300"])?;
        let elapsed = began.elapsed();
        expect_contains(&ended, "exited", "await the flood's end")?;
        let used = vm_hwm_mib(session.daemon_pid()?)?;
        let limit = BUFFER_BYTES as f64 / MIB + 16.0;
        table.row_text(
            "daemon peak RSS, 2M-line flood",
            "1",
            &format!("{used:.1} MiB"),
            "—",
            &format!("{:.1} s to drain ~25 MB", elapsed.as_secs_f64()),
            &format!("≤ {limit:.0} MiB (buffer + 16)"),
            Some(used <= limit),
        );
    }
    Ok(())
}

fn breakpoints_at_scale(
    bench: &Bench,
    inproc: &InProcess,
    plan: &Plan,
    plain_launch: &Stats,
    table: &mut Table,
) -> BenchResult<()> {
    let (program, files) = bench.many_files_program()?;
    let locations: Vec<String> = files
        .iter()
        .flat_map(|file| MANY_LINES.map(move |line| format!("{}:{line}", file.display())))
        .collect();

    // Through the CLI, one `breakpoint add` at a time, on a session stopped in main.
    let session = bench.session("bps")?;
    session.run(&["start", path_str(&program)?, "--break", "main"])?;
    session.run(&["continue", "--wait"])?;
    let mut adds = Vec::with_capacity(locations.len());
    let began = Instant::now();
    for location in &locations {
        let (elapsed, _) = session.timed(&["breakpoint", "add", location])?;
        adds.push(elapsed);
    }
    let total = began.elapsed();
    let adds = Stats::of(adds);
    let (listed, verified) = listed_and_verified(&session)?;
    table.row_text(
        "1,000 breakpoint adds (100 files), one per call",
        "1",
        &fmt_duration(total),
        "—",
        &format!("{verified} of {listed} listed verified"),
        "—",
        None,
    );
    let per_add = adds.median_ratio(&table.floor()?);
    table.row(
        "  one breakpoint add",
        &adds,
        &format!("{per_add:.2}× hello"),
        "—",
        None,
    );
    let listing = session.stats_n(plan.heavy, 2, &["breakpoint", "list"])?;
    table.row("breakpoint list (1,001)", &listing, "—", "—", None);

    // The same adds again, sent to the daemon from this process: the CLI process's share.
    session.run(&["breakpoint", "remove", "--all"])?;
    let mut ipc_adds = Vec::with_capacity(locations.len());
    let began = Instant::now();
    for file in &files {
        for line in MANY_LINES {
            ipc_adds.push(session.ipc(IpcCommand::BreakpointAdd(BreakpointSpec {
                location: Location::Line {
                    file: file.clone(),
                    line,
                },
                requested: None,
                condition: None,
                hit_count: None,
                log_message: None,
            }))?);
        }
    }
    let ipc_total = began.elapsed();
    let ipc_adds = Stats::of(ipc_adds);
    table.row(
        "  one add's daemon round trip (no CLI process)",
        &ipc_adds,
        &format!("1,000 in {}", fmt_duration(ipc_total)),
        "—",
        None,
    );
    drop(session);

    // All 1,000 in one `breakpoint add LOC...`: each file's list goes to the adapter once.
    let session = bench.session("bps-batch")?;
    session.run(&["start", path_str(&program)?, "--break", "main"])?;
    session.run(&["continue", "--wait"])?;
    let mut args: Vec<&str> = vec!["breakpoint", "add"];
    args.extend(locations.iter().map(String::as_str));
    let (batch, _) = session.timed(&args)?;
    let (listed, verified) = listed_and_verified(&session)?;
    table.row_text(
        "1,000 breakpoints in one `breakpoint add` (100 files)",
        "1",
        &fmt_duration(batch),
        "—",
        &format!("{verified} of {listed} listed verified"),
        "≤ 1 s",
        Some(batch <= Duration::from_secs(1) && verified == locations.len() + 1),
    );
    drop(session);

    // The same 1,000 incremental setBreakpoints, in-process.
    let adapter = inproc.incremental_breakpoints(&program, &files)?;
    table.row_text(
        "  in-process: the same 1,000 setBreakpoints",
        "1",
        &fmt_duration(adapter.incremental),
        "—",
        "adapter's own time",
        "—",
        None,
    );
    table.row_text(
        "  in-process: 100 setBreakpoints of 10 (batched)",
        "1",
        &fmt_duration(adapter.batched),
        "—",
        "adapter's own time",
        "—",
        None,
    );
    let adapter_each = Stats::of(adapter.each);
    table.row(
        "  in-process: one setBreakpoints",
        &adapter_each,
        "adapter's own time",
        "—",
        None,
    );

    // All 1,000 in one `start`, to the first stop.
    let session = bench.session("bps-start")?;
    let mut args: Vec<&str> = vec!["start", path_str(&program)?, "--break", "main"];
    for location in &locations {
        args.push("--break");
        args.push(location);
    }
    let began = Instant::now();
    session.run(&args)?;
    session.run(&["continue", "--wait"])?;
    let one_shot = began.elapsed();
    table.row_text(
        "  start -b ×1,001 + continue --wait",
        "1",
        &fmt_duration(one_shot),
        "—",
        &format!(
            "{:+.0} ms over a plain start",
            (one_shot.as_secs_f64() - plain_launch.median.as_secs_f64()) * 1000.0
        ),
        "—",
        None,
    );
    Ok(())
}

/// How many breakpoints a session lists, and how many of them are verified.
fn listed_and_verified(session: &BenchSession<'_>) -> BenchResult<(usize, usize)> {
    let list = session.run_json(&["breakpoint", "list"])?;
    let all = list["breakpoints"]
        .as_array()
        .map_or(&[][..], Vec::as_slice);
    let verified = all.iter().filter(|b| b["verified"] == json!(true)).count();
    Ok((all.len(), verified))
}

/// Starts 20 sessions in parallel and returns the time until all are stopped at `apply`.
fn twenty_sessions(bench: &Bench, program: &Path) -> BenchResult<Duration> {
    let program = path_str(program)?;
    let sessions: Vec<BenchSession<'_>> = (0..20)
        .map(|_| bench.session("crowd"))
        .collect::<BenchResult<_>>()?;
    let began = Instant::now();
    let results: Vec<Result<(), String>> = std::thread::scope(|scope| {
        let handles: Vec<_> = sessions
            .iter()
            .map(|session| {
                scope.spawn(move || -> Result<(), String> {
                    session
                        .run(&["start", program, "--break", "apply"])
                        .map_err(|e| e.to_string())?;
                    let out = session
                        .run(&["continue", "--wait"])
                        .map_err(|e| e.to_string())?;
                    expect_contains(&out, "in apply", "continue --wait").map_err(|e| e.to_string())
                })
            })
            .collect();
        handles
            .into_iter()
            .map(|h| {
                h.join()
                    .unwrap_or_else(|_| Err("a session thread panicked".into()))
            })
            .collect()
    });
    let elapsed = began.elapsed();
    // Stop them in parallel too (the guards would do it one by one).
    std::thread::scope(|scope| {
        for session in &sessions {
            scope.spawn(move || session.stop());
        }
    });
    for result in results {
        result?;
    }
    Ok(elapsed)
}

/// Polls `output` until it holds at least `expected` bytes (output may trail the stop).
fn wait_for_output(session: &BenchSession<'_>, expected: usize) -> BenchResult<usize> {
    let deadline = Instant::now() + Duration::from_secs(30);
    loop {
        let out = session.run(&["output"])?;
        if out.stdout.len() >= expected {
            return Ok(out.stdout.len());
        }
        if Instant::now() > deadline {
            return Err(format!(
                "only {} of {expected} output bytes arrived",
                out.stdout.len()
            )
            .into());
        }
        std::thread::sleep(Duration::from_millis(50));
    }
}

// ---- the environment ---------------------------------------------------------------------

/// The private directory, the binary, and the sessions it started.
struct Bench {
    bin: PathBuf,
    repo: PathBuf,
    dir: PathBuf,
    runtime_dir: PathBuf,
    state_dir: PathBuf,
    data_dir: PathBuf,
    config: PathBuf,
    prefix: String,
    counter: AtomicU32,
    lldb: LldbDap,
}

impl Bench {
    fn new() -> BenchResult<Bench> {
        let lldb = LldbDap::locate(&AdapterConfig::default()).map_err(|e| {
            format!(
                "lldb-dap is needed: {} ({})",
                e.message,
                debugger::adapters::lldb::INSTALL_HINT
            )
        })?;
        let nanos = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map(|d| d.subsec_nanos())
            .unwrap_or(0);
        let dir =
            std::env::temp_dir().join(format!("debugger-bench-{}-{nanos:08x}", std::process::id()));
        fs::DirBuilder::new()
            .mode(0o700)
            .create(&dir)
            .map_err(|e| format!("create {}: {e}", dir.display()))?;
        let make = |name: &str| -> BenchResult<PathBuf> {
            let path = dir.join(name);
            fs::DirBuilder::new()
                .mode(0o700)
                .create(&path)
                .map_err(|e| format!("create {}: {e}", path.display()))?;
            Ok(path)
        };
        let runtime_dir = make("run")?;
        let state_dir = make("state")?;
        let data_dir = make("data")?;
        // DEBUGGER_BENCH_BIN measures another build of the same source (e.g. linked otherwise).
        let bin = std::env::var_os("DEBUGGER_BENCH_BIN")
            .map(PathBuf::from)
            .unwrap_or_else(|| PathBuf::from(env!("CARGO_BIN_EXE_debugger")));
        let bench = Bench {
            bin,
            repo: PathBuf::from(env!("CARGO_MANIFEST_DIR")),
            runtime_dir,
            state_dir,
            data_dir,
            config: dir.join("config.toml"),
            dir,
            prefix: format!("bench{}", std::process::id()),
            counter: AtomicU32::new(0),
            lldb,
        };
        fs::create_dir_all(bench.dir.join("bin"))?;
        fs::create_dir_all(bench.dir.join("src"))?;
        fs::write(
            &bench.config,
            format!("[output]\nbuffer_bytes = {BUFFER_BYTES}\n"),
        )
        .map_err(|e| format!("write {}: {e}", bench.config.display()))?;
        Ok(bench)
    }

    /// A `debugger` command in the private environment; `session` sets `DEBUGGER_SESSION`.
    fn command(&self, session: Option<&str>, args: &[&str]) -> Command {
        let mut command = Command::new(&self.bin);
        command
            .args(args)
            .current_dir(&self.dir)
            .stdin(Stdio::null())
            .env("DEBUGGER_RUNTIME_DIR", &self.runtime_dir)
            .env("DEBUGGER_STATE_DIR", &self.state_dir)
            .env("DEBUGGER_DATA_DIR", &self.data_dir)
            .env("DEBUGGER_CONFIG", &self.config)
            .env_remove("DEBUGGER_LOG")
            .env_remove("RUST_LOG");
        match session {
            Some(name) => command.env("DEBUGGER_SESSION", name),
            None => command.env_remove("DEBUGGER_SESSION"),
        };
        command
    }

    /// A new, uniquely named session (not started yet), stopped when dropped.
    fn session(&self, label: &str) -> BenchResult<BenchSession<'_>> {
        let n = self.counter.fetch_add(1, Ordering::SeqCst);
        Ok(BenchSession {
            bench: self,
            name: format!("{}-{label}-{n}", self.prefix),
        })
    }

    fn fixture(&self, relative: &str) -> PathBuf {
        self.repo.join("fixtures").join(relative)
    }

    fn write_source(&self, name: &str, text: &str) -> BenchResult<PathBuf> {
        let path = self.dir.join("src").join(name);
        fs::write(&path, text).map_err(|e| format!("write {}: {e}", path.display()))?;
        Ok(path)
    }

    /// `cc -g -O0 sources... -o bin/NAME`.
    fn compile_c(&self, source: &Path, name: &str, more: &[PathBuf]) -> BenchResult<PathBuf> {
        let out = self.dir.join("bin").join(name);
        let status = Command::new("cc")
            .args(["-g", "-O0", "-o"])
            .arg(&out)
            .arg(source)
            .args(more)
            .status()
            .map_err(|e| format!("run cc: {e}"))?;
        if !status.success() {
            return Err(format!("cc failed on {}", source.display()).into());
        }
        Ok(out)
    }

    /// `fn main() { println!("hello") }` built with `rustc -O`.
    fn hello_world(&self) -> BenchResult<PathBuf> {
        let source = self.write_source("hello.rs", "fn main() {\n    println!(\"hello\");\n}\n")?;
        let out = self.dir.join("bin").join("hello");
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

    /// 100 C files with 10 statement lines each (MANY_LINES), and a main calling them all.
    fn many_files_program(&self) -> BenchResult<(PathBuf, Vec<PathBuf>)> {
        let dir = self.dir.join("src").join("many");
        fs::create_dir_all(&dir).map_err(|e| format!("create {}: {e}", dir.display()))?;
        let mut files = Vec::new();
        let mut main = String::new();
        for i in 0..100 {
            let mut text = format!("int f{i:03}(int a)\n{{\n    int s = a;\n");
            for k in 1..10 {
                text.push_str(&format!("    s += {k};\n"));
            }
            text.push_str("    return s;\n}\n");
            let path = dir.join(format!("m{i:03}.c"));
            fs::write(&path, text).map_err(|e| format!("write {}: {e}", path.display()))?;
            files.push(path);
            main.push_str(&format!("int f{i:03}(int a);\n"));
        }
        main.push_str("int main(void)\n{\n    int t = 0;\n");
        for i in 0..100 {
            main.push_str(&format!("    t += f{i:03}(t);\n"));
        }
        main.push_str("    return t & 1;\n}\n");
        let main_path = dir.join("main.c");
        fs::write(&main_path, main).map_err(|e| format!("write {}: {e}", main_path.display()))?;
        let program = self.compile_c(&main_path, "many", &files)?;
        Ok((program, files))
    }
}

impl Drop for Bench {
    fn drop(&mut self) {
        // A safety net: stop any session whose socket is still in the private runtime dir.
        if let Ok(entries) = fs::read_dir(&self.runtime_dir) {
            for entry in entries.flatten() {
                let name = entry.file_name().to_string_lossy().to_string();
                if let Some(session) = name.strip_suffix(".sock") {
                    let _ = self.command(Some(session), &["stop"]).output();
                }
            }
        }
        let _ = fs::remove_dir_all(&self.dir);
    }
}

/// A session name in the bench's environment; `stop` runs when it is dropped.
struct BenchSession<'a> {
    bench: &'a Bench,
    name: String,
}

impl BenchSession<'_> {
    /// Runs `debugger ARGS` and fails with its stderr unless it exits 0.
    fn run(&self, args: &[&str]) -> BenchResult<Output> {
        Ok(self.timed(args)?.1)
    }

    /// Runs `debugger ARGS`, timing the whole process, and fails unless it exits 0.
    fn timed(&self, args: &[&str]) -> BenchResult<(Duration, Output)> {
        let mut command = self.bench.command(Some(&self.name), args);
        let began = Instant::now();
        let out = command
            .output()
            .map_err(|e| format!("run debugger {}: {e}", args.join(" ")))?;
        let elapsed = began.elapsed();
        if !out.status.success() {
            return Err(format!(
                "'debugger {}' (session {}) failed with {}: {}{}",
                shorten(&args.join(" ")),
                self.name,
                out.status,
                String::from_utf8_lossy(&out.stderr).trim(),
                String::from_utf8_lossy(&out.stdout).trim()
            )
            .into());
        }
        Ok((elapsed, out))
    }

    /// `debugger --json ARGS`, returning `data`.
    fn run_json(&self, args: &[&str]) -> BenchResult<Value> {
        let mut all = vec!["--json"];
        all.extend_from_slice(args);
        let out = self.run(&all)?;
        let value: Value = serde_json::from_slice(&out.stdout)
            .map_err(|e| format!("'debugger {}' printed no JSON: {e}", args.join(" ")))?;
        if value["ok"] != json!(true) {
            return Err(format!("'debugger {}' failed: {value}", args.join(" ")).into());
        }
        Ok(value["data"].clone())
    }

    fn stats_n(&self, runs: usize, warmup: usize, args: &[&str]) -> BenchResult<Stats> {
        Ok(Stats::of(time_n(runs, warmup, || Ok(self.timed(args)?.0))?))
    }

    /// One request to the daemon from this process (a fresh connection, as a CLI call makes),
    /// timed: the daemon's and the adapter's share of a call, without the CLI process.
    fn ipc(&self, command: IpcCommand) -> BenchResult<Duration> {
        let paths = SessionPaths {
            socket: paths::socket_path(&self.bench.runtime_dir, &self.name),
            lock: paths::lock_path(&self.bench.runtime_dir, &self.name),
        };
        let began = Instant::now();
        let mut client = DaemonClient::connect_at(&paths)
            .map_err(|e| format!("connect to session {}: {}", self.name, e.message))?;
        client
            .request(command)
            .map_err(|e| format!("request to session {}: {}", self.name, e.message))?;
        Ok(began.elapsed())
    }

    fn daemon_pid(&self) -> BenchResult<u32> {
        let status = self.run_json(&["status"])?;
        status["daemon_pid"]
            .as_u64()
            .and_then(|pid| u32::try_from(pid).ok())
            .ok_or_else(|| format!("status names no daemon_pid: {status}").into())
    }

    fn stop(&self) {
        let _ = self.bench.command(Some(&self.name), &["stop"]).output();
    }
}

impl Drop for BenchSession<'_> {
    fn drop(&mut self) {
        self.stop();
    }
}

// ---- in-process: the crate's own DAP client, no CLI, no daemon ----------------------------

/// Runs the same launch and requests the daemon makes, on the same runtime flavour
/// (current-thread), timing what the adapter itself costs.
struct InProcess {
    runtime: tokio::runtime::Runtime,
    lldb: LldbDap,
    cwd: PathBuf,
}

/// An in-process session stopped at a breakpoint.
struct Stopped {
    session: DapSession,
    thread: i64,
    frame_id: i64,
}

/// The DAP requests behind one inspection command.
#[derive(Clone, Copy)]
enum Probe {
    StackTrace,
    Locals,
    Evaluate,
}

/// One adapter conversation, stopped or running.
struct DapSession {
    client: DapClient,
    events: mpsc::UnboundedReceiver<Event>,
    process: Arc<AdapterProcess>,
}

impl InProcess {
    fn new(bench: &Bench) -> BenchResult<InProcess> {
        let runtime = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .map_err(|e| format!("build the tokio runtime: {e}"))?;
        let lldb = LldbDap::locate(&AdapterConfig::default())
            .map_err(|e| format!("lldb-dap: {}", e.message))?;
        Ok(InProcess {
            runtime,
            lldb,
            cwd: bench.dir.clone(),
        })
    }

    fn spec(&self, program: &Path) -> LaunchSpec {
        LaunchSpec {
            program: program.to_path_buf(),
            args: Vec::new(),
            cwd: self.cwd.clone(),
            env: std::env::vars().collect(),
            adapter: None,
            stop_on_entry: false,
            breakpoints: Vec::new(),
            connect: None,
            just_my_code: true,
        }
    }

    /// Spawn → initialize → launch → initialized → breakpoints → configurationDone → launch
    /// response → stopped → stackTrace(1): the daemon's launch, timed end to end.
    fn launch_to_breakpoint(&self, program: &Path) -> BenchResult<Duration> {
        self.runtime.block_on(async {
            let began = Instant::now();
            let lldb = LldbDap::locate(&AdapterConfig::default())
                .map_err(|e| format!("lldb-dap: {}", e.message))?;
            let mut session = DapSession::launch(&lldb, &self.spec(program), &["apply"]).await?;
            let thread = session.wait_stopped().await?;
            session.stack_trace(thread, 1).await?;
            let elapsed = began.elapsed();
            session.end().await;
            Ok(elapsed)
        })
    }

    /// Launches `program` in-process and waits until it stops in `function`.
    fn stop_at(&self, program: &Path, function: &str) -> BenchResult<Stopped> {
        self.runtime.block_on(async {
            let mut session =
                DapSession::launch(&self.lldb, &self.spec(program), &[function]).await?;
            let thread = session.wait_stopped().await?;
            let frames = session.stack_trace(thread, 32).await?;
            let frame_id = frames["stackFrames"][0]["id"]
                .as_i64()
                .ok_or("the stack trace has no frame id")?;
            Ok(Stopped {
                session,
                thread,
                frame_id,
            })
        })
    }

    /// Ends a session from [`InProcess::stop_at`].
    fn finish(&self, stopped: Stopped) {
        self.runtime.block_on(stopped.session.end());
    }

    /// The DAP requests behind `backtrace`, `locals` and `print x`, as the daemon sends them.
    fn probe(&self, stopped: &Stopped, probe: Probe) -> BenchResult<Duration> {
        let client = &stopped.session.client;
        let (thread, frame_id) = (stopped.thread, stopped.frame_id);
        self.runtime.block_on(async {
            let began = Instant::now();
            match probe {
                Probe::StackTrace => {
                    client
                        .request(
                            "stackTrace",
                            json!({ "threadId": thread, "startFrame": 0, "levels": 32 }),
                        )
                        .await?;
                }
                Probe::Locals => {
                    let scopes = client
                        .request("scopes", json!({ "frameId": frame_id }))
                        .await?;
                    let reference = scopes["scopes"][0]["variablesReference"]
                        .as_i64()
                        .ok_or("no locals scope")?;
                    client
                        .request(
                            "variables",
                            json!({ "variablesReference": reference, "start": 0, "count": 33 }),
                        )
                        .await?;
                }
                Probe::Evaluate => {
                    let value = client
                        .request(
                            "evaluate",
                            json!({ "expression": "x", "frameId": frame_id, "context": "watch" }),
                        )
                        .await?;
                    if value["result"] != json!("3") {
                        return Err(format!("evaluate x gave {value}").into());
                    }
                }
            }
            Ok(began.elapsed())
        })
    }

    /// One `next` → its `stopped` event → `stackTrace(levels)`: what `next --wait` needs.
    fn step(&self, stopped: &mut Stopped, levels: u32) -> BenchResult<Duration> {
        self.runtime.block_on(async {
            let began = Instant::now();
            let answer = stopped
                .session
                .client
                .send("next", json!({ "threadId": stopped.thread }));
            let thread = stopped.session.wait_stopped().await?;
            answer.response().await?;
            stopped.session.stack_trace(thread, levels).await?;
            Ok(began.elapsed())
        })
    }

    /// On a program stopped in main: `setBreakpoints` for each of the 1,000 lines in turn, each
    /// re-sending its file's list so far (what one `breakpoint add` costs the adapter).
    fn incremental_breakpoints(
        &self,
        program: &Path,
        files: &[PathBuf],
    ) -> BenchResult<AdapterBreakpoints> {
        self.runtime.block_on(async {
            let mut session =
                DapSession::launch(&self.lldb, &self.spec(program), &["main"]).await?;
            let result: BenchResult<_> = async {
                session.wait_stopped().await?;
                let began = Instant::now();
                let mut each = Vec::with_capacity(files.len() * MANY_LINES.len());
                for file in files {
                    for count in 1..=MANY_LINES.len() {
                        let sent = Instant::now();
                        session.set_breakpoints(file, &MANY_LINES[..count]).await?;
                        each.push(sent.elapsed());
                    }
                }
                let incremental = began.elapsed();
                // Clear them, then set each file's ten in one request: what batching would cost.
                for file in files {
                    session.set_breakpoints(file, &[]).await?;
                }
                let began = Instant::now();
                for file in files {
                    session.set_breakpoints(file, &MANY_LINES).await?;
                }
                Ok(AdapterBreakpoints {
                    incremental,
                    each,
                    batched: began.elapsed(),
                })
            }
            .await;
            session.end().await;
            result
        })
    }
}

/// What lldb-dap alone takes for the 1,000 breakpoints.
struct AdapterBreakpoints {
    /// One `setBreakpoints` per breakpoint, each re-sending its file's list so far.
    incremental: Duration,
    each: Vec<Duration>,
    /// One `setBreakpoints` per file with its ten lines.
    batched: Duration,
}

impl DapSession {
    /// The daemon's launch sequence with function breakpoints `functions`.
    async fn launch(
        lldb: &LldbDap,
        spec: &LaunchSpec,
        functions: &[&str],
    ) -> BenchResult<DapSession> {
        let spawned = lldb
            .spawn()
            .await
            .map_err(|e| format!("spawn lldb-dap: {}", e.message))?;
        let process = spawned.process.clone();
        let (client, mut adapter_events) = DapClient::start(
            spawned.reader,
            spawned.writer,
            WAIT_LIMIT,
            process.exit_detail(),
        );
        // Drain the client's bounded event queue at once, as the daemon's event task does, so a
        // burst of events never holds up a response we are waiting for.
        let (tx, events) = mpsc::unbounded_channel();
        tokio::spawn(async move {
            while let Some(event) = adapter_events.recv().await {
                if tx.send(event).is_err() {
                    break;
                }
            }
        });
        let mut session = DapSession {
            client,
            events,
            process,
        };
        let caps = session
            .client
            .request("initialize", initialize_arguments(lldb.adapter_id()))
            .await?;
        let launch = session.client.send("launch", lldb.launch_arguments(spec));
        session.wait_event("initialized").await?;
        let breakpoints: Vec<Value> = functions.iter().map(|f| json!({ "name": f })).collect();
        session
            .client
            .request(
                "setFunctionBreakpoints",
                json!({ "breakpoints": breakpoints }),
            )
            .await?;
        if caps.get("exceptionBreakpointFilters").is_some() {
            session
                .client
                .request("setExceptionBreakpoints", json!({ "filters": [] }))
                .await?;
        }
        if caps["supportsConfigurationDoneRequest"] == json!(true) {
            session
                .client
                .request("configurationDone", json!({}))
                .await?;
        }
        launch.response().await?;
        Ok(session)
    }

    async fn wait_event(&mut self, name: &str) -> BenchResult<Event> {
        let deadline = tokio::time::Instant::now() + WAIT_LIMIT;
        loop {
            let event = tokio::time::timeout_at(deadline, self.events.recv())
                .await
                .map_err(|_| format!("no '{name}' event within {} s", WAIT_LIMIT.as_secs()))?
                .ok_or_else(|| format!("the adapter ended before a '{name}' event"))?;
            if event.event == name {
                return Ok(event);
            }
            if event.event == "exited" || event.event == "terminated" {
                return Err(format!("the program ended while waiting for '{name}'").into());
            }
        }
    }

    /// The next `stopped` event's thread.
    async fn wait_stopped(&mut self) -> BenchResult<i64> {
        let event = self.wait_event("stopped").await?;
        event.body["threadId"]
            .as_i64()
            .ok_or_else(|| format!("a stopped event without a thread: {}", event.body).into())
    }

    /// `setBreakpoints` for `file`: exactly `lines`.
    async fn set_breakpoints(&self, file: &Path, lines: &[u32]) -> BenchResult<Value> {
        let breakpoints: Vec<Value> = lines.iter().map(|line| json!({ "line": line })).collect();
        let name = file.file_name().map(|n| n.to_string_lossy().to_string());
        Ok(self
            .client
            .request(
                "setBreakpoints",
                json!({
                    "source": { "path": file, "name": name },
                    "breakpoints": breakpoints,
                }),
            )
            .await?)
    }

    async fn stack_trace(&self, thread: i64, levels: u32) -> BenchResult<Value> {
        Ok(self
            .client
            .request(
                "stackTrace",
                json!({ "threadId": thread, "startFrame": 0, "levels": levels }),
            )
            .await?)
    }

    /// Ends the debuggee and the adapter.
    async fn end(self) {
        let _ = self
            .client
            .send("disconnect", json!({ "terminateDebuggee": true }))
            .response_within(Duration::from_secs(5))
            .await;
        self.process.shut_down(Duration::from_secs(2)).await;
        self.client.close("the bench ended the session");
    }
}

// ---- statistics and the table --------------------------------------------------------------

#[derive(Clone)]
struct Stats {
    runs: usize,
    median: Duration,
    p90: Duration,
}

impl Stats {
    fn of(mut samples: Vec<Duration>) -> Stats {
        samples.sort();
        let n = samples.len();
        if n == 0 {
            return Stats {
                runs: 0,
                median: Duration::ZERO,
                p90: Duration::ZERO,
            };
        }
        let median = if n % 2 == 1 {
            samples[n / 2]
        } else {
            (samples[n / 2 - 1] + samples[n / 2]) / 2
        };
        // Nearest rank: the smallest sample with at least 90% of samples at or below it.
        let rank = (n * 9).div_ceil(10).max(1);
        Stats {
            runs: n,
            median,
            p90: samples[rank - 1],
        }
    }

    fn median_ratio(&self, base: &Stats) -> f64 {
        self.median.as_secs_f64() / base.median.as_secs_f64()
    }
}

/// `warmup` untimed runs, then `runs` timed ones.
fn time_n(
    runs: usize,
    warmup: usize,
    mut once: impl FnMut() -> BenchResult<Duration>,
) -> BenchResult<Vec<Duration>> {
    for _ in 0..warmup {
        once()?;
    }
    (0..runs).map(|_| once()).collect()
}

/// Runs a command to completion with its output captured, and times it.
fn timed_output(command: &mut Command, what: &str) -> BenchResult<Duration> {
    let began = Instant::now();
    let out = command.output().map_err(|e| format!("run {what}: {e}"))?;
    let elapsed = began.elapsed();
    if !out.status.success() {
        return Err(format!("{what} failed with {}", out.status).into());
    }
    Ok(elapsed)
}

#[derive(Default)]
struct Table {
    rows: Vec<[String; 7]>,
    hello: Option<Stats>,
    misses: usize,
}

impl Table {
    fn row(&mut self, name: &str, stats: &Stats, figure: &str, target: &str, pass: Option<bool>) {
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
    }

    #[allow(clippy::too_many_arguments)]
    fn row_text(
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
        // Print as we go too, so a long run shows progress.
        eprintln!("bench: {name}: {median} (p90 {p90}) {figure} {verdict}");
    }

    /// The hello-world floor (the first row).
    fn floor(&self) -> BenchResult<Stats> {
        self.hello
            .clone()
            .ok_or_else(|| "the floor was not measured first".into())
    }

    fn print(&self) {
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

fn fmt_duration(d: Duration) -> String {
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

// ---- small helpers -------------------------------------------------------------------------

fn path_str(path: &Path) -> BenchResult<&str> {
    path.to_str()
        .ok_or_else(|| format!("not UTF-8: {}", path.display()).into())
}

fn expect_contains(out: &Output, needle: &str, what: &str) -> BenchResult<()> {
    let text = String::from_utf8_lossy(&out.stdout);
    if text.contains(needle) {
        Ok(())
    } else {
        Err(format!("{what}: expected '{needle}' in the output, got: {text}").into())
    }
}

/// The 1-based line of `marker` in a source file.
fn marker_line(source: &Path, marker: &str) -> BenchResult<usize> {
    let text = fs::read_to_string(source).map_err(|e| format!("read {}: {e}", source.display()))?;
    text.lines()
        .position(|l| l.contains(marker))
        .map(|i| i + 1)
        .ok_or_else(|| format!("no {marker} in {}", source.display()).into())
}

/// The process's peak resident set (VmHWM), in MiB.
fn vm_hwm_mib(pid: u32) -> BenchResult<f64> {
    let path = format!("/proc/{pid}/status");
    let status = fs::read_to_string(&path).map_err(|e| format!("read {path}: {e}"))?;
    let kib = status
        .lines()
        .find_map(|l| l.strip_prefix("VmHWM:"))
        .and_then(|v| v.trim().trim_end_matches("kB").trim().parse::<f64>().ok())
        .ok_or_else(|| format!("no VmHWM in {path}"))?;
    Ok(kib / 1024.0)
}

/// The first three fields of /proc/loadavg: other work on the machine skews every figure.
fn load_average() -> String {
    fs::read_to_string("/proc/loadavg")
        .map(|text| {
            text.split_whitespace()
                .take(3)
                .collect::<Vec<_>>()
                .join(" ")
        })
        .unwrap_or_else(|_| "unknown".into())
}

fn cores() -> usize {
    std::thread::available_parallelism().map_or(1, usize::from)
}

fn shorten(text: &str) -> String {
    if text.len() <= 200 {
        text.to_string()
    } else {
        let mut cut = 200;
        while !text.is_char_boundary(cut) {
            cut -= 1;
        }
        format!("{}… ({} bytes)", &text[..cut], text.len())
    }
}

// ---- generated programs --------------------------------------------------------------------

/// The statement lines of each generated file (`int s = a;` and nine `s += k;`).
const MANY_LINES: [u32; 10] = [3, 4, 5, 6, 7, 8, 9, 10, 11, 12];

const BURST_LINES: usize = 16 * 1024;
const BURST_LINE_BYTES: usize = 64;

/// Prints 1 MiB (16,384 lines of 64 bytes), then calls `burst_done`, where the bench stops it.
const BURST_C: &str = r#"#include <stdio.h>

static volatile int finished;

void burst_done(void)
{
    finished = 1;
}

int main(void)
{
    for (int i = 0; i < 16384; i++)
        printf("%06d %056d\n", i, 0);
    fflush(stdout);
    burst_done();
    return 0;
}
"#;

/// A loop long enough for any number of `next`s, one plain statement per line.
const STEPLOOP_C: &str = r#"static volatile long sink;

int main(void)
{
    long acc = 0;
    for (long i = 0; i < 1000000000L; i++) {
        acc += i;
        acc ^= i << 1;
        acc -= 3;
        sink = acc;
    }
    return (int)(acc & 1);
}
"#;
