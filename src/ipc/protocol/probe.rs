//! `probe`'s one report. Apart from the session results because a probe has no session to ask
//! later: the report holds every stop's stack, locals and prints, and the end of the output.

use std::fmt;

use serde::{Deserialize, Serialize};

use super::{BreakpointInfo, FrameInfo, StopReport, VariableNode};

/// The one report of `probe`: what each breakpoint hit showed, how the probe ended, where the
/// breakpoints stand, and the end of the program's output (there is no session to ask later).
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct ProbeReport {
    pub program: String,
    pub adapter: String,
    /// The hits asked for (`--hits`): the probe ends once this many are recorded.
    pub hits_wanted: u32,
    /// One entry per breakpoint hit, in order (hit 1 first).
    pub hits: Vec<ProbeStop>,
    /// Stops at no breakpoint (an exception, a signal), in order; the probe continued after each.
    pub other_stops: Vec<ProbeOtherStop>,
    /// Further such stops, continued past without being recorded.
    pub other_stops_omitted: u32,
    pub ended: ProbeEnd,
    /// With `--test`: what the test's failure said (a panic's or exception's message, the line
    /// a Go test logged), when the probe stopped at the failure and the message was found.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub failure: Option<String>,
    /// With `--test`: the one hit is the test's failure (`--break-on-failure`), not a `-b`
    /// breakpoint's: a failure is an exception, a signal or a failure function's breakpoint,
    /// and its stop shows the test's frame, so only this says what the hit was.
    #[serde(default)]
    pub at_failure: bool,
    /// The breakpoints' final state: one that never resolved says why in `message`.
    pub breakpoints: Vec<BreakpointInfo>,
    pub output: ProbeOutput,
    /// The program ran on the warm adapter of the session's daemon (`[daemon]
    /// warm_adapter_secs`) rather than one the probe started.
    #[serde(default)]
    pub warm: bool,
}

/// What one stop showed.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct ProbeStop {
    /// Where and why the program stopped.
    pub stop: StopReport,
    /// The top of the stopped thread's stack (frame 0 first).
    pub frames: Vec<FrameInfo>,
    /// How many frames the stack has, when the adapter says.
    pub total_frames: Option<u32>,
    /// The innermost frame's locals, one level of children expanded.
    pub locals: Vec<VariableNode>,
    pub locals_omitted: u64,
    /// Each `--print` expression, in the order given.
    pub prints: Vec<ProbePrint>,
    /// What could not be read at this stop (the stack, the locals), in the adapter's words.
    pub errors: Vec<String>,
}

/// A stop at no breakpoint, placed among the hits.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct ProbeOtherStop {
    /// How many hits had been recorded before it.
    pub after_hits: u32,
    #[serde(flatten)]
    pub recorded: ProbeStop,
}

/// One `--print` expression at one stop: its value, or why it has none.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct ProbePrint {
    pub expression: String,
    pub value: Option<String>,
    #[serde(rename = "type")]
    pub type_name: Option<String>,
    pub children: Vec<VariableNode>,
    pub omitted_children: u64,
    /// As [`VariableNode::methods_omitted`].
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub methods_omitted: bool,
    /// The evaluation's error (then `value` is null).
    pub error: Option<String>,
}

/// How a probe ended.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct ProbeEnd {
    pub reason: ProbeEndReason,
    /// The program's exit code, when it exited by itself.
    pub exit_code: Option<i64>,
    /// The signal that killed the program, when one did.
    #[serde(default)]
    pub signal: Option<super::SignalInfo>,
    /// One line for people: e.g. "the program exited with code 3".
    pub message: String,
    /// For a program that ran to its end: the breakpoints whose file it never loaded (see
    /// `StopReport`'s).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub unloaded_breakpoints: Vec<super::UnloadedBreakpoint>,
}

/// Why a probe ended, written in `--json` by its snake_case name (`hits_reached`, ...).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ProbeEndReason {
    /// The `--hits` wanted were recorded.
    HitsReached,
    /// The program exited by itself, or was killed by a signal (then `signal` names it).
    Exited,
    /// The program ended in a way its adapter did not tell.
    Terminated,
    /// `probe --on-crash`: the program crashed.
    Crashed,
    /// `--timeout` came first.
    Timeout,
    /// A signal (Ctrl-C) ended the probe.
    Interrupted,
    AdapterDied,
    /// Any other failure to go on, told in `message`.
    Error,
}

impl ProbeEndReason {
    /// The name users and `--json` see.
    pub fn as_str(self) -> &'static str {
        match self {
            ProbeEndReason::HitsReached => "hits_reached",
            ProbeEndReason::Exited => "exited",
            ProbeEndReason::Terminated => "terminated",
            ProbeEndReason::Crashed => "crashed",
            ProbeEndReason::Timeout => "timeout",
            ProbeEndReason::Interrupted => "interrupted",
            ProbeEndReason::AdapterDied => "adapter_died",
            ProbeEndReason::Error => "error",
        }
    }

    /// The adapter died or the probe failed otherwise: ends that a signal to the process
    /// group may have caused.
    pub fn is_failure(self) -> bool {
        matches!(self, ProbeEndReason::AdapterDied | ProbeEndReason::Error)
    }
}

impl fmt::Display for ProbeEndReason {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.pad(self.as_str())
    }
}

/// The end of the program's output.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct ProbeOutput {
    /// Its last lines (stdout and stderr as they came), bounded in lines and bytes.
    pub tail: String,
    /// Bytes of output before `tail` that are not shown.
    pub omitted_bytes: u64,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn end_reasons_are_written_by_their_names() {
        let reasons = [
            ProbeEndReason::HitsReached,
            ProbeEndReason::Exited,
            ProbeEndReason::Terminated,
            ProbeEndReason::Crashed,
            ProbeEndReason::Timeout,
            ProbeEndReason::Interrupted,
            ProbeEndReason::AdapterDied,
            ProbeEndReason::Error,
        ];
        let names = [
            "hits_reached",
            "exited",
            "terminated",
            "crashed",
            "timeout",
            "interrupted",
            "adapter_died",
            "error",
        ];
        for (reason, name) in reasons.into_iter().zip(names) {
            let json = serde_json::to_string(&reason).unwrap_or_default();
            assert_eq!(json, format!("\"{name}\""));
            assert_eq!(
                serde_json::from_str::<ProbeEndReason>(&json).ok(),
                Some(reason)
            );
            assert_eq!(reason.to_string(), name);
        }
    }
}
