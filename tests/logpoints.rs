//! Logpoints (`breakpoint add LOC --log MSG`) on real adapters: lldb-dap and debugpy print them
//! themselves; the lines land in `debugger output` marked `[logpoint N]`, and the program never
//! stops there. (Delve's and the Node adapter's, which the session emulates, are tested in
//! tests/go.rs and tests/node.rs.)

mod common;

use common::{Session, at, build, fixture_path, require_debugpy, require_lldb_dap};
use serde_json::Value;

/// Runs the program to its end and returns its whole output, checking it never stopped.
#[track_caller]
fn run_to_end(s: &Session) -> String {
    let end = s.data(&["continue", "--wait", "--timeout", "60"]);
    assert_eq!(
        end["stop"]["reason"], "exited",
        "stopped at a logpoint: {end}"
    );
    let output = s.data(&["output"]);
    output["text"].as_str().unwrap_or_default().to_string()
}

/// The logpoint lines of `text`, in order.
fn logged(text: &str) -> Vec<&str> {
    text.lines()
        .filter(|l| l.starts_with("[logpoint"))
        .collect()
}

#[test]
fn c_logpoint_logs_each_hit_in_order_with_the_programs_own_lines() {
    require_lldb_dap();
    let s = Session::new();
    s.start(&build("c/ledger.c"), &["--break", "main"]);
    s.data(&["continue", "--wait", "--timeout", "30"]);
    let added = s.data(&[
        "breakpoint",
        "add",
        &at("c/ledger.c", "@apply_update"),
        "--log",
        "amount={amount} counter={g_counter}",
    ]);
    assert_eq!(added["log_message"], "amount={amount} counter={g_counter}");
    assert_eq!(added["verified"], true, "{added}");
    let id = added["id"].as_u64().expect("id");
    let listed = s.run(&["breakpoint", "list"]);
    assert!(
        listed
            .ok()
            .contains("logs \"amount={amount} counter={g_counter}\""),
        "{listed:?}"
    );
    s.data(&["breakpoint", "remove", "1"]);
    let text = run_to_end(&s);
    let expected: Vec<String> = (0..5)
        .map(|i| format!("[logpoint {id}] amount={i} counter={}", i + 1))
        .collect();
    assert_eq!(logged(&text), expected, "{text}");
    // Each hit comes before the line the program prints after that call.
    let first_log = text.find(&expected[0]).expect("first log line");
    let first_step = text.find("step 0:").expect("step 0");
    assert!(first_log < first_step, "{text}");
}

#[test]
fn c_logpoint_with_a_condition_and_a_bad_expression() {
    require_lldb_dap();
    let s = Session::new();
    s.start(&build("c/ledger.c"), &["--break", "main"]);
    s.data(&["continue", "--wait", "--timeout", "30"]);
    let added = s.data(&[
        "break",
        &at("c/ledger.c", "@apply_update"),
        "--condition",
        "amount > 2",
        "--log",
        "x={nosuch} amount={amount}",
    ]);
    let id = added["id"].as_u64().expect("id");
    s.data(&["breakpoint", "remove", "1"]);
    let text = run_to_end(&s);
    let lines = logged(&text);
    assert_eq!(lines.len(), 2, "only amounts 3 and 4 log: {text}");
    // The error is one line, and the rest of the message is still there.
    assert_eq!(
        lines[0],
        format!("[logpoint {id}] x=<error: use of undeclared identifier 'nosuch'> amount=3"),
        "{text}"
    );
}

#[test]
fn a_logpoint_and_a_breakpoint_together_stop_only_at_the_breakpoint() {
    require_lldb_dap();
    let s = Session::new();
    s.start(&build("c/ledger.c"), &["--break", "main"]);
    s.data(&["continue", "--wait", "--timeout", "30"]);
    s.data(&[
        "break",
        &at("c/ledger.c", "@apply_body"),
        "--log",
        "before={acct->balance}",
    ]);
    s.data(&["breakpoint", "remove", "1"]);
    s.data(&["break", &at("c/ledger.c", "@after_loop")]);
    let stop = s.data(&["continue", "--wait", "--timeout", "30"]);
    assert_eq!(stop["stop"]["reason"], "breakpoint", "{stop}");
    assert_eq!(stop["stop"]["frame"]["function"], "main", "{stop}");
    let output = s.data(&["output"]);
    let text = output["text"].as_str().unwrap_or_default();
    assert_eq!(logged(text).len(), 5, "{text}");
}

#[test]
fn an_empty_log_message_is_a_usage_error() {
    let s = Session::new();
    let run = s.run(&["--json", "break", "ledger.c:3", "--log", " "]);
    assert_eq!(run.code, 2, "{run:?}");
    let error: Value = run.failure();
    assert!(
        error["message"].as_str().unwrap_or("").contains("--log"),
        "{error}"
    );
}

#[test]
fn python_logpoint_logs_without_stopping() {
    require_debugpy();
    let s = Session::new();
    let program = fixture_path("python/app.py");
    s.start(&program, &["--stop-on-entry"]);
    let added = s.data(&[
        "break",
        &at("python/app.py", "@deposit_update"),
        "--log",
        "amount={amount} before={before}",
    ]);
    let id = added["id"].as_u64().expect("id");
    let text = run_to_end(&s);
    let balances = [100, 100, 101, 103, 106];
    let expected: Vec<String> = balances
        .iter()
        .enumerate()
        .map(|(i, before)| format!("[logpoint {id}] amount={i} before={before}"))
        .collect();
    assert_eq!(logged(&text), expected, "{text}");
}

#[test]
fn a_logpoint_on_a_function_logs_too() {
    // DAP's function breakpoints carry no log message: the session emulates these.
    require_lldb_dap();
    let s = Session::new();
    s.start(&build("c/ledger.c"), &["--break", "main"]);
    s.data(&["continue", "--wait", "--timeout", "30"]);
    let added = s.data(&["break", "apply", "--log", "amount={amount}"]);
    let id = added["id"].as_u64().expect("id");
    s.data(&["breakpoint", "remove", "1"]);
    let text = run_to_end(&s);
    let expected: Vec<String> = (0..5)
        .map(|i| format!("[logpoint {id}] amount={i}"))
        .collect();
    assert_eq!(logged(&text), expected, "{text}");
}
