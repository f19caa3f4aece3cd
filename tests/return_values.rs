//! What `finish --wait` says the function returned (`Returned: 9`, JSON `return_value` and
//! `return_type`), per adapter, each its own way: lldb's `thread info`, debugpy's `(return)`
//! local, pdb's and the node adapter's `Return value` scope (caught as the function returns),
//! Delve's registers (Go returns results in them; its DAP shows none). Where a value cannot be
//! known, the report says why. Every session runs from a folder that is not the program's.

mod common;

use std::path::Path;

use common::{
    Session, at, build, build_go, fixture_path, line_of, require_debugpy, require_delve,
    require_lldb_dap, require_node, require_python,
};
use serde_json::Value;

/// Starts `program` with `extra` arguments, answering with its first stop (`--wait`).
#[track_caller]
fn start_stopped(s: &Session, program: &Path, extra: &[&str]) -> Value {
    let mut args = vec!["--wait", "60"];
    args.extend_from_slice(extra);
    let data = s.start_waiting(program, &args);
    assert_eq!(data["state"], "stopped", "{data}");
    data
}

/// `finish --wait`: the JSON stop.
#[track_caller]
fn finish(s: &Session) -> Value {
    s.data(&["finish", "--wait", "--timeout", "30"])["stop"].clone()
}

/// `finish --wait` from a breakpoint on `function`: the JSON stop.
fn finish_from(s: &Session, program: &Path, function: &str, extra: &[&str]) -> Value {
    let mut args = vec!["--break", function];
    args.extend_from_slice(extra);
    let started = start_stopped(s, program, &args);
    assert_eq!(started["stop"]["frame"]["function"], function, "{started}");
    finish(s)
}

#[test]
fn lldb_reports_the_value_returned() {
    require_lldb_dap();
    let program = build("c/ledger.c");
    let s = Session::new();
    let stop = finish_from(&s, &program, "square", &[]);
    assert_eq!(stop["return_value"], "9", "{stop}");
    assert_eq!(stop["return_type"], "int", "{stop}");
    s.run(&["restart", "--wait", "60"]);
    let text = s.run(&["finish", "--wait"]).ok().to_string();
    assert!(text.contains("\nReturned: 9\n"), "{text}");
    s.run(&["stop"]);
}

#[test]
fn debugpy_reports_the_value_returned() {
    require_debugpy();
    let s = Session::new();
    let stop = finish_from(&s, &fixture_path("python/app.py"), "square", &[]);
    assert_eq!(stop["return_value"], "9", "{stop}");
    s.run(&["stop"]);
}

#[test]
fn pdb_reports_the_value_returned_and_says_when_an_exception_left_the_function() {
    require_python();
    let s = Session::new();
    let stop = finish_from(
        &s,
        &fixture_path("python/app.py"),
        "square",
        &["--adapter", "pdb"],
    );
    assert_eq!(stop["frame"]["function"], "main", "{stop}");
    assert_eq!(stop["return_value"], "9", "{stop}");
    assert_eq!(stop["return_type"], "int", "{stop}");
    // The caller's frame shows it among its locals, as debugpy does.
    let locals = s.data(&["locals"]);
    assert!(
        locals["variables"]
            .as_array()
            .is_some_and(|all| all.iter().any(|v| v["name"] == "(return) square")),
        "{locals}"
    );
    s.run(&["stop"]);

    // `ratio(10, 0)` divides by zero: no value came back.
    let s = Session::new();
    start_stopped(
        &s,
        &fixture_path("python/raises.py"),
        &["--adapter", "pdb", "--break", "ratio"],
    );
    let text = s.run(&["finish", "--wait"]).ok().to_string();
    assert!(
        text.contains("Returned: (unknown: the function did not return: an exception left it)"),
        "{text}"
    );
    s.run(&["stop"]);
}

#[test]
fn node_reports_the_value_a_method_and_an_arrow_function_returned() {
    require_node();
    let program = fixture_path("javascript/cart.js");
    let s = Session::new();
    let started = start_stopped(&s, &program, &["--break", "Cart.add"]);
    assert_eq!(started["stop"]["frame"]["function"], "add", "{started}");
    let stop = finish(&s);
    assert_eq!(stop["frame"]["function"], "(anonymous)", "{stop}");
    assert_eq!(stop["return_value"], "720", "{stop}");
    assert_eq!(stop["return_type"], "number", "{stop}");
    // From an arrow function inside an arrow function: the first element `map` made.
    let nested = line_of("javascript/cart.js", "@nested_arrow");
    s.data(&["break", &at("javascript/cart.js", "@nested_arrow")]);
    let hit = s.data(&["continue", "--wait", "--timeout", "30"]);
    assert_eq!(hit["stop"]["frame"]["line"], nested, "{hit}");
    // `map` calls it again before it returns to `tally`: that call is not the one finished.
    s.data(&["break", "remove", "2"]);
    let text = s.run(&["finish", "--wait"]).ok().to_string();
    assert!(text.contains("Stepped to tally "), "{text}");
    assert!(text.contains("\nReturned: 10\n"), "{text}");
    s.run(&["stop"]);
}

