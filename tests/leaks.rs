//! Nothing a session makes outlives it: the daemon's descriptors, the files of the runtime dir
//! (the program's FIFOs, build products) and its zombie children stay level over many starts,
//! stops and restarts; and what a daemon or a probe killed outright leaves, its reaper clears.
//!
//! Linux's /proc is read for descriptors and zombies. Every test fails, never skips, when its
//! adapter is missing.

mod common;

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::Duration;

use common::{Session, alive, at, build, children_of, eventually, require_lldb_dap};
use serde_json::{Value, json};

/// How long a count may take to come back down: a closed connection, an adapter's exit or a
/// zombie's collection is seen by the daemon a moment after the command that caused it ends.
const SETTLE: Duration = Duration::from_secs(10);

/// What a daemon holds that could leak.
#[derive(Debug, Clone, PartialEq)]
struct Held {
    /// Its open descriptors.
    fds: usize,
    /// Every file and folder under the runtime dir, at any depth.
    files: Vec<PathBuf>,
    /// Its children that have died and not been collected.
    zombies: Vec<u32>,
}

impl Held {
    fn of(s: &Session, daemon: u32) -> Held {
        let fds = std::fs::read_dir(format!("/proc/{daemon}/fd"))
            .map(|entries| entries.count())
            .unwrap_or(0);
        Held {
            fds,
            files: files_under(&s.runtime_dir()),
            zombies: zombie_children(daemon),
        }
    }

    /// Whether nothing grew since `baseline`: as many descriptors and files at most, no zombie.
    fn within(&self, baseline: &Held) -> bool {
        self.fds <= baseline.fds
            && self.files.len() <= baseline.files.len()
            && self.zombies.is_empty()
    }
}

/// Every path under `dir`, relative to it, sorted.
fn files_under(dir: &Path) -> Vec<PathBuf> {
    let mut found = Vec::new();
    let mut folders = vec![dir.to_path_buf()];
    while let Some(folder) = folders.pop() {
        for entry in std::fs::read_dir(&folder).into_iter().flatten().flatten() {
            let path = entry.path();
            if entry.file_type().is_ok_and(|kind| kind.is_dir()) {
                folders.push(path.clone());
            }
            if let Ok(relative) = path.strip_prefix(dir) {
                found.push(relative.to_path_buf());
            }
        }
    }
    found.sort();
    found
}

/// The children of `parent` that are zombies.
fn zombie_children(parent: u32) -> Vec<u32> {
    children_of(parent)
        .into_iter()
        .filter(|child| child.state == "Z")
        .map(|child| child.pid)
        .collect()
}

fn daemon_pid(s: &Session) -> u32 {
    let status = s.data(&["status"]);
    status["daemon_pid"]
        .as_u64()
        .and_then(|pid| u32::try_from(pid).ok())
        .unwrap_or_else(|| panic!("no daemon pid: {status}"))
}

/// Waits until what `daemon` holds is back within `baseline`, and fails naming what grew.
#[track_caller]
fn assert_level(s: &Session, daemon: u32, baseline: &Held, after: &str) {
    let mut now = Held::of(s, daemon);
    let level = eventually(SETTLE, || {
        now = Held::of(s, daemon);
        now.within(baseline)
    });
    assert!(
        level,
        "after {after}, the daemon holds more than at first:\nfirst: {baseline:?}\nnow:   {now:?}\nlog:\n{}",
        s.log()
    );
}

/// The mock adapter, whose program (`sleep`) is left a zombie when the adapter exits, as
/// lldb-dap leaves lldb-server: the daemon, a subreaper, adopts it.
fn mock_session() -> Session {
    Session::with_mock(&json!({ "debuggee": true, "debuggee_unreaped": true }), "")
}

#[track_caller]
fn started(run: &common::Run) -> Value {
    let value = run.json();
    assert_eq!(value["ok"], true, "{value}");
    value["data"].clone()
}

/// 50 restarts on one daemon, each ending a program the adapter launched (the mock's `sleep`)
/// and its adapter: the daemon holds no more after them than after the first.
#[test]
fn fifty_restarts_keep_the_daemon_level() {
    let s = mock_session();
    started(&s.start_mock());
    s.data(&["restart", "--no-wait"]);
    let daemon = daemon_pid(&s);
    let baseline = Held::of(&s, daemon);
    let mut programs = Vec::new();
    for _ in 0..50 {
        let restarted = s.data(&["restart", "--no-wait"]);
        programs.push(restarted["debuggee_pid"].clone());
    }
    assert_level(&s, daemon, &baseline, "50 restarts");
    let last = programs.pop();
    for program in programs.iter().filter_map(Value::as_u64) {
        assert!(
            eventually(SETTLE, || !alive(program)),
            "program {program} outlived its run"
        );
    }
    assert!(last.and_then(|p| p.as_u64()).is_some_and(alive));
}

