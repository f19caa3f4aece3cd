//! `finish --wait` reporting what the function returned, against the same finish driven
//! in-process: `stepOut` → `stopped` → `stackTrace(1)` → the caller's locals beside lldb's
//! `thread info`, which tells the return value. Between two finishes, an untimed `continue`
//! comes back into the function.
//!
//! The sessions are stopped runs of fixtures/c/calls.c, a loop calling `square` no number of
//! finishes ends, each stopped at `square` in turn so each adapter idles as the other does.

use std::time::Duration;

use super::Context;
use crate::BenchResult;
use crate::common::build;
use crate::inprocess::Stopped;
use crate::session::{CliSession, expect_contains, path_str};
use crate::stats::Stats;

const FUNCTION: &str = "square";

pub fn finish_with_return_value(ctx: &mut Context) -> BenchResult<()> {
    let calls = build("c/calls.c");
    let session = ctx.session();
    session.run(&["start", path_str(&calls)?, "--break", FUNCTION])?;
    let mut finisher = ctx.inproc.stop_at(&calls, FUNCTION)?;
    let finishes = finishes(ctx, &session, &mut finisher);
    ctx.inproc.finish(finisher);
    drop(session);
    let [cli, inproc] = finishes?.map(Stats::of);

    let over = (cli.median.as_secs_f64() - inproc.median.as_secs_f64()) * 1000.0;
    let table = &mut ctx.table;
    table.row(
        "finish --wait, with its return value",
        &cli,
        &format!("{over:+.2} ms vs in-process"),
        "≤ in-process finish + variables + 2 ms",
        Some(over <= 2.0),
    );
    table.row(
        "  in-process stepOut → stopped → stackTrace(1) → locals + thread info",
        &inproc,
        "adapter's own time",
        "—",
        None,
    );
    Ok(())
}

/// The warm-up rounds, then the timed ones: each a finish through the CLI and one in-process,
/// and the untimed continues back into the function.
fn finishes(
    ctx: &Context,
    session: &CliSession,
    finisher: &mut Stopped,
) -> BenchResult<[Vec<Duration>; 2]> {
    let plan = &ctx.plan;
    let mut samples: [Vec<Duration>; 2] = Default::default();
    for round in 0..plan.warmup + plan.steps {
        let (cli, out) = session.timed(&["finish", "--wait"])?;
        expect_contains(&out, "Returned:", "finish --wait")?;
        // With its locals, as a user's continue reports them: the finish that follows then has
        // the locals it compares with, and reads none before it steps (as its twin reads none).
        session.run(&["continue", "--wait"])?;
        let inproc = ctx.inproc.finish_with_return(finisher)?;
        ctx.inproc.hit(finisher)?;
        if round >= plan.warmup {
            for (all, time) in samples.iter_mut().zip([cli, inproc]) {
                all.push(time);
            }
        }
    }
    Ok(samples)
}
