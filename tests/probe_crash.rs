//! `probe PROGRAM --on-crash`: one call turns a crash into a report (why, every thread's stack,
//! the crashing frame's locals, each `--print` there), exit 0; a program that exits normally is
//! exit 1 with its exit code in the report; `--core-dir` leaves a core `debugger core` opens.
//! On each crashing fixture (C NULL dereference, failed assert, a worker thread's crash, a Rust
//! panic, a Go panic), on lldb-dap, GDB 16 and Delve.

mod common;

use std::path::{Path, PathBuf};
use std::process::Command;

use common::{Session, build, build_go, line_of, require_delve, require_lldb_dap};
use serde_json::Value;

const NULL: &str = "c/crash_null.c";
const ASSERT: &str = "c/crash_assert.c";
const THREAD: &str = "c/crash_thread.c";
const PANICS: &str = "rust/panics.rs";
const GO_PANICS: &str = "go/panics/main.go";

fn session() -> Session {
    Session::with_gdb()
}

/// Runs `probe PROGRAM --on-crash EXTRA...` with `--json`; returns the exit code and the object.
fn probe(s: &Session, program: &Path, extra: &[&str]) -> (i32, Value) {
    let mut args = vec![
        "--json",
        "probe",
        program.to_str().expect("utf-8"),
        "--on-crash",
        "--timeout",
        "120",
    ];
    args.extend_from_slice(extra);
    let run = s.run(&args);
    (run.code, run.json())
}

/// Asserts a caught crash in `function` at `marker`, and returns the report.
#[track_caller]
fn assert_crash(
    (code, value): (i32, Value),
    signal: &str,
    function: &str,
    fixture: &str,
    marker: &str,
) -> Value {
    assert_eq!(code, 0, "{value}");
    let report = value["data"].clone();
    assert_eq!(report["crashed"], true, "{report}");
    assert_eq!(report["ended"]["reason"], "crashed", "{report}");
    if !signal.is_empty() {
        assert_eq!(report["ended"]["signal"]["name"], signal, "{report}");
    }
    assert_eq!(report["crash_frame"]["function"], function, "{report}");
    assert_eq!(
        report["crash_frame"]["line"],
        line_of(fixture, marker),
        "{report}"
    );
    assert!(
        report["crash_source"]["lines"]
            .as_array()
            .is_some_and(|l| !l.is_empty()),
        "{report}"
    );
    let stacks = report["threads"].as_array().expect("threads");
    assert!(!stacks.is_empty(), "{report}");
    let crashed = stacks[0]["frames"].as_array().expect("frames");
    assert!(
        crashed.iter().any(|f| f["function"] == function),
        "the crashed thread comes first: {report}"
    );
    report
}

#[track_caller]
fn local<'a>(report: &'a Value, name: &str) -> &'a str {
    common::variable(&report["locals"], name)["value"]
        .as_str()
        .unwrap_or("")
}

