//! `debugger test` finds what the project's runner finds, wherever the runner works: a Go
//! module's package folder and its root, an npm package whose `node:test` files are in
//! subfolders (and `--list` for them), a pytest suite with a file it cannot collect, and a
//! runner that crashes, shown with the line that says why. Each fixture project of
//! fixtures/tests/ is copied into the session's folder and the command runs in it, or in one of
//! its folders, or beside it.

mod common;

use std::path::Path;
use std::process::Command;

use common::test_project::{command, copy_dir, failed_at, local};
use common::{Run, Session, fixture_path, require_debugpy, require_delve, require_node};
use serde_json::Value;

/// Copies the fixture project `name` into the session's folder, under `name`.
fn project(name: &str) -> Session {
    let s = Session::new();
    copy_dir(&fixture_path(&format!("tests/{name}")), &s.cwd.join(name));
    s
}

/// `debugger --json ARGS` run in `dir`: the answer.
fn json_in(s: &Session, dir: &Path, args: &[&str]) -> Value {
    let output = command(s, args)
        .current_dir(dir)
        .output()
        .expect("run debugger");
    Run::from(output).json()
}

fn tests_of(list: &Value) -> Vec<&str> {
    list["data"]["tests"]
        .as_array()
        .unwrap_or_else(|| panic!("no tests in {list}"))
        .iter()
        .filter_map(Value::as_str)
        .collect()
}

fn warnings_of(list: &Value) -> Vec<&str> {
    list["data"]["warnings"]
        .as_array()
        .unwrap_or_else(|| panic!("no warnings in {list}"))
        .iter()
        .filter_map(Value::as_str)
        .collect()
}

const GO_TEST: &str = "tests/go_module/pricing/pricing_test.go";

#[test]
fn a_go_packages_tests_are_found_from_its_folder_its_modules_root_and_beside_the_module() {
    require_delve();
    let s = project("go_module");
    let root = s.cwd.join("go_module");
    let package = root.join("pricing");

    // The package's folder, which holds no go.mod: as `go test` there.
    let list = json_in(&s, &package, &["test", "--list"]);
    assert_eq!(
        tests_of(&list),
        ["TestTotalAdds", "TestTotalDiscount"],
        "{list}"
    );
    let answer = json_in(
        &s,
        &package,
        &["test", "TestTotalDiscount", "--break-on-failure"],
    );
    let data = failed_at(&answer, GO_TEST, "@mod_fail");
    assert_eq!(local(&data, "got"), "360");
    assert_eq!(data["message"], "Total = 360, want 400", "{data}");
    s.run(&["stop"]);

    // The module's root, which holds no test of its own: its packages' tests, each named
    // with its package, and a test found in the one package that holds it.
    let list = json_in(&s, &root, &["test", "--list"]);
    assert_eq!(
        tests_of(&list),
        ["TestTotalAdds (./pricing)", "TestTotalDiscount (./pricing)"],
        "{list}"
    );
    let answer = json_in(
        &s,
        &root,
        &["test", "TestTotalDiscount", "--break-on-failure"],
    );
    let data = failed_at(&answer, GO_TEST, "@mod_fail");
    assert_eq!(local(&data, "got"), "360");
    s.run(&["stop"]);

    // Beside the module, where `go test` finds no go.mod: the package named after `--`, or a
    // line of the listing as the selector.
    let list = json_in(&s, &s.cwd, &["test", "--list", "--", "./go_module/pricing"]);
    assert_eq!(
        tests_of(&list),
        [
            "TestTotalAdds (./go_module/pricing)",
            "TestTotalDiscount (./go_module/pricing)"
        ],
        "{list}"
    );
    let answer = json_in(
        &s,
        &s.cwd,
        &[
            "test",
            "TestTotalDiscount (./go_module/pricing)",
            "--break-on-failure",
        ],
    );
    failed_at(&answer, GO_TEST, "@mod_fail");
}

/// A package that does not build is a warning naming the compiler's error; the others' tests
/// are listed all the same.
#[test]
fn a_go_package_that_does_not_build_is_named_and_the_others_are_listed() {
    require_delve();
    let s = project("go_module");
    let root = s.cwd.join("go_module");
    std::fs::create_dir(root.join("broken")).expect("mkdir");
    std::fs::write(
        root.join("broken/b.go"),
        "package broken\n\nfunc f() { x := }\n",
    )
    .expect("write");
    std::fs::write(
        root.join("broken/b_test.go"),
        "package broken\n\nimport \"testing\"\n\nfunc TestB(t *testing.T) {}\n",
    )
    .expect("write");
    let list = json_in(&s, &root, &["test", "--list"]);
    assert_eq!(
        tests_of(&list),
        ["TestTotalAdds (./pricing)", "TestTotalDiscount (./pricing)"],
        "{list}"
    );
    let warnings = warnings_of(&list);
    assert!(
        warnings.len() == 1
            && warnings[0].starts_with("./broken (example.com/shop/broken) was not listed: ")
            && warnings[0].contains("syntax error"),
        "{list}"
    );
}

