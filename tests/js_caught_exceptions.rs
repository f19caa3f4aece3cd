//! `debugger test --break-on-failure` on a node:test file stops only at an exception that
//! leaves the test's code for the runner's: one that the test, a helper or a dependency throws
//! and catches itself (fixtures/tests/js_caught) is let go, as debugpy's `userUnhandled` does.

mod common;

use common::test_project::{copy_dir, failed_at, json};
use common::{Session, fixture_path, require_node};

const TEST_FILE: &str = "tests/js_caught/caught.test.js";

/// The fixture project copied into a new session's folder.
fn project() -> Session {
    require_node();
    let s = Session::new();
    copy_dir(&fixture_path("tests/js_caught"), &s.cwd);
    s
}

#[test]
fn a_test_that_catches_its_own_exception_passes() {
    let s = project();
    for selector in ["caught.test.js::recovers", "caught.test.js::loads"] {
        let answer = json(&s, &["test", selector, "--break-on-failure"]);
        assert_eq!(answer["data"]["outcome"], "passed", "{selector}: {answer}");
    }
    // A probe of a passing test has no failure to show: exit 1, as for any test that passes.
    let probe = s.run(&["probe", "--test", "recovers", "--break-on-failure"]);
    assert_eq!(probe.code, 1, "{}\n{}", probe.stdout, probe.stderr);
}

#[test]
fn a_caught_exception_before_the_real_failure_does_not_hide_it() {
    let s = project();
    let answer = json(&s, &["test", "caught.test.js::port", "--break-on-failure"]);
    let data = failed_at(&answer, TEST_FILE, "@port_fail");
    let message = data["message"].as_str().unwrap_or_default();
    assert!(
        message.starts_with("AssertionError") && message.contains("NaN !== 80"),
        "{message}"
    );
}
