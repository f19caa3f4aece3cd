//! The messages the CLI and the daemon exchange, and the typed results commands return.
//!
//! A [`Request`] carries one [`Command`]; the daemon answers with one [`Response`] whose result is
//! the command's result serialised as JSON, or an [`ErrorBody`]. The result structs here are also
//! the `data` of the CLI's `--json` output, so their field names are a public contract
//! (docs/json.md): add fields freely, never rename.

use std::path::PathBuf;

use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::common::error::ErrorBody;
use crate::common::location::Location;

#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Request {
    pub id: u64,
    pub command: Command,
}

#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Response {
    pub id: u64,
    pub result: Result<Value, ErrorBody>,
}

/// Everything the CLI can ask of a daemon.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(tag = "command", rename_all = "snake_case")]
pub enum Command {
    Start(LaunchSpec),
    Attach(AttachSpec),
    Status,
    Stop,
    Detach,
    Restart,
    BreakpointAdd(BreakpointSpec),
    /// Several at once (`breakpoint add LOC LOC...`): each file's list goes to the adapter once.
    BreakpointAddMany {
        specs: Vec<BreakpointSpec>,
    },
    BreakpointRemove {
        ids: Vec<u32>,
        all: bool,
    },
    BreakpointList,
    BreakpointEnable {
        ids: Vec<u32>,
        enabled: bool,
    },
    /// `continue`, `next`, `step`, `finish`.
    Resume {
        action: ResumeAction,
        wait: Option<WaitSpec>,
    },
    Pause {
        wait: Option<WaitSpec>,
    },
    Await(WaitSpec),
    Context,
    Backtrace {
        limit: u32,
        thread: Option<i64>,
    },
    Threads,
    SelectThread {
        id: i64,
    },
    SelectFrame(FrameSelection),
    Locals {
        depth: u32,
    },
    Evaluate {
        expression: String,
        depth: u32,
    },
    OutputRead(OutputQuery),
    /// Text for the adapter's own console (DAP `evaluate` in the `repl` context).
    Raw {
        text: String,
    },
    /// Changes a variable (or any assignable expression) in the selected frame.
    SetVariable {
        name: String,
        value: String,
    },
    /// Lists the adapter's exception filters; with `filters`, sets exactly those.
    Catch {
        filters: Option<Vec<String>>,
    },
    /// Reads `count` bytes at an address, or where an expression's value points.
    MemoryRead {
        target: String,
        count: u32,
    },
    /// Disassembles `count` instructions around the selected frame's pc (`target` `None`), or
    /// from an address or expression.
    Disassemble {
        target: Option<String>,
        count: u32,
    },
}

/// The bytes `memory read` reads when not told.
pub const MEMORY_READ_DEFAULT: u32 = 64;
/// The most bytes one `memory read` may ask for: a hexdump longer than this is no longer read.
pub const MEMORY_READ_MAX: u32 = 64 * 1024;
/// The instructions `disassemble` shows when not told.
pub const DISASSEMBLE_DEFAULT: u32 = 16;
/// The most instructions one `disassemble` may ask for.
pub const DISASSEMBLE_MAX: u32 = 1000;

/// How to launch a program. The CLI fills in its own working directory and environment, so the
/// debuggee runs where and how the user would have run it, not where the daemon happens to be.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct LaunchSpec {
    /// Absolute path (resolved by the CLI against its own working directory).
    pub program: PathBuf,
    pub args: Vec<String>,
    pub cwd: PathBuf,
    /// The complete environment of the debuggee.
    pub env: Vec<(String, String)>,
    pub adapter: Option<String>,
    pub stop_on_entry: bool,
    pub breakpoints: Vec<BreakpointSpec>,
    /// Talk to an adapter already listening at HOST:PORT instead of starting one.
    #[serde(default)]
    pub connect: Option<String>,
    /// Step and stop only in the user's own code, where the adapter supports it (debugpy).
    #[serde(default = "yes")]
    pub just_my_code: bool,
}

fn yes() -> bool {
    true
}

