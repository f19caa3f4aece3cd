//! Delve builds a `.go` program before it runs it, into the daemon's private scratch folder: the
//! build goes with the session however it ends (Delve, killed once it has answered `disconnect`,
//! never removes it itself), and with a daemon killed outright. Nothing is built into the
//! program's own folder.
//!
//! Fails, never skips, when `dlv` or `go` is missing: `.ci/run` installs both.

mod common;

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Duration;

use common::{Session, at, eventually, fixture_path, require_delve, with_go_env};
use serde_json::Value;

const LEDGER: &str = "go/ledger/main.go";

/// Starts the ledger under Delve with the Go environment and waits for its breakpoint.
#[track_caller]
fn start_stopped(s: &Session) -> Value {
    let started = with_go_env(&mut s.command())
        .args(["--json", "start", "--no-wait", "--break"])
        .arg(at(LEDGER, "@deposit_body"))
        .arg(fixture_path(LEDGER))
        .output()
        .expect("run debugger");
    let started: Value = serde_json::from_slice(&started.stdout).expect("one JSON object");
    assert_eq!(started["ok"], true, "{started}\nlog:\n{}", s.log());
    assert_eq!(started["data"]["adapter"], "delve", "{started}");
    let stop = s.data(&["await", "--timeout", "60"]);
    assert_eq!(stop["reason"], "breakpoint", "{stop}");
    s.data(&["status"])
}

/// Every file under `dir` (at any depth) whose name says it is a Go build.
fn builds_under(dir: &Path) -> Vec<PathBuf> {
    let mut found = Vec::new();
    let mut folders = vec![dir.to_path_buf()];
    while let Some(folder) = folders.pop() {
        for entry in std::fs::read_dir(&folder).into_iter().flatten().flatten() {
            let path = entry.path();
            let name = entry.file_name().to_string_lossy().into_owned();
            if entry.file_type().is_ok_and(|kind| kind.is_dir()) {
                folders.push(path);
            } else if name.starts_with("dlv-build") || name.starts_with("__debug_bin") {
                found.push(path);
            }
        }
    }
    found
}

#[test]
fn no_build_of_delves_outlives_its_session() {
    require_delve();
    let s = Session::new();
    let program_dir = fixture_path(LEDGER)
        .parent()
        .expect("the program's folder")
        .to_path_buf();

    start_stopped(&s);
    let built = builds_under(&s.runtime_dir());
    assert_eq!(built.len(), 1, "the build, in the runtime dir: {built:?}");
    s.data(&["stop"]);
    let mut left = built.clone();
    assert!(
        eventually(Duration::from_secs(10), || {
            left = builds_under(&s.runtime_dir());
            left.is_empty()
        }),
        "left after stop: {left:?}"
    );

    // A daemon killed outright: its reaper removes the build.
    let status = start_stopped(&s);
    let daemon = status["daemon_pid"].as_u64().expect("daemon pid");
    assert_eq!(builds_under(&s.runtime_dir()).len(), 1);
    let killed = Command::new("kill")
        .args(["-KILL", &daemon.to_string()])
        .status()
        .expect("run kill");
    assert!(killed.success());
    assert!(
        eventually(Duration::from_secs(10), || {
            left = builds_under(&s.runtime_dir());
            left.is_empty()
        }),
        "left after SIGKILL: {left:?}"
    );
    assert_eq!(builds_under(&program_dir), Vec::<PathBuf>::new());
}
