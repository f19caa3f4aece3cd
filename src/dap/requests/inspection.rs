//! The requests that look at (and change) the stopped program: threads and frames, scopes and
//! variables, evaluation, exception details, memory and disassembly.

use serde::{Deserialize, Serialize};

use super::{ExceptionBreakMode, NoArguments, Request, ThreadArguments, or_default};
use crate::dap::types::{
    DisassembleBody, EvaluateBody, ModulesBody, ReadMemoryBody, ScopesBody, StackTraceBody,
    ThreadsBody, VariablesBody,
};

/// `threads`.
pub enum Threads {}

impl Request for Threads {
    const COMMAND: &'static str = "threads";
    type Arguments = NoArguments;
    type Response = ThreadsBody;
}

/// `stackTrace`: the top `levels` frames of a thread.
pub enum StackTrace {}

impl Request for StackTrace {
    const COMMAND: &'static str = "stackTrace";
    type Arguments = StackTraceArguments;
    type Response = StackTraceBody;
}

#[derive(Debug, Clone, Copy, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct StackTraceArguments {
    pub thread_id: i64,
    #[serde(default)]
    pub start_frame: u32,
    /// How many frames; none (0) is all of them.
    #[serde(default)]
    pub levels: u32,
}

/// `scopes`: the variable groups of a frame.
pub enum Scopes {}

impl Request for Scopes {
    const COMMAND: &'static str = "scopes";
    type Arguments = ScopesArguments;
    type Response = ScopesBody;
}

#[derive(Debug, Clone, Copy, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ScopesArguments {
    pub frame_id: i64,
}

/// `variables`: the children of a scope or a value, all of them or one page.
pub enum Variables {}

impl Request for Variables {
    const COMMAND: &'static str = "variables";
    type Arguments = VariablesArguments;
    type Response = VariablesBody;
}

#[derive(Debug, Clone, Copy, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct VariablesArguments {
    pub variables_reference: i64,
    /// The page, when one is asked for: `start` and `count` go together or not at all.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub start: Option<u64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub count: Option<u64>,
}

/// `evaluate`: an expression in a frame (`watch`), or text for the adapter's own console
/// (`repl`).
pub enum Evaluate {}

impl Request for Evaluate {
    const COMMAND: &'static str = "evaluate";
    type Arguments = EvaluateArguments;
    type Response = EvaluateBody;
}

#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct EvaluateArguments {
    pub expression: String,
    /// Omitted for a console command that needs no frame, or when no frame is known.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub frame_id: Option<i64>,
    pub context: EvaluateContext,
    /// How long the evaluation may run before the adapter interrupts it, in milliseconds: not
    /// DAP's, read by the adapters of ours that bound an evaluation themselves
    /// (`adapters::evaluation_limits`), and by no other.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub timeout_ms: Option<u64>,
}

impl EvaluateArguments {
    /// `expression` as a value in a frame (or the adapter's default one).
    pub fn watch(expression: impl Into<String>, frame_id: Option<i64>) -> EvaluateArguments {
        EvaluateArguments {
            expression: expression.into(),
            frame_id,
            context: EvaluateContext::Watch,
            timeout_ms: None,
        }
    }

    /// `text` for the adapter's console, in a frame where one is given.
    pub fn repl(text: impl Into<String>, frame_id: Option<i64>) -> EvaluateArguments {
        EvaluateArguments {
            expression: text.into(),
            frame_id,
            context: EvaluateContext::Repl,
            timeout_ms: None,
        }
    }
}

/// Where an `evaluate` comes from, which decides how the adapter reads it: `watch` is an
/// expression, `repl` is console text (an lldb command, a Python statement), `clipboard` an
/// expression whose value is wanted whole (a value to copy, which an adapter does not shorten).
/// `log` is no context of DAP's: an expression of a logpoint's message, whose value is written
/// into a line of text, sent only to the adapters of ours that ask for it
/// ([`ValueReading::logpoint_context`](crate::adapters::value_reading::ValueReading)).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub enum EvaluateContext {
    Watch,
    Repl,
    Clipboard,
    Log,
}

/// `setExpression`: a new value for an assignable expression in a frame.
pub enum SetExpression {}

impl Request for SetExpression {
    const COMMAND: &'static str = "setExpression";
    type Arguments = SetExpressionArguments;
    type Response = SetValueBody;
}

#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct SetExpressionArguments {
    pub expression: String,
    pub value: String,
    pub frame_id: i64,
}

/// `setVariable`: a new value for one child of a scope or value.
pub enum SetVariable {}

