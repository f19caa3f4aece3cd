//! Orphans the daemon adopts: which of its zombie children it may collect, and when.
//!
//! The daemon is a child subreaper (Linux, `unix/tree.rs`), so a process below it whose parent
//! dies comes to it: lldb-server when lldb-dap goes, a program whose runner went first. Nobody
//! else will collect such a process's exit, and a zombie of it would stay for the daemon's life,
//! one more after each `stop` or `restart` under a daemon kept by a warm adapter. But the daemon
//! must never collect a child it started itself: tokio, or the code that started it, waits for
//! that exit (an adapter's exit status is part of the report of its death; `Command::output`
//! fails without it).
//!
//! So a process is collected only on evidence that the daemon did not start it: it was seen
//! below the daemon with another parent ([`may_adopt`], [`may_adopt_line`]), and is now a zombie
//! whose parent is the daemon, with the same start time (not a reused pid). [`reap_adopted`]
//! collects those; the daemon runs it at each SIGCHLD ([`ChildExits`]), which the kernel also
//! sends when a process that had already died is handed to it. A launched program's remains are
//! held until its session lets them go ([`release_adopted`]): how its zombie came to the daemon
//! tells whether its adapter's helper died first (`session/lifecycle.rs`).

use std::sync::Mutex;

use super::{is_running, parent_pid, reap, start_time};

/// How far [`may_adopt_line`] looks up from a process for this one.
const ANCESTORS_LOOKED_AT: usize = 64;

/// A process seen below this one with another parent.
struct Adoptable {
    pid: u32,
    started: Option<u64>,
    /// Not to be collected yet: its session still reads its remains.
    held: bool,
}

/// The processes this one may adopt.
static ADOPTABLE: Mutex<Vec<Adoptable>> = Mutex::new(Vec::new());

fn adoptable() -> std::sync::MutexGuard<'static, Vec<Adoptable>> {
    ADOPTABLE.lock().unwrap_or_else(|p| p.into_inner())
}

/// Records each of `pids` that is not this process's child now (nor this process) as one it
/// may adopt: its exit is collected should it come to this process (see the module's doc).
pub fn may_adopt(pids: &[u32]) {
    note(pids, false);
}

fn note(pids: &[u32], held: bool) {
    let me = std::process::id();
    let mut noted = adoptable();
    for pid in pids {
        if *pid == me || parent_pid(*pid) == Some(me) {
            continue;
        }
        match noted.iter_mut().find(|noted| noted.pid == *pid) {
            Some(noted) => noted.held |= held,
            None => noted.push(Adoptable {
                pid: *pid,
                started: start_time(*pid),
                held,
            }),
        }
    }
}

/// Lets the remains of `pid`, held by [`may_adopt_line`], be collected, and collects them if
/// they are here already.
pub fn release_adopted(pid: u32) {
    if let Some(noted) = adoptable().iter_mut().find(|noted| noted.pid == pid) {
        noted.held = false;
    }
    reap_adopted();
}

/// Records the launched program `pid`, held until [`release_adopted`], and each of its
/// ancestors below this process's own children: the line of processes that runs it (lldb-dap's
/// lldb-server, debugpy's launcher), all of which come to this process should the one above them
/// die.
pub fn may_adopt_line(pid: u32) {
    let me = std::process::id();
    let mut line = Vec::new();
    let mut current = pid;
    for _ in 0..ANCESTORS_LOOKED_AT {
        match parent_pid(current) {
            Some(parent) if parent != me && parent > 1 => {
                line.push(parent);
                current = parent;
            }
            _ => break,
        }
    }
    // Only a line that leads up to this process is below it.
    if parent_pid(current) == Some(me) {
        note(&[pid], true);
        may_adopt(&line);
    }
}

/// Collects the exit of every recorded process that has come to this process and died, and
/// forgets those that are gone; returns how many it collected.
pub fn reap_adopted() -> usize {
    let me = std::process::id();
    let mut collected = 0;
    adoptable().retain(|noted| {
        let Some(parent) = parent_pid(noted.pid) else {
            // Gone from the process table (its first parent collected it).
            return false;
        };
        if start_time(noted.pid) != noted.started {
            // The pid is another process's now.
            return false;
        }
        if noted.held || parent != me || is_running(noted.pid) {
            return true;
        }
        if reap(noted.pid) {
            collected += 1;
            return false;
        }
        true
    });
    if collected > 0 {
        tracing::debug!(collected, "collected the exits of adopted processes");
    }
    collected
}

/// Tells of each change of state of a child of this process (Unix's SIGCHLD); never on Windows,
/// which has no zombies.
pub struct ChildExits(imp::Source);

impl ChildExits {
    pub fn install() -> std::io::Result<ChildExits> {
        imp::install().map(ChildExits)
    }

    /// Resolves at the next one; `None` if no more can come.
    pub async fn next(&mut self) -> Option<()> {
        imp::next(&mut self.0).await
    }
}

#[cfg(unix)]
mod imp {
    use tokio::signal::unix::{Signal, SignalKind, signal};

    pub type Source = Signal;

    pub fn install() -> std::io::Result<Signal> {
        signal(SignalKind::child())
    }

    pub async fn next(source: &mut Signal) -> Option<()> {
        source.recv().await
    }
}

#[cfg(windows)]
mod imp {
    pub struct Source;

    pub fn install() -> std::io::Result<Source> {
        Ok(Source)
    }

    pub async fn next(_source: &mut Source) -> Option<()> {
        std::future::pending().await
    }
}

#[cfg(all(test, target_os = "linux"))]
mod tests {
    use super::*;

    #[test]
    fn a_child_of_our_own_is_never_recorded() {
        let mut child = std::process::Command::new("sleep")
            .arg("30")
            .spawn()
            .expect("spawn sleep");
        may_adopt(&[child.id()]);
        may_adopt_line(child.id());
        assert!(!adoptable().iter().any(|noted| noted.pid == child.id()));
        let _ = child.kill();
        let _ = child.wait();
    }
}
