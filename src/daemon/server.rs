//! The accept loop: one task per client connection, so a client blocked in `await` never holds
//! up another's `pause`, `status` or `output`.

use std::sync::Arc;

use interprocess::local_socket::tokio::Listener;
use interprocess::local_socket::traits::tokio::Listener as _;
use serde_json::Value;

use super::{Daemon, ends_daemon};
use crate::common::error::{ErrorBody, ErrorCode};
use crate::ipc::framing::{FrameError, read_frame_bytes_async, write_frame_async};
use crate::ipc::protocol::{Command, Request, Response};
use crate::ipc::socket::AsyncStream;

/// How long to wait before accepting again after `accept` failed.
const ACCEPT_RETRY_DELAY: std::time::Duration = std::time::Duration::from_millis(100);

/// How often the daemon checks that it still holds its session name (its lock and socket files
/// in the runtime dir): well within the second the user may take to look again.
const NAME_CHECK_PERIOD: std::time::Duration = std::time::Duration::from_millis(400);

/// Serves until shutdown is asked for (by `stop`, the grace timer, or a signal), then ends the
/// session so no adapter or launched debuggee outlives the daemon.
///
/// It also ends when the session's name is lost: the lock or socket file deleted or replaced
/// under it (the runtime dir removed, say). Nobody can reach the daemon then, and a new `start`
/// would take the name beside it, so it ends the session as `stop` does (the launched program
/// killed) rather than recreate the files: a successor may already hold the name by a new lock
/// file, and two daemons must never serve one name; whoever deleted the runtime dir meant the
/// sessions in it to go.
pub async fn serve(daemon: Arc<Daemon>, listener: Listener) {
    let mut shutdown = daemon.shutdown_signal();
    daemon.start_idle_timer();
    let signals = shutdown_on_signals(daemon.clone());
    let adoptions = tokio::spawn(collect_adopted());
    let mut name_check = tokio::time::interval(NAME_CHECK_PERIOD);
    name_check.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
    loop {
        tokio::select! {
            _ = name_check.tick() => if !daemon.holds_name() {
                tracing::warn!("the session's lock or socket file was deleted or replaced; ending");
                break;
            },
            accepted = listener.accept() => match accepted {
                Ok(stream) => {
                    tokio::spawn(serve_client(daemon.clone(), stream));
                }
                Err(e) => {
                    // Typically out of descriptors (EMFILE): retrying at once would spin. Wait
                    // for clients to leave; the others queue in the listen backlog meanwhile.
                    tracing::warn!("accept failed: {e}");
                    tokio::time::sleep(ACCEPT_RETRY_DELAY).await;
                }
            },
            _ = shutdown.wait_for(|stop| *stop) => break,
        }
    }
    signals.abort();
    adoptions.abort();
    daemon.release_name();
    drop(listener);
    daemon.end_session().await;
}

/// Collects the exits of orphans the daemon adopted (see `platform::reap_adopted`) as they die,
/// so none stays a zombie for the daemon's life.
async fn collect_adopted() {
    let mut exits = match crate::platform::ChildExits::install() {
        Ok(exits) => exits,
        Err(e) => {
            tracing::warn!("cannot watch for child exits: {e}");
            return;
        }
    };
    while exits.next().await.is_some() {
        crate::platform::reap_adopted();
    }
}

fn shutdown_on_signals(daemon: Arc<Daemon>) -> tokio::task::JoinHandle<()> {
    tokio::spawn(async move {
        let mut interrupts = match crate::platform::Interrupts::install(true) {
            Ok(interrupts) => interrupts,
            Err(e) => {
                tracing::warn!("cannot install signal handlers: {e}");
                return;
            }
        };
        let name = interrupts.next().await;
        tracing::info!("{name}");
        daemon.shutdown();
    })
}

/// The daemon's log line (at `debug`) for a client whose request waits on the program.
pub const WAITING: &str = "a client waits on the program";

/// Commands that may block for long on the program, and are safe to abandon midway.
fn waits(command: &Command) -> bool {
    match command {
        Command::Await(_) => true,
        Command::Resume { wait, .. } | Command::Pause { wait } => wait.is_some(),
        Command::OutputRead(query) => query.wait,
        _ => false,
    }
}

/// Resolves when the client closes its end (or breaks the one-request-at-a-time rule by sending
/// more while it waits).
pub(super) async fn hung_up(reader: &mut (impl tokio::io::AsyncRead + Unpin)) {
    use tokio::io::AsyncReadExt;
    let mut byte = [0u8; 1];
    let _ = reader.read(&mut byte).await;
}

async fn serve_client(daemon: Arc<Daemon>, stream: AsyncStream) {
    let (mut reader, mut writer) = tokio::io::split(stream);
    loop {
        let bytes = match read_frame_bytes_async(&mut reader).await {
            Ok(bytes) => bytes,
            Err(FrameError::Closed) => return,
            Err(e) => {
                tracing::warn!("bad frame from a client: {e}");
                let error = ErrorBody::new(
                    ErrorCode::Ipc,
                    format!("bad request frame: {e}"),
                    "the client and daemon may be different versions; stop the session and start again",
                );
                let _ = write_frame_async(
                    &mut writer,
                    &Response {
                        id: 0,
                        result: Err(error),
                    },
                )
                .await;
                return;
            }
        };
        let request: Request = match serde_json::from_slice(&bytes) {
            Ok(request) => request,
            Err(e) => {
                let id = serde_json::from_slice::<Value>(&bytes)
                    .ok()
                    .and_then(|v| v.get("id").and_then(Value::as_u64))
                    .unwrap_or(0);
                let error = ErrorBody::new(
                    ErrorCode::Usage,
                    format!("malformed or unknown request: {e}"),
                    "the client and daemon may be different versions; stop the session and start again",
                );
                if write_frame_async(
                    &mut writer,
                    &Response {
                        id,
                        result: Err(error),
                    },
                )
                .await
                .is_err()
                {
                    return;
                }
                continue;
            }
        };
        if let Command::Lend {
            adapter,
            executable,
            context,
        } = &request.command
        {
            // The connection becomes the adapter's stream: nothing more is read from it here.
            let wanted = (adapter.as_str(), executable.as_path(), context.as_ref());
            daemon.lend(request.id, wanted, reader, writer).await;
            return;
        }
        if let Command::Tether { detach } = request.command {
            // The connection is the tie: nothing more is read from it but its end.
            daemon.tether(request.id, detach, reader, writer).await;
            return;
        }
        let ends = ends_daemon(&request.command);
        crate::common::timeline::mark("daemon request read");
        let result = if waits(&request.command) {
            // Said so that a test can see a client wait before it acts on the waiter.
            tracing::debug!("{WAITING}");
            // A waiting client may be killed by its caller's own timeout: notice it hang up, so
            // its connection and task are not held until the program next stops.
            tokio::select! {
                result = daemon.handle(request.command) => result,
                _ = hung_up(&mut reader) => {
                    tracing::debug!("a waiting client went away");
                    return;
                }
            }
        } else {
            daemon.handle(request.command).await
        };
        let succeeded = result.is_ok();
        let response = Response {
            id: request.id,
            result,
        };
        let written = write_frame_async(&mut writer, &response).await;
        crate::common::timeline::mark("daemon answer written");
        // A `stop` that leaves a warm adapter leaves the daemon serving.
        if ends && succeeded && !daemon.spare.is_held() {
            daemon.shutdown();
        }
        daemon.exit_if_asked_and_idle();
        if let Err(e) = written {
            tracing::debug!("client went away before its answer: {e}");
            return;
        }
    }
}
