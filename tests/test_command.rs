//! `debugger test` and `probe --test` on the fixture projects of fixtures/tests/ (a cargo crate,
//! a pytest suite, a Go package, a node:test file, a C test executable), each copied into the
//! session's own folder, where the command runs as a user runs it in their project.

mod common;

use std::path::PathBuf;
use std::process::Command;
use std::sync::OnceLock;

use common::test_project::{cargo_target, command, copy_dir, failed_at, json, local};
use common::{
    Run, Session, fixture_path, frame_lines, line_of, require_debugpy, require_delve,
    require_lldb_dap,
};
use serde_json::Value;

/// Copies the fixture project `name` (a folder of fixtures/tests/) into the session's folder.
/// The cargo project is the exception: its tests share one copy beside their shared target dir
/// (see [`cargo_project`]).
fn project(name: &str) -> Session {
    let mut s = Session::new();
    if name == "rust" {
        s.cwd = cargo_project();
    } else {
        copy_dir(&fixture_path(&format!("tests/{name}")), &s.cwd);
    }
    s
}

/// The one copy of the cargo fixture its tests run in. Cargo takes two copies of a crate in one
/// target dir for one crate, so a test in its own copy could run another copy's build, whose
/// debug information names the other copy's files, and not find its own frame.
fn cargo_project() -> PathBuf {
    static COPIED: OnceLock<PathBuf> = OnceLock::new();
    COPIED
        .get_or_init(|| {
            let dir = cargo_target().join("project");
            copy_dir(&fixture_path("tests/rust"), &dir);
            dir
        })
        .clone()
}

#[test]
fn a_failing_rust_unit_test_stops_at_its_assertion_with_the_panic_message() {
    require_lldb_dap();
    let s = project("rust");
    let answer = json(
        &s,
        &["test", "total_applies_discount", "--break-on-failure"],
    );
    let data = failed_at(&answer, "tests/rust/src/lib.rs", "@unit_fail");
    assert_eq!(data["test"], "tests::total_applies_discount");
    assert_eq!(local(&data, "discounted"), "360");
    let message = data["message"].as_str().expect("message");
    assert!(
        message.contains("10% off") && message.contains("360"),
        "{message}"
    );
}

#[test]
fn a_failing_rust_integration_test_is_picked_with_cargos_own_flags() {
    require_lldb_dap();
    let s = project("rust");
    let answer = json(
        &s,
        &[
            "test",
            "checkout_counts_items",
            "--break-on-failure",
            "--",
            "--test",
            "checkout",
        ],
    );
    let data = failed_at(&answer, "tests/rust/tests/checkout.rs", "@integration_fail");
    assert_eq!(local(&data, "count"), "2");
}

/// A stand-in for cargo that builds a test executable, names it, and, before it ends, lets a
/// second build replace it (as another cargo sharing the target dir does as soon as this one
/// releases its lock); it waits for the pin to appear (up to 10 s), so the order is fixed.
#[cfg(unix)]
const REBUILDING_CARGO: &str = r#"#!/bin/sh
out="$PWD/fake-target"
mkdir -p "$out"
build() {
    printf '#!/bin/sh\necho "tests::%s: test"\n' "$1" > "$out/next"
    chmod +x "$out/next"
    mv "$out/next" "$out/cart-1"
}
build first_build
echo '{"reason":"compiler-artifact","target":{"name":"cart"},"profile":{"test":true},"executable":"'"$out/cart-1"'"}'
tries=0
while [ "$(ls "$out" | wc -l)" -lt 2 ] && [ "$tries" -lt 1000 ]; do
    tries=$((tries + 1))
    sleep 0.01
done
build second_build
"#;

