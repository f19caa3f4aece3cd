//! `debugger test` and `probe --test` on Ruby: a minitest project (fixtures/ruby/minitest) and
//! an RSpec one (fixtures/ruby/rspec), each copied into the session's folder, run under the
//! rdbg adapter in the project's Ruby. `--list` prints minitest's `Class#test` and RSpec's
//! `spec/file_spec.rb:LINE description`; an unknown selector's error lists the tests; a test is
//! picked by its name, a file, an example's place or its description's words;
//! `--break-on-failure` stops at the failed assertion in the test's own frame with the
//! failure's message, not at a `skip`; a passing test passes; a project with a Gemfile runs
//! them through `bundle exec`. `catch` takes a Ruby class's `A::B` name.
//!
//! Every test fails (never skips) when Ruby, RSpec or Bundler is missing: scripts/install-test-deps.sh
//! installs them with apt.

#![cfg(unix)]

mod common;

use std::process::Command;

use common::test_project::{copy_dir, failed_at, json, local};
use common::{Session, fixture_path, line_of, require_ruby};
use serde_json::Value;

const CART_TEST: &str = "ruby/minitest/test/cart_test.rb";
const CART_SPEC: &str = "ruby/rspec/spec/cart_spec.rb";

/// Fails the test with instructions when RSpec is not installed.
fn require_rspec() {
    let works = Command::new("rspec")
        .arg("--version")
        .output()
        .is_ok_and(|o| o.status.success());
    assert!(
        works,
        "RSpec (rspec) is required: scripts/install-test-deps.sh installs it (apt's ruby-rspec)"
    );
}

/// Fails the test with instructions when Bundler is not installed.
fn require_bundler() {
    let works = Command::new("bundle")
        .arg("--version")
        .output()
        .is_ok_and(|o| o.status.success());
    assert!(
        works,
        "Bundler (bundle) is required: scripts/install-test-deps.sh installs it (apt's bundler)"
    );
}

/// A session whose folder holds a copy of the fixture project `name` (under fixtures/ruby).
fn project(name: &str) -> Session {
    require_ruby();
    if name != "minitest" {
        require_rspec();
    }
    if name == "bundled" {
        require_bundler();
    }
    let s = Session::new();
    copy_dir(&fixture_path(&format!("ruby/{name}")), &s.cwd);
    s
}

fn tests(answer: &Value) -> Vec<&str> {
    answer["data"]["tests"]
        .as_array()
        .unwrap_or_else(|| panic!("no tests in {answer}"))
        .iter()
        .filter_map(Value::as_str)
        .collect()
}

fn message(data: &Value) -> &str {
    data["message"].as_str().unwrap_or_default()
}

#[test]
fn minitest_lists_its_tests_and_an_unknown_name_lists_them_too() {
    let s = project("minitest");
    let answer = json(&s, &["test", "--list"]);
    assert_eq!(answer["ok"], true, "{answer}");
    assert_eq!(answer["data"]["runner"], "minitest", "{answer}");
    assert_eq!(
        tests(&answer),
        [
            "CartTest#test_refunds",
            "CartTest#test_total_applies_discount",
            "CartTest#test_total_sums_prices",
            "TillTest#test_total_of_no_price",
        ]
    );
    let unknown = json(&s, &["test", "CartTest#test_nothing"]);
    assert_eq!(unknown["ok"], false, "{unknown}");
    let said = unknown["error"]["message"].as_str().unwrap_or_default();
    assert!(
        said.contains("no test matches 'CartTest#test_nothing'"),
        "{said}"
    );
    assert!(said.contains("CartTest#test_total_sums_prices"), "{said}");
}

/// The failed assert_equal: stopped in the test's method at its line, not in minitest's, with
/// its message and the test's locals.
#[test]
fn a_failed_minitest_assertion_stops_in_the_test_with_its_message() {
    let s = project("minitest");
    let answer = json(
        &s,
        &[
            "test",
            "CartTest#test_total_applies_discount",
            "--break-on-failure",
        ],
    );
    let data = failed_at(&answer, CART_TEST, "@failing_assert");
    assert_eq!(data["runner"], "minitest", "{data}");
    assert_eq!(
        message(&data),
        "Minitest::Assertion: 10% off.\nExpected: 360\n  Actual: 320"
    );
    assert_eq!(
        data["frame"]["frame"]["function"],
        "CartTest#test_total_applies_discount"
    );
    assert_eq!(local(&data, "discounted"), "320");
}

/// An error the test did not expect is rescued by minitest, which is no assertion to stop at:
/// the test ends, failed, and the note says why in minitest's terms (not as an exit status).
#[test]
fn an_unexpected_minitest_error_ends_with_a_note_in_minitests_terms() {
    let s = project("minitest");
    let answer = json(
        &s,
        &["test", "test_total_of_no_price", "--break-on-failure"],
    );
    assert_eq!(answer["ok"], true, "{answer}");
    let data = &answer["data"];
    assert_eq!(data["outcome"], "ended", "{data}");
    assert_eq!(data["stop"]["exit_code"], 1, "{data}");
    let note = data["note"].as_str().unwrap_or_default();
    assert!(note.contains("is rescued by minitest"), "{note}");
    assert!(!note.contains("exit status alone"), "{note}");
}