#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct AttachSpec {
    /// The process to attach to; optional with `connect` (the adapter knows its process).
    pub pid: Option<u32>,
    pub adapter: Option<String>,
    pub breakpoints: Vec<BreakpointSpec>,
    /// Talk to an adapter already listening at HOST:PORT instead of starting one.
    #[serde(default)]
    pub connect: Option<String>,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct BreakpointSpec {
    pub location: Location,
    /// The location as the user typed it, when the file in `location` was resolved from it.
    #[serde(default)]
    pub requested: Option<String>,
    pub condition: Option<String>,
    /// Stop only on this hit (and after): DAP's `hitCondition`.
    pub hit_count: Option<u32>,
    /// A logpoint: log this message (with `{expr}` interpolated) instead of stopping.
    #[serde(default)]
    pub log_message: Option<String>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ResumeAction {
    Continue,
    Next,
    Step,
    Finish,
}

impl ResumeAction {
    pub fn verb(self) -> &'static str {
        match self {
            ResumeAction::Continue => "continue",
            ResumeAction::Next => "next",
            ResumeAction::Step => "step",
            ResumeAction::Finish => "finish",
        }
    }
}

/// Wait for the next stop or exit, at most this long.
#[derive(Debug, Clone, Copy, Serialize, Deserialize)]
pub struct WaitSpec {
    pub timeout_secs: f64,
}

#[derive(Debug, Clone, Copy, Serialize, Deserialize)]
#[serde(tag = "to", rename_all = "snake_case")]
pub enum FrameSelection {
    Index { index: u32 },
    Up { count: u32 },
    Down { count: u32 },
}

/// A read of the program's output buffer. Offsets count bytes since the session started.
#[derive(Debug, Clone, Copy, Serialize, Deserialize)]
pub struct OutputQuery {
    /// Read from this offset; `None` reads from the oldest byte still held.
    pub from: Option<u64>,
    /// Read only the last N lines held (ignored when `from` is set).
    pub tail_lines: Option<u32>,
    /// The most bytes to return in one answer; the caller pages with `next`.
    pub max_bytes: u32,
    /// Drop what this read returned from the buffer.
    pub clear: bool,
    /// Block until there is output past `from`, or the program has ended.
    pub wait: bool,
}

// ---- results -------------------------------------------------------------------------------

/// What a started or attached session looks like.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct StartResult {
    pub session: String,
    pub program: Option<String>,
    pub adapter: String,
    pub state: String,
    pub daemon_pid: u32,
    pub adapter_pid: Option<u32>,
    pub debuggee_pid: Option<u32>,
    pub breakpoints: Vec<BreakpointInfo>,
    /// The entry stop, when the session was started with `--stop-on-entry`.
    pub stop: Option<StopReport>,
}

#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct StatusResult {
    pub session: String,
    /// `starting`, `running`, `stopped`, `exited`, `terminated` or `adapter_died`.
    pub state: String,
    pub program: Option<String>,
    pub adapter: Option<String>,
    pub daemon_pid: u32,
    pub adapter_pid: Option<u32>,
    pub debuggee_pid: Option<u32>,
    pub stop: Option<StopReport>,
    pub exit_code: Option<i64>,
    /// Why the session ended, when the adapter died.
    pub detail: Option<String>,
    pub log_file: String,
}

#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct BreakpointInfo {
    pub id: u32,
    /// `line`, `function` or `watch`.
    pub kind: String,
    /// The location as the user gave it (for a watchpoint, the watched expression).
    pub location: String,
    /// What the user typed, before the file was resolved (`inventory.py:5`).
    #[serde(default)]
    pub requested: Option<String>,
    pub file: Option<String>,
    pub line: Option<u32>,
    pub function: Option<String>,
    pub condition: Option<String>,
    pub hit_count: Option<u32>,
    pub enabled: bool,
    pub verified: bool,
    /// The adapter's reason when unverified.
    pub message: Option<String>,
    /// Where the adapter actually placed it, when it moved it.
    pub resolved_line: Option<u32>,
    /// A logpoint's message: it logs this instead of stopping.
    #[serde(default)]
    pub log_message: Option<String>,
    /// A watchpoint's access that stops: `write`, `read` or `readWrite`.
    #[serde(default)]
    pub access: Option<String>,
    /// A watchpoint's data as the adapter describes it, e.g. "g_counter (4 bytes)".
    #[serde(default)]
    pub watching: Option<String>,
}

