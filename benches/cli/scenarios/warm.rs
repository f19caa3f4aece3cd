//! The warm adapter (`[daemon] warm_adapter_secs`, issue 22): the second question in a row, on
//! fixtures/c/ledger.c. `start --break apply` to its first stop on the adapter the daemon kept
//! warm after the last session's `stop`, against the same from cold (a new session, so a new
//! daemon and adapter) and against the in-process launch; for lldb-dap and GDB. And `probe
//! --break apply --print amount`, cold and on a warm adapter, against `lldb -b` and `gdb -batch`
//! asking the same.
//!
//! Cold and warm runs alternate, so a load that comes and goes on the shared machine falls on
//! both. The wait for the warm adapter to be ready (the daemon spawns it as the last session
//! ends) is not timed: it is what the user's think time covers.

use std::path::Path;
use std::process::Command;
use std::time::{Duration, Instant};

use serde_json::Value;

use super::Context;
use super::first_stop::{gdb_batch, python_batch};
use crate::BenchResult;
use crate::common::{build, fixture_path, require_gdb};
use crate::session::{CliSession, expect_contains, path_str};
use crate::stats::Stats;

/// How long the daemons keep the warm adapter: longer than any run here takes.
const WARM_SECS: &str = "120";

/// How long to wait for the daemon to have its warm adapter ready.
const READY_LIMIT: Duration = Duration::from_secs(60);

pub fn warm_adapter(ctx: &mut Context) -> BenchResult<()> {
    let ledger = build("c/ledger.c");
    let runs = ctx.plan.launches;

    let (cold, warm) = starts(ctx, &ledger, "lldb", runs)?;
    let inproc = Stats::of(
        (0..=runs)
            .map(|_| ctx.inproc.launch_to_breakpoint(&ledger, "apply"))
            .collect::<BenchResult<Vec<_>>>()?
            .split_off(1),
    );
    let ratio = warm.median_ratio(&inproc);
    ctx.table.row(
        "lldb: warm start --break apply, to its first stop",
        &warm,
        &format!("{ratio:.2}× in-process launch"),
        "≤ 0.6× in-process",
        Some(ratio <= 0.6),
    );
    ctx.table.row(
        "  lldb: the same, cold (new session)",
        &cold,
        &format!("warm {:.2}× cold", warm.median_ratio(&cold)),
        "—",
        None,
    );
    ctx.table.row(
        "  lldb: in-process launch to breakpoint",
        &inproc,
        "spawn → … → stopped → stackTrace(1)",
        "—",
        None,
    );

    let (cold, warm) = starts(ctx, &ledger, "gdb", runs)?;
    ctx.table.row(
        "gdb: warm start --break apply, to its first stop",
        &warm,
        &format!("warm {:.2}× cold", warm.median_ratio(&cold)),
        "—",
        None,
    );
    ctx.table
        .row("  gdb: the same, cold (new session)", &cold, "", "—", None);

    let program = path_str(&ledger)?;
    let probe = [
        "--json", "probe", program, "--break", "apply", "--print", "amount",
    ];
    let batch = || lldb_batch(&ledger);
    let (cold, warm, batch) = probes(ctx, &probe, "\"amount\"", batch, runs)?;
    probe_rows(
        ctx,
        ProbeRows {
            adapter: "lldb",
            question: "--break apply --print amount",
            batch: "lldb -b",
            batch_question: "b apply, run, frame variable, p amount, kill",
            cold_limit: 1.1,
        },
        (&cold, &warm, &batch),
    );

    let probe = [
        "--json",
        "probe",
        program,
        "--adapter",
        "gdb",
        "--break",
        "apply",
        "--print",
        "amount",
    ];
    let batch = || timed_gdb_batch(&ledger);
    let (cold, warm, batch) = probes(ctx, &probe, "\"amount\"", batch, runs)?;
    probe_rows(
        ctx,
        ProbeRows {
            adapter: "gdb",
            question: "--break apply --print amount",
            batch: "gdb -batch",
            batch_question: "break apply, run, info locals, print amount, kill",
            cold_limit: 1.1,
        },
        (&cold, &warm, &batch),
    );
    Ok(())
}

