#![cfg(unix)]
//! `debugger test` and `probe --test` on a PHPUnit project (fixtures/php/shop, a phpunit.xml and
//! one test class, copied into each session's folder), run by the `phpunit` on PATH under
//! Xdebug: `--break-on-failure` stops at a failed assertion in the test method's frame with
//! PHPUnit's message, not in PHPUnit's own code; a passing test, and a skipped one (PHPUnit
//! throws a kind of assertion failure for it), pass; one that fails by an exception it did not
//! expect ends with a note; a selector picks one test, a test file picks its tests; no selector
//! or one that names no test is answered with the tests.
//!
//! Unix: Debian's `phpunit` is a PHP script found on PATH. Every test fails (never skips) when
//! PHP with Xdebug or PHPUnit is missing: scripts/install-test-deps.sh installs them.

mod common;

use std::process::Command;

use common::test_project::{command, copy_dir, failed_at, json, local};
use common::{Run, Session, fixture_path, line_of, require_php};
use serde_json::Value;

const CART_TEST: &str = "php/shop/tests/CartTest.php";
const CART: &str = "php/shop/src/Cart.php";

/// The failed assertion's message, as PHPUnit words it.
const MESSAGE: &str = "PHPUnit\\Framework\\ExpectationFailedException: 10% off\n\
                       Failed asserting that 360 is identical to 400.";

/// Fails the test with instructions when PHPUnit is not installed.
fn require_phpunit() {
    require_php();
    let works = Command::new("phpunit")
        .arg("--version")
        .output()
        .is_ok_and(|o| o.status.success());
    assert!(
        works,
        "PHPUnit (phpunit) is required: scripts/install-test-deps.sh installs it"
    );
}

/// A session whose folder holds a copy of the shop project.
fn project() -> Session {
    require_phpunit();
    let s = Session::new();
    copy_dir(&fixture_path("php/shop"), &s.cwd);
    s
}

fn tests_of(answer: &Value) -> Vec<&str> {
    answer["data"]["tests"]
        .as_array()
        .expect("tests")
        .iter()
        .filter_map(Value::as_str)
        .collect()
}

/// The failed assertSame: stopped in the test method's frame at the assertion, with PHPUnit's
/// message and the test's locals; `probe --test` records it there too.
#[test]
fn a_failed_assertion_stops_in_the_test_methods_frame_with_its_message() {
    let s = project();
    let answer = json(
        &s,
        &[
            "test",
            "CartTest::testTotalAppliesDiscount",
            "--break-on-failure",
        ],
    );
    let data = failed_at(&answer, CART_TEST, "@assert_same");
    assert_eq!(data["runner"], "PHPUnit", "{data}");
    assert_eq!(data["message"], MESSAGE, "{data}");
    assert_eq!(
        data["frame"]["frame"]["function"], "CartTest->testTotalAppliesDiscount",
        "{data}"
    );
    assert_eq!(local(&data, "$discounted"), "360");
    s.run(&["stop"]);

    let probed = command(
        &s,
        &[
            "probe",
            "--test",
            "CartTest::testTotalAppliesDiscount",
            "--break-on-failure",
            "--print",
            "$discounted",
        ],
    )
    .output()
    .expect("run probe");
    let report = Run::from(probed);
    assert_eq!(report.code, 0, "{}{}", report.stdout, report.stderr);
    let hit = &report.json()["data"]["hits"][0];
    assert_eq!(hit["prints"][0]["value"], "360", "{hit}");
    assert_eq!(
        hit["stop"]["frame"]["line"].as_u64(),
        Some(u64::from(line_of(CART_TEST, "@assert_same"))),
        "{hit}"
    );
}

