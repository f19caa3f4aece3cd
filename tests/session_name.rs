//! A session's name is held only by a live daemon that can be reached: when its lock or socket
//! file goes (the runtime dir deleted, the socket removed), the daemon notices, ends the session
//! as `stop` would (the launched program killed) and exits; a new `start` of the name gets a
//! daemon of its own, and two daemons never serve one name for long.

mod common;

use std::time::Duration;

use common::{Session, alive, build, eventually, require_lldb_dap};
use serde_json::Value;

const LIMIT: Duration = Duration::from_secs(30);

fn pid(value: &Value, field: &str) -> u64 {
    value[field]
        .as_u64()
        .unwrap_or_else(|| panic!("no {field} in {value}"))
}

/// Starts spin.c and returns (daemon, adapter, program) pids.
fn start_spin(s: &Session) -> (u64, u64, u64) {
    let started = s.start(&build("c/spin.c"), &[]);
    (
        pid(&started, "daemon_pid"),
        pid(&started, "adapter_pid"),
        pid(&started, "debuggee_pid"),
    )
}

#[track_caller]
fn assert_session_ended(s: &Session, (daemon, adapter, program): (u64, u64, u64)) {
    assert!(
        eventually(LIMIT, || !alive(daemon)
            && !alive(adapter)
            && !alive(program)),
        "alive: daemon {}, adapter {}, program {}\n{}",
        alive(daemon),
        alive(adapter),
        alive(program),
        s.log()
    );
}

#[test]
fn a_deleted_runtime_dir_ends_the_session_and_frees_the_name() {
    require_lldb_dap();
    let s = Session::new();
    let first = start_spin(&s);
    std::fs::remove_dir_all(s.runtime_dir()).expect("remove the runtime dir");
    // The name is free at once for a new daemon (the files are gone)...
    let second = start_spin(&s);
    assert_ne!(first.0, second.0);
    // ...and the first one, unreachable, ends with all it started.
    assert_session_ended(&s, first);
    let status = s.data(&["status"]);
    assert_eq!(pid(&status, "daemon_pid"), second.0, "{status}");
    assert_eq!(status["state"], "running", "{status}");
    assert!(alive(second.2), "the second session's program");
    s.data(&["stop"]);
    assert_session_ended(&s, second);
}

#[test]
fn a_deleted_socket_ends_the_session() {
    require_lldb_dap();
    let s = Session::new();
    let pids = start_spin(&s);
    let socket = s.runtime_dir().join(format!("{}.sock", s.name));
    std::fs::remove_file(&socket).expect("remove the socket");
    assert_session_ended(&s, pids);
    let run = s.run(&["--json", "status"]);
    assert_eq!(run.code, 4, "{run:?}");
    // Its lock is released: the name starts again.
    let again = start_spin(&s);
    assert!(alive(again.0));
}

#[test]
fn a_replaced_lock_file_ends_the_session() {
    require_lldb_dap();
    let s = Session::new();
    let pids = start_spin(&s);
    let lock = s.runtime_dir().join(format!("{}.lock", s.name));
    let socket = s.runtime_dir().join(format!("{}.sock", s.name));
    std::fs::remove_file(&lock).expect("remove the lock");
    std::fs::write(&lock, b"").expect("a new lock file");
    assert_session_ended(&s, pids);
    // It found its socket still its own, and removed it as it went.
    assert!(!socket.exists());
}
