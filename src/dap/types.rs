//! The DAP messages and bodies the session uses. Not the whole spec: each type holds the fields
//! we read, and unknown fields are ignored, so adapters that send more are fine. The answers our
//! node adapter gives are written from these same types, so a field left unset is left out.

use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::requests::{entries_in_place, or_default, readable_entries};

#[derive(Debug, Clone, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ResponseMessage {
    #[serde(rename = "request_seq")]
    pub request_seq: i64,
    pub success: bool,
    pub command: String,
    #[serde(default)]
    pub message: Option<String>,
    #[serde(default)]
    pub body: Option<Value>,
}

/// A request the adapter sends to us (`runInTerminal`, `startDebugging`).
#[derive(Debug, Clone, Deserialize)]
pub struct ReverseRequest {
    pub seq: i64,
    pub command: String,
    #[serde(default)]
    pub arguments: Value,
}

#[derive(Debug, Clone, Default, Deserialize, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Source {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub path: Option<String>,
    /// The adapter holds the text (DAP's `source` request gives it): a source not on disk.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub source_reference: Option<i64>,
}

#[derive(Debug, Clone, Deserialize, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct StackFrame {
    pub id: i64,
    pub name: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub source: Option<Source>,
    #[serde(default)]
    pub line: u32,
    #[serde(default)]
    pub column: u32,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub instruction_pointer_reference: Option<String>,
    /// `subtle` or `deemphasize` for frames of little interest (Delve's Go runtime).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub presentation_hint: Option<String>,
    /// Not DAP's: our node adapter's generated position of a frame it tells by its source map.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub generated: Option<GeneratedLocation>,
}

/// Where a source-mapped frame runs (1-based).
#[derive(Debug, Clone, Deserialize, Serialize)]
pub struct GeneratedLocation {
    pub file: String,
    pub line: u32,
    pub column: u32,
}

#[derive(Debug, Clone, Deserialize, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct StackTraceBody {
    pub stack_frames: Vec<StackFrame>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub total_frames: Option<u32>,
}

#[derive(Debug, Clone, Deserialize, Serialize)]
pub struct Thread {
    pub id: i64,
    /// Required by DAP, yet GDB leaves it out for a thread it knows no name of (a core's
    /// threads without libthread_db): such a thread is kept, nameless.
    #[serde(default)]
    pub name: String,
}

/// The answer to `modules`. An entry we cannot read is left out.
#[derive(Debug, Clone, Default, Deserialize)]
pub struct ModulesBody {
    #[serde(default, deserialize_with = "readable_entries")]
    pub modules: Vec<Module>,
}

/// A loaded file of the program.
#[derive(Debug, Clone, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Module {
    #[serde(default)]
    pub path: Option<String>,
    /// Where it was loaded: an address, in decimal or `0x` hexadecimal (adapters write
    /// either), or a range of them.
    #[serde(default)]
    pub address_range: Option<String>,
}

/// The answer to `threads`. An entry we cannot read is left out; anything but a list is no threads.
#[derive(Debug, Clone, Default, Deserialize, Serialize)]
pub struct ThreadsBody {
    #[serde(default, deserialize_with = "readable_entries")]
    pub threads: Vec<Thread>,
}

#[derive(Debug, Clone, Deserialize, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Scope {
    pub name: String,
    pub variables_reference: i64,
    #[serde(default)]
    pub expensive: bool,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub presentation_hint: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub named_variables: Option<u64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub indexed_variables: Option<u64>,
}

/// The answer to `scopes`. An entry we cannot read is left out; anything but a list is no scopes.
#[derive(Debug, Clone, Default, Deserialize, Serialize)]
pub struct ScopesBody {
    #[serde(default, deserialize_with = "readable_entries")]
    pub scopes: Vec<Scope>,
}

#[derive(Debug, Clone, Deserialize, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Variable {
    pub name: String,
    #[serde(default)]
    pub value: String,
    #[serde(rename = "type", default, skip_serializing_if = "Option::is_none")]
    pub type_name: Option<String>,
    #[serde(default)]
    pub variables_reference: i64,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub named_variables: Option<u64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub indexed_variables: Option<u64>,
}

