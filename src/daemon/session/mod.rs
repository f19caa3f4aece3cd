//! One live debug session: an adapter process, its DAP connection, and what we know of the
//! debuggee.
//!
//! Commands from any number of clients run concurrently against a shared [`Session`]. The pieces
//! of state each need their own discipline: the run state is a `watch` cell written by the event
//! task (see `run_state.rs`); the view (selection, caches) is a plain mutex held only for quick
//! updates, never across an await; breakpoint re-sends are serialised by their own async lock so
//! two concurrent `break` commands cannot interleave their `setBreakpoints` lists.

mod breakpoints;
mod brief_stop;
mod disassembly;
mod memory;
mod sources;
mod view;
mod watchpoints;

pub use breakpoints::Breakpoints;
use breakpoints::{hit_breakpoints, place_initial_breakpoints, send_target};
use view::View;

use std::collections::VecDeque;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use serde_json::{Value, json};
use tokio::sync::{Notify, mpsc};

use super::breakpoints as registry;
use super::logpoints;
use super::output::OutputBuffer;
use super::reaper::{self, Reaper};
use super::run_state::{Phase, RunState, RunStateCell, StopInfo};
use super::source;
use super::variables::{self, Limits};
use crate::adapters::process::{self, AdapterProcess};
use crate::adapters::{DebugAdapter, RequestExtras};
use crate::common::config::Timeouts;
use crate::common::error::{ErrorBody, ErrorCode};
use crate::dap::types::{
    BreakpointEventBody, Capabilities, EvaluateBody, Event, ExitedEventBody, OutputEventBody,
    ProcessEventBody, ScopesBody, StackFrame, StackTraceBody, StoppedEventBody, ThreadsBody,
    initialize_arguments,
};
use crate::dap::{DapClient, DapError};
use crate::ipc::protocol::{
    AttachSpec, BacktraceResult, BreakpointSpec, CatchResult, ContextResult, EvaluateResult,
    ExceptionFilter, ExceptionInfo, FrameInfo, FrameSelection, LaunchSpec, LocalsResult, RawResult,
    ResumeAction, SetResult, StopReport, ThreadInfo, ThreadsResult,
};

/// Frames fetched per `stackTrace` when the caller needs fewer: enough for `bt`, `up`, `frame N`.
const FRAME_BATCH: u32 = 32;
/// Source lines shown either side of a stop.
const STOP_CONTEXT_LINES: u32 = 2;
/// Source lines shown either side of the selection by `context`.
const CONTEXT_LINES: u32 = 5;
/// Threads whose top frame `threads` fetches (more are listed without it).
const THREADS_WITH_FRAMES: usize = 64;
/// How many times, and how often, a pause that has not stopped the program is sent again.
const PAUSE_RETRIES: u32 = 5;
const PAUSE_RETRY_AFTER: Duration = Duration::from_millis(300);
/// How long a stop report may spend asking the adapter for the thread name and top frame.
const REPORT_LOOKUP_TIMEOUT: Duration = Duration::from_secs(1);
/// The stop reason of a watchpoint hit (DAP's "data breakpoint").
const WATCHPOINT_REASON: &str = "watchpoint";
/// Lines of the adapter's own console/stderr output kept for the report of its death.
const ADAPTER_LOG_TAIL: usize = 20;

/// How the session came to be, which decides restart and how `stop` treats the debuggee.
#[derive(Debug, Clone)]
pub enum Origin {
    Launch(LaunchSpec),
    Attach(AttachSpec),
}

#[derive(Clone)]
pub(super) struct FrameCache {
    generation: u64,
    thread_id: i64,
    /// How many levels were asked for: fewer frames than that means the stack is complete.
    requested: u32,
    frames: Vec<StackFrame>,
    total: Option<u32>,
}

impl FrameCache {
    fn covers(&self, generation: u64, thread_id: i64, min_levels: u32) -> bool {
        let complete = (self.frames.len() as u32) < self.requested
            || self.total.is_some_and(|t| t as usize <= self.frames.len());
        self.generation == generation
            && self.thread_id == thread_id
            && (self.frames.len() as u32 >= min_levels || complete)
    }
}

/// State the event task and the commands share.
pub(super) struct Shared {
    run: RunStateCell,
    view: Mutex<View>,
    breakpoints: Arc<Breakpoints>,
    output: Arc<OutputBuffer>,
    initialized: Notify,
    adapter: Arc<dyn DebugAdapter>,
    /// Set once we end the session ourselves: the adapter's exit is then no death to report.
    ending: AtomicBool,
    /// The adapter's own last output lines (console, its stderr), for the report of its death.
    adapter_log: Mutex<VecDeque<String>>,
    /// The exception filters in force (set in the configuration phase, changed by `catch`).
    exception_filters: Mutex<ExceptionFilters>,
    /// Whether this session launched its program with an adapter of ours on this machine: only
    /// then is the debuggee's pid a local process we may end.
    owns_local_debuggee: bool,
    reaper: Option<Arc<Reaper>>,
    /// The program's files, for placing breakpoints given by a relative file name.
    sources: sources::ProgramSources,
}

/// The exception filters in force, and what the adapter made of them.
#[derive(Default)]
struct ExceptionFilters {
    names: Vec<String>,
    /// The ids the adapter gave their exception breakpoints, with each filter's label: GDB
    /// reports an exception caught this way as a plain `breakpoint` stop on such an id.
    breakpoints: Vec<(i64, String)>,
}

impl Shared {
    /// Marks the output complete, unless we are ending the session ourselves (`end()` does it,
    /// and a restart may already have reopened the buffer for the next run).
    fn program_ended(&self) {
        if !self.ending.load(Ordering::SeqCst) {
            self.output.finish();
        }
    }

    /// Records `filters` as in force, with the ids the adapter's `setExceptionBreakpoints`
    /// `answer` gave their exception breakpoints (in the same order), each with its label.
    fn set_exception_filters(&self, filters: Vec<String>, caps: &Capabilities, answer: &Value) {
        let label = |filter: &str| {
            caps.0["exceptionBreakpointFilters"]
                .as_array()
                .and_then(|offered| offered.iter().find(|f| f["filter"] == filter))
                .and_then(|f| f["label"].as_str())
                .unwrap_or(filter)
                .to_string()
        };
        let ids = answer["breakpoints"]
            .as_array()
            .cloned()
            .unwrap_or_default();
        let breakpoints = filters
            .iter()
            .zip(ids)
            .filter_map(|(filter, bp)| Some((bp["id"].as_i64()?, label(filter))))
            .collect();
        *self.exception_filters() = ExceptionFilters {
            names: filters,
            breakpoints,
        };
    }

    fn exception_filters(&self) -> std::sync::MutexGuard<'_, ExceptionFilters> {
        self.exception_filters
            .lock()
            .unwrap_or_else(|p| p.into_inner())
    }

    /// The label of the exception filter whose breakpoint a stop names, if it names one.
    fn exception_breakpoint_hit(&self, hit_ids: &[i64]) -> Option<String> {
        let known = self.exception_filters();
        hit_ids
            .iter()
            .find_map(|id| {
                known
                    .breakpoints
                    .iter()
                    .find(|(known_id, _)| known_id == id)
            })
            .map(|(_, label)| label.clone())
    }

    fn view(&self) -> std::sync::MutexGuard<'_, View> {
        self.view.lock().unwrap_or_else(|p| p.into_inner())
    }

    pub(super) fn output(&self) -> &OutputBuffer {
        &self.output
    }

    /// An emulated logpoint could not let the program go on: show the stop rather than leave
    /// the program stopped with nobody told.
    pub(super) fn logpoint_stuck(&self, thread_id: i64, detail: &str) {
        let stop = StopInfo {
            reason: "breakpoint".into(),
            description: Some(format!(
                "stopped at a logpoint: continuing failed ({detail})"
            )),
            text: None,
            thread_id: Some(thread_id),
            hit_breakpoint_ids: Vec::new(),
        };
        self.run
            .set_if(Phase::Stopped(stop), |s| matches!(s.phase, Phase::Running));
    }
}

