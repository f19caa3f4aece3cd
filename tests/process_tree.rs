//! Everything the program starts ends with the session: a child forked into its process group,
//! a grandchild double-forked after `setsid`, a shell pipeline's processes. Gone after `stop`,
//! after SIGTERM and SIGKILL to the daemon; all alive after `detach`. And when the adapter's
//! helper that runs the program (lldb-server) dies, the end is told as the adapter's death and
//! the program is killed, never reported as `exited -1`.
//!
//! The tests find the program's processes by a variable of their own in its environment
//! (`--env TREE_MARK=...`), which every process it starts inherits: independent of how the
//! daemon finds them.

mod common;

use std::time::Duration;

use common::{Session, alive, build, eventually, require_lldb_dap};
use serde_json::Value;

const FORKS: &str = "c/forks.c";
const LIMIT: Duration = Duration::from_secs(30);

/// The live processes whose environment holds `TREE_MARK=mark`.
fn marked(mark: &str) -> Vec<u32> {
    let wanted = format!("TREE_MARK={mark}");
    let Ok(entries) = std::fs::read_dir("/proc") else {
        return Vec::new();
    };
    let mut pids: Vec<u32> = entries
        .flatten()
        .filter_map(|entry| entry.file_name().to_str()?.parse().ok())
        .filter(|pid| {
            std::fs::read(format!("/proc/{pid}/environ")).is_ok_and(|env| {
                env.split(|b| *b == 0)
                    .any(|entry| entry == wanted.as_bytes())
            })
        })
        .filter(|pid| alive(*pid))
        .collect();
    pids.sort_unstable();
    pids
}

fn signal(pid: u32, name: &str) {
    let status = std::process::Command::new("kill")
        .args([&format!("-{name}"), &pid.to_string()])
        .status()
        .expect("run kill");
    assert!(status.success(), "kill -{name} {pid}");
}

fn pid_of(value: &Value, field: &str) -> u32 {
    value[field]
        .as_u64()
        .and_then(|pid| u32::try_from(pid).ok())
        .unwrap_or_else(|| panic!("no {field} in {value}"))
}

/// The program's process tree, killed when dropped (a failed test leaves nothing behind).
struct Tree {
    mark: String,
    pids: Vec<u32>,
}

impl Drop for Tree {
    fn drop(&mut self) {
        for pid in marked(&self.mark) {
            let _ = std::process::Command::new("kill")
                .args(["-KILL", &pid.to_string()])
                .status();
        }
    }
}

/// How many processes the program is once it has started what `mode` starts: itself and one
/// child (`fork`), itself and the grandchild (`setsid`: the child in between exits), itself, a
/// shell and the shell's two children (`pipeline`).
fn size_of(mode: &str) -> usize {
    match mode {
        "fork" | "setsid" => 2,
        "pipeline" => 4,
        other => panic!("no mode {other}"),
    }
}

/// Starts forks.c in `mode` (with `extra` start arguments) and waits for its whole tree.
#[track_caller]
fn start_tree(s: &Session, mode: &str, extra: &[&str]) -> Tree {
    let mark = format!("{}-{mode}", s.name);
    let env = format!("TREE_MARK={mark}");
    let mut args = vec!["--env", env.as_str()];
    args.extend_from_slice(extra);
    args.extend_from_slice(&["--", mode]);
    s.start(&build(FORKS), &args);
    let mut tree = Tree {
        mark,
        pids: Vec::new(),
    };
    // "ready" comes once the program's own part is done (the child between it and a setsid
    // grandchild is gone); a pipeline's shell may still be starting its two.
    s.output_containing(&["ready"], LIMIT);
    let grown = eventually(LIMIT, || {
        tree.pids = marked(&tree.mark);
        tree.pids.len() == size_of(mode)
    });
    assert!(
        grown,
        "the {mode} tree never had {} processes: {:?}\n{}",
        size_of(mode),
        tree.pids,
        s.log()
    );
    tree
}

#[track_caller]
fn assert_all_gone(tree: &Tree, after: &str) {
    assert!(
        eventually(LIMIT, || tree.pids.iter().all(|pid| !alive(*pid))),
        "after {after}, alive: {:?} of {:?}",
        tree.pids
            .iter()
            .filter(|pid| alive(**pid))
            .collect::<Vec<_>>(),
        tree.pids
    );
    assert_eq!(marked(&tree.mark), Vec::<u32>::new(), "after {after}");
}

fn stop_ends(mode: &str) {
    require_lldb_dap();
    let s = Session::new();
    let tree = start_tree(&s, mode, &[]);
    let message = s.data(&["stop"])["message"].clone();
    assert!(message.to_string().contains("terminated"), "{message}");
    assert_all_gone(&tree, "stop");
}

