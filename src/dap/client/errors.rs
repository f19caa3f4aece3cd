//! How a DAP request failed, and how each failure reads to the user.
//!
//! Apart from `client.rs`, which moves messages, because this is what the rest of the daemon
//! matches on and shows: the kinds of failure and the hint each gives.

use crate::common::error::{ErrorBody, ErrorCode};

/// What to do about an answer that cannot be read: only that request failed.
const UNREADABLE_HINT: &str = "the session goes on; the daemon's log ('debugger status' shows where) holds what the adapter sent";

/// How a DAP request failed.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum DapError {
    /// The adapter answered `success: false`; its own message is kept verbatim, empty when it
    /// gave none (then the caller, which knows what the request was for, says what failed).
    #[error("{}", adapter_words(command, message))]
    Adapter { command: String, message: String },
    /// The adapter is gone (or its stream broke); the detail says how.
    #[error("{0}")]
    Closed(String),
    #[error("the debug adapter did not answer '{command}' within {secs:.0} s")]
    Timeout { command: String, secs: f64 },
    /// The adapter answered `success: true` with a body that is not the request's body type.
    #[error("the debug adapter's answer to '{command}' cannot be read: {detail}")]
    Unreadable { command: String, detail: String },
    /// Our own arguments could not be turned into JSON (a path that is not UTF-8); nothing was
    /// sent.
    #[error("the '{command}' request cannot be written: {detail}")]
    Unwritable { command: String, detail: String },
}

impl DapError {
    /// Whether the adapter refused the request only because the program is running (DAP's
    /// `notStopped`): GDB takes most requests only at a stop.
    pub fn is_not_stopped(&self) -> bool {
        matches!(self, DapError::Adapter { message, .. } if message == "notStopped")
    }

    /// The error for a caller that names what the answer was (`"a stack trace"`): an
    /// unreadable answer says "the adapter sent a stack trace we cannot read", any other failure
    /// is told as usual.
    pub fn reading(self, what: &str) -> ErrorBody {
        match self {
            DapError::Unreadable { detail, .. } => ErrorBody::new(
                ErrorCode::Adapter,
                format!("the adapter sent {what} we cannot read: {detail}"),
                UNREADABLE_HINT,
            ),
            other => other.into(),
        }
    }
}

impl From<DapError> for ErrorBody {
    fn from(err: DapError) -> ErrorBody {
        match err {
            // DAP's own word for a request the adapter takes only at a stop (GDB has many).
            DapError::Adapter { ref command, .. } if err.is_not_stopped() => ErrorBody::new(
                ErrorCode::Running,
                format!(
                    "the program is running, and the adapter takes '{command}' only while it is stopped"
                ),
                "stop it with 'debugger pause', or wait for a breakpoint with 'debugger await'",
            ),
            DapError::Adapter { command, message } => ErrorBody::new(
                ErrorCode::Adapter,
                adapter_words(&command, &message),
                adapter_error_hint(&command).to_string(),
            ),
            DapError::Closed(detail) => ErrorBody::new(
                ErrorCode::AdapterDied,
                detail,
                "start a new session with 'debugger start <program>'",
            ),
            DapError::Timeout { command, secs } => {
                let key = match command.as_str() {
                    "initialize" | "launch" | "attach" => "timeouts.launch_secs",
                    _ => "timeouts.request_secs",
                };
                ErrorBody::new(
                    ErrorCode::AdapterTimeout,
                    DapError::Timeout { command, secs }.to_string(),
                    format!(
                        "the adapter may be busy or hung; raise {key} in the config, or 'debugger stop' and start again"
                    ),
                )
            }
            unreadable @ DapError::Unreadable { .. } => {
                ErrorBody::new(ErrorCode::Adapter, unreadable.to_string(), UNREADABLE_HINT)
            }
            unwritable @ DapError::Unwritable { .. } => ErrorBody::internal(unwritable.to_string()),
        }
    }
}

/// The adapter's message, or for a failure it gave no words for, which request failed: better
/// than nothing where the caller cannot say more (see `Session::set_variable` for one that can).
fn adapter_words(command: &str, message: &str) -> String {
    if message.is_empty() {
        format!("the debug adapter refused the '{command}' request without saying why")
    } else {
        message.to_string()
    }
}

fn adapter_error_hint(command: &str) -> &'static str {
    match command {
        // What an expression's failure means depends on the adapter's words for it: the
        // session says it (`Session::expression_error`) where it knows the expression.
        "evaluate" => "",
        "launch" => "check the program path, that it is executable, and its arguments",
        "attach" => "check the pid, and that you may trace it (ptrace permissions)",
        "setBreakpoints" | "setFunctionBreakpoints" => {
            "`debugger breakpoint list` shows what is set"
        }
        _ => "the adapter refused the request; `debugger status` shows the session's state",
    }
}
