//! A Rust program (fixtures/rust/values.rs), with the toolchain's value formatters the session
//! loads for it: start to a breakpoint in `inspect` against the same launch in-process (the same
//! formatter commands sent, as `DapSession::launch` asks the adapter for them), and `locals` at
//! that stop against the same requests in-process (`scopes`, `variables`, and `variables` for each
//! local with members: Rust's formatters make each of those cost milliseconds), over the
//! hello-world floor measured in the same rounds.

use std::process::{Command, Stdio};

use super::Context;
use super::inspection::{hello_world, timed_output};
use crate::BenchResult;
use crate::common::build;
use crate::inprocess::Probe;
use crate::session::{expect_contains, path_str};
use crate::stats::Stats;

const FIXTURE: &str = "rust/values.rs";
const FUNCTION: &str = "inspect";

pub fn rust_values(ctx: &mut Context) -> BenchResult<()> {
    let values = build(FIXTURE);
    let program = path_str(&values)?;
    let (cli_launch, inproc_launch) = super::launch::launches(ctx, &values, FUNCTION)?;
    let ratio = cli_launch.median_ratio(&inproc_launch);
    ctx.table.row(
        "Rust: start --break inspect, to its first stop",
        &cli_launch,
        &format!("{ratio:.2}× in-process"),
        "≤ 1.15× in-process",
        Some(ratio <= 1.15),
    );
    ctx.table.row(
        "  in-process launch, formatters loaded, to breakpoint",
        &inproc_launch,
        "spawn → … → stopped → stackTrace(1)",
        "—",
        None,
    );

    let hello = hello_world(ctx.work.path())?;
    let session = ctx.session();
    session.run(&["start", program, "--break", FUNCTION])?;
    let shown = session.run(&["locals"])?;
    expect_contains(&shown, "args", "locals in inspect")?;
    let stopped = ctx.inproc.stop_at(&values, FUNCTION)?;
    let mut floor = Vec::new();
    let mut locals = Vec::new();
    let mut adapter = Vec::new();
    let measured: BenchResult<()> = (|| {
        for round in 0..ctx.plan.warmup + ctx.plan.cheap {
            let times = [
                timed_output(Command::new(&hello).stdin(Stdio::null()), "hello-world")?,
                session.timed(&["locals"])?.0,
                ctx.inproc.probe(&stopped, Probe::LocalsWithMembers)?,
            ];
            if round >= ctx.plan.warmup {
                floor.push(times[0]);
                locals.push(times[1]);
                adapter.push(times[2]);
            }
        }
        Ok(())
    })();
    ctx.inproc.finish(stopped);
    measured?;
    let (floor, locals, adapter) = (Stats::of(floor), Stats::of(locals), Stats::of(adapter));
    let over = locals.median.as_secs_f64() - adapter.median.as_secs_f64();
    let ratio = over / floor.median.as_secs_f64();
    ctx.table.row(
        "Rust: locals in inspect",
        &locals,
        &format!("{ratio:.2}× hello + adapter"),
        "≤ 2.0× hello + adapter",
        Some(ratio <= 2.0),
    );
    ctx.table.row(
        "  in-process scopes + variables, members too (Rust)",
        &adapter,
        "adapter's own time",
        "—",
        None,
    );
    Ok(())
}
