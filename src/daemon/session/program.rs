//! The program the session debugs, from its start to its end: its process as the adapter (or
//! its core dump) told of it, the channels its output comes through, the files an adapter built
//! for it, and how it ends: by its own exit, by our kill, or lost with the adapter's helper.
//!
//! Its facts are one plain mutex, held only for quick updates and never across an await. What
//! an end means to the rest of the session (the run state, the output buffer) is `Shared`'s.

use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, MutexGuard};

use crate::daemon::program_io::ProgramIo;
use crate::daemon::reaper::Reaper;

/// The debuggee's process, as the adapter told us of it.
#[derive(Default)]
pub(super) struct Debuggee {
    pub(super) pid: Option<u32>,
    pub(super) exit_code: Option<i64>,
    /// The signal that killed it, when the adapter told (then `exit_code` is `None`).
    pub(super) signal: Option<i32>,
    /// The signal of the last stop on one (reason `signal`): an adapter that reports a death by
    /// a signal as an exit with its number is read by it (see `events::on_exited`).
    pub(super) stopped_on_signal: Option<i32>,
    /// How the adapter's own log said the program ended, read from its console output before
    /// its `exited` event (`SignalReporting::end_in_console`).
    pub(super) logged_end: Option<crate::adapters::LoggedEnd>,
    /// The end is being asked of the adapter (see `events::ask_exit_signal`): `terminated`
    /// must not report it first.
    pub(super) end_pending: bool,
    /// The launched debuggee's start time, which tells it from a later process with its pid.
    pub(super) started: Option<u64>,
    /// The program has exited or terminated: its pid is nobody's to kill any more.
    pub(super) gone: bool,
    /// The process that ran the launched program (its parent when the adapter told of it) and
    /// that process's start time: the adapter's helper, whose death the adapter misreports.
    pub(super) runner: Option<(u32, Option<u64>)>,
    /// The address whose access killed the process, as its core dump holds it.
    pub(super) core_fault_address: Option<u64>,
    /// The C library's message of an abort, as the core dump holds it.
    pub(super) core_abort_message: Option<String>,
}

/// The program's process and what the session keeps for it until it ends.
pub(super) struct Program {
    facts: Mutex<Debuggee>,
    /// Whether this session launched its program with an adapter of ours on this machine: only
    /// then is the debuggee's pid a local process we may end.
    owns_local: bool,
    /// Told of each launched debuggee, to end it should the daemon be killed outright.
    reaper: Option<Arc<Reaper>>,
    /// The program's stdout and stderr as the daemon reads them, when the adapter was told to
    /// send them to the daemon's channels: the adapter's output events are then its own. Taken
    /// when the session ends (see [`Program::release`]).
    io: Mutex<Option<ProgramIo>>,
    /// Files the adapter made for the launch (a program it built), removed when the program ends.
    build_products: Mutex<Vec<PathBuf>>,
    /// For a program that writes to the adapter's own stdout and stderr (Delve): true once both
    /// have ended and all they carried is in the output buffer.
    adapter_streams_done: Option<tokio::sync::watch::Receiver<bool>>,
    /// Set once we end the session ourselves: the program's end is then ours, and the adapter's
    /// exit no death to report.
    ending: AtomicBool,
}

impl Program {
    pub(super) fn new(
        owns_local: bool,
        reaper: Option<Arc<Reaper>>,
        io: Option<ProgramIo>,
        adapter_streams_done: Option<tokio::sync::watch::Receiver<bool>>,
    ) -> Program {
        Program {
            facts: Mutex::default(),
            owns_local,
            reaper,
            io: Mutex::new(io),
            build_products: Mutex::default(),
            adapter_streams_done,
            ending: AtomicBool::new(false),
        }
    }

