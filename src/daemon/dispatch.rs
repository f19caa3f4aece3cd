//! Requests answered: each `Command` routed to the session (one line each), and the policy of
//! the commands that change which session there is (`start`, `attach`, `stop`, `detach`,
//! `restart`, `status`).
//!
//! Apart from start-up because this is what every request goes through, for as long as the
//! daemon serves; the slot it reads and swaps is in `slot.rs`.

use std::sync::Arc;
use std::time::Duration;

use serde::Serialize;
use serde_json::Value;

use super::Daemon;
use super::command_kinds::{reads_the_stop, would_run};
use super::run_state::Phase;
use super::session::{AskedBy, Carried, Origin, Session, StopAsk, cannot_run, kept_launch};
use super::slot::{Slot, ending, still_starting};
use super::warm::WarmSource;
use crate::adapters::{self, RequestExtras};
use crate::common::config::Config;
use crate::common::error::{ErrorBody, ErrorCode};
use crate::common::paths;
use crate::common::user_files::{self, Role};
use crate::ipc::protocol::{
    BreakpointList, Command, EvaluatingInfo, ExecutionResult, MessageResult, RemovedBreakpoints,
    SessionState, SignalInfo, StartResult, StatusResult, WaitSpec,
};

fn to_value<T: Serialize>(value: T) -> Result<Value, ErrorBody> {
    serde_json::to_value(value)
        .map_err(|e| ErrorBody::internal(format!("cannot encode a result: {e}")))
}

/// An evaluation's limit as a command gave it, checked: seconds above 0.
fn evaluation_limit(secs: Option<f64>) -> Result<Option<Duration>, ErrorBody> {
    secs.map(|secs| {
        Duration::try_from_secs_f64(secs)
            .ok()
            .filter(|limit| !limit.is_zero())
            .ok_or_else(|| {
                ErrorBody::usage(
                    format!("invalid evaluation timeout {secs}"),
                    "give a number of seconds above 0, e.g. --timeout 10",
                )
            })
    })
    .transpose()
}

fn wait_duration(wait: Option<WaitSpec>) -> Result<Option<Duration>, ErrorBody> {
    wait.map(|w| {
        Duration::try_from_secs_f64(w.timeout_secs).map_err(|_| {
            ErrorBody::usage(
                format!("invalid timeout {}", w.timeout_secs),
                "give a number of seconds, e.g. --timeout 30",
            )
        })
    })
    .transpose()
}

impl Daemon {
    /// What a waiting command's stop report carries: the locals its `--locals` asks for (else
    /// the config's), the displays, and its `-p` expressions.
    fn stop_ask(&self, wait: Option<&WaitSpec>) -> StopAsk {
        let locals = wait
            .and_then(|w| w.locals)
            .unwrap_or(self.config.defaults.stop_locals);
        let prints = wait.map(|w| w.prints.clone()).unwrap_or_default();
        StopAsk::waited(locals, prints)
    }

