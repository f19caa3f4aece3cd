//! How a session ends: `stop`, `detach`, a probe's end, and a dead adapter's debuggee. The
//! ending decides which processes outlive the session: none we launched, every one we attached
//! to.
//!
//! Apart from `lifecycle.rs` (the opening) because an ending has its own question to answer
//! each time: who ends the program, the adapter or we, and whether its word is waited for.

use std::sync::atomic::Ordering;
use std::time::Duration;

use super::{Origin, Session, Shared};
use crate::daemon::run_state::Phase;
use crate::dap::requests::{Disconnect, DisconnectArguments};

/// How long a probe's end waits for the program's last output on the adapter's streams.
const STREAMS_END_LIMIT: Duration = Duration::from_secs(2);

impl Session {
    /// Ends the session: the launched debuggee is terminated (or, with `detach`, left running),
    /// an attached one is detached, and the adapter exits (or is killed). Unless detaching, what
    /// is left of the tree the adapter started (the program's children) is killed too; an
    /// attached process is not of it (neither our descendant nor carrying our tag).
    pub async fn end(&self, detach: bool) {
        self.end_as(detach, true).await;
    }

    /// Ends the session of a process about to exit whose reaper is never disarmed (`probe`):
    /// as [`Session::end`], but what is left of the program's tree is killed in the background,
    /// not waited for. The reaper kills whatever remains once this process is gone; waiting
    /// here cost a probe 20-45 ms on the bench (two scans of every process's environment).
    pub async fn end_before_exit(&self) {
        self.end_as(false, false).await;
    }

    async fn end_as(&self, detach: bool, wait_for_tree: bool) {
        crate::common::timeline::mark("session ending");
        self.shared.ending.store(true, Ordering::SeqCst);
        if self.process.has_exited() && !detach {
            // No adapter is left to terminate the program it launched.
            let _ = self.kill_launched_debuggee();
        }
        let terminate = !detach && matches!(self.origin, Origin::Launch(_));
        // A probe that killed the program itself (its output is in pipes we read) wants
        // nothing from the adapter's answer to `disconnect`: Delve took 1-200 ms to give it.
        let killed_first = !wait_for_tree && terminate && self.kill_program_first();
        if terminate && !killed_first && matches!(self.shared.run.get().phase, Phase::Evaluating(_))
        {
            // An adapter busy with an evaluation it cannot interrupt (Delve) reads no
            // `disconnect` until the program stops running it: the program goes first.
            self.kill_launched_debuggee();
        }
        let mut disconnected = killed_first;
        if !killed_first && !self.process.has_exited() {
            let disconnect = self.dap.send_typed::<Disconnect>(&DisconnectArguments {
                terminate_debuggee: terminate,
                restart: false,
            });
            match disconnect.response_within(Duration::from_secs(5)).await {
                Ok(_) => {
                    crate::common::timeline::mark("disconnect answered");
                    disconnected = true
                }
                Err(e) => tracing::warn!("disconnect failed: {e}"),
            }
            self.dap.end_input();
        }
        if disconnected {
            // The adapter has ended or left the program as asked: its own way out (lldb-dap
            // takes 150-400 ms) is not waited for. Its exit is collected in the background,
            // and what it leaves is the tree's, ended below.
            self.process.kill();
        } else {
            self.process.shut_down(Duration::from_secs(2)).await;
        }
        if detach {
            crate::platform::release_children();
        } else if let Some(reaper) = self.shared.reaper.clone() {
            // What the program started (children in its group, double forks after `setsid`, a
            // shell's pipeline) is not the adapter's to end: the daemon ends it. It blocks for
            // a few short rounds, so off the runtime's thread.
            let ending = tokio::task::spawn_blocking(move || reaper.end_tree());
            if wait_for_tree {
                let _ = ending.await;
            }
        }
        crate::common::timeline::mark("session tree ended");
        if killed_first {
            self.await_adapter_streams().await;
        }
        self.dap.close("the session has ended");
        self.shared.release_program();
        self.shared.output.finish();
        if !self.shared.run.get().phase.is_ended() {
            let (exit_code, signal) = {
                let view = self.shared.view();
                (view.debuggee.exit_code, view.debuggee.signal)
            };
            self.shared.run.set(Phase::Exited { exit_code, signal });
        }
    }

