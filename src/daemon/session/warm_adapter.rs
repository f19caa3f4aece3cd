//! A warm adapter: a fresh adapter process, spawned and `initialize`d before the program it will
//! run is known, that the next session takes instead of starting one of its own.
//!
//! Apart from `lifecycle.rs` because this is the one piece of a session that may exist before
//! the session does: the adapter's start-up (spawning it, loading its libraries, answering
//! `initialize`) is the part of a launch that depends on nothing of the program, so a daemon can
//! pay it while the user is busy elsewhere. Nothing of a previous program can be in it: it is a
//! new process that has only ever been asked `initialize` and its adapter's warm-up commands
//! (`WarmPolicy::Spare`: lldb-dap reads the C library into its cache, and deletes the
//! target it read it with), and every session's target, breakpoints and settings come in that
//! session's own `launch` and configuration requests.
//!
//! An adapter that is the program's own process (pdb, inside the program's Python) is warmed
//! as the next program's process: started in the last launch's folder and environment, with its
//! server loaded, it has run nothing of any program. It serves only a launch that starts the
//! same way ([`ProcessContext::starts_like`]) while the folders its start-up read are as they
//! were ([`Watched`]), and takes the program's channels by their paths in `launch`.

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use serde_json::{Value, json};
use tokio::io::{AsyncRead, AsyncReadExt, AsyncWriteExt};
use tokio::sync::mpsc;

use crate::adapters::process::{AdapterProcess, SpawnedAdapter, StdioOutput};
use crate::adapters::{DebugAdapter, Start, StdioRoute};
use crate::common::config::Timeouts;
use crate::common::error::{ErrorBody, ErrorCode};
use crate::daemon::reaper::Reaper;
use crate::dap::events::Event;
use crate::dap::requests::{self, Initialize, InitializeArguments};
use crate::dap::types::Capabilities;
use crate::dap::{DapClient, codec};
use crate::ipc::protocol::{KeptLaunch, LendResult, ProcessContext};
use crate::platform::TREE_TAG_VARIABLE;

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
        ..InitializeArguments::new(adapter.profile().adapter_id)
    }
}

/// A spawned, initialised adapter waiting for the next session (see the module's note). Its
/// streams are kept raw, not read by a [`DapClient`], so that they can be handed on whole: to a
/// session of this daemon, or, through the daemon's socket, to a `probe` (see `daemon/warm.rs`).
pub struct WarmAdapter {
    adapter: Arc<dyn DebugAdapter>,
    spawned: SpawnedAdapter,
    caps: Capabilities,
    /// For one that is the program's own process or kept launched: what its start read (the
    /// pdb server's answer to `initialize`, or the kept launch's program, tells it).
    watched: Watched,
    /// Where it was started, for an adapter warmed as the program
    /// ([`crate::adapters::WarmPolicy::AsProgram`]); where its
    /// program starts, with the launch it was sent, for one kept launched.
    context: Option<ProcessContext>,
    /// The launch it holds at `initialized`, for an adapter kept launched
    /// ([`crate::adapters::WarmPolicy::KeptLaunch`])
    /// (see `kept_launch.rs`).
    kept: Option<KeptLaunch>,
    /// Keeps sessions' ends off it until a session takes it (see [`Reaper::start_apart`]).
    reaper: Option<Arc<Reaper>>,
    /// For one that runs the program's interpreter: what decided how it started, as the daemon
    /// saw it before it started ([`crate::adapters::WarmPolicy::start_inputs`]).
    inputs: Watched,
    /// The events it sent while it was made ready, in order, which are the session's to read
    /// (GDB sends `initialized` right after its answer to `initialize`, before any warm-up
    /// command is answered; a kept launch's up to `initialized`).
    events: Vec<Value>,
    /// The `seq` of its next request: the session numbers its own from there.
    next_seq: i64,
}