/// A passing test runs to its end and passes; so does a skipped one, though PHPUnit skips it
/// by throwing a kind of its assertion failure.
#[test]
fn a_passing_test_and_a_skipped_one_pass() {
    let s = project();
    for test in ["CartTest::testTotalSumsPrices", "testCouponsLater"] {
        let answer = json(&s, &["test", test, "--break-on-failure"]);
        assert_eq!(answer["ok"], true, "{answer}");
        assert_eq!(answer["data"]["outcome"], "passed", "{test}: {answer}");
    }
}

/// An exception the test did not expect is PHPUnit's to catch, as every exception but its
/// assertions': the test ends, and the note says what could not be stopped at.
#[test]
fn a_test_failed_by_an_unexpected_exception_ends_with_a_note() {
    let s = project();
    let answer = json(
        &s,
        &["test", "testRefusesNegativePrices", "--break-on-failure"],
    );
    assert_eq!(answer["ok"], true, "{answer}");
    let data = &answer["data"];
    assert_eq!(data["outcome"], "ended", "{data}");
    assert_eq!(data["stop"]["exit_code"], 2, "{data}");
    let note = data["note"].as_str().unwrap_or_default();
    assert!(note.contains("PHPUnit's error"), "{note}");
}

/// `Class::method` runs that test alone (the class's other test fails, and would end the run
/// with exit code 1); a test file runs its tests, and stops at the one that fails; a breakpoint
/// by a bare file name stops in the project's code.
#[test]
fn a_selector_picks_one_test_and_a_file_its_tests() {
    let s = project();
    let at = format!("Cart.php:{}", line_of(CART, "@sum"));
    let answer = json(&s, &["test", "testTotalSumsPrices", "-b", &at]);
    assert_eq!(answer["data"]["outcome"], "stopped", "{answer}");
    assert_eq!(answer["data"]["stop"]["frame"]["function"], "Cart->total");
    s.run(&["stop"]);

    let answer = json(&s, &["test", "CartTest::testTotalSumsPrices"]);
    assert_eq!(answer["data"]["outcome"], "passed", "{answer}");
    assert_eq!(answer["data"]["stop"]["exit_code"], 0, "{answer}");

    let answer = json(&s, &["test", "tests/CartTest.php", "--break-on-failure"]);
    let data = failed_at(&answer, CART_TEST, "@assert_same");
    assert_eq!(data["message"], MESSAGE, "{data}");
}

/// `--list` lists PHPUnit's tests (a test file's too); no selector, or one that names no test, is a usage error
/// that lists them; a filter of the user's that leaves no test is said to have run none.
#[test]
fn an_unknown_selector_or_none_lists_the_tests() {
    let s = project();
    let listed = json(&s, &["test", "--list"]);
    assert_eq!(listed["ok"], true, "{listed}");
    assert_eq!(
        tests_of(&listed),
        [
            "CartTest::testTotalSumsPrices",
            "CartTest::testTotalAppliesDiscount",
            "CartTest::testRefusesNegativePrices",
            "CartTest::testCouponsLater",
        ]
    );
    let in_file = json(&s, &["test", "--list", "tests/CartTest.php"]);
    assert_eq!(tests_of(&in_file), tests_of(&listed), "{in_file}");
    let usage = |args: &[&str]| {
        let run = Run::from(command(&s, args).output().expect("run debugger"));
        assert_eq!(run.code, 2, "{run:?}");
        run.failure()["message"].as_str().unwrap_or("").to_string()
    };
    for args in [
        &["test", "CartTest::testNothing"][..],
        &["test", "--break-on-failure"][..],
    ] {
        let message = usage(args);
        assert!(
            message.contains("CartTest::testTotalSumsPrices")
                && message.contains("CartTest::testTotalAppliesDiscount"),
            "{args:?}: {message}"
        );
    }
    assert!(
        usage(&["test", "CartTest::testNothing"])
            .contains("no test matches 'CartTest::testNothing'")
    );
    let none = usage(&["test", "tests/CartTest.php", "--", "--filter", "nothing"]);
    assert!(
        none.contains("PHPUnit ran no test for 'tests/CartTest.php'"),
        "{none}"
    );
}