/// The answer to `variables`. An entry we cannot read is left out; anything but a list is no children.
#[derive(Debug, Clone, Default, Deserialize, Serialize)]
pub struct VariablesBody {
    #[serde(default, deserialize_with = "readable_entries")]
    pub variables: Vec<Variable>,
}

#[derive(Debug, Clone, Deserialize, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct EvaluateBody {
    pub result: String,
    #[serde(rename = "type", default, skip_serializing_if = "Option::is_none")]
    pub type_name: Option<String>,
    #[serde(default)]
    pub variables_reference: i64,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub named_variables: Option<u64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub indexed_variables: Option<u64>,
    /// Where the value lives in memory (or points to), for `readMemory` and `disassemble`; an
    /// opaque token only the adapter may interpret.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub memory_reference: Option<String>,
}

/// The answer to `readMemory`: `data` is base64; bytes past the readable ones are counted in
/// `unreadableBytes`, not sent.
#[derive(Debug, Clone, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ReadMemoryBody {
    pub address: String,
    #[serde(default)]
    pub unreadable_bytes: Option<u64>,
    #[serde(default)]
    pub data: Option<String>,
}

#[derive(Debug, Clone, Deserialize)]
pub struct DisassembleBody {
    #[serde(default)]
    pub instructions: Vec<DisassembledInstruction>,
}

/// One instruction of a `disassemble` answer. Source fields come only where the adapter knows
/// them (lldb-dap and Delve: on the first instruction of each line).
#[derive(Debug, Clone, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct DisassembledInstruction {
    pub address: String,
    #[serde(default)]
    pub instruction_bytes: Option<String>,
    pub instruction: String,
    #[serde(default)]
    pub symbol: Option<String>,
    #[serde(default)]
    pub location: Option<Source>,
    #[serde(default)]
    pub line: Option<u32>,
}

/// A breakpoint as the adapter reports it.
#[derive(Debug, Clone, Default, Deserialize, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Breakpoint {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub id: Option<i64>,
    #[serde(default)]
    pub verified: bool,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub message: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub line: Option<u32>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub source: Option<Source>,
    /// Why an unverified breakpoint is so (DAP 1.64 and later).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reason: Option<UnverifiedReason>,
}

/// DAP's `reason` for an unverified breakpoint.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, Serialize)]
#[serde(rename_all = "camelCase")]
pub enum UnverifiedReason {
    /// It may bind later (a file or function not loaded yet).
    Pending,
    /// It never will: the adapter refused it.
    Failed,
    /// A reason of a later DAP.
    #[serde(other)]
    Other,
}

/// The answer to the breakpoint requests: one breakpoint per one asked for. An entry we cannot
/// read is an unverified breakpoint in its place; anything but a list is no answers (each
/// breakpoint then stays pending).
#[derive(Debug, Clone, Default, Deserialize, Serialize)]
pub struct BreakpointsBody {
    #[serde(default, deserialize_with = "entries_in_place")]
    pub breakpoints: Vec<Breakpoint>,
}