impl WarmAdapter {
    /// Spawns `adapter` as a session would (no program's streams, no address: a warm adapter
    /// serves only launches and attaches that start it that way) and asks it `initialize`. It is
    /// of the daemon's process tree, so it dies with the daemon, but the `reaper` keeps the end
    /// of a session (which ends what is left of the tree) off it. One that is the program's own
    /// process is started in `context`, tagged as of the daemon's tree.
    pub async fn open(
        adapter: Arc<dyn DebugAdapter>,
        context: Option<ProcessContext>,
        timeouts: &Timeouts,
        reaper: Option<Arc<Reaper>>,
    ) -> Result<WarmAdapter, ErrorBody> {
        if !adapter.profile().warm.keeps_warm() {
            return Err(ErrorBody::new(
                ErrorCode::Unsupported,
                format!("the {} adapter is not kept warm", adapter.name()),
                "",
            ));
        }
        let context = match context {
            Some(context) if adapter.profile().warm.as_program() => {
                let tag = std::env::var(TREE_TAG_VARIABLE).unwrap_or_default();
                Some(context.with_variable(TREE_TAG_VARIABLE, &tag))
            }
            None if adapter.profile().warm.as_program() => {
                return Err(ErrorBody::internal(format!(
                    "a warm {} adapter needs the folder and environment of a launch",
                    adapter.name()
                )));
            }
            Some(context) if adapter.profile().warm.keeps_launch() && context.launch.is_some() => {
                Some(context)
            }
            _ => None,
        };
        // Noted before the start that reads them (see `Watched::settled_before`).
        let started = SystemTime::now();
        let inputs = Watched::now(
            context
                .as_ref()
                .map(|c| adapter.profile().warm.start_inputs(c))
                .unwrap_or_default(),
        );
        let spawning = async {
            match &context {
                Some(context) => adapter.spawn(Start::Prepared(context)).await,
                None => adapter.spawn(Start::Plain).await,
            }
        };
        let spawned = match &reaper {
            Some(reaper) => {
                reaper
                    .start_apart(spawning, |spawned| spawned.process.pid)
                    .await?
            }
            None => spawning.await?,
        };
        let mut warm = WarmAdapter {
            adapter,
            spawned,
            caps: Capabilities::default(),
            watched: Watched(Vec::new()),
            context,
            kept: None,
            reaper,
            inputs,
            events: Vec::new(),
            next_seq: 1,
        };
        let arguments = initialize_arguments(&*warm.adapter, false);
        let answer = tokio::time::timeout(timeouts.launch(), async {
            let caps = warm.initialize(&arguments).await?;
            warm.prepare().await?;
            let watched = match warm.keep_launch().await? {
                Some(kept) => Watched::of(&kept),
                None => Watched::of(&caps.debugger_watched_paths),
            };
            Ok::<_, String>((caps, watched))
        })
        .await;
        match answer {
            Ok(Ok((_, watched))) if !watched.settled_before(started) => {
                warm.end();
                Err(ErrorBody::new(
                    ErrorCode::AdapterDied,
                    "what the warm program's start read changed as it started",
                    "",
                ))
            }
            Ok(Ok((caps, watched))) => {
                warm.caps = caps;
                warm.watched = watched;
                Ok(warm)
            }
            Ok(Err(message)) => {
                warm.end();
                Err(ErrorBody::new(
                    ErrorCode::AdapterDied,
                    format!("the warm adapter failed to start: {message}"),
                    "",
                ))
            }
            Err(_) => {
                warm.end();
                Err(ErrorBody::new(
                    ErrorCode::AdapterTimeout,
                    "the warm adapter was not ready in time (initialize, or its kept launch)",
                    "",
                ))
            }
        }
    }

    /// A warm adapter another process lent us: its streams are a connection to that process,
    /// which relays them to the adapter; `caps` is what it answered to `initialize`.
    pub fn lent(adapter: Arc<dyn DebugAdapter>, spawned: SpawnedAdapter, lent: LendResult) -> Self {
        WarmAdapter {
            adapter,
            spawned,
            // Written by `into_raw` from capabilities read: they read back the same.
            caps: requests::decode::<Initialize>(lent.capabilities).unwrap_or_default(),
            watched: Watched(Vec::new()),
            context: None,
            kept: lent.kept,
            reaper: None,
            inputs: Watched(Vec::new()),
            events: lent.events,
            next_seq: lent.next_seq,
        }
    }

