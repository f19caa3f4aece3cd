//! The program's run as the session controls it (`RunControl`): its run state, the requests
//! sent whose stops have not arrived yet (which decide how those stops are told), and the stop
//! held while commands read it.
//!
//! The run state is a `watch` cell the event task writes (`daemon/run_state.rs`); the requests
//! in flight are a plain mutex, held only for quick updates and never across an await.

use std::sync::Mutex;

use tokio::sync::oneshot;

use super::brief_stop;
use crate::daemon::run_state::{Phase, RunState, RunStateCell};
use crate::ipc::protocol::StopReason;

/// Requests sent whose stops have not arrived yet.
#[derive(Default)]
struct InFlight {
    /// The next interrupt stop is the entry stop of `--stop-on-entry`.
    entry_expected: bool,
    /// A `pause` was sent and its stop has not arrived yet.
    pause_requested: bool,
    /// A step (`next`, `step`, `finish`) was sent and its stop has not arrived yet: that stop is
    /// the user's, even on a line where an emulated logpoint sits.
    step_requested: bool,
    /// A pause the user does not see is under way (see `brief_stop.rs`): told how it ended.
    brief_stop: Option<oneshot::Sender<brief_stop::Ended>>,
}

#[derive(Default)]
pub(super) struct RunControl {
    state: RunStateCell,
    in_flight: Mutex<InFlight>,
    /// The stop the program is held at: each command that reads it (`locals`, `print`, ...)
    /// shares it for its whole run, and a resume takes it whole. So a `continue` from another
    /// client waits for a reading in progress rather than moving the program under it, whose
    /// adapter would then answer the rest of its requests with nothing (a `locals` that listed
    /// none of its twelve variables, exit 0).
    held_stop: tokio::sync::RwLock<()>,
}

impl RunControl {
    pub(super) fn get(&self) -> RunState {
        self.state.get()
    }

    /// Moves to `phase`; returns the new generation.
    pub(super) fn set(&self, phase: Phase) -> u64 {
        self.state.set(phase)
    }

    /// Moves to `phase` only if `keep` accepts the current state; returns whether it moved.
    pub(super) fn set_if(&self, phase: Phase, keep: impl FnOnce(&RunState) -> bool) -> bool {
        self.state.set_if(phase, keep)
    }

    /// Moves to `phase` only if the state is still generation `expected`; returns the new
    /// generation, or `None` when something else happened first.
    pub(super) fn advance_if(&self, phase: Phase, expected: u64) -> Option<u64> {
        self.state.advance_if(phase, expected)
    }

    /// Puts `previous` back, generation included, if the state is still generation `current`.
    pub(super) fn restore(&self, previous: &RunState, current: u64) {
        self.state.restore(previous, current)
    }

    /// Waits for a settled state newer than `after`. `None` when `timeout` ran out first.
    pub(super) async fn wait_settled_after(
        &self,
        after: u64,
        timeout: std::time::Duration,
    ) -> Option<RunState> {
        self.state.wait_settled_after(after, timeout).await
    }

    pub(super) fn subscribe(&self) -> tokio::sync::watch::Receiver<RunState> {
        self.state.subscribe()
    }

    /// Shares the stop with other readers until the guard is dropped.
    pub(super) async fn hold_stop(&self) -> tokio::sync::RwLockReadGuard<'_, ()> {
        self.held_stop.read().await
    }

    /// Takes the stop whole, for a resume: readers in progress finish first, and none starts
    /// until the guard is dropped.
    pub(super) async fn take_stop(&self) -> tokio::sync::RwLockWriteGuard<'_, ()> {
        self.held_stop.write().await
    }

    fn in_flight(&self) -> std::sync::MutexGuard<'_, InFlight> {
        self.in_flight.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// Whether the next interrupt stop is the entry stop of `--stop-on-entry`.
    pub(super) fn expect_entry(&self, expected: bool) {
        self.in_flight().entry_expected = expected;
    }

    pub(super) fn entry_expected(&self) -> bool {
        self.in_flight().entry_expected
    }

    /// Notes a `pause` sent (or, `false`, one that failed to be).
    pub(super) fn pause_sent(&self, sent: bool) {
        self.in_flight().pause_requested = sent;
    }

    /// Notes a step sent (or, `false`, a continue, or a step that failed to be sent).
    pub(super) fn step_sent(&self, sent: bool) {
        self.in_flight().step_requested = sent;
    }

    /// Whether a stop that came ends a step the user asked for (noted once).
    pub(super) fn step_ended(&self) -> bool {
        std::mem::take(&mut self.in_flight().step_requested)
    }

    /// The reason a stop is told by: for an interrupt stop, the entry or the pause it answers
    /// (else `reason`). Either is answered by the stop that came.
    pub(super) fn interrupt_answered(&self, interrupt: bool, reason: StopReason) -> StopReason {
        let mut in_flight = self.in_flight();
        let told = match (interrupt, &*in_flight) {
            (
                true,
                InFlight {
                    entry_expected: true,
                    ..
                },
            ) => StopReason::Entry,
            (
                true,
                InFlight {
                    pause_requested: true,
                    ..
                },
            ) => StopReason::Pause,
            _ => reason,
        };
        in_flight.entry_expected = false;
        in_flight.pause_requested = false;
        told
    }

    /// Notes a pause nobody sees, to be told how it ended.
    pub(super) fn brief_stop_sent(&self, told: oneshot::Sender<brief_stop::Ended>) {
        self.in_flight().brief_stop = Some(told);
    }

    /// Forgets a pause nobody sees: it failed, its wait gave up, or the program ended.
    pub(super) fn forget_brief_stop(&self) {
        self.in_flight().brief_stop = None;
    }

    /// The pause nobody sees that a stop ends, if one is under way.
    pub(super) fn take_brief_stop(&self) -> Option<oneshot::Sender<brief_stop::Ended>> {
        self.in_flight().brief_stop.take()
    }
}