#[test]
fn a_null_dereference_is_reported_with_locals_prints_and_a_core_on_lldb_and_gdb() {
    require_lldb_dap();
    let program = build(NULL);
    let s = session();
    for adapter in ["lldb", "gdb"] {
        let cores = s.cwd.join(format!("cores-{adapter}"));
        let result = probe(
            &s,
            &program,
            &[
                "--adapter",
                adapter,
                "--print",
                "o->amount",
                "--print",
                "nosuch",
                "--core-dir",
                cores.to_str().expect("utf-8"),
            ],
        );
        let report = assert_crash(result, "SIGSEGV", "post", NULL, "@null_write");
        assert_eq!(local(&report, "extra"), "5", "{adapter}: {report}");
        assert_eq!(report["prints"][0]["value"], "1000", "{adapter}: {report}");
        assert!(
            report["prints"][1]["error"].is_string(),
            "{adapter}: {report}"
        );
        assert!(
            report["output"]["tail"]
                .as_str()
                .unwrap_or("")
                .contains("crash_null: order 42"),
            "{report}"
        );
        let core = PathBuf::from(report["core_file"].as_str().expect("a core file"));
        assert!(core.starts_with(&cores) && core.is_file(), "{report}");
        // The core it left explains the same crash.
        let opened = s.data(&[
            "core",
            program.to_str().expect("utf-8"),
            core.to_str().expect("utf-8"),
            "--adapter",
            adapter,
        ]);
        assert_eq!(opened["stop"]["frame"]["function"], "post", "{opened}");
        assert_eq!(s.value_of("o->amount"), "1000");
        // What the program never wrote is in it too (a minidump of the stacks alone had not).
        assert_eq!(s.value_of("g_marker[1]"), "34", "{adapter}");
        s.run(&["stop"]).ok();
        if adapter == "lldb" {
            // LLDB writes a minidump, which GDB cannot read: said as the adapter's refusal.
            let run = s.run(&[
                "--json",
                "core",
                program.to_str().expect("utf-8"),
                core.to_str().expect("utf-8"),
                "--adapter",
                "gdb",
            ]);
            let message = run.failure()["message"].as_str().unwrap_or("").to_string();
            assert!(
                message.starts_with("the gdb adapter could not open the core: "),
                "{message}"
            );
        }
    }
}

#[test]
fn a_crash_reports_print_of_a_struct_shows_its_members_in_text() {
    require_lldb_dap();
    let program = build(NULL);
    let s = session();
    for adapter in ["lldb", "gdb"] {
        let run = s.run(&[
            "probe",
            program.to_str().expect("utf-8"),
            "--on-crash",
            "--adapter",
            adapter,
            "--print",
            "*o",
        ]);
        assert_eq!(run.code, 0, "{adapter}: {}{}", run.stdout, run.stderr);
        let printed = run
            .stdout
            .split("Print:")
            .nth(1)
            .and_then(|rest| rest.split("Locals:").next())
            .unwrap_or("");
        for member in ["id", "amount", "ledger"] {
            assert!(
                printed.contains(member) && printed.contains("1000"),
                "{adapter}: no `{member}` under the print: {}",
                run.stdout
            );
        }
    }
}

#[test]
fn a_failed_assert_is_reported_in_the_asserting_frame() {
    require_lldb_dap();
    let program = build(ASSERT);
    let s = session();
    for adapter in ["lldb", "gdb"] {
        let result = probe(&s, &program, &["--adapter", adapter]);
        let report = assert_crash(result, "SIGABRT", "check_balance", ASSERT, "@assert_line");
        assert_eq!(local(&report, "balance"), "-7", "{adapter}: {report}");
        let tail = report["output"]["tail"].as_str().unwrap_or("");
        assert!(tail.contains("Assertion `balance >= 0' failed"), "{report}");
    }
}

#[test]
fn a_worker_threads_crash_reports_every_threads_stack() {
    require_lldb_dap();
    let program = build(THREAD);
    let s = session();
    for adapter in ["lldb", "gdb"] {
        let result = probe(&s, &program, &["--adapter", adapter, "--print", "id"]);
        let report = assert_crash(result, "SIGSEGV", "worker", THREAD, "@worker_crash");
        assert_eq!(report["prints"][0]["value"], "2", "{adapter}: {report}");
        let stacks = report["threads"].as_array().expect("threads");
        assert_eq!(stacks.len(), 4, "{adapter}: {report}");
    }
}

