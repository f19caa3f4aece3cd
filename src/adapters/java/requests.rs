//! The DAP requests the JVM adapter serves, read into the typed arguments the client side sends
//! them with (`crate::dap::requests`), and the `launch` and `attach` arguments of its own.

use std::path::PathBuf;

use serde::Deserialize;
use serde_json::Value;

pub use crate::adapters::dap_server::Envelope;
use crate::adapters::dap_server::RequestError;
use crate::adapters::dap_server::{read_arguments as read, typed_arguments as typed};
use crate::dap::requests::{
    ConfigurationDone, Continue, DataBreakpointInfo, DataBreakpointInfoArguments, Disconnect,
    DisconnectArguments, Evaluate, EvaluateArguments, ExceptionInfo, Initialize, Next, NoArguments,
    Pause, Request as _, Scopes, ScopesArguments, SetBreakpoints, SetBreakpointsArguments,
    SetDataBreakpoints, SetDataBreakpointsArguments, SetExceptionBreakpoints,
    SetExceptionBreakpointsArguments, SetExpression, SetExpressionArguments,
    SetFunctionBreakpoints, SetFunctionBreakpointsArguments, SetVariable, SetVariableArguments,
    StackTrace, StackTraceArguments, StepIn, StepOut, ThreadArguments, Threads, Variables,
    VariablesArguments, or_default,
};
use crate::ipc::protocol::StdioPaths;

/// One request the adapter serves, with its arguments.
#[derive(Debug, Clone)]
pub enum Request {
    Initialize,
    Launch(LaunchArguments),
    Attach(AttachArguments),
    Disconnect(DisconnectArguments),
    ConfigurationDone,
    Lines(SetBreakpointsArguments),
    Functions(SetFunctionBreakpointsArguments),
    Exceptions(SetExceptionBreakpointsArguments),
    /// What `watch` can watch of a name (`dataBreakpointInfo`), and the watchpoints.
    FieldInfo(DataBreakpointInfoArguments),
    Fields(SetDataBreakpointsArguments),
    Threads,
    /// `continue`, the steps and `pause`.
    Run(RunCommand, ThreadArguments),
    StackTrace(StackTraceArguments),
    Scopes(ScopesArguments),
    Variables(VariablesArguments),
    Evaluate(EvaluateArguments),
    SetExpression(SetExpressionArguments),
    SetVariable(SetVariableArguments),
    ExceptionInfo,
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

impl Request {
    /// Reads `command`'s arguments into their type.
    pub fn read(command: &str, arguments: Value) -> Result<Request, RequestError> {
        Ok(match command {
            Initialize::COMMAND => Request::Initialize,
            "launch" => Request::Launch(read(command, arguments)?),
            "attach" => Request::Attach(read(command, arguments)?),
            Disconnect::COMMAND => Request::Disconnect(typed::<Disconnect>(arguments)?),
            ConfigurationDone::COMMAND => {
                typed::<ConfigurationDone>(arguments)?;
                Request::ConfigurationDone
            }
            SetBreakpoints::COMMAND => Request::Lines(typed::<SetBreakpoints>(arguments)?),
            SetFunctionBreakpoints::COMMAND => {
                Request::Functions(typed::<SetFunctionBreakpoints>(arguments)?)
            }
            SetExceptionBreakpoints::COMMAND => {
                Request::Exceptions(typed::<SetExceptionBreakpoints>(arguments)?)
            }
            DataBreakpointInfo::COMMAND => {
                Request::FieldInfo(typed::<DataBreakpointInfo>(arguments)?)
            }
            SetDataBreakpoints::COMMAND => Request::Fields(typed::<SetDataBreakpoints>(arguments)?),
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
            SetExpression::COMMAND => Request::SetExpression(typed::<SetExpression>(arguments)?),
            SetVariable::COMMAND => Request::SetVariable(typed::<SetVariable>(arguments)?),
            ExceptionInfo::COMMAND => {
                typed::<ExceptionInfo>(arguments)?;
                Request::ExceptionInfo
            }
            other => return Err(RequestError::Unsupported(other.to_string())),
        })
    }
}

/// `launch`: what `Java::launch_arguments` sends, with the user's configured fields laid over
/// it; a field of an odd type counts as missing.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct LaunchArguments {
    #[serde(default, deserialize_with = "or_default")]
    pub program: Option<PathBuf>,
    #[serde(default, deserialize_with = "or_default")]
    pub args: Vec<String>,
    /// The `java` that runs a program given as a source file, a jar or a class name.
    #[serde(default, deserialize_with = "or_default")]
    pub java: Option<PathBuf>,
    /// The class path for a program given as a class name.
    #[serde(default, deserialize_with = "or_default")]
    pub classpath: Option<String>,
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
    /// An address to attach to, which `launch` cannot serve.
    #[serde(default, deserialize_with = "or_default")]
    pub connect: Option<String>,
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

/// `attach`: a JVM's JDWP agent by its address, or the process whose agent to find.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct AttachArguments {
    #[serde(default, deserialize_with = "or_default")]
    pub process_id: Option<u32>,
    #[serde(default, deserialize_with = "or_default")]
    pub address: Option<String>,
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn requests_are_read_into_their_types() {
        let request = Request::read("next", json!({ "threadId": 3 }));
        assert!(matches!(request, Ok(Request::Run(RunCommand::Next, _))));
        let launch = Request::read(
            "launch",
            json!({ "program": "/p/Main.java", "args": ["a"], "stopOnEntry": "odd" }),
        );
        assert!(
            matches!(&launch, Ok(Request::Launch(l)) if l.args == ["a"] && !l.stop_on_entry),
            "{launch:?}"
        );
        assert_eq!(
            Request::read("modules", json!({})).map(|_| ()),
            Err(RequestError::Unsupported("modules".into()))
        );
    }
}