    pub async fn handle(self: &Arc<Self>, command: Command) -> Result<Value, ErrorBody> {
        if would_run(&command)
            && let Ok(session) = self.session()
            && let Origin::Core(spec) = session.origin()
        {
            // Here rather than in each front door: every client (CLI, MCP) gets the same answer,
            // and none of these reaches an adapter that might try.
            return Err(cannot_run(&spec.program));
        }
        // Held for the whole command: a resume from another client waits for it to finish.
        let reader = reads_the_stop(&command)
            .then(|| self.session().ok())
            .flatten();
        let _held = match &reader {
            Some(session) => Some(session.hold_stop().await),
            None => None,
        };
        super::log_privacy::hide_environment_of(&command);
        match command {
            Command::Start { spec, first_stop } => {
                self.start(Origin::Launch(spec), first_stop).await
            }
            Command::Attach(spec) => self.start(Origin::Attach(spec), None).await,
            Command::Core(spec) => self.start(Origin::Core(spec), None).await,
            Command::Status => self.status().await,
            Command::Listing => self.listing().await,
            Command::Warm {
                adapter,
                executable,
                context,
            } => self.warm_for(&adapter, executable, context),
            // Served by the connection itself (`server.rs`), which turns into the relay.
            Command::Lend { .. } => Err(ErrorBody::internal("a lend reached the dispatcher")),
            Command::Tether { .. } => Err(ErrorBody::internal("a tether reached the dispatcher")),
            Command::Stop => self.end(false).await,
            Command::Detach => self.end(true).await,
            Command::Restart { first_stop } => self.restart(first_stop).await,
            Command::BreakpointAdd(spec) => to_value(self.session()?.add_breakpoint(spec).await?),
            Command::BreakpointAddMany { specs } => to_value(BreakpointList {
                breakpoints: self.session()?.add_breakpoints(specs).await?,
            }),
            Command::BreakpointRemove { ids, all } => {
                if ids.is_empty() && !all {
                    return Err(ErrorBody::usage(
                        "no breakpoint ids given",
                        "name the ids ('debugger breakpoint remove 1 2') or use --all",
                    ));
                }
                let removed = self.session()?.remove_breakpoints(&ids, all).await?;
                to_value(RemovedBreakpoints { removed })
            }
            Command::BreakpointModify { ids, change } => to_value(BreakpointList {
                breakpoints: self.session()?.modify_breakpoints(&ids, &change).await?,
            }),
            Command::BreakpointList => to_value(BreakpointList {
                breakpoints: self.session()?.breakpoints().list(),
            }),
            Command::BreakpointEnable { ids, enabled } => to_value(BreakpointList {
                breakpoints: self.session()?.enable_breakpoints(&ids, enabled).await?,
            }),
            Command::Resume { action, wait } => {
                let ask = self.stop_ask(wait.as_ref());
                let wait = wait_duration(wait)?;
                let (state, stop) = self.session()?.resume(action, wait, &ask).await?;
                to_value(ExecutionResult {
                    action: action.verb().to_string(),
                    state,
                    stop,
                })
            }
            Command::Pause { wait } => {
                let ask = self.stop_ask(wait.as_ref());
                let wait = wait_duration(wait)?;
                let (state, stop) = self.session()?.pause(wait, &ask).await?;
                to_value(ExecutionResult {
                    action: "pause".into(),
                    state,
                    stop,
                })
            }
            Command::Await(wait) => {
                let ask = self.stop_ask(Some(&wait));
                let timeout = wait_duration(Some(wait))?.unwrap_or(Duration::MAX);
                to_value(self.session()?.await_stop(timeout, &ask).await?)
            }
            Command::Context => to_value(self.session()?.context(true).await?),
            Command::Backtrace { limit, thread } => {
                to_value(self.session()?.backtrace(limit, thread).await?)
            }
            Command::BacktraceAll { limit } => {
                to_value(self.session()?.all_backtraces(limit).await?)
            }
            Command::Threads => to_value(self.session()?.threads().await?),
            Command::SelectThread { id } => to_value(self.session()?.select_thread(id).await?),
            Command::SelectFrame(selection) => {
                to_value(self.session()?.select_frame(selection).await?)
            }
            Command::Locals {
                depth,
                full,
                changed,
                children,
            } => to_value(
                self.session()?
                    .locals(depth, full, changed, children)
                    .await?,
            ),
            Command::Evaluate {
                expression,
                depth,
                children,
                timeout_secs,
            } => {
                let limit = evaluation_limit(timeout_secs)?;
                to_value(
                    self.session()?
                        .evaluate(&expression, depth, children, AskedBy::Print, limit)
                        .await?,
                )
            }
            Command::DisplayAdd { expression } => {
                to_value(self.session()?.display_add(&expression).await?)
            }
            Command::DisplayList => to_value(self.session()?.display_list()),
            Command::DisplayRemove { id } => to_value(self.session()?.display_remove(id)?),
            Command::OutputRead(query) => {
                let output = self.session()?.output().clone();
                to_value(output.read(&query).await)
            }
            Command::Raw { text, timeout_secs } => {
                let limit = evaluation_limit(timeout_secs)?;
                to_value(self.session()?.raw(&text, limit).await?)
            }
            Command::SetVariable { name, value } => {
                to_value(self.session()?.set_variable(&name, &value).await?)
            }
            Command::Catch { filters } => to_value(self.session()?.catch(filters).await?),
            Command::MemoryRead { target, count } => {
                to_value(self.session()?.read_memory(&target, count).await?)
            }
            Command::Disassemble { target, count } => to_value(
                self.session()?
                    .disassemble(target.as_deref(), count)
                    .await?,
            ),
        }
    }

