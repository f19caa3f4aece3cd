//! The reaper: a tiny companion process that ends what the daemon (or a `probe`) launched if it is
//! killed outright (SIGKILL, OOM killer), when it can run no clean-up itself.
//!
//! The adapter dies with the daemon through the parent-death signal, but what the adapter started
//! (lldb-server, the debuggee) is not our child and would live on. So the daemon starts the reaper
//! with a pipe on its stdin and tells it each launched debuggee's pid. The kernel closes the pipe
//! when the daemon dies, however it dies; on that end-of-file, unless the daemon said "disarm" on a
//! clean exit, the reaper kills the recorded processes (checking each one's start time, so a reused
//! pid is never hit) and the daemon's process group, which holds the adapter and its helpers. An
//! attached process is never recorded: it is not ours to kill.

use std::io::{BufRead, Write};
use std::os::unix::process::CommandExt;
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::Mutex;

/// The daemon's side: a pipe to the reaper.
pub struct Reaper {
    _child: Child,
    stdin: Mutex<Option<ChildStdin>>,
}

impl Reaper {
    /// Starts the reaper. `None` when it cannot be started (the caller runs on without it).
    ///
    /// With `kill_group`, the caller's process group dies with it too, adapter helpers and all:
    /// right for the daemon, which leads a group of its own. `probe` runs in its caller's group
    /// (a shell pipeline's, say), which is not ours to kill: its reaper kills only the debuggee.
    pub fn start(kill_group: bool) -> Option<Reaper> {
        let exe = std::env::current_exe().ok()?;
        // Only a daemon that leads its own process group may have the group killed: never the
        // group of a shell the daemon was started from by hand.
        // SAFETY: getpgrp and getpid have no preconditions.
        let leads_group = kill_group && unsafe { libc::getpgrp() == libc::getpid() };
        let mut command = Command::new(exe);
        command.arg("reaper");
        if leads_group {
            // SAFETY: as above.
            command.args(["--group", &unsafe { libc::getpgrp() }.to_string()]);
        }
        let mut child = command
            .stdin(Stdio::piped())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .process_group(0)
            .spawn()
            .map_err(|e| tracing::warn!("cannot start the reaper: {e}"))
            .ok()?;
        let stdin = child.stdin.take();
        Some(Reaper {
            _child: child,
            stdin: Mutex::new(stdin),
        })
    }

    fn send(&self, line: &str) {
        let mut stdin = self.stdin.lock().unwrap_or_else(|p| p.into_inner());
        if let Some(pipe) = stdin.as_mut()
            && writeln!(pipe, "{line}").and_then(|_| pipe.flush()).is_err()
        {
            tracing::warn!("the reaper is gone");
            *stdin = None;
        }
    }

    /// Records a process to kill should the daemon die.
    pub fn watch(&self, pid: u32) {
        self.send(&format!("watch {pid}"));
    }

    /// Tells the reaper the daemon is exiting cleanly: it kills nothing.
    pub fn disarm(&self) {
        self.send("disarm");
        self.stdin.lock().unwrap_or_else(|p| p.into_inner()).take();
    }
}

/// A process's start time (field 22 of /proc/PID/stat), which tells a pid from its reuse.
pub fn start_time(pid: u32) -> Option<u64> {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    // The command name (field 2) may hold spaces and parentheses: count from the last ')'.
    let after_name = &stat[stat.rfind(')')? + 1..];
    after_name.split_whitespace().nth(19)?.parse().ok()
}

/// Entry point of `debugger reaper`: reads the daemon's pipe until it ends.
pub fn run(group: Option<i32>) -> i32 {
    let mut watched: Vec<(u32, Option<u64>)> = Vec::new();
    for line in std::io::stdin().lock().lines() {
        let Ok(line) = line else { break };
        match line.split_once(' ') {
            Some(("watch", pid)) => {
                if let Ok(pid) = pid.trim().parse::<u32>() {
                    watched.push((pid, start_time(pid)));
                }
            }
            _ if line.trim() == "disarm" => return 0,
            _ => {}
        }
    }
    // The daemon is gone without a clean exit.
    for (pid, started) in watched {
        if started.is_some()
            && start_time(pid) == started
            && let Ok(pid) = libc::pid_t::try_from(pid)
        {
            // SAFETY: kill has no memory-safety preconditions.
            unsafe {
                libc::kill(pid, libc::SIGKILL);
            }
        }
    }
    if let Some(group) = group.filter(|g| *g > 1) {
        // SAFETY: as above; a negative pid names the process group.
        unsafe {
            libc::kill(-group, libc::SIGKILL);
        }
    }
    0
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn start_time_of_this_process_is_stable() {
        let me = std::process::id();
        let first = start_time(me);
        assert!(first.is_some());
        assert_eq!(first, start_time(me));
        assert_eq!(start_time(u32::MAX), None);
    }
}
