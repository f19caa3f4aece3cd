//! The session's life from its opening to its end: spawn or connect to the adapter, then DAP's
//! configuration sequence (its order is the protocol's: docs/architecture.md, "Launch
//! sequence") with the adapter's set-up commands for the program, what a restart carries over,
//! and the ending: `stop`, `detach`, a probe's end, and a dead adapter's debuggee. The ending
//! decides which processes outlive the session (none we launched, every one we attached to),
//! who ends the program, the adapter or we, and whether its word is waited for.

use std::collections::VecDeque;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use serde_json::Value;
use tokio::sync::Notify;

use super::breakpoints::{Breakpoints, place_initial_breakpoints, refusal_error, send_target};
use super::events::handle_events;
use super::exception_filters::CaughtChoice;
use super::pending_lines;
use super::warm_adapter::{Connection, WarmAdapter, initialize_arguments, serves};
use super::{
    AdapterLink, Inspection, Origin, Program, RunControl, Session, Shared, core_dump, kept_launch,
    loaded_sources, sources,
};
use crate::adapters::process;
use crate::adapters::{
    AttachStop, Attaching, CoreOpening, DebugAdapter, RequestExtras, Start, StdioRoute,
};
use crate::common::config::Timeouts;
use crate::common::error::{ErrorBody, ErrorCode};
use crate::daemon::displays::Displays;
use crate::daemon::output::OutputBuffer;
use crate::daemon::program_start;
use crate::daemon::reaper::Reaper;
use crate::daemon::run_state::Phase;
use crate::dap::requests::{
    ConfigurationDone, Continue, Disconnect, DisconnectArguments, Evaluate, EvaluateArguments,
    Initialize, NoArguments, SetExceptionBreakpoints, ThreadArguments,
};
use crate::dap::types::Capabilities;
use crate::dap::{DapClient, DapError};
use crate::ipc::protocol::{BreakpointSpec, KeptLaunch};

/// Where a session's breakpoints and output live; passed on to the next session on restart.
#[derive(Clone)]
pub struct Carried {
    pub breakpoints: Arc<Breakpoints>,
    pub displays: Arc<Displays>,
    pub output: Arc<OutputBuffer>,
    /// The exception filters the user chose with `catch`, kept as breakpoints are.
    pub caught: Arc<CaughtChoice>,
    /// Told of each launched debuggee, to end it should the daemon be killed outright.
    pub reaper: Option<Arc<Reaper>>,
}

impl Carried {
    /// What a first run starts with: a registry holding `initial` and the session's own
    /// breakpoints on `failure_functions` (a test's, see `TestLaunch`), an empty output buffer
    /// of `output_bytes`, and the reaper to tell of the debuggee.
    pub fn fresh(
        initial: &[BreakpointSpec],
        failure_functions: &[String],
        output_bytes: usize,
        reaper: Option<Arc<Reaper>>,
    ) -> Carried {
        let breakpoints = Arc::new(Breakpoints::default());
        for bp in initial {
            breakpoints.add(bp.clone());
        }
        for name in failure_functions {
            breakpoints.registry().add_internal(BreakpointSpec {
                location: crate::common::location::Location::Function { name: name.clone() },
                requested: None,
                condition: None,
                hit_count: None,
                log_message: None,
            });
        }
        Carried {
            breakpoints,
            displays: Arc::default(),
            output: Arc::new(OutputBuffer::new(output_bytes)),
            caught: Arc::default(),
            reaper,
        }
    }
}