#[test]
fn stop_ends_a_child_forked_into_the_programs_group() {
    stop_ends("fork");
}

#[test]
fn stop_ends_a_grandchild_double_forked_after_setsid() {
    stop_ends("setsid");
}

#[test]
fn stop_ends_a_shell_pipeline_the_program_started() {
    stop_ends("pipeline");
}

/// Whether `pid` is a zombie whose parent is `parent`: ended, never collected.
fn zombie_of(pid: u32, parent: u32) -> bool {
    let Ok(stat) = std::fs::read_to_string(format!("/proc/{pid}/stat")) else {
        return false;
    };
    let fields: Vec<&str> = stat
        .rsplit_once(')')
        .map(|(_, rest)| rest.split_whitespace().collect())
        .unwrap_or_default();
    fields.first() == Some(&"Z") && fields.get(1) == Some(&parent.to_string().as_str())
}

#[test]
fn restart_leaves_no_zombie_of_the_programs_orphans_in_the_daemon() {
    // The daemon adopts the program's orphans (a subreaper) and kills them when the run ends;
    // across a restart it lives on, so it must also collect them.
    require_lldb_dap();
    let s = Session::new();
    let tree = start_tree(&s, "setsid", &[]);
    let daemon = pid_of(&s.data(&["status"]), "daemon_pid");
    s.run(&["restart"]).ok();
    // The restarted program carries the same mark: only the first run's processes must go.
    assert!(
        eventually(LIMIT, || tree.pids.iter().all(|pid| !alive(*pid))),
        "after restart, alive: {:?}",
        tree.pids
    );
    let zombies: Vec<u32> = tree
        .pids
        .iter()
        .copied()
        .filter(|pid| zombie_of(*pid, daemon))
        .collect();
    assert_eq!(zombies, Vec::<u32>::new(), "zombies of the daemon {daemon}");
}

#[test]
fn a_probe_ends_the_programs_whole_tree() {
    require_lldb_dap();
    let s = Session::new();
    let mark = format!("{}-probe", s.name);
    let env = format!("TREE_MARK={mark}");
    let program = build(FORKS);
    let report = s.data(&[
        "probe",
        program.to_str().expect("path"),
        "-b",
        &common::at(FORKS, "@started"),
        "--env",
        &env,
        "--",
        "setsid",
    ]);
    assert_eq!(report["hits"].as_array().map(Vec::len), Some(1), "{report}");
    assert!(
        eventually(LIMIT, || marked(&mark).is_empty()),
        "after the probe, alive: {:?}",
        marked(&mark)
    );
}

#[test]
fn sigkill_to_the_daemon_ends_the_whole_tree() {
    require_lldb_dap();
    for mode in ["setsid", "pipeline", "fork"] {
        let s = Session::new();
        let tree = start_tree(&s, mode, &[]);
        let daemon = pid_of(&s.data(&["status"]), "daemon_pid");
        signal(daemon, "KILL");
        assert_all_gone(&tree, &format!("SIGKILL to the daemon ({mode})"));
    }
}

#[test]
fn sigterm_to_the_daemon_ends_the_whole_tree() {
    require_lldb_dap();
    let s = Session::new();
    let tree = start_tree(&s, "setsid", &[]);
    let daemon = pid_of(&s.data(&["status"]), "daemon_pid");
    signal(daemon, "TERM");
    assert!(eventually(LIMIT, || !alive(daemon)), "the daemon lives on");
    assert_all_gone(&tree, "SIGTERM to the daemon");
}

#[test]
fn a_stopped_program_and_its_children_end_with_stop() {
    require_lldb_dap();
    let s = Session::new();
    let at = common::at(FORKS, "@started");
    let tree_args = ["--break", at.as_str()];
    let mark = format!("{}-stopped", s.name);
    let env = format!("TREE_MARK={mark}");
    let mut args = vec!["--env", env.as_str()];
    args.extend_from_slice(&tree_args);
    args.extend_from_slice(&["--", "pipeline"]);
    s.start(&build(FORKS), &args);
    let stop = s.data(&["await", "--timeout", "60"]);
    assert_eq!(stop["reason"], "breakpoint", "{stop}");
    let mut tree = Tree {
        mark,
        pids: Vec::new(),
    };
    assert!(eventually(LIMIT, || {
        tree.pids = marked(&tree.mark);
        tree.pids.len() == size_of("pipeline")
    }));
    s.data(&["stop"]);
    assert_all_gone(&tree, "stop at a breakpoint");
}

