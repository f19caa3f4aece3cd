//! A warm adapter: a fresh adapter process, spawned and `initialize`d before the program it will
//! run is known, that the next session takes instead of starting one of its own.
//!
//! Apart from `lifecycle.rs` because this is the one piece of a session that may exist before
//! the session does: the adapter's start-up (spawning it, loading its libraries, answering
//! `initialize`) is the part of a launch that depends on nothing of the program, so a daemon can
//! pay it while the user is busy elsewhere. Nothing of a previous program can be in it: it is a
//! new process that has only ever been asked `initialize`, and every session's target,
//! breakpoints and settings come in that session's own `launch` and configuration requests.

use std::sync::Arc;

use tokio::sync::mpsc;

use crate::adapters::process::{AdapterProcess, SpawnedAdapter, StdioOutput};
use crate::adapters::{DebugAdapter, StdioRoute};
use crate::common::config::Timeouts;
use crate::common::error::{ErrorBody, ErrorCode};
use crate::daemon::reaper::Reaper;
use crate::dap::DapClient;
use crate::dap::requests::{Initialize, InitializeArguments};
use crate::dap::types::{Capabilities, Event};

/// An adapter process with its DAP connection open.
pub(super) struct Connection {
    pub(super) process: Arc<AdapterProcess>,
    pub(super) dap: DapClient,
    pub(super) events: mpsc::Receiver<Event>,
    /// The program's output, for an adapter whose program writes to the adapter's own streams.
    pub(super) program_output: Option<mpsc::UnboundedReceiver<StdioOutput>>,
}

impl Connection {
    /// Starts speaking DAP over a spawned (or connected) adapter's streams.
    pub(super) fn over(spawned: SpawnedAdapter, timeouts: &Timeouts) -> Connection {
        let process = spawned.process;
        let (dap, events) = DapClient::start(
            spawned.reader,
            spawned.writer,
            timeouts.request(),
            process.exit_detail(),
        );
        Connection {
            process,
            dap,
            events,
            program_output: spawned.program_output,
        }
    }
}

/// The `initialize` a session sends: `asks_terminal` says whether the adapter may ask us to start
/// the program (`runInTerminal`), which only an adapter that starts it on our channels does.
pub(super) fn initialize_arguments(
    adapter: &dyn DebugAdapter,
    asks_terminal: bool,
) -> InitializeArguments {
    InitializeArguments {
        supports_run_in_terminal_request: asks_terminal,
        ..InitializeArguments::new(adapter.adapter_id())
    }
}

/// A spawned, initialised adapter waiting for the next session (see the module's note).
pub struct WarmAdapter {
    adapter: Arc<dyn DebugAdapter>,
    connection: Connection,
    caps: Capabilities,
    /// Keeps sessions' ends off it until a session takes it (see [`Reaper::start_apart`]).
    reaper: Option<Arc<Reaper>>,
}

impl WarmAdapter {
    /// Spawns `adapter` as a session would (no program's streams, no address: a warm adapter
    /// serves only launches and attaches that start it that way) and asks it `initialize`. It is
    /// of the daemon's process tree, so it dies with the daemon, but the `reaper` keeps the end
    /// of a session (which ends what is left of the tree) off it.
    pub async fn open(
        adapter: Arc<dyn DebugAdapter>,
        timeouts: &Timeouts,
        reaper: Option<Arc<Reaper>>,
    ) -> Result<WarmAdapter, ErrorBody> {
        if !adapter.keeps_warm() {
            return Err(ErrorBody::new(
                ErrorCode::Unsupported,
                format!("the {} adapter is not kept warm", adapter.name()),
                "",
            ));
        }
        let spawned = match &reaper {
            Some(reaper) => {
                reaper
                    .start_apart(adapter.spawn(), |spawned| spawned.process.pid)
                    .await?
            }
            None => adapter.spawn().await?,
        };
        let mut warm = WarmAdapter {
            adapter,
            connection: Connection::over(spawned, timeouts),
            caps: Capabilities::default(),
            reaper,
        };
        let answer = warm
            .connection
            .dap
            .send_typed::<Initialize>(&initialize_arguments(&*warm.adapter, false))
            .response_within(timeouts.launch())
            .await;
        match answer {
            Ok(caps) => {
                warm.caps = caps;
                Ok(warm)
            }
            Err(err) => {
                warm.end();
                Err(err.into())
            }
        }
    }

    /// Gives it back to the tree whose end kills it: a session's, or none, as it ends.
    fn rejoin_tree(&self) {
        if let (Some(reaper), Some(pid)) = (&self.reaper, self.pid()) {
            reaper.rejoin(pid);
        }
    }

    /// The adapter's canonical name (`lldb`).
    pub fn adapter_name(&self) -> &'static str {
        self.adapter.name()
    }

    pub fn pid(&self) -> Option<u32> {
        self.connection.process.pid
    }

    /// Whether it can serve a session that resolved `adapter`: the same kind, from the same
    /// executable (the config names both), and still alive.
    pub fn fits(&self, adapter: &dyn DebugAdapter) -> bool {
        self.adapter.name() == adapter.name()
            && self.adapter.executable() == adapter.executable()
            && !self.connection.process.has_exited()
    }

    /// Ends it: the adapter has no program, so there is nothing to disconnect from.
    pub fn end(self) {
        self.connection.dap.close("the warm adapter has ended");
        self.connection.process.kill();
        self.rejoin_tree();
    }

    /// Its connection and answer to `initialize`, for a session starting as
    /// [`WarmAdapter::serves`] allows.
    pub(super) fn into_parts(self) -> (Connection, Capabilities) {
        self.rejoin_tree();
        (self.connection, self.caps)
    }
}

/// Whether a session of `adapter` that starts it this way can run on a warm one: the warm adapter
/// was spawned with no program's streams and no address, and told it may not ask to start the
/// program, so only a session that would start it the same way may take it. Everything else
/// about the program (its path, arguments, working directory, environment, its streams' paths)
/// goes in `launch`, which the warm adapter has not been sent yet.
pub(super) fn serves(
    adapter: &dyn DebugAdapter,
    connects: bool,
    route: Option<StdioRoute>,
    asks_terminal: bool,
) -> bool {
    adapter.keeps_warm()
        && (!connects || adapter.connects_itself())
        && route != Some(StdioRoute::AdapterStreams)
        && !asks_terminal
}
