//! `probe --on-crash`'s one report: how the run ended and, for a crash, everything a CI log
//! needs to explain it, since there is no session to ask afterwards.

use serde::{Deserialize, Serialize};

use super::{
    BacktraceResult, FrameInfo, ProbeEnd, ProbeOutput, ProbePrint, SourceSnippet, StopReport,
    VariableNode,
};

/// What `probe --on-crash` saw.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct CrashReport {
    pub program: String,
    pub adapter: String,
    /// Whether the program crashed: died by (or stopped on) a fatal signal, an uncaught
    /// exception or a panic.
    pub crashed: bool,
    /// How the run ended: reason `crashed`, `exited`, `terminated`, `timeout`, `interrupted`,
    /// `adapter_died` or `error`; an exit's code; the signal of a death by one.
    pub ended: ProbeEnd,
    /// The stop on the crash, as `await` reports it (absent when the program died without the
    /// adapter stopping it first).
    pub stop: Option<StopReport>,
    /// The crashing frame: the innermost of the program's own (not the C library's or the
    /// runtime's that raised the signal), where the locals and prints were read.
    pub crash_frame: Option<FrameInfo>,
    /// The source around the crashing frame's line.
    pub crash_source: Option<SourceSnippet>,
    /// Every thread's stack, the crashed thread's first.
    pub threads: Vec<BacktraceResult>,
    /// The crashing frame's locals, one level of children expanded.
    pub locals: Vec<VariableNode>,
    pub locals_omitted: u64,
    /// Each `--print`, evaluated in the crashing frame.
    pub prints: Vec<ProbePrint>,
    /// The core file written with `--core-dir`.
    pub core_file: Option<String>,
    /// What could not be read or written (a stack, the locals, the core), in the adapter's words.
    pub errors: Vec<String>,
    pub output: ProbeOutput,
}
