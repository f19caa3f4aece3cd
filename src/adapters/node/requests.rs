//! The DAP requests the node adapter serves, read into the typed arguments the client side sends
//! them with (`crate::dap::requests`), and the `launch` and `attach` arguments of its own.

use std::path::PathBuf;

use serde::{Deserialize, Deserializer, Serialize};
use serde_json::Value;

pub use crate::adapters::dap_server::Envelope;
use crate::adapters::dap_server::RequestError;
use crate::adapters::dap_server::{read_arguments as read, typed_arguments as typed};
use crate::dap::requests::{
    ConfigurationDone, Continue, ContinueBody, Disconnect, DisconnectArguments, Evaluate,
    EvaluateArguments, ExceptionInfo, ExceptionInfoBody, Initialize, Next, NoArguments, Pause,
    Request as _, Scopes, ScopesArguments, SetBreakpoints, SetBreakpointsArguments,
    SetExceptionBreakpoints, SetExceptionBreakpointsArguments, SetFunctionBreakpoints,
    SetFunctionBreakpointsArguments, SetValueBody, SetVariable, SetVariableArguments,
    SourceArguments, SourceBody, SourceContent, StackTrace, StackTraceArguments, StepIn, StepOut,
    ThreadArguments, Threads, Variables, VariablesArguments, or_default,
};
use crate::dap::types::{
    BreakpointsBody, Capabilities, EvaluateBody, ScopesBody, StackTraceBody, ThreadsBody,
    VariablesBody,
};
use crate::ipc::protocol::StdioPaths;

/// What a request is answered with: the typed `Response` of its request, or no body at all
/// for the requests whose answer says nothing but that they were done.
#[derive(Debug, Clone, Serialize)]
#[serde(untagged)]
pub enum Answer {
    Done,
    Capabilities(Capabilities),
    Breakpoints(BreakpointsBody),
    Threads(ThreadsBody),
    Continue(ContinueBody),
    StackTrace(StackTraceBody),
    Scopes(ScopesBody),
    Variables(VariablesBody),
    Evaluate(EvaluateBody),
    SetVariable(SetValueBody),
    ExceptionInfo(ExceptionInfoBody),
    Source(SourceBody),
}

/// One request the adapter serves, with its arguments.
#[derive(Debug, Clone)]
pub enum Request {
    Initialize,
    Launch(LaunchArguments),
    Attach(AttachArguments),
    Disconnect(DisconnectArguments),
    ConfigurationDone,
    Breakpoints(BreakpointRequest),
    Threads,
    /// `continue`, the steps and `pause`.
    Run(RunCommand, ThreadArguments),
    StackTrace(StackTraceArguments),
    Scopes(ScopesArguments),
    Variables(VariablesArguments),
    Evaluate(EvaluateArguments),
    SetVariable(SetVariableArguments),
    ExceptionInfo(ThreadArguments),
    Source(SourceArguments),
}

/// The requests that let the program go, or stop it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RunCommand {
    Continue,
    Next,
    StepIn,
    StepOut,
    Pause,
}

/// The breakpoint requests, which every Node process of the program gets (see `threads`).
#[derive(Debug, Clone)]
pub enum BreakpointRequest {
    Lines(SetBreakpointsArguments),
    Functions(SetFunctionBreakpointsArguments),
    Exceptions(SetExceptionBreakpointsArguments),
}

impl Answer {
    /// The response's body: none for `Done`.
    pub fn into_body(self) -> Result<Value, RequestError> {
        match self {
            Answer::Done => Ok(Value::Null),
            body => serde_json::to_value(body)
                .map_err(|e| RequestError::Failed(format!("the answer could not be written: {e}"))),
        }
    }
}

impl BreakpointRequest {
    pub fn command(&self) -> &'static str {
        match self {
            BreakpointRequest::Lines(_) => SetBreakpoints::COMMAND,
            BreakpointRequest::Functions(_) => SetFunctionBreakpoints::COMMAND,
            BreakpointRequest::Exceptions(_) => SetExceptionBreakpoints::COMMAND,
        }
    }
}

impl Request {
    /// Reads `command`'s arguments into their type.
    pub fn read(command: &str, arguments: Value) -> Result<Request, RequestError> {
        let request = match command {
            Initialize::COMMAND => Request::Initialize,
            "launch" => Request::Launch(read(command, arguments)?),
            "attach" => Request::Attach(read(command, arguments)?),
            Disconnect::COMMAND => Request::Disconnect(typed::<Disconnect>(arguments)?),
            ConfigurationDone::COMMAND => {
                typed::<ConfigurationDone>(arguments)?;
                Request::ConfigurationDone
            }
            SetBreakpoints::COMMAND => {
                Request::Breakpoints(BreakpointRequest::Lines(typed::<SetBreakpoints>(
                    arguments,
                )?))
            }
            SetFunctionBreakpoints::COMMAND => Request::Breakpoints(BreakpointRequest::Functions(
                typed::<SetFunctionBreakpoints>(arguments)?,
            )),
            SetExceptionBreakpoints::COMMAND => {
                Request::Breakpoints(BreakpointRequest::Exceptions(typed::<
                    SetExceptionBreakpoints,
                >(arguments)?))
            }
            Threads::COMMAND => {
                let NoArguments {} = typed::<Threads>(arguments)?;
                Request::Threads
            }
            Continue::COMMAND => Request::Run(RunCommand::Continue, typed::<Continue>(arguments)?),
            Next::COMMAND => Request::Run(RunCommand::Next, typed::<Next>(arguments)?),
            StepIn::COMMAND => Request::Run(RunCommand::StepIn, typed::<StepIn>(arguments)?),
            StepOut::COMMAND => Request::Run(RunCommand::StepOut, typed::<StepOut>(arguments)?),
            Pause::COMMAND => Request::Run(RunCommand::Pause, typed::<Pause>(arguments)?),
            StackTrace::COMMAND => Request::StackTrace(typed::<StackTrace>(arguments)?),
            Scopes::COMMAND => Request::Scopes(typed::<Scopes>(arguments)?),
            Variables::COMMAND => Request::Variables(typed::<Variables>(arguments)?),
            Evaluate::COMMAND => Request::Evaluate(typed::<Evaluate>(arguments)?),
            SetVariable::COMMAND => Request::SetVariable(typed::<SetVariable>(arguments)?),
            ExceptionInfo::COMMAND => Request::ExceptionInfo(typed::<ExceptionInfo>(arguments)?),
            SourceContent::COMMAND => Request::Source(typed::<SourceContent>(arguments)?),
            other => return Err(RequestError::Unsupported(other.to_string())),
        };
        Ok(request)
    }

