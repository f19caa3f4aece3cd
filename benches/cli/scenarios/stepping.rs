//! `next --wait` against the same step driven in-process: the CLI call, its daemon round trip
//! without a CLI process, and lldb-dap's own `next` → `stopped` → `stackTrace` (with levels 1,
//! and with 32 as the daemon asks) → the top frame's locals one level deep (what the step's
//! report reads to list the changed locals).
//!
//! The CLI's session and the in-process one are two stopped runs of fixtures/c/steploop.c, a
//! loop no number of steps finishes, stepped alternately so the in-process adapter idles
//! between steps as the CLI's does.

use std::time::Duration;

use super::Context;
use crate::BenchResult;
use crate::common::build;
use crate::inprocess::Stopped;
use crate::session::{CliSession, expect_contains, next_and_wait, path_str};
use crate::stats::Stats;

pub fn next_wait(ctx: &mut Context) -> BenchResult<()> {
    let steploop = build("c/steploop.c");
    let session = ctx.session();
    // `start` answers with the stop at main, which counts as shown: a `continue` would run on.
    session.run(&["start", path_str(&steploop)?, "--break", "main"])?;
    let mut stepper = ctx.inproc.stop_at(&steploop, "main")?;
    let steps = steps(ctx, &session, &mut stepper);
    ctx.inproc.finish(stepper);
    drop(session);
    let [cli_step, ipc_step, inproc_step, inproc_step32] = steps?.map(Stats::of);

    let table = &mut ctx.table;
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
        "  in-process next → stopped → stackTrace(1) → locals",
        &inproc_step,
        "adapter's own time",
        "—",
        None,
    );
    table.row(
        "  in-process, stackTrace(32) as the daemon asks, → locals",
        &inproc_step32,
        "adapter's own time",
        "—",
        None,
    );
    Ok(())
}

/// The warm-up rounds, then the timed ones: the CLI step, the IPC step, the in-process step
/// with a one-frame and a 32-frame stack trace.
fn steps(
    ctx: &Context,
    session: &CliSession,
    stepper: &mut Stopped,
) -> BenchResult<[Vec<Duration>; 4]> {
    let plan = &ctx.plan;
    let mut samples: [Vec<Duration>; 4] = Default::default();
    for round in 0..plan.warmup + plan.steps {
        let (cli, out) = session.timed(&["next", "--wait"])?;
        expect_contains(&out, "Stepped", "next --wait")?;
        let ipc = session.ipc(next_and_wait())?;
        let shallow = ctx.inproc.step(stepper, 1)?;
        let deep = ctx.inproc.step(stepper, 32)?;
        if round >= plan.warmup {
            for (all, time) in samples.iter_mut().zip([cli, ipc, shallow, deep]) {
                all.push(time);
            }
        }
    }
    Ok(samples)
}

/// `continue --wait` to a breakpoint hit on every round of steploop's loop, its report carrying
/// the frame's locals, against the same hit driven in-process: `continue` → `stopped` →
/// `stackTrace(1)` → the locals one level deep. The report's own figure without values
/// (`--locals none`) is beside them, so the values' cost reads off the table.
pub fn continue_with_locals(ctx: &mut Context) -> BenchResult<()> {
    let steploop = build("c/steploop.c");
    let source = crate::common::fixture_path("c/steploop.c");
    let line = crate::common::line_of("c/steploop.c", "@steploop_add");
    let location = format!("{}:{line}", path_str(&source)?);
    let session = ctx.session();
    session.run(&["start", path_str(&steploop)?, "--break", &location])?;
    let mut hitter = ctx.inproc.stop_at(&steploop, "main")?;
    ctx.inproc.break_at(&hitter, &source, line)?;
    let hits = hits(ctx, &session, &mut hitter);
    ctx.inproc.finish(hitter);
    drop(session);
    let [with_locals, without, inproc] = hits?.map(Stats::of);

    let table = &mut ctx.table;
    let over = (with_locals.median.as_secs_f64() - inproc.median.as_secs_f64()) * 1000.0;
    table.row(
        "continue --wait, report with locals",
        &with_locals,
        &format!("{over:+.2} ms vs in-process"),
        "≤ in-process stop + variables + 2 ms",
        Some(over <= 2.0),
    );
    table.row(
        "  continue --wait --locals none",
        &without,
        &format!(
            "{:+.2} ms vs in-process",
            (without.median.as_secs_f64() - inproc.median.as_secs_f64()) * 1000.0
        ),
        "—",
        None,
    );
    table.row(
        "  in-process continue → stopped → stackTrace(1) → locals",
        &inproc,
        "adapter's own time",
        "—",
        None,
    );
    Ok(())
}

/// The warm-up rounds, then the timed ones: the CLI hit with and without values, the
/// in-process hit.
fn hits(
    ctx: &Context,
    session: &CliSession,
    hitter: &mut Stopped,
) -> BenchResult<[Vec<Duration>; 3]> {
    let plan = &ctx.plan;
    let mut samples: [Vec<Duration>; 3] = Default::default();
    for round in 0..plan.warmup + plan.steps {
        let (with_locals, out) = session.timed(&["continue", "--wait", "--locals", "all"])?;
        expect_contains(&out, "Locals:", "continue --wait")?;
        let (without, _) = session.timed(&["continue", "--wait", "--locals", "none"])?;
        let inproc = ctx.inproc.hit(hitter)?;
        if round >= plan.warmup {
            for (all, time) in samples.iter_mut().zip([with_locals, without, inproc]) {
                all.push(time);
            }
        }
    }
    Ok(samples)
}
