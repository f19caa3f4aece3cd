//! What the Python test files share: the fixtures they run, and the waits and checks on a stop.

use std::time::Duration;

use serde_json::Value;

use super::{Session, line_of};

pub const APP: &str = "python/app.py";
pub const RAISES: &str = "python/raises.py";
pub const THREADS: &str = "python/threads.py";
pub const GENERATORS: &str = "python/generators.py";

/// How long a `--wait` may take: generous, debugpy starts in about a second.
pub const WAIT: &str = "60";

/// The stdout the app prints, in order.
pub const APP_STDOUT: &str = "square: 9\n\
step 0: balance=100 total=0\n\
step 1: balance=101 total=1\n\
step 2: balance=103 total=3\n\
step 3: balance=106 total=6\n\
step 4: balance=110 total=10\n\
summary: {\"total\": 10}\n";

/// `continue --wait` and the stop it reports.
#[track_caller]
pub fn continue_to_stop(s: &Session) -> Value {
    s.data(&["continue", "--wait", "--timeout", WAIT])["stop"].clone()
}

/// Runs an execution command (`next`, `step`, `finish`) with `--wait` and returns the stop.
#[track_caller]
pub fn step_with(s: &Session, command: &str) -> Value {
    s.data(&[command, "--wait", "--timeout", WAIT])["stop"].clone()
}

/// Asserts the stop is in `function` at the line of `marker` in `fixture`.
#[track_caller]
pub fn assert_at(stop: &Value, fixture: &str, function: &str, marker: &str) {
    assert_eq!(stop["frame"]["function"], function, "{stop}");
    assert_eq!(stop["frame"]["line"], line_of(fixture, marker), "{stop}");
    let file = stop["frame"]["file"].as_str().unwrap_or("");
    assert!(file.ends_with(fixture), "expected {fixture}: {stop}");
}

/// Polls `output` until its text contains `needle` (output events may trail a stop a little), and
/// returns the text.
#[track_caller]
pub fn output_containing(s: &Session, needle: &str) -> String {
    s.output_containing(&[needle], Duration::from_secs(30))
}