impl Session {
    /// Launches or attaches through `adapter` and runs the DAP configuration sequence, on `warm`
    /// when it is given and this session starts the adapter the way it was started (else `warm`
    /// is ended and a new adapter spawned).
    pub async fn open(
        adapter: Arc<dyn DebugAdapter>,
        mut origin: Origin,
        carried: Carried,
        timeouts: Timeouts,
        extras: RequestExtras,
        warm: Option<WarmAdapter>,
    ) -> Result<Arc<Session>, ErrorBody> {
        if let (Origin::Launch(spec), Some(tag)) = (
            &mut origin,
            carried.reaper.as_ref().and_then(|r| r.tree_tag()),
        ) {
            // The program gets the environment the caller gave (adapters do not pass on their
            // own), so the tree's tag goes in it: every process the program starts inherits it.
            spec.env
                .retain(|(key, _)| key != crate::platform::TREE_TAG_VARIABLE);
            spec.env.push((
                crate::platform::TREE_TAG_VARIABLE.to_string(),
                tag.to_string(),
            ));
        }
        let connect = match &origin {
            Origin::Launch(spec) => spec.connect.clone(),
            Origin::Attach(spec) => spec.connect.clone(),
            Origin::Core(_) => None,
        };
        // A process whose debugger server runs inside it is reached where that server listens.
        let dial = match (&origin, &connect, adapter.profile().server_of_process) {
            (Origin::Attach(spec), None, Some(server_of)) => match spec.pid {
                Some(pid) => Some(server_of(pid)?),
                None => None,
            },
            _ => connect.clone(),
        };
        if let (Origin::Attach(_), Attaching::Unsupported(why)) =
            (&origin, adapter.profile().attaching)
        {
            return Err(ErrorBody::new(
                ErrorCode::Unsupported,
                format!(
                    "the {} adapter cannot attach to a running program: {why}",
                    adapter.name()
                ),
                "start the program under the debugger instead: 'debugger start PROGRAM'",
            ));
        }
        // A core is checked before any adapter sees it (see `core_dump::inspect`).
        let core_facts = match &origin {
            Origin::Core(spec) => {
                if (adapter.profile().cores.opening)(spec).is_none() {
                    return Err(core_dump::unsupported(&*adapter));
                }
                Some(core_dump::inspect(spec)?)
            }
            _ => None,
        };
        let program_io = match &origin {
            Origin::Launch(spec) => {
                crate::daemon::program_io::for_launch(spec, &*adapter, &carried.output)?
            }
            Origin::Attach(_) | Origin::Core(_) => None,
        };
        let route = program_io
            .as_ref()
            .and_then(|_| adapter.profile().stdio)
            .map(|support| support.route);
        let asks_terminal = program_io.is_some() && route == Some(StdioRoute::StartedByDaemon);
        let tty = matches!(&origin, Origin::Launch(spec) if spec.tty);
        let warm = match warm {
            Some(warm) if serves(&*adapter, dial.is_some(), route, asks_terminal, tty) => {
                Some(warm)
            }
            Some(unfit) => {
                tracing::info!("the warm adapter does not fit this session; starting a new one");
                unfit.end();
                None
            }
            None => None,
        };
        let (connection, handover) = match warm {
            Some(warm) => {
                let (connection, handover) = warm.into_parts(&timeouts);
                (connection, Some(handover))
            }
            None => {
                let spawned = match (&dial, route, &program_io) {
                    (Some(address), _, _) if !adapter.profile().connects_itself => {
                        process::connect_remote(address, timeouts.launch()).await?
                    }
                    (_, Some(StdioRoute::AdapterStreams), Some(io)) => match &origin {
                        Origin::Launch(spec) => {
                            adapter
                                .spawn(Start::OnChannels {
                                    stdio: io.paths(),
                                    spec,
                                })
                                .await?
                        }
                        _ => adapter.spawn(Start::Plain).await?,
                    },
                    _ => adapter.spawn(Start::Plain).await?,
                };
                (Connection::over(spawned, &timeouts), None)
            }
        };
        crate::common::timeline::mark("adapter spawned");
        let warm_start = handover.is_some();
        let Connection {
            process,
            dap,
            events,
            program_output,
        } = connection;
        let (warm_caps, kept, events) = match handover {
            Some(handover) => {
                // What the warm adapter's stream has already seen comes first.
                dap.number_from(handover.next_seq);
                let events = match handover.events.is_empty() {
                    true => events,
                    false => kept_launch::replayed(handover.events, events),
                };
                (Some(handover.caps), handover.kept, events)
            }
            None => (None, None, events),
        };
        if let (Origin::Launch(spec), Some(StdioRoute::StartedByDaemon), Some(io)) =
            (&origin, route, &program_io)
        {
            dap.serve_run_in_terminal(program_start::runner(io.paths().clone(), spec.env.clone()));
        }
        let (streams_done, adapter_streams_done) = match program_output {
            Some(_) => {
                let (tx, rx) = tokio::sync::watch::channel(false);
                (Some(tx), Some(rx))
            }
            None => (None, None),
        };
        // The run's stops are counted afresh: a display has been shown at none of them.
        carried.displays.new_run();
        let pointer_names = adapter
            .profile()
            .rust_reading
            .is_some_and(|r| r.c_pointer_names)
            .then(Default::default);
        let shared = Arc::new(Shared {
            run: RunControl::default(),
            inspection: Inspection::new(timeouts.evaluate(), pointer_names),
            breakpoints: carried.breakpoints,
            displays: carried.displays,
            output: carried.output,
            initialized: Notify::new(),
            process_reported: Notify::new(),
            link: AdapterLink::new(adapter.clone(), process, dap, warm_start),
            adapter_log: Mutex::new(VecDeque::new()),
            exception_filters: Mutex::default(),
            caught: carried.caught,
            program: Program::new(
                matches!(origin, Origin::Launch(_)) && connect.is_none(),
                carried.reaper,
                program_io,
                adapter_streams_done,
            ),
            sources: sources::ProgramSources::new(adapter.as_ref(), &origin),
            loaded: Mutex::new(loaded_sources::Loaded::new(&origin)),
        });
        if let Origin::Launch(spec) = &origin {
            shared.run.expect_entry(spec.stop_on_entry);
            // Read before the breakpoints are first described (a few section headers).
            let program = spec.program.clone();
            let without = tokio::task::spawn_blocking(move || {
                crate::common::debug_info::has_debug_info(&program) == Some(false)
            })
            .await
            .unwrap_or(false);
            shared.breakpoints.registry().program_without_debug_info = without;
        }
        tokio::spawn(handle_events(events, shared.clone()));
        let mut opening = Opening {
            shared: shared.clone(),
            done: false,
        };
        if let (Some(mut stdio), Some(done)) = (program_output, streams_done) {
            // The debuggee writes to the adapter's own stdout and stderr (Delve).
            let output = shared.output.clone();
            tokio::spawn(async move {
                while let Some(chunk) = stdio.recv().await {
                    output.push_stream(chunk.category, &chunk.bytes);
                }
                let _ = done.send(true);
            });
        }

        let init = Init {
            caps: warm_caps,
            asks_terminal,
            kept,
        };
        let result = configure(
            &*adapter,
            &origin,
            &extras,
            shared.link.dap(),
            &shared,
            &timeouts,
            init,
        )
        .await;
        let session = match result {
            Ok(caps) => {
                shared.link.configured(caps);
                Arc::new(Session { origin, shared })
            }
            Err(err) => {
                drop(opening);
                let err = adapter.explain_start_failure(err);
                return Err(match &origin {
                    Origin::Core(_) => core_dump::opening_failed(&*adapter, err),
                    _ => err,
                });
            }
        };
        if let Some(facts) = core_facts
            && let Err(err) = session.settle_core_stop(facts, timeouts.launch()).await
        {
            opening.done = true;
            session.end(false).await;
            return Err(err);
        }
        opening.done = true;
        Ok(session)
    }

