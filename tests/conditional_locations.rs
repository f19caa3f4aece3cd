//! gdb's `LOC if COND`, wherever a location is taken (`break`, `start -b`, `probe -b`, `test -b`),
//! against real adapters: lldb-dap (C), pdb and debugpy (Python), Delve (Go) and the node adapter
//! (JavaScript). Each stops, or records, only where the condition holds. Locations are written
//! as a user types them (a bare file name and a line, a function), and every command runs from
//! the test's own folder, not the program's.
//!
//! Every test fails (never skips) when its adapter is missing: `.ci/run` installs them.

mod common;

use std::path::Path;

use common::test_project::{copy_dir, json as test_json};
use common::{
    Run, Session, build, build_go, fixture_path, line_of, require_debugpy, require_delve,
    require_lldb_dap, require_node, require_python, with_go_env,
};
use serde_json::Value;

const LEDGER: &str = "c/ledger.c";
const APP_PY: &str = "python/app.py";
const LEDGER_GO: &str = "go/ledger/main.go";
const APP_JS: &str = "javascript/app.js";

/// `NAME:LINE if CONDITION` for the line of `marker` in `fixture`, the file named as a user
/// names it: by its name alone.
fn if_at(fixture: &str, marker: &str, condition: &str) -> String {
    let name = Path::new(fixture)
        .file_name()
        .and_then(|n| n.to_str())
        .expect("a file name");
    format!("{name}:{} if {condition}", line_of(fixture, marker))
}

/// `debugger --json probe PROGRAM ARGS...` (with the Go environment, for Delve's sake).
fn probe(s: &Session, program: &Path, args: &[&str]) -> Value {
    let mut command = s.command();
    with_go_env(&mut command);
    let run = Run::from(
        command
            .args(["--json", "probe"])
            .arg(program)
            .args(args)
            .output()
            .expect("run debugger"),
    );
    run.json()
}

/// The value of the probe's first `--print` at each hit.
fn printed(report: &Value) -> Vec<String> {
    report["data"]["hits"]
        .as_array()
        .unwrap_or_else(|| panic!("no hits: {report}"))
        .iter()
        .map(|hit| {
            hit["prints"][0]["value"]
                .as_str()
                .unwrap_or("?")
                .to_string()
        })
        .collect()
}

/// Starts `program` with `-b LOCATION`, in the Go environment, and returns the stop the session
/// is at next (`await` answers at once with a stop already reached).
fn start_and_await(s: &Session, program: &Path, location: &str) -> (Value, Value) {
    let mut command = s.command();
    with_go_env(&mut command);
    let run = Run::from(
        command
            .args(["--json", "start"])
            .arg(program)
            .args(["-b", location])
            .output()
            .expect("run debugger"),
    );
    let started = run.json();
    assert_eq!(started["ok"], true, "{started}");
    let stop = s.data(&["await", "--timeout", "60"]);
    (started["data"].clone(), stop)
}

/// Asserts the start set one breakpoint with `condition`, named as typed without it.
#[track_caller]
fn assert_one_conditional(started: &Value, location: &str, condition: &str) {
    let breakpoints = started["breakpoints"].as_array().expect("breakpoints");
    assert_eq!(breakpoints.len(), 1, "{started}");
    assert_eq!(breakpoints[0]["condition"], condition, "{started}");
    let typed = location.split(" if ").next().unwrap_or_default();
    assert_eq!(breakpoints[0]["requested"], typed, "{started}");
}

// ---- C, lldb-dap --------------------------------------------------------------------------

#[test]
fn lldb_probe_records_only_the_iteration_where_the_condition_holds() {
    require_lldb_dap();
    let s = Session::new();
    let location = if_at(LEDGER, "@loop_call", "i == 3");
    let report = probe(
        &s,
        &build(LEDGER),
        &["-b", &location, "-p", "i", "--hits", "5"],
    );
    assert_eq!(report["ok"], true, "{report}");
    assert_eq!(printed(&report), ["3"], "{report}");
    assert_eq!(
        report["data"]["breakpoints"][0]["condition"], "i == 3",
        "{report}"
    );
    // The text report shows the one hit, its breakpoint's condition, and that the program ran
    // to its end after it.
    let text = s
        .command()
        .arg("probe")
        .arg(build(LEDGER))
        .args(["-b", &location, "-p", "i", "--hits", "5"])
        .output()
        .expect("run debugger");
    let text = String::from_utf8_lossy(&text.stdout);
    assert!(text.starts_with("ledger: 1 hit;"), "{text}");
    assert!(text.contains("i (int) = 3"), "{text}");
    assert!(text.contains("verified  if i == 3"), "{text}");
}

