//! A Python test's values as the test wrote them, under debugpy and under pdb: no temporaries of
//! pytest's assertion rewriting (`@py_assert1`, `@py_format6`) among a test's locals or in its
//! failure's report, and no class constants of a built-in type (`datetime`'s `max`, `min`,
//! `resolution`) among a value's members. On fixtures/tests/pytest_suite, copied into the
//! session's folder, whose `test_balance_on_day` holds a `datetime` and fails at its second
//! assert.

mod common;

use common::test_project::{command, copy_dir, failed_at};
use common::{Run, Session, fixture_path, line_of, require_debugpy};
use serde_json::Value;

const LEDGER_TEST: &str = "tests/pytest_suite/tests/test_ledger.py";
const SELECTOR: &str = "tests/test_ledger.py::test_balance_on_day";

fn suite() -> Session {
    let s = Session::new();
    copy_dir(&fixture_path("tests/pytest_suite"), &s.cwd);
    s
}

fn json(s: &Session, args: &[&str]) -> Value {
    Run::from(command(s, args).output().expect("run debugger")).json()
}

fn names(variables: &Value) -> Vec<&str> {
    variables
        .as_array()
        .map(|list| list.iter().filter_map(|v| v["name"].as_str()).collect())
        .unwrap_or_default()
}

#[track_caller]
fn assert_no_pytest_temporaries(names: &[&str], context: &Value) {
    assert!(
        names.iter().all(|n| !n.starts_with("@py_")),
        "{names:?}: {context}"
    );
}

#[test]
fn a_failed_pytest_assert_reports_the_tests_own_locals_and_a_datetime_its_own_fields() {
    require_debugpy();
    let s = suite();
    let answer = json(&s, &["test", SELECTOR, "--break-on-failure"]);
    let data = failed_at(&answer, LEDGER_TEST, "@ledger_fail");
    let reported = names(&data["locals"]);
    assert_no_pytest_temporaries(&reported, &data);
    assert!(
        reported.contains(&"day") && reported.contains(&"total"),
        "{data}"
    );

    let locals = json(&s, &["locals"]);
    let listed = names(&locals["data"]["variables"]);
    assert_no_pytest_temporaries(&listed, &locals);
    let day = json(&s, &["print", "day"]);
    let members = names(&day["data"]["children"]);
    for field in ["year", "month", "day", "hour", "minute"] {
        assert!(members.contains(&field), "{field}: {day}");
    }
    for constant in ["max", "min", "resolution"] {
        assert!(!members.contains(&constant), "{constant}: {day}");
    }
    let text = s.run(&["locals"]).stdout;
    assert!(
        !text.contains("@py_") && !text.contains("resolution"),
        "{text}"
    );
}

#[test]
fn pdb_lists_no_pytest_temporaries_either() {
    require_debugpy();
    let s = suite();
    // After the first assert passed: its temporaries are in the frame, set to None.
    let line = line_of(LEDGER_TEST, "@ledger_total");
    let at = format!("tests/test_ledger.py:{line}");
    let answer = json(&s, &["test", SELECTOR, "--adapter", "pdb", "-b", &at]);
    assert_eq!(answer["data"]["outcome"], "stopped", "{answer}");
    let locals = json(&s, &["locals"]);
    let listed = names(&locals["data"]["variables"]);
    assert_eq!(listed, ["day"], "{locals}");
    // They are there all the same: the listing leaves them out.
    let raw = s.run(&["raw", "sorted(n for n in locals() if n.startswith('@py'))"]);
    assert!(raw.ok().contains("@py_assert1"), "{raw:?}");
}
