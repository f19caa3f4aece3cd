//! The daemon's one session slot: empty, starting, active or ending, and what each state
//! answers a command that needs a session.
//!
//! Apart from dispatch because it is the daemon's only shared state besides the session itself:
//! a plain mutex, held for quick checks and swaps, never across an await.

use std::sync::Arc;
use std::time::Duration;

use super::Daemon;
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
}
