//! Daemon start-up: the process set-up that makes this process a session's daemon.
//!
//! It is the same binary run as the hidden `daemon` subcommand. Start-up order matters: take the
//! session lock (so two daemons can never serve one name), bind the socket, tell the spawning CLI
//! "ready" on the inherited stdout pipe, then drop every tie to the terminal.
//!
//! Apart from dispatch because this is process set-up (libc calls, the lock, the readiness
//! line on the inherited pipe), done once before any request is served.

use std::io::Write;
use std::sync::Arc;

use super::{Daemon, logging, server};
use crate::common::config::Config;
use crate::common::error::{ErrorBody, ErrorCode};
use crate::common::{paths, scratch};
use crate::ipc::socket::{self, NameGuard, SessionLock};
use crate::ipc::spawn::READY_LINE;
use crate::platform;

/// Entry point of `debugger daemon`.
pub fn run(session_name: &str) -> i32 {
    // Everything this daemon starts inherits the tag, so the program's whole tree can be found
    // and ended, even after this process is killed outright (see `reaper.rs`).
    let tree_tag = platform::new_tree_tag();
    // SAFETY: the daemon has one thread here: the runtime below is not built yet.
    unsafe { platform::tag_this_tree(&tree_tag) };
    let runtime = match tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
    {
        Ok(runtime) => runtime,
        Err(e) => {
            return report_startup_failure(&ErrorBody::internal(format!(
                "cannot start the async runtime: {e}"
            )));
        }
    };
    runtime.block_on(async {
        // Everything the daemon creates (socket, logs) is the user's alone, and everything it
        // starts ends with it.
        platform::restrict_new_files();
        platform::contain_children();
        // Before anything moves the daemon to `/`: relative directories in the environment are
        // the caller's.
        paths::pin_start_dir();
        // The log holds program output and expressions: refused in a directory others can
        // enter or plant files in, as the runtime directory is.
        if let Err(err) = paths::PrivateDir::State.ensure() {
            return report_startup_failure(&err);
        }
        let (guard, listener) = match bind(session_name) {
            Ok(bound) => bound,
            Err(err) => return report_startup_failure(&err),
        };
        logging::init(&paths::log_path(session_name));
        // stderr is /dev/null from here on: a panic must at least reach the log.
        std::panic::set_hook(Box::new(|info| tracing::error!("panic: {info}")));
        tracing::info!(
            session = session_name,
            pid = std::process::id(),
            "daemon started"
        );
        // What processes killed outright along with their reapers left.
        scratch::sweep_dead(&paths::runtime_dir_path());
        // A broken config still lets the daemon serve (so the error reaches the user), but
        // `start` and `attach` refuse to run on defaults the user did not ask for.
        let (config, config_error) = match Config::load() {
            Ok(config) => (config, None),
            Err(err) => {
                tracing::warn!("{}", err.message);
                (Config::default(), Some(err))
            }
        };
        // Paths from the environment are resolved by now; hold no directory of the caller's open.
        let _ = std::env::set_current_dir("/");
        let daemon = Arc::new(Daemon::new(
            session_name,
            config,
            config_error,
            guard,
            &tree_tag,
        ));
        announce_ready();
        crate::common::timeline::mark("daemon ready");
        server::serve(daemon.clone(), listener).await;
        daemon.release_name();
        scratch::remove(&scratch::own_dir());
        if let Some(reaper) = &daemon.reaper {
            reaper.disarm();
        }
        tracing::info!("daemon exiting");
        0
    })
}

fn bind(
    session_name: &str,
) -> Result<(NameGuard, interprocess::local_socket::tokio::Listener), ErrorBody> {
    let dir = paths::ensure_runtime_dir()?;
    let mut lock = SessionLock::try_acquire(&paths::lock_path(&dir, session_name))
        .map_err(|e| {
            ErrorBody::new(
                ErrorCode::Ipc,
                format!("cannot take the session lock: {e}"),
                "",
            )
        })?
        .ok_or_else(|| {
            ErrorBody::new(
                ErrorCode::SessionExists,
                format!("a daemon already serves session '{session_name}'"),
                "",
            )
        })?;
    // Without it, a `stop` of this daemon if it ever stops answering can only say what to do.
    let _ = lock.record_pid();
    let socket_path = paths::socket_path(&dir, session_name);
    let listener = socket::listen(&socket_path).map_err(|e| {
        ErrorBody::new(
            ErrorCode::Ipc,
            format!("cannot listen on the session socket: {e}"),
            format!("check the runtime directory {}", dir.display()),
        )
    })?;
    Ok((NameGuard::new(lock, socket_path), listener))
}

/// Tells the spawning CLI we serve, then points stdio at /dev/null so the daemon never writes
/// to the terminal and survives it closing.
fn announce_ready() {
    let mut stdout = std::io::stdout();
    let _ = writeln!(stdout, "{READY_LINE}");
    let _ = stdout.flush();
    platform::detach_standard_streams();
}

fn report_startup_failure(err: &ErrorBody) -> i32 {
    let mut stdout = std::io::stdout();
    let _ = writeln!(
        stdout,
        "{}",
        serde_json::to_string(err).unwrap_or_else(|_| err.message.clone())
    );
    let _ = stdout.flush();
    1
}
