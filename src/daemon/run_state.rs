//! Whether the debuggee runs, is stopped, or is gone, published to every waiter.
//!
//! The state lives in a `watch` channel: the session's event task writes it the moment an adapter
//! event arrives, and any number of clients (`await`, `--wait`, `status`) read or wait on it with
//! no polling. Every change bumps `generation`, so a waiter can ask for "the first stop after the
//! state I saw" and never mistake an old stop for a new one.

use std::time::Duration;

use tokio::sync::watch;

use crate::ipc::protocol::{SessionState, StopReason};

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StopInfo {
    pub reason: StopReason,
    pub description: Option<String>,
    pub text: Option<String>,
    pub thread_id: Option<i64>,
    pub hit_breakpoint_ids: Vec<i64>,
    /// The signal the program stopped on, for a stop of reason `signal`, when the adapter named
    /// it.
    pub signal: Option<i32>,
    /// For a stop the adapter made because a breakpoint's condition could not be evaluated, and
    /// said so in the stop itself: its message.
    pub condition_failure: Option<String>,
}

/// An evaluation the program runs at a stop, which did not return within its limit and which
/// the adapter could not interrupt (see `session/bounded_evaluation.rs`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Evaluation {
    /// The expression as the user gave it.
    pub expression: String,
    /// When it was sent.
    pub since: std::time::Instant,
    /// The stop it runs at, which the program is back at once it returns.
    pub stop: StopInfo,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Phase {
    /// Launching or attaching; not yet configured.
    Starting,
    Running,
    Stopped(StopInfo),
    /// Stopped, but running the code of an evaluation that would not return in time.
    Evaluating(Box<Evaluation>),
    /// The debuggee ended: with a code (the adapter sent `exited`), killed by a signal (the
    /// adapter told which), or neither known.
    Exited {
        exit_code: Option<i64>,
        signal: Option<i32>,
    },
    /// The adapter died or broke the protocol.
    AdapterDied {
        detail: String,
    },
}

impl Phase {
    /// The state users and `--json` see.
    pub fn state(&self) -> SessionState {
        match self {
            Phase::Starting => SessionState::Starting,
            Phase::Running => SessionState::Running,
            Phase::Stopped(_) => SessionState::Stopped,
            Phase::Evaluating(_) => SessionState::Evaluating,
            Phase::Exited {
                exit_code: None,
                signal: None,
            } => SessionState::Terminated,
            Phase::Exited { .. } => SessionState::Exited,
            Phase::AdapterDied { .. } => SessionState::AdapterDied,
        }
    }

    /// True when waiting is over: stopped, or gone for good.
    pub fn is_settled(&self) -> bool {
        !matches!(
            self,
            Phase::Starting | Phase::Running | Phase::Evaluating(_)
        )
    }

    pub fn is_ended(&self) -> bool {
        matches!(self, Phase::Exited { .. } | Phase::AdapterDied { .. })
    }
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RunState {
    pub generation: u64,
    pub phase: Phase,
}

/// The writer side, shared by the event task and the commands that resume the program.
#[derive(Debug)]
pub struct RunStateCell {
    tx: watch::Sender<RunState>,
}

impl Default for RunStateCell {
    fn default() -> Self {
        RunStateCell {
            tx: watch::channel(RunState {
                generation: 0,
                phase: Phase::Starting,
            })
            .0,
        }
    }
}

impl RunStateCell {
    pub fn get(&self) -> RunState {
        self.tx.borrow().clone()
    }

    /// Moves to `phase`; returns the new generation.
    pub fn set(&self, phase: Phase) -> u64 {
        let mut generation = 0;
        self.tx.send_modify(|state| {
            state.generation += 1;
            state.phase = phase;
            generation = state.generation;
        });
        generation
    }

    /// Moves to `phase` only if `keep` accepts the current state; returns whether it moved.
    pub fn set_if(&self, phase: Phase, keep: impl FnOnce(&RunState) -> bool) -> bool {
        self.tx.send_if_modified(|state| {
            if !keep(state) {
                return false;
            }
            state.generation += 1;
            state.phase = phase;
            true
        })
    }

    /// Moves to `phase` only if the state is still generation `expected`; returns the new
    /// generation, or `None` when something else happened first.
    pub fn advance_if(&self, phase: Phase, expected: u64) -> Option<u64> {
        let mut generation = None;
        self.tx.send_if_modified(|state| {
            if state.generation != expected {
                return false;
            }
            state.generation += 1;
            state.phase = phase;
            generation = Some(state.generation);
            true
        });
        generation
    }

    /// Puts `previous` back, generation included, if the state is still generation `current`:
    /// an action that failed before it changed anything must not pass for a new stop.
    pub fn restore(&self, previous: &RunState, current: u64) {
        self.tx.send_if_modified(|state| {
            if state.generation != current {
                return false;
            }
            *state = previous.clone();
            true
        });
    }

    /// Waits for a settled state newer than `after`. `None` when `timeout` ran out first.
    pub async fn wait_settled_after(&self, after: u64, timeout: Duration) -> Option<RunState> {
        let mut rx = self.tx.subscribe();
        let wait = rx.wait_for(|s| s.generation > after && s.phase.is_settled());
        match tokio::time::timeout(timeout, wait).await {
            Ok(Ok(state)) => Some(state.clone()),
            _ => None,
        }
    }

    pub fn subscribe(&self) -> watch::Receiver<RunState> {
        self.tx.subscribe()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn stop(reason: &str) -> Phase {
        Phase::Stopped(StopInfo {
            reason: StopReason::from(reason),
            description: None,
            text: None,
            thread_id: Some(1),
            hit_breakpoint_ids: vec![],
            signal: None,
            condition_failure: None,
        })
    }

    #[tokio::test]
    async fn waiter_sees_only_newer_stops() {
        let cell = std::sync::Arc::new(RunStateCell::default());
        cell.set(stop("breakpoint"));
        let running = cell.set(Phase::Running);
        let waiter = {
            let cell = cell.clone();
            tokio::spawn(async move {
                cell.wait_settled_after(running, Duration::from_secs(5))
                    .await
            })
        };
        tokio::task::yield_now().await;
        cell.set(stop("step"));
        let got = waiter.await.expect("join").expect("settled");
        assert_eq!(got.phase, stop("step"));
    }

    #[tokio::test]
    async fn wait_times_out() {
        let cell = RunStateCell::default();
        let g = cell.set(Phase::Running);
        assert!(
            cell.wait_settled_after(g, Duration::from_millis(20))
                .await
                .is_none()
        );
    }
}