    pub fn carried(&self) -> Carried {
        Carried {
            breakpoints: self.shared.breakpoints.clone(),
            displays: self.shared.displays.clone(),
            output: self.shared.output.clone(),
            caught: self.shared.caught.clone(),
            reaper: self.shared.program.reaper(),
        }
    }
}

/// Ends what an opening started unless it finished: on a failure, and when the opening is
/// dropped where it waits (a start `stop` cancelled, the daemon shutting down), so no adapter,
/// channel or build product outlives it.
struct Opening {
    shared: Arc<Shared>,
    done: bool,
}

impl Drop for Opening {
    fn drop(&mut self) {
        if !self.done {
            self.shared.link.dap().close("the session failed to start");
            self.shared.link.process().kill();
            self.shared.program.release();
        }
    }
}

/// How `configure` begins: with the answer a warm adapter already gave to `initialize`, or by
/// asking it, telling the adapter whether it may ask us to start the program (only an adapter
/// that starts the program through us is told it may).
struct Init {
    caps: Option<Capabilities>,
    asks_terminal: bool,
    /// A launch the warm adapter was sent already and holds at `initialized` (`kept_launch.rs`).
    kept: Option<KeptLaunch>,
}

/// The DAP configuration sequence (docs/architecture.md, "Launch sequence"): initialize, then launch/attach without
/// waiting, then breakpoints once `initialized` arrives, then `configurationDone`, then the
/// launch/attach answer. An error answer at any point fails at once with the adapter's words.
async fn configure(
    adapter: &dyn DebugAdapter,
    origin: &Origin,
    extras: &RequestExtras,
    dap: &DapClient,
    shared: &Arc<Shared>,
    timeouts: &Timeouts,
    init: Init,
) -> Result<Capabilities, ErrorBody> {
    // A kept launch's set-up ran as it was kept.
    let setup = program_of(origin)
        .filter(|_| init.kept.is_none())
        .map(|program| adapter.program_setup(&program));
    let caps = match init.caps {
        Some(caps) => caps,
        None => {
            dap.send_typed::<Initialize>(&initialize_arguments(adapter, init.asks_terminal))
                .response_within(timeouts.launch())
                .await?
        }
    };
    crate::common::timeline::mark("initialize answered");

    // Hold the breakpoint lock through configuration so a concurrent `break` waits for it.
    let _sync = shared.breakpoints.sync.lock().await;
    shared.breakpoints.registry().reset_adapter_state(
        caps.supports_log_points,
        adapter.profile().conditions.hit_condition,
    );

    let (command, arguments) = match origin {
        Origin::Launch(spec) => {
            let arguments = match &init.kept {
                // What the kept launch was sent, which tells the adapter's own records so too.
                Some(_) => kept_launch::arguments(adapter, spec),
                // Where the program's streams go is the session's, not the user's, to say.
                None => {
                    let stdio = shared.program.io().as_ref().map(|io| io.paths().clone());
                    adapter.launch_arguments(spec, stdio.as_ref())
                }
            };
            ("launch", arguments)
        }
        Origin::Attach(spec) => ("attach", adapter.attach_arguments(spec)),
        Origin::Core(spec) => match (adapter.profile().cores.opening)(spec) {
            Some(CoreOpening::Request { command, arguments }) => (command, arguments),
            Some(CoreOpening::Console { commands, .. }) => {
                core_dump::open_by_console(dap, shared, &commands, timeouts.launch()).await?;
                if let Some(setup) = setup {
                    run_program_setup(dap, setup.await).await;
                }
                return Ok(caps);
            }
            None => return Err(core_dump::unsupported(adapter)),
        },
    };
    let arguments = extras.apply(command, arguments);
    if matches!(origin, Origin::Launch(_)) {
        shared
            .program
            .set_build_products((adapter.profile().build_products)(&arguments));
    }
    // Untyped on purpose: each adapter phrases these its own way, and the user's config adds
    // fields of its own (`RequestExtras`), so there is no one shape to type.
    // A kept launch's answer is still to come (or came with success, as it was kept).
    let pending = match &init.kept {
        Some(kept) => kept.launch_seq.map(|seq| dap.adopt(seq, command)),
        None => Some(dap.send(command, arguments)),
    };
    let limit = timeouts.launch();
    let answer = async move {
        match pending {
            Some(pending) => pending.response_within(limit).await,
            None => Ok(Value::Null),
        }
    };
    crate::common::timeline::mark(format_args!("{command} sent"));
    tokio::pin!(answer);
    let mut answered: Option<Result<Value, DapError>> = None;
    tokio::select! {
        _ = shared.initialized.notified() => {}
        result = &mut answer => {
            result.clone()?;
            answered = Some(result);
            // Some adapters answer the launch before `initialized`; wait for it all the same.
            tokio::time::timeout(timeouts.launch(), shared.initialized.notified())
                .await
                .map_err(|_| ErrorBody::new(
                    ErrorCode::AdapterTimeout,
                    "the debug adapter never finished initialising",
                    "the adapter may be broken or too old; the daemon log ('debugger status' names it) has its output",
                ))?;
        }
    }

    if let Some(setup) = setup {
        run_program_setup(dap, setup.await).await;
    }
    if let Some(setting) = adapter.profile().conditions.stop_on_failure_request
        && let Err(e) = dap
            .send(setting.command, (setting.arguments)())
            .response_within(limit)
            .await
    {
        // Conditions that raise are then taken as false, as the adapter does by itself.
        let command = setting.command;
        tracing::warn!(
            command,
            "the adapter would not stop where a condition fails: {e}"
        );
    }
    // A launched program is asked, beside its breakpoints, to tell the files it loads.
    let ask_loaded = async {
        if matches!(origin, Origin::Launch(_)) {
            loaded_sources::ask_at_exit(adapter, dap, shared).await;
        }
    };
    let place = async {
        place_initial_breakpoints(dap, shared).await;
        let targets = shared.breakpoints.registry().all_targets();
        for target in &targets {
            send_target(dap, shared, target).await;
        }
    };
    tokio::join!(ask_loaded, place);
    let refused = {
        let registry = shared.breakpoints.registry();
        let ids: Vec<u32> = registry.entries().iter().map(|e| e.id).collect();
        registry.refused_conditions(&ids)
    };
    if !refused.is_empty() {
        return Err(refusal_error(&refused, true, "the session did not start"));
    }
    crate::common::timeline::mark("breakpoints set");
    if let Some(offered) = &caps.exception_breakpoint_filters {
        let offered: Vec<&str> = offered.iter().map(|f| f.filter.as_str()).collect();
        let breaks_on_failure = matches!(origin, Origin::Launch(spec)
            if spec.test.as_ref().is_some_and(|test| test.break_on_failure));
        // A test's failure stop needs its own filters; otherwise what the user chose with
        // `catch` in an earlier run of this session, else the adapter's defaults.
        let wanted: Vec<String> = match shared.caught.get() {
            Some(chosen) if !breaks_on_failure => chosen,
            _ if breaks_on_failure => adapter
                .profile()
                .failure_exception_filters
                .iter()
                .map(|f| f.to_string())
                .chain(failure_exceptions(origin))
                .collect(),
            _ => adapter
                .profile()
                .exception_filters
                .iter()
                .map(|f| f.to_string())
                .collect(),
        };
        let (arguments, filters, classes) = super::exception_filters::exception_arguments(
            adapter.profile().exception_classes,
            &offered,
            wanted,
        );
        let answer = dap
            .request_typed::<SetExceptionBreakpoints>(&arguments)
            .await?;
        shared.set_exception_filters(filters, classes, &caps, &answer);
    }
    let configures = match origin {
        Origin::Attach(_) => adapter.profile().done_configuring_attach,
        _ => true,
    };
    if caps.supports_configuration_done_request && configures {
        dap.request_typed::<ConfigurationDone>(&NoArguments {})
            .await?;
        crate::common::timeline::mark("configurationDone answered");
    }
    match answered {
        Some(result) => result?,
        None => answer.await?,
    };
    crate::common::timeline::mark(format_args!("{command} answered"));
    if matches!(origin, Origin::Launch(_)) && adapter.profile().reports_process_after_launch {
        await_process_event(shared, PROCESS_EVENT_WAIT.min(timeouts.launch())).await;
    }
    if matches!(origin, Origin::Attach(_)) {
        match adapter.profile().attach_stop {
            AttachStop::Running => {}
            AttachStop::Stopped => {
                release_attach_stop(dap, shared, 0, timeouts.launch()).await?;
            }
            AttachStop::StoppedTwice => {
                if let Some(released) =
                    release_attach_stop(dap, shared, 0, timeouts.launch()).await?
                {
                    release_attach_stop(dap, shared, released, SECOND_ATTACH_STOP_WAIT).await?;
                }
            }
        }
    }
    shared
        .run
        .set_if(Phase::Running, |s| s.phase == Phase::Starting);
    pending_lines::explain_all(dap, shared).await;
    Ok(caps)
}

