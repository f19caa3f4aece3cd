//! The one error type that crosses the IPC boundary and reaches the user.
//!
//! Every failure a user can see is an [`ErrorBody`]: a stable machine code, a message that says
//! what happened, and a hint that says what to do next. The code also decides the process exit
//! status, so scripts can tell "no session" from "timed out" without parsing text.

use serde::{Deserialize, Serialize};

/// Stable error codes. They appear in `--json` output (`error.code`) and pick the exit status.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ErrorCode {
    /// No daemon answers for this session name.
    NoSession,
    /// A wait (`await`, `--wait`) ran out of time while the debuggee kept running.
    Timeout,
    /// The command line or its arguments were wrong.
    Usage,
    /// The command needs a stopped program, and it is running.
    Running,
    /// The command needs a live program, and it has exited (or never started).
    NotRunning,
    /// A session already runs under this name.
    SessionExists,
    /// The debug adapter answered with an error (its own message is kept).
    Adapter,
    /// The debug adapter could not be found on this machine.
    AdapterNotFound,
    /// The debug adapter process died or broke the protocol.
    AdapterDied,
    /// A request to the adapter got no answer in time.
    AdapterTimeout,
    /// An evaluation did not return within its limit: interrupted, or still running.
    EvaluationTimeout,
    /// The adapter does not support what was asked.
    Unsupported,
    /// Something named by the user (breakpoint id, thread, frame, file) does not exist.
    NotFound,
    /// Talking to the daemon failed (spawn, socket, framing).
    Ipc,
    /// Anything else: a bug or an OS failure.
    Internal,
    /// `probe` recorded no breakpoint hit (the program ended first, or a breakpoint never
    /// resolved); its report comes with the error.
    NotHit,
    /// `probe` was interrupted (SIGINT, SIGTERM); it ended the program and reports what it saw.
    Interrupted,
    /// `probe --on-crash` saw the program end without crashing; its report has the exit code.
    NoCrash,
}

impl ErrorCode {
    /// The process exit status for this error (docs/cli.md, "Exit codes and errors": 1 error,
    /// 2 usage, 3 timeout, 4 no session; 130, as shells report an interrupted command).
    pub fn exit_code(self) -> i32 {
        match self {
            ErrorCode::NoSession => 4,
            ErrorCode::Timeout => 3,
            ErrorCode::Usage => 2,
            ErrorCode::Interrupted => 130,
            _ => 1,
        }
    }
}

/// A user-facing error: what happened and what to do next.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, thiserror::Error)]
#[error("{message}")]
pub struct ErrorBody {
    pub code: ErrorCode,
    pub message: String,
    pub hint: String,
}

impl ErrorBody {
    pub fn new(code: ErrorCode, message: impl Into<String>, hint: impl Into<String>) -> Self {
        ErrorBody {
            code,
            message: message.into(),
            hint: hint.into(),
        }
    }

    pub fn no_session() -> Self {
        ErrorBody::new(
            ErrorCode::NoSession,
            "no debug session is running",
            "start one with 'debugger start <program>'",
        )
    }

    pub fn running() -> Self {
        ErrorBody::new(
            ErrorCode::Running,
            "the program is running",
            "stop it with 'debugger pause', or wait for a breakpoint with 'debugger await'",
        )
    }

    pub fn internal(message: impl Into<String>) -> Self {
        ErrorBody::new(
            ErrorCode::Internal,
            message,
            "this is a bug in debugger; the daemon log has details ('debugger status' names it)",
        )
    }

    pub fn usage(message: impl Into<String>, hint: impl Into<String>) -> Self {
        ErrorBody::new(ErrorCode::Usage, message, hint)
    }
}

pub type Result<T, E = ErrorBody> = std::result::Result<T, E>;
