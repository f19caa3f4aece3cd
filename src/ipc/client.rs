//! Talking to a session's daemon from the CLI: blocking I/O, no async runtime, so a command pays
//! only for a connect, one write and one read.

use std::io;
use std::path::{Path, PathBuf};
use std::time::Duration;

use serde::de::DeserializeOwned;
use serde_json::Value;

use crate::common::error::{ErrorBody, ErrorCode};
use crate::common::paths;
use crate::ipc::framing::{FrameError, MAX_FRAME_BYTES, read_frame, write_frame};
use crate::ipc::protocol::{Command, Request, Response};
use crate::ipc::socket::{self, BlockingStream};
use crate::platform;

/// How long `sessions` (the CLI's and the MCP server's) waits for each daemon's answer, and
/// `stop` for a sign of life before it ends a daemon by its pid. A daemon answers a status
/// request at once, whatever its session does, so one silent this long is stopped (SIGSTOP) or
/// stuck.
pub const ANSWER_TIMEOUT: Duration = Duration::from_secs(2);

/// How long `stop` waits for a sign of life before it ends a daemon by its pid: longer than
/// [`ANSWER_TIMEOUT`], as what follows a silence here is a kill, not a line in a list.
pub const SILENCE_BEFORE_KILL: Duration = Duration::from_secs(5);

/// How long a killed daemon is given to let go of its lock.
const KILL_SETTLES: Duration = Duration::from_secs(5);

/// What a request with a deadline came to (see [`DaemonClient::request_within`]).
#[derive(Debug)]
pub enum Reply {
    /// The daemon answered, or the connection failed otherwise than by the deadline.
    Answered(Result<Value, ErrorBody>),
    /// Nothing came back within the deadline.
    NotAnswering,
}

pub struct DaemonClient {
    stream: BlockingStream,
    next_id: u64,
    /// The daemon's socket: gone once it has exited on purpose (see [`DaemonClient::request`]).
    socket: PathBuf,
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
        SessionPaths::in_dir(&dir, session)
    }

    /// A socket path longer than the OS takes is refused here, before any daemon starts, with
    /// the way out: the OS's own words ("name length exceeds capacity of sun_path") name neither.
    pub(crate) fn in_dir(dir: &Path, session: &str) -> Result<SessionPaths, ErrorBody> {
        let socket = paths::socket_path(dir, session);
        let length = socket.as_os_str().len();
        if length > platform::SOCKET_PATH_LIMIT {
            return Err(ErrorBody::usage(
                format!(
                    "the session socket path {} is {length} bytes long, over this system's limit of {}",
                    socket.display(),
                    platform::SOCKET_PATH_LIMIT
                ),
                format!(
                    "set {} to a shorter directory (e.g. /tmp/debugger-$USER), or use a shorter --session name",
                    paths::RUNTIME_DIR_ENV
                ),
            ));
        }
        Ok(SessionPaths {
            socket,
            lock: paths::lock_path(dir, session),
        })
    }
}

/// The names that may have a daemon in the runtime dir, sorted: every daemon holds a lock file
/// there, and on Unix a socket file too (a Windows named pipe is no file), so both name one.
pub fn session_names(dir: &Path) -> Result<Vec<String>, ErrorBody> {
    let entries = std::fs::read_dir(dir).map_err(|e| {
        ErrorBody::new(
            ErrorCode::Ipc,
            format!("cannot list {}: {e}", dir.display()),
            "",
        )
    })?;
    let mut names: Vec<String> = entries
        .flatten()
        .filter_map(|entry| {
            let name = entry.file_name();
            let name = name.to_str()?;
            let stem = name
                .strip_suffix(".sock")
                .or_else(|| name.strip_suffix(".lock"))?;
            paths::validate_session_name(stem).ok()?;
            Some(stem.to_string())
        })
        .collect();
    names.sort();
    names.dedup();
    Ok(names)
}

