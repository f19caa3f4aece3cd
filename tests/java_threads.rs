//! The JVM's threads by their Java names: `threads` lists `main` and a thread the program named
//! (`worker-1`), and a stop in it says so; on Temurin 25 (through `JAVA_HOME`) a virtual
//! thread is listed by its name too, and a breakpoint stops in it, since the adapter asks the
//! JDWP agent of a JDK 21 or newer for virtual threads (`includevirtualthreads=y`).
//!
//! Every test fails (never skips) when no JDK is found: `.ci/run` installs them.

mod common;

use std::path::PathBuf;

use common::java::{TEMURIN_25, bare, step_with};
use common::{Session, fixture_path, require_jdk};
use serde_json::Value;

const WORKERS: &str = "java/Workers.java";
const VIRTUAL: &str = "java/VirtualWorker.java";

/// The fixture's source file copied into `dir`, to be started from the session's own folder.
fn program(dir: &tempfile::TempDir, fixture: &str) -> PathBuf {
    let from = fixture_path(fixture);
    let to = dir.path().join(from.file_name().expect("file name"));
    std::fs::copy(&from, &to).expect("copy the fixture");
    to
}

/// The names `threads` lists, and the one it marks as selected.
fn thread_names(s: &Session) -> (Vec<String>, Option<String>) {
    let listed = s.data(&["threads"]);
    let threads = listed["threads"].as_array().cloned().unwrap_or_default();
    let names = threads
        .iter()
        .filter_map(|t| t["name"].as_str().map(str::to_string))
        .collect();
    let selected = common::selected_threads(&listed)
        .first()
        .and_then(|t| t["name"].as_str().map(str::to_string));
    (names, selected)
}

#[test]
fn threads_are_listed_by_their_java_names_and_a_stop_names_its_thread() {
    require_jdk();
    let s = Session::new();
    let dir = tempfile::tempdir().expect("tempdir");
    let program = program(&dir, WORKERS);
    // `work` runs in `main` (through a stream) for 1 and 2, then in `worker-1` for 21.
    let location = format!("{} if n == 21", bare(WORKERS, "@work_body"));
    s.start(&program, &["--break", &location]);
    let stop = step_with(&s, "continue");
    assert_eq!(stop["reason"], "breakpoint", "{stop}");
    assert_eq!(stop["thread_name"], "worker-1", "{stop}");
    let (names, selected) = thread_names(&s);
    assert!(names.iter().any(|n| n == "main"), "{names:?}");
    assert!(names.iter().any(|n| n == "worker-1"), "{names:?}");
    assert_eq!(selected.as_deref(), Some("worker-1"), "{names:?}");
    let end = step_with(&s, "continue");
    assert_eq!(end["reason"], "exited", "{end}");
}

#[test]
fn a_virtual_thread_is_listed_and_stopped_in_on_temurin_25() {
    let s = Session::new();
    let dir = tempfile::tempdir().expect("tempdir");
    let program = program(&dir, VIRTUAL);
    let location = bare(VIRTUAL, "@virtual_body");
    let run = s
        .command()
        .env("JAVA_HOME", TEMURIN_25)
        .args([
            "--json",
            "start",
            "--no-wait",
            program.to_str().expect("utf-8 path"),
            "--break",
            &location,
        ])
        .output()
        .expect("run debugger");
    let started: Value = common::Run::from(run).json();
    assert_eq!(started["data"]["adapter"], "java", "{started}");
    let stop = step_with(&s, "continue");
    assert_eq!(stop["reason"], "breakpoint", "{stop}");
    assert_eq!(stop["thread_name"], "virtual-1", "{stop}");
    assert_eq!(s.value_of("n"), "21");
    let (names, selected) = thread_names(&s);
    assert!(names.iter().any(|n| n == "virtual-1"), "{names:?}");
    assert!(names.iter().any(|n| n == "main"), "{names:?}");
    assert_eq!(selected.as_deref(), Some("virtual-1"), "{names:?}");
    let end = step_with(&s, "continue");
    assert_eq!(end["reason"], "exited", "{end}");
}