#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct BreakpointList {
    pub breakpoints: Vec<BreakpointInfo>,
}

#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct RemovedBreakpoints {
    pub removed: Vec<u32>,
}

/// A stop, or the end of the program.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct StopReport {
    /// `breakpoint`, `step`, `pause`, `entry`, `exception`, `exited`, `terminated`, `adapter_died`, ...
    pub reason: String,
    pub description: Option<String>,
    pub thread_id: Option<i64>,
    pub thread_name: Option<String>,
    pub frame: Option<FrameInfo>,
    pub source: Option<SourceSnippet>,
    /// Our ids of the breakpoints that caused the stop.
    pub breakpoint_ids: Vec<u32>,
    pub exit_code: Option<i64>,
    /// A remark on how this report came about (e.g. a stop that happened before a `continue`).
    pub note: Option<String>,
    /// For a stop on an exception: what was raised, when the adapter says.
    #[serde(default)]
    pub exception: Option<ExceptionInfo>,
    /// For a stop on a watchpoint: the watched expressions' values before and now.
    #[serde(default)]
    pub watch: Vec<WatchChange>,
}

/// What a watchpoint saw change.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct WatchChange {
    pub breakpoint_id: u32,
    pub expression: String,
    /// The value when it was last seen (set, or the previous hit); absent when unknown.
    pub old_value: Option<String>,
    /// The value now; absent when it cannot be read from here (e.g. a local out of scope).
    pub new_value: Option<String>,
}

/// An exception the program stopped on (DAP `exceptionInfo`).
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct ExceptionInfo {
    /// The exception's type or id, e.g. `ZeroDivisionError`.
    #[serde(rename = "type")]
    pub type_name: String,
    /// Its message, e.g. `division by zero`.
    pub message: Option<String>,
}

#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct FrameInfo {
    pub index: u32,
    pub function: String,
    pub file: Option<String>,
    pub line: Option<u32>,
    pub column: Option<u32>,
    pub address: Option<String>,
}

#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct SourceSnippet {
    pub file: String,
    pub first_line: u32,
    pub current_line: u32,
    pub lines: Vec<String>,
}

/// The answer of `continue`, `next`, `step`, `finish` and `pause`.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct ExecutionResult {
    pub action: String,
    /// The state after the command: `running` without `--wait`, else the state at the stop.
    pub state: String,
    pub stop: Option<StopReport>,
}

#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct BacktraceResult {
    pub thread_id: i64,
    pub frames: Vec<FrameInfo>,
    /// How many frames the thread has, when the adapter says.
    pub total_frames: Option<u32>,
    pub selected_frame: Option<u32>,
}

#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct ThreadInfo {
    pub id: i64,
    pub name: String,
    pub selected: bool,
    /// The top frame, when the program is stopped.
    pub frame: Option<FrameInfo>,
}

#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct ThreadsResult {
    pub threads: Vec<ThreadInfo>,
}

/// The answer of `thread`, `frame`, `up`, `down` and `context`: where the selection points.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct ContextResult {
    pub state: String,
    pub reason: Option<String>,
    pub thread_id: i64,
    pub thread_name: Option<String>,
    pub frame: FrameInfo,
    pub source: Option<SourceSnippet>,
    /// Filled by `context` only.
    pub variables: Option<Vec<VariableNode>>,
    /// The exception the program stopped on, if it did.
    #[serde(default)]
    pub exception: Option<ExceptionInfo>,
}

