//! Start to breakpoint: `start --break apply` + `continue --wait` on fixtures/c/ledger.c through
//! the CLI, against the daemon's launch sequence driven in-process, alternately. Its median is
//! kept in the context: the 1,000-breakpoint start and the 20 sessions are set against it.

use std::time::Instant;

use super::Context;
use crate::BenchResult;
use crate::common::build;
use crate::session::{expect_contains, path_str};
use crate::stats::Stats;

pub fn start_to_breakpoint(ctx: &mut Context) -> BenchResult<()> {
    let ledger = build("c/ledger.c");
    let mut cli_launch = Vec::new();
    let mut inproc_launch = Vec::new();
    for i in 0..ctx.plan.launches + 1 {
        let session = ctx.session();
        let began = Instant::now();
        session.run(&["start", path_str(&ledger)?, "--break", "apply"])?;
        let stopped = session.run(&["continue", "--wait"])?;
        let elapsed = began.elapsed();
        expect_contains(&stopped, "in apply", "continue --wait to apply")?;
        drop(session);
        let in_process = ctx.inproc.launch_to_breakpoint(&ledger, "apply")?;
        // The first of each is a warm-up (page cache, lldb's symbol caches).
        if i > 0 {
            cli_launch.push(elapsed);
            inproc_launch.push(in_process);
        }
    }
    let cli_launch = Stats::of(cli_launch);
    let inproc_launch = Stats::of(inproc_launch);
    let ratio = cli_launch.median_ratio(&inproc_launch);
    ctx.table.row(
        "start --break apply + continue --wait",
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