    /// Sends `initialize` (seq 1) and reads up to its answer, message by message and byte by
    /// byte, so that nothing after it is read ahead: the rest of the stream stays whole for
    /// the session's own reader. Whatever the adapter says before answering is its own chatter.
    async fn initialize(
        &mut self,
        arguments: &InitializeArguments,
    ) -> Result<Capabilities, String> {
        let arguments = serde_json::to_value(arguments).map_err(|e| e.to_string())?;
        let message = self.ask("initialize", arguments).await?;
        if message["success"] == false {
            return Err(message["message"].as_str().unwrap_or("refused").to_string());
        }
        // Read as the session's own `initialize` reads its answer.
        requests::decode::<Initialize>(message["body"].clone()).map_err(|e| e.to_string())
    }

    /// Runs the adapter's warm-up commands ([`crate::adapters::WarmPolicy::Spare`]), one
    /// `evaluate` at a time, each read
    /// up to its answer as `initialize` is. A command the adapter refuses is only logged: it was
    /// work ahead of time, which the launch does anyway.
    async fn prepare(&mut self) -> Result<(), String> {
        for command in self.adapter.profile().warm.commands() {
            tracing::debug!(%command, "a warm-up command");
            let answer = self.console(&command).await?;
            if answer["success"] == false {
                tracing::debug!(%command, answer = %answer["message"], "a warm-up command failed");
            }
        }
        Ok(())
    }

    /// For an adapter kept launched, started with a launch to keep: sends it, and holds it at
    /// `initialized` with the program's set-up done ([`WarmAdapter::send_kept_launch`]). Returns what the
    /// program's start-up read, to be watched as a warm pdb's is ([`Watched`]).
    async fn keep_launch(&mut self) -> Result<Option<Value>, String> {
        let Some(key) = self.context.as_ref().and_then(|c| c.launch.clone()) else {
            return Ok(None);
        };
        let program = key["program"]
            .as_str()
            .map(PathBuf::from)
            .unwrap_or_default();
        let setup = self.adapter.program_setup(&program).await;
        let facts = self.adapter.profile().warm.kept_launch_facts();
        let (kept, watched) = self.send_kept_launch(&key, setup, facts).await?;
        tracing::info!(pid = ?kept.program_pid, "a launch is kept at initialized");
        self.kept = Some(kept);
        Ok((!watched.is_null()).then_some(watched))
    }

    /// Sends `key`'s launch (with this process tree's tag, so that the daemon's clean-up ends what
    /// it starts) on a warm adapter's raw streams, and reads up to `initialized`, the events kept for
    /// the session; then runs the adapter's set-up for the program (`setup`, each a console
    /// expression) and asks the program its process id and what its start-up read (`facts`, see
    /// [`crate::adapters::WarmPolicy::KeptLaunch`]). Returns the launch's state and the list of what was
    /// read (`Value::Null` when the adapter watches nothing).
    async fn send_kept_launch(
        &mut self,
        key: &Value,
        setup: Vec<String>,
        facts: Option<String>,
    ) -> Result<(KeptLaunch, Value), String> {
        let mut arguments = key.clone();
        let tag = std::env::var(TREE_TAG_VARIABLE).unwrap_or_default();
        if let Some(env) = arguments.get_mut("env").and_then(Value::as_object_mut) {
            env.insert(TREE_TAG_VARIABLE.to_string(), Value::String(tag));
        }
        let seq = self.send("launch", arguments).await?;
        let mut kept = KeptLaunch {
            launch_seq: Some(seq),
            program_pid: None,
        };
        loop {
            let message = self.read().await?;
            match message["type"].as_str() {
                Some("event") => {
                    let initialized = message["event"] == "initialized";
                    if message["event"] == "process" {
                        kept.program_pid = pid_in(&message["body"]["systemProcessId"]);
                    }
                    self.keep_event(message);
                    if initialized {
                        break;
                    }
                }
                Some("response") if message["request_seq"] == seq => {
                    if message["success"] == false {
                        let why = message["message"].as_str().unwrap_or("refused");
                        return Err(format!("the launch failed: {why}"));
                    }
                    kept.launch_seq = None;
                }
                Some("request") => {
                    let command = message["command"].as_str().unwrap_or("a request");
                    return Err(format!("the adapter asked '{command}' of a kept launch"));
                }
                _ => {}
            }
        }
        for expression in setup {
            let answer = self.console(&expression).await?;
            if answer["success"] == false {
                tracing::debug!(%expression, answer = %answer["message"], "a kept launch's set-up failed");
            }
        }
        let watched = match facts {
            Some(expression) => {
                let answer = self.console(&expression).await?;
                let facts =
                    crate::adapters::hex_json(answer["body"]["result"].as_str().unwrap_or(""))
                        .ok_or("the kept program did not say what its start read")?;
                kept.program_pid = kept.program_pid.or_else(|| pid_in(&facts["pid"]));
                facts["watched"].clone()
            }
            None => Value::Null,
        };
        Ok((kept, watched))
    }