#[test]
fn a_rust_panic_is_reported_in_the_panicking_function_whether_it_aborts_or_unwinds() {
    require_lldb_dap();
    let s = session();
    let aborting = s.cwd.join("panics");
    let status = Command::new("rustc")
        .args(["-g", "-C", "opt-level=0", "-C", "panic=abort", "-o"])
        .arg(&aborting)
        .arg(common::fixture_path(PANICS))
        .status()
        .expect("run rustc");
    assert!(status.success());
    // The default build unwinds: no signal, exit 101, unless the panic is stopped on. Both
    // stop at the panic itself, before any unwinding or abort, with its message.
    let unwinding = build(PANICS);
    for program in [&aborting, &unwinding] {
        for adapter in ["lldb", "gdb"] {
            let result = probe(
                &s,
                program,
                &["--adapter", adapter, "--print", "split.parts"],
            );
            let report = assert_crash(result, "", "panics::divide", PANICS, "@panic_line");
            assert_eq!(local(&report, "total"), "10", "{adapter}: {report}");
            assert_eq!(report["prints"][0]["value"], "0", "{adapter}: {report}");
            let message = report["ended"]["message"].as_str().unwrap_or("");
            assert!(
                message.ends_with("a Rust panic: cannot split 10 into 0 parts"),
                "{adapter}: {report}"
            );
        }
    }
}

#[test]
fn a_go_panic_is_reported_on_delve() {
    require_delve();
    let program = build_go(GO_PANICS);
    let s = session();
    let result = probe(&s, &program, &["--print", "a.Balance"]);
    let report = assert_crash(result, "", "main.withdraw", GO_PANICS, "@panic_line");
    assert_eq!(report["adapter"], "delve", "{report}");
    assert_eq!(local(&report, "amount"), "50", "{report}");
    assert_eq!(report["prints"][0]["value"], "30", "{report}");
    let message = report["ended"]["message"].as_str().unwrap_or("");
    assert!(message.contains("insufficient funds"), "{report}");
    // Delve writes no cores: said in the report, the crash still caught.
    let (code, value) = probe(&s, &program, &["--core-dir", "cores"]);
    assert_eq!(code, 0, "{value}");
    let errors = value["data"]["errors"].to_string();
    assert!(errors.contains("cannot write core files"), "{value}");
}

#[test]
fn a_program_that_exits_normally_is_exit_1_with_its_exit_code() {
    require_lldb_dap();
    let program = build(NULL);
    let s = session();
    for adapter in ["lldb", "gdb"] {
        let run = s.run(&[
            "--json",
            "probe",
            program.to_str().expect("utf-8"),
            "--on-crash",
            "--adapter",
            adapter,
            "--",
            "exit",
        ]);
        assert_eq!(run.code, 1, "{run:?}");
        let error = run.failure();
        assert_eq!(error["code"], "no_crash", "{error}");
        let report = &run.json()["data"];
        assert_eq!(report["crashed"], false, "{report}");
        assert_eq!(report["ended"]["exit_code"], 4, "{report}");
        assert!(report["threads"].as_array().is_some_and(Vec::is_empty));
    }
    // The text says so first.
    let run = s.run(&[
        "probe",
        program.to_str().expect("utf-8"),
        "--on-crash",
        "--",
        "exit",
    ]);
    assert_eq!(run.code, 1);
    assert!(
        run.stdout
            .starts_with("crash_null: the program exited with code 4"),
        "{run:?}"
    );
}

#[test]
fn on_crash_takes_no_breakpoints_and_core_dir_needs_on_crash() {
    let program = build(NULL);
    let s = Session::new();
    let path = program.to_str().expect("utf-8");
    assert_eq!(s.run(&["probe", path, "--on-crash", "-b", "main"]).code, 2);
    assert_eq!(
        s.run(&["probe", path, "-b", "main", "--core-dir", "x"])
            .code,
        2
    );
}

#[test]
fn uncaught_exceptions_in_python_and_javascript_are_crashes() {
    common::require_debugpy();
    common::require_node();
    let s = Session::new();
    for (fixture, function, marker, words) in [
        ("python/raises.py", "ratio", "@divide", "ZeroDivisionError"),
        ("javascript/raises.js", "shout", "@throw_site", "TypeError"),
    ] {
        let result = probe(&s, &common::fixture_path(fixture), &[]);
        let report = assert_crash(result, "", function, fixture, marker);
        let message = report["ended"]["message"].as_str().unwrap_or("");
        assert!(message.contains(words), "{report}");
    }
}