/// `gdb -batch` asking what the probe asks ([`gdb_batch`]), timed.
fn timed_gdb_batch(ledger: &Path) -> BenchResult<Duration> {
    let began = Instant::now();
    let out = gdb_batch(ledger)
        .output()
        .map_err(|e| format!("run gdb: {e}"))?;
    let elapsed = began.elapsed();
    expect_contains(&out, "amount", "gdb -batch's print")?;
    Ok(elapsed)
}

/// A session of the measured binary whose daemons keep a warm adapter (`warm_secs`), with the
/// config GDB needs.
fn session(ctx: &Context, warm_secs: &str) -> BenchResult<CliSession> {
    let mut session = ctx.session();
    session.keep_warm_adapter(warm_secs);
    session.add_config(&format!(
        "[adapters.gdb]\npath = {:?}\n",
        require_gdb().display().to_string()
    ))?;
    Ok(session)
}

/// `start --break apply` to its first stop with `adapter`: cold (a new session each time, no
/// warm adapter) and warm (one session, stopped between runs, whose daemon keeps the adapter
/// warm), alternately, `runs` times each after one untimed run of each.
fn starts(ctx: &Context, ledger: &Path, adapter: &str, runs: usize) -> BenchResult<(Stats, Stats)> {
    let program = path_str(ledger)?;
    let start = [
        "--json",
        "start",
        program,
        "--adapter",
        adapter,
        "--break",
        "apply",
    ];
    let mut cold = Vec::new();
    let mut warm = Vec::new();
    let warm_session = session(ctx, WARM_SECS)?;
    for i in 0..=runs {
        let cold_session = session(ctx, "0")?;
        let (elapsed, started) = to_breakpoint(&cold_session, &start)?;
        expect_warm(&started, false)?;
        drop(cold_session);

        if i > 0 {
            wait_until_warm(&warm_session)?;
        }
        let (warm_elapsed, started) = to_breakpoint(&warm_session, &start)?;
        expect_warm(&started, i > 0)?;
        warm_session.run(&["stop"])?;
        if i > 0 {
            cold.push(elapsed);
            warm.push(warm_elapsed);
        }
    }
    Ok((Stats::of(cold), Stats::of(warm)))
}

/// Times `start ...` to its first stop (it answers with it); returns the time and its data.
fn to_breakpoint(session: &CliSession, start: &[&str]) -> BenchResult<(Duration, Value)> {
    let began = Instant::now();
    let started = session.run(start)?;
    let elapsed = began.elapsed();
    expect_contains(&started, "apply", "start to the breakpoint")?;
    let started: Value = serde_json::from_slice(&started.stdout)
        .map_err(|e| format!("start printed no JSON: {e}"))?;
    Ok((elapsed, started["data"].clone()))
}

fn expect_warm(data: &Value, warm: bool) -> BenchResult<()> {
    if data["warm"].as_bool() == Some(warm) {
        Ok(())
    } else {
        Err(format!("expected a start with warm = {warm}: {data}").into())
    }
}

/// Waits until `sessions` lists the session's warm adapter as spawned and initialised.
fn wait_until_warm(session: &CliSession) -> BenchResult<()> {
    let deadline = Instant::now() + READY_LIMIT;
    loop {
        let listed = session.run_json(&["sessions"])?;
        let ready = listed["sessions"]
            .as_array()
            .into_iter()
            .flatten()
            .any(|entry| entry["warm"]["adapter_pid"].is_u64());
        if ready {
            return Ok(());
        }
        if Instant::now() > deadline {
            return Err(format!("no warm adapter became ready: {listed}").into());
        }
        std::thread::sleep(Duration::from_millis(20));
    }
}

/// Python's second question (issue 22): `probe app.py --break square --print n` cold and warm,
/// on our own adapter (whose warm form is the next program's Python, started ahead) and on
/// debugpy (a warm `python -m debugpy.adapter`), against `python -m pdb` asking the same.
pub fn warm_python(ctx: &mut Context) -> BenchResult<()> {
    let app = fixture_path("python/app.py");
    let program = path_str(&app)?;
    let batch = || {
        let began = Instant::now();
        let out = python_batch(&app, "square", "n")
            .stdin(std::process::Stdio::null())
            .output()
            .map_err(|e| format!("run python -m pdb: {e}"))?;
        let elapsed = began.elapsed();
        expect_contains(&out, "3", "python -m pdb's print")?;
        Ok(elapsed)
    };
    for adapter in ["pdb", "debugpy"] {
        let probe = [
            "--json",
            "probe",
            program,
            "--adapter",
            adapter,
            "--break",
            "square",
            "--print",
            "n",
        ];
        let (cold, warm, batch) = probes(ctx, &probe, "\"n\"", batch, ctx.plan.launches)?;
        probe_rows(
            ctx,
            ProbeRows {
                adapter,
                question: "--break square --print n",
                batch: "python -m pdb",
                batch_question: "break square, continue, p n, quit",
                cold_limit: 1.2,
            },
            (&cold, &warm, &batch),
        );
    }
    Ok(())
}

