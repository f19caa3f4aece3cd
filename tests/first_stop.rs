//! `start` and `restart` answer with the program's first stop, as gdb's `run` does: the same
//! stop report the execution commands give (text, and JSON `data.stop`), shown, so a
//! `continue` runs on from it. A program still running after the wait is said to be, with how
//! long it was watched; `--no-wait` answers at once. (What `finish --wait` says a function
//! returned: `tests/return_values.rs`.)

mod common;

use std::path::Path;
use std::time::{Duration, Instant};

use common::{
    Session, build, build_go, fixture_path, line_of, require_debugpy, require_delve,
    require_lldb_dap, require_node,
};
use serde_json::Value;

/// `start PROGRAM ARGS...` in text.
#[track_caller]
fn start_text(s: &Session, program: &Path, extra: &[&str]) -> String {
    let mut args = vec!["start", program.to_str().expect("utf-8 path")];
    args.extend_from_slice(extra);
    s.run(&args).ok().to_string()
}

#[track_caller]
fn assert_first_stop(data: &Value, function: &str, line: u32) {
    assert_eq!(data["state"], "stopped", "{data}");
    let stop = &data["stop"];
    assert_eq!(stop["reason"], "breakpoint", "{stop}");
    assert_eq!(stop["breakpoint_ids"], serde_json::json!([1]), "{stop}");
    assert_eq!(stop["frame"]["function"], function, "{stop}");
    assert_eq!(stop["frame"]["line"], line, "{stop}");
}

#[track_caller]
fn assert_text_stop(text: &str, headline: &str) {
    assert!(text.contains(headline), "{text}");
    assert!(text.contains("->"), "no source lines:\n{text}");
    assert!(!text.contains("running"), "{text}");
}

#[test]
fn lldb_start_with_a_breakpoint_answers_with_the_stop_and_continue_runs_on() {
    require_lldb_dap();
    let program = build("c/ledger.c");
    let body = line_of("c/ledger.c", "@apply_body");
    let s = Session::new();
    let text = start_text(&s, &program, &["--break", "apply", "--wait", "60"]);
    assert_text_stop(
        &text,
        &format!("Stopped at breakpoint 1 in apply (ledger.c:{body})"),
    );
    // Shown by the start, so a continue goes on to the next call, not the same stop again.
    let next = s.data(&["continue", "--wait", "--timeout", "30"]);
    assert_eq!(next["stop"]["reason"], "breakpoint", "{next}");
    assert!(next["stop"]["note"].is_null(), "{next}");
    assert_eq!(s.value_of("amount"), "1");
    s.run(&["stop"]);

    let s = Session::new();
    assert_first_stop(
        &s.start_waiting(&program, &["-b", "apply", "--wait", "60"]),
        "apply",
        body,
    );
    s.run(&["stop"]);
}

#[test]
fn debugpy_start_with_a_breakpoint_answers_with_the_stop() {
    require_debugpy();
    let program = fixture_path("python/app.py");
    let s = Session::new();
    let data = s.start_waiting(&program, &["--break", "square", "--wait", "60"]);
    assert_eq!(data["stop"]["frame"]["function"], "square", "{data}");
    assert_eq!(data["state"], "stopped", "{data}");
    s.run(&["stop"]);
    let s = Session::new();
    let text = start_text(&s, &program, &["--break", "square", "--wait", "60"]);
    assert_text_stop(&text, "Stopped at breakpoint 1 in square (app.py:");
    s.run(&["stop"]);
}

#[test]
fn delve_start_with_a_breakpoint_answers_with_the_stop() {
    require_delve();
    let program = build_go("go/ledger/main.go");
    let s = Session::new();
    let body = line_of("go/ledger/main.go", "func add(");
    assert_first_stop(
        &s.start_waiting(&program, &["--break", "main.add", "--wait", "60"]),
        "main.add",
        body,
    );
    s.run(&["stop"]);
}

#[test]
fn node_start_with_a_breakpoint_answers_with_the_stop() {
    require_node();
    let program = fixture_path("javascript/app.js");
    let location = format!(
        "{}:{}",
        program.display(),
        line_of("javascript/app.js", "@accumulate_body")
    );
    let s = Session::new();
    let text = start_text(&s, &program, &["--break", &location, "--wait", "30"]);
    assert_text_stop(&text, "Stopped at breakpoint 1 in accumulate (app.js:");
    s.run(&["stop"]);
}

#[test]
fn a_program_still_running_after_the_wait_is_said_to_be_and_no_wait_answers_at_once() {
    require_lldb_dap();
    let program = build("c/spin.c");
    let s = Session::new();
    let text = start_text(&s, &program, &["--wait", "0.5"]);
    assert!(
        text.contains("No stop within 0.5 s: the program was still running then."),
        "{text}"
    );
    let data = s.data(&["status"]);
    assert_eq!(data["state"], "running", "{data}");
    s.run(&["stop"]);

    let s = Session::new();
    let began = Instant::now();
    let data = s.start_waiting(&program, &["--no-wait", "--break", "main"]);
    assert!(data["stop"].is_null(), "{data}");
    assert!(data.get("waited_secs").is_none(), "{data}");
    // The stop at main was not shown: the first continue reports it rather than running on.
    let stop = s.data(&["continue", "--wait", "--timeout", "30"]);
    assert_eq!(stop["stop"]["frame"]["function"], "main", "{stop}");
    assert!(began.elapsed() < Duration::from_secs(60));
    s.run(&["stop"]);

    let s = Session::new();
    let text = start_text(&s, &program, &["--no-wait"]);
    assert!(
        text.contains("Not waited for a stop: 'debugger await' reports the program's next stop"),
        "{text}"
    );
    s.run(&["stop"]);
}

#[test]
fn a_program_that_ends_within_the_wait_answers_with_its_end() {
    require_lldb_dap();
    let s = Session::new();
    let data = s.start_waiting(&build("c/ledger.c"), &["--wait", "60"]);
    assert_eq!(data["stop"]["reason"], "exited", "{data}");
    assert_eq!(data["stop"]["exit_code"], 3, "{data}");
}

#[test]
fn restart_with_a_breakpoint_answers_with_the_stop() {
    require_lldb_dap();
    let program = build("c/ledger.c");
    let body = line_of("c/ledger.c", "@apply_body");
    let s = Session::new();
    s.start_waiting(&program, &["--break", "apply"]);
    s.data(&["continue", "--wait", "--timeout", "30"]);
    let text = s.run(&["restart", "--wait", "60"]).ok().to_string();
    assert!(text.starts_with("Restarted "), "{text}");
    assert_text_stop(
        &text,
        &format!("Stopped at breakpoint 1 in apply (ledger.c:{body})"),
    );
    assert_eq!(s.value_of("amount"), "0");
    let data = s.data(&["restart", "--wait", "60"]);
    assert_first_stop(&data, "apply", body);
    s.run(&["stop"]);
}