impl DaemonClient {
    pub fn connect_at(paths: &SessionPaths) -> Result<DaemonClient, ErrorBody> {
        match socket::connect_blocking(&paths.socket) {
            Ok(stream) => Ok(DaemonClient {
                stream,
                next_id: 1,
                socket: paths.socket.clone(),
            }),
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
        write_frame(&mut self.stream, &Request { id, command }).map_err(|e| self.lost_daemon(e))?;
        let response: Response = read_frame(&mut self.stream).map_err(|e| self.lost_daemon(e))?;
        answer_to(id, response)
    }

    /// Sends a command and waits at most `timeout` for the write and for the answer; the bound
    /// is lifted again after, for the requests that follow on this connection.
    pub fn request_within(&mut self, command: Command, timeout: Duration) -> Reply {
        // A stream that takes no deadline (Windows' named pipes under interprocess) is asked
        // without one: `sessions` still bounds its wait, by the thread it asks from.
        let deadline_set = socket::set_deadlines(&self.stream, Some(timeout)).is_ok();
        let id = self.next_id;
        self.next_id += 1;
        let exchanged = write_frame(&mut self.stream, &Request { id, command })
            .and_then(|()| read_frame::<Response>(&mut self.stream));
        let response = match exchanged {
            Ok(response) => response,
            Err(FrameError::Io(e)) if socket::timed_out(&e) => return Reply::NotAnswering,
            Err(e) => return Reply::Answered(Err(self.lost_daemon(e))),
        };
        if deadline_set && let Err(e) = socket::set_deadlines(&self.stream, None) {
            return Reply::Answered(Err(lost_daemon(FrameError::Io(e))));
        }
        Reply::Answered(answer_to(id, response))
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

impl DaemonClient {
    /// Why the daemon did not answer. A daemon that closed the connection and took its socket
    /// away had ended on purpose (a failed start leaving nothing to serve, the grace period, a
    /// `stop` from another client) just as this request came: the session is gone, as if it had
    /// come a moment later. One that left its socket behind died (or still runs): that is said.
    fn lost_daemon(&self, e: FrameError) -> ErrorBody {
        let hung_up = match &e {
            FrameError::Closed => true,
            // Closed with our request unread (it had stopped reading): a reset.
            FrameError::Io(io) => matches!(
                io.kind(),
                io::ErrorKind::ConnectionReset | io::ErrorKind::BrokenPipe
            ),
            _ => false,
        };
        if hung_up
            && matches!(
                socket::connect_blocking(&self.socket),
                Err(ref e) if e.kind() == io::ErrorKind::NotFound
            )
        {
            return ErrorBody::new(
                ErrorCode::NoSession,
                "the session ended before it answered",
                "start one with 'debugger start <program>'",
            );
        }
        lost_daemon(e)
    }
}

/// The result `response` carries, if it answers request `id` (or is the daemon's `0`, for a
/// request it could not read).
fn answer_to(id: u64, response: Response) -> Result<Value, ErrorBody> {
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

fn lost_daemon(e: FrameError) -> ErrorBody {
    match e {
        FrameError::Unsendable(bytes) => ErrorBody::usage(
            format!(
                "the command is {:.1} MiB long, more than the {} MiB a command may carry",
                bytes as f64 / (1024.0 * 1024.0),
                MAX_FRAME_BYTES / (1024 * 1024)
            ),
            "shorten its arguments: pass a large value through a file the program reads",
        ),
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

/// Ends the daemon of `session`, which does not answer, by its pid: SIGKILL (a stopped daemon
/// takes no other signal), after which its reaper ends what it launched as after any SIGKILL.
/// Waits for its lock to be let go and removes its socket. Returns the pid; the error says what
/// to do where the pid is not known or the daemon outlives the kill.
pub fn kill_unanswering(session: &str) -> Result<u32, ErrorBody> {
    let at = SessionPaths::for_session(session)?;
    let by_hand = || {
        format!(
            "end its process ('debugger daemon --session {session}') by hand, e.g. \
             pkill -KILL -f 'debugger daemon --session {session}$'"
        )
    };
    let Some(pid) = socket::daemon_pid(&at.lock) else {
        return Err(ErrorBody::new(
            ErrorCode::Ipc,
            format!(
                "the daemon of session '{session}' did not answer within {} s, and its pid is not known",
                SILENCE_BEFORE_KILL.as_secs()
            ),
            by_hand(),
        ));
    };
    let killed = platform::kill(pid);
    let deadline = std::time::Instant::now() + KILL_SETTLES;
    while socket::daemon_alive(&at.lock) {
        if std::time::Instant::now() >= deadline {
            let why = killed.err().map(|e| format!(": {e}")).unwrap_or_default();
            return Err(ErrorBody::new(
                ErrorCode::Ipc,
                format!(
                    "the daemon of session '{session}' (pid {pid}) does not answer, and it could not be ended{why}"
                ),
                by_hand(),
            ));
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    socket::remove_stale_socket(&at.socket, &at.lock);
    Ok(pid)
}
