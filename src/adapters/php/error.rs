//! Why the PHP adapter refuses a request: the `message` of a failed DAP response, in words the
//! user can act on.

use std::fmt;

use super::dbgp::DbgpError;

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum RequestError {
    /// No script: not launched yet, or it has ended.
    NotRunning,
    /// The request needs a stop and the script runs.
    NotPaused,
    /// The frame id is no frame of the stop.
    NoFrame,
    /// The `variablesReference` is none of this stop's.
    VariableGone,
    /// A command this adapter does not serve.
    Unsupported(String),
    /// The arguments are not the shape the command takes.
    Unreadable { command: String, detail: String },
    /// What Xdebug or the launch said went wrong, in its words.
    Failed(String),
}

impl fmt::Display for RequestError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            RequestError::NotRunning => f.write_str("the program is not running"),
            RequestError::NotPaused => f.write_str("the program is not paused"),
            RequestError::NoFrame => f.write_str("no such frame (the program has moved on)"),
            RequestError::VariableGone => {
                f.write_str("no such variable (the program has moved on)")
            }
            RequestError::Unsupported(command) => {
                write!(f, "the php adapter does not support '{command}'")
            }
            RequestError::Unreadable { command, detail } => {
                write!(f, "{command}'s arguments not understood: {detail}")
            }
            RequestError::Failed(message) => f.write_str(message),
        }
    }
}

impl From<String> for RequestError {
    fn from(message: String) -> RequestError {
        RequestError::Failed(message)
    }
}

impl From<&str> for RequestError {
    fn from(message: &str) -> RequestError {
        RequestError::Failed(message.to_string())
    }
}

impl From<DbgpError> for RequestError {
    fn from(error: DbgpError) -> RequestError {
        match error {
            DbgpError::Closed => RequestError::NotRunning,
            other => RequestError::Failed(other.to_string()),
        }
    }
}
