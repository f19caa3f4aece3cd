//! The breakpoint requests: `setBreakpoints` (one source file's whole list),
//! `setFunctionBreakpoints`, `setDataBreakpoints` (watchpoints), and `dataBreakpointInfo`, which
//! asks for the handle a data breakpoint is set on.

use std::path::PathBuf;

use serde::{Deserialize, Serialize};

use super::{Request, or_default};
use crate::dap::types::BreakpointsBody;

/// `setBreakpoints`: replaces the breakpoints of one source file.
pub enum SetBreakpoints {}

impl Request for SetBreakpoints {
    const COMMAND: &'static str = "setBreakpoints";
    type Arguments = SetBreakpointsArguments;
    type Response = BreakpointsBody;
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SetBreakpointsArguments {
    pub source: BreakpointSource,
    pub breakpoints: Vec<SourceBreakpoint>,
}

/// The file a `setBreakpoints` is for. `name` goes as `null` when the path has no file name, as
/// it always has: it is sent, not left out.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct BreakpointSource {
    pub path: PathBuf,
    pub name: Option<String>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SourceBreakpoint {
    pub line: u32,
    #[serde(flatten)]
    pub options: BreakpointOptions,
}

/// What any breakpoint may carry besides where it is. Each is left out when unset.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct BreakpointOptions {
    #[serde(skip_serializing_if = "Option::is_none")]
    pub condition: Option<String>,
    /// DAP's hit condition; we only ever send a number ("stop from the Nth hit").
    #[serde(skip_serializing_if = "Option::is_none")]
    pub hit_condition: Option<String>,
    /// Sent only to adapters that print logpoint messages themselves; a function breakpoint
    /// carries it too, for an adapter that honours it there.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub log_message: Option<String>,
}

/// `setFunctionBreakpoints`: replaces every function breakpoint.
pub enum SetFunctionBreakpoints {}

impl Request for SetFunctionBreakpoints {
    const COMMAND: &'static str = "setFunctionBreakpoints";
    type Arguments = SetFunctionBreakpointsArguments;
    type Response = BreakpointsBody;
}

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct SetFunctionBreakpointsArguments {
    pub breakpoints: Vec<FunctionBreakpoint>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct FunctionBreakpoint {
    pub name: String,
    #[serde(flatten)]
    pub options: BreakpointOptions,
}

/// `setDataBreakpoints`: replaces every data breakpoint (watchpoint).
pub enum SetDataBreakpoints {}

impl Request for SetDataBreakpoints {
    const COMMAND: &'static str = "setDataBreakpoints";
    type Arguments = SetDataBreakpointsArguments;
    type Response = BreakpointsBody;
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SetDataBreakpointsArguments {
    pub breakpoints: Vec<DataBreakpoint>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct DataBreakpoint {
    /// The handle `dataBreakpointInfo` gave; a watchpoint without one is never sent.
    #[serde(default)]
    pub data_id: Option<String>,
    pub access_type: String,
    #[serde(flatten)]
    pub options: BreakpointOptions,
}

/// One of the three list-replacing breakpoint requests, for the code that keeps a target's list
/// in line with the registry whatever kind of target it is.
#[derive(Debug, Clone, PartialEq)]
pub enum BreakpointList {
    Source(SetBreakpointsArguments),
    Functions(SetFunctionBreakpointsArguments),
    Data(SetDataBreakpointsArguments),
}

impl BreakpointList {
    /// The DAP command that sends this list.
    pub fn command(&self) -> &'static str {
        match self {
            BreakpointList::Source(_) => SetBreakpoints::COMMAND,
            BreakpointList::Functions(_) => SetFunctionBreakpoints::COMMAND,
            BreakpointList::Data(_) => SetDataBreakpoints::COMMAND,
        }
    }

    /// The function name of each breakpoint in the list, in order (`None` for a line or a
    /// data breakpoint).
    pub fn names(&self) -> Vec<Option<&str>> {
        match self {
            BreakpointList::Functions(list) => list
                .breakpoints
                .iter()
                .map(|bp| Some(bp.name.as_str()))
                .collect(),
            BreakpointList::Source(list) => vec![None; list.breakpoints.len()],
            BreakpointList::Data(list) => vec![None; list.breakpoints.len()],
        }
    }
}

/// `dataBreakpointInfo`: the handle of a value's memory, for `setDataBreakpoints`.
pub enum DataBreakpointInfo {}

impl Request for DataBreakpointInfo {
    const COMMAND: &'static str = "dataBreakpointInfo";
    type Arguments = DataBreakpointInfoArguments;
    type Response = DataBreakpointInfoBody;
}

/// A variable (`name` within the container `variables_reference`) or, without a container, an
/// expression (`name`), in a frame.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct DataBreakpointInfoArguments {
    #[serde(skip_serializing_if = "Option::is_none")]
    pub variables_reference: Option<i64>,
    pub name: String,
    pub frame_id: i64,
}

/// The answer to `dataBreakpointInfo`: no `dataId` (or an odd one) means it cannot be watched,
/// and `description` then says why.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct DataBreakpointInfoBody {
    #[serde(default, deserialize_with = "or_default")]
    pub data_id: Option<String>,
    #[serde(default, deserialize_with = "or_default")]
    pub description: Option<String>,
}
