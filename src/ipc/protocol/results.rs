//! The results the daemon answers with: each command's typed result, which is also the `data` of
//! the CLI's `--json` output (docs/json.md), so field names are a public contract: add fields
//! freely, never rename.

use serde::{Deserialize, Serialize};

use super::{Machinery, SessionState, StopReason};
use crate::common::location::DataAccess;

/// What a started or attached session looks like.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct StartResult {
    pub session: String,
    pub program: Option<String>,
    pub adapter: String,
    pub state: SessionState,
    pub daemon_pid: u32,
    pub adapter_pid: Option<u32>,
    pub debuggee_pid: Option<u32>,
    pub breakpoints: Vec<BreakpointInfo>,
    /// The first stop or the end, when the program reached it within the wait (`start` and
    /// `restart`), or was started with `--stop-on-entry`; the report the execution commands
    /// give, and it counts as shown (a `continue` then runs on from it).
    pub stop: Option<StopReport>,
    /// How long `start` or `restart` waited for a first stop that did not come; absent when it
    /// did not wait (`--no-wait`, `attach`) or the stop came.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub waited_secs: Option<f64>,
    /// The session runs on the adapter the daemon kept warm (`[daemon] warm_adapter_secs`)
    /// rather than one it started for it.
    #[serde(default)]
    pub warm: bool,
}

/// The daemon's warm adapter, lent to a `probe` (`Command::Lend`).
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct LendResult {
    pub adapter_pid: Option<u32>,
    /// What the adapter answered to `initialize`, as the session reads it.
    pub capabilities: serde_json::Value,
    /// For an adapter kept launched: where its launch stands.
    #[serde(default)]
    pub kept: Option<KeptLaunch>,
    /// The events it sent while it was made ready (a kept launch's too), for the session to
    /// read first.
    #[serde(default)]
    pub events: Vec<serde_json::Value>,
    /// The first `seq` its stream has not seen, for the session's own requests.
    #[serde(default)]
    pub next_seq: i64,
}

/// A launch a warm adapter was sent ahead of its session and holds at `initialized` (see
/// `kept_launch.rs` in the daemon's session): what the session that takes it picks up.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct KeptLaunch {
    /// The `seq` the `launch` went with, whose answer is still to come (debugpy answers after
    /// `configurationDone`); `None`: it was answered, with success, before `initialized`.
    pub launch_seq: Option<i64>,
    /// The program's process, as the adapter's `process` event or the program itself told it.
    pub program_pid: Option<u32>,
}

/// The adapter a daemon keeps warm for the next session.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct WarmAdapterInfo {
    pub adapter: String,
    /// Its process; `None` while it is still being started.
    pub adapter_pid: Option<u32>,
    /// How long it is kept before it is ended.
    pub secs_left: f64,
    /// For a kept launch: the program it has launched, and that program's process.
    #[serde(default)]
    pub program: Option<String>,
    #[serde(default)]
    pub debuggee_pid: Option<u32>,
}

#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct StatusResult {
    pub session: String,
    /// Any but `pausing`; `warm` only in `sessions`.
    pub state: SessionState,
    pub program: Option<String>,
    pub adapter: Option<String>,
    pub daemon_pid: u32,
    pub adapter_pid: Option<u32>,
    pub debuggee_pid: Option<u32>,
    pub stop: Option<StopReport>,
    pub exit_code: Option<i64>,
    /// The signal that killed the program, when one did.
    #[serde(default)]
    pub signal: Option<SignalInfo>,
    /// What the exit code may mean besides an exit with it (the exit report's `note`: debugpy
    /// tells a death by signal N as 256 - N).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub exit_note: Option<String>,
    /// Why the session ended, when the adapter died.
    pub detail: Option<String>,
    pub log_file: String,
    /// The adapter the daemon keeps warm for the next session, if any.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub warm: Option<WarmAdapterInfo>,
    /// In state `evaluating`: the evaluation the program runs.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub evaluating: Option<EvaluatingInfo>,
}

/// An evaluation that did not return within its limit and that the adapter could not
/// interrupt: the program runs it until it returns.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct EvaluatingInfo {
    /// The expression, as given.
    pub expression: String,
    /// How long it has run, in seconds.
    pub secs: f64,
}

/// What a breakpoint is set on, written in `--json` by its lowercase name (`line`, ...).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum BreakpointKind {
    /// A file's line.
    Line,
    /// A function, by name.
    Function,
    /// A watchpoint: data, when it is accessed.
    Watch,
}