#[cfg(unix)]
#[test]
fn the_build_a_test_command_made_is_the_one_it_runs_though_the_target_is_rebuilt() {
    use std::os::unix::fs::PermissionsExt;
    let s = Session::new();
    std::fs::write(s.cwd.join("Cargo.toml"), "[package]\nname = \"cart\"\n").expect("write");
    let bin = s.dir.path().join("bin");
    std::fs::create_dir(&bin).expect("bin dir");
    let cargo = bin.join("cargo");
    std::fs::write(&cargo, REBUILDING_CARGO).expect("write cargo");
    std::fs::set_permissions(&cargo, std::fs::Permissions::from_mode(0o755)).expect("chmod");
    let path = std::env::join_paths(std::iter::once(bin).chain(std::env::split_paths(
        &std::env::var_os("PATH").unwrap_or_default(),
    )))
    .expect("PATH");
    let output = command(&s, &["test", "--list"])
        .env("PATH", path)
        .output()
        .expect("run debugger");
    let answer = common::Run::from(output).json();
    assert_eq!(
        answer["data"]["tests"],
        serde_json::json!(["tests::first_build (cart)"]),
        "{answer}"
    );
}

#[test]
fn a_breakpoint_inside_a_test_stops_there() {
    require_lldb_dap();
    let s = project("rust");
    let line = line_of("tests/rust/src/lib.rs", "@unit_pass").to_string();
    let at = format!("src/lib.rs:{line}");
    let answer = json(&s, &["test", "tests::total_adds_prices", "-b", &at]);
    assert_eq!(answer["data"]["outcome"], "stopped", "{answer}");
    assert_eq!(answer["data"]["stop"]["reason"], "breakpoint");
    assert_eq!(
        answer["data"]["stop"]["frame"]["line"].as_u64(),
        line.parse().ok()
    );
}

#[test]
fn rust_tests_are_listed_and_an_ambiguous_selector_names_each_match() {
    require_lldb_dap();
    let s = project("rust");
    let list = json(&s, &["test", "--list"]);
    let tests = list["data"]["tests"].as_array().expect("tests").len();
    assert_eq!(tests, 6, "{list}");
    let answer = json(&s, &["test", "rounding"]);
    assert_eq!(answer["ok"], false, "{answer}");
    let message = answer["error"]["message"].as_str().expect("message");
    assert!(
        message.contains("tests::rounding in cart") && message.contains("rounding in checkout"),
        "{message}"
    );
}

#[test]
fn a_folder_without_tests_says_so() {
    let s = Session::new();
    let answer = json(&s, &["test", "anything"]);
    assert_eq!(answer["ok"], false);
    let message = answer["error"]["message"].as_str().expect("message");
    assert!(message.starts_with("no tests found in"), "{message}");
}

#[test]
fn probe_test_exits_0_on_the_caught_failure_and_1_when_the_test_passes() {
    require_lldb_dap();
    let s = project("rust");
    let failing = command(
        &s,
        &[
            "probe",
            "--test",
            "total_applies_discount",
            "--break-on-failure",
            "--print",
            "discounted",
        ],
    )
    .output()
    .expect("run probe");
    let report = common::Run::from(failing);
    assert_eq!(report.code, 0, "{}{}", report.stdout, report.stderr);
    let data = &report.json()["data"];
    let hit = &data["hits"][0];
    assert_eq!(hit["prints"][0]["value"], "360", "{data}");
    assert_eq!(
        hit["stop"]["frame"]["line"].as_u64(),
        Some(u64::from(line_of("tests/rust/src/lib.rs", "@unit_fail")))
    );
    // What the panic said, as `test` shows it.
    let failure = data["failure"].as_str().unwrap_or("");
    assert!(
        failure.contains("10% off") && failure.contains("360"),
        "{data}"
    );
    let passing = command(
        &s,
        &["probe", "--test", "total_adds_prices", "--break-on-failure"],
    )
    .output()
    .expect("run probe");
    assert_eq!(passing.status.code(), Some(1));
}