pub struct Session {
    adapter: Arc<dyn DebugAdapter>,
    origin: Origin,
    dap: DapClient,
    caps: Capabilities,
    process: Arc<AdapterProcess>,
    shared: Arc<Shared>,
}

/// Where a session's breakpoints and output live; passed on to the next session on restart.
#[derive(Clone)]
pub struct Carried {
    pub breakpoints: Arc<Breakpoints>,
    pub output: Arc<OutputBuffer>,
    /// Told of each launched debuggee, to end it should the daemon be killed outright.
    pub reaper: Option<Arc<Reaper>>,
}

impl Carried {
    /// What a first run starts with: a registry holding `initial`, an empty output buffer of
    /// `output_bytes`, and the reaper to tell of the debuggee.
    pub fn fresh(
        initial: &[BreakpointSpec],
        output_bytes: usize,
        reaper: Option<Arc<Reaper>>,
    ) -> Carried {
        let breakpoints = Arc::new(Breakpoints::default());
        for bp in initial {
            breakpoints.add(bp.clone());
        }
        Carried {
            breakpoints,
            output: Arc::new(OutputBuffer::new(output_bytes)),
            reaper,
        }
    }
}

impl Session {
    /// Launches or attaches through `adapter` and runs the DAP configuration sequence.
    pub async fn open(
        adapter: Arc<dyn DebugAdapter>,
        origin: Origin,
        carried: Carried,
        timeouts: Timeouts,
        extras: RequestExtras,
    ) -> Result<Arc<Session>, ErrorBody> {
        let connect = match &origin {
            Origin::Launch(spec) => spec.connect.clone(),
            Origin::Attach(spec) => spec.connect.clone(),
        };
        let spawned = match &connect {
            Some(address) if !adapter.connects_itself() => {
                process::connect_remote(address, timeouts.launch()).await?
            }
            _ => adapter.spawn().await?,
        };
        let process = spawned.process.clone();
        let (dap, events) = DapClient::start(
            spawned.reader,
            spawned.writer,
            timeouts.request(),
            process.exit_detail(),
        );
        let shared = Arc::new(Shared {
            run: RunStateCell::default(),
            view: Mutex::new(View::default()),
            breakpoints: carried.breakpoints,
            output: carried.output,
            initialized: Notify::new(),
            adapter: adapter.clone(),
            ending: AtomicBool::new(false),
            adapter_log: Mutex::new(VecDeque::new()),
            exception_filters: Mutex::default(),
            owns_local_debuggee: matches!(origin, Origin::Launch(_)) && connect.is_none(),
            reaper: carried.reaper,
            sources: sources::ProgramSources::new(adapter.as_ref(), &origin),
        });
        if let Origin::Launch(spec) = &origin {
            shared.view().in_flight.entry_expected = spec.stop_on_entry;
        }
        tokio::spawn(handle_events(
            events,
            shared.clone(),
            dap.clone(),
            process.clone(),
        ));
        if let Some(mut stdio) = spawned.program_output {
            // The debuggee writes to the adapter's own stdout and stderr (Delve).
            let output = shared.output.clone();
            tokio::spawn(async move {
                while let Some(chunk) = stdio.recv().await {
                    output.push_stream(chunk.category, &chunk.text);
                }
            });
        }

        let result = configure(&*adapter, &origin, &extras, &dap, &shared, &timeouts).await;
        match result {
            Ok(caps) => Ok(Arc::new(Session {
                adapter,
                origin,
                dap,
                caps,
                process,
                shared,
            })),
            Err(err) => {
                dap.close("the session failed to start");
                process.kill();
                Err(err)
            }
        }
    }