/// Picked by its bare name, the passing test runs alone (its file's other test fails) and
/// passes; a skipped one is no failure; the whole file fails by its status.
#[test]
fn a_passing_or_skipped_minitest_test_passes_and_a_file_runs_them_all() {
    let s = project("minitest");
    for name in ["test_total_sums_prices", "CartTest#test_refunds"] {
        let passing = json(&s, &["test", name, "--break-on-failure"]);
        assert_eq!(passing["ok"], true, "{passing}");
        assert_eq!(passing["data"]["outcome"], "passed", "{passing}");
        assert_eq!(passing["data"]["stop"]["exit_code"], 0, "{passing}");
        s.run(&["stop"]);
    }
    let file = json(&s, &["test", "test/cart_test.rb"]);
    assert_eq!(file["data"]["outcome"], "ended", "{file}");
    assert_eq!(file["data"]["stop"]["exit_code"], 1, "{file}");
}

#[test]
fn rspec_lists_its_examples_and_an_unknown_selector_lists_them_too() {
    let s = project("rspec");
    let answer = json(&s, &["test", "--list"]);
    assert_eq!(answer["ok"], true, "{answer}");
    assert_eq!(answer["data"]["runner"], "RSpec", "{answer}");
    let passing = format!("spec/cart_spec.rb:{}", line_of(CART_SPEC, "@passing_it"));
    let failing = format!("spec/cart_spec.rb:{}", line_of(CART_SPEC, "@failing_it"));
    assert_eq!(
        tests(&answer),
        [
            format!("{passing} Cart sums the prices"),
            format!("{failing} Cart applies a discount"),
        ]
    );
    let unknown = json(&s, &["test", "refunds"]);
    assert_eq!(unknown["ok"], false, "{unknown}");
    let said = unknown["error"]["message"].as_str().unwrap_or_default();
    assert!(said.contains("no test matches 'refunds'"), "{said}");
    assert!(said.contains("Cart applies a discount"), "{said}");
}

/// The failed expectation, picked by its place: stopped in the example's block at its line,
/// not in RSpec's, with its message; the passing one, picked by its description's words, runs
/// alone and passes.
#[test]
fn a_failed_rspec_expectation_stops_in_the_example_and_a_passing_one_passes() {
    let s = project("rspec");
    let place = format!("spec/cart_spec.rb:{}", line_of(CART_SPEC, "@failing_it"));
    let answer = json(&s, &["test", &place, "--break-on-failure"]);
    let data = failed_at(&answer, CART_SPEC, "@failing_expect");
    assert_eq!(data["runner"], "RSpec", "{data}");
    assert_eq!(
        message(&data),
        "RSpec::Expectations::ExpectationNotMetError: 10% off"
    );
    assert_eq!(local(&data, "discounted"), "320");
    s.run(&["stop"]);
    let passing = json(&s, &["test", "sums the prices", "--break-on-failure"]);
    assert_eq!(passing["ok"], true, "{passing}");
    assert_eq!(passing["data"]["outcome"], "passed", "{passing}");
}

/// `probe --test` judges the failure as `test` does.
#[test]
fn probe_records_a_failed_minitest_assertion_at_the_tests_line() {
    let s = project("minitest");
    let answer = json(
        &s,
        &[
            "probe",
            "--test",
            "CartTest#test_total_applies_discount",
            "--break-on-failure",
        ],
    );
    assert_eq!(answer["ok"], true, "{answer}");
    let data = &answer["data"];
    assert_eq!(
        data["failure"], "Minitest::Assertion: 10% off.\nExpected: 360\n  Actual: 320",
        "{data}"
    );
    let frame = &data["hits"][0]["stop"]["frame"];
    assert_eq!(
        frame["function"], "CartTest#test_total_applies_discount",
        "{frame}"
    );
    assert_eq!(
        frame["line"].as_u64(),
        Some(u64::from(line_of(CART_TEST, "@failing_assert"))),
        "{frame}"
    );
}

/// `catch` takes a Ruby class by its `A::B` name, and the stop tells the exception's class and
/// message.
#[test]
fn catch_takes_a_ruby_class_by_its_full_name() {
    let s = project("minitest");
    let at = format!("cart_test.rb:{}", line_of(CART_TEST, "@failing_assert"));
    let answer = json(&s, &["test", "test_total_applies_discount", "-b", &at]);
    assert_eq!(answer["data"]["outcome"], "stopped", "{answer}");
    let caught = s.json(&["catch", "Minitest::Assertion"]);
    assert_eq!(caught["ok"], true, "{caught}");
    let stop = s.data(&["continue", "--wait", "--timeout", "60"])["stop"].clone();
    assert_eq!(stop["reason"], "exception", "{stop}");
    assert_eq!(stop["exception"]["type"], "Minitest::Assertion", "{stop}");
    assert_eq!(
        stop["exception"]["message"], "10% off.\nExpected: 360\n  Actual: 320",
        "{stop}"
    );
}

/// A project with a Gemfile runs its specs through `bundle exec` (its spec passes only so), the
/// debugger in the run (the Gemfile lists the debug gem, as Bundler's projects do): a failure
/// still stops at its line, with the Gemfile named.
#[test]
fn a_gemfile_runs_the_tests_through_bundle_exec() {
    let s = project("bundled");
    let listed = json(&s, &["test", "--list"]);
    assert_eq!(tests(&listed).len(), 1, "{listed}");
    let answer = json(&s, &["test", "runs the specs", "--break-on-failure"]);
    assert_eq!(answer["ok"], true, "{answer}");
    assert_eq!(answer["data"]["outcome"], "passed", "{answer}");
    s.run(&["stop"]);
    std::fs::rename(s.cwd.join("Gemfile"), s.cwd.join("Gemfile.off")).expect("rename");
    let plain = json(&s, &["test", "runs the specs", "--break-on-failure"]);
    let data = failed_at(
        &plain,
        "ruby/bundled/spec/bundler_spec.rb",
        "@bundled_expect",
    );
    assert!(message(&data).contains("to end with \"Gemfile\""), "{data}");
}
