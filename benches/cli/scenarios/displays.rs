//! `next --wait` with one display (`display acc`) against the same step driven in-process:
//! `next` → `stopped` → `stackTrace(1)` → the top frame's locals one level deep beside an
//! `evaluate` of the display, sent together as the daemon sends them. Beside it, the same
//! step in a session with no display and with a one-off `-p acc`, so what a display costs a
//! report reads off the table.
//!
//! The sessions are stopped runs of fixtures/c/steploop.c, a loop no number of steps finishes,
//! stepped in turn so each adapter idles between its steps as the others do.

use std::time::Duration;

use super::Context;
use crate::BenchResult;
use crate::common::build;
use crate::inprocess::Stopped;
use crate::session::{CliSession, expect_contains, next_and_wait, path_str};
use crate::stats::Stats;

/// The display: steploop's accumulator, which every step of the loop's body changes.
const DISPLAYED: &str = "acc";

pub fn next_with_display(ctx: &mut Context) -> BenchResult<()> {
    let steploop = build("c/steploop.c");
    let shown = ctx.session();
    shown.run(&["start", path_str(&steploop)?, "--break", "main"])?;
    shown.run(&["display", DISPLAYED])?;
    let plain = ctx.session();
    plain.run(&["start", path_str(&steploop)?, "--break", "main"])?;
    let mut stepper = ctx.inproc.stop_at(&steploop, "main")?;
    let steps = steps(ctx, &shown, &plain, &mut stepper);
    ctx.inproc.finish(stepper);
    drop((shown, plain));
    let [with_display, ipc, without, one_off, inproc] = steps?.map(Stats::of);

    let table = &mut ctx.table;
    let over = |stats: &Stats| {
        format!(
            "{:+.2} ms vs in-process",
            (stats.median.as_secs_f64() - inproc.median.as_secs_f64()) * 1000.0
        )
    };
    let margin = (with_display.median.as_secs_f64() - inproc.median.as_secs_f64()) * 1000.0;
    table.row(
        "next --wait, one display",
        &with_display,
        &over(&with_display),
        "≤ in-process step + evaluate + 2 ms",
        Some(margin <= 2.0),
    );
    table.row(
        "  its daemon round trip (no CLI process)",
        &ipc,
        &over(&ipc),
        "—",
        None,
    );
    table.row(
        "  next --wait, no display",
        &without,
        &over(&without),
        "—",
        None,
    );
    table.row("  next --wait -p acc", &one_off, &over(&one_off), "—", None);
    table.row(
        "  in-process next → stopped → stackTrace(1) → locals + evaluate",
        &inproc,
        "adapter's own time",
        "—",
        None,
    );
    Ok(())
}

/// The warm-up rounds, then the timed ones: the step with the display (through the CLI, and as
/// one request from this process), without it, with a one-off `-p`, and in-process. The four
/// steps through the daemons take turns at going first, so none of them is always the one that
/// follows the in-process step.
fn steps(
    ctx: &Context,
    shown: &CliSession,
    plain: &CliSession,
    stepper: &mut Stopped,
) -> BenchResult<[Vec<Duration>; 5]> {
    let plan = &ctx.plan;
    let mut samples: [Vec<Duration>; 5] = Default::default();
    let line = format!("1: {DISPLAYED} = ");
    let step = |which: usize| -> BenchResult<Duration> {
        let (time, out) = match which {
            0 => shown.timed(&["next", "--wait"])?,
            1 => return shown.ipc(next_and_wait()),
            2 => plain.timed(&["next", "--wait"])?,
            _ => plain.timed(&["next", "--wait", "-p", DISPLAYED])?,
        };
        match which {
            0 => expect_contains(&out, &line, "next --wait with a display")?,
            2 => expect_contains(&out, "Stepped", "next --wait")?,
            _ => expect_contains(&out, "Printed:", "next --wait -p")?,
        }
        Ok(time)
    };
    for round in 0..plan.warmup + plan.steps {
        let mut times = [Duration::ZERO; 5];
        for turn in 0..4 {
            let which = (round + turn) % 4;
            times[which] = step(which)?;
        }
        times[4] = ctx.inproc.step_with_evaluate(stepper, DISPLAYED)?;
        if round >= plan.warmup {
            for (all, time) in samples.iter_mut().zip(times) {
                all.push(time);
            }
        }
    }
    Ok(samples)
}
