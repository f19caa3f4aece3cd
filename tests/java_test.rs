//! `debugger test` and `probe --test` on a Maven project with JUnit 5 (fixtures/java/shop,
//! copied into each session's folder): Maven builds it and gives the class path, the test runs
//! under JUnit's console launcher in our JVM session. `--list` prints `Class#method`; a test is
//! picked by that, by its class or by a bare method name; `--break-on-failure` stops at a
//! failed assertEquals, a failed assertTrue and an exception the test did not expect (thrown
//! in the project's code or in the JDK's), in the project's own frame, on JDK 17 and on
//! Temurin 25 (whose reflection catches the failure before JUnit does), and not at an exception
//! the test expects; a test failed by `System.exit` alone ends with a note in Java's words.
//!
//! Every test fails (never skips) when no JDK or no Maven is found: scripts/install-test-deps.sh
//! installs them and fetches the project's artifacts, so no test needs the network.

mod common;

use std::process::Command;

use common::java::TEMURIN_25;
use common::test_project::{command, copy_dir, failed_at, json, local};
use common::{Run, Session, fixture_path, line_of, require_jdk};
use serde_json::Value;

const CART_TEST: &str = "java/shop/src/test/java/com/shop/CartTest.java";
const CART: &str = "java/shop/src/main/java/com/shop/Cart.java";

/// Fails the test with instructions when Maven is not installed.
fn require_maven() {
    require_jdk();
    let works = Command::new("mvn")
        .arg("-v")
        .output()
        .is_ok_and(|o| o.status.success());
    assert!(
        works,
        "Maven (mvn) is required: scripts/install-test-deps.sh installs it"
    );
}

/// A session whose folder holds a copy of the shop project.
fn project() -> Session {
    require_maven();
    let s = Session::new();
    copy_dir(&fixture_path("java/shop"), &s.cwd);
    s
}

fn message(data: &Value) -> &str {
    data["message"].as_str().unwrap_or_default()
}

#[test]
fn list_prints_each_test_as_class_hash_method() {
    let s = project();
    let answer = json(&s, &["test", "--list"]);
    assert_eq!(answer["ok"], true, "{answer}");
    let mut tests: Vec<&str> = answer["data"]["tests"]
        .as_array()
        .expect("tests")
        .iter()
        .filter_map(Value::as_str)
        .collect();
    tests.sort_unstable();
    assert_eq!(
        tests,
        [
            "CartTest#addParsedTakesText",
            "CartTest#addRefusesNegativeQuantity",
            "CartTest#addRefusesNoQuantity",
            "CartTest#cartIsNotEmpty",
            "CartTest#firstLineOfNone",
            "CartTest#totalAppliesDiscount",
            "CartTest#totalSumsLines",
            "ExitTest#exitsOnAnEmptyCart",
        ]
    );
    let some = json(&s, &["test", "--list", "addRefuses"]);
    assert_eq!(
        some["data"]["tests"].as_array().map(Vec::len),
        Some(2),
        "{some}"
    );
}

/// assertEquals: stopped in the test's frame at the assertion, with its message, `expected`
/// and `actual`, and the test's locals.
#[test]
fn a_failed_assert_equals_stops_in_the_tests_frame_with_expected_and_actual() {
    let s = project();
    let answer = json(
        &s,
        &[
            "test",
            "CartTest#totalAppliesDiscount",
            "--break-on-failure",
        ],
    );
    let data = failed_at(&answer, CART_TEST, "@assert_equals");
    assert_eq!(data["runner"], "JUnit (Maven)", "{data}");
    assert_eq!(
        message(&data),
        "org.opentest4j.AssertionFailedError: 10% off ==> expected: <400> but was: <360>"
    );
    assert_eq!(
        data["frame"]["frame"]["function"],
        "CartTest.totalAppliesDiscount"
    );
    assert_eq!(local(&data, "discounted"), "360");
}

/// assertTrue with a message, the test named by its method alone; and run from a folder inside
/// the project, which is found by its pom.xml above.
#[test]
fn a_failed_assert_true_by_a_bare_method_name_from_a_subfolder() {
    let s = project();
    let mut run = command(&s, &["test", "cartIsNotEmpty", "--break-on-failure"]);
    run.current_dir(s.cwd.join("src/test/java/com/shop"));
    let answer = Run::from(run.output().expect("run debugger")).json();
    let data = failed_at(&answer, CART_TEST, "@assert_true");
    assert!(
        message(&data).contains("the cart has no lines ==> expected: <true> but was: <false>"),
        "{data}"
    );
    assert_eq!(local(&data, "lines"), "0");
}

/// An exception the test did not expect stops where it is thrown, in the project's code; one a
/// test expects (assertThrows) is no failure, and the test passes.
#[test]
fn an_unexpected_exception_stops_and_an_expected_one_does_not() {
    let s = project();
    let answer = json(
        &s,
        &[
            "test",
            "CartTest#addRefusesNoQuantity",
            "--break-on-failure",
        ],
    );
    let data = failed_at(&answer, CART, "@refuse");
    assert_eq!(
        message(&data),
        "java.lang.IllegalArgumentException: quantity must be positive: 0"
    );
    assert_eq!(local(&data, "quantity"), "0");
    s.run(&["stop"]);
    let passing = json(
        &s,
        &["test", "addRefusesNegativeQuantity", "--break-on-failure"],
    );
    assert_eq!(passing["data"]["outcome"], "passed", "{passing}");
}

