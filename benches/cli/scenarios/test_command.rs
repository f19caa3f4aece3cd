//! `debugger test --break-on-failure` on the cargo fixture project (fixtures/tests/rust) to the
//! failure's stop, against `cargo test` running the same test alone, both with the tests already
//! built (so cargo's part of either is its up-to-date check). The difference is the debugger's
//! share: finding the test (the executables' `--list`), the adapter's launch to the panic, the
//! frame selection and the report; it is set against the adapter's own launch to `rust_panic`
//! in-process (issue 19: at most that plus 20%).

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::Instant;

use super::Context;
use crate::BenchResult;
use crate::common::fixture_path;
use crate::session::expect_contains;
use crate::stats::Stats;

const TEST: &str = "tests::total_applies_discount";

pub fn failing_cargo_test(ctx: &mut Context) -> BenchResult<()> {
    let target = ctx.work.path().join("cart-target");
    let project = ctx.work.path().join("cart");
    copy_project(&project, &target)?;
    // The build, excluded from both: after it, each cargo call only finds the tests fresh.
    let executable = build(&project)?;

    let mut cli = Vec::new();
    let mut alone = Vec::new();
    let mut adapter = Vec::new();
    for round in 0..ctx.plan.launches + 1 {
        let mut session = ctx.session();
        // In the project as built: a copy per session would be newer than the build, and its
        // `cargo test --no-run` a rebuild inside the time measured.
        session.run_in(&project);
        let began = Instant::now();
        let stopped = session.run(&["test", TEST, "--break-on-failure"])?;
        let elapsed = began.elapsed();
        expect_contains(&stopped, "Stopped at the failure", "debugger test")?;
        drop(session);
        let began = Instant::now();
        let status = Command::new("cargo")
            .args(["test", "--lib", "-q", TEST, "--", "--exact"])
            .current_dir(&project)
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .status()
            .map_err(|e| format!("run cargo test: {e}"))?;
        let cargo = began.elapsed();
        if status.success() {
            return Err("the fixture's failing test passed under cargo test".into());
        }
        let in_process = ctx.inproc.launch_to_breakpoint(&executable, "rust_panic")?;
        if round > 0 {
            cli.push(elapsed);
            alone.push(cargo);
            adapter.push(in_process);
        }
    }
    let (cli, alone, adapter) = (Stats::of(cli), Stats::of(alone), Stats::of(adapter));
    let share = cli.median.as_secs_f64() - alone.median.as_secs_f64();
    let ratio = share / adapter.median.as_secs_f64();
    ctx.table.row(
        "debugger test --break-on-failure (cargo, built)",
        &cli,
        &format!("share {:.0} ms = {ratio:.2}× adapter", share * 1000.0),
        "share ≤ 1.2× adapter",
        Some(ratio <= 1.2),
    );
    ctx.table.row(
        "  cargo test of that test alone (built)",
        &alone,
        "the runner's own time",
        "—",
        None,
    );
    ctx.table.row(
        "  in-process launch to rust_panic",
        &adapter,
        "adapter's own launch",
        "—",
        None,
    );
    Ok(())
}

/// Copies the fixture crate into `dir`, its build output sent to `target`.
fn copy_project(dir: &Path, target: &Path) -> BenchResult<()> {
    let from = fixture_path("tests/rust");
    for sub in ["src", "tests", ".cargo"] {
        std::fs::create_dir_all(dir.join(sub))?;
    }
    for file in ["Cargo.toml", "src/lib.rs", "tests/checkout.rs"] {
        std::fs::copy(from.join(file), dir.join(file))?;
    }
    let config = format!("[build]\ntarget-dir = {:?}\n", target.display().to_string());
    std::fs::write(dir.join(".cargo/config.toml"), config)?;
    Ok(())
}

/// Builds the crate's tests and returns the library's test executable.
fn build(project: &Path) -> BenchResult<PathBuf> {
    let output = Command::new("cargo")
        .args(["test", "--lib", "--no-run", "--message-format=json"])
        .current_dir(project)
        .stderr(Stdio::null())
        .output()
        .map_err(|e| format!("run cargo test --no-run: {e}"))?;
    String::from_utf8_lossy(&output.stdout)
        .lines()
        .filter_map(|line| serde_json::from_str::<serde_json::Value>(line).ok())
        .find_map(|m| m["executable"].as_str().map(PathBuf::from))
        .ok_or_else(|| "cargo built no test executable for the fixture".into())
}
