//! The daemon's peak memory (`VmHWM`; lldb-dap not included): a fresh session idle at a
//! breakpoint in fixtures/c/ledger.c after a `backtrace` and `locals`, and a session that drained
//! the 2-million-line flood of fixtures/c/flood.c, whose bound is the output buffer plus 16 MiB.

use std::time::Instant;

use super::Context;
use crate::common::build;
use crate::machine::vm_hwm_mib;
use crate::session::{BUFFER_BYTES, expect_contains, path_str};
use crate::{BenchResult, MIB};

pub fn idle_and_flood(ctx: &mut Context) -> BenchResult<()> {
    idle(ctx)?;
    flood(ctx)
}

fn idle(ctx: &mut Context) -> BenchResult<()> {
    let ledger = build("c/ledger.c");
    let session = ctx.session();
    session.run(&["start", path_str(&ledger)?, "--break", "apply"])?;
    session.run(&["backtrace"])?;
    session.run(&["locals"])?;
    idle_rss_row(
        ctx,
        session.daemon_pid()?,
        "daemon peak RSS, idle at a breakpoint",
    )
}

/// A row for a stopped daemon's peak RSS (VmHWM), against the 16 MiB target.
pub(super) fn idle_rss_row(ctx: &mut Context, daemon_pid: u32, name: &str) -> BenchResult<()> {
    let used = vm_hwm_mib(daemon_pid)?;
    ctx.table.row_text(
        name,
        "1",
        &format!("{used:.1} MiB"),
        "—",
        "VmHWM",
        "≤ 16 MiB",
        Some(used <= 16.0),
    );
    Ok(())
}

fn flood(ctx: &mut Context) -> BenchResult<()> {
    let flood = build("c/flood.c");
    let session = ctx.session();
    let began = Instant::now();
    session.run(&["start", path_str(&flood)?])?;
    let ended = session.run(&["await", "--timeout", "300"])?;
    let elapsed = began.elapsed();
    expect_contains(&ended, "exited", "await the flood's end")?;
    let used = vm_hwm_mib(session.daemon_pid()?)?;
    let limit = BUFFER_BYTES as f64 / MIB + 16.0;
    ctx.table.row_text(
        "daemon peak RSS, 2M-line flood",
        "1",
        &format!("{used:.1} MiB"),
        "—",
        &format!("{:.1} s to drain ~25 MB", elapsed.as_secs_f64()),
        &format!("≤ {limit:.0} MiB (buffer + 16)"),
        Some(used <= limit),
    );
    Ok(())
}