#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct BreakpointInfo {
    pub id: u32,
    pub kind: BreakpointKind,
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
    pub access: Option<DataAccess>,
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
    pub reason: StopReason,
    pub description: Option<String>,
    pub thread_id: Option<i64>,
    pub thread_name: Option<String>,
    pub frame: Option<FrameInfo>,
    pub source: Option<SourceSnippet>,
    /// Our ids of the breakpoints that caused the stop.
    pub breakpoint_ids: Vec<u32>,
    /// For a stop at a breakpoint whose condition could not be evaluated (the program stops
    /// there, at every hit until the condition is changed): `condition 'C' failed: <error>`.
    #[serde(default)]
    pub condition_error: Option<String>,
    pub exit_code: Option<i64>,
    /// A remark on how this report came about (e.g. a stop that happened before a `continue`).
    pub note: Option<String>,
    /// For a stop on an exception: what was raised, when the adapter says.
    #[serde(default)]
    pub exception: Option<ExceptionInfo>,
    /// For a stop on a watchpoint: the watched expressions' values before and now.
    #[serde(default)]
    pub watch: Vec<WatchChange>,
    /// The stopped frame's locals, as `locals` reads them but bounded (about a screenful of
    /// lines; the changed ones first to be kept), each marked `changed` as `locals` marks it.
    /// Empty with `--locals none`, and only the changed ones with `--locals changed`.
    #[serde(default)]
    pub locals: Vec<VariableNode>,
    /// The locals left out of `locals` by its bound (`debugger locals` lists them all).
    #[serde(default)]
    pub locals_omitted: u64,
    /// For a report that read the locals: those of the frame it stopped in that changed since
    /// that frame's previous stop (all of them, not bounded as `locals` is). Absent when there
    /// was no earlier stop of that frame to compare with.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub changed: Option<Vec<VariableNode>>,
    /// The session's displays evaluated in the stopped frame, in id order, then the report's
    /// one-off `-p` expressions (no id). Empty for an end and in reports that evaluate none
    /// (`status`, `probe`'s hits).
    #[serde(default)]
    pub displays: Vec<super::DisplayValue>,
    /// For a stop on a signal, or an end by one: which (then `exit_code` is null).
    #[serde(default)]
    pub signal: Option<SignalInfo>,
    /// For a core dump's stop (reason `core`) on a memory fault: the address whose access
    /// killed the process (`0x0` for a NULL dereference), when the core holds it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub fault_address: Option<String>,
    /// For a core dump's stop on SIGABRT: the C library's message (a failed `assert`'s), when
    /// the core holds one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub abort_message: Option<String>,
    /// For an exit with a code other than 0: the last lines the program wrote to stderr, where
    /// its reason usually is (a Python `SyntaxError`, a Rust panic's message), so the report
    /// says why without an `output` call.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub stderr_tail: Option<String>,
    /// For a `finish` waited for: the value the function returned, as the adapter shows it,
    /// and its type where known.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub return_value: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub return_type: Option<String>,
    /// For a `finish` waited for whose adapter cannot tell the value returned: why.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub return_value_unknown: Option<String>,
    /// For an end: the breakpoints whose file the program never loaded (`UnloadedBreakpoint`).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub unloaded_breakpoints: Vec<super::UnloadedBreakpoint>,
}

impl StopReport {
    /// A report of `reason` with nothing else known yet.
    pub fn empty(reason: StopReason) -> StopReport {
        StopReport {
            reason,
            description: None,
            thread_id: None,
            thread_name: None,
            frame: None,
            source: None,
            breakpoint_ids: Vec::new(),
            condition_error: None,
            exit_code: None,
            note: None,
            exception: None,
            watch: Vec::new(),
            locals: Vec::new(),
            locals_omitted: 0,
            changed: None,
            displays: Vec::new(),
            signal: None,
            fault_address: None,
            abort_message: None,
            stderr_tail: None,
            return_value: None,
            return_type: None,
            return_value_unknown: None,
            unloaded_breakpoints: Vec::new(),
        }
    }
}

/// A signal the program stopped on or was killed by.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq, Eq)]
pub struct SignalInfo {
    pub number: i32,
    /// `SIGSEGV`; absent when this OS has no name for the number.
    pub name: Option<String>,
}

impl SignalInfo {
    pub fn of(number: i32) -> SignalInfo {
        SignalInfo {
            number,
            name: crate::platform::signal_name(number).map(str::to_string),
        }
    }
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
    /// Where the code runs, when `file`/`line` are the source it was compiled from (a source
    /// map's original: `app.ts:12` running as `dist/app.js:9`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub generated: Option<GeneratedPosition>,
    /// The runtime's own machinery this frame belongs to (Rust's `core::ops::function` shims,
    /// Python's `runpy`), as the adapter's language tells it: text folds a run of such frames
    /// into one line; JSON keeps them all, marked.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub machinery: Option<Machinery>,
}

