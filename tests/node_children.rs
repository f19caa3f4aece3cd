//! The Node processes a program starts are debugged too: a test runner's workers (vitest's
//! forks, `node --test`'s file runners) stop at breakpoints in the test files, each one a thread
//! of its own. And `debugger test` on a vitest project (fixtures/tests/vitest, vitest installed
//! at the version its package-lock pins by scripts/install-test-deps.sh) stops at a failing
//! `expect`, in the test's TypeScript, with its locals; jest (fixtures/tests/jest) likewise.

mod common;

use std::path::PathBuf;

use common::{Session, fixture_path, line_of, require_node};
use serde_json::Value;

const VITEST_TEST: &str = "tests/vitest/cart.test.ts";

/// The vitest fixture project, which must be installed.
fn vitest_project() -> PathBuf {
    require_node();
    let project = fixture_path("tests/vitest");
    let vitest = project.join("node_modules/vitest/package.json");
    assert!(
        vitest.is_file(),
        "{} is missing: run scripts/install-test-deps.sh (npm ci in fixtures/tests/vitest)",
        vitest.display()
    );
    project
}

/// `FILE:LINE` of a marker, by the file's absolute path.
fn break_at(fixture: &str, marker: &str) -> String {
    format!(
        "{}:{}",
        fixture_path(fixture).display(),
        line_of(fixture, marker)
    )
}

/// The value of the local `name` in a `locals` answer or a test report.
fn local(variables: &Value, name: &str) -> String {
    variables
        .as_array()
        .and_then(|l| l.iter().find(|v| v["name"] == name))
        .and_then(|v| v["value"].as_str())
        .map(str::to_string)
        .unwrap_or_else(|| panic!("no local {name} in {variables}"))
}

#[test]
fn a_breakpoint_in_a_vitest_test_stops_in_the_worker_process_npx_started() {
    let project = vitest_project();
    let s = Session::new();
    let at = break_at(VITEST_TEST, "@vt_discounted");
    let project = project.display().to_string();
    let started = s.data(&[
        "start",
        "--cwd",
        &project,
        "-b",
        &at,
        "--",
        "npx",
        "vitest",
        "run",
        "cart.test.ts",
    ]);
    assert!(
        started["program"].as_str().unwrap_or("").ends_with("npx"),
        "{started}"
    );
    let stop = s.data(&["await", "--timeout", "120"]);
    assert_eq!(stop["reason"], "breakpoint", "{stop}\n{}", s.log());
    assert_eq!(
        stop["frame"]["file"],
        fixture_path(VITEST_TEST).display().to_string()
    );
    assert_eq!(
        stop["frame"]["line"].as_u64(),
        Some(u64::from(line_of(VITEST_TEST, "@vt_discounted")))
    );
    // The worker is a thread of its own, beside the processes above it (npx, vitest).
    let thread = stop["thread_id"].as_i64().expect("thread");
    assert!(thread > 1, "{stop}");
    let threads = s.data(&["threads"]);
    assert!(
        threads["threads"].as_array().map_or(0, Vec::len) >= 2,
        "{threads}"
    );
    assert_eq!(s.value_of("items[1].price"), "300");
    let stepped = s.data(&["next", "--wait"]);
    assert_eq!(stepped["stop"]["thread_id"].as_i64(), Some(thread));
    assert_eq!(s.value_of("discounted"), "360");
    let end = s.data(&["continue", "--wait", "--timeout", "120"]);
    assert_eq!(end["stop"]["reason"], "exited", "{end}");
    assert_eq!(
        end["stop"]["exit_code"], 1,
        "the failing test fails the run"
    );
}

#[test]
fn a_breakpoint_in_a_file_node_test_runs_stops_there() {
    require_node();
    let s = Session::new();
    let file = "tests/javascript/cart.test.js";
    let at = break_at(file, "@js_total_body");
    let test_file = fixture_path(file).display().to_string();
    s.data(&["start", "-b", &at, "--", "node", "--test", &test_file]);
    let stop = s.data(&["await", "--timeout", "60"]);
    assert_eq!(stop["reason"], "breakpoint", "{stop}\n{}", s.log());
    assert_eq!(
        stop["frame"]["line"].as_u64(),
        Some(u64::from(line_of(file, "@js_total_body")))
    );
    assert_eq!(s.value_of("sum"), "350");
    // The same breakpoint stops again in the next test, in the same child.
    let again = s.data(&["continue", "--wait", "--timeout", "60"]);
    assert_eq!(again["stop"]["reason"], "breakpoint", "{again}");
    assert_eq!(s.value_of("sum"), "400");
    s.run(&["stop"]);
}

/// A session run in the vitest project's folder, as a user runs `debugger test` there.
fn in_vitest_project() -> Session {
    let mut s = Session::new();
    s.cwd = vitest_project();
    s
}