    /// Opens a session; `first_stop`: how long to wait for the program's first stop or end, to
    /// answer with its report (and what it carries).
    async fn start(
        self: &Arc<Self>,
        origin: Origin,
        first_stop: Option<WaitSpec>,
    ) -> Result<Value, ErrorBody> {
        // Checked before anything starts: a bad wait must not leave a session behind.
        wait_duration(first_stop.clone())?;
        if let Some(err) = &self.config_error {
            self.exit_once_answered();
            return Err(err.clone());
        }
        let previous = loop {
            // A `stop` that keeps a warm adapter empties the slot when it is done: wait for it.
            let settled = self.slot_settled.notified();
            tokio::pin!(settled);
            settled.as_mut().enable();
            if let Some(previous) = self.take_slot_for_start()? {
                break previous;
            }
            settled.await;
        };
        self.starts
            .fetch_add(1, std::sync::atomic::Ordering::SeqCst);
        if let Slot::Active(finished) = previous {
            finished.end(false).await;
        }
        let (initial, failure_functions): (&[_], _) = match &origin {
            Origin::Launch(spec) => (&spec.breakpoints, spec.failure_functions()),
            Origin::Attach(spec) => (&spec.breakpoints, Vec::new()),
            Origin::Core(_) => (&[], Vec::new()),
        };
        let carried = Carried::fresh(
            initial,
            &failure_functions,
            self.config.output.buffer_bytes,
            self.reaper.clone(),
        );
        self.activate(origin, carried, None, first_stop).await
    }

    /// Marks the slot `Starting` and returns what it held; `None`: a `stop` that keeps a warm
    /// adapter is still ending the session (wait, and ask again).
    fn take_slot_for_start(&self) -> Result<Option<Slot>, ErrorBody> {
        let mut slot = self.slot();
        let busy = match &*slot {
            Slot::Starting => true,
            Slot::Ending if self.spare.is_held() => return Ok(None),
            Slot::Ending => return Err(ending()),
            Slot::Active(session) => !session.run_state().phase.is_ended(),
            Slot::Empty => false,
        };
        if busy {
            return Err(ErrorBody::new(
                ErrorCode::SessionExists,
                format!(
                    "a debug session is already running (session '{}')",
                    self.name
                ),
                "stop it with 'debugger stop', or use another name with --session NAME",
            ));
        }
        self.starting();
        Ok(Some(std::mem::replace(&mut *slot, Slot::Starting)))
    }

