//! What the probe test files share: a private copy of a fixture, and the check that a probe
//! left nothing behind.

use std::path::PathBuf;
use std::time::Duration;

use super::{Session, build, eventually, fixture_path, processes_under};

/// A copy of a fixture (a built C program, or a Python script) in the test's own directory, so
/// the processes left behind can be told from other tests' by their command line.
pub fn private_copy(s: &Session, fixture: &str) -> PathBuf {
    let source = if fixture.ends_with(".c") {
        build(fixture)
    } else {
        fixture_path(fixture)
    };
    let name = source.file_name().expect("a file name");
    let copy = s.cwd.join(name);
    std::fs::copy(&source, &copy).expect("copy the fixture");
    copy
}

/// After a probe: no session socket, no session answering, no program of this test running.
#[track_caller]
pub fn nothing_left(s: &Session) {
    let sockets: Vec<_> = std::fs::read_dir(s.runtime_dir())
        .expect("runtime dir")
        .flatten()
        .filter(|e| e.file_name().to_string_lossy().ends_with(".sock"))
        .map(|e| e.file_name())
        .collect();
    assert!(sockets.is_empty(), "a daemon socket was left: {sockets:?}");
    let sessions = s.run(&["sessions"]);
    assert!(
        sessions.ok().contains("No sessions are running"),
        "{sessions:?}"
    );
    assert_eq!(s.run(&["status"]).code, 4, "a session answers");
    no_process_left(s);
}

/// No process of this test (one running from its folder) is left, within a few seconds.
#[track_caller]
pub fn no_process_left(s: &Session) {
    let mut left = Vec::new();
    assert!(
        eventually(Duration::from_secs(5), || {
            left = processes_under(s.dir.path());
            left.is_empty()
        }),
        "processes left behind: {left:?}"
    );
}
