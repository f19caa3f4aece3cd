//! `probe`'s one report. Apart from the session results because a probe has no session to ask
//! later: the report holds every stop's stack, locals and prints, and the end of the output.

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
    /// `hits_reached`, `exited`, `terminated`, `timeout`, `interrupted`, `adapter_died` or `error`.
    pub reason: String,
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

/// The end of the program's output.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct ProbeOutput {
    /// Its last lines (stdout and stderr as they came), bounded in lines and bytes.
    pub tail: String,
    /// Bytes of output before `tail` that are not shown.
    pub omitted_bytes: u64,
}
