//! `test --break-on-failure` and `probe --test --break-on-failure` stop only where the test
//! fails: a Go panic the test recovers, a Rust panic the test's code catches and a
//! `#[should_panic]` test's panic pass; a Go panic and a subtest's `t.Errorf` stop at their
//! line; a Rust panic raised in an assertion macro stops at the line that called the macro.
//! On fixtures/tests/go_failures and fixtures/tests/rust_failures, each copied into the
//! session's folder.

mod common;

use std::path::PathBuf;
use std::sync::OnceLock;

use common::test_project::{cargo_target, command, copy_dir, failed_at, json, local};
use common::{Session, fixture_path, require_delve, require_lldb_dap};

fn go_project() -> Session {
    let s = Session::new();
    copy_dir(&fixture_path("tests/go_failures"), &s.cwd);
    s
}

/// The one copy of the cargo fixture, beside the shared target dir (see test_command.rs's
/// `cargo_project`).
fn rust_project() -> Session {
    static COPIED: OnceLock<PathBuf> = OnceLock::new();
    let dir = COPIED
        .get_or_init(|| {
            let dir = cargo_target().join("tally");
            copy_dir(&fixture_path("tests/rust_failures"), &dir);
            dir
        })
        .clone();
    let mut s = Session::new();
    s.cwd = dir;
    s
}

/// The report of a test that ran to its end and passed.
fn assert_passed(answer: &serde_json::Value) {
    assert_eq!(answer["ok"], true, "{answer}");
    assert_eq!(answer["data"]["outcome"], "passed", "{answer}");
}

/// `probe --test NAME --break-on-failure` on a passing test: exit 1, "the test passed".
fn assert_probe_passes(s: &Session, test: &str) {
    let out = command(s, &["probe", "--test", test, "--break-on-failure"])
        .output()
        .expect("run probe");
    let run = common::Run::from(out);
    assert_eq!(run.code, 1, "{}{}", run.stdout, run.stderr);
    assert_eq!(
        run.failure()["message"],
        "the test passed: there was no failure to record",
        "{}",
        run.stdout
    );
}

#[test]
fn a_go_panic_the_test_recovers_is_no_failure_and_one_it_does_not_is() {
    require_delve();
    let s = go_project();
    assert_passed(&json(&s, &["test", "TestRecovers", "--break-on-failure"]));
    assert_probe_passes(&s, "TestRecovers");
    let answer = json(&s, &["test", "TestPanics", "--break-on-failure"]);
    let data = failed_at(&answer, "tests/go_failures/ledger.go", "@go_nil_map");
    assert_eq!(
        data["message"], "panic: runtime.plainError \"assignment to entry in nil map\"",
        "{data}"
    );
    assert_eq!(local(&data, "name"), "\"a\"");
    // The failure breakpoint is the session's own: not the user's to list.
    let list = json(&s, &["break", "list"]);
    assert_eq!(list["data"]["breakpoints"], serde_json::json!([]), "{list}");
    s.run(&["stop"]);
}

#[test]
fn a_go_subtests_failure_stops_once_at_its_line() {
    require_delve();
    let s = go_project();
    let answer = json(&s, &["test", "TestCounts/twice", "--break-on-failure"]);
    let data = failed_at(
        &answer,
        "tests/go_failures/ledger_test.go",
        "@go_subtest_fail",
    );
    assert_eq!(data["message"], "count = 2, want 3", "{data}");
    assert_eq!(local(&data, "got"), "2");
    // Delve calls functions in the innermost frame alone, which the test's is not here.
    let call = s.run(&["--json", "print", "NewLedger()"]);
    let hint = call.failure()["hint"].as_str().unwrap_or("").to_string();
    assert!(
        hint.contains("only in the innermost frame") && hint.contains("-b FILE:LINE"),
        "{hint}"
    );
    // The parent test's `Fail`, which the subtest's calls, is no second stop.
    let resumed = json(&s, &["continue", "--wait"]);
    assert_eq!(resumed["data"]["stop"]["reason"], "exited", "{resumed}");
    // A restart stops at the failure again, told as the failure, not as a breakpoint.
    let restarted = json(&s, &["restart"]);
    let stop = &restarted["data"]["stop"];
    assert_eq!(stop["reason"], "failure", "{restarted}");
    assert_eq!(stop["breakpoint_ids"], serde_json::json!([]), "{restarted}");
    s.run(&["stop"]);
}

#[test]
fn a_rust_panic_caught_by_the_tests_code_or_expected_by_should_panic_is_no_failure() {
    require_lldb_dap();
    let s = rust_project();
    assert_passed(&json(
        &s,
        &["test", "caught_panic_passes", "--break-on-failure"],
    ));
    s.run(&["stop"]);
    assert_passed(&json(
        &s,
        &["test", "should_panic_passes", "--break-on-failure"],
    ));
    s.run(&["stop"]);
    assert_probe_passes(&s, "caught_panic_passes");
    assert_probe_passes(&s, "should_panic_passes");
}

#[test]
fn a_rust_panic_in_an_assertion_macro_stops_at_the_line_that_called_it() {
    require_lldb_dap();
    let s = rust_project();
    let answer = json(&s, &["test", "macro_assert_fails", "--break-on-failure"]);
    let data = failed_at(
        &answer,
        "tests/rust_failures/src/lib.rs",
        "@rust_macro_fail",
    );
    assert_eq!(data["message"], "0.6666666666666666 is not near 0.7");
    assert!(local(&data, "ratio").starts_with("0.666"), "{data}");
    s.run(&["stop"]);
}
