//! `probe` ended by a signal: Ctrl-C (SIGINT to its process group) and SIGTERM end the program and
//! still print the report; SIGKILL to the probe leaves no program behind either.
//!
//! Every test fails (never skips) when its adapter is missing: `.ci/run` installs them.
//!
//! Unix only: it signals the probe (SIGINT, SIGTERM, SIGKILL) and reads /proc.
#![cfg(unix)]

mod common;

use std::path::PathBuf;
use std::process::{Child, Stdio};
use std::time::Duration;

use common::probe::{nothing_left, private_copy};
use common::{Run, Session, eventually, processes_under, require_lldb_dap};
use serde_json::json;

// ---- signals ------------------------------------------------------------------------------

/// Starts a probe of the spin fixture that would run for a minute, and waits for its program.
fn spinning_probe(s: &Session, own_group: bool) -> (Child, PathBuf) {
    let spin = private_copy(s, "c/spin.c");
    let mut command = s.command();
    command
        .args(["probe", spin.to_str().expect("utf-8 path")])
        .args(["--break", "nosuch_function", "--timeout", "60"])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    if own_group {
        use std::os::unix::process::CommandExt;
        command.process_group(0);
    }
    let child = command.spawn().expect("run the probe");
    // Running, not held stopped by the tracer while the launch is configured: the probe is then
    // waiting for hits.
    let running = eventually(Duration::from_secs(30), || {
        processes_under(s.dir.path())
            .iter()
            .filter(|p| p.ends_with(&format!("{} ", spin.display())))
            .filter_map(|p| p.split_once(':')?.0.parse::<u32>().ok())
            .any(|pid| matches!(state(pid), Some('S' | 'R')))
    });
    assert!(running, "the program never started running");
    (child, spin)
}

/// A process's state letter (`R`, `S`, `t`, `Z`, ...).
fn state(pid: u32) -> Option<char> {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    stat.rsplit_once(')')?
        .1
        .split_whitespace()
        .next()?
        .chars()
        .next()
}

fn finish(mut child: Child) -> Run {
    assert!(
        eventually(Duration::from_secs(30), || matches!(
            child.try_wait(),
            Ok(Some(_))
        )),
        "the probe did not end"
    );
    Run::from(
        child
            .wait_with_output()
            .expect("collect the probe's output"),
    )
}

fn kill(pid: i32, signal: libc::c_int) {
    // SAFETY: kill has no memory-safety preconditions.
    let result = unsafe { libc::kill(pid, signal) };
    assert_eq!(result, 0, "kill({pid}, {signal}) failed");
}

#[test]
fn ctrl_c_ends_the_program_and_still_reports() {
    require_lldb_dap();
    let s = Session::new();
    // A terminal's Ctrl-C goes to the whole foreground process group: the probe, its adapter and
    // what the adapter runs.
    let (child, _) = spinning_probe(&s, true);
    let group = i32::try_from(child.id()).expect("pid");
    kill(-group, libc::SIGINT);
    let run = finish(child);
    assert_eq!(run.code, 130, "{run:?}");
    assert!(
        run.stdout
            .starts_with("spin: no breakpoint was hit; interrupted by SIGINT"),
        "{run:?}"
    );
    assert!(
        run.stderr
            .starts_with("error: the probe was interrupted by SIGINT"),
        "{run:?}"
    );
    nothing_left(&s);
}

#[test]
fn sigterm_ends_the_program_and_still_reports() {
    require_lldb_dap();
    let s = Session::new();
    let (child, _) = spinning_probe(&s, false);
    kill(i32::try_from(child.id()).expect("pid"), libc::SIGTERM);
    let run = finish(child);
    assert_eq!(run.code, 130, "{run:?}");
    assert!(
        run.stdout
            .contains("interrupted by SIGTERM; the probe ended the program"),
        "{run:?}"
    );
    nothing_left(&s);
}

/// The parent pid of `pid`, from /proc.
fn parent_of(pid: u32) -> Option<u32> {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    stat.rsplit_once(')')?
        .1
        .split_whitespace()
        .nth(1)?
        .parse()
        .ok()
}

/// The children of `pid` whose command name is `name`.
fn children_named(pid: u32, name: &str) -> Vec<u32> {
    let Ok(entries) = std::fs::read_dir("/proc") else {
        return Vec::new();
    };
    entries
        .flatten()
        .filter_map(|e| e.file_name().to_string_lossy().parse::<u32>().ok())
        .filter(|child| parent_of(*child) == Some(pid))
        .filter(|child| {
            std::fs::read_to_string(format!("/proc/{child}/comm"))
                .is_ok_and(|comm| comm.trim() == name)
        })
        .collect()
}

fn alive(pid: u32) -> bool {
    state(pid).is_some_and(|s| s != 'Z' && s != 'X')
}

#[test]
fn sigkill_to_the_probe_leaves_no_program_behind() {
    // The mock adapter's program (`sleep 600`) does not die with its adapter, as lldb-server's
    // does: only the probe's reaper can end it once the probe is killed outright.
    let s = Session::with_mock(&json!({ "debuggee": true, "debuggee_stdio": "null" }), "");
    let mut child = s
        .command()
        .args(["probe", "/bin/true", "--adapter", "mock", "--break", "main"])
        .args(["--timeout", "60"])
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .expect("run the probe");
    let mut program = None;
    let started = eventually(Duration::from_secs(30), || {
        program = children_named(child.id(), "mock_adapter")
            .into_iter()
            .flat_map(|adapter| children_named(adapter, "sleep"))
            .next();
        program.is_some()
    });
    assert!(started, "the mock program never started");
    let program = program.expect("the program's pid");
    // Kill the probe outright. The program carries the probe's tree tag from its start, so its
    // reaper ends it whether or not it was told the program's pid yet.
    let _ = child.kill();
    let _ = child.wait();
    assert!(
        eventually(Duration::from_secs(5), || !alive(program)),
        "the program outlived the killed probe"
    );
}
