//! A stop at a test's failure function (the session's own breakpoint, see `TestLaunch`), judged
//! before anyone is told of it: a failure function called by itself is the same failure going
//! on (Go's `Fail` of a subtest calls its parent test's `Fail`), which the user has been shown
//! already, so the program runs on unseen; any other is told as the failure.

use crate::daemon::run_state::StopInfo;
use crate::dap::DapClient;
use crate::dap::requests::{Continue, StackTrace, StackTraceArguments, ThreadArguments};

/// Whether the stop at a failure function is the same failure going on, and the program was
/// run on unseen; otherwise the stop is the failure, to be told.
pub(super) async fn ran_on(dap: &DapClient, stop: &StopInfo, thread: Option<i64>) -> bool {
    if let Some(thread_id) = stop.thread_id.or(thread)
        && called_by_itself(dap, thread_id).await
    {
        match dap
            .request_typed::<Continue>(&ThreadArguments { thread_id })
            .await
        {
            Ok(_) => return true,
            // Left stopped: told as the stop it is rather than not at all.
            Err(e) => tracing::warn!("running on from a nested failure function failed: {e}"),
        }
    }
    false
}

/// Whether the innermost frame's caller is the same function.
async fn called_by_itself(dap: &DapClient, thread_id: i64) -> bool {
    let arguments = StackTraceArguments {
        thread_id,
        start_frame: 0,
        levels: 2,
    };
    match dap.request_typed::<StackTrace>(&arguments).await {
        Ok(body) => match body.stack_frames.as_slice() {
            [inner, caller, ..] => inner.name == caller.name,
            _ => false,
        },
        Err(_) => false,
    }
}