    /// Opens a session into the `Starting` slot and reports it, with its first stop or end when
    /// that comes within `first_stop`. On failure the slot gets `fallback` back (a restart keeps
    /// its ended session, breakpoints and output), or is emptied.
    async fn activate(
        self: &Arc<Self>,
        origin: Origin,
        carried: Carried,
        fallback: Option<Arc<Session>>,
        first_stop: Option<WaitSpec>,
    ) -> Result<Value, ErrorBody> {
        let ask = self.stop_ask(first_stop.as_ref());
        let first_stop = wait_duration(first_stop)?;
        let requested_adapter = match &origin {
            Origin::Launch(spec) => spec.adapter.clone(),
            Origin::Core(spec) => spec.adapter.clone(),
            Origin::Attach(spec) => match (&spec.adapter, &self.config.defaults.adapter) {
                (None, None) => adapters::detect_attach_target(spec, &self.config)
                    .await
                    .map(str::to_string),
                (requested, _) => requested.clone(),
            },
        };
        let stop_on_entry = matches!(&origin, Origin::Launch(spec) if spec.stop_on_entry);
        let connects = matches!(&origin, Origin::Attach(spec) if spec.connect.is_some());
        let opened = if connects
            && requested_adapter.is_none()
            && self.config.defaults.adapter.is_none()
        {
            Err(ErrorBody::usage(
                "attach --connect needs --adapter NAME: the adapter at the other end cannot be identified",
                "e.g. 'debugger attach --connect 127.0.0.1:5678 --adapter debugpy'",
            ))
        } else {
            let opening = open_session(
                &self.config,
                origin,
                requested_adapter.as_deref(),
                carried,
                Some(&self.spare),
            );
            self.unless_cancelled(opening).await
        };
        let session = match opened {
            Ok(session) => session,
            Err(err) => {
                match fallback {
                    Some(previous) => {
                        previous.output().finish();
                        *self.slot() = Slot::Active(previous);
                    }
                    None => {
                        *self.slot() = Slot::Empty;
                        self.exit_once_answered();
                    }
                }
                self.slot_settled.notify_waiters();
                return Err(err);
            }
        };
        *self.slot() = Slot::Active(session.clone());
        self.slot_settled.notify_waiters();
        self.watch_lifetime(session.clone());
        tracing::info!(program = ?session.program(), "session started");

        // An entry stop and a core's are certain to come, so they are waited for as long as a
        // launch may take; any other first stop only as long as the caller asked.
        let stop = if stop_on_entry || session.is_core() {
            Some(
                session
                    .await_stop(self.config.timeouts.launch(), &ask)
                    .await?,
            )
        } else {
            match first_stop {
                Some(wait) => session.first_stop(wait, &ask).await?,
                None => None,
            }
        };
        let waited_secs = match (&stop, first_stop) {
            (None, Some(wait)) => Some(wait.as_secs_f64()),
            _ => None,
        };
        to_value(StartResult {
            session: self.name.clone(),
            program: session.program(),
            adapter: session.adapter_name().to_string(),
            state: session.run_state().phase.state(),
            daemon_pid: std::process::id(),
            adapter_pid: session.adapter_pid(),
            debuggee_pid: session.debuggee_pid(),
            breakpoints: session.breakpoints().list(),
            stop,
            waited_secs,
            warm: session.warm_start(),
        })
    }

    pub(super) async fn status(&self) -> Result<Value, ErrorBody> {
        let log_file = paths::log_path(&self.name).display().to_string();
        let session = match &*self.slot() {
            Slot::Active(session) => session.clone(),
            Slot::Starting => {
                return to_value(StatusResult {
                    session: self.name.clone(),
                    state: SessionState::Starting,
                    program: None,
                    adapter: None,
                    daemon_pid: std::process::id(),
                    adapter_pid: None,
                    debuggee_pid: None,
                    stop: None,
                    exit_code: None,
                    signal: None,
                    exit_note: None,
                    detail: None,
                    log_file,
                    warm: None,
                    evaluating: None,
                });
            }
            Slot::Ending => return Err(ending()),
            Slot::Empty => return Err(self.no_session()),
        };
        let state = session.run_state();
        let stop = if matches!(state.phase, Phase::Stopped(_)) {
            Some(session.report(&state).await)
        } else {
            None
        };
        let detail = match &state.phase {
            Phase::AdapterDied { detail } => Some(detail.clone()),
            _ => None,
        };
        let evaluating = match &state.phase {
            Phase::Evaluating(evaluation) => Some(EvaluatingInfo {
                expression: evaluation.expression.clone(),
                secs: evaluation.since.elapsed().as_secs_f64(),
            }),
            _ => None,
        };
        to_value(StatusResult {
            session: self.name.clone(),
            state: state.phase.state(),
            program: session.program(),
            adapter: Some(session.adapter_name().to_string()),
            daemon_pid: std::process::id(),
            adapter_pid: session.adapter_pid(),
            debuggee_pid: session.debuggee_pid(),
            stop,
            exit_code: session.exit_code(),
            signal: session.exit_signal().map(SignalInfo::of),
            exit_note: session.exit_note(),
            detail,
            log_file,
            warm: self.spare.info(),
            evaluating,
        })
    }