    /// Sends the request `command` with the next seq, and returns that seq; its answer is read
    /// by the caller ([`WarmAdapter::read`]).
    pub(super) async fn send(&mut self, command: &str, arguments: Value) -> Result<i64, String> {
        let seq = self.next_seq;
        self.next_seq += 1;
        let request = json!({
            "seq": seq,
            "type": "request",
            "command": command,
            "arguments": arguments,
        });
        let bytes = codec::encode(request.to_string().as_bytes());
        self.spawned
            .writer
            .write_all(&bytes)
            .await
            .map_err(|e| e.to_string())?;
        self.spawned
            .writer
            .flush()
            .await
            .map_err(|e| e.to_string())?;
        Ok(seq)
    }

    /// The next message of its stream, read byte by byte (see [`WarmAdapter::initialize`]).
    pub(super) async fn read(&mut self) -> Result<Value, String> {
        read_message(&mut self.spawned.reader).await
    }

    /// Keeps an event it sent for the session that takes it, which reads it first.
    pub(super) fn keep_event(&mut self, event: Value) {
        self.events.push(event);
    }

    /// Sends the request `command` and reads the stream up to its answer, keeping the events
    /// that come meanwhile (see [`WarmAdapter::initialize`]).
    async fn ask(&mut self, command: &str, arguments: Value) -> Result<Value, String> {
        let seq = self.send(command, arguments).await?;
        loop {
            let message = self.read().await?;
            if message["type"] == "response" && message["request_seq"] == seq {
                return Ok(message);
            }
            if message["type"] == "event" {
                self.keep_event(message);
            }
        }
    }

    /// [`WarmAdapter::ask`] for an `evaluate` of `expression` in the adapter's console.
    pub(super) async fn console(&mut self, expression: &str) -> Result<Value, String> {
        let arguments = json!({"expression": expression, "context": "repl"});
        self.ask("evaluate", arguments).await
    }