    pub fn adapter_name(&self) -> &'static str {
        self.adapter.name()
    }

    /// The adapter, for the inspection commands kept in their own files (memory.rs, disassembly.rs).
    fn adapter(&self) -> &dyn DebugAdapter {
        &*self.adapter
    }

    /// What the adapter said it can do in `initialize`.
    fn capabilities(&self) -> &Capabilities {
        &self.caps
    }

    /// The DAP connection, for the inspection commands kept in their own files (memory.rs, disassembly.rs).
    fn dap(&self) -> &DapClient {
        &self.dap
    }

    pub fn origin(&self) -> &Origin {
        &self.origin
    }

    pub fn carried(&self) -> Carried {
        Carried {
            breakpoints: self.shared.breakpoints.clone(),
            output: self.shared.output.clone(),
            reaper: self.shared.reaper.clone(),
        }
    }

    pub fn output(&self) -> &Arc<OutputBuffer> {
        &self.shared.output
    }

    pub fn run_state(&self) -> RunState {
        self.shared.run.get()
    }

    pub fn subscribe(&self) -> tokio::sync::watch::Receiver<RunState> {
        self.shared.run.subscribe()
    }

    pub fn program(&self) -> Option<String> {
        match &self.origin {
            Origin::Launch(spec) => Some(spec.program.display().to_string()),
            Origin::Attach(spec) => match (spec.pid, &spec.connect) {
                (Some(pid), _) => Some(format!("pid {pid}")),
                (None, Some(address)) if self.adapter.connects_itself() => {
                    Some(format!("the program at {address}"))
                }
                (None, Some(address)) => Some(format!("the adapter at {address}")),
                (None, None) => None,
            },
        }
    }

    pub fn adapter_pid(&self) -> Option<u32> {
        self.process.pid.filter(|_| !self.process.has_exited())
    }

    /// The debuggee's pid while it runs (an ended program has none).
    pub fn debuggee_pid(&self) -> Option<u32> {
        if self.shared.run.get().phase.is_ended() {
            return None;
        }
        match &self.origin {
            Origin::Attach(spec) => spec.pid.or(self.shared.view().debuggee.pid),
            Origin::Launch(_) => self.shared.view().debuggee.pid,
        }
    }

    pub fn exit_code(&self) -> Option<i64> {
        self.shared.view().debuggee.exit_code
    }

    // ---- execution ----------------------------------------------------------------------

    /// `continue`, `next`, `step`, `finish`, optionally waiting for the next stop.
    pub async fn resume(
        &self,
        action: ResumeAction,
        wait: Option<Duration>,
    ) -> Result<(String, Option<StopReport>), ErrorBody> {
        let state = self.shared.run.get();
        match &state.phase {
            Phase::Running | Phase::Starting => {
                if action != ResumeAction::Continue {
                    return Err(ErrorBody::running());
                }
                // Already running: `continue --wait` just waits for the next stop.
                return match wait {
                    Some(timeout) => self.wait_after(state.generation, timeout).await,
                    None => Ok(("running".into(), None)),
                };
            }
            Phase::Stopped(_) => {}
            Phase::Exited { .. } if self.claim_unseen(&state) => {
                // The program ended before anyone was shown it (e.g. it exited before the first
                // `continue` because its only breakpoint never bound). Like an unseen stop, that
                // end is the answer, once; the next resume is the "has exited" error.
                let mut report = self.report(&state).await;
                report.note = Some(format!(
                    "the program had already ended before this {}",
                    action.verb()
                ));
                return Ok((state.phase.name().to_string(), Some(report)));
            }
            _ => return Err(self.not_running_error(&state.phase)),
        }
        if action == ResumeAction::Continue
            && self.shared.view().selection.seen_generation < state.generation
        {
            // The program stopped after the caller last looked (e.g. `start --break f` ran
            // straight into `f`). Resuming would skip a stop nobody has seen: report it instead.
            let mut report = self.report(&state).await;
            report.note = Some(
                "the program had already stopped here before this continue; it was not resumed"
                    .into(),
            );
            return Ok(("stopped".into(), Some(report)));
        }
        let thread_id = self.current_thread().await?;
        let (command, arguments) = match action {
            ResumeAction::Continue => ("continue", json!({ "threadId": thread_id })),
            ResumeAction::Next => ("next", json!({ "threadId": thread_id })),
            ResumeAction::Step => ("stepIn", json!({ "threadId": thread_id })),
            ResumeAction::Finish => ("stepOut", json!({ "threadId": thread_id })),
        };
        // Mark the program running before sending, so the stop the request causes (which may
        // overtake the response) is always newer than this generation.
        // Only from the stop we looked at: if the program moved on meanwhile (it exited), say so.
        let Some(running) = self.shared.run.advance_if(Phase::Running, state.generation) else {
            let now = self.shared.run.get();
            let report = self.report(&now).await;
            return Ok((now.phase.name().to_string(), Some(report)));
        };
        {
            let mut view = self.shared.view();
            view.caches.frames = None;
            view.in_flight.step_requested = action != ResumeAction::Continue;
        }
        if let Err(err) = self.dap.request(command, arguments).await {
            // Nothing moved: put the stop back as it was (same generation, so it is not "new").
            self.shared.view().in_flight.step_requested = false;
            self.shared.run.restore(&state, running);
            return Err(err.into());
        }
        match wait {
            Some(timeout) => self.wait_after(running, timeout).await,
            None => Ok(("running".into(), None)),
        }
    }

    /// Interrupts the program; with `wait`, reports the resulting stop.
    pub async fn pause(
        &self,
        wait: Option<Duration>,
    ) -> Result<(String, Option<StopReport>), ErrorBody> {
        let state = self.shared.run.get();
        match &state.phase {
            Phase::Stopped(_) => {
                let report = self.report(&state).await;
                return Ok(("stopped".into(), Some(report)));
            }
            Phase::Running | Phase::Starting => {}
            other => return Err(self.not_running_error(other)),
        }
        let selected = self.shared.view().selection.thread;
        let thread_id = match selected {
            Some(id) => id,
            None => self.first_thread_id().await.unwrap_or(0),
        };
        self.shared.view().in_flight.pause_requested = true;
        if let Err(e) = self
            .dap
            .request("pause", json!({ "threadId": thread_id }))
            .await
        {
            self.shared.view().in_flight.pause_requested = false;
            return Err(e.into());
        }
        self.insist_on_pause(state.generation, thread_id);
        match wait {
            Some(timeout) => self.wait_after(state.generation, timeout).await,
            None => Ok(("pausing".into(), None)),
        }
    }

    /// Asks again while a pause has not stopped the program. A pause that reaches lldb-dap just
    /// after a `continue` was answered, but before the process really runs, is answered
    /// "success" with no stop at all, and the program then runs on; so the daemon asks again a
    /// few times, until a stop comes or the state moves on (another client resumed it).
    fn insist_on_pause(&self, generation: u64, thread_id: i64) {
        let shared = self.shared.clone();
        let dap = self.dap.clone();
        tokio::spawn(async move {
            for _ in 0..PAUSE_RETRIES {
                if shared
                    .run
                    .wait_settled_after(generation, PAUSE_RETRY_AFTER)
                    .await
                    .is_some()
                    || shared.run.get().generation != generation
                {
                    return;
                }
                tracing::info!("the pause has not stopped the program yet; asking again");
                let _ = dap.request("pause", json!({ "threadId": thread_id })).await;
            }
        });
    }

    /// `await`: the current stop or end at once, else the next one.
    pub async fn await_stop(&self, timeout: Duration) -> Result<StopReport, ErrorBody> {
        let state = self.shared.run.get();
        if let Phase::AdapterDied { .. } = state.phase {
            return Err(self.not_running_error(&state.phase));
        }
        if state.phase.is_settled() {
            return Ok(self.report(&state).await);
        }
        self.wait_after(state.generation, timeout)
            .await
            .and_then(|(_, report)| report.ok_or_else(|| ErrorBody::internal("no stop report")))
    }

    async fn wait_after(
        &self,
        generation: u64,
        timeout: Duration,
    ) -> Result<(String, Option<StopReport>), ErrorBody> {
        match self
            .shared
            .run
            .wait_settled_after(generation, timeout)
            .await
        {
            Some(state) if matches!(state.phase, Phase::AdapterDied { .. }) => {
                Err(self.not_running_error(&state.phase))
            }
            Some(state) => {
                let report = self.report(&state).await;
                Ok((state.phase.name().to_string(), Some(report)))
            }
            None => Err(ErrorBody::new(
                ErrorCode::Timeout,
                format!(
                    "the program is still running after {} s",
                    timeout.as_secs_f64()
                ),
                "wait longer with 'debugger await --timeout S', or stop it with 'debugger pause'",
            )),
        }
    }

    /// Builds the report of a settled state and marks it as seen.
    pub async fn report(&self, state: &RunState) -> StopReport {
        let mut report = StopReport {
            reason: state.phase.name().to_string(),
            description: None,
            thread_id: None,
            thread_name: None,
            frame: None,
            source: None,
            breakpoint_ids: Vec::new(),
            exit_code: None,
            note: None,
            exception: None,
            watch: Vec::new(),
        };
        match &state.phase {
            Phase::Stopped(stop) => {
                let cached = {
                    let mut view = self.shared.view();
                    view.selection.seen_generation = state.generation;
                    view.caches
                        .report
                        .as_ref()
                        .filter(|(generation, _)| *generation == state.generation)
                        .map(|(_, report)| report.clone())
                };
                if let Some(cached) = cached {
                    return cached;
                }
                report.reason = stop.reason.clone();
                report.description = stop
                    .description
                    .clone()
                    .or_else(|| stop.text.clone())
                    .filter(|d| !d.is_empty());
                let thread_id = stop.thread_id.or(self.shared.view().selection.thread);
                report.thread_id = thread_id;
                report.breakpoint_ids = hit_breakpoints(&self.shared, stop);
                if let Some(thread_id) = thread_id {
                    self.locate_stop(thread_id, &mut report).await;
                    if report.reason == WATCHPOINT_REASON {
                        self.explain_watchpoint_stop(thread_id, &mut report).await;
                    }
                }
                self.shared.view().caches.report = Some((state.generation, report.clone()));
            }
            Phase::Exited { exit_code } => {
                report.exit_code = *exit_code;
                let mut view = self.shared.view();
                view.selection.seen_generation =
                    view.selection.seen_generation.max(state.generation);
            }
            Phase::AdapterDied { detail } => report.description = Some(detail.clone()),
            Phase::Running | Phase::Starting => {}
        }
        report
    }

    /// Fills in the stop's thread name, frame and source. Both lookups go out at once and get
    /// [`REPORT_LOOKUP_TIMEOUT`] between them: a hung adapter costs `status` a second once per
    /// stop (the report is cached), not a request timeout per call.
    async fn locate_stop(&self, thread_id: i64, report: &mut StopReport) {
        let known = self
            .shared
            .view()
            .caches
            .thread_names
            .contains_key(&thread_id);
        let names = async {
            if !known {
                // Names are fetched once per new thread, so every report carries one.
                let _ = self.fetch_threads().await;
            }
        };
        let top = async { self.frames(thread_id, 1).await.ok() };
        let on_exception = report.reason == "exception";
        let exception = async {
            if on_exception {
                self.exception_info(thread_id).await
            } else {
                None
            }
        };
        let looked_up = tokio::time::timeout(REPORT_LOOKUP_TIMEOUT, async {
            let (_, top, exception) = tokio::join!(names, top, exception);
            (top, exception)
        })
        .await;
        let looked_up = looked_up.map(|(top, exception)| {
            report.exception = exception;
            top
        });
        report.thread_name = self
            .shared
            .view()
            .caches
            .thread_names
            .get(&thread_id)
            .cloned();
        let Ok(Some((frames, _))) = looked_up else {
            return;
        };
        if let Some(top) = frames.first() {
            let info = frame_info(0, top);
            report.source = info
                .file
                .as_deref()
                .zip(info.line)
                .and_then(|(f, l)| source::snippet(f, l, STOP_CONTEXT_LINES));
            report.frame = Some(info);
        }
    }

    /// What the program raised, for a stop on an exception (when the adapter can tell).
    async fn exception_info(&self, thread_id: i64) -> Option<ExceptionInfo> {
        if !self.caps.supports("supportsExceptionInfoRequest") {
            return None;
        }
        let body = self
            .dap
            .request("exceptionInfo", json!({ "threadId": thread_id }))
            .await
            .ok()?;
        let type_name = body
            .pointer("/details/typeName")
            .or_else(|| body.get("exceptionId"))
            .and_then(Value::as_str)
            .filter(|t| !t.is_empty())?
            .to_string();
        let message = body
            .pointer("/details/message")
            .or_else(|| body.get("description"))
            .and_then(Value::as_str)
            .filter(|m| !m.is_empty())
            .map(str::to_string);
        Some(ExceptionInfo { type_name, message })
    }

    fn not_running_error(&self, phase: &Phase) -> ErrorBody {
        match phase {
            Phase::Exited {
                exit_code: Some(code),
            } => ErrorBody::new(
                ErrorCode::NotRunning,
                format!("the program has exited with code {code}"),
                "run it again with 'debugger restart', or read its output with 'debugger output'",
            ),
            Phase::Exited { exit_code: None } => ErrorBody::new(
                ErrorCode::NotRunning,
                "the program has terminated",
                "run it again with 'debugger restart', or read its output with 'debugger output'",
            ),
            Phase::AdapterDied { detail } => ErrorBody::new(
                ErrorCode::AdapterDied,
                format!("the debug adapter died: {detail}"),
                "start a new session with 'debugger start <program>'",
            ),
            Phase::Starting => ErrorBody::new(
                ErrorCode::Running,
                "the session is still starting",
                "wait for it with 'debugger await'",
            ),
            Phase::Running | Phase::Stopped(_) => ErrorBody::running(),
        }
    }

    // ---- inspection ---------------------------------------------------------------------

    /// The stop generation, or the error for a program that is not stopped.
    fn require_stopped(&self) -> Result<u64, ErrorBody> {
        let state = self.shared.run.get();
        match state.phase {
            Phase::Stopped(_) => Ok(state.generation),
            other => Err(self.not_running_error(&other)),
        }
    }

    async fn first_thread_id(&self) -> Result<i64, ErrorBody> {
        let threads = self.fetch_threads().await?;
        threads
            .first()
            .map(|t| t.id)
            .ok_or_else(|| ErrorBody::new(ErrorCode::NotFound, "the program has no threads", ""))
    }

    /// The selected thread, else the one that stopped, else the first.
    async fn current_thread(&self) -> Result<i64, ErrorBody> {
        if let Some(id) = self.shared.view().selection.thread {
            return Ok(id);
        }
        let id = self.first_thread_id().await?;
        self.shared.view().selection.thread = Some(id);
        Ok(id)
    }

    async fn fetch_threads(&self) -> Result<Vec<crate::dap::types::Thread>, ErrorBody> {
        let body = self.dap.request("threads", json!({})).await?;
        let threads = serde_json::from_value::<ThreadsBody>(body)
            .map(|b| b.threads)
            .unwrap_or_default();
        // Names can change with the program (Delve names a goroutine after its current function),
        // and a list taken while it runs may hold placeholders: only keep names read at a stop.
        if matches!(self.shared.run.get().phase, Phase::Stopped(_)) {
            let mut view = self.shared.view();
            for t in &threads {
                view.caches.thread_names.insert(t.id, t.name.clone());
            }
        }
        Ok(threads)
    }

    /// At least `min_levels` frames of `thread_id` (fewer if the stack is shallower), cached per stop.
    async fn frames(
        &self,
        thread_id: i64,
        min_levels: u32,
    ) -> Result<(Vec<StackFrame>, Option<u32>), ErrorBody> {
        let generation = self.require_stopped()?;
        if let Some(cache) = &self.shared.view().caches.frames
            && cache.covers(generation, thread_id, min_levels)
        {
            return Ok((cache.frames.clone(), cache.total));
        }
        let levels = min_levels.max(FRAME_BATCH);
        let body = self
            .dap
            .request(
                "stackTrace",
                json!({ "threadId": thread_id, "startFrame": 0, "levels": levels }),
            )
            .await?;
        let body: StackTraceBody = serde_json::from_value(body).map_err(|e| {
            ErrorBody::new(
                ErrorCode::Adapter,
                format!("the adapter sent a stack trace we cannot read: {e}"),
                "",
            )
        })?;
        let mut view = self.shared.view();
        if self.shared.run.get().generation == generation {
            view.caches.frames = Some(FrameCache {
                generation,
                thread_id,
                requested: levels,
                frames: body.stack_frames.clone(),
                total: body.total_frames,
            });
        }
        Ok((body.stack_frames, body.total_frames))
    }

    /// The selected thread and frame, checked against the stack.
    pub(super) async fn selected_frame(&self) -> Result<(i64, u32, StackFrame), ErrorBody> {
        self.require_stopped()?;
        let thread_id = self.current_thread().await?;
        let index = self.shared.view().selection.frame;
        let (frames, _) = self.frames(thread_id, index.saturating_add(1)).await?;
        let frame = frames.get(index as usize).cloned().ok_or_else(|| {
            ErrorBody::new(
                ErrorCode::NotFound,
                format!("thread {thread_id} has no frame {index}"),
                "`debugger backtrace` lists the frames",
            )
        })?;
        Ok((thread_id, index, frame))
    }

    pub async fn backtrace(
        &self,
        limit: u32,
        thread: Option<i64>,
    ) -> Result<BacktraceResult, ErrorBody> {
        self.require_stopped()?;
        let selected_thread = self.current_thread().await?;
        let thread_id = thread.unwrap_or(selected_thread);
        if thread.is_some_and(|t| t != selected_thread) {
            self.check_thread(thread_id).await?;
        }
        let (frames, total) = self.frames(thread_id, limit.max(1)).await.map_err(|e| {
            if thread.is_some() && e.code == ErrorCode::Adapter {
                ErrorBody::new(
                    ErrorCode::NotFound,
                    format!("no thread {thread_id}: {}", e.message),
                    "`debugger threads` lists the threads",
                )
            } else {
                e
            }
        })?;
        self.mark_seen();
        let frames = frames
            .iter()
            .take(limit.max(1) as usize)
            .enumerate()
            .map(|(i, f)| frame_info(i as u32, f))
            .collect();
        let selected_frame =
            (thread_id == selected_thread).then(|| self.shared.view().selection.frame);
        Ok(BacktraceResult {
            thread_id,
            frames,
            total_frames: total,
            selected_frame,
        })
    }

    pub async fn threads(&self) -> Result<ThreadsResult, ErrorBody> {
        let state = self.shared.run.get();
        if state.phase.is_ended() {
            return Err(self.not_running_error(&state.phase));
        }
        let threads = self.fetch_threads().await?;
        let stopped = matches!(state.phase, Phase::Stopped(_));
        let selected = self.shared.view().selection.thread;
        // Ask for every thread's top frame at once, then collect the answers.
        let pending: Vec<_> = threads
            .iter()
            .enumerate()
            .map(|(i, t)| {
                (stopped && i < THREADS_WITH_FRAMES).then(|| {
                    self.dap.send(
                        "stackTrace",
                        json!({ "threadId": t.id, "startFrame": 0, "levels": 1 }),
                    )
                })
            })
            .collect();
        let mut out = Vec::with_capacity(threads.len());
        // One deadline for all the top frames: a hung adapter costs one request timeout, not
        // one per thread.
        let deadline = tokio::time::Instant::now() + self.dap.request_timeout();
        for (thread, pending) in threads.into_iter().zip(pending) {
            let left = deadline.saturating_duration_since(tokio::time::Instant::now());
            let frame = match pending {
                Some(p) => p
                    .response_within(left)
                    .await
                    .ok()
                    .and_then(|b| serde_json::from_value::<StackTraceBody>(b).ok())
                    .and_then(|b| b.stack_frames.first().map(|f| frame_info(0, f))),
                None => None,
            };
            out.push(ThreadInfo {
                selected: Some(thread.id) == selected,
                id: thread.id,
                name: thread.name,
                frame,
            });
        }
        if stopped {
            self.mark_seen();
        }
        Ok(ThreadsResult { threads: out })
    }

    /// Fails unless the program has a thread `id`.
    async fn check_thread(&self, id: i64) -> Result<(), ErrorBody> {
        let threads = self.fetch_threads().await?;
        if threads.iter().any(|t| t.id == id) {
            return Ok(());
        }
        let ids: Vec<String> = threads.iter().map(|t| t.id.to_string()).collect();
        Err(ErrorBody::new(
            ErrorCode::NotFound,
            format!("no thread {id}"),
            format!("the threads are: {}", ids.join(", ")),
        ))
    }

    pub async fn select_thread(&self, id: i64) -> Result<ContextResult, ErrorBody> {
        self.require_stopped()?;
        self.check_thread(id).await?;
        {
            let mut view = self.shared.view();
            view.selection.thread = Some(id);
            view.selection.frame = 0;
        }
        self.context(false).await
    }

    pub async fn select_frame(
        &self,
        selection: FrameSelection,
    ) -> Result<ContextResult, ErrorBody> {
        self.require_stopped()?;
        let thread_id = self.current_thread().await?;
        let current = self.shared.view().selection.frame;
        let target = match selection {
            FrameSelection::Index { index } => index,
            FrameSelection::Up { count } => {
                let wanted = current.saturating_add(count.max(1));
                let (frames, _) = self.frames(thread_id, wanted.saturating_add(1)).await?;
                let outermost = frames.len().saturating_sub(1) as u32;
                if current >= outermost {
                    return Err(ErrorBody::new(
                        ErrorCode::NotFound,
                        format!("already at the outermost frame ({outermost})"),
                        "`debugger down` moves toward the innermost frame",
                    ));
                }
                wanted.min(outermost)
            }
            FrameSelection::Down { count } => {
                if current == 0 {
                    return Err(ErrorBody::new(
                        ErrorCode::NotFound,
                        "already at the innermost frame (0)",
                        "`debugger up` moves toward the callers",
                    ));
                }
                current.saturating_sub(count.max(1))
            }
        };
        let (frames, _) = self.frames(thread_id, target.saturating_add(1)).await?;
        if target as usize >= frames.len() {
            let outermost = frames.len().saturating_sub(1);
            return Err(ErrorBody::new(
                ErrorCode::NotFound,
                if matches!(selection, FrameSelection::Up { .. }) {
                    format!("already at the outermost frame ({outermost})")
                } else {
                    format!("no frame {target}; the stack has {} frames", frames.len())
                },
                "`debugger backtrace` lists the frames",
            ));
        }
        self.shared.view().selection.frame = target;
        self.context(false).await
    }

    /// Where the selection points, with source around it and (for `context`) the locals.
    pub async fn context(&self, with_locals: bool) -> Result<ContextResult, ErrorBody> {
        let state = self.shared.run.get();
        let (thread_id, index, frame) = self.selected_frame().await?;
        let reason = match &state.phase {
            Phase::Stopped(stop) => Some(stop.reason.clone()),
            _ => None,
        };
        let info = frame_info(index, &frame);
        let source = info
            .file
            .as_deref()
            .zip(info.line)
            .and_then(|(f, l)| source::snippet(f, l, CONTEXT_LINES));
        let variables = if with_locals {
            Some(self.frame_locals(&frame, 0).await?.variables)
        } else {
            None
        };
        let exception = match &state.phase {
            Phase::Stopped(stop) if stop.reason == "exception" => {
                self.report(&state).await.exception
            }
            _ => None,
        };
        self.mark_seen();
        Ok(ContextResult {
            exception,
            state: state.phase.name().to_string(),
            reason,
            thread_id,
            thread_name: self
                .shared
                .view()
                .caches
                .thread_names
                .get(&thread_id)
                .cloned(),
            frame: info,
            source,
            variables,
        })
    }

    pub async fn locals(&self, depth: u32) -> Result<LocalsResult, ErrorBody> {
        let (_, _, frame) = self.selected_frame().await?;
        let result = self.frame_locals(&frame, depth).await?;
        self.mark_seen();
        Ok(result)
    }

    async fn frame_locals(
        &self,
        frame: &StackFrame,
        depth: u32,
    ) -> Result<LocalsResult, ErrorBody> {
        let body = self
            .dap
            .request("scopes", json!({ "frameId": frame.id }))
            .await?;
        let scopes = serde_json::from_value::<ScopesBody>(body)
            .map(|b| b.scopes)
            .unwrap_or_default();
        let shown = variables::locals_scopes(&scopes);
        let mut variables = Vec::new();
        let mut omitted = 0;
        for scope in &shown {
            let count = variables::child_count(scope.named_variables, scope.indexed_variables);
            let expanded = variables::expand(
                &self.dap,
                scope.variables_reference,
                count,
                None,
                Limits::with_depth(depth),
            )
            .await?;
            variables.extend(expanded.nodes);
            omitted += expanded.omitted;
        }
        let names: Vec<&str> = shown.iter().map(|s| s.name.as_str()).collect();
        Ok(LocalsResult {
            scope: names.join(", "),
            variables,
            omitted,
        })
    }

    /// Evaluates `expression` in a frame (`watch` context), with the adapter's error trimmed
    /// to its message.
    pub(super) async fn evaluate_in(
        &self,
        expression: &str,
        frame_id: i64,
    ) -> Result<EvaluateBody, ErrorBody> {
        let body = self
            .dap
            .request(
                "evaluate",
                json!({ "expression": expression, "frameId": frame_id, "context": "watch" }),
            )
            .await
            .map_err(|e| match e {
                DapError::Adapter { message, .. } => ErrorBody::new(
                    ErrorCode::Adapter,
                    clean_evaluate_error(&message),
                    "`debugger locals` lists the names in scope here",
                ),
                other => other.into(),
            })?;
        serde_json::from_value(body).map_err(|e| {
            ErrorBody::new(
                ErrorCode::Adapter,
                format!("the adapter sent an evaluation we cannot read: {e}"),
                "",
            )
        })
    }

    pub async fn evaluate(
        &self,
        expression: &str,
        depth: u32,
    ) -> Result<EvaluateResult, ErrorBody> {
        let (_, _, frame) = self.selected_frame().await?;
        let body = self.evaluate_in(expression, frame.id).await?;
        let limits = Limits::with_depth(depth.saturating_sub(1));
        let (children, omitted_children) = if body.variables_reference > 0 && depth > 0 {
            let known = variables::child_count(body.named_variables, body.indexed_variables);
            let expanded = variables::expand(
                &self.dap,
                body.variables_reference,
                known,
                body.type_name.as_deref(),
                limits,
            )
            .await;
            match expanded {
                Ok(expanded) => (expanded.nodes, expanded.omitted),
                // The value itself was read; only its members cannot be (GDB, on a NULL
                // pointer): show the value alone.
                Err(DapError::Adapter { .. }) => (Vec::new(), 0),
                Err(e) => return Err(e.into()),
            }
        } else {
            (Vec::new(), 0)
        };
        self.mark_seen();
        let node = variables::node_for(expression, &body.result, body.type_name.clone(), limits);
        Ok(EvaluateResult {
            expression: expression.to_string(),
            value: node.value,
            type_name: body.type_name.filter(|t| !t.is_empty()),
            children,
            omitted_children,
        })
    }

    /// Whether `state` has not been shown to any client yet; it counts as shown from now on. One
    /// check under one lock, so of two clients resuming at once only one is given the report.
    fn claim_unseen(&self, state: &RunState) -> bool {
        let mut view = self.shared.view();
        let unseen = view.selection.seen_generation < state.generation;
        view.selection.seen_generation = view.selection.seen_generation.max(state.generation);
        unseen
    }

    /// Marks the current stop as shown to a client (a later `continue` then resumes it).
    pub(super) fn mark_seen(&self) {
        let state = self.shared.run.get();
        if matches!(state.phase, Phase::Stopped(_)) {
            self.shared.view().selection.seen_generation = state.generation;
        }
    }

    // ---- breakpoints ---------------------------------------------------------------------

    // ---- adapter console, assignment, exception filters -----------------------------------

    /// Sends `text` to the adapter's own console (lldb commands through lldb-dap, Python
    /// statements through debugpy), in the selected frame when the program is stopped.
    pub async fn raw(&self, text: &str) -> Result<RawResult, ErrorBody> {
        let state = self.shared.run.get();
        if state.phase.is_ended() {
            return Err(self.not_running_error(&state.phase));
        }
        let mut arguments = json!({ "expression": text, "context": "repl" });
        if matches!(state.phase, Phase::Stopped(_))
            && let Ok((_, _, frame)) = self.selected_frame().await
        {
            arguments["frameId"] = json!(frame.id);
        }
        let body = self.dap.request("evaluate", arguments).await?;
        let output = body
            .get("result")
            .and_then(Value::as_str)
            .unwrap_or_default()
            .to_string();
        Ok(RawResult { output })
    }

    /// Gives `name` (a variable, or an assignable expression like `acct->balance`) a new value
    /// in the selected frame: `setExpression` where the adapter has it, else `setVariable` on
    /// the scope or parent that holds it.
    pub async fn set_variable(&self, name: &str, value: &str) -> Result<SetResult, ErrorBody> {
        let (_, _, frame) = self.selected_frame().await?;
        let body = if self.caps.supports("supportsSetExpression") {
            self.dap
                .request(
                    "setExpression",
                    json!({ "expression": name, "value": value, "frameId": frame.id }),
                )
                .await?
        } else if self.caps.supports("supportsSetVariable") {
            let (container, child) = self.container_of(name, frame.id).await?;
            self.dap
                .request(
                    "setVariable",
                    json!({ "variablesReference": container, "name": child, "value": value }),
                )
                .await?
        } else {
            return Err(ErrorBody::new(
                ErrorCode::Unsupported,
                format!(
                    "the {} adapter cannot change variables",
                    self.adapter.name()
                ),
                "",
            ));
        };
        self.shared.view().caches.report = None;
        Ok(SetResult {
            name: name.to_string(),
            value: body
                .get("value")
                .and_then(Value::as_str)
                .unwrap_or(value)
                .to_string(),
            type_name: body.get("type").and_then(Value::as_str).map(str::to_string),
        })
    }

    /// The `variablesReference` that holds `name`, and the child's name within it: a scope of
    /// the frame for a plain name, else the parent expression's value (`a.b`, `p->f`, `v[3]`).
    async fn container_of(&self, name: &str, frame_id: i64) -> Result<(i64, String), ErrorBody> {
        let not_found = || {
            ErrorBody::new(
                ErrorCode::NotFound,
                format!("no variable '{name}' here"),
                "`debugger locals` lists the names in scope here",
            )
        };
        let split = [("->", 2), (".", 1), ("[", 0)]
            .iter()
            .filter_map(|(sep, skip)| name.rfind(sep).map(|at| (at, *skip, *sep)))
            .max_by_key(|(at, _, _)| *at);
        if let Some((at, skip, sep)) = split {
            let parent = &name[..at];
            let child = if sep == "[" {
                name[at..].to_string()
            } else {
                name[at + skip..].to_string()
            };
            let body = self
                .dap
                .request(
                    "evaluate",
                    json!({ "expression": parent, "frameId": frame_id, "context": "watch" }),
                )
                .await?;
            let reference = body
                .get("variablesReference")
                .and_then(Value::as_i64)
                .filter(|r| *r > 0)
                .ok_or_else(not_found)?;
            return Ok((reference, child));
        }
        let body = self
            .dap
            .request("scopes", json!({ "frameId": frame_id }))
            .await?;
        let scopes = serde_json::from_value::<ScopesBody>(body)
            .map(|b| b.scopes)
            .unwrap_or_default();
        for scope in scopes.iter().filter(|s| !s.expensive) {
            let body = self
                .dap
                .request(
                    "variables",
                    json!({ "variablesReference": scope.variables_reference }),
                )
                .await?;
            let holds = body
                .get("variables")
                .and_then(Value::as_array)
                .is_some_and(|vars| vars.iter().any(|v| v["name"] == name));
            if holds {
                return Ok((scope.variables_reference, name.to_string()));
            }
        }
        Err(not_found())
    }

    /// The adapter's exception filters and which are on; with `filters`, sets exactly those.
    pub async fn catch(&self, filters: Option<Vec<String>>) -> Result<CatchResult, ErrorBody> {
        let offered: Vec<Value> = self
            .caps
            .0
            .get("exceptionBreakpointFilters")
            .and_then(Value::as_array)
            .cloned()
            .unwrap_or_default();
        if offered.is_empty() {
            return Err(ErrorBody::new(
                ErrorCode::Unsupported,
                format!(
                    "the {} adapter offers no exception filters",
                    self.adapter.name()
                ),
                "stops on exceptions depend on the adapter: lldb-dap offers C++ throw/catch, debugpy raised/uncaught",
            ));
        }
        let names: Vec<&str> = offered
            .iter()
            .filter_map(|f| f["filter"].as_str())
            .collect();
        if let Some(wanted) = filters {
            let unknown: Vec<&String> = wanted
                .iter()
                .filter(|f| !names.contains(&f.as_str()))
                .collect();
            if !unknown.is_empty() {
                return Err(ErrorBody::usage(
                    format!(
                        "the {} adapter has no exception filter {}",
                        self.adapter.name(),
                        unknown
                            .iter()
                            .map(|f| format!("'{f}'"))
                            .collect::<Vec<_>>()
                            .join(", ")
                    ),
                    format!("its filters are: {}", names.join(", ")),
                ));
            }
            if self.shared.run.get().phase.is_ended() {
                return Err(self.not_running_error(&self.shared.run.get().phase));
            }
            let answer = brief_stop::request_at_a_stop(
                &self.dap,
                &self.shared,
                "setExceptionBreakpoints",
                json!({ "filters": wanted }),
            )
            .await?;
            self.shared
                .set_exception_filters(wanted, &self.caps, &answer);
        }
        let enabled = self.shared.exception_filters().names.clone();
        Ok(CatchResult {
            adapter: self.adapter.name().to_string(),
            filters: offered
                .iter()
                .filter_map(|f| {
                    let filter = f["filter"].as_str()?.to_string();
                    Some(ExceptionFilter {
                        enabled: enabled.contains(&filter),
                        label: f["label"].as_str().unwrap_or(&filter).to_string(),
                        description: f["description"].as_str().map(str::to_string),
                        filter,
                    })
                })
                .collect(),
        })
    }

    // ---- ending --------------------------------------------------------------------------

    /// Ends the session: the launched debuggee is terminated (or, with `detach`, left running),
    /// an attached one is detached, and the adapter exits (or is killed).
    pub async fn end(&self, detach: bool) {
        self.shared.ending.store(true, Ordering::SeqCst);
        if self.process.has_exited() && !detach {
            // No adapter is left to terminate the program it launched.
            self.kill_launched_debuggee();
        }
        let terminate = !detach && matches!(self.origin, Origin::Launch(_));
        if !self.process.has_exited() {
            let disconnect = self.dap.send(
                "disconnect",
                json!({ "terminateDebuggee": terminate, "restart": false }),
            );
            if let Err(e) = disconnect.response_within(Duration::from_secs(5)).await {
                tracing::warn!("disconnect failed: {e}");
            }
            self.dap.end_input();
        }
        self.process.shut_down(Duration::from_secs(2)).await;
        self.dap.close("the session has ended");
        self.shared.output.finish();
        if !self.shared.run.get().phase.is_ended() {
            let code = self.shared.view().debuggee.exit_code;
            self.shared.run.set(Phase::Exited { exit_code: code });
        }
    }

    /// Kills the debuggee this session launched, when its adapter died and left it behind.
    pub fn kill_launched_debuggee(&self) {
        if !self.shared.owns_local_debuggee {
            return;
        }
        let (pid, started, gone) = {
            let view = self.shared.view();
            (view.debuggee.pid, view.debuggee.started, view.debuggee.gone)
        };
        let Some(pid) = pid.filter(|_| !gone) else {
            return;
        };
        // The same process, not a later one that reused its pid.
        if started.is_none() || reaper::start_time(pid) != started {
            return;
        }
        let Ok(pid) = libc::pid_t::try_from(pid) else {
            return;
        };
        tracing::info!(pid, "killing the debuggee left behind by the dead adapter");
        // SAFETY: kill has no memory-safety preconditions; a stale pid only yields ESRCH.
        unsafe {
            libc::kill(pid, libc::SIGKILL);
        }
    }
}

