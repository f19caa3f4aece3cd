//! `debugger test` on a CMake project's tests through CTest (fixtures/tests/cmake: a C test
//! executable and a Google Test one), configured and built once per test process, run from its
//! build folder and from its source folder.

mod common;

use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::OnceLock;

use common::test_project::{copy_dir, failed_at, json, local};
use common::{Session, fixture_path, require_lldb_dap};

const SOURCE: &str = "tests/cmake/cart_tests.c";

/// The fixture's source folder, its tests built in `build/` beside it (the first call builds).
fn cmake_project() -> &'static Path {
    static BUILT: OnceLock<PathBuf> = OnceLock::new();
    BUILT.get_or_init(|| {
        let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("test-cmake");
        copy_dir(&fixture_path("tests/cmake"), &dir);
        let configure = ["-S", ".", "-B", "build", "-DCMAKE_BUILD_TYPE=Debug"];
        for args in [&configure[..], &["--build", "build"]] {
            let output = Command::new("cmake")
                .args(args)
                .current_dir(&dir)
                .output()
                .expect("cmake is required: scripts/install-test-deps.sh installs it");
            assert!(
                output.status.success(),
                "cmake {args:?} failed: {}",
                String::from_utf8_lossy(&output.stderr)
            );
        }
        dir
    })
}

/// A session whose folder is the fixture's `build` folder, or (`None`) its source folder.
fn session_in(folder: Option<&str>) -> Session {
    with_folder(Session::new(), folder)
}

fn with_folder(mut s: Session, folder: Option<&str>) -> Session {
    let project = cmake_project();
    s.cwd = folder.map_or_else(|| project.to_path_buf(), |f| project.join(f));
    s
}

#[test]
fn a_failing_ctest_stops_at_its_assert_run_with_the_tests_environment() {
    require_lldb_dap();
    let s = session_in(Some("build"));
    let answer = json(&s, &["test", "total_discount", "--break-on-failure"]);
    let data = failed_at(&answer, SOURCE, "@ctest_fail");
    assert_eq!(data["runner"], "ctest");
    // CART_DISCOUNT comes from the test's ENVIRONMENT property alone.
    assert_eq!(local(&data, "discount"), "10");
    assert_eq!(local(&data, "discounted"), "360");
    assert_eq!(
        data["message"], "Assertion `discounted == 400' failed.",
        "{data}"
    );
}

#[test]
fn a_failing_google_test_stops_at_its_expectation_with_its_message() {
    require_lldb_dap();
    let s = session_in(Some("build"));
    let answer = json(&s, &["test", "AppliesDiscount", "--break-on-failure"]);
    let data = failed_at(&answer, "tests/cmake/cart_gtest.cpp", "@gtest_fail");
    assert_eq!(data["test"], "Cart.AppliesDiscount");
    assert_eq!(local(&data, "discounted"), "360");
    let message = data["message"].as_str().expect("a message");
    assert!(
        message.contains("Which is: 360") && message.contains("10% off"),
        "{message}"
    );
}

#[test]
fn a_failing_ctest_stops_at_its_assert_under_gdb() {
    let s = with_folder(Session::with_gdb(), Some("build"));
    let answer = json(
        &s,
        &[
            "test",
            "total_discount",
            "--break-on-failure",
            "--adapter",
            "gdb",
        ],
    );
    let data = failed_at(&answer, SOURCE, "@ctest_fail");
    assert_eq!(local(&data, "discounted"), "360");
}

#[test]
fn from_the_source_folder_ctests_are_listed_and_run_and_an_exit_status_failure_is_explained() {
    require_lldb_dap();
    let s = session_in(None);
    let list = json(&s, &["test", "--list"]);
    assert_eq!(
        list["data"]["tests"],
        serde_json::json!([
            "Cart.AddsPrices",
            "Cart.AppliesDiscount",
            "total_adds",
            "total_discount",
            "total_rounding"
        ]),
        "{list}"
    );
    let ambiguous = json(&s, &["test", "total"]);
    assert_eq!(ambiguous["error"]["code"], "usage", "{ambiguous}");

    let ended = json(&s, &["test", "total_rounding", "--break-on-failure"]);
    let data = &ended["data"];
    assert_eq!(data["outcome"], "ended", "{ended}");
    assert_eq!(data["stop"]["exit_code"], 1);
    let note = data["note"].as_str().expect("a note");
    assert!(note.contains("exit status alone"), "{note}");
    s.run(&["stop"]);

    let passed = json(&s, &["test", "total_adds", "--break-on-failure"]);
    assert_eq!(passed["data"]["outcome"], "passed", "{passed}");
}

#[test]
fn a_cmake_project_without_a_build_folder_says_how_to_make_one() {
    let s = Session::new();
    copy_dir(&fixture_path("tests/cmake"), &s.cwd);
    let answer = json(&s, &["test", "total_adds"]);
    assert_eq!(answer["ok"], false, "{answer}");
    let message = answer["error"]["message"].as_str().expect("message");
    assert!(message.contains("without a build folder"), "{message}");
    assert!(
        answer["error"]["hint"]
            .as_str()
            .is_some_and(|h| h.contains("cmake -B build")),
        "{answer}"
    );
}
