//! A native program built without debug info: a `FILE:LINE` breakpoint says the program has
//! none (not "no such file"), and a function breakpoint says it stops at an address only (not
//! "verified (line 0)"), under lldb and GDB. The fixture is compiled here without `-g`.

mod common;

use std::path::PathBuf;

use common::{Session, line_of, require_lldb_dap};
use serde_json::Value;

/// `fixtures/c/verbs.c` built without `-g` into the session's directory.
fn build_without_debug_info(s: &Session) -> PathBuf {
    let out = s.dir.path().join("verbs_nodebug");
    let status = std::process::Command::new("cc")
        .args(["-O0", "-o"])
        .arg(&out)
        .arg(common::fixture_path("c/verbs.c"))
        .status()
        .expect("run cc");
    assert!(status.success(), "cc failed");
    out
}

fn probe(s: &Session, program: &PathBuf, adapter: &str, at: &str) -> (i32, Value) {
    let output = s
        .command()
        .args(["--json", "probe"])
        .arg(program)
        .args(["--adapter", adapter, "--break", at])
        .output()
        .expect("run probe");
    let value: Value = serde_json::from_slice(&output.stdout).unwrap_or(Value::Null);
    (output.status.code().unwrap_or(-1), value)
}

fn says_no_debug_info(s: &Session, adapter: &str) {
    let program = build_without_debug_info(s);
    let at = format!("verbs.c:{}", line_of("c/verbs.c", "@add_body"));
    let (code, report) = probe(s, &program, adapter, &at);
    assert_eq!(code, 1, "{adapter}: {report}");
    let text = report.to_string();
    assert!(
        text.contains("the program has no debug info (built without -g?)"),
        "{adapter}: {report}"
    );
    assert!(!text.contains("no such file"), "{adapter}: {report}");

    let (code, report) = probe(s, &program, adapter, "add");
    assert_eq!(code, 0, "{adapter}: {report}");
    let bp = &report["data"]["breakpoints"][0];
    assert_eq!(bp["verified"], true, "{adapter}: {report}");
    assert_eq!(bp["resolved_line"], Value::Null, "{adapter}: {report}");
    assert!(
        bp["message"]
            .as_str()
            .unwrap_or("")
            .contains("no debug info"),
        "{adapter}: {report}"
    );

    // In a session, the text says it where the breakpoint is listed.
    let started = s.run(&[
        "start",
        program.to_str().expect("utf-8"),
        "--adapter",
        adapter,
        "--stop-on-entry",
        "--break",
        "add",
    ]);
    assert_eq!(started.code, 0, "{}{}", started.stdout, started.stderr);
    let listed = s.run(&["breakpoint", "list"]);
    assert!(
        listed
            .ok()
            .contains("verified (at its address only: the program has no debug info"),
        "{}",
        listed.stdout
    );
    assert!(!listed.stdout.contains("line 0"), "{}", listed.stdout);
    s.run(&["stop"]);
}

#[test]
fn lldb_says_the_program_has_no_debug_info() {
    require_lldb_dap();
    says_no_debug_info(&Session::new(), "lldb");
}

#[test]
fn gdb_says_the_program_has_no_debug_info() {
    says_no_debug_info(&Session::with_gdb(), "gdb");
}

#[test]
fn a_program_with_debug_info_says_nothing_of_it() {
    require_lldb_dap();
    let s = Session::new();
    let program = common::build("c/verbs.c");
    let (code, report) = probe(&s, &program, "lldb", "add");
    assert_eq!(code, 0, "{report}");
    let bp = &report["data"]["breakpoints"][0];
    assert!(bp["message"].is_null(), "{report}");
}