/// lldb's expression errors come as "error: <user expression 0>:1:1: msg" plus a caret diagram;
/// keep the message.
pub(super) fn clean_evaluate_error(message: &str) -> String {
    let first = message
        .lines()
        .map(str::trim)
        .find(|l| !l.is_empty())
        .unwrap_or(message);
    let mut text = first.strip_prefix("error:").map(str::trim).unwrap_or(first);
    if text.starts_with("<user expression")
        && let Some((_, rest)) = text.split_once(">:")
    {
        // Skip "LINE:COLUMN: ".
        let mut rest = rest;
        for _ in 0..2 {
            if let Some((number, after)) = rest.split_once(':')
                && !number.is_empty()
                && number.bytes().all(|b| b.is_ascii_digit())
            {
                rest = after;
            }
        }
        text = rest.trim_start();
        text = text.strip_prefix("error:").map(str::trim).unwrap_or(text);
    }
    text.to_string()
}

/// Rust symbols carry a hash (`counter::Counter::bump::h6090cb8eda62bfe9`) that means nothing to
/// a reader; drop it.
fn without_rust_hash(name: &str) -> &str {
    match name.rsplit_once("::h") {
        Some((path, hash)) if hash.len() == 16 && hash.bytes().all(|b| b.is_ascii_hexdigit()) => {
            path
        }
        _ => name,
    }
}