/// How long a start waits for a `process` event due just after `launch`'s answer.
const PROCESS_EVENT_WAIT: Duration = Duration::from_secs(2);

/// Waits for the `process` event an adapter sends just after answering `launch`, so that the
/// start's report names the program's pid. Bounded: an adapter that never sends it (a program
/// that ended at once, an adapter's change) costs the wait, not the start.
async fn await_process_event(shared: &Shared, limit: Duration) {
    let reported = shared.process_reported.notified();
    if shared.program.facts().pid.is_some() {
        return;
    }
    if tokio::time::timeout(limit, reported).await.is_err() {
        tracing::debug!("no process event after the launch's answer");
    }
}

/// The program file a session debugs, where it is on this machine (not behind `--connect`).
/// The exception classes a launched test's runner raises on every failure (see `TestLaunch`).
fn failure_exceptions(origin: &Origin) -> Vec<String> {
    match origin {
        Origin::Launch(spec) => spec
            .test
            .as_ref()
            .map(|test| test.failure_exceptions.clone())
            .unwrap_or_default(),
        _ => Vec::new(),
    }
}

fn program_of(origin: &Origin) -> Option<std::path::PathBuf> {
    match origin {
        Origin::Launch(spec) if spec.connect.is_none() => Some(spec.program.clone()),
        Origin::Core(spec) => Some(spec.program.clone()),
        Origin::Attach(spec) if spec.connect.is_none() => {
            spec.pid.and_then(crate::platform::executable_of)
        }
        _ => None,
    }
}

