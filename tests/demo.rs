//! `debugger demo`, the README's first line, runs its whole scripted session.

mod common;

use common::{Session, require_lldb_dap};

#[test]
fn demo_runs_every_step_and_reaches_the_exit() {
    require_lldb_dap();
    let s = Session::new();
    let run = s.run(&["--json", "demo"]);
    let value = run.json();
    assert_eq!(value["ok"], true, "{value}\nstderr: {}", run.stderr);
    let steps = value["data"]["steps"].as_array().expect("steps");
    assert!(steps.len() >= 10, "{value}");
    for step in steps {
        assert_eq!(step["exit_code"], 0, "a demo step failed: {step}");
    }
    let all: String = steps.iter().filter_map(|s| s["stdout"].as_str()).collect();
    assert!(all.contains("Stopped at breakpoint 1 in apply"), "{all}");
    assert!(all.contains("Program exited with code 3"), "{all}");
    // The logpoint logs each call until the conditional stop; the watchpoint sees the last one.
    assert!(all.contains("[logpoint 3] amount=1 balance=100"), "{all}");
    assert!(all.contains("Stopped at watchpoint 4 in apply"), "{all}");
    assert!(all.contains("g_counter: 4 -> 5"), "{all}");
    assert!(
        !all.contains("/* @"),
        "test markers leak into the demo: {all}"
    );
}

#[test]
fn demo_text_shows_each_command_before_its_output() {
    require_lldb_dap();
    let s = Session::new();
    let run = s.run(&["demo"]);
    let out = run.ok();
    let start = out.find("$ debugger start").expect("start step shown");
    let locals = out.find("$ debugger locals").expect("locals step shown");
    assert!(start < locals);
    assert!(out.contains("acct"), "{out}");
}