pub fn frame_info(index: u32, frame: &StackFrame) -> FrameInfo {
    let file = frame
        .source
        .as_ref()
        .and_then(|s| s.path.clone().or_else(|| s.name.clone()));
    FrameInfo {
        index,
        function: without_rust_hash(&frame.name).to_string(),
        line: file.as_ref().and(Some(frame.line)).filter(|l| *l > 0),
        column: Some(frame.column).filter(|c| *c > 0),
        file,
        address: frame.instruction_pointer_reference.clone(),
    }
}

/// The DAP configuration sequence (see DESIGN.md): initialize, then launch/attach without
/// waiting, then breakpoints once `initialized` arrives, then `configurationDone`, then the
/// launch/attach answer. An error answer at any point fails at once with the adapter's words.
async fn configure(
    adapter: &dyn DebugAdapter,
    origin: &Origin,
    extras: &RequestExtras,
    dap: &DapClient,
    shared: &Arc<Shared>,
    timeouts: &Timeouts,
) -> Result<Capabilities, ErrorBody> {
    let initialize = dap
        .send("initialize", initialize_arguments(adapter.adapter_id()))
        .response_within(timeouts.launch())
        .await?;
    let caps = Capabilities(initialize);

    // Hold the breakpoint lock through configuration so a concurrent `break` waits for it.
    let _sync = shared.breakpoints.sync.lock().await;
    shared
        .breakpoints
        .registry()
        .reset_adapter_state(caps.supports("supportsLogPoints"));

    let (command, arguments) = match origin {
        Origin::Launch(spec) => ("launch", adapter.launch_arguments(spec)),
        Origin::Attach(spec) => ("attach", adapter.attach_arguments(spec)),
    };
    let arguments = extras.apply(command, arguments);
    let answer = dap
        .send(command, arguments)
        .response_within(timeouts.launch());
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

    place_initial_breakpoints(dap, shared).await;
    let targets = shared.breakpoints.registry().all_targets();
    for target in &targets {
        send_target(dap, shared, target).await;
    }
    if caps.0.get("exceptionBreakpointFilters").is_some() {
        // Only filters the adapter offers: lldb-dap, for one, dies on what it does not know.
        let offered: Vec<&str> = caps.0["exceptionBreakpointFilters"]
            .as_array()
            .map(|list| list.iter().filter_map(|f| f["filter"].as_str()).collect())
            .unwrap_or_default();
        let filters: Vec<String> = adapter
            .exception_filters()
            .into_iter()
            .filter(|f| offered.contains(f))
            .map(str::to_string)
            .collect();
        let answer = dap
            .request("setExceptionBreakpoints", json!({ "filters": filters }))
            .await?;
        shared.set_exception_filters(filters, &caps, &answer);
    }
    if caps.supports("supportsConfigurationDoneRequest") {
        dap.request("configurationDone", json!({})).await?;
    }
    match answered {
        Some(result) => result?,
        None => answer.await?,
    };
    if matches!(origin, Origin::Attach(_)) && adapter.stops_on_attach() {
        release_attach_stop(dap, shared, timeouts.launch()).await?;
    }
    shared
        .run
        .set_if(Phase::Running, |s| s.phase == Phase::Starting);
    Ok(caps)
}