    pub(super) fn facts(&self) -> MutexGuard<'_, Debuggee> {
        self.facts.lock().unwrap_or_else(|p| p.into_inner())
    }

    pub(super) fn reaper(&self) -> Option<Arc<Reaper>> {
        self.reaper.clone()
    }

    /// Notes that we end the session ourselves.
    pub(super) fn begin_ending(&self) {
        self.ending.store(true, Ordering::SeqCst);
    }

    /// Whether we are ending the session ourselves.
    pub(super) fn is_ending(&self) -> bool {
        self.ending.load(Ordering::SeqCst)
    }

    pub(super) fn io(&self) -> MutexGuard<'_, Option<ProgramIo>> {
        self.io.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// Whether the program's output comes through the daemon's channels.
    pub(super) fn reads_streams(&self) -> bool {
        self.io().is_some()
    }

    /// Whether the program writes to the adapter's own streams, whose end tells all it wrote
    /// has been read.
    pub(super) fn adapter_streams_done(&self) -> Option<tokio::sync::watch::Receiver<bool>> {
        self.adapter_streams_done.clone()
    }

    /// Takes in what the program has written to the daemon's channels so far, so that a stop
    /// or an end is reported after the output that came before it.
    pub(super) fn take_output(&self) {
        if let Some(io) = &*self.io() {
            io.drain();
        }
    }

    /// Keeps the files a launch's `arguments` made, to remove them when the program ends.
    pub(super) fn set_build_products(&self, products: Vec<PathBuf>) {
        *self
            .build_products
            .lock()
            .unwrap_or_else(|p| p.into_inner()) = products;
    }

    /// Removes the files the adapter made for the program (it has ended, or the session has).
    pub(super) fn remove_build_products(&self) {
        let products = std::mem::take(
            &mut *self
                .build_products
                .lock()
                .unwrap_or_else(|p| p.into_inner()),
        );
        for product in products {
            crate::common::scratch::remove(&product);
        }
    }

    /// Lets go of all the session kept for its program, once it has ended however it ended:
    /// its channels (what they still hold taken in first), their folder and descriptors, the
    /// adapter's build products, and the program's remains (its zombie, should it come to the
    /// daemon, is collected from now on: `platform::may_adopt_line`).
    pub(super) fn release(&self) {
        let io = self.io().take();
        if let Some(io) = io {
            io.drain();
        }
        self.remove_build_products();
        let pid = self.facts().pid;
        if let Some(pid) = pid {
            crate::platform::release_adopted(pid);
        }
    }

    /// Records the debuggee's process as the adapter told of it; for one we launched here, also
    /// its start time and its runner, and the reaper and the daemon are told of it. The pid to
    /// watch for an end the adapter does not tell (none for a process not ours).
    pub(super) fn reported(&self, pid: Option<u32>) -> Option<u32> {
        let mut facts = self.facts();
        facts.pid = pid;
        facts.gone = false;
        facts.started = None;
        facts.runner = None;
        let pid = pid.filter(|_| self.owns_local)?;
        facts.started = crate::platform::start_time(pid);
        facts.runner = runner_of(pid);
        // The program and what runs it come to the daemon should their parents die first.
        crate::platform::may_adopt_line(pid);
        if let Some(reaper) = &self.reaper {
            reaper.watch(pid);
        }
        Some(pid)
    }

    /// Whether the program this session launched here has died (the same process: its start
    /// time unchanged, so not a later one with its pid).
    pub(super) fn launched_died(&self) -> bool {
        if !self.owns_local {
            return false;
        }
        let (pid, started) = {
            let facts = self.facts();
            (facts.pid, facts.started)
        };
        match (pid, started) {
            (Some(pid), Some(started)) => {
                !crate::platform::is_running(pid)
                    || crate::platform::start_time(pid).is_some_and(|t| t != started)
            }
            _ => false,
        }
    }

    /// Kills the debuggee this session launched (when its adapter died and left it behind, or
    /// before the adapter is told to end it, for a probe): whether it was found and killed.
    pub(super) fn kill_launched(&self) -> bool {
        if !self.owns_local {
            return false;
        }
        let (pid, started, gone) = {
            let facts = self.facts();
            (facts.pid, facts.started, facts.gone)
        };
        let Some(pid) = pid.filter(|_| !gone) else {
            return false;
        };
        // The same process, not a later one that reused its pid.
        if started.is_none() || crate::platform::start_time(pid) != started {
            return false;
        }
        tracing::info!(pid, "killing the launched debuggee");
        crate::platform::kill(pid).is_ok()
    }

    /// Whether the adapter's word that the launched program ended (`exited` with `exit_code`,
    /// or `terminated`) hides its own helper's death, and if so how that death is told. An
    /// adapter whose helper that ran the program died (a debug server it talks to) reports an
    /// exit (lldb-dap: code -1), while the program lives on, unparented, if it was running, or
    /// died with its tracer if it was stopped. So when the program still runs, or the process
    /// that ran it is gone, the program is killed (and is gone) and the session's end is told
    /// as the adapter's death, never as an exit.
    ///
    /// Only a code the program cannot exit with (none, or negative) is doubted: an adapter that
    /// reports a real code may do so a moment before the process is gone.
    pub(super) fn lost_by_adapter(&self, exit_code: Option<i64>) -> Option<String> {
        if !self.owns_local || self.is_ending() || exit_code.is_some_and(|code| code >= 0) {
            return None;
        }
        let (pid, started, gone, runner) = {
            let d = self.facts();
            (d.pid, d.started, d.gone, d.runner)
        };
        let pid = pid.filter(|_| !gone && started.is_some())?;
        let lives = |pid: u32, started: Option<u64>| {
            crate::platform::start_time(pid) == started && crate::platform::is_running(pid)
        };
        let program_runs = lives(pid, started);
        let runner_died = runner.is_some_and(|(runner, since)| !lives(runner, since));
        if !program_runs && !runner_died {
            return None;
        }
        // A dead program and a dead runner: which died first? A program killed by the user is
        // reaped by its runner, which then ends its own work (lldb-server exits 0): the
        // program's end. A runner killed first takes its traced program with it, and the
        // program's remains come to the daemon, its subreaper: the adapter's death.
        if !program_runs && crate::platform::parent_pid(pid) != Some(std::process::id()) {
            return None;
        }
        let detail = if program_runs {
            tracing::warn!(
                pid,
                "the adapter reported an exit, but the program still runs"
            );
            let _ = crate::platform::kill(pid);
            format!(
                "its helper that ran the program died; the program (pid {pid}) was still \
                 running and has been killed"
            )
        } else {
            tracing::warn!(
                pid,
                "the process that ran the program died, and the program too"
            );
            format!("its helper that ran the program died, and the program (pid {pid}) with it")
        };
        self.facts().gone = true;
        Some(detail)
    }
}

/// The process running the launched program `pid` (its parent), unless that is this process
/// (an adapter of ours that starts the program itself): recorded when the program is reported,
/// to tell later whether the helper that ran it died.
fn runner_of(pid: u32) -> Option<(u32, Option<u64>)> {
    let parent = crate::platform::parent_pid(pid).filter(|p| *p != std::process::id())?;
    Some((parent, crate::platform::start_time(parent)))
}