/// Fails the test with instructions when `python3` (the adapter's Python here) lacks pytest.
fn require_pytest() {
    require_debugpy();
    let works = Command::new("python3")
        .args(["-c", "import pytest"])
        .status()
        .is_ok_and(|s| s.success());
    assert!(
        works,
        "pytest is required: install it with 'python3 -m pip install pytest' \
         (scripts/install-test-deps.sh does)"
    );
}

/// `test --break-on-failure` (with `adapter`'s flags) on the pytest test and the unittest test
/// that fail: each stops at its failing line with the test's locals and the assertion's message.
fn stops_at_python_failures(adapter: &[&str]) {
    require_pytest();
    let s = project("python");
    let run = |selector: &str| {
        let mut args = vec!["test", selector];
        args.extend_from_slice(adapter);
        args.push("--break-on-failure");
        json(&s, &args)
    };
    let answer = run("test_cart.py::test_total_discount");
    let data = failed_at(&answer, "tests/python/test_cart.py", "@py_fail");
    assert_eq!(local(&data, "discounted"), "360");
    assert!(
        data["message"]
            .as_str()
            .unwrap_or("")
            .starts_with("AssertionError")
    );
    s.run(&["stop"]);
    let answer = run("test_cart.CartTest.test_half");
    let data = failed_at(&answer, "tests/python/test_cart.py", "@py_unittest_fail");
    assert_eq!(local(&data, "half"), "5");
}

#[test]
fn a_failing_pytest_test_stops_at_its_assert_in_either_selector_form() {
    stops_at_python_failures(&[]);
}

/// Our pdb adapter stops where a failure leaves the test for the runner (its `userUnhandled`
/// filter), as debugpy does: pytest's rewritten assert and unittest's `assertEqual`, whose
/// exception is raised in the library and leaves through the test's line.
#[test]
fn pdb_stops_at_a_failed_pytest_assert_and_a_failed_unittest_assertion() {
    stops_at_python_failures(&["--adapter", "pdb"]);
}

/// A bare test name is looked up as `--list` looks it up (given to pytest as a path it was "file
/// or directory not found", reported as a test that ended, exit 0), and a run in which pytest
/// says it ran no test is an error.
#[test]
fn a_bare_pytest_name_runs_the_one_test_it_names_and_a_run_of_no_test_is_an_error() {
    require_pytest();
    let s = project("python");
    let answer = json(&s, &["test", "test_total_discount", "--break-on-failure"]);
    let data = failed_at(&answer, "tests/python/test_cart.py", "@py_fail");
    assert_eq!(data["test"], "test_cart.py::test_total_discount", "{data}");
    s.run(&["stop"]);

    let usage = |args: &[&str]| {
        let run = Run::from(command(&s, args).output().expect("run debugger"));
        assert_eq!(run.code, 2, "{run:?}");
        run.failure()["message"].as_str().unwrap_or("").to_string()
    };
    // Several: each is named. None: said so.
    let several = usage(&["test", "test_total", "--break-on-failure"]);
    assert!(
        several.contains("matches 2 tests")
            && several.contains("test_cart.py::test_total_adds")
            && several.contains("test_cart.py::test_total_discount"),
        "{several}"
    );
    let none = usage(&["test", "no_such_test", "--break-on-failure"]);
    assert!(none.contains("no test matches 'no_such_test'"), "{none}");
    // A node pytest cannot find: pytest's own words, from a run and from a probe.
    for command in ["test", "probe --test"] {
        let mut args: Vec<&str> = command.split(' ').collect();
        args.extend(["test_cart.py::no_such_test", "--break-on-failure"]);
        let message = usage(&args);
        assert!(
            message.contains("pytest ran no test for 'test_cart.py::no_such_test' (exit code 4)")
                && message.contains("not found"),
            "{command}: {message}"
        );
    }
}

