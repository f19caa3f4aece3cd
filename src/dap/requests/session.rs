//! The requests of the session's life and of run control: `initialize`, `configurationDone`,
//! `setExceptionBreakpoints`, `disconnect`, and `continue`/`next`/`stepIn`/`stepOut`/`pause`.
//!
//! `launch` and `attach` are not here: their arguments are each adapter's own, with the user's
//! configuration laid over them (see `DebugAdapter::launch_arguments` and `RequestExtras`), so
//! they have no one shape to type.

use serde::{Deserialize, Serialize};

use super::{NoArguments, NoBody, Request, or_default};
use crate::dap::types::Capabilities;
use crate::dap::{DapClient, DapError};

/// `initialize`: who we are and which protocol features we use. The answer is the adapter's
/// capabilities.
pub enum Initialize {}

impl Request for Initialize {
    const COMMAND: &'static str = "initialize";
    type Arguments = InitializeArguments;
    type Response = Capabilities;
}

/// DAP spells three of these with a capital `ID`, hence the renames.
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct InitializeArguments {
    #[serde(rename = "clientID")]
    pub client_id: &'static str,
    pub client_name: &'static str,
    #[serde(rename = "adapterID")]
    pub adapter_id: String,
    pub path_format: &'static str,
    pub lines_start_at1: bool,
    pub columns_start_at1: bool,
    pub supports_variable_type: bool,
    pub supports_variable_paging: bool,
    /// We capture program output ourselves and never run a program in a terminal.
    pub supports_run_in_terminal_request: bool,
    pub supports_memory_references: bool,
    pub supports_progress_reporting: bool,
    pub supports_invalidated_event: bool,
    /// Child sessions are not supported: the adapter must not ask for one.
    pub supports_start_debugging_request: bool,
    pub locale: &'static str,
}

impl InitializeArguments {
    /// Our `initialize` for the adapter whose `adapterID` is `adapter_id`.
    pub fn new(adapter_id: &str) -> InitializeArguments {
        InitializeArguments {
            client_id: "debugger",
            client_name: "debugger",
            adapter_id: adapter_id.to_string(),
            path_format: "path",
            lines_start_at1: true,
            columns_start_at1: true,
            supports_variable_type: true,
            supports_variable_paging: true,
            supports_run_in_terminal_request: false,
            supports_memory_references: true,
            supports_progress_reporting: false,
            supports_invalidated_event: false,
            supports_start_debugging_request: false,
            locale: "en",
        }
    }
}

/// `configurationDone`: the end of the configuration phase.
pub enum ConfigurationDone {}

impl Request for ConfigurationDone {
    const COMMAND: &'static str = "configurationDone";
    type Arguments = NoArguments;
    type Response = NoBody;
}

/// `setExceptionBreakpoints`: which exception filters stop the program.
pub enum SetExceptionBreakpoints {}

impl Request for SetExceptionBreakpoints {
    const COMMAND: &'static str = "setExceptionBreakpoints";
    type Arguments = SetExceptionBreakpointsArguments;
    type Response = ExceptionBreakpointsBody;
}

#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct SetExceptionBreakpointsArguments {
    pub filters: Vec<String>,
    /// Exceptions chosen by name (`catch CLASS`), for an adapter that takes them.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub exception_options: Vec<ExceptionOptions>,
}

/// DAP's `ExceptionOptions`: the exceptions a path in the adapter's tree of them selects, and
/// when they stop the program.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ExceptionOptions {
    #[serde(default)]
    pub path: Vec<ExceptionPathSegment>,
    pub break_mode: ExceptionBreakMode,
}

/// When the exception stopped the program (DAP's `ExceptionBreakMode`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, Serialize)]
#[serde(rename_all = "camelCase")]
pub enum ExceptionBreakMode {
    Never,
    Always,
    Unhandled,
    UserUnhandled,
}

/// One level of an exception path: any of `names` matches (all but them, when `negate`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ExceptionPathSegment {
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub negate: bool,
    pub names: Vec<String>,
}

