//! Sessions on the built-in node adapter for the JavaScript tests (`node.rs`, `node_attach.rs`,
//! `node_locations.rs`): the fixtures, and the checks of a stop, the stack, the output and the
//! exit they share.

use std::path::Path;
use std::time::Duration;

use serde_json::{Value, json};

use super::{Run, Session, fixture_path, line_of};

pub const APP: &str = "javascript/app.js";
pub const FORMAT: &str = "javascript/lib/format.js";
pub const TIMER: &str = "javascript/timer.mjs";
pub const RAISES: &str = "javascript/raises.js";
pub const SERVER: &str = "javascript/server.js";
pub const CHATTY: &str = "javascript/chatty.js";
pub const LOADER: &str = "javascript/loader/main.js";
pub const GREET_EN: &str = "javascript/plugins/en/greet.js";
pub const GREET_FR: &str = "javascript/plugins/fr/greet.js";
pub const BUNDLE_APP: &str = "javascript/bundle/main.js";
pub const BUNDLE: &str = "javascript/bundle/node_modules/tiny-lexer/lexer.min.js";

/// How long a `--wait` may take: generous, the machine running the suite may be busy.
pub const WAIT: &str = "60";

/// The stdout app.js prints, in order.
pub const APP_STDOUT: &str = "step 0: balance=100 total=0\n\
step 1: balance=101 total=1\n\
step 2: balance=103 total=3\n\
step 3: balance=106 total=6\n\
step 4: balance=110 total=10\n\
summary: total=10\n";

/// What the V8 inspector prints on the program's stderr: never part of `output`.
pub const INSPECTOR_LINES: [&str; 4] = [
    "Debugger listening on",
    "Debugger attached.",
    "Waiting for the debugger to disconnect...",
    "For help, see: https://nodejs.org",
];

/// The message of the TypeError raises.js throws.
pub const TYPE_ERROR: &str = "Cannot read properties of undefined (reading 'toUpperCase')";

/// The `node` the adapter would run.
pub fn node() -> std::path::PathBuf {
    debugger::adapters::node::find(&Default::default()).expect("node (see require_node)")
}

/// `continue --wait` and the stop it reports.
#[track_caller]
pub fn continue_to_stop(s: &Session) -> Value {
    step_with(s, "continue")
}

/// Runs an execution command (`continue`, `next`, `step`, `finish`) with `--wait` and returns the
/// stop.
#[track_caller]
pub fn step_with(s: &Session, command: &str) -> Value {
    let value = s.json(&[command, "--wait", "--timeout", WAIT]);
    assert_eq!(
        value["ok"],
        true,
        "{command} failed: {value}\nlog:\n{}",
        s.log()
    );
    value["data"]["stop"].clone()
}

/// Asserts the stop is in `function` at the line of `marker` in `fixture`.
#[track_caller]
pub fn assert_at(stop: &Value, fixture: &str, function: &str, marker: &str) {
    assert_eq!(stop["frame"]["function"], function, "{stop}");
    assert_eq!(stop["frame"]["line"], line_of(fixture, marker), "{stop}");
    let file = stop["frame"]["file"].as_str().unwrap_or("");
    assert_eq!(Path::new(file), fixture_path(fixture), "{stop}");
}

/// Asserts a breakpoint stop at `marker` by the breakpoints `ids`.
#[track_caller]
pub fn assert_breakpoint(stop: &Value, ids: &[u64], fixture: &str, function: &str, marker: &str) {
    assert_eq!(stop["reason"], "breakpoint", "{stop}");
    assert_eq!(stop["breakpoint_ids"], json!(ids), "{stop}");
    assert_at(stop, fixture, function, marker);
}

/// `locals` of the selected frame: its variables.
#[track_caller]
pub fn locals(s: &Session) -> Value {
    s.data(&["locals"])["variables"].clone()
}

/// The (function, line) of the program's frames of `backtrace`, asserting that every other
/// frame is Node's own and marked as such (`machinery`), for the text to fold.
#[track_caller]
pub fn backtrace(s: &Session) -> Vec<(String, u64)> {
    let bt = s.data(&["backtrace"]);
    let frames = bt["frames"].as_array().expect("frames");
    let mut programs = Vec::new();
    for frame in frames {
        let file = frame["file"].as_str().unwrap_or("");
        if frame["machinery"] == "node_internals" {
            assert!(file.starts_with("node:"), "marked but no Node frame: {bt}");
            continue;
        }
        assert!(
            file.starts_with('/') && !file.contains("node:"),
            "a frame outside the program, unmarked: {bt}"
        );
        programs.push((
            frame["function"].as_str().unwrap_or("").to_string(),
            frame["line"].as_u64().unwrap_or(0),
        ));
    }
    programs
}

/// (function, line of `marker` in `fixture`), for comparing with [`backtrace`].
pub fn frame(function: &str, fixture: &str, marker: &str) -> (String, u64) {
    (function.to_string(), u64::from(line_of(fixture, marker)))
}

/// The breakpoint `id` in `breakpoint list`.
#[track_caller]
pub fn listed(s: &Session, id: u64) -> Value {
    let list = s.data(&["breakpoint", "list"]);
    list["breakpoints"]
        .as_array()
        .expect("breakpoints")
        .iter()
        .find(|b| b["id"] == id)
        .unwrap_or_else(|| panic!("no breakpoint {id}: {list}"))
        .clone()
}

/// Polls `output` until its text contains `needle` (output may trail a stop a little), and
/// returns the text, checked to hold none of the inspector's own lines.
#[track_caller]
pub fn output_containing(s: &Session, needle: &str) -> String {
    let text = s.output_containing(&[needle], Duration::from_secs(30));
    for line in INSPECTOR_LINES {
        assert!(
            !text.contains(line),
            "inspector chatter in output: {text:?}"
        );
    }
    text
}

/// Runs to the end with no breakpoints left and asserts the exit code, in the stop and in
/// `status`.
#[track_caller]
pub fn run_to_exit(s: &Session, code: i64) {
    s.data(&["breakpoint", "remove", "--all"]);
    let end = continue_to_stop(s);
    assert_eq!(end["reason"], "exited", "{end}\nlog:\n{}", s.log());
    assert_eq!(end["exit_code"], code, "{end}");
    let status = s.data(&["status"]);
    assert_eq!(status["state"], "exited", "{status}");
    assert_eq!(status["exit_code"], code, "{status}");
}

/// Runs `debugger ARGS...` in `dir` instead of the session's working directory.
pub fn run_in(s: &Session, dir: &Path, args: &[&str]) -> Run {
    let output = s
        .command()
        .current_dir(dir)
        .args(args)
        .output()
        .expect("run debugger");
    Run {
        code: output.status.code().unwrap_or(-1),
        stdout: String::from_utf8_lossy(&output.stdout).into_owned(),
        stderr: String::from_utf8_lossy(&output.stderr).into_owned(),
    }
}

/// Whether process `pid` is gone (or a zombie).
pub fn gone(pid: u64) -> bool {
    match std::fs::read_to_string(format!("/proc/{pid}/stat")) {
        Err(_) => true,
        Ok(stat) => stat
            .rsplit_once(')')
            .and_then(|(_, rest)| rest.split_whitespace().next())
            .is_some_and(|state| state == "Z" || state == "X"),
    }
}
