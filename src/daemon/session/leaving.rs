//! What an adapter needs done before the session leaves its program running (`stop` on an
//! attached program, `detach`): see [`Profile::before_leaving`].

use super::brief_stop::{self, Ended};
use crate::adapters::{LeavingCall, Profile};
use crate::daemon::run_state::Phase;
use crate::daemon::session::Shared;
use crate::dap::DapClient;
use crate::dap::requests::{Evaluate, EvaluateArguments, StackTrace, StackTraceArguments};

/// Runs the profile's expression in the first frame of the stopped thread that evaluates it; a
/// program that runs is paused for it first, in a pause nobody is shown, and the `disconnect`
/// that follows lets it go.
pub(super) async fn prepare(dap: &DapClient, shared: &Shared, profile: &Profile) {
    let Some(LeavingCall { expression, answer }) = profile.before_leaving else {
        return;
    };
    let thread_id = match shared.run.get().phase {
        Phase::Stopped(stop) => stop.thread_id.unwrap_or(1),
        Phase::Running => match brief_stop::pause_unseen(dap, shared).await {
            Ok(Some(Ended::Paused { thread_id })) => thread_id,
            Ok(Some(Ended::StoppedOtherwise)) => match shared.run.get().phase {
                Phase::Stopped(stop) => stop.thread_id.unwrap_or(1),
                _ => return,
            },
            _ => {
                tracing::warn!("the program did not pause: {expression} not run before leaving");
                return;
            }
        },
        _ => return,
    };
    let arguments = StackTraceArguments {
        thread_id,
        start_frame: 0,
        levels: 0,
    };
    let Ok(stack) = dap.request_typed::<StackTrace>(&arguments).await else {
        return;
    };
    for frame in stack.stack_frames {
        let evaluate = EvaluateArguments::repl(expression, Some(frame.id));
        // A frame that cannot evaluate may say so as a result, not as a failure (rdbg's
        // "Error: Can not evaluate on this frame"), so what the expression returns tells.
        match dap.request_typed::<Evaluate>(&evaluate).await {
            Ok(body) if body.result.contains(answer) => return,
            _ => {}
        }
    }
    tracing::warn!("no frame could run {expression} before the session left the program");
}
