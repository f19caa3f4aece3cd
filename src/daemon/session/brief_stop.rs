//! Requests an adapter takes only while the program is stopped, sent while it runs.
//!
//! GDB refuses most requests with DAP's `notStopped` while the program runs, among them
//! `setFunctionBreakpoints`: a `break f` or a `breakpoint remove` would then not reach it, and a
//! removed breakpoint would still stop the program. So such a request is sent again inside a
//! pause the user never sees: the program is interrupted, the request sent, and the program let
//! go. The run state stays `running` throughout, and the pause's stop is never reported. Should
//! the program stop for a reason of its own first (a breakpoint), that stop is the user's and is
//! reported as usual; the request is then simply sent at it.

use std::time::Duration;

use serde_json::Value;
use tokio::sync::oneshot;

use super::Shared;
use crate::daemon::run_state::Phase;
use crate::dap::requests::{self, Continue, Encoded, Pause, Request, ThreadArguments};
use crate::dap::types::StoppedEventBody;
use crate::dap::{DapClient, DapError};

/// How long the program may take to stop for the pause.
const PAUSE_LIMIT: Duration = Duration::from_secs(5);

/// How the pause ended.
#[derive(Debug)]
pub(super) enum Ended {
    /// The program stopped for the pause, on this thread; nobody is shown that stop.
    Paused { thread_id: i64 },
    /// It stopped for a reason of its own, which is reported as any stop is.
    StoppedOtherwise,
}

/// Sends the request `R`; if the adapter refuses it only because the program runs, sends it
/// again within a pause nobody sees. Any other answer is returned as it came.
pub(super) async fn request_at_a_stop<R: Request>(
    dap: &DapClient,
    shared: &Shared,
    arguments: &R::Arguments,
) -> Result<R::Response, DapError> {
    let body = encoded_at_a_stop(dap, shared, Encoded::new::<R>(arguments)?).await?;
    requests::decode::<R>(body)
}

/// [`request_at_a_stop`] for a request already encoded (an adapter's hook sends its requests
/// so); the answer's body comes back unread.
pub(super) async fn encoded_at_a_stop(
    dap: &DapClient,
    shared: &Shared,
    request: Encoded,
) -> Result<Value, DapError> {
    let refusal = match dap.send_encoded(request.clone()).response().await {
        Err(e) if e.is_not_stopped() && shared.run.get().phase == Phase::Running => e,
        answer => return answer,
    };
    match pause_unseen(dap, shared).await? {
        Some(Ended::Paused { thread_id }) => {
            let answer = dap.send_encoded(request).response().await;
            // The user left the program running: it goes on even if the request failed.
            let resumed = dap
                .request_typed::<Continue>(&ThreadArguments { thread_id })
                .await;
            let answer = answer?;
            resumed?;
            Ok(answer)
        }
        Some(Ended::StoppedOtherwise) => dap.send_encoded(request).response().await,
        // No stop in time, or the program ended: the refusal stands.
        None => Err(refusal),
    }
}

/// Pauses the running program in a pause nobody is shown (see the module's comment), and says
/// how that ended; `None` when no stop came in time, or the program ended. A program paused so
/// is the caller's to let go.
pub(super) async fn pause_unseen(
    dap: &DapClient,
    shared: &Shared,
) -> Result<Option<Ended>, DapError> {
    let (told, ended) = oneshot::channel();
    shared.run.brief_stop_sent(told);
    let thread_id = shared.view().selection.thread.unwrap_or(1);
    if let Err(e) = dap
        .request_typed::<Pause>(&ThreadArguments { thread_id })
        .await
    {
        shared.run.forget_brief_stop();
        return Err(e);
    }
    match tokio::time::timeout(PAUSE_LIMIT, ended).await {
        Ok(Ok(ended)) => Ok(Some(ended)),
        _ => {
            shared.run.forget_brief_stop();
            Ok(None)
        }
    }
}

/// Whether a `stopped` event is the stop of a pause [`request_at_a_stop`] asked for, which no one
/// is shown. Any stop ends that pause's wait: this one, or one the program came to by itself.
pub(super) fn absorbs(shared: &Shared, stop: &StoppedEventBody) -> bool {
    let Some(told) = shared.run.take_brief_stop() else {
        return false;
    };
    let paused = stop.reason == "pause"
        || (shared.link.adapter().profile().is_interrupt_stop)(
            &stop.reason,
            stop.description.as_deref(),
        );
    let ended = if paused {
        Ended::Paused {
            thread_id: stop.thread_id.unwrap_or(1),
        }
    } else {
        Ended::StoppedOtherwise
    };
    // A waiter that gave up has already put the refusal back: nothing to tell.
    let _ = told.send(ended);
    paused
}