    pub(super) async fn end(self: &Arc<Self>, detach: bool) -> Result<Value, ErrorBody> {
        if matches!(*self.slot(), Slot::Starting) {
            self.cancel_start().await;
            if matches!(*self.slot(), Slot::Empty) {
                return to_value(MessageResult {
                    message: "the start was cancelled; nothing it began is left running".into(),
                });
            }
        }
        let session = match self.session() {
            Ok(session) => session,
            Err(err) => return self.end_warm_only(detach, err).await,
        };
        *self.slot() = Slot::Ending;
        // Spawned while the session ends, so it is ready the sooner.
        let warm = self.keep_warm(&session);
        if !warm {
            // Free the name first: from now on a `start` gets a new daemon rather than this
            // one, which shuts down once the answer is written (see `ends_daemon`).
            self.release_name();
        }
        let attached = matches!(session.origin(), Origin::Attach(_));
        let core = session.is_core();
        let ended = session.run_state().phase.is_ended();
        session.end(detach).await;
        let message = match (detach, attached, ended) {
            (_, _, true) => "session ended".to_string(),
            _ if core => "session ended; the core file is left as it was".to_string(),
            (true, _, false) | (false, true, false) => format!(
                "detached from {}; it keeps running",
                session.program().unwrap_or_else(|| "the program".into())
            ),
            (false, false, false) => "session ended; the program was terminated".to_string(),
        };
        let message = if warm {
            *self.slot() = Slot::Empty;
            self.slot_settled.notify_waiters();
            self.warm_note(message)
        } else {
            message
        };
        to_value(MessageResult { message })
    }

    async fn restart(self: &Arc<Self>, first_stop: Option<WaitSpec>) -> Result<Value, ErrorBody> {
        wait_duration(first_stop.clone())?;
        let session = {
            let mut slot = self.slot();
            let session = match &*slot {
                Slot::Active(session) => session.clone(),
                Slot::Starting => return Err(still_starting()),
                Slot::Ending => return Err(ending()),
                Slot::Empty => return Err(self.no_session()),
            };
            if let Origin::Core(spec) = session.origin() {
                return Err(cannot_run(&spec.program));
            }
            if matches!(session.origin(), Origin::Attach(_)) {
                return Err(ErrorBody::new(
                    ErrorCode::Unsupported,
                    "restart needs a launched program; this session is attached to a process",
                    "use 'debugger detach', then 'debugger attach <pid>' again",
                ));
            }
            *slot = Slot::Starting;
            self.starting();
            session
        };
        // lldb-dap's own `restart` neither reports the new process nor honours --stop-on-entry,
        // so a restart is always: end the old run, launch again with the same arguments, and
        // re-send every breakpoint (same ids) in the new run's configuration phase; on a warm
        // adapter spawned while the old run ends, when the config keeps one.
        self.keep_warm(&session);
        session.end(false).await;
        let carried = session.carried();
        carried.output.reopen();
        self.activate(
            session.origin().clone(),
            carried,
            Some(session.clone()),
            first_stop,
        )
        .await
    }
}

/// Opens a session as every launch and attach does, in the daemon and in `probe` alike: the
/// adapter asked for (else the config's default, else the one the program calls for), with the
/// config's extra launch/attach fields and its timeouts.
///
/// `warm` is where a warm adapter may be had: the daemon's own, taken when it fits the adapter
/// the session resolves to (else ended), or, for a `probe`, one a daemon lends.
pub async fn open_session(
    config: &Config,
    origin: Origin,
    requested_adapter: Option<&str>,
    carried: Carried,
    warm: Option<&dyn WarmSource>,
) -> Result<Arc<Session>, ErrorBody> {
    let adapter = match &origin {
        Origin::Launch(spec) => {
            // Before anything opens it (the adapter choice reads its first bytes): the CLI
            // checked it too, but any client may ask, and the daemon must not wait on a FIFO.
            user_files::refuse_other_kinds(&spec.program, Role::Program)?;
            adapters::resolve(
                requested_adapter,
                config,
                Some(spec),
                spec.connect.is_some(),
            )?
        }
        Origin::Attach(spec) => {
            adapters::resolve(requested_adapter, config, None, spec.connect.is_some())?
        }
        Origin::Core(spec) => adapters::resolve_for_core(requested_adapter, config, &spec.program)?,
    };
    let extras = RequestExtras::from_config(&config.adapter(adapter.name()));
    let warm = match warm {
        Some(source) => {
            let context = kept_launch::warm_context(&*adapter, &origin, &extras);
            source.take_for(&adapter, context.as_ref()).await
        }
        None => None,
    };
    Session::open(
        adapter,
        origin,
        carried,
        config.timeouts.clone(),
        extras,
        warm,
    )
    .await
}