/// One variable, expanded to a bounded depth.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct VariableNode {
    pub name: String,
    pub value: String,
    #[serde(rename = "type")]
    pub type_name: Option<String>,
    /// Expanded children (empty when not expanded or none).
    pub children: Vec<VariableNode>,
    /// True when the value has children that were not expanded (depth reached).
    pub expandable: bool,
    /// How many children were left out because of the cap.
    pub omitted_children: u64,
}

#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct LocalsResult {
    pub scope: String,
    pub variables: Vec<VariableNode>,
    /// Variables left out of the list because of the cap.
    pub omitted: u64,
}

#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct EvaluateResult {
    pub expression: String,
    pub value: String,
    #[serde(rename = "type")]
    pub type_name: Option<String>,
    pub children: Vec<VariableNode>,
    pub omitted_children: u64,
}

#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct OutputChunk {
    pub text: String,
    /// The offset of `text`'s first byte.
    pub start: u64,
    /// The offset to read from next.
    pub next: u64,
    /// Bytes between the requested offset and `start` that the buffer had already dropped.
    pub skipped: u64,
    /// Bytes dropped since the session started because the buffer was full.
    pub dropped_total: u64,
    /// More output is held past `next` (page again).
    pub more: bool,
    /// The program has ended and everything has been read.
    pub finished: bool,
}

#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct RawResult {
    /// What the adapter's console answered.
    pub output: String,
}

#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct SetResult {
    pub name: String,
    /// The new value, as the adapter shows it.
    pub value: String,
    #[serde(rename = "type")]
    pub type_name: Option<String>,
}

/// One of the adapter's exception filters (DAP `exceptionBreakpointFilters`).
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct ExceptionFilter {
    pub filter: String,
    pub label: String,
    pub description: Option<String>,
    pub enabled: bool,
}

#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct CatchResult {
    pub adapter: String,
    pub filters: Vec<ExceptionFilter>,
}

/// What `memory read` read.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct MemoryResult {
    /// The address or expression as the user gave it.
    pub expression: String,
    /// The address of the first byte (`0x` and lower-case hex).
    pub address: String,
    /// How many bytes were read.
    pub count: u64,
    /// The bytes read, two lower-case hex digits each, no separators.
    pub bytes: String,
    /// How many bytes asked for after those could not be read (0 when all were).
    pub unreadable: u64,
}

/// What `disassemble` shows.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct DisassemblyResult {
    /// The address or expression as the user gave it; `None` for the selected frame's pc.
    pub expression: Option<String>,
    /// Where the listing was asked for: the pc, or the address the expression gave.
    pub address: String,
    /// The selected frame, when disassembling at its pc.
    pub frame: Option<FrameInfo>,
    pub instructions: Vec<InstructionInfo>,
    /// A remark on the listing, e.g. why no instructions before the pc are shown.
    pub note: Option<String>,
}

/// One disassembled instruction.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct InstructionInfo {
    /// `0x` and lower-case hex.
    pub address: String,
    /// As the adapter writes it (`movq -0x18(%rbp), %rax`, `SUBQ $0x18, SP`).
    pub instruction: String,
    /// The instruction's bytes, two lower-case hex digits each, when the adapter gives them.
    pub bytes: Option<String>,
    /// The symbol the adapter names for it, if any.
    pub symbol: Option<String>,
    /// The source file and line, where the adapter gives them (usually on a line's first instruction).
    pub file: Option<String>,
    pub line: Option<u32>,
    /// This is the selected frame's pc.
    pub current: bool,
}

#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct MessageResult {
    pub message: String,
}

// ---- probe ---------------------------------------------------------------------------------

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
    /// The breakpoints' final state: one that never resolved says why in `message`.
    pub breakpoints: Vec<BreakpointInfo>,
    pub output: ProbeOutput,
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
    /// One line for people: e.g. "the program exited with code 3".
    pub message: String,
}

/// The end of the program's output.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct ProbeOutput {
    /// Its last lines (stdout and stderr as they came), bounded in lines and bytes.
    pub tail: String,
    /// Bytes of output before `tail` that are not shown.
    pub omitted_bytes: u64,
}
