//! Starting a session's daemon: the same binary, re-executed as `debugger daemon`, in a new
//! session (so it has its own process group and no controlling terminal), with stdin and stderr
//! on /dev/null and stdout on a pipe that carries exactly one line: "ready", or the error that
//! kept it from serving. Reading that line replaces any polling for the socket.

use std::io::{BufRead, BufReader};
use std::process::{Command, Stdio};

use super::client::{DaemonClient, SessionPaths};
use crate::common::error::{ErrorBody, ErrorCode};

/// What the daemon prints on its stdout pipe once it serves (or, instead, the error that kept it
/// from serving).
pub const READY_LINE: &str = "ready";

/// Connects to the session's daemon, starting one if none is running.
pub fn connect_or_spawn(session: &str) -> Result<DaemonClient, ErrorBody> {
    let paths = SessionPaths::for_session(session)?;
    match DaemonClient::connect_at(&paths) {
        Ok(client) => return Ok(client),
        Err(e) if e.code == ErrorCode::NoSession => {}
        Err(e) => return Err(e),
    }
    match spawn_daemon(session) {
        Ok(()) => DaemonClient::connect_at(&paths),
        // Another daemon holds the name: it is starting (or ending). Use it once it listens.
        Err(e) if e.code == ErrorCode::SessionExists => connect_to_starting_daemon(&paths),
        Err(e) => Err(e),
    }
}

/// Sends `command`, one that opens a session (`start`, `attach`, `core`), to the session's
/// daemon, starting one if none runs; returns the client (for what follows) and the answer.
///
/// A daemon that was ending as the command came (a failed start's daemon exits once it has
/// answered) took its socket away without reading it: that is said as the session having ended
/// (see `DaemonClient::request`), and then a new daemon is started and the command sent again,
/// once. An ending daemon serves nothing new, so the command was never carried out.
pub fn open_session<T: serde::de::DeserializeOwned>(
    session: &str,
    command: super::protocol::Command,
) -> Result<(DaemonClient, T), ErrorBody> {
    let mut client = connect_or_spawn(session)?;
    match client.request_as::<T>(command.clone()) {
        Err(e) if e.code == ErrorCode::NoSession => {
            let mut client = connect_or_spawn(session)?;
            let answer = client.request_as::<T>(command)?;
            Ok((client, answer))
        }
        answer => answer.map(|answer| (client, answer)),
    }
}

/// Waits briefly for a daemon that holds the session lock to start listening.
fn connect_to_starting_daemon(paths: &SessionPaths) -> Result<DaemonClient, ErrorBody> {
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(2);
    loop {
        match DaemonClient::connect_at(paths) {
            Ok(client) => return Ok(client),
            Err(e) if e.code != ErrorCode::NoSession => return Err(e),
            Err(_) if std::time::Instant::now() >= deadline => {
                return Err(ErrorBody::new(
                    ErrorCode::SessionExists,
                    "another debugger daemon holds this session name and is not answering yet",
                    "a session is starting or ending under this name; try again, or use --session NAME",
                ));
            }
            Err(_) => std::thread::sleep(std::time::Duration::from_millis(20)),
        }
    }
}

/// The daemons this process has started. A daemon is a child of the process that started it,
/// and a long-lived one (`debugger mcp`) also runs probes, whose end kills what is left below
/// the process: these, and all below them, are other sessions' and are spared.
static SPAWNED_DAEMONS: std::sync::Mutex<Vec<u32>> = std::sync::Mutex::new(Vec::new());

/// Runs `f` with the daemons this process has started (see [`SPAWNED_DAEMONS`]), none starting
/// meanwhile: a daemon forked while a probe's end looks below the process, before it is listed,
/// would be killed as the probe's (an MCP server's next `start` then failed "during start-up").
pub fn with_spawned_daemons<T>(f: impl FnOnce(&[u32]) -> T) -> T {
    let daemons = SPAWNED_DAEMONS.lock().unwrap_or_else(|p| p.into_inner());
    f(&daemons)
}

fn spawn_daemon(session: &str) -> Result<(), ErrorBody> {
    let exe = std::env::current_exe().map_err(|e| {
        ErrorBody::internal(format!(
            "cannot find this program's own path to start the daemon: {e}"
        ))
    })?;
    let mut command = Command::new(exe);
    command
        .args(["daemon", "--session", session])
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::null());
    crate::platform::detach_from_terminal(&mut command);
    // Held from before the fork until it is listed (see `with_spawned_daemons`).
    let mut spawned = SPAWNED_DAEMONS.lock().unwrap_or_else(|p| p.into_inner());
    let mut child = command.spawn().map_err(|e| {
        ErrorBody::new(
            ErrorCode::Ipc,
            format!("cannot start the session daemon: {e}"),
            "check that this program's file is still in place and executable",
        )
    })?;
    spawned.push(child.id());
    drop(spawned);
    let Some(stdout) = child.stdout.take() else {
        return Err(ErrorBody::internal(
            "the daemon's stdout pipe was not created",
        ));
    };
    let mut line = String::new();
    let read = BufReader::new(stdout).read_line(&mut line);
    let line = line.trim();
    if read.is_ok() && line == READY_LINE {
        return Ok(());
    }
    // The daemon exited without serving; it says why on its one line.
    let _ = child.wait();
    if let Ok(err) = serde_json::from_str::<ErrorBody>(line) {
        return Err(err);
    }
    Err(ErrorBody::new(
        ErrorCode::Ipc,
        "the session daemon exited during start-up",
        format!(
            "the daemon log may say why: {}",
            crate::common::paths::log_path(session).display()
        ),
    ))
}