#[test]
fn probe_flags_give_every_break_a_hit_count_or_a_condition_but_not_two_conditions() {
    require_lldb_dap();
    let s = Session::new();
    let location = format!("ledger.c:{}", line_of(LEDGER, "@loop_call"));
    let from_fourth = probe(
        &s,
        &build(LEDGER),
        &[
            "-b",
            &location,
            "--hit-count",
            "4",
            "-p",
            "i",
            "--hits",
            "5",
        ],
    );
    assert_eq!(printed(&from_fourth), ["3", "4"], "{from_fourth}");
    let twice = probe(
        &s,
        &build(LEDGER),
        &[
            "-b",
            &format!("{location} if i == 1"),
            "--condition",
            "i == 2",
        ],
    );
    assert_eq!(twice["error"]["code"], "usage", "{twice}");

    require_python();
    let flagged = probe(
        &s,
        &fixture_path(APP_PY),
        &[
            "-b",
            &format!("app.py:{}", line_of(APP_PY, "@loop_call")),
            "--condition",
            "i == 1",
            "-p",
            "i",
            "--hits",
            "5",
        ],
    );
    assert_eq!(printed(&flagged), ["1"], "{flagged}");
}

#[test]
fn lldb_start_and_break_take_a_condition_after_if() {
    require_lldb_dap();
    let s = Session::new();
    let location = "apply if amount == 2";
    let (started, stop) = start_and_await(&s, &build(LEDGER), location);
    assert_one_conditional(&started, location, "amount == 2");
    assert_eq!(stop["reason"], "breakpoint", "{stop}");
    assert_eq!(s.value_of("amount"), "2");

    let update = if_at(LEDGER, "@apply_update", "amount == 4");
    let added = s.data(&["break", &update]);
    assert_eq!(added["condition"], "amount == 4", "{added}");
    assert_eq!(
        added["line"],
        line_of(LEDGER, "@apply_update"),
        "the location is the text before 'if': {added}"
    );
    let stop = s.data(&["continue", "--wait", "--timeout", "30"])["stop"].clone();
    assert_eq!(stop["breakpoint_ids"], serde_json::json!([2]), "{stop}");
    assert_eq!(s.value_of("amount"), "4");
    let listed = s.run(&["break", "list"]);
    assert!(
        listed.ok().contains("  if amount == 4"),
        "{}",
        listed.stdout
    );
}

#[test]
fn a_condition_given_twice_or_if_without_a_location_is_a_usage_error() {
    require_lldb_dap();
    let s = Session::new();
    let started = s.start(&build(LEDGER), &["--stop-on-entry"]);
    assert_eq!(started["stop"]["reason"], "entry", "{started}");
    let both = s.run(&[
        "--json",
        "break",
        "apply if amount == 1",
        "--condition",
        "amount == 2",
    ]);
    assert_eq!(both.code, 2, "{both:?}");
    let error = both.failure();
    let message = error["message"].as_str().unwrap_or_default();
    assert!(
        message.contains("if amount == 1") && message.contains("--condition 'amount == 2'"),
        "{error}"
    );
    // What a shell makes of an unquoted `break ledger.c:32 if amount > 1`.
    let split = s.run(&["--json", "break", "ledger.c:32", "if", "amount"]);
    assert_eq!(split.code, 2, "{split:?}");
    let error = split.failure();
    assert!(
        error["message"]
            .as_str()
            .is_some_and(|m| m.contains("no location before 'if'")),
        "{error}"
    );
    assert!(
        error["hint"]
            .as_str()
            .is_some_and(|h| h.contains("'LOC if COND' as one argument")),
        "{error}"
    );
    let empty = s.run(&["--json", "break", "apply if "]);
    assert_eq!(empty.code, 2, "{empty:?}");
    assert_eq!(
        s.data(&["break", "list"])["breakpoints"],
        serde_json::json!([]),
        "nothing was added"
    );
    let start = s.run(&["start", "-b", "if x", "/bin/true"]);
    assert_eq!(start.code, 2, "{start:?}");
}