const NPM_TEST: &str = "tests/npm_package/app/cart.test.js";

#[test]
fn node_test_files_in_subfolders_are_found_and_listed_by_the_runner() {
    require_node();
    let s = project("npm_package");
    let root = s.cwd.join("npm_package");
    // A dependency's test file is not the package's.
    let dependency = root.join("node_modules/dep");
    std::fs::create_dir_all(&dependency).expect("mkdir");
    std::fs::write(
        dependency.join("dep.test.js"),
        "require('node:test')('a dependency test', () => {});\n",
    )
    .expect("write");

    let list = json_in(&s, &root, &["test", "--list"]);
    assert_eq!(list["data"]["runner"], "node --test", "{list}");
    assert_eq!(
        tests_of(&list),
        [
            "app/cart.test.js::total adds prices",
            "app/cart.test.js::a tenth off",
            "test/unit/money.js::money rounds",
        ],
        "{list}"
    );
    let some = json_in(&s, &root, &["test", "--list", "tenth"]);
    assert_eq!(tests_of(&some), ["app/cart.test.js::a tenth off"], "{some}");

    let answer = json_in(&s, &root, &["test", "a tenth off", "--break-on-failure"]);
    let data = failed_at(&answer, NPM_TEST, "@npm_fail");
    assert_eq!(local(&data, "discounted"), "360");
    s.run(&["stop"]);
    // A line of the listing is a selector too.
    let answer = json_in(
        &s,
        &root,
        &[
            "test",
            "app/cart.test.js::a tenth off",
            "--break-on-failure",
        ],
    );
    failed_at(&answer, NPM_TEST, "@npm_fail");
}

#[test]
fn a_node_test_file_that_fails_to_load_is_a_warning_beside_the_others_tests() {
    require_node();
    let s = project("npm_package");
    let root = s.cwd.join("npm_package");
    std::fs::write(
        root.join("app/broken.test.js"),
        "require('./no-such-module');\n",
    )
    .expect("write");
    let list = json_in(&s, &root, &["test", "--list"]);
    assert_eq!(tests_of(&list).len(), 3, "{list}");
    assert_eq!(
        warnings_of(&list),
        ["app/broken.test.js was not listed: Error: Cannot find module './no-such-module'"],
        "{list}"
    );
    let run = Run::from(
        s.command()
            .current_dir(&root)
            .args(["test", "--list"])
            .output()
            .expect("run debugger"),
    );
    let text = run.ok();
    assert!(
        text.ends_with(
            "\nwarning: app/broken.test.js was not listed: Error: Cannot find module \
             './no-such-module'\n"
        ),
        "{text}"
    );
}

/// Fails the test with instructions when `python3` lacks pytest.
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

#[test]
fn pytest_lists_what_it_collected_and_names_each_file_it_could_not() {
    require_pytest();
    let s = project("pytest_suite");
    let root = s.cwd.join("pytest_suite");
    let list = json_in(&s, &root, &["test", "--list"]);
    assert_eq!(list["ok"], true, "{list}");
    assert_eq!(
        tests_of(&list),
        [
            "tests/test_ledger.py::test_balance_adds",
            "tests/test_ledger.py::test_balance_on_day"
        ],
        "{list}"
    );
    assert_eq!(
        warnings_of(&list),
        [
            "tests/test_broken.py was not collected: RuntimeError: the fixture database is not \
             configured",
            "tests/test_legacy.py was not collected: DeprecationWarning: the legacy ledger is \
             deprecated",
        ],
        "{list}"
    );
    // A bare name is looked up the same way, and runs.
    let answer = json_in(
        &s,
        &root,
        &["test", "test_balance_on_day", "--break-on-failure"],
    );
    failed_at(
        &answer,
        "tests/pytest_suite/tests/test_ledger.py",
        "@ledger_fail",
    );
}

/// pytest's internal error (a `conftest.py` hook that raises) is shown by its exception's line,
/// which its `INTERNALERROR>` traceback ends with.
#[test]
fn a_runner_that_crashes_is_shown_with_the_line_that_says_why() {
    require_pytest();
    let s = project("pytest_suite");
    let root = s.cwd.join("pytest_suite");
    std::fs::write(
        root.join("conftest.py"),
        "def pytest_collection_modifyitems(items):\n    raise ValueError('the ledger plugin is misconfigured')\n",
    )
    .expect("write conftest");
    let run = Run::from(
        command(&s, &["test", "--list"])
            .current_dir(&root)
            .output()
            .expect("run debugger"),
    );
    assert_eq!(run.code, 2, "{run:?}");
    let message = run.failure()["message"].as_str().unwrap_or("").to_string();
    assert_eq!(
        message.lines().next(),
        Some("pytest --collect-only failed: ValueError: the ledger plugin is misconfigured"),
        "{message}"
    );
}
