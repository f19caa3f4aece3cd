//! Why an in-process adapter refuses a request: the `message` of a failed DAP response. The
//! session shows these words to the user, so each says what the user can do about it.

use std::fmt;

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum RequestError {
    /// No program: not launched or attached yet, or it has ended.
    NotRunning,
    /// The request needs a stop and the program runs.
    NotPaused,
    /// The request names a thread the program does not have.
    NoThread(i64),
    /// The frame id is no frame the adapter gave.
    NoFrame,
    /// The frame id was one of an earlier stop.
    FrameGone,
    /// The `variablesReference` is none of this stop's.
    VariableGone,
    /// The source reference names no source the adapter has.
    NoSource,
    /// A command this adapter does not serve.
    Unsupported(String),
    /// The arguments are not the shape the command takes.
    Unreadable { command: String, detail: String },
    /// What the runtime or the launch said went wrong, in its words.
    Failed(String),
}

impl fmt::Display for RequestError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            RequestError::NotRunning => f.write_str("the program is not running"),
            RequestError::NotPaused => f.write_str("the program is not paused"),
            RequestError::NoThread(thread) => write!(f, "there is no thread {thread}"),
            RequestError::NoFrame => f.write_str("no such frame"),
            RequestError::FrameGone => f.write_str("no such frame (the program has moved on)"),
            RequestError::VariableGone => {
                f.write_str("no such variable (the program has moved on)")
            }
            RequestError::NoSource => f.write_str("no source is available for this frame"),
            RequestError::Unsupported(command) => {
                write!(f, "this adapter does not support '{command}'")
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