    /// The adapter's canonical name (`lldb`).
    pub fn adapter_name(&self) -> &'static str {
        self.adapter.name()
    }

    /// The adapter it is one of.
    pub fn adapter(&self) -> Arc<dyn DebugAdapter> {
        self.adapter.clone()
    }

    pub fn pid(&self) -> Option<u32> {
        self.spawned.process.pid
    }

    /// Where it was started, for one that is the program's own process, or where its program
    /// starts, for one kept launched.
    pub fn context(&self) -> Option<&ProcessContext> {
        self.context.as_ref()
    }

    /// For a kept launch: the program it launched, and that program's process.
    pub fn kept_program(&self) -> Option<(String, Option<u32>)> {
        let kept = self.kept.as_ref()?;
        let launch = self.context.as_ref()?.launch.as_ref()?;
        let program = launch["module"]
            .as_str()
            .map(|module| format!("python -m {module}"))
            .or_else(|| launch["program"].as_str().map(str::to_string))?;
        Some((program, kept.program_pid))
    }

    /// Whether it can serve a session of the adapter `name` run from `executable`, launching in
    /// `context`: the same kind from the same executable (the config names both), still alive,
    /// and, for one that is the program's own process, started as that launch's would be, with
    /// the folders its start-up read unchanged.
    pub fn fits(&self, name: &str, executable: &Path, context: Option<&ProcessContext>) -> bool {
        let kind_fits = self.adapter.name() == name
            && self.adapter.executable() == executable
            && !self.spawned.process.has_exited();
        let context_fits = match (&self.context, context) {
            (None, _) => true,
            (Some(own), Some(wanted)) => {
                let starts_like = own.starts_like(wanted, TREE_TAG_VARIABLE);
                let same_launch = own.launch == wanted.launch;
                let unchanged = self.watched.unchanged() && self.inputs.unchanged();
                tracing::debug!(starts_like, same_launch, unchanged, "a warm program's fit");
                starts_like && same_launch && unchanged
            }
            (Some(_), None) => false,
        };
        let program_alive = match &self.kept {
            Some(kept) => kept.program_pid.is_none_or(crate::platform::is_running),
            None => true,
        };
        kind_fits && context_fits && program_alive
    }

    /// Ends it: the adapter has no program that ran, so there is nothing to disconnect from;
    /// what a launch sent to keep started below it (a launcher, the program), kept or not yet,
    /// ends with it.
    pub fn end(self) {
        if self.context.as_ref().is_some_and(|c| c.launch.is_some()) {
            end_with_its_program(&self.spawned.process);
        } else {
            self.spawned.process.kill();
        }
        self.rejoin_tree();
    }

    /// Gives it back to the tree whose end kills it: a session's, or none, as it ends.
    fn rejoin_tree(&self) {
        if let (Some(reaper), Some(pid)) = (&self.reaper, self.pid()) {
            reaper.rejoin(pid);
        }
    }

    /// Its raw streams and process, and its answer to `initialize`, for a relay to another
    /// process; it is again of the daemon's tree, whose next clean-up ends it.
    pub fn into_raw(self) -> (SpawnedAdapter, LendResult) {
        self.rejoin_tree();
        let lent = LendResult {
            adapter_pid: self.spawned.process.pid,
            capabilities: serde_json::to_value(&self.caps).unwrap_or_default(),
            kept: self.kept,
            events: self.events,
            next_seq: self.next_seq,
        };
        (self.spawned, lent)
    }

    /// Its connection, answer to `initialize`, kept launch and the events it sent meanwhile (to
    /// be read first), for a session starting as [`serves`] allows.
    pub(super) fn into_parts(self, timeouts: &Timeouts) -> (Connection, Handover) {
        self.rejoin_tree();
        let handover = Handover {
            caps: self.caps,
            kept: self.kept,
            events: self.events,
            next_seq: self.next_seq,
        };
        (Connection::over(self.spawned, timeouts), handover)
    }
}

/// What a session taking a warm adapter starts from (see [`WarmAdapter::into_parts`]).
pub(super) struct Handover {
    pub(super) caps: Capabilities,
    pub(super) kept: Option<KeptLaunch>,
    /// The events it sent before the session read its stream, in order.
    pub(super) events: Vec<Value>,
    /// The first `seq` its stream has not seen, for the session's own requests.
    pub(super) next_seq: i64,
}

/// Kills an adapter that was sent a launch ahead of its session, and what that launch started
/// below it (the launcher, the program): those are left to the daemon, not the session's tree,
/// once the adapter is gone (see `platform::end_below`).
pub fn end_with_its_program(process: &AdapterProcess) {
    let below = process
        .pid
        .map(|pid| (pid, crate::platform::descendants_of(pid)));
    // Killed here and now, not by the thread below: a daemon that exits next (its warm time
    // up, nothing else held) would end that thread before it ran.
    for pid in below.iter().flat_map(|(_, below)| below) {
        let _ = crate::platform::kill(*pid);
    }
    process.kill();
    if let Some((pid, below)) = below {
        // Off the caller's thread: it waits for the adapter's death, then collects theirs.
        std::thread::spawn(move || crate::platform::end_below(pid, &below));
    }
}

/// The folders a warm program's process read as it started, with their modification times
/// then (`debuggerWatchedPaths` in its answer to `initialize`, see the pdb server's
/// `watched_paths`, or what a kept launch's program tells): a package installed or removed
/// since changes one of them.
struct Watched(Vec<(PathBuf, Option<u64>)>);

impl Watched {
    /// As listed: `[[path, modified], ...]`.
    fn of(listed: &Value) -> Watched {
        let listed = listed.as_array();
        Watched(
            listed
                .into_iter()
                .flatten()
                .filter_map(|entry| {
                    let path = entry[0].as_str()?;
                    Some((PathBuf::from(path), entry[1].as_u64()))
                })
                .collect(),
        )
    }