/// debugpy labels the frame paused at an exception ` (Current frame)`: no part of the function's
/// name, in the failure's report or in `bt`.
#[test]
fn a_python_failure_names_the_test_function_alone() {
    require_pytest();
    let s = project("python");
    let test = "test_cart.py::test_total_discount";
    let line = line_of("tests/python/test_cart.py", "@py_fail");
    let run = s.run(&["test", test, "--break-on-failure"]);
    let out = run.ok();
    assert!(
        out.contains(&format!(
            "Stopped at the failure in test_total_discount (test_cart.py:{line}), frame 0 selected"
        )),
        "{out}"
    );
    let bt = s.data(&["backtrace"]);
    assert_eq!(
        frame_lines(&bt).first(),
        Some(&("test_total_discount", u64::from(line))),
        "{bt}"
    );
}

/// `probe --test` calls a failure's hit the failure (it said "a breakpoint": a Python test's
/// failure is an exception, at no breakpoint) and shows no empty `Breakpoints:` list.
#[test]
fn probe_test_calls_its_hit_the_failure_and_leaves_out_an_empty_breakpoint_list() {
    require_pytest();
    let s = project("python");
    let test = "test_cart.py::test_total_discount";
    let line = line_of("tests/python/test_cart.py", "@py_fail");
    let run = s.run(&["probe", "--test", test, "--break-on-failure"]);
    let out = run.ok();
    assert!(
        out.contains(&format!(
            "\nHit 1: the failure in test_total_discount (test_cart.py:{line}), thread 1\n"
        )),
        "{out}"
    );
    assert!(!out.contains("Breakpoints:"), "{out}");
    let probed = json(&s, &["probe", "--test", test, "--break-on-failure"]);
    assert_eq!(probed["data"]["at_failure"], true, "{probed}");
}

#[test]
fn pytest_lists_parametrised_tests() {
    require_pytest();
    let s = project("python");
    let list = json(&s, &["test", "--list"]);
    let tests: Vec<&str> = list["data"]["tests"]
        .as_array()
        .expect("tests")
        .iter()
        .filter_map(Value::as_str)
        .collect();
    assert!(tests.contains(&"test_cart.py::test_counts[2]"), "{tests:?}");
    // A selector in either form lists what it names: here the TestCase's two tests.
    for selector in ["test_cart.py::CartTest", "test_cart.CartTest"] {
        let list = json(&s, &["test", "--list", selector]);
        assert_eq!(
            list["data"]["tests"],
            serde_json::json!([
                "test_cart.py::CartTest::test_empty",
                "test_cart.py::CartTest::test_half"
            ]),
            "{selector}"
        );
    }
}

#[test]
fn a_failing_go_test_stops_at_t_errorf_or_its_panic_with_the_message() {
    require_delve();
    let s = project("go");
    let answer = json(&s, &["test", "TestTotalTable", "--break-on-failure"]);
    let data = failed_at(&answer, "tests/go/cart_test.go", "@go_fail");
    assert_eq!(local(&data, "got"), "360");
    // The message t.Errorf logged, shown at the stop (before the test ends).
    assert_eq!(data["message"], "tenth: Total = 360, want 400", "{data}");
    s.run(&["stop"]);
    let panicked = json(&s, &["test", "TestTotalOfNone", "--break-on-failure"]);
    let data = failed_at(&panicked, "tests/go/cart_test.go", "@go_panic");
    let message = data["message"].as_str().expect("a panic's message");
    assert!(
        message.starts_with("panic: runtime.boundsError"),
        "{message}"
    );
    s.run(&["stop"]);
    // `probe --test` says the same.
    let probed = json(
        &s,
        &["probe", "--test", "TestTotalTable", "--break-on-failure"],
    );
    assert_eq!(
        probed["data"]["failure"], "tenth: Total = 360, want 400",
        "{probed}"
    );
    let list = json(&s, &["test", "--list"]);
    assert_eq!(
        list["data"]["tests"],
        serde_json::json!(["TestTotalAdds", "TestTotalTable", "TestTotalOfNone"])
    );
    // A name no test has: go test passes with a warning alone, which is no pass to report.
    let none = s.run(&["--json", "test", "TestNoSuchTest"]);
    assert_eq!(none.code, 2, "{none:?}");
    let error = none.failure();
    assert_eq!(
        error["message"], "no test of the package matches 'TestNoSuchTest' (go test ran none)",
        "{error}"
    );
}