/// How long after its release a program attached to by an adapter that stops it twice
/// ([`AttachStop::StoppedTwice`]) may take to stop the second time: the interrupt is taken as
/// the program resumes, a few milliseconds after; when the two interrupts fell together there
/// is no second stop, and this is what the attach costs.
const SECOND_ATTACH_STOP_WAIT: Duration = Duration::from_millis(500);

/// Continues the stop the adapter made as it attached (see [`AttachStop`]), the first one after
/// generation `after` that comes within `limit`; the generation it left the program running
/// at, or `None` when no stop came (or something else happened first).
async fn release_attach_stop(
    dap: &DapClient,
    shared: &Shared,
    after: u64,
    limit: Duration,
) -> Result<Option<u64>, ErrorBody> {
    let Some(state) = shared.run.wait_settled_after(after, limit).await else {
        return Ok(None);
    };
    let Phase::Stopped(stop) = &state.phase else {
        return Ok(None);
    };
    let Some(running) = shared.run.advance_if(Phase::Running, state.generation) else {
        return Ok(None);
    };
    let thread_id = stop.thread_id.unwrap_or(1);
    dap.request_typed::<Continue>(&ThreadArguments { thread_id })
        .await?;
    Ok(Some(running))
}

/// Whether a set-up command's console output says it failed: a line that starts with the
/// debugger's `error:`, a Python traceback or exception line (`NameError: …`, GDB's `Python
/// Exception <…>`). Not any `Error` in the text: Rust's formatter script, echoed back, names
/// `SBError`, and every Rust launch logged a failure that was none.
fn reports_failure(output: &str) -> bool {
    output.lines().map(str::trim_start).any(|line| {
        line.starts_with("error:")
            || line.starts_with("Traceback (most recent call last)")
            || line.starts_with("Python Exception")
            || line.split_once(": ").is_some_and(|(head, _)| {
                !head.contains(' ') && (head.ends_with("Error") || head.ends_with("Exception"))
            })
    })
}