#[test]
fn node_shows_a_returned_objects_preview_as_print_does() {
    require_node();
    let program = fixture_path("javascript/returns_object.js");
    let s = Session::new();
    start_stopped(
        &s,
        &program,
        &[
            "--break",
            &at("javascript/returns_object.js", "@mark_return"),
        ],
    );
    let printed = s.value_of("obj");
    assert!(printed.contains("overflow: 25"), "{printed}");
    let stop = finish(&s);
    assert_eq!(stop["return_value"], printed.as_str(), "{stop}");
    s.run(&["stop"]);
}

#[test]
fn delve_reads_what_go_returned_from_the_registers() {
    require_delve();
    let program = build_go("go/results/main.go");
    let s = Session::new();
    let functions = [
        "main.square",
        "main.divide",
        "main.label",
        "main.half",
        "main.positive",
        "main.newLedger",
        "main.origin",
    ];
    let mut args = Vec::new();
    for function in functions {
        args.extend(["--break", function]);
    }
    let started = start_stopped(&s, &program, &args);
    assert_eq!(
        started["stop"]["frame"]["function"], "main.square",
        "{started}"
    );
    let mut answers = Vec::new();
    // square, divide twice, and the rest once each.
    for _ in 0..functions.len() + 1 {
        let stop = finish(&s);
        assert_eq!(stop["frame"]["function"], "main.main", "{stop}");
        answers.push((
            stop["return_value"].clone(),
            stop["return_type"].clone(),
            stop["return_value_unknown"].clone(),
        ));
        s.data(&["continue", "--wait", "--timeout", "30"]);
    }
    let known =
        |value: &str, type_name: &str| (Value::from(value), Value::from(type_name), Value::Null);
    assert_eq!(answers[0], known("49", "int"));
    assert_eq!(answers[1], known("3, nil", "(int, error)"));
    assert_eq!(answers[2], known("0, <non-nil error>", "(int, error)"));
    assert_eq!(answers[3], known("\"abab\"", "string"));
    assert_eq!(answers[4], known("1.75", "float64"));
    assert_eq!(answers[5], known("false", "bool"));
    assert_eq!(
        answers[6],
        known("*main.Ledger {Owner: \"ada\", Total: 0}", "*main.Ledger")
    );
    // A struct's registers depend on its fields, which Delve does not list by type.
    assert_eq!(
        answers[7].2, "a result of type main.Point is not read from registers",
        "{answers:?}"
    );
    s.run(&["stop"]);
}

#[test]
fn delve_says_why_when_the_results_are_not_known() {
    require_delve();
    // `main.main` returns nothing: Go lists no unnamed result for it.
    let s = Session::new();
    let program = build_go("go/results/main.go");
    start_stopped(&s, &program, &["--break", "main.square"]);
    let text = s
        .run(&["finish", "--wait", "--timeout", "30"])
        .ok()
        .to_string();
    assert!(text.contains("\nReturned: 49\n"), "{text}");
    let stop = finish(&s);
    assert!(stop["return_value"].is_null(), "{stop}");
    assert_eq!(
        stop["return_value_unknown"],
        "the function returns nothing, or names its results, which Delve does not tell from its \
         other locals",
        "{stop}"
    );
    s.run(&["stop"]);
}

#[test]
fn lldb_reports_the_value_returned_on_a_spawned_thread_too() {
    require_lldb_dap();
    let program = build("rust/halves.rs");
    let s = Session::new();
    let body = at("rust/halves.rs", "@half_body");
    start_stopped(&s, &program, &["--break", &body]);
    let main = finish(&s);
    assert_eq!(main["return_value"], "1.5", "{main}");
    // The same function on a spawned thread, as every `cargo test` test runs: the value is
    // read from the thread that finished, not the one lldb had selected before.
    let stop = s.data(&["continue", "--wait", "--timeout", "30"]);
    assert_ne!(stop["stop"]["thread_id"], main["thread_id"], "{stop}");
    let spawned = finish(&s);
    assert_eq!(spawned["return_value"], "2.5", "{spawned}");
    assert_eq!(spawned["return_type"], "double", "{spawned}");
    s.run(&["stop"]);
}