/// 50 starts and stops, each on a daemon of its own: when the last has ended, the runtime dir
/// holds the session's lock file alone, and no daemon or program of theirs runs.
#[test]
fn fifty_starts_and_stops_leave_nothing_behind() {
    let s = mock_session();
    let mut left = Vec::new();
    for _ in 0..50 {
        started(&s.start_mock());
        let status = s.data(&["status"]);
        left.push(status["daemon_pid"].clone());
        left.push(status["debuggee_pid"].clone());
        s.data(&["stop"]);
    }
    for pid in left.iter().filter_map(Value::as_u64) {
        assert!(
            eventually(SETTLE, || !alive(pid)),
            "process {pid} outlived its session"
        );
    }
    let lock = PathBuf::from(format!("{}.lock", s.name));
    let mut files = Vec::new();
    let clean = eventually(SETTLE, || {
        files = files_under(&s.runtime_dir());
        files == [lock.clone()]
    });
    assert!(clean, "left in the runtime dir: {files:?}");
}

/// Under lldb the daemon reads the program's output through two FIFOs of its own, and lldb-dap
/// runs the program under an lldb-server that comes to the daemon when lldb-dap goes. With a
/// warm adapter keeping the daemon between sessions, starts, stops and restarts leave it with
/// no more descriptors, files or zombies than the first run did.
#[test]
fn lldb_starts_stops_and_restarts_keep_the_daemon_level() {
    require_lldb_dap();
    let mut s = Session::new();
    s.warm_secs = "600".to_string();
    let program = build("c/ledger.c");
    let breakpoint = at("c/ledger.c", "@apply_body");
    let start = || {
        s.start(&program, &["--break", &breakpoint]);
        s.data(&["await", "--timeout", "60"]);
    };
    start();
    s.data(&["stop"]);
    start();
    let daemon = daemon_pid(&s);
    let baseline = Held::of(&s, daemon);
    assert!(
        baseline.files.iter().any(|f| f.ends_with("stdout")),
        "the program's FIFOs: {baseline:?}"
    );
    for _ in 0..10 {
        s.data(&["restart", "--no-wait"]);
        s.data(&["await", "--timeout", "60"]);
    }
    assert_level(&s, daemon, &baseline, "10 restarts");
    for _ in 0..10 {
        s.data(&["stop"]);
        start();
        assert_eq!(daemon_pid(&s), daemon, "the warm adapter keeps the daemon");
    }
    assert_level(&s, daemon, &baseline, "10 stops and starts");
}

/// A daemon killed outright runs none of its own clean-up: its reaper removes its scratch
/// folder (the program's FIFOs), and a daemon started later removes what a killed reaper left.
#[test]
fn what_a_killed_daemon_leaves_is_cleared() {
    require_lldb_dap();
    let s = Session::new();
    let program = build("c/ledger.c");
    s.start(&program, &["--break", &at("c/ledger.c", "@apply_body")]);
    let daemon = daemon_pid(&s);
    let scratch = PathBuf::from(format!("scratch-{daemon}"));
    assert!(files_under(&s.runtime_dir()).contains(&scratch));
    kill(daemon);
    assert!(
        eventually(SETTLE, || !s.runtime_dir().join(&scratch).exists()),
        "left after SIGKILL: {:?}",
        files_under(&s.runtime_dir())
    );

    // A scratch folder whose owner died with its reaper: the next daemon clears it.
    let mut gone = Command::new("true").spawn().expect("run true");
    let dead = gone.id();
    gone.wait().expect("wait for true");
    let orphan = s.runtime_dir().join(format!("scratch-{dead}"));
    std::fs::create_dir_all(orphan.join("io-0")).expect("plant a scratch folder");
    s.start(&program, &[]);
    assert!(!orphan.exists(), "{:?}", files_under(&s.runtime_dir()));
}

/// A probe killed outright leaves no scratch folder: its reaper, which it never disarms, removes
/// it once the probe is gone.
#[test]
fn what_a_killed_probe_leaves_is_cleared() {
    require_lldb_dap();
    let s = Session::new();
    let spin = build("c/spin.c");
    let mut probe = s
        .command()
        .args([
            "probe",
            "--timeout",
            "60",
            "-b",
            &at("c/spin.c", "@spin_end"),
        ])
        .arg(&spin)
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .expect("run probe");
    let scratch = PathBuf::from(format!("scratch-{}", probe.id()));
    assert!(
        eventually(Duration::from_secs(60), || files_under(&s.runtime_dir())
            .iter()
            .any(|f| f.starts_with(&scratch) && f.ends_with("stdout"))),
        "the probe made no FIFOs: {:?}",
        files_under(&s.runtime_dir())
    );
    let _ = probe.kill();
    let _ = probe.wait();
    // The reaper ends the program's whole tree (lldb-dap's too) before it removes the folder,
    // which a loaded machine (the whole suite at once) has taken past SETTLE to do.
    assert!(
        eventually(SETTLE * 3, || !s.runtime_dir().join(&scratch).exists()),
        "left after SIGKILL: {:?}",
        files_under(&s.runtime_dir())
    );
}

fn kill(pid: u32) {
    let status = Command::new("kill")
        .args(["-KILL", &pid.to_string()])
        .status()
        .expect("run kill");
    assert!(status.success(), "kill -KILL {pid} failed");
}