/// Runs the adapter's set-up commands for the program (see `DebugAdapter::program_setup`) in its
/// console. A failure costs the session only what the commands would have added (e.g. Rust
/// values shown raw), so it is logged, not fatal.
async fn run_program_setup(dap: &DapClient, commands: Vec<String>) {
    for command in commands {
        let answer = dap
            .request_typed::<Evaluate>(&EvaluateArguments::repl(&command, None))
            .await;
        match crate::adapters::console_answer(answer) {
            Ok(output) if reports_failure(&output) => {
                tracing::warn!(command, output, "the program's set-up command failed");
            }
            Ok(_) => tracing::debug!(command, "ran the program's set-up command"),
            Err(e) => tracing::warn!(command, "the program's set-up command failed: {e}"),
        }
    }
}

/// How long a probe's end waits for the program's last output on the adapter's streams.
const STREAMS_END_LIMIT: Duration = Duration::from_secs(2);

impl Session {
    /// Ends the session: the launched debuggee is terminated (or, with `detach`, left running),
    /// an attached one is detached, and the adapter exits (or is killed). Unless detaching, what
    /// is left of the tree the adapter started (the program's children) is killed too; an
    /// attached process is not of it (neither our descendant nor carrying our tag).
    pub async fn end(&self, detach: bool) {
        self.end_as(detach, true).await;
    }

