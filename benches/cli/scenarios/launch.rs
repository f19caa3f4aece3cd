//! Start to breakpoint: `start --break apply`, which answers with the stop, on fixtures/c/ledger.c through
//! the CLI, against the daemon's launch sequence driven in-process, alternately. Its median is
//! kept in the context: the 1,000-breakpoint start and the 20 sessions are set against it.

use std::path::Path;
use std::time::Instant;

use super::Context;
use crate::BenchResult;
use crate::common::build;
use crate::session::{expect_contains, path_str};
use crate::stats::Stats;

pub fn start_to_breakpoint(ctx: &mut Context) -> BenchResult<()> {
    let ledger = build("c/ledger.c");
    let (cli_launch, inproc_launch) = launches(ctx, &ledger, "apply")?;
    let ratio = cli_launch.median_ratio(&inproc_launch);
    ctx.table.row(
        "start --break apply, to its first stop",
        &cli_launch,
        &format!("{ratio:.2}× in-process"),
        "≤ 1.1× in-process",
        Some(ratio <= 1.1),
    );
    ctx.table.row(
        "  in-process launch to breakpoint",
        &inproc_launch,
        "spawn → … → stopped → stackTrace(1)",
        "—",
        None,
    );
    ctx.launch = Some(cli_launch);
    Ok(())
}

/// `start PROGRAM --break FUNCTION` to its first stop through the CLI, and the same launch
/// in-process, alternately, `plan.launches` times each after one warm-up of each (page cache,
/// lldb's symbol caches).
pub(super) fn launches(
    ctx: &Context,
    program: &Path,
    function: &str,
) -> BenchResult<(Stats, Stats)> {
    let mut cli_launch = Vec::new();
    let mut inproc_launch = Vec::new();
    for i in 0..ctx.plan.launches + 1 {
        let session = ctx.session();
        let began = Instant::now();
        // `start` answers with the first stop, as gdb's `run` does.
        let stopped = session.run(&["start", path_str(program)?, "--break", function])?;
        let elapsed = began.elapsed();
        // A Rust function is named with its path (`values::inspect`).
        expect_contains(&stopped, function, "start to the breakpoint")?;
        drop(session);
        let in_process = ctx.inproc.launch_to_breakpoint(program, function)?;
        if i > 0 {
            cli_launch.push(elapsed);
            inproc_launch.push(in_process);
        }
    }
    Ok((Stats::of(cli_launch), Stats::of(inproc_launch)))
}