/// Continues a program its adapter stopped on attaching (GDB does), so that after `attach` the
/// program runs, whatever the adapter. Should the stop not come, the state is left as it is.
async fn release_attach_stop(
    dap: &DapClient,
    shared: &Shared,
    limit: Duration,
) -> Result<(), ErrorBody> {
    let Some(state) = shared.run.wait_settled_after(0, limit).await else {
        return Ok(());
    };
    let Phase::Stopped(stop) = &state.phase else {
        return Ok(());
    };
    if shared
        .run
        .advance_if(Phase::Running, state.generation)
        .is_none()
    {
        return Ok(());
    }
    let thread_id = stop.thread_id.unwrap_or(1);
    dap.request("continue", json!({ "threadId": thread_id }))
        .await?;
    Ok(())
}

/// Applies adapter events to the shared state the moment they arrive.
async fn handle_events(
    mut events: mpsc::Receiver<Event>,
    shared: Arc<Shared>,
    dap: DapClient,
    process: Arc<AdapterProcess>,
) {
    while let Some(event) = events.recv().await {
        if let Some(logpoints) = apply_event(&shared, event) {
            // Its own task: this one must keep draining events while the emulation waits for
            // the adapter's answers (the adapter's reader stops when events back up).
            tokio::spawn(logpoints::emulate(dap.clone(), shared.clone(), logpoints));
        }
    }
    // No more messages will be read: an adapter still running (it broke the protocol) goes.
    process.kill();
    if shared.ending.load(Ordering::SeqCst) {
        // We ended the session: `end()` settled the output, which a restart may already have
        // reopened for the next run.
        return;
    }
    shared.output.finish();
    // The adapter is gone. Unless the program had already ended, that is a death to report.
    let mut detail = dap
        .closed_reason()
        .unwrap_or_else(|| "the debug adapter closed its connection".into());
    let log = shared.adapter_log.lock().unwrap_or_else(|p| p.into_inner());
    if !log.is_empty() && !detail.contains("stderr") {
        let lines: Vec<&str> = log.iter().map(String::as_str).collect();
        detail.push_str("; its last output:\n  ");
        detail.push_str(&lines.join("\n  "));
    }
    drop(log);
    shared
        .run
        .set_if(Phase::AdapterDied { detail }, |s| !s.phase.is_ended());
}

