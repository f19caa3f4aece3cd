//! A start still launching, cancelled by `stop` (or `detach`): the adapter may take long to
//! answer `launch` (a Go build, a slow program's start-up, an adapter that hangs), and until it
//! does the session has nothing to end.
//!
//! `stop` raises the flag and waits for the slot to settle; the start drops its opening where
//! it is (`Session::open` ends the adapter it started, see `lifecycle.rs`), ends what the program
//! may have started, and answers `interrupted`. Apart from dispatch because it is a conversation
//! between two commands, one on each side.

use std::future::Future;
use std::sync::Arc;

use super::Daemon;
use super::slot::Slot;
use crate::common::error::{ErrorBody, ErrorCode};

impl Daemon {
    /// Called as the slot turns `Starting`, under its lock: a cancel from now on is this
    /// start's.
    pub(super) fn starting(&self) {
        self.start_cancel.send_replace(false);
    }

    /// Runs `opening` unless `stop` cancels it first: then it is dropped, what the program may
    /// have started meanwhile is ended, and the answer is [`cancelled`].
    pub(super) async fn unless_cancelled<T>(
        self: &Arc<Self>,
        opening: impl Future<Output = Result<T, ErrorBody>>,
    ) -> Result<T, ErrorBody> {
        let mut cancel = self.start_cancel.subscribe();
        tokio::select! {
            opened = opening => return opened,
            _ = cancel.wait_for(|cancelled| *cancelled) => {}
        }
        tracing::info!("the start was cancelled");
        if let Some(reaper) = self.reaper.clone() {
            // The adapter is gone with the opening; a program it had launched may remain.
            let _ = tokio::task::spawn_blocking(move || reaper.end_tree()).await;
        }
        Err(cancelled())
    }

    /// `stop`'s side: cancels a start still launching and waits until its slot has settled
    /// (empty, or a restart's previous session back in it).
    pub(super) async fn cancel_start(&self) {
        loop {
            let settled = self.slot_settled.notified();
            tokio::pin!(settled);
            settled.as_mut().enable();
            if !matches!(*self.slot(), Slot::Starting) {
                return;
            }
            self.start_cancel.send_replace(true);
            settled.await;
        }
    }
}

/// What the cancelled start answers.
fn cancelled() -> ErrorBody {
    ErrorBody::new(
        ErrorCode::Interrupted,
        "the start was cancelled by 'debugger stop' before the session began",
        "start it again with 'debugger start <program>'",
    )
}