impl Request for SetVariable {
    const COMMAND: &'static str = "setVariable";
    type Arguments = SetVariableArguments;
    type Response = SetValueBody;
}

#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct SetVariableArguments {
    pub variables_reference: i64,
    pub name: String,
    pub value: String,
}

/// The answer to `setExpression` and `setVariable`: the value as the adapter now shows it. Either
/// field may be missing or odd; the value asked for then stands in. An adapter may give the new
/// value's children too, as `variables` does.
#[derive(Debug, Clone, Default, Deserialize, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct SetValueBody {
    #[serde(
        default,
        deserialize_with = "or_default",
        skip_serializing_if = "Option::is_none"
    )]
    pub value: Option<String>,
    #[serde(
        rename = "type",
        default,
        deserialize_with = "or_default",
        skip_serializing_if = "Option::is_none"
    )]
    pub type_name: Option<String>,
    #[serde(
        default,
        deserialize_with = "or_default",
        skip_serializing_if = "Option::is_none"
    )]
    pub variables_reference: Option<i64>,
    #[serde(
        default,
        deserialize_with = "or_default",
        skip_serializing_if = "Option::is_none"
    )]
    pub indexed_variables: Option<u64>,
}

/// `exceptionInfo`: what a thread stopped on an exception raised.
pub enum ExceptionInfo {}

impl Request for ExceptionInfo {
    const COMMAND: &'static str = "exceptionInfo";
    type Arguments = ThreadArguments;
    type Response = ExceptionInfoBody;
}

/// The answer to `exceptionInfo`. Adapters fill it in unevenly (`details` is optional), so
/// every field is optional, and an odd one counts as missing.
#[derive(Debug, Clone, Default, Deserialize, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ExceptionInfoBody {
    #[serde(
        default,
        deserialize_with = "or_default",
        skip_serializing_if = "Option::is_none"
    )]
    pub exception_id: Option<String>,
    #[serde(
        default,
        deserialize_with = "or_default",
        skip_serializing_if = "Option::is_none"
    )]
    pub description: Option<String>,
    #[serde(
        default,
        deserialize_with = "or_default",
        skip_serializing_if = "Option::is_none"
    )]
    pub break_mode: Option<ExceptionBreakMode>,
    #[serde(
        default,
        deserialize_with = "or_default",
        skip_serializing_if = "Option::is_none"
    )]
    pub details: Option<ExceptionDetails>,
}

#[derive(Debug, Clone, Default, Deserialize, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ExceptionDetails {
    #[serde(
        default,
        deserialize_with = "or_default",
        skip_serializing_if = "Option::is_none"
    )]
    pub type_name: Option<String>,
    #[serde(
        default,
        deserialize_with = "or_default",
        skip_serializing_if = "Option::is_none"
    )]
    pub message: Option<String>,
    /// The stack where it was raised, as text; written even when unknown (`null`).
    #[serde(default, deserialize_with = "or_default")]
    pub stack_trace: Option<String>,
}

/// `readMemory`: `count` bytes from a memory reference.
pub enum ReadMemory {}

impl Request for ReadMemory {
    const COMMAND: &'static str = "readMemory";
    type Arguments = ReadMemoryArguments;
    type Response = ReadMemoryBody;
}

#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ReadMemoryArguments {
    pub memory_reference: String,
    pub offset: i64,
    pub count: u32,
}

/// `disassemble`: `instruction_count` instructions from a memory reference, with symbols.
pub enum Disassemble {}

impl Request for Disassemble {
    const COMMAND: &'static str = "disassemble";
    type Arguments = DisassembleArguments;
    type Response = DisassembleBody;
}

#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct DisassembleArguments {
    pub memory_reference: String,
    /// A byte offset from the reference, sent only when the listing is placed by bytes.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub offset: Option<i64>,
    pub instruction_offset: i64,
    pub instruction_count: u32,
    pub resolve_symbols: bool,
}

/// `modules`: the files the program has loaded, and where.
pub enum Modules {}

impl Request for Modules {
    const COMMAND: &'static str = "modules";
    type Arguments = NoArguments;
    type Response = ModulesBody;
}

/// `source`: the text of a source the adapter holds itself (one a source map carries and the
/// disk lacks), by the `sourceReference` a frame gave.
pub enum SourceContent {}

impl Request for SourceContent {
    const COMMAND: &'static str = "source";
    type Arguments = SourceArguments;
    type Response = SourceBody;
}

#[derive(Debug, Clone, Copy, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct SourceArguments {
    /// None (0) names no source.
    #[serde(default)]
    pub source_reference: i64,
}

#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct SourceBody {
    pub content: String,
}