/// Applies one event; returns the logpoint hits the session must emulate (the program is then
/// stopped, and nobody is told).
fn apply_event(shared: &Shared, event: Event) -> Option<logpoints::Hit> {
    match event.event.as_str() {
        "initialized" => shared.initialized.notify_one(),
        "stopped" => {
            let Ok(body) = serde_json::from_value::<StoppedEventBody>(event.body) else {
                tracing::warn!("unreadable stopped event");
                return None;
            };
            // What the program printed up to the stop is all there is for now: show it.
            shared.output.flush_partial();
            if body.preserve_focus_hint {
                // One stop of the process comes as one event per thread that has a reason; the
                // adapter marks all but the focus thread's "preserve focus". Treating those as
                // stops of their own would move the selection, and one arriving late (after our
                // next resume) would pass for a new stop.
                tracing::debug!(thread = ?body.thread_id, "secondary stopped event ignored");
                return None;
            }
            if brief_stop::absorbs(shared, &body) {
                return None;
            }
            // DAP's "function breakpoint" is a breakpoint to the user, as lldb-dap reports it,
            // and a "data breakpoint" is a watchpoint.
            let mut reason = match body.reason.as_str() {
                "function breakpoint" => "breakpoint".to_string(),
                "data breakpoint" => WATCHPOINT_REASON.to_string(),
                // lldb-dap 19 calls a watchpoint hit a breakpoint, "watchpoint N" in its
                // description.
                "breakpoint"
                    if body
                        .description
                        .as_deref()
                        .is_some_and(|d| d.starts_with("watchpoint ")) =>
                {
                    WATCHPOINT_REASON.to_string()
                }
                _ => body.reason,
            };
            // GDB reports a caught exception as a breakpoint stop on its exception breakpoint.
            let exception = (reason == "breakpoint")
                .then(|| shared.exception_breakpoint_hit(&body.hit_breakpoint_ids))
                .flatten();
            let description = match exception {
                Some(label) => {
                    reason = "exception".into();
                    Some(label)
                }
                None => body.description,
            };
            let stop = StopInfo {
                reason: reason.clone(),
                description,
                text: body.text,
                thread_id: body.thread_id,
                hit_breakpoint_ids: body.hit_breakpoint_ids,
            };
            let ends_a_step = std::mem::take(&mut shared.view().in_flight.step_requested);
            let mut logged = None;
            if reason == "breakpoint"
                && let Some(thread_id) = stop.thread_id
            {
                let hit = hit_breakpoints(shared, &stop);
                if let Some(messages) = shared.breakpoints.registry().emulated_logpoints(&hit) {
                    let hit = logpoints::Hit {
                        thread_id,
                        messages,
                        resume: !ends_a_step,
                    };
                    if hit.resume {
                        return Some(hit);
                    }
                    // The user's step ended on a logpoint's line: it logs, and the stop is the
                    // step's.
                    reason = "step".into();
                    logged = Some(hit);
                }
            }
            let stop = if logged.is_some() {
                StopInfo {
                    description: None,
                    hit_breakpoint_ids: Vec::new(),
                    ..stop
                }
            } else {
                stop
            };
            // GDB stops on entry at a temporary breakpoint of its own (`start`), which is none
            // of the user's.
            let entry_expected = shared.view().in_flight.entry_expected;
            let unclaimed_breakpoint = entry_expected
                && reason == "breakpoint"
                && hit_breakpoints(shared, &stop).is_empty();
            {
                let mut view = shared.view();
                view.caches.thread_names.clear();
                if unclaimed_breakpoint
                    || shared
                        .adapter
                        .is_interrupt_stop(&reason, stop.description.as_deref())
                {
                    if view.in_flight.entry_expected {
                        reason = "entry".into();
                    } else if view.in_flight.pause_requested {
                        reason = "pause".into();
                    }
                }
                view.in_flight.entry_expected = false;
                view.in_flight.pause_requested = false;
                if body.thread_id.is_some() {
                    view.selection.thread = body.thread_id;
                }
                view.selection.frame = 0;
                view.caches.frames = None;
            }
            shared.run.set(Phase::Stopped(StopInfo { reason, ..stop }));
            return logged;
        }
        "continued" => {
            shared.view().caches.frames = None;
            shared
                .run
                .set_if(Phase::Running, |s| matches!(s.phase, Phase::Stopped(_)));
        }
        "exited" => {
            shared.view().in_flight.brief_stop = None;
            shared.view().debuggee.gone = true;
            if let Ok(body) = serde_json::from_value::<ExitedEventBody>(event.body) {
                shared.view().debuggee.exit_code = Some(body.exit_code);
                shared.run.set(Phase::Exited {
                    exit_code: Some(body.exit_code),
                });
            }
            shared.program_ended();
        }
        "terminated" => {
            shared.view().in_flight.brief_stop = None;
            shared.view().debuggee.gone = true;
            let exit_code = shared.view().debuggee.exit_code;
            shared
                .run
                .set_if(Phase::Exited { exit_code }, |s| !s.phase.is_ended());
            shared.program_ended();
        }
        "output" => {
            let Ok(body) = serde_json::from_value::<OutputEventBody>(event.body) else {
                return None;
            };
            let category = body.category.as_deref();
            if let Some((id, message)) = registry::logpoint_line(&body.output) {
                logpoints::record(&shared.output, id, message);
            } else if shared.adapter.is_program_output(category) {
                shared.output.push_stream(
                    category.unwrap_or("stdout"),
                    &shared.adapter.clean_program_output(&body.output),
                );
            } else if category != Some("telemetry") {
                let text = body.output.trim_end();
                tracing::info!("adapter {}: {text}", category.unwrap_or("console"));
                let mut log = shared.adapter_log.lock().unwrap_or_else(|p| p.into_inner());
                for line in text.lines().filter(|l| !l.trim().is_empty()) {
                    if log.len() == ADAPTER_LOG_TAIL {
                        log.pop_front();
                    }
                    log.push_back(line.to_string());
                }
            }
        }
        "breakpoint" => {
            if let Ok(body) = serde_json::from_value::<BreakpointEventBody>(event.body) {
                shared
                    .breakpoints
                    .registry()
                    .apply_event(&body.reason, &body.breakpoint);
            }
        }
        "process" => {
            if let Ok(body) = serde_json::from_value::<ProcessEventBody>(event.body) {
                let pid = body.system_process_id;
                let mut view = shared.view();
                view.debuggee.pid = pid;
                view.debuggee.gone = false;
                view.debuggee.started = None;
                if shared.owns_local_debuggee
                    && let Some(pid) = pid
                {
                    view.debuggee.started = reaper::start_time(pid);
                    if let Some(reaper) = &shared.reaper {
                        reaper.watch(pid);
                    }
                }
            }
        }
        other => tracing::debug!(event = other, "event ignored"),
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rust_symbol_hashes_are_dropped() {
        assert_eq!(
            without_rust_hash("counter::Counter::bump::h6090cb8eda62bfe9"),
            "counter::Counter::bump"
        );
        assert_eq!(without_rust_hash("ns::hello"), "ns::hello");
        assert_eq!(without_rust_hash("main"), "main");
    }

    #[test]
    fn lldb_expression_errors_are_trimmed_to_the_message() {
        assert_eq!(
            clean_evaluate_error(
                "error: <user expression 0>:1:1: use of undeclared identifier 'nosuch'\n    1 | nosuch\n      | ^\n"
            ),
            "use of undeclared identifier 'nosuch'"
        );
        assert_eq!(clean_evaluate_error("plain message"), "plain message");
    }
}