/// The answer to `setExceptionBreakpoints`: one breakpoint per filter, in the order sent, where
/// the adapter gives them (GDB does). Read as leniently as the ids were read by hand: a list
/// that is not one is empty, an entry without a numeric id has none.
#[derive(Debug, Clone, Default, Deserialize)]
pub struct ExceptionBreakpointsBody {
    #[serde(default, deserialize_with = "or_default")]
    pub breakpoints: Vec<ExceptionBreakpoint>,
}

#[derive(Debug, Clone, Default, Deserialize)]
pub struct ExceptionBreakpoint {
    #[serde(default, deserialize_with = "or_default")]
    pub id: Option<i64>,
}

/// `disconnect`: the end of the session, with or without the debuggee.
pub enum Disconnect {}

impl Request for Disconnect {
    const COMMAND: &'static str = "disconnect";
    type Arguments = DisconnectArguments;
    type Response = NoBody;
}

#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct DisconnectArguments {
    /// Left out, a launched debuggee ends with the session and an attached one is left running
    /// (the protocol leaves it to the adapter; this is what VS Code's adapters do).
    #[serde(default = "launched_debuggee_ends")]
    pub terminate_debuggee: bool,
    #[serde(default)]
    pub restart: bool,
}

/// See [`DisconnectArguments::terminate_debuggee`]: only a launched debuggee is ended, so `true`
/// reads as "the adapter's default".
fn launched_debuggee_ends() -> bool {
    true
}

/// The arguments of the requests that name one thread (`continue`, `pause`, the steps,
/// `exceptionInfo`).
#[derive(Debug, Clone, Copy, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ThreadArguments {
    pub thread_id: i64,
}

/// `continue`.
pub enum Continue {}

impl Request for Continue {
    const COMMAND: &'static str = "continue";
    type Arguments = ThreadArguments;
    type Response = ContinueBody;
}

/// The answer to `continue`: whether every thread goes on, when the adapter says (an odd value
/// counts as unsaid).
#[derive(Debug, Clone, Copy, Default, Deserialize, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ContinueBody {
    #[serde(
        default,
        deserialize_with = "or_default",
        skip_serializing_if = "Option::is_none"
    )]
    pub all_threads_continued: Option<bool>,
}

/// `next`: step over.
pub enum Next {}

impl Request for Next {
    const COMMAND: &'static str = "next";
    type Arguments = ThreadArguments;
    type Response = NoBody;
}

/// `stepIn`.
pub enum StepIn {}

impl Request for StepIn {
    const COMMAND: &'static str = "stepIn";
    type Arguments = ThreadArguments;
    type Response = NoBody;
}

/// `stepOut`: run to the caller.
pub enum StepOut {}

impl Request for StepOut {
    const COMMAND: &'static str = "stepOut";
    type Arguments = ThreadArguments;
    type Response = NoBody;
}

/// `pause`.
pub enum Pause {}

impl Request for Pause {
    const COMMAND: &'static str = "pause";
    type Arguments = ThreadArguments;
    type Response = NoBody;
}

/// The requests that let a stopped thread go, for a caller that picks one at run time (the
/// user's `continue`, `next`, `step` or `finish`): each stays its own typed request.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Resume {
    Continue,
    Next,
    StepIn,
    StepOut,
}

impl Resume {
    /// Sends this request for `thread_id` and waits for its answer.
    pub async fn send(self, dap: &DapClient, thread_id: i64) -> Result<(), DapError> {
        let arguments = ThreadArguments { thread_id };
        match self {
            Resume::Continue => dap.request_typed::<Continue>(&arguments).await.map(drop),
            Resume::Next => dap.request_typed::<Next>(&arguments).await.map(drop),
            Resume::StepIn => dap.request_typed::<StepIn>(&arguments).await.map(drop),
            Resume::StepOut => dap.request_typed::<StepOut>(&arguments).await.map(drop),
        }
    }
}
