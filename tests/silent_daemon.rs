//! A daemon that does not answer (here stopped with SIGSTOP, as a wedged one would be): `sessions`
//! still answers, listing it as not answering beside the sessions that do, and `stop` ends it by
//! its pid; `status` says it does not answer. Before, `sessions`, `status` and `stop` waited for
//! it for good.
//!
//! Every command runs as a child with a generous limit, so a regression fails here instead of
//! hanging the suite; no timing is asserted.

#![cfg(unix)]

mod common;

use std::process::Command;
use std::time::Duration;

use common::{Run, Session, alive, eventually, fixture_path, require_python, run_within};
use serde_json::Value;

/// Far beyond what any of these commands needs: a command still running then is hung.
const HUNG: Duration = Duration::from_secs(60);

/// Runs `debugger ARGS...` as session `name` in `s`'s runtime dir, failed if it is still running
/// after [`HUNG`].
#[track_caller]
fn run_bounded(s: &Session, name: &str, args: &[&str]) -> Run {
    let mut command = s.command();
    command.env("DEBUGGER_SESSION", name).args(args);
    run_within(command, HUNG)
}

fn signal(pid: u64, signal: &str) {
    let status = Command::new("kill")
        .args([&format!("-{signal}"), &pid.to_string()])
        .status()
        .expect("run kill");
    assert!(status.success(), "kill -{signal} {pid} failed");
}

/// Starts the Python fixture under pdb as session `name`, stopped on entry; returns its status.
fn start_stopped(s: &Session, name: &str) -> Value {
    let program = fixture_path("python/app.py");
    let program = program.to_str().expect("utf-8 path");
    let started = run_bounded(
        s,
        name,
        &[
            "--json",
            "start",
            program,
            "--adapter",
            "pdb",
            "--stop-on-entry",
        ],
    );
    assert_eq!(started.code, 0, "{started:?}");
    let status = run_bounded(s, name, &["--json", "status"]).json();
    assert_eq!(status["data"]["state"], "stopped", "{status}");
    status["data"].clone()
}

/// Resumes a stopped daemon when the test ends, however it ends, so `Session`'s clean-up can
/// stop it.
struct Resume(u64);

impl Drop for Resume {
    fn drop(&mut self) {
        if alive(self.0) {
            signal(self.0, "CONT");
        }
    }
}

#[test]
fn sessions_lists_a_stopped_daemon_as_not_answering_beside_one_that_answers() {
    require_python();
    let s = Session::new();
    let silent = format!("{}-silent", s.name);
    let daemon = start_stopped(&s, &silent)["daemon_pid"]
        .as_u64()
        .expect("daemon pid");
    start_stopped(&s, &s.name);
    signal(daemon, "STOP");
    let _resume = Resume(daemon);

    let listed = run_bounded(&s, &s.name, &["--json", "sessions"]).json();
    assert_eq!(listed["ok"], true, "{listed}");
    let answered: Vec<&str> = listed["data"]["sessions"]
        .as_array()
        .expect("sessions")
        .iter()
        .filter_map(|entry| entry["session"].as_str())
        .collect();
    assert_eq!(answered, [s.name.as_str()], "{listed}");
    let quiet = listed["data"]["not_answering"]
        .as_array()
        .expect("not_answering");
    assert_eq!(quiet.len(), 1, "{listed}");
    assert_eq!(quiet[0]["session"], silent.as_str(), "{listed}");
    assert_eq!(quiet[0]["daemon_pid"].as_u64(), Some(daemon), "{listed}");

    let text = run_bounded(&s, &s.name, &["sessions"]);
    assert_eq!(text.code, 0, "{text:?}");
    let line = text
        .stdout
        .lines()
        .find(|line| line.starts_with(&silent))
        .unwrap_or_else(|| panic!("no line for {silent}: {text:?}"));
    assert!(line.contains("not answering"), "{line}");
    assert!(line.contains(&format!("daemon pid {daemon}")), "{line}");
    assert!(
        text.stdout
            .lines()
            .any(|line| line.starts_with(&s.name) && line.contains("stopped")),
        "{text:?}"
    );

    // Resumed, it answers again.
    signal(daemon, "CONT");
    let resumed = run_bounded(&s, &s.name, &["--json", "sessions"]).json();
    assert!(resumed["data"]["not_answering"].is_null(), "{resumed}");
    assert_eq!(
        resumed["data"]["sessions"].as_array().map(Vec::len),
        Some(2),
        "{resumed}"
    );
    let _ = run_bounded(&s, &silent, &["stop"]);
}

#[test]
fn stop_ends_a_daemon_that_does_not_answer_and_what_it_launched() {
    require_python();
    let s = Session::new();
    let status = start_stopped(&s, &s.name);
    let daemon = status["daemon_pid"].as_u64().expect("daemon pid");
    let program = status["debuggee_pid"].as_u64().expect("program pid");
    signal(daemon, "STOP");
    let _resume = Resume(daemon);

    // `status` says so rather than waiting with it.
    let status = run_bounded(&s, &s.name, &["--json", "status"]);
    assert_eq!(status.code, 1, "{status:?}");
    let error = status.failure();
    assert!(
        error["message"]
            .as_str()
            .is_some_and(|m| m.contains("did not answer")),
        "{error}"
    );

    let detach = run_bounded(&s, &s.name, &["--json", "detach"]);
    assert_eq!(detach.code, 1, "{detach:?}");
    assert!(
        detach.failure()["hint"]
            .as_str()
            .is_some_and(|hint| hint.contains("stop")),
        "{detach:?}"
    );
    assert!(alive(daemon), "a detach never kills the daemon");

    let stop = run_bounded(&s, &s.name, &["--json", "stop"]);
    assert_eq!(stop.code, 0, "{stop:?}");
    let message = stop.json()["data"]["message"]
        .as_str()
        .expect("message")
        .to_string();
    assert!(
        message.contains(&format!("(pid {daemon})")) && message.contains("was killed"),
        "{message}"
    );
    assert!(
        eventually(Duration::from_secs(30), || !alive(program)),
        "the program (pid {program}) outlived its killed daemon"
    );
    let after = run_bounded(&s, &s.name, &["--json", "status"]);
    assert_eq!(after.code, 4, "{after:?}");
}
