//! The daemon's one session slot: empty, starting, active or ending, what each state answers a
//! command that needs a session, and when an empty or ended slot ends the daemon.
//!
//! Apart from dispatch because it is the daemon's only shared state besides the session itself:
//! a plain mutex, held for quick checks and swaps, never across an await.

use std::sync::Arc;
use std::time::Duration;

use super::Daemon;
use super::run_state::Phase;
use super::session::Session;
use crate::common::error::{ErrorBody, ErrorCode};

/// How long a daemon that never got a session waits before exiting.
const IDLE_WITHOUT_SESSION: Duration = Duration::from_secs(30);

pub(super) enum Slot {
    Empty,
    Starting,
    Active(Arc<Session>),
    /// `stop` or `detach` is winding the session down; the daemon exits once it has.
    Ending,
}

pub(super) fn still_starting() -> ErrorBody {
    ErrorBody::new(
        ErrorCode::Running,
        "the session is still starting",
        "try again in a moment",
    )
}

pub(super) fn ending() -> ErrorBody {
    ErrorBody::new(
        ErrorCode::NoSession,
        "the debug session is ending",
        "start a new one with 'debugger start <program>'",
    )
}

impl Daemon {
    pub(super) fn slot(&self) -> std::sync::MutexGuard<'_, Slot> {
        self.slot.lock().unwrap_or_else(|p| p.into_inner())
    }

    pub(super) fn session(&self) -> Result<Arc<Session>, ErrorBody> {
        match &*self.slot() {
            Slot::Active(session) => Ok(session.clone()),
            Slot::Starting => Err(still_starting()),
            Slot::Ending => Err(ending()),
            Slot::Empty => Err(self.no_session()),
        }
    }

    /// Ends whatever session is active, and the warm adapter (used at shutdown).
    pub async fn end_session(&self) {
        self.spare.end().await;
        let session = match std::mem::replace(&mut *self.slot(), Slot::Empty) {
            Slot::Active(session) => session,
            _ => return,
        };
        session.end(false).await;
    }

    /// Exits the daemon once the answer at hand is written, if it still has no session then:
    /// after a failed start, whose error must reach the client first (a timer here raced the
    /// answer's write on a loaded machine).
    pub(super) fn exit_once_answered(&self) {
        self.exit_once_answered
            .store(true, std::sync::atomic::Ordering::SeqCst);
    }

    /// Called after each answer is written: shuts the daemon down if a failed start asked for
    /// it and nothing has started since.
    pub(super) fn exit_if_asked_and_idle(&self) {
        if self
            .exit_once_answered
            .swap(false, std::sync::atomic::Ordering::SeqCst)
            && matches!(*self.slot(), Slot::Empty)
            && !self.spare.is_held()
        {
            tracing::info!("no session; exiting");
            self.shutdown();
        }
    }

    /// Exits the daemon soon when it has no session, e.g. after a failed start.
    pub(super) fn exit_if_idle(self: &Arc<Self>, after: Duration) {
        let daemon = self.clone();
        tokio::spawn(async move {
            tokio::time::sleep(after).await;
            daemon.exit_if_unused();
        });
    }

    pub fn start_idle_timer(self: &Arc<Self>) {
        self.exit_if_idle(IDLE_WITHOUT_SESSION);
    }

    /// Ends the daemon a grace period after the debuggee ends, unless a restart replaced the
    /// session; reaps a launched debuggee whose adapter died.
    pub(super) fn watch_lifetime(self: &Arc<Self>, session: Arc<Session>) {
        let daemon = self.clone();
        let grace = self.config.daemon.grace_period();
        // Held weakly: a session a restart replaced must go at once, with its program's
        // channels and its adapter's remains, not a grace period later.
        let mut states = session.subscribe();
        let session = Arc::downgrade(&session);
        tokio::spawn(async move {
            let ended = states
                .wait_for(|s| s.phase.is_ended())
                .await
                .map(|s| s.clone());
            let Some(ended_session) = session.upgrade() else {
                return;
            };
            let ended = ended.is_ok_and(|state| {
                if matches!(state.phase, Phase::AdapterDied { .. }) {
                    ended_session.kill_launched_debuggee();
                }
                true
            });
            if ended {
                daemon.keep_warm(&ended_session);
            }
            drop(ended_session);
            tokio::time::sleep(grace).await;
            let Some(session) = session.upgrade() else {
                return;
            };
            let current = matches!(&*daemon.slot(), Slot::Active(s) if Arc::ptr_eq(s, &session));
            if current && session.run_state().phase.is_ended() {
                if daemon.spare.is_held() {
                    // The warm adapter's own time ends the daemon (see `warm.rs`).
                    tracing::info!("grace period over; the warm adapter stays");
                    *daemon.slot() = Slot::Empty;
                } else {
                    tracing::info!("grace period over; exiting");
                    daemon.shutdown();
                }
            }
        });
    }
}