/// One probe's comparison with the native debugger's batch mode asking the same.
struct ProbeRows<'a> {
    adapter: &'a str,
    /// The probe's flags, as the rows name them.
    question: &'a str,
    /// The native debugger's batch mode (`lldb -b`), and what it is asked.
    batch: &'a str,
    batch_question: &'a str,
    /// The cold probe's target, as a multiple of the batch mode's time (the warm one's is 0.5).
    cold_limit: f64,
}

/// The three rows of a probe comparison: the warm probe against the batch mode (≤ 0.5×), the
/// cold one (≤ `cold_limit`×), and the batch mode itself.
fn probe_rows(ctx: &mut Context, rows: ProbeRows, (cold, warm, batch): (&Stats, &Stats, &Stats)) {
    let ProbeRows {
        adapter,
        question,
        batch: name,
        batch_question,
        cold_limit,
    } = rows;
    let ratio = warm.median_ratio(batch);
    ctx.table.row(
        &format!("{adapter}: warm probe {question}"),
        warm,
        &format!("{ratio:.2}× {name}"),
        &format!("≤ 0.5× {name}"),
        Some(ratio <= 0.5),
    );
    let cold_ratio = cold.median_ratio(batch);
    ctx.table.row(
        &format!("  {adapter}: the same probe, cold"),
        cold,
        &format!("{cold_ratio:.2}× {name}"),
        &format!("≤ {cold_limit}× {name}"),
        Some(cold_ratio <= cold_limit),
    );
    ctx.table
        .row(&format!("  {name}: {batch_question}"), batch, "", "—", None);
}

/// `probe` (its `--json` arguments, whose output must hold `expected`) cold and warm, and
/// `ask_batch` (the native debugger asking the same), alternately, `runs` times each after one
/// untimed run of each.
fn probes(
    ctx: &Context,
    probe: &[&str],
    expected: &str,
    ask_batch: impl Fn() -> BenchResult<Duration>,
    runs: usize,
) -> BenchResult<(Stats, Stats, Stats)> {
    let cold_session = session(ctx, "0")?;
    let warm_session = session(ctx, WARM_SECS)?;
    let (mut cold, mut warm, mut batch) = (Vec::new(), Vec::new(), Vec::new());
    for i in 0..=runs {
        let (elapsed, out) = cold_session.timed(probe)?;
        expect_contains(&out, expected, "the cold probe's print")?;
        let cold_time = elapsed;

        if i > 0 {
            wait_until_warm(&warm_session)?;
        }
        let (elapsed, out) = warm_session.timed(probe)?;
        expect_contains(&out, expected, "the warm probe's print")?;
        let data: Value = serde_json::from_slice(&out.stdout)
            .map_err(|e| format!("probe printed no JSON: {e}"))?;
        expect_warm(&data["data"], i > 0)?;
        let warm_time = elapsed;

        let batch_time = ask_batch()?;
        if i > 0 {
            cold.push(cold_time);
            warm.push(warm_time);
            batch.push(batch_time);
        }
    }
    Ok((Stats::of(cold), Stats::of(warm), Stats::of(batch)))
}

/// `lldb -b` asking what the probe asks: stop in `apply`, show the frame's variables, print
/// `amount`, end the program.
fn lldb_batch(ledger: &Path) -> BenchResult<Duration> {
    let began = Instant::now();
    let out = Command::new("lldb-19")
        .args(["-b", "-o", "b apply", "-o", "run", "-o", "frame variable"])
        .args(["-o", "p amount", "-o", "kill"])
        .arg(ledger)
        .output()
        .map_err(|e| format!("run lldb-19: {e}"))?;
    let elapsed = began.elapsed();
    expect_contains(&out, "amount", "lldb -b's print")?;
    Ok(elapsed)
}