    /// Ends the session of a process about to exit whose reaper is never disarmed (`probe`):
    /// as [`Session::end`], but what is left of the program's tree is killed in the background,
    /// not waited for. The reaper kills whatever remains once this process is gone; waiting
    /// here cost a probe 20-45 ms on the bench (two scans of every process's environment).
    pub async fn end_before_exit(&self) {
        self.end_as(false, false).await;
    }

    async fn end_as(&self, detach: bool, wait_for_tree: bool) {
        crate::common::timeline::mark("session ending");
        self.shared.program.begin_ending();
        if self.shared.link.process().has_exited() && !detach {
            // No adapter is left to terminate the program it launched.
            let _ = self.kill_launched_debuggee();
        }
        let terminate = !detach && matches!(self.origin, Origin::Launch(_));
        // A probe that killed the program itself (its output is in pipes we read) wants
        // nothing from the adapter's answer to `disconnect`: Delve took 1-200 ms to give it.
        let killed_first = !wait_for_tree && terminate && self.kill_program_first();
        if terminate && !killed_first && matches!(self.shared.run.get().phase, Phase::Evaluating(_))
        {
            // An adapter busy with an evaluation it cannot interrupt (Delve) reads no
            // `disconnect` until the program stops running it: the program goes first.
            self.kill_launched_debuggee();
        }
        let mut disconnected = killed_first;
        if !terminate && !self.shared.link.process().has_exited() {
            super::leaving::prepare(self.dap(), &self.shared, self.adapter().profile()).await;
        }
        if !killed_first && !self.shared.link.process().has_exited() {
            let disconnect = self.dap().send_typed::<Disconnect>(&DisconnectArguments {
                terminate_debuggee: terminate,
                restart: false,
            });
            match disconnect.response_within(Duration::from_secs(5)).await {
                Ok(_) => {
                    crate::common::timeline::mark("disconnect answered");
                    disconnected = true
                }
                Err(e) => tracing::warn!("disconnect failed: {e}"),
            }
            self.dap().end_input();
        }
        if disconnected {
            // The adapter has ended or left the program as asked: its own way out (lldb-dap
            // takes 150-400 ms) is not waited for. Its exit is collected in the background,
            // and what it leaves is the tree's, ended below.
            self.shared.link.process().kill();
        } else {
            self.shared
                .link
                .process()
                .shut_down(Duration::from_secs(2))
                .await;
        }
        if detach {
            crate::platform::release_children();
        } else if let Some(reaper) = self.shared.program.reaper() {
            // What the program started (children in its group, double forks after `setsid`, a
            // shell's pipeline) is not the adapter's to end: the daemon ends it. It blocks for
            // a few short rounds, so off the runtime's thread.
            let ending = tokio::task::spawn_blocking(move || reaper.end_tree());
            if wait_for_tree {
                let _ = ending.await;
            }
        }
        crate::common::timeline::mark("session tree ended");
        if killed_first {
            self.await_adapter_streams().await;
        }
        self.dap().close("the session has ended");
        self.shared.program.release();
        self.shared.output.finish();
        if !self.shared.run.get().phase.is_ended() {
            let (exit_code, signal) = {
                let facts = self.shared.program.facts();
                (facts.exit_code, facts.signal)
            };
            self.shared.run.set(Phase::Exited { exit_code, signal });
        }
    }