#[derive(Debug, Clone, Deserialize)]
pub struct BreakpointEventBody {
    #[serde(default)]
    pub reason: String,
    pub breakpoint: Breakpoint,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct StoppedEventBody {
    pub reason: String,
    #[serde(default)]
    pub description: Option<String>,
    #[serde(default)]
    pub thread_id: Option<i64>,
    #[serde(default)]
    pub text: Option<String>,
    #[serde(default)]
    pub all_threads_stopped: Option<bool>,
    #[serde(default)]
    pub hit_breakpoint_ids: Vec<i64>,
    #[serde(default)]
    pub preserve_focus_hint: bool,
}

#[derive(Debug, Clone, Deserialize)]
pub struct OutputEventBody {
    #[serde(default)]
    pub category: Option<String>,
    pub output: String,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ExitedEventBody {
    pub exit_code: i64,
    /// The signal that killed the program: not DAP's, sent by our own Node adapter, which is
    /// the program's parent and so knows.
    #[serde(default)]
    pub signal: Option<i32>,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ProcessEventBody {
    #[serde(default)]
    pub system_process_id: Option<u32>,
}

/// The adapter's capabilities (the answer to `initialize`): the ones the session acts on, and
/// the ones our node adapter tells. A flag that is not `true` (absent, or of another type) is not
/// supported, and is left out when written.
#[derive(Debug, Clone, Default, PartialEq, Deserialize, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Capabilities {
    #[serde(
        default,
        deserialize_with = "or_default",
        skip_serializing_if = "is_false"
    )]
    pub supports_configuration_done_request: bool,
    #[serde(
        default,
        deserialize_with = "or_default",
        skip_serializing_if = "is_false"
    )]
    pub supports_function_breakpoints: bool,
    #[serde(
        default,
        deserialize_with = "or_default",
        skip_serializing_if = "is_false"
    )]
    pub supports_conditional_breakpoints: bool,
    #[serde(
        default,
        deserialize_with = "or_default",
        skip_serializing_if = "is_false"
    )]
    pub supports_hit_conditional_breakpoints: bool,
    #[serde(
        default,
        deserialize_with = "or_default",
        skip_serializing_if = "is_false"
    )]
    pub supports_evaluate_for_hovers: bool,
    #[serde(
        default,
        deserialize_with = "or_default",
        skip_serializing_if = "is_false"
    )]
    pub supports_log_points: bool,
    #[serde(
        default,
        deserialize_with = "or_default",
        skip_serializing_if = "is_false"
    )]
    pub supports_set_variable: bool,
    #[serde(
        default,
        deserialize_with = "or_default",
        skip_serializing_if = "is_false"
    )]
    pub supports_set_expression: bool,
    #[serde(
        default,
        deserialize_with = "or_default",
        skip_serializing_if = "is_false"
    )]
    pub supports_exception_info_request: bool,
    #[serde(
        default,
        deserialize_with = "or_default",
        skip_serializing_if = "is_false"
    )]
    pub supports_data_breakpoints: bool,
    #[serde(
        default,
        deserialize_with = "or_default",
        skip_serializing_if = "is_false"
    )]
    pub supports_read_memory_request: bool,
    #[serde(
        default,
        deserialize_with = "or_default",
        skip_serializing_if = "is_false"
    )]
    pub supports_disassemble_request: bool,
    /// Said even when false by an adapter that has no `terminate` (ours for node), so a client
    /// that would send one knows not to.
    #[serde(
        default,
        deserialize_with = "or_default",
        skip_serializing_if = "Option::is_none"
    )]
    pub supports_terminate_request: Option<bool>,
    /// `None` when the adapter names no list at all: it then is not sent
    /// `setExceptionBreakpoints`, which one that names an empty list is.
    #[serde(
        default,
        deserialize_with = "named_list",
        skip_serializing_if = "Option::is_none"
    )]
    pub exception_breakpoint_filters: Option<Vec<ExceptionBreakpointsFilter>>,
    /// Not DAP's: the folders a warm program's process read as it started, with their
    /// modification times, as our pdb server tells them (see `watched_paths` there).
    #[serde(default, skip_serializing_if = "Value::is_null")]
    pub debugger_watched_paths: Value,
}

/// One of the exception filters an adapter offers.
#[derive(Debug, Clone, PartialEq, Deserialize, Serialize)]
pub struct ExceptionBreakpointsFilter {
    pub filter: String,
    #[serde(
        default,
        deserialize_with = "or_default",
        skip_serializing_if = "Option::is_none"
    )]
    pub label: Option<String>,
    #[serde(
        default,
        deserialize_with = "or_default",
        skip_serializing_if = "Option::is_none"
    )]
    pub description: Option<String>,
    /// Whether the filter is on unless the client says otherwise.
    #[serde(
        default,
        deserialize_with = "or_default",
        skip_serializing_if = "Option::is_none"
    )]
    pub default: Option<bool>,
}

fn is_false(flag: &bool) -> bool {
    !*flag
}

/// A list that is there, even when none of its entries (or nothing at all) can be read.
fn named_list<'de, D, T>(deserializer: D) -> Result<Option<Vec<T>>, D::Error>
where
    D: serde::Deserializer<'de>,
    T: serde::de::DeserializeOwned,
{
    readable_entries(deserializer).map(Some)
}