#[test]
fn a_failing_c_test_executable_stops_at_its_assert() {
    require_lldb_dap();
    let s = project("c");
    let status = Command::new("cc")
        .args(["-g", "-O0", "-o", "cart_tests", "cart_tests.c"])
        .current_dir(&s.cwd)
        .status()
        .expect("run cc");
    assert!(status.success());
    let answer = json(
        &s,
        &[
            "test",
            "./cart_tests",
            "--break-on-failure",
            "--",
            "total_discount",
        ],
    );
    let data = failed_at(&answer, "tests/c/cart_tests.c", "@c_fail");
    assert_eq!(local(&data, "discounted"), "360");
}

#[test]
fn a_breakpoint_inside_a_node_test_stops_there() {
    common::require_node();
    let s = project("javascript");
    let line = line_of("tests/javascript/cart.test.js", "@js_fail");
    let at = format!("cart.test.js:{line}");
    let answer = json(
        &s,
        &["test", "cart.test.js::total applies discount", "-b", &at],
    );
    assert_eq!(answer["data"]["outcome"], "stopped", "{answer}");
    assert_eq!(
        answer["data"]["stop"]["frame"]["line"].as_u64(),
        Some(u64::from(line))
    );
    assert_eq!(local(&answer["data"], "discounted"), "360");
    // As text the locals are listed once, by the stop report.
    s.run(&["stop"]);
    let run = Run::from(
        s.command()
            .args(["test", "cart.test.js::total applies discount", "-b", &at])
            .output()
            .expect("run debugger"),
    );
    let text = run.ok();
    assert_eq!(text.matches("Locals").count(), 1, "{text}");
    assert!(text.contains("discounted"), "{text}");
}

#[test]
fn a_failing_node_test_stops_at_its_assertion_in_the_test() {
    common::require_node();
    let s = project("javascript");
    let answer = json(
        &s,
        &["test", "total applies discount", "--break-on-failure"],
    );
    let data = failed_at(&answer, "tests/javascript/cart.test.js", "@js_fail");
    assert_eq!(local(&data, "discounted"), "360");
    // The whole message: node's assertion says what differs on the lines after its first.
    let message = data["message"].as_str().unwrap_or("");
    assert!(
        message.starts_with("AssertionError: Expected values to be strictly equal:")
            && message.contains("360 !== 400"),
        "{message}"
    );
    s.run(&["stop"]);
    let passing = json(&s, &["test", "total adds prices", "--break-on-failure"]);
    assert_eq!(passing["data"]["outcome"], "passed", "{passing}");
}

#[test]
fn a_node_test_in_a_project_that_lists_vitest_runs_under_node() {
    common::require_node();
    let s = project("javascript");
    // vitest would take cart.test.js as its own and run node:test's tests in its worker; the
    // test is node's whatever else the project uses (vitest need not even be installed).
    std::fs::write(
        s.cwd.join("package.json"),
        r#"{"devDependencies": {"vitest": "4.1.12"}}"#,
    )
    .expect("write package.json");
    for selector in [
        "total applies discount",
        "cart.test.js::total applies discount",
    ] {
        let answer = json(&s, &["test", selector, "--break-on-failure"]);
        let data = failed_at(&answer, "tests/javascript/cart.test.js", "@js_fail");
        assert_eq!(data["runner"], "node --test", "{data}");
        assert_eq!(local(&data, "discounted"), "360");
        s.run(&["stop"]);
    }
}