    /// Ends a process about to exit (a probe) by killing the program itself, when nothing the
    /// adapter could still say is wanted: the program's output comes through our own channels
    /// (every byte it wrote is in their pipes, read by `take_program_output` below), and its
    /// end by our kill is no exit to report. Whether the program was killed; false leaves the
    /// ending to the adapter's `disconnect`.
    fn kill_program_first(&self) -> bool {
        let output_is_ours =
            self.shared.reads_program_streams() || self.shared.adapter_streams_done.is_some();
        if !output_is_ours || self.shared.run.get().phase.is_ended() {
            return false;
        }
        if !self.kill_launched_debuggee() {
            return false;
        }
        crate::common::timeline::mark("program killed");
        true
    }

    /// Waits until the adapter's own streams, which carry the killed program's output, have
    /// ended: at once when the adapter and the program are dead, later only when the program
    /// left a child holding them (the tree's end, under way, kills it), never past
    /// [`STREAMS_END_LIMIT`].
    async fn await_adapter_streams(&self) {
        let Some(mut done) = self.shared.adapter_streams_done.clone() else {
            return;
        };
        let ended = done.wait_for(|done| *done);
        if tokio::time::timeout(STREAMS_END_LIMIT, ended)
            .await
            .is_err()
        {
            tracing::warn!("the adapter's streams did not end; the program's output may be cut");
        }
        crate::common::timeline::mark("program output read");
    }

    /// Kills the debuggee this session launched (when its adapter died and left it behind, or
    /// for [`Session::kill_program_first`]): whether it was found and killed.
    pub fn kill_launched_debuggee(&self) -> bool {
        if !self.shared.owns_local_debuggee {
            return false;
        }
        let (pid, started, gone) = {
            let view = self.shared.view();
            (view.debuggee.pid, view.debuggee.started, view.debuggee.gone)
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
}

/// The process running the launched program `pid` (its parent), unless that is this process
/// (an adapter of ours that starts the program itself): recorded when the program is reported,
/// to tell later whether the helper that ran it died.
pub(super) fn runner_of(pid: u32) -> Option<(u32, Option<u64>)> {
    let parent = crate::platform::parent_pid(pid).filter(|p| *p != std::process::id())?;
    Some((parent, crate::platform::start_time(parent)))
}

impl Shared {
    /// Whether the adapter's word that the launched program ended (`exited` with `exit_code`,
    /// or `terminated`) hides its own helper's death. An adapter whose helper that ran the
    /// program died (a debug server it talks to) reports an exit (lldb-dap: code -1), while the
    /// program lives on, unparented, if it was running, or died with its tracer if it was
    /// stopped. So when the program still runs, or the process that ran it is gone, the program
    /// is killed and the session's end is told as the adapter's death, never as an exit.
    ///
    /// Only a code the program cannot exit with (none, or negative) is doubted: an adapter that
    /// reports a real code may do so a moment before the process is gone.
    pub(super) fn lost_by_adapter(&self, exit_code: Option<i64>) -> bool {
        if !self.owns_local_debuggee
            || self.ending.load(Ordering::SeqCst)
            || exit_code.is_some_and(|code| code >= 0)
        {
            return false;
        }
        let (pid, started, gone, runner) = {
            let view = self.view();
            let d = &view.debuggee;
            (d.pid, d.started, d.gone, d.runner)
        };
        let Some(pid) = pid.filter(|_| !gone && started.is_some()) else {
            return false;
        };
        let lives = |pid: u32, started: Option<u64>| {
            crate::platform::start_time(pid) == started && crate::platform::is_running(pid)
        };
        let program_runs = lives(pid, started);
        let runner_died = runner.is_some_and(|(runner, since)| !lives(runner, since));
        if !program_runs && !runner_died {
            return false;
        }
        // A dead program and a dead runner: which died first? A program killed by the user is
        // reaped by its runner, which then ends its own work (lldb-server exits 0): the
        // program's end. A runner killed first takes its traced program with it, and the
        // program's remains come to the daemon, its subreaper: the adapter's death.
        if !program_runs && crate::platform::parent_pid(pid) != Some(std::process::id()) {
            return false;
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
        {
            let mut view = self.view();
            view.in_flight.brief_stop = None;
            view.debuggee.gone = true;
        }
        self.output.finish();
        self.run
            .set_if(Phase::AdapterDied { detail }, |s| !s.phase.is_ended());
        true
    }
}
