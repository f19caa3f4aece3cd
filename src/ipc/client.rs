//! Talking to a session's daemon from the CLI: blocking I/O, no async runtime, so a command pays
//! only for a connect, one write and one read.

use std::io;
use std::path::PathBuf;

use serde::de::DeserializeOwned;
use serde_json::Value;

use crate::common::error::{ErrorBody, ErrorCode};
use crate::common::paths;
use crate::ipc::framing::{FrameError, read_frame, write_frame};
use crate::ipc::protocol::{Command, Request, Response};
use crate::ipc::socket::{self, BlockingStream};

pub struct DaemonClient {
    stream: BlockingStream,
    next_id: u64,
}

/// Where a session's socket and lock live.
pub struct SessionPaths {
    pub socket: PathBuf,
    pub lock: PathBuf,
}

impl SessionPaths {
    pub fn for_session(session: &str) -> Result<SessionPaths, ErrorBody> {
        paths::validate_session_name(session)?;
        let dir = paths::ensure_runtime_dir()?;
        Ok(SessionPaths {
            socket: paths::socket_path(&dir, session),
            lock: paths::lock_path(&dir, session),
        })
    }
}

impl DaemonClient {
    /// Connects to the session's daemon; no daemon is [`ErrorCode::NoSession`] (a stale socket
    /// left by a dead daemon is removed on the way).
    pub fn connect(session: &str) -> Result<DaemonClient, ErrorBody> {
        let paths = SessionPaths::for_session(session)?;
        DaemonClient::connect_at(&paths)
    }

    pub fn connect_at(paths: &SessionPaths) -> Result<DaemonClient, ErrorBody> {
        match socket::connect_blocking(&paths.socket) {
            Ok(stream) => Ok(DaemonClient { stream, next_id: 1 }),
            Err(e) if e.kind() == io::ErrorKind::NotFound => Err(ErrorBody::no_session()),
            Err(e) if e.kind() == io::ErrorKind::ConnectionRefused => {
                // A socket with no daemon behind it: stale, unless a daemon is just starting.
                socket::remove_stale_socket(&paths.socket, &paths.lock);
                Err(ErrorBody::no_session())
            }
            Err(e) => Err(ErrorBody::new(
                ErrorCode::Ipc,
                format!("cannot connect to the session daemon: {e}"),
                format!("check {}", paths.socket.display()),
            )),
        }
    }

    /// Sends a command and returns its result.
    pub fn request(&mut self, command: Command) -> Result<Value, ErrorBody> {
        let id = self.next_id;
        self.next_id += 1;
        write_frame(&mut self.stream, &Request { id, command }).map_err(lost_daemon)?;
        let response: Response = read_frame(&mut self.stream).map_err(lost_daemon)?;
        if response.id != id && response.id != 0 {
            return Err(ErrorBody::new(
                ErrorCode::Ipc,
                format!(
                    "the daemon answered request {} instead of {id}",
                    response.id
                ),
                "stop the session and start again",
            ));
        }
        response.result
    }

    /// Sends a command and decodes its result as `T`.
    pub fn request_as<T: DeserializeOwned>(&mut self, command: Command) -> Result<T, ErrorBody> {
        let value = self.request(command)?;
        serde_json::from_value(value).map_err(|e| {
            ErrorBody::new(
                ErrorCode::Ipc,
                format!("the daemon's answer is not what this CLI expects: {e}"),
                "the daemon may be from another version; stop the session and start again",
            )
        })
    }
}

fn lost_daemon(e: FrameError) -> ErrorBody {
    match e {
        FrameError::Closed => ErrorBody::new(
            ErrorCode::Ipc,
            "the session daemon closed the connection without answering",
            "it may have exited; 'debugger status' tells, and the daemon log has details",
        ),
        other => ErrorBody::new(
            ErrorCode::Ipc,
            format!("talking to the session daemon failed: {other}"),
            "'debugger status' tells whether it is still running",
        ),
    }
}
