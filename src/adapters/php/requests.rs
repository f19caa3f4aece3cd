//! The DAP requests the PHP adapter serves, read into the typed arguments the client side sends
//! them with (`crate::dap::requests`), and the `launch` arguments of its own.

use std::path::PathBuf;

use serde::Deserialize;
use serde_json::Value;

pub use crate::adapters::dap_server::Envelope;
use crate::adapters::dap_server::RequestError;
use crate::adapters::dap_server::{read_arguments as read, typed_arguments as typed};
use crate::dap::requests::{
    ConfigurationDone, Continue, Disconnect, Evaluate, EvaluateArguments, ExceptionInfo,
    Initialize, Next, NoArguments, Pause, Request as _, Scopes, ScopesArguments, SetBreakpoints,
    SetBreakpointsArguments, SetExceptionBreakpoints, SetExceptionBreakpointsArguments,
    SetExpression, SetExpressionArguments, SetFunctionBreakpoints, SetFunctionBreakpointsArguments,
    SetVariable, SetVariableArguments, StackTrace, StackTraceArguments, StepIn, StepOut, Threads,
    Variables, VariablesArguments, or_default,
};

/// One request the adapter serves, with its arguments.
#[derive(Debug, Clone)]
pub enum Request {
    Initialize,
    Launch(LaunchArguments),
    Disconnect,
    ConfigurationDone,
    Lines(SetBreakpointsArguments),
    Functions(SetFunctionBreakpointsArguments),
    Exceptions(SetExceptionBreakpointsArguments),
    Threads,
    /// `continue`, the steps and `pause`.
    Run(RunCommand),
    StackTrace(StackTraceArguments),
    Scopes(ScopesArguments),
    Variables(VariablesArguments),
    Evaluate(EvaluateArguments),
    SetExpression(SetExpressionArguments),
    SetVariable(SetVariableArguments),
    ExceptionInfo,
}

/// The requests that let the script go, or stop it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RunCommand {
    Continue,
    Next,
    StepIn,
    StepOut,
    Pause,
}

impl RunCommand {
    /// The DBGp command that does it (`pause` has none: Xdebug reads no command while the
    /// script runs).
    pub fn dbgp(self) -> Option<&'static str> {
        match self {
            RunCommand::Continue => Some("run"),
            RunCommand::Next => Some("step_over"),
            RunCommand::StepIn => Some("step_into"),
            RunCommand::StepOut => Some("step_out"),
            RunCommand::Pause => None,
        }
    }
}

impl Request {
    /// Reads `command`'s arguments into their type.
    pub fn read(command: &str, arguments: Value) -> Result<Request, RequestError> {
        Ok(match command {
            Initialize::COMMAND => Request::Initialize,
            "launch" => Request::Launch(read(command, arguments)?),
            Disconnect::COMMAND => {
                typed::<Disconnect>(arguments)?;
                Request::Disconnect
            }
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
            Threads::COMMAND => {
                let NoArguments {} = typed::<Threads>(arguments)?;
                Request::Threads
            }
            Continue::COMMAND => {
                typed::<Continue>(arguments)?;
                Request::Run(RunCommand::Continue)
            }
            Next::COMMAND => {
                typed::<Next>(arguments)?;
                Request::Run(RunCommand::Next)
            }
            StepIn::COMMAND => {
                typed::<StepIn>(arguments)?;
                Request::Run(RunCommand::StepIn)
            }
            StepOut::COMMAND => {
                typed::<StepOut>(arguments)?;
                Request::Run(RunCommand::StepOut)
            }
            Pause::COMMAND => {
                typed::<Pause>(arguments)?;
                Request::Run(RunCommand::Pause)
            }
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

/// `launch`: what `Php::launch_arguments` sends, with the user's configured fields laid over
/// it; a field of an odd type counts as missing.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct LaunchArguments {
    #[serde(default, deserialize_with = "or_default")]
    pub program: Option<PathBuf>,
    #[serde(default, deserialize_with = "or_default")]
    pub args: Vec<String>,
    /// The `php` that runs a program given as a script.
    #[serde(default, deserialize_with = "or_default")]
    pub php: Option<PathBuf>,
    /// The program's whole environment, when given; its values that are not text are left out.
    #[serde(default, deserialize_with = "or_default")]
    pub env: Option<serde_json::Map<String, Value>>,
    #[serde(default, deserialize_with = "or_default")]
    pub cwd: Option<PathBuf>,
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
