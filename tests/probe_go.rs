//! `probe` on a Go program through Delve, whose program writes to Delve's own stdout and stderr.
//! A probe that ends at a hit kills the program itself rather than wait for Delve's answer to
//! `disconnect` (1-200 ms): what the program wrote before the hit must still be in the report,
//! its last line included, and nothing of it may be left running.
//!
//! Fails (never skips) when Delve or Go is missing: `.ci/run` installs them.
#![cfg(unix)]

mod common;

use common::probe::no_process_left;
use common::{Run, Session, build_go, require_delve, with_go_env};

/// Runs `debugger [--json] probe LEDGER --break main.add EXTRA...` with the tests' Go
/// environment, on the ledger fixture's binary copied into the test's own directory (so that a
/// program left running can be told from other tests' by its path).
fn probe_ledger(s: &Session, json: bool, extra: &[&str]) -> Run {
    let ledger = s.cwd.join("go-ledger");
    std::fs::copy(build_go("go/ledger/main.go"), &ledger).expect("copy the fixture");
    let mut command = s.command();
    with_go_env(&mut command);
    if json {
        command.arg("--json");
    }
    command
        .arg("probe")
        .arg(&ledger)
        .args(["--break", "main.add"])
        .args(extra);
    Run::from(command.output().expect("run debugger"))
}

#[test]
fn a_probe_ended_at_a_hit_keeps_the_output_before_it_and_leaves_nothing_running() {
    require_delve();
    let s = Session::new();
    let run = probe_ledger(&s, false, &["--print", "a", "--hits", "3"]);
    let out = run.ok();
    assert!(
        out.starts_with("go-ledger: 3 hits; --hits 3 reached; the probe ended the program\n"),
        "{out}"
    );
    assert!(out.contains("  a: 0 | 0 | 1\n"), "{out}");
    // Two steps ran before the third call to add: both lines, the last one whole.
    assert!(
        out.contains("Output:\n  step 0: total=0 balance=100\n  step 1: total=1 balance=101\n"),
        "{out}"
    );
    assert!(!out.contains("step 2:"), "{out}");
    no_process_left(&s);
}

#[test]
fn a_probe_that_outlives_the_program_reports_its_whole_output_and_exit_code() {
    require_delve();
    let s = Session::new();
    let run = probe_ledger(&s, true, &["--hits", "10"]);
    assert_eq!(run.code, 0, "{run:?}");
    let data = &run.json()["data"];
    assert_eq!(data["hits"].as_array().map(Vec::len), Some(5), "{data}");
    assert_eq!(data["ended"]["exit_code"], 3, "{data}");
    let tail = data["output"]["tail"].as_str().unwrap_or("");
    // Its last lines, on stderr and stdout: two pipes, read in either order.
    assert!(tail.contains("ledger: done\n"), "{data}");
    assert!(tail.contains("total: 10\n"), "{data}");
}
