//! The probe's verdict: a report with a hit is a success; one without says why nothing was
//! hit (a breakpoint that never resolved, one whose file the program never loaded, the
//! timeout), which is what a caller reads first.

use crate::commands::render;
use crate::common::error::{ErrorBody, ErrorCode};
use crate::ipc::protocol::{ProbeEndReason, ProbeReport};

/// The probe's rule for its exit status (docs/cli.md, `probe`): a report with at least one hit is
/// a success; with none it is a failure that says why (exit 1, or 3 when the timeout came first);
/// an interrupted probe fails as interrupted commands do (130).
pub(super) fn verdict(report: &ProbeReport) -> Option<ErrorBody> {
    if report.ended.reason == ProbeEndReason::Interrupted {
        return Some(ErrorBody::new(
            ErrorCode::Interrupted,
            format!("the probe was {}", report.ended.message),
            "the report shows what was recorded before the interrupt",
        ));
    }
    if !report.hits.is_empty() {
        return None;
    }
    let mut message = format!("no breakpoint was hit ({})", report.ended.message);
    let mut pending = false;
    let unloaded = &report.ended.unloaded_breakpoints;
    // A breakpoint pending because its file never loaded is said so below.
    let pending_here = |id| !unloaded.iter().any(|u| u.id == id);
    for bp in report
        .breakpoints
        .iter()
        .filter(|b| !b.verified && pending_here(b.id))
    {
        pending = true;
        message.push_str(&format!(
            "; breakpoint {} ({}) never resolved",
            bp.id, bp.location
        ));
        if let Some(why) = &bp.message {
            message.push_str(&format!(": {why}"));
        }
    }
    for bp in unloaded {
        message.push_str("; ");
        message.push_str(&render::unloaded_line(bp));
    }
    let timed_out = report.ended.reason == ProbeEndReason::Timeout;
    let hint = if pending {
        "check the location: FILE:LINE must name a line with code, FUNCTION a function the program has"
    } else if !unloaded.is_empty() {
        "break in the file the program loads (the one it ran), or have it load the one you named"
    } else if timed_out {
        "give the program longer with --timeout S, or check that it reaches the breakpoint"
    } else {
        "check that the program reaches the breakpoint with these arguments; the report ends with its output"
    };
    let code = if timed_out {
        ErrorCode::Timeout
    } else {
        ErrorCode::NotHit
    };
    Some(ErrorBody::new(code, message, hint))
}