    /// The thread the request is for, when it names one.
    pub fn thread(&self) -> Option<i64> {
        match self {
            Request::Run(_, arguments) | Request::ExceptionInfo(arguments) => {
                Some(arguments.thread_id)
            }
            Request::StackTrace(arguments) => Some(arguments.thread_id),
            _ => None,
        }
    }
}

/// `launch`: what `Node::launch_arguments` sends, with the user's configured fields laid over
/// it (`RequestExtras`), so a field of an odd type counts as missing rather than failing the
/// launch.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct LaunchArguments {
    /// An inspector address, which is for `attach`: a launch with one is refused.
    #[serde(default, deserialize_with = "or_default")]
    pub connect: Option<String>,
    #[serde(default, deserialize_with = "or_default")]
    pub program: Option<String>,
    #[serde(default, deserialize_with = "strings")]
    pub args: Vec<String>,
    #[serde(default, deserialize_with = "strings")]
    pub runtime_args: Vec<String>,
    #[serde(default, deserialize_with = "or_default")]
    pub runtime_executable: Option<PathBuf>,
    /// The program's whole environment, when given; its values that are not text are left out.
    #[serde(default, deserialize_with = "or_default")]
    pub env: Option<serde_json::Map<String, Value>>,
    #[serde(default, deserialize_with = "or_default")]
    pub cwd: Option<PathBuf>,
    /// The session's channels for the program (`--tty`, `--stdin`). Unlike the others, one that
    /// cannot be read fails the launch: the program would run without its terminal.
    #[serde(default)]
    pub stdio: Option<StdioPaths>,
    #[serde(default, deserialize_with = "or_default")]
    pub stop_on_entry: bool,
    /// A test's failed assertion is thrown in `node:assert`: pause there too.
    #[serde(default, deserialize_with = "or_default")]
    pub pause_in_assertions: bool,
}

impl LaunchArguments {
    /// The environment as pairs, its values that are text.
    pub fn env_pairs(&self) -> Option<Vec<(String, String)>> {
        self.env.as_ref().map(|env| {
            env.iter()
                .filter_map(|(k, v)| v.as_str().map(|v| (k.clone(), v.to_string())))
                .collect()
        })
    }
}

/// `attach`: a process to open the inspector of, or an inspector's address.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct AttachArguments {
    #[serde(default, deserialize_with = "or_default")]
    pub process_id: Option<u64>,
    #[serde(default, deserialize_with = "or_default")]
    pub address: Option<String>,
}

/// A list's entries that are text; anything but a list is none.
fn strings<'de, D: Deserializer<'de>>(deserializer: D) -> Result<Vec<String>, D::Error> {
    let Value::Array(entries) = Value::deserialize(deserializer)? else {
        return Ok(Vec::new());
    };
    Ok(entries
        .into_iter()
        .filter_map(|entry| match entry {
            Value::String(text) => Some(text),
            _ => None,
        })
        .collect())
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn launch_arguments_of_an_odd_type_count_as_missing() {
        let launch: LaunchArguments = read(
            "launch",
            json!({
                "program": "/p/a.js",
                "args": ["x", 1, "y"],
                "runtimeArgs": null,
                "stopOnEntry": "yes",
                "env": { "A": "1", "B": 2 },
                "connect": null,
            }),
        )
        .unwrap_or_default();
        assert_eq!(launch.program.as_deref(), Some("/p/a.js"));
        assert_eq!(launch.args, ["x", "y"]);
        assert!(launch.runtime_args.is_empty() && !launch.stop_on_entry);
        assert_eq!(launch.env_pairs(), Some(vec![("A".into(), "1".into())]));
    }

    #[test]
    fn requests_are_read_into_their_types() {
        let request = Request::read("next", json!({ "threadId": 3 }));
        assert!(matches!(request, Ok(Request::Run(RunCommand::Next, _))));
        assert_eq!(request.map(|r| r.thread()), Ok(Some(3)));
        let threads = Request::read("threads", Value::Null);
        assert!(matches!(threads, Ok(Request::Threads)));
        let disconnect = Request::read("disconnect", json!({}));
        assert!(
            matches!(&disconnect, Ok(Request::Disconnect(d)) if d.terminate_debuggee),
            "a disconnect that does not say ends a launched debuggee: {disconnect:?}"
        );
        let odd = Request::read("modules", json!({}));
        assert_eq!(
            odd.map(|_| ()),
            Err(RequestError::Unsupported("modules".into()))
        );
    }
}