// ---- Python: pdb (probe's) and debugpy (a session's) ---------------------------------------

#[test]
fn pdb_probe_records_only_the_iteration_where_the_condition_holds() {
    require_python();
    let s = Session::new();
    let location = if_at(APP_PY, "@loop_call", "i == 3");
    let report = probe(
        &s,
        &fixture_path(APP_PY),
        &["-b", &location, "-p", "total", "--hits", "5"],
    );
    assert_eq!(report["data"]["adapter"], "pdb", "{report}");
    // total is 0 + 1 + 2 + 3 by the fourth call.
    assert_eq!(printed(&report), ["6"], "{report}");
}

#[test]
fn debugpy_start_stops_only_where_the_condition_holds() {
    require_debugpy();
    let s = Session::new();
    let location = if_at(APP_PY, "@deposit_body", "amount == 2");
    let (started, stop) = start_and_await(&s, &fixture_path(APP_PY), &location);
    assert_eq!(started["adapter"], "debugpy", "{started}");
    assert_one_conditional(&started, &location, "amount == 2");
    assert_eq!(
        stop["frame"]["line"],
        line_of(APP_PY, "@deposit_body"),
        "{stop}"
    );
    assert_eq!(s.value_of("amount"), "2");
}

// ---- Go, Delve ------------------------------------------------------------------------------

#[test]
fn delve_probe_and_start_take_a_condition_after_if() {
    require_delve();
    let s = Session::new();
    let ledger = build_go(LEDGER_GO);
    let report = probe(
        &s,
        &ledger,
        &["-b", "main.add if b == 3", "-p", "a", "--hits", "5"],
    );
    // a is the running total 0 + 0 + 1 + 2 when add is called with b == 3.
    assert_eq!(printed(&report), ["3"], "{report}");

    let location = if_at(LEDGER_GO, "@loop_call", "i == 2");
    let (started, stop) = start_and_await(&s, &ledger, &location);
    assert_one_conditional(&started, &location, "i == 2");
    assert_eq!(
        stop["frame"]["line"],
        line_of(LEDGER_GO, "@loop_call"),
        "{stop}"
    );
    assert_eq!(s.value_of("i"), "2");
}

// ---- JavaScript, the node adapter ---------------------------------------------------------

#[test]
fn node_probe_and_start_take_a_condition_after_if() {
    require_node();
    let s = Session::new();
    let app = fixture_path(APP_JS);
    let location = if_at(APP_JS, "@accumulate_body", "n == 3");
    let report = probe(&s, &app, &["-b", &location, "-p", "total", "--hits", "5"]);
    assert_eq!(printed(&report), ["3"], "{report}");

    let location = "accumulate if n == 2";
    let (started, stop) = start_and_await(&s, &app, location);
    assert_one_conditional(&started, location, "n == 2");
    assert_eq!(stop["reason"], "breakpoint", "{stop}");
    assert_eq!(s.value_of("n"), "2");
}

// ---- test -b: node's own runner, and go test ----------------------------------------------

/// A session whose folder holds a copy of the fixture project `name` (fixtures/tests/NAME).
fn project(name: &str) -> Session {
    let s = Session::new();
    copy_dir(&fixture_path(&format!("tests/{name}")), &s.cwd);
    s
}

#[test]
fn node_test_stops_at_a_breakpoint_only_where_its_condition_holds() {
    require_node();
    let s = project("javascript");
    // total() runs for both tests; only the second gives a discount.
    let location = if_at(
        "tests/javascript/cart.test.js",
        "@js_total_body",
        "discount == 10",
    );
    let answer = test_json(&s, &["test", "cart.test.js", "-b", &location]);
    assert_eq!(answer["data"]["outcome"], "stopped", "{answer}");
    assert_eq!(s.value_of("sum"), "400");
    assert_eq!(s.value_of("discount"), "10");
}

#[test]
fn go_test_stops_at_a_breakpoint_only_where_its_condition_holds() {
    require_delve();
    let s = project("go");
    let location = if_at("tests/go/cart.go", "@go_total_body", "discount == 10");
    let answer = test_json(&s, &["test", "TestTotalTable", "-b", &location]);
    assert_eq!(answer["data"]["outcome"], "stopped", "{answer}");
    assert_eq!(s.value_of("discount"), "10");
}
