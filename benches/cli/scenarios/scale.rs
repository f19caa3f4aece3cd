//! Volume: a 1 MiB output burst drained with `output` (fixtures/c/burst.c), `locals` beside a
//! 100,000-element array (fixtures/c/big.c), and 20 sessions launched at once
//! (fixtures/c/ledger.c). What these show is whether a call stays bounded when the session holds
//! a lot, so the rows report how much was delivered or shown beside the time.

use std::path::Path;
use std::time::{Duration, Instant};

use super::Context;
use crate::common::{at, build, eventually};
use crate::machine::cores;
use crate::session::{CliSession, expect_contains, path_str};
use crate::stats::{Stats, time_n};
use crate::{BenchResult, MIB};

/// What fixtures/c/burst.c prints before it calls `burst_done`: 16,384 lines of 64 bytes.
const BURST_LINES: usize = 16 * 1024;
const BURST_LINE_BYTES: usize = 64;

pub fn output_burst(ctx: &mut Context) -> BenchResult<()> {
    let burst = build("c/burst.c");
    let session = ctx.session();
    let began = Instant::now();
    session.run(&["start", path_str(&burst)?, "--break", "burst_done"])?;
    let to_stop = began.elapsed();
    let expected = BURST_LINES * BURST_LINE_BYTES;
    let delivered = wait_for_output(&session, expected)?;
    let drained = Stats::of(time_n(ctx.plan.heavy, 2, || {
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
    ctx.table.row(
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
    Ok(())
}

/// Polls `output` until it holds at least `expected` bytes (output may trail the stop), and
/// returns how many it holds.
fn wait_for_output(session: &CliSession, expected: usize) -> BenchResult<usize> {
    let mut held = Ok(0);
    let arrived = eventually(Duration::from_secs(30), || {
        held = session.run(&["output"]).map(|out| out.stdout.len());
        // An error ends the wait as well: it is reported below.
        held.as_ref().map_or(true, |&len| len >= expected)
    });
    let held = held?;
    if !arrived {
        return Err(format!("only {held} of {expected} output bytes arrived").into());
    }
    Ok(held)
}

pub fn locals_beside_big_array(ctx: &mut Context) -> BenchResult<()> {
    let big = build("c/big.c");
    let session = ctx.session();
    let location = at("c/big.c", "@big_ready");
    session.run(&["start", path_str(&big)?, "--break", &location])?;
    let mut shown = (0, 0);
    let stats = Stats::of(time_n(ctx.plan.heavy, 2, || {
        let (elapsed, out) = session.timed(&["locals"])?;
        shown = (out.stdout.len(), out.stdout.split(|b| *b == b'\n').count());
        Ok(elapsed)
    })?);
    let capped = shown.0 < 64 * 1024;
    ctx.table.row(
        "locals, int big[100000] in frame",
        &stats,
        &format!("{} lines, {} bytes shown", shown.1, shown.0),
        "≤ 0.5 s, capped",
        Some(stats.median <= Duration::from_millis(500) && capped),
    );
    Ok(())
}

pub fn twenty_sessions(ctx: &mut Context) -> BenchResult<()> {
    let ledger = build("c/ledger.c");
    let mut runs = Vec::new();
    for _ in 0..ctx.plan.crowds {
        runs.push(crowd(ctx, &ledger)?);
    }
    let stats = Stats::of(runs);
    let ratio = stats.median_ratio(ctx.launch()?);
    ctx.table.row(
        "20 sessions at once, all at a breakpoint",
        &stats,
        &format!("{ratio:.1}× one session ({} cores)", cores()),
        "—",
        None,
    );
    Ok(())
}

/// Starts 20 sessions in parallel and returns the time until all are stopped at `apply`.
fn crowd(ctx: &Context, program: &Path) -> BenchResult<Duration> {
    let program = path_str(program)?;
    let sessions: Vec<CliSession> = (0..20).map(|_| ctx.session()).collect();
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
    // Stop them in parallel too (dropping them would stop them one by one).
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
