//! Sessions on Delve for the Go tests: a start that lets the program pick Delve, and the checks
//! of a stop, the locals, the exit and the ledger program's output they share.

use std::collections::HashMap;
use std::path::Path;
use std::time::Duration;

use serde_json::Value;

use super::{Run, Session, with_go_env};

/// The Go ledger program, with its markers.
pub const LEDGER: &str = "go/ledger/main.go";

/// `debugger --json start PROGRAM EXTRA...` (no `--adapter`) with the Go environment, which the
/// daemon, and so Delve and its `go build` in debug mode, inherit.
pub fn run_start(s: &Session, program: &Path, extra: &[&str]) -> Run {
    let output = with_go_env(&mut s.command())
        .args(["--json", "start", "--no-wait"])
        .arg(program)
        .args(extra)
        .output()
        .expect("run debugger");
    Run::from(output)
}

/// Starts `program` (see [`run_start`]), asserts Delve was picked, and returns the start data.
#[track_caller]
pub fn start(s: &Session, program: &Path, extra: &[&str]) -> Value {
    let value = run_start(s, program, extra).json();
    assert_eq!(
        value["ok"],
        true,
        "start failed: {value}\nlog:\n{}",
        s.log()
    );
    let data = value["data"].clone();
    assert_eq!(data["adapter"], "delve", "{data}");
    data
}

/// Asserts a stop is in `function` at `line` for `reason`.
#[track_caller]
pub fn assert_stop(stop: &Value, reason: &str, function: &str, line: u32) {
    assert_eq!(stop["reason"], reason, "{stop}");
    assert_eq!(stop["frame"]["function"], function, "{stop}");
    assert_eq!(stop["frame"]["line"], line, "{stop}");
    assert!(
        stop["frame"]["file"]
            .as_str()
            .is_some_and(|f| f.ends_with("main.go")),
        "{stop}"
    );
}

/// The `variables` of `locals --depth DEPTH`, by name.
#[track_caller]
pub fn locals(s: &Session, depth: &str) -> HashMap<String, Value> {
    s.data(&["locals", "--depth", depth])["variables"]
        .as_array()
        .expect("variables")
        .iter()
        .map(|v| (v["name"].as_str().unwrap_or("").to_string(), v.clone()))
        .collect()
}

/// The names of every child of `variable`, at any depth.
pub fn child_names(variable: &Value, names: &mut Vec<String>) {
    for child in variable["children"].as_array().into_iter().flatten() {
        names.push(child["name"].as_str().unwrap_or("").to_string());
        child_names(child, names);
    }
}

/// The program's captured output, once it holds every one of `lines`. The program writes to
/// Delve's stdout and stderr, read apart from the DAP stream, so what it printed just before a
/// stop or its exit may reach the buffer a moment after the stop's report: wait briefly for it.
#[track_caller]
pub fn output_with(s: &Session, lines: &[&str]) -> String {
    s.output_containing(lines, Duration::from_secs(5))
}

/// Runs to the end with no breakpoints left and asserts the exit code.
#[track_caller]
pub fn run_to_exit(s: &Session, code: i64) {
    s.data(&["breakpoint", "remove", "--all"]);
    let end = s.stop_after("continue");
    assert_eq!(end["reason"], "exited", "{end}\nlog:\n{}", s.log());
    assert_eq!(end["exit_code"], code, "{end}\nlog:\n{}", s.log());
}

/// The last lines of ledger's output: stdout after the loop, and its stderr line.
#[track_caller]
pub fn assert_ledger_output(s: &Session) {
    output_with(
        s,
        &[
            "step 0: total=0 balance=100",
            "step 4: total=10 balance=110",
            "total: 10",
            "ledger: done",
        ],
    );
}
