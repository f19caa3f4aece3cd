//! Running Java under the built-in `java` adapter, beyond the steps (`java.rs`): what `finish`
//! says a method returned, `catch` on caught and uncaught exceptions and on a class by name,
//! and `watch` on fields. The till fixture runs as a single source file copied to a folder of
//! its own, from the session's folder; the finish on JDK 17, the watchpoints on Temurin 25
//! through `JAVA_HOME`.
//!
//! Every test fails (never skips) when no JDK is found: `.ci/run` installs them.

mod common;

use std::path::{Path, PathBuf};

use common::java::{TEMURIN_25, step_with};
use common::{Session, fixture_path, line_of, require_jdk};
use serde_json::Value;

const TILL: &str = "java/Till.java";

/// The till copied to a folder of its own: the folder (kept alive) and the program.
fn till() -> (tempfile::TempDir, PathBuf) {
    require_jdk();
    let dir = tempfile::tempdir().expect("tempdir");
    let program = dir.path().join("Till.java");
    std::fs::copy(fixture_path(TILL), &program).expect("copy the fixture");
    (dir, program)
}

/// `Till.java:LINE` of `marker`.
fn at(marker: &str) -> String {
    format!("Till.java:{}", line_of(TILL, marker))
}

/// Starts the till with `extra` start arguments (under the `java` of `java_home` when given),
/// and returns its first stop.
#[track_caller]
fn start(s: &Session, program: &Path, extra: &[&str], java_home: Option<&str>) -> Value {
    let mut command = s.command();
    if let Some(home) = java_home {
        command.env("JAVA_HOME", home);
    }
    let program = program.to_str().expect("utf-8 path");
    // The source launcher compiles the file first: slow on a loaded machine.
    let mut args = vec!["--json", "start", program, "--wait", "120"];
    args.extend_from_slice(extra);
    let started = common::Run::from(command.args(&args).output().expect("run debugger")).json();
    assert_eq!(started["ok"], true, "{started}");
    assert_eq!(started["data"]["adapter"], "java", "{started}");
    assert_eq!(started["data"]["state"], "stopped", "{started}");
    started["data"]["stop"].clone()
}

