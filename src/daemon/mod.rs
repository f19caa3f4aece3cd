//! The daemon: one per session name, owning the debug session between CLI calls.
//!
//! It is the same binary run as the hidden `daemon` subcommand. `boot.rs` starts the process
//! (the lock, the socket, the readiness line), `server.rs` accepts clients, `dispatch.rs`
//! answers each request against the slot (`slot.rs`) that holds the session (`session/`).

mod boot;
mod borrow;
pub mod breakpoints;
mod command_kinds;
mod dispatch;
pub mod displays;
pub mod in_process;
mod last_words;
mod log_privacy;
pub mod logging;
pub mod logpoints;
pub mod output;
pub mod program_io;
mod program_start;
pub mod reaper;
pub mod run_state;
pub mod server;
pub mod session;
mod slot;
mod start_cancel;
mod tether;
pub mod variables;
mod warm;

pub use boot::run;
// For the daemon's own parts only: a command reaches a session through `in_process`.
use command_kinds::ends_daemon;
use dispatch::open_session;

use std::sync::{Arc, Mutex};

use tokio::sync::watch;

use crate::common::config::Config;
use crate::common::error::ErrorBody;
use crate::ipc::socket::NameGuard;
use slot::Slot;

pub struct Daemon {
    name: String,
    config: Config,
    config_error: Option<ErrorBody>,
    slot: Mutex<Slot>,
    shutdown: watch::Sender<bool>,
    /// The session name (lock and socket) until the daemon gives it up.
    name_guard: Mutex<Option<NameGuard>>,
    /// Ends launched debuggees if this process is killed outright.
    reaper: Option<Arc<reaper::Reaper>>,
    /// A start failed and left no session: the daemon exits once that answer is written (see
    /// `slot::exit_once_answered`).
    exit_once_answered: std::sync::atomic::AtomicBool,
    /// The warm adapter kept for the next session (see `warm.rs`).
    spare: warm::Spare,
    /// Woken when a `stop` that keeps a warm adapter has emptied the slot: a `start` that came
    /// while the session was ending waits for that, rather than being told the session ends.
    slot_settled: tokio::sync::Notify,
    /// How many sessions `start`, `attach` and `core` have begun (a restart goes on the same
    /// one): what a tether is tied to (see `tether.rs`).
    starts: std::sync::atomic::AtomicU64,
    /// Raised by `stop` to cancel a start still launching (see `start_cancel.rs`).
    start_cancel: watch::Sender<bool>,
}

impl Daemon {
    fn new(
        name: &str,
        config: Config,
        config_error: Option<ErrorBody>,
        guard: NameGuard,
        tree_tag: &str,
    ) -> Daemon {
        Daemon {
            name: name.to_string(),
            config,
            config_error,
            slot: Mutex::new(Slot::Empty),
            shutdown: watch::channel(false).0,
            exit_once_answered: std::sync::atomic::AtomicBool::new(false),
            spare: warm::Spare::default(),
            slot_settled: tokio::sync::Notify::new(),
            starts: std::sync::atomic::AtomicU64::new(0),
            start_cancel: watch::channel(false).0,
            name_guard: Mutex::new(Some(guard)),
            reaper: reaper::Reaper::start(true, Some(tree_tag)).map(Arc::new),
        }
    }

    /// Gives up the session name: no new client can reach this daemon, and a new `start` may
    /// spawn a successor at once even while this process is still winding down.
    pub fn release_name(&self) {
        let guard = self
            .name_guard
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .take();
        if let Some(guard) = guard {
            guard.release();
        }
    }

    /// Whether this daemon still holds its session name: its lock and socket files are still at
    /// their paths (true once it gave the name up on purpose).
    pub fn holds_name(&self) -> bool {
        self.name_guard
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .as_ref()
            .is_none_or(NameGuard::intact)
    }

    /// Asks the server to stop accepting and end the session.
    pub fn shutdown(&self) {
        self.shutdown.send_replace(true);
    }

    pub fn shutdown_signal(&self) -> watch::Receiver<bool> {
        self.shutdown.subscribe()
    }
}