#[test]
fn a_failing_vitest_test_stops_at_its_expect_with_the_tests_locals() {
    let s = in_vitest_project();
    let answer = s.json(&["test", "applies discount", "--break-on-failure"]);
    assert_eq!(answer["ok"], true, "{answer}");
    let data = &answer["data"];
    assert_eq!(data["outcome"], "failed", "{data}\n{}", s.log());
    assert_eq!(data["runner"], "vitest");
    let frame = &data["frame"]["frame"];
    assert_eq!(
        frame["file"],
        fixture_path(VITEST_TEST).display().to_string()
    );
    assert_eq!(
        frame["line"].as_u64(),
        Some(u64::from(line_of(VITEST_TEST, "@vt_fail")))
    );
    assert_eq!(local(&data["locals"], "discounted"), "360");
    let message = data["message"].as_str().unwrap_or("");
    assert!(message.contains("expected 360 to be 400"), "{message}");
    s.run(&["stop"]);
    let passing = s.json(&["test", "cart.test.ts::adds prices", "--break-on-failure"]);
    assert_eq!(passing["data"]["outcome"], "passed", "{passing}");
}

#[test]
fn probe_test_on_vitest_exits_0_on_the_failure_and_1_when_the_test_passes() {
    let s = in_vitest_project();
    let failing = s.run(&[
        "probe",
        "--test",
        "applies discount",
        "--break-on-failure",
        "-p",
        "discounted",
    ]);
    assert_eq!(
        failing.code,
        0,
        "{}
{}",
        failing.stdout,
        s.log()
    );
    assert!(
        failing.stdout.contains("discounted (number) = 360"),
        "{}",
        failing.stdout
    );
    let passing = s.run(&["probe", "--test", "adds prices", "--break-on-failure"]);
    assert_eq!(passing.code, 1, "{}", passing.stdout);
}

#[test]
fn a_breakpoint_inside_a_vitest_test_stops_there_and_the_tests_are_listed() {
    let s = in_vitest_project();
    let line = line_of(VITEST_TEST, "@vt_total_body");
    let at = format!("cart.test.ts:{line}");
    let answer = s.json(&["test", "cart.test.ts > cart > adds prices", "-b", &at]);
    let data = &answer["data"];
    assert_eq!(data["outcome"], "stopped", "{answer}\n{}", s.log());
    assert_eq!(
        data["stop"]["frame"]["line"].as_u64(),
        Some(u64::from(line))
    );
    // Only the selected test runs: the first stop is in its call, with its prices.
    assert_eq!(s.value_of("sum"), "350");
    s.run(&["stop"]);
    let listed = s.data(&["test", "--list"]);
    assert_eq!(listed["runner"], "vitest");
    assert_eq!(
        listed["tests"],
        serde_json::json!([
            "cart.test.ts > cart > adds prices",
            "cart.test.ts > cart > applies discount"
        ])
    );
}

/// A session run in the jest fixture project's folder (jest installed at the version its
/// package-lock pins).
fn in_jest_project() -> Session {
    require_node();
    let project = fixture_path("tests/jest");
    let jest = project.join("node_modules/jest/package.json");
    assert!(
        jest.is_file(),
        "{} is missing: run scripts/install-test-deps.sh (npm ci in fixtures/tests/jest)",
        jest.display()
    );
    let mut s = Session::new();
    s.cwd = project;
    s
}

#[test]
fn a_failing_jest_test_stops_at_its_expect_and_a_breakpoint_in_another_stops_there() {
    let s = in_jest_project();
    let file = "tests/jest/cart.test.js";
    let answer = s.json(&[
        "test",
        "cart.test.js::applies discount",
        "--break-on-failure",
    ]);
    let data = &answer["data"];
    assert_eq!(data["outcome"], "failed", "{answer}\n{}", s.log());
    assert_eq!(data["runner"], "jest");
    assert_eq!(
        data["frame"]["frame"]["line"].as_u64(),
        Some(u64::from(line_of(file, "@jest_fail")))
    );
    assert_eq!(local(&data["locals"], "discounted"), "360");
    s.run(&["stop"]);
    let line = line_of(file, "@jest_total_body");
    let at = format!("cart.test.js:{line}");
    let stopped = s.json(&["test", "adds prices", "-b", &at]);
    assert_eq!(stopped["data"]["outcome"], "stopped", "{stopped}");
    assert_eq!(s.value_of("sum"), "350");
    s.run(&["stop"]);
}

#[test]
fn the_launched_process_is_still_debugged_after_a_child_sharing_its_stderr_ends() {
    require_node();
    let s = Session::new();
    let fixture = "javascript/spawns.js";
    s.start(&fixture_path(fixture), &[]);
    let stop = s.data(&["await", "--timeout", "60"]);
    assert_eq!(stop["reason"], "breakpoint", "{stop}\n{}", s.log());
    assert_eq!(stop["thread_id"], 1);
    assert_eq!(
        stop["frame"]["line"].as_u64(),
        Some(u64::from(line_of(fixture, "@spawns_after")))
    );
    assert_eq!(s.value_of("status"), "0");
    s.output_containing(&["child ran"], std::time::Duration::from_secs(10));
    let end = s.data(&["continue", "--wait", "--timeout", "60"]);
    assert_eq!(end["stop"]["exit_code"], 0, "{end}");
}