/// An exception thrown inside the JDK's code stops as an assertion does: called from the
/// code under test (`Integer.parseInt`), in that code's frame; called from the test
/// (`List.of().get(0)`), in the test's; with the exception's message. On JDK 17, where JUnit's
/// reflective call catches it, and on Temurin 25, where the runtime's reflection does.
#[test]
fn an_exception_thrown_in_jdk_code_stops_in_the_projects_frame_with_its_message() {
    let s = project();
    let answer = json(&s, &["test", "addParsedTakesText", "--break-on-failure"]);
    let data = failed_at(&answer, CART, "@parse");
    assert_eq!(
        message(&data),
        "java.lang.NumberFormatException: For input string: \"two\""
    );
    assert_eq!(data["frame"]["frame"]["function"], "Cart.addParsed");
    assert_eq!(local(&data, "quantity"), "\"two\"");
    s.run(&["stop"]);

    let answer = json(&s, &["test", "firstLineOfNone", "--break-on-failure"]);
    let data = failed_at(&answer, CART_TEST, "@get_first");
    assert!(
        message(&data).contains("Index 0 out of bounds for length 0"),
        "{data}"
    );
    assert_eq!(
        data["frame"]["frame"]["function"],
        "CartTest.firstLineOfNone"
    );
    s.run(&["stop"]);

    let mut run = command(&s, &["test", "addParsedTakesText", "--break-on-failure"]);
    run.env("JAVA_HOME", TEMURIN_25);
    let answer = Run::from(run.output().expect("run debugger")).json();
    let data = failed_at(&answer, CART, "@parse");
    assert!(message(&data).contains("NumberFormatException"), "{data}");
}

/// A test failed by the JVM's exit status alone has nothing to stop at: the note says so in
/// Java's words.
#[test]
fn a_test_failed_by_system_exit_ends_with_a_note_in_javas_words() {
    let s = project();
    let answer = json(&s, &["test", "exitsOnAnEmptyCart", "--break-on-failure"]);
    assert_eq!(answer["ok"], true, "{answer}");
    let data = &answer["data"];
    assert_eq!(data["outcome"], "ended", "{data}");
    assert_eq!(data["stop"]["exit_code"], 1, "{data}");
    let note = data["note"].as_str().unwrap_or_default();
    assert!(note.contains("`System.exit(1)`"), "{note}");
    assert!(!note.contains("C or C++"), "{note}");
}

/// A whole class, with a breakpoint in the code under test; and a test that passes.
#[test]
fn a_class_runs_to_a_breakpoint_and_a_passing_test_passes() {
    let s = project();
    let at = format!("Cart.java:{}", line_of(CART, "@sum_loop"));
    let answer = json(&s, &["test", "CartTest", "-b", &at]);
    assert_eq!(answer["ok"], true, "{answer}");
    let data = &answer["data"];
    assert_eq!(data["outcome"], "stopped", "{data}");
    assert_eq!(data["stop"]["reason"], "breakpoint", "{data}");
    assert_eq!(data["stop"]["frame"]["function"], "Cart.total", "{data}");
    s.run(&["stop"]);
    let passing = json(&s, &["test", "CartTest#totalSumsLines"]);
    assert_eq!(passing["data"]["outcome"], "passed", "{passing}");
    let none = json(&s, &["test", "CartTest#noSuchTest"]);
    assert_eq!(none["ok"], false, "{none}");
    assert!(
        none["error"]["message"]
            .as_str()
            .is_some_and(|m| m.contains("no test matches 'CartTest#noSuchTest'")),
        "{none}"
    );
}

/// On Temurin 25, picked through JAVA_HOME: the runtime's reflection catches the failure
/// before JUnit does, and it still stops at the assertion.
#[test]
fn a_failure_stops_on_the_jdk_java_home_names() {
    let s = project();
    let mut run = command(
        &s,
        &[
            "test",
            "CartTest#totalAppliesDiscount",
            "--break-on-failure",
        ],
    );
    run.env("JAVA_HOME", TEMURIN_25);
    let answer = Run::from(run.output().expect("run debugger")).json();
    let data = failed_at(&answer, CART_TEST, "@assert_equals");
    assert!(
        message(&data).contains("expected: <400> but was: <360>"),
        "{data}"
    );
    assert!(
        data["program"]
            .as_str()
            .is_some_and(|p| p.starts_with(TEMURIN_25)),
        "{data}"
    );
}

/// `probe --test`: the failure recorded with a value printed there, exit 0; a passing test has
/// nothing to record, exit 1.
#[test]
fn probe_test_records_the_failure_and_a_passing_test_exits_1() {
    let s = project();
    let failing = command(
        &s,
        &[
            "probe",
            "--test",
            "CartTest#totalAppliesDiscount",
            "--break-on-failure",
            "--print",
            "discounted",
        ],
    )
    .output()
    .expect("run probe");
    let report = Run::from(failing);
    assert_eq!(report.code, 0, "{}{}", report.stdout, report.stderr);
    let data = &report.json()["data"];
    let hit = &data["hits"][0];
    assert_eq!(hit["prints"][0]["value"], "360", "{data}");
    assert_eq!(
        hit["stop"]["frame"]["line"].as_u64(),
        Some(u64::from(line_of(CART_TEST, "@assert_equals"))),
        "{data}"
    );
    let passing = command(
        &s,
        &["probe", "--test", "totalSumsLines", "--break-on-failure"],
    )
    .output()
    .expect("run probe");
    assert_eq!(passing.status.code(), Some(1));
}