#[test]
fn detach_leaves_the_whole_tree_running() {
    require_lldb_dap();
    let s = Session::new();
    let tree = start_tree(&s, "setsid", &[]);
    let daemon = pid_of(&s.data(&["status"]), "daemon_pid");
    s.data(&["detach"]);
    assert!(eventually(LIMIT, || !alive(daemon)), "the daemon lives on");
    assert_eq!(marked(&tree.mark), tree.pids, "after detach");
    // `Tree`'s drop ends them.
}

#[test]
fn gdb_stop_ends_a_grandchild_double_forked_after_setsid() {
    let s = Session::with_gdb();
    let tree = start_tree(&s, "setsid", &["--adapter", "gdb"]);
    s.data(&["stop"]);
    assert_all_gone(&tree, "stop under GDB");
}

/// Kills the helper that runs the program for lldb-dap (lldb-server, the program's parent).
fn kill_the_programs_parent(s: &Session) -> u32 {
    let status = s.data(&["status"]);
    let program = pid_of(&status, "debuggee_pid");
    let stat = std::fs::read_to_string(format!("/proc/{program}/stat")).expect("program stat");
    let parent: u32 = stat
        .rsplit_once(')')
        .and_then(|(_, rest)| rest.split_whitespace().nth(1))
        .and_then(|p| p.parse().ok())
        .expect("parent pid");
    assert_ne!(parent, pid_of(&status, "daemon_pid"), "{status}");
    signal(parent, "KILL");
    program
}

#[test]
fn a_dead_adapter_helper_is_told_as_the_adapters_death_and_the_program_is_killed() {
    require_lldb_dap();
    let s = Session::new();
    let tree = start_tree(&s, "fork", &[]);
    let program = kill_the_programs_parent(&s);

    let run = s.run(&["--json", "await", "--timeout", "60"]);
    let failure = run.failure();
    assert_eq!(failure["code"], "adapter_died", "{run:?}");
    let message = failure["message"].as_str().unwrap_or("");
    assert!(!message.contains("-1"), "{message}");
    assert!(message.contains("helper"), "{message}");
    assert!(
        eventually(LIMIT, || !alive(program)),
        "the program lives on"
    );
    let status = s.data(&["status"]);
    assert_eq!(status["state"], "adapter_died", "{status}");
    assert_eq!(status["exit_code"], Value::Null, "{status}");
    // Its child is ended by `stop`.
    s.data(&["stop"]);
    assert_all_gone(&tree, "stop after the helper died");
}

#[test]
fn a_dead_adapter_helper_under_a_stopped_program_is_told_by_continue() {
    require_lldb_dap();
    let s = Session::new();
    let at = common::at(FORKS, "@started");
    s.start(&build(FORKS), &["--break", &at, "--", "fork"]);
    let stop = s.data(&["await", "--timeout", "60"]);
    assert_eq!(stop["reason"], "breakpoint", "{stop}");
    let program = kill_the_programs_parent(&s);
    // The stopped program dies with its tracer; the adapter reports `exited -1`.
    let mut status = Value::Null;
    let ended = eventually(LIMIT, || {
        status = s.data(&["status"]);
        status["state"] != "stopped"
    });
    assert!(ended, "{status}");
    assert_eq!(status["state"], "adapter_died", "{status}");
    assert_eq!(status["exit_code"], Value::Null, "{status}");
    let failure = s
        .run(&["--json", "continue", "--wait", "--timeout", "60"])
        .failure();
    assert_eq!(failure["code"], "adapter_died", "{failure}");
    assert!(
        eventually(LIMIT, || !alive(program)),
        "the program lives on"
    );
}

#[test]
fn debugpy_stop_ends_a_python_programs_children() {
    common::require_debugpy();
    for mode in ["setsid", "pipeline"] {
        let s = Session::new();
        let mark = format!("{}-py-{mode}", s.name);
        let env = format!("TREE_MARK={mark}");
        let program = common::fixture_path("python/forks.py");
        s.start(&program, &["--env", &env, "--", mode]);
        s.output_containing(&["ready"], LIMIT);
        let mut tree = Tree {
            mark,
            pids: Vec::new(),
        };
        // The program and what it started (its launcher may carry the mark too).
        let wanted = if mode == "setsid" { 2 } else { 4 };
        let grown = eventually(LIMIT, || {
            tree.pids = marked(&tree.mark);
            tree.pids.len() >= wanted
        });
        assert!(grown, "{mode}: {:?}\n{}", tree.pids, s.log());
        s.data(&["stop"]);
        assert_all_gone(&tree, &format!("stop under debugpy ({mode})"));
    }
}
