//! 1,000 breakpoints across 100 files, four ways: one `breakpoint add` per call (and the same
//! adds over IPC without a CLI process), all in one `breakpoint add LOC...`, the same
//! `setBreakpoints` sent in-process, and all given to one `start`.
//!
//! The program is generated, not a fixture: 100 files of ten statement lines each and a `main`
//! calling them all, which a fixtures/ folder of 101 near-identical files would only obscure.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, Instant};

use serde_json::json;

use debugger::common::location::Location;
use debugger::ipc::protocol::{BreakpointSpec, Command as IpcCommand};

use super::Context;
use crate::BenchResult;
use crate::session::{CliSession, path_str};
use crate::stats::Stats;
use crate::table::fmt_duration;

/// The statement lines of each generated file (`int s = a;` and nine `s += k;`).
const MANY_LINES: [u32; 10] = [3, 4, 5, 6, 7, 8, 9, 10, 11, 12];

pub fn thousand_breakpoints(ctx: &mut Context) -> BenchResult<()> {
    let (program, files) = many_files_program(ctx.work.path())?;
    let locations: Vec<String> = files
        .iter()
        .flat_map(|file| MANY_LINES.map(move |line| format!("{}:{line}", file.display())))
        .collect();
    one_per_call(ctx, &program, &files, &locations)?;
    in_one_call(ctx, &program, &locations)?;
    in_process(ctx, &program, &files)?;
    in_one_start(ctx, &program, &locations)
}

/// Through the CLI, one `breakpoint add` at a time, on a session stopped in main; then the same
/// adds again, sent to the daemon from this process: the CLI process's share.
fn one_per_call(
    ctx: &mut Context,
    program: &Path,
    files: &[PathBuf],
    locations: &[String],
) -> BenchResult<()> {
    let session = ctx.session();
    session.run(&["start", path_str(program)?, "--break", "main"])?;
    let mut adds = Vec::with_capacity(locations.len());
    let began = Instant::now();
    for location in locations {
        let (elapsed, _) = session.timed(&["breakpoint", "add", location])?;
        adds.push(elapsed);
    }
    let total = began.elapsed();
    let adds = Stats::of(adds);
    let (listed, verified) = listed_and_verified(&session)?;
    let table = &mut ctx.table;
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
    let listing = session.stats_n(ctx.plan.heavy, 2, &["breakpoint", "list"])?;
    table.row("breakpoint list (1,001)", &listing, "—", "—", None);

    session.run(&["breakpoint", "remove", "--all"])?;
    let mut ipc_adds = Vec::with_capacity(locations.len());
    let began = Instant::now();
    for file in files {
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
    Ok(())
}

/// All 1,000 in one `breakpoint add LOC...`: each file's list goes to the adapter once.
fn in_one_call(ctx: &mut Context, program: &Path, locations: &[String]) -> BenchResult<()> {
    let session = ctx.session();
    session.run(&["start", path_str(program)?, "--break", "main"])?;
    let mut args: Vec<&str> = vec!["breakpoint", "add"];
    args.extend(locations.iter().map(String::as_str));
    let (batch, _) = session.timed(&args)?;
    let (listed, verified) = listed_and_verified(&session)?;
    ctx.table.row_text(
        "1,000 breakpoints in one `breakpoint add` (100 files)",
        "1",
        &fmt_duration(batch),
        "—",
        &format!("{verified} of {listed} listed verified"),
        "≤ 1 s",
        Some(batch <= Duration::from_secs(1) && verified == locations.len() + 1),
    );
    Ok(())
}

/// The same 1,000 incremental `setBreakpoints`, and 100 batched ones, in-process.
fn in_process(ctx: &mut Context, program: &Path, files: &[PathBuf]) -> BenchResult<()> {
    let adapter = ctx
        .inproc
        .incremental_breakpoints(program, files, &MANY_LINES)?;
    let table = &mut ctx.table;
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
    Ok(())
}

/// All 1,000 given to one `start`, to the first stop.
fn in_one_start(ctx: &mut Context, program: &Path, locations: &[String]) -> BenchResult<()> {
    let plain_launch = ctx.launch()?.median;
    let session = ctx.session();
    let mut args: Vec<&str> = vec!["start", path_str(program)?, "--break", "main"];
    for location in locations {
        args.push("--break");
        args.push(location);
    }
    let began = Instant::now();
    session.run(&args)?;
    let one_shot = began.elapsed();
    ctx.table.row_text(
        "  start -b ×1,001, to its first stop",
        "1",
        &fmt_duration(one_shot),
        "—",
        &format!(
            "{:+.0} ms over a plain start",
            (one_shot.as_secs_f64() - plain_launch.as_secs_f64()) * 1000.0
        ),
        "—",
        None,
    );
    Ok(())
}

/// How many breakpoints a session lists, and how many of them are verified.
fn listed_and_verified(session: &CliSession) -> BenchResult<(usize, usize)> {
    let list = session.run_json(&["breakpoint", "list"])?;
    let all = list["breakpoints"]
        .as_array()
        .map_or(&[][..], Vec::as_slice);
    let verified = all.iter().filter(|b| b["verified"] == json!(true)).count();
    Ok((all.len(), verified))
}

/// 100 C files in `dir` with a function of 10 statement lines each (MANY_LINES), and a main
/// calling them all, built with `cc -g -O0` as the fixtures are.
fn many_files_program(dir: &Path) -> BenchResult<(PathBuf, Vec<PathBuf>)> {
    let dir = dir.join("many");
    std::fs::create_dir_all(&dir).map_err(|e| format!("create {}: {e}", dir.display()))?;
    let write = |path: &Path, text: &str| {
        std::fs::write(path, text).map_err(|e| format!("write {}: {e}", path.display()))
    };
    let mut files = Vec::new();
    let mut main = String::new();
    for i in 0..100 {
        let mut text = format!("int f{i:03}(int a)\n{{\n    int s = a;\n");
        for k in 1..10 {
            text.push_str(&format!("    s += {k};\n"));
        }
        text.push_str("    return s;\n}\n");
        let path = dir.join(format!("m{i:03}.c"));
        write(&path, &text)?;
        files.push(path);
        main.push_str(&format!("int f{i:03}(int a);\n"));
    }
    main.push_str("int main(void)\n{\n    int t = 0;\n");
    for i in 0..100 {
        main.push_str(&format!("    t += f{i:03}(t);\n"));
    }
    main.push_str("    return t & 1;\n}\n");
    let main_path = dir.join("main.c");
    write(&main_path, &main)?;
    let program = dir.join("many");
    let status = Command::new("cc")
        .args(["-g", "-O0", "-o"])
        .arg(&program)
        .arg(&main_path)
        .args(&files)
        .status()
        .map_err(|e| format!("run cc: {e}"))?;
    if !status.success() {
        return Err(format!("cc failed on {}", main_path.display()).into());
    }
    Ok((program, files))
}