/// A position in the generated code a source map maps from (1-based).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct GeneratedPosition {
    pub file: String,
    pub line: u32,
    pub column: u32,
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
    /// The state after the command: `running` (`pausing` for a pause) without `--wait`, else
    /// the state at the stop.
    pub state: SessionState,
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

/// `backtrace --all`: every thread's stack, the selected thread's first, then the others in the
/// order the adapter lists them.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct AllBacktraces {
    pub threads: Vec<ThreadBacktrace>,
}

/// One thread's stack, or why it could not be read (the thread may have ended meanwhile).
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(untagged)]
pub enum ThreadBacktrace {
    Read(BacktraceResult),
    Unreadable { thread_id: i64, error: String },
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
    pub state: SessionState,
    pub reason: Option<StopReason>,
    pub thread_id: i64,
    pub thread_name: Option<String>,
    pub frame: FrameInfo,
    pub source: Option<SourceSnippet>,
    /// Filled by `context` only.
    pub variables: Option<Vec<VariableNode>>,
    /// Why the frame's locals could not be read (GDB cannot read the frame of an overflowed
    /// stack): the location stands without them.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub locals_error: Option<String>,
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
    /// How many children were left out because of the cap (`--children N` shows more).
    pub omitted_children: u64,
    /// Its methods were left out of its members (and the adapter's groups of them, debugpy's
    /// "function variables"): no `--children` shows them, `print VALUE.NAME` reads one. Not
    /// counted in `omitted_children`; absent when none were.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub methods_omitted: bool,
    /// How many children a value that was not expanded has, where the adapter says (absent for
    /// an expanded value, whose `children` and `omitted_children` tell).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub children_count: Option<u64>,
    /// The value differs from the previous stop of the same frame (`locals` only; absent when
    /// unchanged or unknown).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub changed: bool,
    /// A changed value's text at the frame's previous stop (absent when unchanged, or when the
    /// value is new since then).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub old_value: Option<String>,
}

#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct LocalsResult {
    pub scope: String,
    pub variables: Vec<VariableNode>,
    /// Variables left out of the list because of the cap.
    pub omitted: u64,
    /// With `--changed`: whether an earlier stop of this frame was there to compare with (when
    /// not, no value can be called changed).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub compared: Option<bool>,
}

#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct EvaluateResult {
    pub expression: String,
    pub value: String,
    #[serde(rename = "type")]
    pub type_name: Option<String>,
    pub children: Vec<VariableNode>,
    pub omitted_children: u64,
    /// As [`VariableNode::methods_omitted`].
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub methods_omitted: bool,
}

#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct OutputChunk {
    /// The bytes read, in order, each run with the stream it came on.
    pub segments: Vec<OutputSegment>,
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

impl OutputChunk {
    /// The text of every segment, in order.
    pub fn text(&self) -> String {
        self.segments.iter().map(|s| s.text.as_str()).collect()
    }

    /// Bytes read.
    pub fn len(&self) -> usize {
        self.segments.iter().map(|s| s.text.len()).sum()
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

/// A run of output from one stream: `stdout`, `stderr`, or `log` (a logpoint's line).
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq, Eq)]
pub struct OutputSegment {
    pub stream: String,
    /// The bytes as text, a byte that is no UTF-8 written `\xNN`.
    pub text: String,
    /// The bytes themselves (base64), when they are not UTF-8 and `text` is therefore not
    /// them: a program's `\xe9` and a byte 0xe9 read alike as text.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub bytes_b64: Option<String>,
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
    /// The exception classes caught by name (`catch IllegalStateException`), with their
    /// subclasses, thrown caught or not.
    #[serde(default)]
    pub classes: Vec<String>,
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

/// A daemon `sessions` found (it holds its session's lock) that did not answer in time: stopped
/// (SIGSTOP) or stuck.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct UnansweringDaemon {
    pub session: String,
    /// Its pid, where its lock file tells it.
    pub daemon_pid: Option<u32>,
    /// How long it was given.
    pub waited_secs: f64,
}

#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct MessageResult {
    pub message: String,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_breakpoints_kind_is_written_by_its_name() {
        let kinds = [
            (BreakpointKind::Line, "line"),
            (BreakpointKind::Function, "function"),
            (BreakpointKind::Watch, "watch"),
        ];
        for (kind, name) in kinds {
            let json = serde_json::to_string(&kind).unwrap_or_default();
            assert_eq!(json, format!("\"{name}\""));
            assert_eq!(
                serde_json::from_str::<BreakpointKind>(&json).ok(),
                Some(kind)
            );
        }
    }
}