    /// `paths` with their modification times now.
    fn now(paths: Vec<PathBuf>) -> Watched {
        Watched(
            paths
                .into_iter()
                .map(|path| {
                    let modified = modified_nanos(&path);
                    (path, modified)
                })
                .collect(),
        )
    }

    /// Whether nothing here was changed from just before `started` on: the warm program's
    /// interpreter started after `started`, and tells what it read only later (a kept debugpy
    /// launch, once at `initialized`, about a second on): a change in between (a package
    /// installed as the last session ends) would have been missed by its start and yet be
    /// recorded as how things were. The margin covers file times' coarser clock.
    fn settled_before(&self, started: SystemTime) -> bool {
        let margin = Duration::from_millis(50);
        let Some(limit) = started
            .checked_sub(margin)
            .and_then(|t| t.duration_since(UNIX_EPOCH).ok())
            .and_then(|t| u64::try_from(t.as_nanos()).ok())
        else {
            return false;
        };
        self.0
            .iter()
            .all(|(_, modified)| modified.is_none_or(|nanos| nanos < limit))
    }

    /// Whether every folder has the modification time it had (or is still missing).
    fn unchanged(&self) -> bool {
        self.0
            .iter()
            .all(|(path, then)| modified_nanos(path) == *then)
    }
}

/// A file's modification time in nanoseconds since 1970, as Python's `st_mtime_ns` gives it.
fn modified_nanos(path: &Path) -> Option<u64> {
    let modified = std::fs::metadata(path).ok()?.modified().ok()?;
    let since = modified.duration_since(UNIX_EPOCH).ok()?;
    u64::try_from(since.as_nanos()).ok()
}

/// One DAP message read byte by byte (see [`WarmAdapter::initialize`]).
async fn read_message(reader: &mut (impl AsyncRead + Unpin)) -> Result<Value, String> {
    let mut header = Vec::new();
    while !header.ends_with(b"\r\n\r\n") {
        if header.len() > codec::MAX_HEADER_BYTES {
            return Err("a message header too long".into());
        }
        let byte = reader.read_u8().await.map_err(|e| e.to_string())?;
        header.push(byte);
    }
    let header = String::from_utf8_lossy(&header);
    let length = header
        .lines()
        .find_map(|line| {
            let (name, value) = line.split_once(':')?;
            name.trim()
                .eq_ignore_ascii_case("Content-Length")
                .then(|| value.trim().parse::<usize>().ok())?
        })
        .filter(|length| *length <= codec::MAX_BODY_BYTES)
        .ok_or("a message without a readable Content-Length")?;
    let mut body = vec![0; length];
    reader
        .read_exact(&mut body)
        .await
        .map_err(|e| e.to_string())?;
    serde_json::from_slice(&body).map_err(|e| e.to_string())
}

/// Whether a session of `adapter` that starts it this way can run on a warm one: the warm adapter
/// was spawned with no program's streams and no address, and told it may not ask to start the
/// program, so only a session that would start it the same way may take it. Everything else
/// about the program (its path, arguments, working directory, environment, its streams' paths)
/// goes in `launch`, which the warm adapter has not been sent yet. A warm program's process
/// ([`crate::adapters::WarmPolicy::AsProgram`]) takes the channels' paths in `launch` rather than being
/// started on them, which pipes allow and a terminal (`tty`) does not: a program started on one
/// has it as its controlling terminal, and line-buffers its output, from its first instruction.
pub(super) fn serves(
    adapter: &dyn DebugAdapter,
    connects: bool,
    route: Option<StdioRoute>,
    asks_terminal: bool,
    tty: bool,
) -> bool {
    let streams_fit = if adapter.profile().warm.as_program() {
        route == Some(StdioRoute::AdapterStreams) && !tty
    } else {
        route != Some(StdioRoute::AdapterStreams)
    };
    adapter.profile().warm.keeps_warm()
        && (!connects || adapter.profile().connects_itself)
        && streams_fit
        && !asks_terminal
}

/// A process id, as a DAP body or the program's facts give it.
fn pid_in(value: &Value) -> Option<u32> {
    value.as_u64().and_then(|pid| u32::try_from(pid).ok())
}