    /// Ends a process about to exit (a probe) by killing the program itself, when nothing the
    /// adapter could still say is wanted: the program's output comes through our own channels
    /// (every byte it wrote is in their pipes, read by `take_program_output` below), and its
    /// end by our kill is no exit to report. Whether the program was killed; false leaves the
    /// ending to the adapter's `disconnect`.
    fn kill_program_first(&self) -> bool {
        let program = &self.shared.program;
        let output_is_ours = program.reads_streams() || program.adapter_streams_done().is_some();
        if !output_is_ours || self.shared.run.get().phase.is_ended() {
            return false;
        }
        if !self.kill_launched_debuggee() {
            return false;
        }
        crate::common::timeline::mark("program killed");
        true
    }

    /// Waits until the adapter's own streams, which carry the killed program's output, have
    /// ended: at once when the adapter and the program are dead, later only when the program
    /// left a child holding them (the tree's end, under way, kills it), never past
    /// [`STREAMS_END_LIMIT`].
    async fn await_adapter_streams(&self) {
        let Some(mut done) = self.shared.program.adapter_streams_done() else {
            return;
        };
        let ended = done.wait_for(|done| *done);
        if tokio::time::timeout(STREAMS_END_LIMIT, ended)
            .await
            .is_err()
        {
            tracing::warn!("the adapter's streams did not end; the program's output may be cut");
        }
        crate::common::timeline::mark("program output read");
    }

    /// Kills the debuggee this session launched (when its adapter died and left it behind, or
    /// for [`Session::kill_program_first`]): whether it was found and killed.
    pub fn kill_launched_debuggee(&self) -> bool {
        self.shared.program.kill_launched()
    }
}

#[cfg(test)]
mod tests {
    use super::reports_failure;

    #[test]
    fn a_set_up_failure_is_told_from_output_that_names_an_error_type() {
        assert!(reports_failure("error: no such command 'x'"));
        assert!(reports_failure(
            "Traceback (most recent call last):\n  File …"
        ));
        assert!(reports_failure(
            "ModuleNotFoundError: No module named 'lldb_lookup'"
        ));
        assert!(reports_failure(
            "Python Exception <class 'NameError'>: name 'x' is not defined"
        ));
        assert!(!reports_failure(
            "type summary add -F lldb_lookup.summary_lookup -e -x -h \"^(.*)$\" --category Rust\n  def f(e: lldb.SBError):"
        ));
        assert!(!reports_failure(""));
    }
}