/// `finish` back in `main`, with what each method returned shown as `print` shows a value: a
/// string quoted, a list by its elements, an int; nothing for a `void` method; why, for one an
/// exception left.
#[test]
fn finish_reports_what_the_method_returned() {
    let (_dir, program) = till();
    let s = Session::new();
    let mut args = Vec::new();
    for method in [
        "Till.label",
        "Till.items",
        "Till.sum",
        "Till.reset",
        "Till.check",
    ] {
        args.extend(["--break", method]);
    }
    let stop = start(&s, &program, &args, None);
    assert_eq!(stop["frame"]["function"], "Till.label", "{stop}");

    let text = s.run(&["finish", "--wait"]).ok().to_string();
    assert!(text.contains("\nReturned: \"till of 2\"\n"), "{text}");
    let locals = s.data(&["locals"])["variables"].clone();
    let returned = common::variable(&locals, "(return) Till.label");
    assert_eq!(returned["value"], "\"till of 2\"", "{locals}");

    let mut finished = Vec::new();
    for _ in 0..4 {
        let stop = step_with(&s, "continue");
        let method = stop["frame"]["function"].clone();
        let stop = step_with(&s, "finish");
        assert_eq!(stop["frame"]["function"], "Till.main", "{stop}");
        finished.push((
            method,
            stop["return_value"].clone(),
            stop["return_type"].clone(),
            stop["return_value_unknown"].clone(),
        ));
    }
    let known = |method: &str, value: &str, type_name: &str| {
        (
            Value::from(method),
            Value::from(value),
            Value::from(type_name),
            Value::Null,
        )
    };
    assert_eq!(
        finished,
        [
            known("Till.items", r#"["apple", "pear"]"#, "java.util.ArrayList"),
            known("Till.sum", "240", "int"),
            (
                Value::from("Till.reset"),
                Value::Null,
                Value::Null,
                Value::Null
            ),
            (
                Value::from("Till.check"),
                Value::Null,
                Value::Null,
                Value::from("the method did not return: an exception left it")
            ),
        ]
    );
    s.run(&["stop"]);
}

/// The id of a new watchpoint on `expression` (`--access ACCESS`).
#[track_caller]
fn watch(s: &Session, expression: &str, access: &str) -> u64 {
    let set = s.data(&["watch", expression, "--access", access]);
    set["id"].as_u64().expect("a watchpoint id")
}

/// The watchpoint stop's one change: (id, expression, old value, new value).
fn change(stop: &Value) -> (u64, String, Value, Value) {
    let change = &stop["watch"][0];
    (
        change["breakpoint_id"].as_u64().unwrap_or(0),
        change["expression"].as_str().unwrap_or("").to_string(),
        change["old_value"].clone(),
        change["new_value"].clone(),
    )
}

/// `watch` on an object's field (from `main`, so the methods writing it run elsewhere) and a
/// static one, stopping past each write with the value before and after; `--access read`
/// stops where the field is read; a local is refused, as the JVM watches fields only.
#[test]
fn watch_stops_where_a_field_is_written_or_read_with_its_old_and_new_value() {
    let (_dir, program) = till();
    let s = Session::new();
    start(
        &s,
        &program,
        &["--break", &at("@first_add")],
        Some(TEMURIN_25),
    );
    let refused = s.json(&["watch", "till"]);
    assert_eq!(refused["ok"], false, "{refused}");
    assert!(refused.to_string().contains("local variable"), "{refused}");

    let read = watch(&s, "till.items", "read");
    let total = watch(&s, "till.total", "write");
    let stop = step_with(&s, "continue");
    assert_eq!(stop["reason"], "watchpoint", "{stop}");
    assert_eq!(stop["frame"]["function"], "Till.add", "{stop}");
    assert_eq!(stop["breakpoint_ids"], serde_json::json!([read]), "{stop}");
    s.data(&["breakpoint", "remove", &read.to_string()]);

    let mut writes = Vec::new();
    for _ in 0..3 {
        let stop = step_with(&s, "continue");
        assert_eq!(stop["reason"], "watchpoint", "{stop}");
        writes.push((stop["frame"]["function"].clone(), change(&stop)));
    }
    let write = |function: &str, old: &str, new: &str| {
        (
            Value::from(function),
            (
                total,
                "till.total".to_string(),
                Value::from(old),
                Value::from(new),
            ),
        )
    };
    assert_eq!(
        writes,
        [
            write("Till.add", "0", "150"),
            write("Till.add", "150", "240"),
            write("Till.reset", "240", "0"),
        ]
    );

    s.data(&["breakpoint", "remove", "--all"]);
    s.data(&["break", &at("@write_limit")]);
    step_with(&s, "continue");
    let limit = watch(&s, "Config.limit", "write");
    let stop = step_with(&s, "continue");
    assert_eq!(
        change(&stop),
        (
            limit,
            "Config.limit".to_string(),
            Value::from("5"),
            Value::from("240")
        ),
        "{stop}"
    );
    s.run(&["stop"]);
}

/// An exception stop: (function, line, exception type, message).
fn thrown(stop: &Value) -> (Value, Value, Value, Value) {
    assert_eq!(stop["reason"], "exception", "{stop}");
    (
        stop["frame"]["function"].clone(),
        stop["frame"]["line"].clone(),
        stop["exception"]["type"].clone(),
        stop["exception"]["message"].clone(),
    )
}

fn at_throw(
    function: &str,
    marker: &str,
    type_name: &str,
    message: &str,
) -> (Value, Value, Value, Value) {
    (
        Value::from(function),
        Value::from(line_of(TILL, marker)),
        Value::from(type_name),
        Value::from(message),
    )
}

/// `catch` on the filters: uncaught (the default) stops only at the exception nobody catches;
/// caught stops at each one the program throws and catches, the runtime's own left alone.
#[test]
fn catch_stops_on_uncaught_and_on_caught_exceptions() {
    let (_dir, program) = till();
    let s = Session::new();
    start(&s, &program, &["--break", &at("@first_add")], None);
    let closed = at_throw(
        "Till.main",
        "@throw_closed",
        "Till$ClosedException",
        "closed at 240",
    );
    assert_eq!(thrown(&step_with(&s, "continue")), closed);
    s.run(&["stop"]);

    let s = Session::new();
    start(&s, &program, &["--break", &at("@first_add")], None);
    let filters = s.data(&["catch", "caught"]);
    assert_eq!(filters["filters"][0]["enabled"], true, "{filters}");
    let stops: Vec<_> = (0..3).map(|_| thrown(&step_with(&s, "continue"))).collect();
    assert_eq!(
        stops,
        [
            at_throw(
                "Till.check",
                "@throw_argument",
                "java.lang.IllegalArgumentException",
                "negative: -1"
            ),
            at_throw(
                "Till.main",
                "@throw_state",
                "java.lang.IllegalStateException",
                "not yet"
            ),
            closed,
        ]
    );
    s.run(&["stop"]);
}

/// `catch CLASS` by a bare or a whole name stops where that class or a subclass is thrown,
/// caught or not, and not for another class; a class not loaded when it is chosen is caught
/// once it loads.
#[test]
fn catch_by_class_stops_for_that_class_and_its_subclasses_only() {
    let (_dir, program) = till();
    let closed = at_throw(
        "Till.main",
        "@throw_closed",
        "Till$ClosedException",
        "closed at 240",
    );
    let s = Session::new();
    start(&s, &program, &["--break", &at("@first_add")], None);
    let chosen = s.data(&["catch", "IllegalStateException"]);
    assert_eq!(
        chosen["classes"],
        serde_json::json!(["IllegalStateException"]),
        "{chosen}"
    );
    assert_eq!(
        thrown(&step_with(&s, "continue")),
        at_throw(
            "Till.main",
            "@throw_state",
            "java.lang.IllegalStateException",
            "not yet"
        )
    );
    // A subclass, thrown uncaught.
    assert_eq!(thrown(&step_with(&s, "continue")), closed);
    s.run(&["stop"]);

    let s = Session::new();
    start(&s, &program, &["--break", &at("@first_add")], None);
    s.data(&["catch", "java.lang.IllegalArgumentException"]);
    assert_eq!(
        thrown(&step_with(&s, "continue")),
        at_throw(
            "Till.check",
            "@throw_argument",
            "java.lang.IllegalArgumentException",
            "negative: -1"
        )
    );
    // No other class stops: the program runs to its end.
    let end = step_with(&s, "continue");
    assert_eq!(end["reason"], "exited", "{end}");

    let s = Session::new();
    start(&s, &program, &["--break", &at("@first_add")], None);
    s.data(&["catch", "ClosedException"]);
    assert_eq!(thrown(&step_with(&s, "continue")), closed);
    s.run(&["stop"]);

    // A name that is neither a filter nor a class's is a usage error.
    let s = Session::new();
    start(&s, &program, &["--break", &at("@first_add")], None);
    let wrong = s.json(&["catch", "no such"]);
    assert_eq!(wrong["error"]["code"], "usage", "{wrong}");
    s.run(&["stop"]);
}
